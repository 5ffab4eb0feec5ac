"""The timeline of a run as a matplotlib Gantt chart: one row per device lane, a bar per op or
copy in its device's colour (the same as in the graph and the stepper), an arrow per transfer;
the title says whether times are modelled or measured."""
from ..framework.extras import require
from .chrome_trace import Timeline
from .colours import COPY_COLOUR, device_colour, short_device


def pack(events):
    """Per event, its row (device, lane, k): events of one lane that overlap in time get rows
    k = 0, 1, ... so two copies arriving at once show as two bars, not one drawn over the other."""
    rows = [None] * len(events)
    free = {}  # (device, lane) -> the end time of each of its rows
    for i in sorted(range(len(events)), key=lambda i: (events[i][4], i)):
        dev, lane, _, _, start, dur, _ = events[i]
        ends = free.setdefault((dev, lane), [])
        k = next((k for k, end in enumerate(ends) if end <= start), len(ends))
        if k == len(ends):
            ends.append(0)
        ends[k] = start + max(dur, 0)
        rows[i] = (dev, lane, k)
    return rows


def gantt(step_stats, ax=None, title=None):
    """Draws the run's timeline; returns the matplotlib Figure."""
    plt = require("matplotlib.pyplot", "the timeline's Gantt chart")
    tl = Timeline(step_stats)
    events = tl.events()
    sub = pack(events)
    rows = sorted(set(sub))
    row_of = {r: i for i, r in enumerate(rows)}
    if ax is None:
        fig, ax = plt.subplots(figsize=(9, 0.6 * len(rows) + 1.2))
    else:
        fig = ax.figure
    ends = {}
    for (dev, lane, name, op, start, dur, n), key in zip(events, sub):
        y = row_of[key]
        copy = op == "_Recv"
        ax.barh(y, max(dur, 1e-3), left=start, color=device_colour(dev), alpha=0.45 if copy else 0.85,
                edgecolor=COPY_COLOUR if copy else "black", linewidth=1.2 if copy else 0.5,
                hatch="//" if copy else None)
        ends[(dev, name)] = (start + dur, y)
        if dur > 0:
            ax.text(start + dur / 2, y, op if op != "_Recv" else "copy", ha="center", va="center", fontsize=7)
    for (dev, lane, name, op, start, dur, n), key in zip(events, sub):
        if op == "_Recv":
            src = ends.get((n.transfer_from, n.tensor.rsplit(":", 1)[0]))
            if src:
                ax.annotate("", xy=(start, row_of[key]), xytext=src,
                            arrowprops={"arrowstyle": "->", "color": COPY_COLOUR})
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{short_device(d)} {lane}" + (f" ({k + 1})" if k else "") for d, lane, k in rows])
    for label, (d, _, _) in zip(ax.get_yticklabels(), rows):
        label.set_color(device_colour(d))
    ax.invert_yaxis()
    ax.set_xlabel(f"time (µs, {tl.clock})")
    why = ": simulated devices use the cost model" if tl.modelled else ""
    ax.set_title(title or f"Timeline ({tl.clock} time{why})")
    fig.tight_layout()
    return fig
