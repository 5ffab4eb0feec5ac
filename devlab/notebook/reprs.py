"""Rich reprs: the HTML of ``devlab.views.html`` registered with IPython for the core objects."""
from ..framework.graph import Graph
from ..framework.operation import Operation
from ..placer.explain import Explanation
from ..runtime.session import Session
from ..views import html

REPRS = {Graph: html.graph_html, Operation: html.operation_html, Session: html.session_html,
         Explanation: html.explanation_html}


class Unwrapped:
    """Text shown as it is printed, but never wrapped in a notebook: a long line (the device
    mapping's) scrolls sideways in its own box instead of breaking in the middle of a device name."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text

    def _repr_html_(self):
        import html as html_mod
        return (f"<pre class='devlab-unwrapped' style='white-space:pre;overflow-x:auto;margin:0'>"
                f"{html_mod.escape(self.text, quote=False)}</pre>")


def _numpy_scalar_text(value, printer, cycle):
    """A numpy scalar shown as its value (``6.0``), not numpy 2's ``np.float32(6.0)``, as
    TensorFlow's tutorials print what ``sess.run`` returns."""
    printer.text(str(value))


def _numpy_scalar_types():
    """Every numpy scalar class (IPython looks printers up by class before it reaches ``np.generic``)."""
    import numpy as np
    return {cls for cls in np.sctypeDict.values() if issubclass(cls, np.generic) and cls is not np.object_}


def register_reprs(ipython):
    formatter = ipython.display_formatter.formatters["text/html"]
    for cls, fn in REPRS.items():
        formatter.for_type(cls, fn)
    for cls in _numpy_scalar_types():
        ipython.display_formatter.formatters["text/plain"].for_type(cls, _numpy_scalar_text)


def unregister_reprs(ipython):
    formatter = ipython.display_formatter.formatters["text/html"]
    for cls in REPRS:
        formatter.type_printers.pop(cls, None)
    for cls in _numpy_scalar_types():
        ipython.display_formatter.formatters["text/plain"].type_printers.pop(cls, None)
