"""Where devlab's placement and TensorFlow's recorded placement differ, op by op.

TensorFlow records where each node ran in ``RunMetadata.partition_graphs`` (one GraphDef per
device, ``RunOptions(output_partition_graphs=True)``). ``compare_placement(session, recorded)``
places the session's graph (if it was not yet), applies the partitioner's control-flow moves
(a Switch runs with its data, ...) as TensorFlow's partition graphs show them, and returns a
``PlacementComparison``: one row per op with devlab's device, TensorFlow's, and why devlab put it
where it did. ``recorded`` is a RunMetadata (text or binary file, or message), a GraphDef file or
message, a list of them, or {node name: device}. TensorFlow's own nodes (``_Send``, ``_Recv``,
``_Arg``, ``x/_12``: a name component starting with ``_``) are left out. The HTML view is
``devlab.views.placement_diff.comparison_html``.
"""
import os
import re
from dataclasses import dataclass

from ..placer import explain as explain_mod
from ..runtime.plan import partition_devices
from .files import GraphFileError, read_bytes
from ..framework.tf_protos import pb

_INTERNAL = re.compile(r"(^|/)_")


def runtime_devices(session):
    """{op name: device name} where each op of the session's graph runs (after the partitioner)."""
    placement = session.ensure_placed()
    moved = partition_devices(session.graph.get_operations(), placement.assigned)
    return {name: device.name for name, device in moved.items()}


def recorded_placement(recorded):
    """{node name: device} from what a TensorFlow run recorded."""
    if isinstance(recorded, dict):
        return dict(recorded)
    if isinstance(recorded, (str, bytes, os.PathLike)):
        return recorded_placement(_read(recorded))
    if isinstance(recorded, (list, tuple)):
        out = {}
        for item in recorded:
            out.update(recorded_placement(item))
        return out
    if hasattr(recorded, "partition_graphs"):
        return recorded_placement(list(recorded.partition_graphs))
    if hasattr(recorded, "node"):
        return {n.name: n.device for n in recorded.node if not _INTERNAL.search(n.name)}
    raise TypeError(f"expected a RunMetadata, GraphDefs, a file or {{node: device}}, got {type(recorded).__name__}")


def _read(filename):
    p = pb()
    data = read_bytes(filename, what="a RunMetadata or GraphDef file")
    path = os.fsdecode(os.fspath(filename))
    for message in (p.RunMetadata(), p.GraphDef()):
        for parse in (lambda m: p.text_format.Parse(data.decode("utf-8"), m), lambda m: m.ParseFromString(data)):
            try:
                parse(message)
            except (p.text_format.ParseError, p.DecodeError, UnicodeDecodeError, RecursionError, ValueError):
                message.Clear()
                continue
            if getattr(message, "partition_graphs", None) or getattr(message, "node", None):
                return message
            message.Clear()
    raise GraphFileError(f"Cannot parse file {path}: neither a RunMetadata with partition graphs nor a GraphDef "
                         "(binary or text)")


@dataclass
class Row:
    op: str
    op_type: str
    devlab: str  # devlab's device ("" if devlab's graph has no such op)
    tensorflow: str  # TensorFlow's ("" if TensorFlow's run did not have it)
    status: str  # "same", "differs", "devlab only", "TensorFlow only"
    why: str = ""  # devlab's reasons, for an op placed differently


class PlacementComparison:
    """The rows of a comparison, and counts; ``str()`` is a text table of the differences."""

    def __init__(self, rows):
        self.rows = rows

    @property
    def differences(self):
        return [r for r in self.rows if r.status == "differs"]

    @property
    def agree(self):
        return not self.differences

    def counts(self):
        out = {}
        for r in self.rows:
            out[r.status] = out.get(r.status, 0) + 1
        return out

    def table(self, everything=False):
        """Text lines: one per op that differs (or every op), aligned."""
        rows = self.rows if everything else [r for r in self.rows if r.status != "same"]
        counts = self.counts()
        head = (f"{counts.get('same', 0)} ops placed alike, {counts.get('differs', 0)} differ, "
                f"{counts.get('devlab only', 0)} only in devlab's graph (TensorFlow's run did not need them), "
                f"{counts.get('TensorFlow only', 0)} only in TensorFlow's")
        if not rows:
            return [head]
        width = min(60, max(len(r.op) for r in rows))
        lines = [head, f"{'op':<{width}}  {'devlab':<14}  {'TensorFlow':<14}  status"]
        for r in rows:
            lines.append(f"{r.op:<{width}}  {_short(r.devlab):<14}  {_short(r.tensorflow):<14}  {r.status}"
                         + (f": {r.why}" if r.why else ""))
        return lines

    def __str__(self):
        return "\n".join(self.table())

    __repr__ = __str__


def _short(device):
    return device.split("/device:")[-1] if device.startswith("/job:localhost/") else device or "-"


def compare_placement(session, recorded):
    """A PlacementComparison of ``session``'s placement (its graph placed on its devices) with the
    placement TensorFlow ``recorded``."""
    tf_devices = recorded_placement(recorded)
    ours = runtime_devices(session)
    placement = session.placement
    by_name = {op.name: op for op in session.graph.get_operations()}
    rows = []
    for name, op in by_name.items():
        theirs = tf_devices.get(name, "")
        mine = ours[name]
        if not theirs:
            rows.append(Row(name, op.type, mine, "", "devlab only"))
        elif _same(mine, theirs):
            rows.append(Row(name, op.type, mine, theirs, "same"))
        else:
            reasons = explain_mod.reasons(op, placement)
            why = "; ".join(r.text for r in reasons[-2:])
            if placement.device_of(op).name != mine:
                why = f"TF's partitioner moves a {op.type} after placement (devlab does too); " + why
            rows.append(Row(name, op.type, mine, theirs, "differs", why))
    for name, device in tf_devices.items():
        if name not in by_name:
            rows.append(Row(name, "", "", device, "TensorFlow only"))
    return PlacementComparison(rows)


def _same(a, b):
    from ..framework.device_spec import DeviceSpec
    try:
        return DeviceSpec.from_string(a).to_string() == DeviceSpec.from_string(b).to_string()
    except ValueError:
        return a == b
