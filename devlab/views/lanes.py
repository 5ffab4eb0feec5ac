"""A run's steps as one lane per device, so work that can happen at the same time is seen side by
side: each step is a box in its device's lane, as early as its inputs and its device allow (every
step takes one unit; a copy sits in the lane of the device it goes to). The stepper shows it with
the steps already run filled, the current one in yellow and the rest outlined.

The lanes are drawn at a fixed size and never scaled to fit: a run of hundreds of steps is wider
than the page and scrolls (the labels stay put, see ``lanes_parts``), its text stays 11 px. Above
COMPACT_AT columns each device's lane is split by top-level name scope (``tower_0``, ``gradients``)
and the boxes lose their text (hovering one names it). Nothing moves the lanes but the reader.

It is a picture of the dependencies, not of measured time: the timeline (``--timeline``) shows
the cost model's or the clock's times.
"""
import html

from ..runtime.steps import OpStep
from .colours import COPY_COLOUR, CURRENT_COLOUR, device_colour, short_device

BOX_W, BOX_H, GAP, LABEL_W = 62, 22, 4, 150
COMPACT_AT = 40  # above this many columns: lanes by device and scope, narrow boxes without text
COMPACT_W = 14
FONT = 11  # px, the smallest text drawn (the SVG is never scaled down)
AXIS_H = 20


def _steps(plan):
    """The plan's op and transfer steps, each once (loops opened)."""
    flat = getattr(plan, "flat_steps", None)
    return list(flat()) if flat is not None else list(plan.steps)


def schedule(plan):
    """[(step, device name, column)] in step order: each step as early as its inputs and its lane allow."""
    end = {}  # step index -> the column after it
    producer = {}  # op name -> its step index
    copy_to = {}  # (tensor, device name) -> the transfer step index
    lane_free = {}
    out = []
    for step in _steps(plan):
        if isinstance(step, OpStep):
            lane = step.device.name
            deps = []
            for t in step.op.inputs:
                k = copy_to.get((t, lane))
                deps.append(k if k is not None else producer.get(t.op.name))
            deps += [producer.get(c.name) for c in step.op.control_inputs]
            producer[step.op.name] = step.index
        else:
            lane = step.device.name
            deps = [producer.get(step.tensor.op.name)]
            copy_to[(step.tensor, lane)] = step.index
        start = max([lane_free.get(lane, 0)] + [end[d] for d in deps if d is not None])
        end[step.index] = start + 1
        lane_free[lane] = start + 1
        out.append((step, lane, start))
    return out


def scope_of(step):
    """The top-level name scope of a step's op (a copy: of the op whose output it moves); "" for
    an op outside every scope."""
    name = step.op.name if isinstance(step, OpStep) else step.tensor.op.name
    return name.split("/", 1)[0] if "/" in name else ""


def _layout(plan, devices, group):
    placed = schedule(plan)
    columns = max((col for _, _, col in placed), default=-1) + 1
    if group is None:
        group = "scope" if columns > COMPACT_AT else "device"
    lanes = sorted({lane for _, lane, _ in placed}, key=lambda n: _lane_order(n, devices))
    rows = []  # (device, scope or None), in order: by device, then scopes as they first run
    for lane in lanes:
        if group == "scope":
            seen = []
            for step, ln, _ in placed:
                if ln == lane and scope_of(step) not in seen:
                    seen.append(scope_of(step))
            rows += [(lane, s) for s in seen]
        else:
            rows.append((lane, None))
    return placed, columns, rows, group


def _row_of(step, lane, group):
    return (lane, scope_of(step)) if group == "scope" else (lane, None)


def lanes_parts(plan, done=(), current=None, devices=None, group=None):
    """(labels SVG, steps SVG): the lane labels and the boxes, drawn separately so a page can keep
    the labels still while the boxes scroll. ``group``: "device" (one lane per device), "scope"
    (a lane per device and top-level scope) or None (by scope above COMPACT_AT columns)."""
    placed, columns, rows, group = _layout(plan, devices, group)
    if not placed:
        return "", "<p>(no steps)</p>"
    compact = columns > COMPACT_AT
    box_w = COMPACT_W if compact else BOX_W
    gap = 2 if compact else GAP
    index = {row: i for i, row in enumerate(rows)}
    height = len(rows) * (BOX_H + GAP) + AXIS_H
    label_w = LABEL_W if group == "scope" else LABEL_W // 2  # a device's short name needs less room
    labels = [f'<svg xmlns="http://www.w3.org/2000/svg" class="devlab-lanes-labels" width="{label_w}" '
              f'height="{height}" style="font-family:Helvetica,sans-serif;flex:none">']
    previous = None
    for (lane, scope), i in index.items():
        y = i * (BOX_H + GAP)
        first = lane != previous  # the device is named on its first lane; its other scopes indented
        label = (f'<tspan font-weight="bold" fill="{device_colour(lane)}">{html.escape(short_device(lane))}</tspan>'
                 if first else "")
        if scope is not None:
            shown = scope or "(no scope)"
            shown = shown if len(shown) <= 15 else shown[:14] + "\u2026"
            label += f'<tspan fill="#333">{" " if first else ""}{html.escape(shown)}</tspan>'
        title = html.escape(short_device(lane) + (f" {scope or '(no scope)'}" if scope is not None else ""))
        labels.append(f'<text x="{2 if first else 14}" y="{y + 15}" font-size="{FONT}"><title>{title}</title>'
                      f'{label}</text>')
        previous = lane
    labels.append("</svg>")

    width = columns * (box_w + gap) + 8
    done = set(done)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="devlab-lanes" width="{width}" height="{height}" '
             f'style="font-family:Helvetica,sans-serif;flex:none">']
    for i in range(len(rows)):
        y = i * (BOX_H + GAP) + BOX_H / 2
        parts.append(f'<line x1="0" x2="{width}" y1="{y}" y2="{y}" stroke="#eee"/>')
    every = 10 if compact else 5
    for col in range(0, columns, every):  # a column ruler, so a box's column can be read off
        x = col * (box_w + gap)
        parts.append(f'<text x="{x}" y="{height - 5}" font-size="{FONT}" fill="#777">{col + 1}</text>')
    for step, lane, col in placed:
        x = col * (box_w + gap)
        y = index[_row_of(step, lane, group)] * (BOX_H + GAP)
        is_copy = not isinstance(step, OpStep)
        colour = COPY_COLOUR if is_copy else device_colour(lane)
        state = "current" if step.index == current else "done" if step.index in done else "todo"
        fill = {"current": CURRENT_COLOUR, "done": colour + ("55" if not is_copy else "33"), "todo": "white"}[state]
        title = (f"step {step.index + 1}: copy {step.tensor.name} {short_device(step.src.name)} -> "
                 f"{short_device(lane)}" if is_copy else f"step {step.index + 1}: {step.op.name} ({step.op.type})")
        dash = ' stroke-dasharray="3,2"' if is_copy else ""
        text = ""
        if not compact:
            label = ("copy " + step.tensor.op.name.rsplit("/", 1)[-1]) if is_copy else step.op.name.rsplit("/", 1)[-1]
            if len(label) > 9:
                label = label[:8] + "\u2026"
            text = (f'<text x="{x + box_w / 2}" y="{y + 15}" font-size="{FONT}" text-anchor="middle" '
                    f'fill="{"#222" if state != "todo" else "#999"}">{html.escape(label)}</text>')
        parts.append(f'<g class="devlab-lane-step devlab-{state}"><title>{html.escape(title)}</title>'
                     f'<rect x="{x}" y="{y}" width="{box_w}" height="{BOX_H}" rx="{2 if compact else 4}" '
                     f'fill="{fill}" stroke="{colour}" stroke-width="{2.5 if state == "current" else 1}"{dash}/>'
                     f'{text}</g>')
    parts.append("</svg>")
    return "".join(labels), "".join(parts)


def lanes_caption(plan, current=None, group=None):
    """One line under the lanes: how many columns, where the current step is, how they are grouped."""
    placed, columns, rows, group = _layout(plan, None, group)
    where = next((col for step, _, col in placed if step.index == current), None)
    return (f"time \u2192: {columns} columns (boxes in one column can run at the same time on different "
            f"devices); {len(rows)} lanes{' by device and scope' if group == 'scope' else ''}"
            + (f"; the current step is in column {where + 1}" if where is not None else ""))


def lanes_svg(plan, done=(), current=None, devices=None, group=None):
    """The lanes as one HTML block: labels, then the boxes in a box that scrolls sideways."""
    labels, steps = lanes_parts(plan, done, current, devices, group)
    caption = html.escape(lanes_caption(plan, current, group))
    return (f'<div style="display:flex">{labels}<div style="overflow-x:auto">{steps}</div></div>'
            f'<div style="font-size:{FONT}px;color:#777">{caption}</div>')


def _lane_order(name, devices):
    if devices:
        for i, d in enumerate(devices):
            if d.name == name:
                return (i, name)
    return (len(devices or ()), name)
