"""One colour per device, the same in every view (graph, timeline, stepper, table) and in every
notebook: the colour is a function of the device's *name*, never of the order devices appear in.

Local devices get fixed colours by type and index (GPU:0 is always blue, CPU:0 always green);
devices of cluster jobs (``/job:ps/task:1/...``) get a colour from a second palette picked by a
checksum of their name, so a parameter server keeps its colour from one cell to the next.
"""
import zlib

# GPU:3 is indigo, not red: red is the copies' colour (COPY_COLOUR), and no device may look like a copy
GPU_COLOURS = ["#1F77B4", "#FF7F0E", "#9467BD", "#393B79", "#17BECF", "#E377C2", "#BCBD22", "#8C564B"]
CPU_COLOURS = ["#2CA02C", "#7F7F7F", "#98DF8A", "#AEC7E8"]
CLUSTER_COLOURS = ["#8C564B", "#E377C2", "#17BECF", "#BCBD22", "#9467BD", "#FF7F0E", "#1F77B4", "#2CA02C",
                   "#6B6ECF", "#7F7F7F", "#393B79", "#637939", "#8C6D31", "#843C39", "#7B4173", "#3182BD"]
COPY_COLOUR = "#C62828"  # copies between devices: red in the graph, the timeline and the stepper
CURRENT_COLOUR = "#FFD54F"  # the stepper's current op or copy


def _parts(name):
    """(job, task, type, index) of a full or short device name; job None for the local one."""
    job = task = None
    dev_type, index = "CPU", 0
    for piece in name.strip("/").split("/"):
        key, _, value = piece.partition(":")
        if key == "job":
            job = value
        elif key == "task":
            task = value
        elif key == "device":
            dev_type, _, idx = value.partition(":")
            index = int(idx) if idx.isdigit() else 0
        elif key.upper() in ("CPU", "GPU"):
            dev_type, index = key.upper(), int(value) if value.isdigit() else 0
    return (None if job in (None, "localhost") else job), task, dev_type, index


def device_colour(name):
    """The colour (``#RRGGBB``) of the device called ``name`` (full or short name)."""
    job, task, dev_type, index = _parts(name)
    if job is None:
        table = GPU_COLOURS if dev_type == "GPU" else CPU_COLOURS
        return table[index % len(table)]
    return CLUSTER_COLOURS[zlib.crc32(f"{job}/{task}/{dev_type}:{index}".encode()) % len(CLUSTER_COLOURS)]


def short_device(name):
    """``GPU:0`` for a local device, ``ps/task:0/CPU:0`` for a cluster one."""
    job, task, dev_type, index = _parts(name)
    base = f"{dev_type}:{index}"
    return base if job is None else f"{job}/task:{task}/{base}"


def swatch(name):
    """A small coloured square (HTML) for tables and legends."""
    return (f"<span style='display:inline-block;width:0.8em;height:0.8em;border-radius:2px;"
            f"background:{device_colour(name)};margin-right:0.3em;vertical-align:middle'></span>")
