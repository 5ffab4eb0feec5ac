"""The step-through widget: Back / Next / Play / Reset and a slider over a run's steps.

It is a view on ``Session.stepper`` (runtime layer): each move runs or replays steps there,
then shows the current op, its device, its inputs and outputs (arrays summarised), the
transfer it made, the placement reason, and the graph with the op highlighted. Buttons and
the slider work from the keyboard (Tab to focus, Enter/Space to press, arrows on the slider).
Graphs above ``DRAW_LIMIT`` ops are drawn folded, so a step never waits on a big drawing.
"""
import html

import ipywidgets as widgets
import numpy as np

from ..views.graph_view import GraphView

DRAW_LIMIT = 150


def summarize(value):
    """A short, deterministic text for an array: small ones in full, big ones by shape and stats."""
    if value is None:
        return "(none)"
    arr = np.asarray(value)
    if arr.dtype == object or arr.size <= 8:
        return np.array2string(arr, precision=4, separator=", ") if arr.dtype != object else repr(arr.tolist())
    return (f"{arr.dtype}{list(arr.shape)} min={arr.min():.4g} max={arr.max():.4g} "
            f"mean={arr.mean():.4g}")


class StepperWidget(widgets.VBox):
    def __init__(self, session, fetches, feed_dict=None, draw=True):
        self.session = session
        self.stepper = session.stepper(fetches, feed_dict)
        n = len(self.stepper.steps)
        self.draw = draw
        self.back_button = widgets.Button(description="Back", icon="step-backward", tooltip="Undo one step")
        self.next_button = widgets.Button(description="Next", icon="step-forward", tooltip="Run one step")
        self.reset_button = widgets.Button(description="Reset", icon="undo", tooltip="Back to the start")
        self.play = widgets.Play(value=0, min=0, max=n, step=1, interval=600, description="Play")
        self.slider = widgets.IntSlider(value=0, min=0, max=n, description="steps run", continuous_update=False)
        widgets.jslink((self.play, "value"), (self.slider, "value"))
        self.info = widgets.HTML()
        self.graph = widgets.HTML()
        self.back_button.on_click(lambda _: self.go(self.stepper.position - 1))
        self.next_button.on_click(lambda _: self.go(self.stepper.position + 1))
        self.reset_button.on_click(lambda _: self.go(0))
        self.slider.observe(lambda change: self.go(change["new"]), names="value")
        controls = widgets.HBox([self.back_button, self.next_button, self.reset_button, self.play, self.slider])
        super().__init__([controls, self.info, self.graph])
        self._render()

    @property
    def current(self):
        """The StepView of the last step run (None before the first)."""
        return self.stepper.history[-1] if self.stepper.history else None

    def go(self, position):
        """Moves to ``position`` steps run (forward by running, backward by replaying)."""
        position = max(0, min(position, len(self.stepper.steps)))
        if position != self.stepper.position:
            self.stepper.run_to(position)
        if self.slider.value != position:
            self.slider.value = position
        self._render()

    def _render(self):
        st = self.stepper
        n = len(st.steps)
        self.back_button.disabled = st.position == 0
        self.next_button.disabled = st.done
        view = self.current
        if view is None:
            body = f"<p>{n} steps. Press <b>Next</b> to run the first: {html.escape(st.describe_next())}</p>"
        else:
            body = self._describe(view)
            if not st.done:
                body += f"<p>next: {html.escape(st.describe_next())}</p>"
            else:
                body += "<p><b>run complete</b></p>"
        self.info.value = f"<div class='devlab-step'><b>step {st.position} of {n}</b>{body}</div>"
        if self.draw:
            highlight = view.name if view is not None and view.kind == "op" else None
            if view is not None and view.kind == "transfer":
                highlight = view.inputs[0][0].rsplit(":", 1)[0]
            gv = GraphView(self.session, st.plan, highlight=highlight,
                           collapse=len(st.steps) > DRAW_LIMIT or None)
            svg = gv.svg()
            self.graph.value = svg if svg is not None else ""

    def _describe(self, view):
        rows = []
        if view.kind == "transfer":
            tensor, value = view.inputs[0]
            rows.append(f"<p><b>transfer</b> of <code>{html.escape(tensor)}</code> from "
                        f"{html.escape(view.source_device)} to {html.escape(view.device)}</p>")
            rows.append(f"<p>value: <code>{html.escape(summarize(value))}</code></p>")
            return "".join(rows)
        rows.append(f"<p><b>{html.escape(view.name)}</b> ({html.escape(view.op_type)}) on "
                    f"<b>{html.escape(view.device)}</b></p>")
        for label, items in (("inputs", view.inputs), ("outputs", view.outputs)):
            if items:
                cells = "".join(f"<li><code>{html.escape(n)}</code> = <code>{html.escape(summarize(v))}</code></li>"
                                for n, v in items)
                rows.append(f"<p>{label}:</p><ul>{cells}</ul>")
        made = [s for s in self.stepper.plan.transfers if s.op.name == view.name]
        if made:
            rows.append("<p>its outputs will be copied to: " +
                        ", ".join(html.escape(s.device.short_name) for s in made) + "</p>")
        if view.reason is not None:
            rows.append(f"<pre>{html.escape(str(view.reason))}</pre>")
        return "".join(rows)

    def __repr__(self):
        return f"StepperWidget(step {self.stepper.position} of {len(self.stepper.steps)})"
