"""One clear line for the TensorFlow APIs devlab does not have yet.

Each namespace (``tf``, ``tf.nn``, ``tf.train``...) ends in a module ``__getattr__`` built here,
so ``tf.nn.ctc_loss`` raises ``AttributeError: devlab does not implement
tf.nn.ctc_loss yet (used at cell.py:3)`` naming the full ``tf.X`` name and the user's line,
instead of a traceback through devlab's internals. Reached through an installed library that
wraps TF, it names the user's line and the library's: ``(used at train.py:12, through
.../site-packages/tf_slim/layers.py:88)``.
"""
import types

from .framework.traceable import user_and_library_locations


def missing(path):
    """The AttributeError for the API ``path`` (``tf.nn.foo``), naming the line that asked for it."""
    (filename, lineno), library = user_and_library_locations()
    where = f" (used at {filename}:{lineno}" if lineno else ""
    if where and library:
        where += f", through {library[0]}:{library[1]}"
    where += ")" if where else ""
    return AttributeError(f"devlab does not implement {path} yet{where}")


def module_getattr(path, module_name):
    """A module-level ``__getattr__`` for the namespace ``path`` (``tf.nn``) of ``module_name``.
    Private and dunder names (what tools probe for) get Python's usual message."""
    def __getattr__(name):
        __tracebackhide__ = True  # noqa: F841 - IPython and pytest hide this frame
        if name.startswith("_"):
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        raise missing(f"{path}.{name}")
    return __getattr__


class Namespace(types.SimpleNamespace):
    """A namespace object (``tf.contrib``, ``tf.app``) whose missing names raise ``missing``."""

    def __init__(self, path, **names):
        super().__init__(**names)
        object.__setattr__(self, "_path", path)

    def __getattr__(self, name):
        __tracebackhide__ = True  # noqa: F841
        if name.startswith("_"):
            raise AttributeError(name)
        raise missing(f"{self._path}.{name}")
