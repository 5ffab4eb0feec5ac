"""A run's steps as one lane per device, so work that can happen at the same time is seen side by
side: each step is a box in its device's lane, as early as its inputs and its device allow (every
step takes one unit; a copy sits in the lane of the device it goes to). The stepper shows it with
the steps already run filled, the current one in yellow and the rest outlined.

It is a picture of the dependencies, not of measured time: the timeline (``--timeline``) shows
the cost model's or the clock's times.
"""
import html

from ..runtime.steps import OpStep
from .colours import COPY_COLOUR, CURRENT_COLOUR, device_colour, short_device

BOX_W, BOX_H, GAP, LABEL_W = 62, 22, 4, 92
WINDOW = 28  # columns shown at once (around the current step) when a run is wider


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


def lanes_svg(plan, done=(), current=None, devices=None):
    """The lanes as SVG: the steps (by index) in ``done`` filled, step ``current`` in yellow."""
    placed = schedule(plan)
    if not placed:
        return "<p>(no steps)</p>"
    lanes = sorted({lane for _, lane, _ in placed}, key=lambda n: _lane_order(n, devices))
    row = {lane: i for i, lane in enumerate(lanes)}
    columns = max(col for _, _, col in placed) + 1
    done = set(done)
    column = {step.index: col for step, _, col in placed}
    current_col = column.get(current, 0)
    first = 0
    if columns > WINDOW:
        first = max(0, min(current_col - WINDOW // 3, columns - WINDOW))
    last = min(columns, first + WINDOW)
    width = LABEL_W + (last - first) * (BOX_W + GAP)
    height = len(lanes) * (BOX_H + GAP) + 18
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="devlab-lanes" viewBox="0 0 {width} {height}" '
             f'width="{width}" height="{height}" style="max-width:100%;height:auto;font-family:Helvetica,sans-serif">']
    for lane, i in row.items():
        y = i * (BOX_H + GAP)
        parts.append(f'<text x="0" y="{y + 15}" font-size="11" fill="{device_colour(lane)}" font-weight="bold">'
                     f'{html.escape(short_device(lane))}</text>')
        parts.append(f'<line x1="{LABEL_W - 4}" x2="{width}" y1="{y + BOX_H / 2}" y2="{y + BOX_H / 2}" '
                     f'stroke="#eee"/>')
    for step, lane, col in placed:
        if not first <= col < last:
            continue
        x = LABEL_W + (col - first) * (BOX_W + GAP)
        y = row[lane] * (BOX_H + GAP)
        is_copy = not isinstance(step, OpStep)
        colour = COPY_COLOUR if is_copy else device_colour(lane)
        state = "current" if step.index == current else "done" if step.index in done else "todo"
        fill = {"current": CURRENT_COLOUR, "done": colour + ("55" if not is_copy else "33"), "todo": "white"}[state]
        label = ("copy " + step.tensor.op.name.rsplit("/", 1)[-1]) if is_copy else step.op.name.rsplit("/", 1)[-1]
        if len(label) > 10:
            label = label[:9] + "\u2026"
        title = (f"step {step.index + 1}: copy {step.tensor.name} {short_device(step.src.name)} -> "
                 f"{short_device(lane)}" if is_copy else f"step {step.index + 1}: {step.op.name} ({step.op.type})")
        dash = ' stroke-dasharray="3,2"' if is_copy else ""
        parts.append(f'<g class="devlab-lane-step devlab-{state}"><title>{html.escape(title)}</title>'
                     f'<rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="4" fill="{fill}" '
                     f'stroke="{colour}" stroke-width="{2.5 if state == "current" else 1}"{dash}/>'
                     f'<text x="{x + BOX_W / 2}" y="{y + 15}" font-size="9.5" text-anchor="middle" '
                     f'fill="{"#222" if state != "todo" else "#999"}">{html.escape(label)}</text></g>')
    shown = f"columns {first + 1}-{last} of {columns}" if columns > WINDOW else f"{columns} columns"
    parts.append(f'<text x="{LABEL_W}" y="{height - 4}" font-size="10" fill="#777">time \u2192 ({shown}; '
                 f'boxes in one column can run at the same time on different devices)</text></svg>')
    return "".join(parts)


def _lane_order(name, devices):
    if devices:
        for i, d in enumerate(devices):
            if d.name == name:
                return (i, name)
    return (len(devices or ()), name)
