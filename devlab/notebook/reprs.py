"""Rich reprs: the HTML of ``devlab.views.html`` registered with IPython for the core objects."""
from ..framework.graph import Graph
from ..framework.operation import Operation
from ..placer.explain import Explanation
from ..runtime.session import Session
from ..views import html

REPRS = {Graph: html.graph_html, Operation: html.operation_html, Session: html.session_html,
         Explanation: html.explanation_html}


def register_reprs(ipython):
    formatter = ipython.display_formatter.formatters["text/html"]
    for cls, fn in REPRS.items():
        formatter.for_type(cls, fn)


def unregister_reprs(ipython):
    formatter = ipython.display_formatter.formatters["text/html"]
    for cls in REPRS:
        formatter.type_printers.pop(cls, None)
