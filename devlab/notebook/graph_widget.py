"""The placed graph as a live widget (anywidget): the SVG of ``devlab.views.graph_view`` fitted
to the output width, pan and zoom, a click on a folded scope opens it (the kernel redraws), and
the stepper's current op kept in view.

Graphviz's ``dot`` lays the graph out here when it is installed. Without it (a pip install
cannot bring it), the widget sends the DOT text instead, with ``graphviz.js``: Graphviz compiled
to WebAssembly (built by tools/build_widget.sh), which lays it out in the browser.

Above 150 ops the default drawing is one node per device (``GraphView``'s device view): a click
on a device redraws that device's ops folded by scope ("devices" goes back), and a click on an
arrow lists its copies under the drawing, from rows sent with the drawing (no round trip).

Saved in a notebook and opened before it runs, a widget has no state to show; its text says to
run the cell, and the static SVG travels with it for viewers that draw SVG (GitHub, nbviewer).
"""
import pathlib

from ..framework.extras import require
from ..views.colours import short_device
from ..views.copies import total_bytes
from ..views.graph_view import GraphView, GraphvizMissing, fit_svg, human_bytes

anywidget = require("anywidget", "devlab.notebook.GraphWidget")
traitlets = require("traitlets", "devlab.notebook.GraphWidget")

HERE = pathlib.Path(__file__).parent
STATIC_SVG_LIMIT = 300_000  # characters: bigger drawings are not copied into the static output
GRAPHVIZ_JS = HERE / "graphviz.js"
ROUTE_ROWS = 500  # copies of one arrow sent to the browser for its list


def graphviz_js():
    """The WebAssembly Graphviz the browser lays graphs out with (about 800 KB, read once)."""
    global _GRAPHVIZ_TEXT
    if _GRAPHVIZ_TEXT is None:
        _GRAPHVIZ_TEXT = GRAPHVIZ_JS.read_text(encoding="utf-8")
    return _GRAPHVIZ_TEXT


_GRAPHVIZ_TEXT = None


class GraphWidget(anywidget.AnyWidget):
    _esm = HERE / "graph_widget.js"
    _css = HERE / "graph_widget.css"
    svg = traitlets.Unicode("").tag(sync=True)
    dot = traitlets.Unicode("").tag(sync=True)  # the DOT text, for the browser to lay out when svg is empty
    graphviz_js = traitlets.Unicode("").tag(sync=True)  # the library that does it, sent only then
    folds = traitlets.Dict({}).tag(sync=True)  # svg id of each folded scope -> the scope
    unfolded = traitlets.List([]).tag(sync=True)
    focus = traitlets.Unicode("").tag(sync=True)  # svg id to keep in view (the stepper's current)
    keep_zoom = traitlets.Bool(False).tag(sync=True)  # redraws keep the zoom and pan (the stepper)
    devices = traitlets.Dict({}).tag(sync=True)  # device view: svg id of each device node -> its short name
    routes = traitlets.Dict({}).tag(sync=True)  # device view: svg id of each arrow -> {"title", "rows", "more"}
    opened = traitlets.Unicode("").tag(sync=True)  # the device whose ops are drawn alone, or ""

    def __init__(self, session, keep_zoom=False, **view_options):
        self.session = session
        self.options = dict(view_options)
        self.view = None
        # The first drawing travels in the state the widget opens with, not in an update right after
        # it: on a loaded machine the browser could miss an update sent while it loaded the widget.
        super().__init__(keep_zoom=keep_zoom, **self._drawing([], first=True))
        self.on_msg(self._on_message)

    def redraw(self, **changes):
        """Draws again, with view options changed (``highlight=...``, ``done=...``)."""
        self.options.update(changes)
        state = self._drawing(self.unfolded, first=not self.graphviz_js)
        with self.hold_sync():  # one message: the browser never sees the folds of another drawing
            for name, value in state.items():
                setattr(self, name, value)
        return self.view

    def _drawing(self, unfolded, first):
        """The synced state of a drawing of the graph with ``unfolded`` scopes open (``first``: the
        WebAssembly Graphviz is sent with it when the browser must lay it out)."""
        self.view = GraphView(self.session, unfold=unfolded, interactive=True, **self.options)
        dot = self.view.to_dot()
        try:
            svg, source = fit_svg(dot.pipe("svg").decode()), ""
        except GraphvizMissing:  # no `dot` here: the browser lays it out (graph_widget.js)
            svg, source = "", dot.source
        state = {"folds": dict(self.view.folds),
                 "devices": {i: short_device(d) for i, d in self.view.device_nodes.items()},
                 "routes": self._route_rows(),
                 "opened": short_device(self.view.open_device) if self.view.open_device else "",
                 "svg": svg, "dot": source}
        if source and first:
            state["graphviz_js"] = graphviz_js()
        return state

    def _route_rows(self):
        """{svg id of an arrow: its title and its copies' rows (the first ROUTE_ROWS)}."""
        out = {}
        for eid, route in self.view.routes.items():
            rows = self.view.routes_copies[route]
            out[eid] = {"title": f"{len(rows)} copies {short_device(route[0])} \u2192 {short_device(route[1])}, "
                                 f"{human_bytes(total_bytes(rows))} per run",
                        "rows": [[c.tensor, "?" if c.nbytes is None else human_bytes(c.nbytes), c.nbytes or 0,
                                  f"{c.op_name} ({c.op_type})", c.where] for c in rows[:ROUTE_ROWS]],
                        "more": max(0, len(rows) - ROUTE_ROWS)}
        return out

    def open_device(self, name):
        """Draws the ops of one device, folded by scope (what a click on a device node does)."""
        self.unfolded = []
        self.redraw(level="ops", open_device=name)

    def show_devices(self):
        """Back to the device view."""
        self.unfolded = []
        self.redraw(level="device", open_device=None)

    def unfold(self, scope):
        """Opens a folded name scope (what a click on its 3-D box does)."""
        if scope not in self.unfolded:
            self.unfolded = self.unfolded + [scope]
            self.redraw()

    def fold_all(self):
        self.unfolded = []
        self.redraw()

    def _on_message(self, _widget, content, _buffers):
        if content.get("event") == "unfold" and content.get("id") in self.folds:
            self.unfold(self.folds[content["id"]])
        elif content.get("event") == "fold_all":
            self.fold_all()
        elif content.get("event") == "open_device" and content.get("id") in self.devices:
            self.open_device(self.devices[content["id"]])
        elif content.get("event") == "devices":
            self.show_devices()

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        if data is not None and "<svg" in self.svg[:400] and len(self.svg) < STATIC_SVG_LIMIT:
            data["image/svg+xml"] = self.svg.replace(" (click to open)", "")  # a static copy opens nothing
        return bundle

    def __repr__(self):
        return repr(self.view)
