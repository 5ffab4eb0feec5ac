"""``tf.app``: ``run`` and ``flags``, the entry point of TF1 scripts.

``tf.app.run()`` parses the flags from ``sys.argv``, calls the script's ``main(argv)`` and exits
with its result, as TF's does. Inside IPython or Jupyter it returns the result instead of
calling ``sys.exit`` (TF's raises SystemExit, which stops a notebook cell with a traceback).
"""
import sys

from . import flags
from .unimplemented import module_getattr

__getattr__ = module_getattr("tf.app", __name__)


def run(main=None, argv=None):
    """Parses flags, then ``main(argv)`` (``__main__.main`` when not given)."""
    main = main or sys.modules["__main__"].main
    args = flags.FLAGS(sys.argv if argv is None else argv, known_only=True)
    result = main(args)
    if _in_ipython():
        return result
    sys.exit(result)


def _in_ipython():
    ipython = sys.modules.get("IPython")
    return ipython is not None and getattr(ipython, "get_ipython", lambda: None)() is not None
