"""The timeline of a run as a matplotlib Gantt chart: one row per device lane, a bar per op or
copy, an arrow per transfer; the title says whether times are modelled or measured."""
from .chrome_trace import Timeline


def gantt(step_stats, ax=None, title=None):
    """Draws the run's timeline; returns the matplotlib Figure."""
    import matplotlib.pyplot as plt
    tl = Timeline(step_stats)
    events = tl.events()
    rows = sorted({(dev, lane) for dev, lane, *_ in events})
    row_of = {r: i for i, r in enumerate(rows)}
    if ax is None:
        fig, ax = plt.subplots(figsize=(9, 0.6 * len(rows) + 1.2))
    else:
        fig = ax.figure
    colours = plt.get_cmap("tab10")
    ends = {}
    for dev, lane, name, op, start, dur, n in events:
        y = row_of[(dev, lane)]
        ax.barh(y, max(dur, 1e-3), left=start, color=colours(y % 10), edgecolor="black", linewidth=0.5)
        ends[(dev, name)] = (start + dur, y)
        if dur > 0:
            ax.text(start + dur / 2, y, op if op != "_Recv" else "copy", ha="center", va="center", fontsize=7)
    for dev, lane, name, op, start, dur, n in events:
        if op == "_Recv":
            src = ends.get((n.transfer_from, n.tensor.rsplit(":", 1)[0]))
            if src:
                ax.annotate("", xy=(start, row_of[(dev, lane)]), xytext=src,
                            arrowprops={"arrowstyle": "->", "color": "#C62828"})
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{d.split('/device:')[-1] if d.startswith('/job:localhost') else d} {lane}" for d, lane in rows])
    ax.invert_yaxis()
    ax.set_xlabel(f"time (µs, {tl.clock})")
    ax.set_title(title or f"Timeline ({tl.clock} time{': simulated devices use the cost model' if tl.modelled else ''})")
    fig.tight_layout()
    return fig
