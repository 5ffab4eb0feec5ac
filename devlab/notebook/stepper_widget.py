"""The step-through widget: Back / Next / Reset / Play (with a speed) and a slider over a run's steps.

It is a view on ``Session.stepper`` (runtime layer): each move runs or replays steps there, then
shows the current step (the op, its device, its inputs and outputs, the fed ones labelled, why it
is there; or the copy and what it moves; before the first step, the fed values), the run as one lane per device (``views/lanes.py``: work on different
devices side by side), and the graph with the ops already run filled, the current op, or on a
transfer step the copy edge, in yellow and kept in view. Next copy, Run to op and Break on +
Continue run ahead to a copy, an op, or a step on a device or in a name scope (``Stepper.run_until``).
The lanes are drawn at full size beside their labels and scroll sideways; nothing scrolls them but
the reader. Buttons and the slider work from the keyboard (Tab to focus, Enter/Space to press,
arrows on the slider).
"""
import html

import numpy as np

from ..framework.extras import require
from ..views.colours import device_colour, short_device
from ..views.lanes import lanes_caption, lanes_parts

widgets = require("ipywidgets", "devlab.notebook.StepperWidget")

SPEEDS = [("0.5\u00d7", 1200), ("1\u00d7", 600), ("2\u00d7", 300), ("4\u00d7", 150)]


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
        self.speed = widgets.Dropdown(options=SPEEDS, value=600, description="speed",
                                      layout=widgets.Layout(width="140px"))
        widgets.link((self.speed, "value"), (self.play, "interval"))
        self.slider = widgets.IntSlider(value=0, min=0, max=n, description="steps run", continuous_update=False)
        widgets.jslink((self.play, "value"), (self.slider, "value"))
        self.info = widgets.HTML()
        # Run to ...: the next copy, an op by name, the next step that hits a breakpoint
        self.copy_button = widgets.Button(description="Next copy", icon="exchange",
                                          tooltip="Run until the next copy between devices has run")
        self.op_name = widgets.Text(placeholder="op name, e.g. tower_1/MatMul", layout=widgets.Layout(width="260px"))
        self.op_button = widgets.Button(description="Run to op", tooltip="Run until this op has run")
        self.break_text = widgets.Text(placeholder="/gpu:1 or a scope, e.g. tower_0",
                                       layout=widgets.Layout(width="220px"))
        self.break_button = widgets.Button(description="Break on", icon="hand-paper-o",
                                           tooltip="Stop at every step on this device or in this name scope")
        self.continue_button = widgets.Button(description="Continue", icon="play",
                                              tooltip="Run until a step hits a breakpoint")
        self.clear_button = widgets.Button(description="Clear", tooltip="Remove every breakpoint")
        self.message = widgets.HTML()
        # The lanes: labels still, the boxes scroll sideways (never moved but by the reader)
        self.group = widgets.Dropdown(options=[("auto", "auto"), ("device", "device"), ("device and scope", "scope")],
                                      value="auto", description="lanes by", layout=widgets.Layout(width="220px"))
        self.lane_labels = widgets.HTML(layout=widgets.Layout(flex="0 0 auto"))
        self.lanes = widgets.HTML(layout=widgets.Layout(overflow="auto hidden", flex="1 1 auto", width="auto"))
        self.lanes.add_class("devlab-lanes-scroll")
        self.lanes_caption = widgets.HTML()
        self.graph = None
        if draw:
            from .graph_widget import GraphWidget
            self.graph = GraphWidget(session, plan=self.stepper.plan, done=(), keep_zoom=True)  # steps keep your zoom
        self.back_button.on_click(lambda _: self._say("") or self.go(self.stepper.position - 1))
        self.next_button.on_click(lambda _: self._say("") or self.go(self.stepper.position + 1))
        self.reset_button.on_click(lambda _: self._say("") or self.go(0))
        self.slider.observe(lambda change: self.go(change["new"]), names="value")
        self.copy_button.on_click(lambda _: self._moved(self.stepper.run_to_next_copy))
        self.op_button.on_click(lambda _: self.run_to_op(self.op_name.value))
        self.break_button.on_click(lambda _: self.break_on(self.break_text.value))
        self.continue_button.on_click(lambda _: self.run_to_breakpoint())
        self.clear_button.on_click(lambda _: self._clear_breakpoints())
        self.group.observe(lambda _: self._render(), names="value")
        row = widgets.Layout(flex_flow="row wrap")
        controls = widgets.HBox([self.back_button, self.next_button, self.reset_button, self.play, self.speed,
                                 self.slider], layout=row)
        run_to = widgets.HBox([self.copy_button, self.op_name, self.op_button, self.break_text, self.break_button,
                               self.continue_button, self.clear_button], layout=row)
        lanes = widgets.HBox([self.lane_labels, self.lanes], layout=widgets.Layout(width="100%"))
        super().__init__([controls, run_to, self.message, self.info, self.group, lanes, self.lanes_caption]
                         + ([self.graph] if self.graph is not None else []), layout=widgets.Layout(width="100%"))
        self._render()

    @property
    def current(self):
        """The StepView of the last step run (None before the first)."""
        return self.stepper.history[-1] if self.stepper.history else None

    def go(self, position):
        """Moves to ``position`` steps run (forward by running, backward by replaying). A loop runs
        its steps once per iteration, so a run can have more positions than the plan has steps:
        the slider grows as they are found, and stops at the end of the run."""
        position = max(0, position)
        if position != self.stepper.position:
            self.stepper.run_to(position)
        self._sync()

    # -- run to ...: each says where it stopped, or why it did not move -----------------------------
    def run_to_op(self, name):
        name = name.strip()
        try:
            view = self.stepper.run_to_op(name)
        except KeyError as e:
            self._say(str(e.args[0]), error=True)
            return
        self._sync(f"ran to {name}" if view is not None else f"{name} had already run: the run is complete")

    def break_on(self, text):
        """A breakpoint on a device ("/gpu:1", "GPU:1") or, failing that, a name scope."""
        text = text.strip()
        if not text:
            return
        try:
            self.stepper.break_on(device=text)
        except ValueError as not_a_device:
            try:
                self.stepper.break_on(scope=text)
            except ValueError:
                self._say(f"{not_a_device}; nor is {text!r} a name scope of this run", error=True)
                return
        self.break_text.value = ""
        self._say(self._breakpoints_text())

    def run_to_breakpoint(self):
        if not self.stepper.breakpoints:
            self._say("no breakpoints yet: type a device (/gpu:1) or a name scope (tower_0) and press Break on",
                      error=True)
            return
        view = self.stepper.run_to_breakpoint()
        hit = self.stepper.hits(view) if view is not None else None
        self._sync(f"stopped at the breakpoint on {hit}" if hit else "no breakpoint hit: the run is complete")

    def _clear_breakpoints(self):
        self.stepper.clear_breakpoints()
        self._say("no breakpoints")

    def _moved(self, move):
        view = move()
        self._sync("" if view is not None else "no copy left: the run is complete")

    def _breakpoints_text(self):
        points = ", ".join(self.stepper.breakpoint_texts())
        return f"breakpoints: {points}; press Continue" if points else "no breakpoints"

    def _say(self, text, error=False):
        colour = "#C62828" if error else "#333"
        self.message.value = f"<span style='color:{colour}'>{html.escape(text, quote=False)}</span>" if text else ""

    def _sync(self, message=None):
        """The slider, the play control and the drawing brought to where the stepper is."""
        if message is not None:
            self._say(message)
        position = self.stepper.position  # the end of the run, if that came first
        last = position if self.stepper.done else max(self.slider.max, position + 1)
        for control in (self.slider, self.play):
            if control.max != last:
                control.max = last
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
            body += self._feeds()
        else:
            body = self._describe(view)
            body += (f"<p style='color:#666'>next: {html.escape(st.describe_next())}</p>" if not st.done
                     else "<p><b>run complete</b></p>")
        total = f"{n}" if not st.plan.has_control_flow else f"{n} in the plan; a loop's repeat each iteration"
        self.info.value = f"<div class='devlab-step'><b>step {st.position} of {total}</b>{body}</div>"
        history = st.history  # what ran, in order (a loop's steps once per iteration)
        done = {v.index for v in history[:-1]}
        current = history[-1].index if history else None
        group = None if self.group.value == "auto" else self.group.value  # auto: by scope above 40 columns
        self.lane_labels.value, self.lanes.value = lanes_parts(st.plan, done, current, self.session.devices, group)
        caption = lanes_caption(st.plan, current, group)
        self.lanes_caption.value = f"<span style='font-size:11px;color:#777'>{html.escape(caption)}</span>"
        if self.graph is not None:
            self._draw_graph(history)

    def _draw_graph(self, history):
        done_ops = {v.name for v in history if v.kind == "op"}
        done_copies = {(v.inputs[0][0], v.device) for v in history if v.kind == "transfer"}
        view = history[-1] if history else None
        highlight = highlight_copy = None
        if view is not None and view.kind == "op":
            highlight = view.name
        elif view is not None:  # a transfer step: the copy edge, not its source op, is current
            highlight_copy = (view.inputs[0][0], view.device)
        gv = self.graph.redraw(highlight=highlight, highlight_copy=highlight_copy, done=done_ops,
                               done_copies=done_copies)
        focus = None
        if highlight is not None:
            focus = gv.svg_id_of_op(highlight)
        elif highlight_copy is not None:
            focus = gv.svg_id_of_copy(*highlight_copy)
        self.graph.focus = focus or ""

    def _describe(self, view):
        rows = []
        if view.kind == "transfer":
            tensor, value = view.inputs[0]
            rows.append(f"<p><b style='color:#C62828'>copy</b> of <code>{html.escape(tensor)}</code>"
                        f"{' (fed)' if tensor in view.fed else ''} from "
                        f"{_dev(view.source_device)} to {_dev(view.device)}</p>")
            rows.append(f"<p>value: <code>{html.escape(summarize(value))}</code></p>")
            return "".join(rows)
        rows.append(f"<p><b>{html.escape(view.name)}</b> ({html.escape(view.op_type)}) on {_dev(view.device)}</p>")
        for label, items in (("inputs", view.inputs), ("outputs", view.outputs)):
            if items:
                cells = "".join(f"<li><code>{html.escape(n)}</code>{' (fed)' if n in view.fed else ''} = "
                                f"<code>{html.escape(summarize(v))}</code></li>" for n, v in items)
                rows.append(f"<p>{label}:</p><ul>{cells}</ul>")
        made = [s for s in self.stepper.plan.transfers if s.op.name == view.name]
        if made:
            rows.append("<p>its outputs will be copied to: " +
                        ", ".join(_dev(s.device.name) for s in made) + "</p>")
        if view.reason is not None:
            rows.append(f"<pre>{html.escape(str(view.reason))}</pre>")
        return "".join(rows)

    def _feeds(self):
        """The fed values, as they enter their devices before the first step."""
        feeds = self.stepper.feeds
        if not feeds:
            return ""
        cells = "".join(f"<li><code>{html.escape(name)}</code> on {_dev(device)} = "
                        f"<code>{html.escape(summarize(value))}</code></li>" for name, device, value in feeds)
        return f"<p>fed:</p><ul>{cells}</ul>"

    def __repr__(self):
        return (f"Stepper over the {len(self.stepper.steps)} steps of a run: run this cell to step through it "
                f"(now at step {self.stepper.position})")


def _dev(name):
    return f"<b style='color:{device_colour(name)}'>{html.escape(short_device(name))}</b>"
