"""Assigning ops to devices, following TensorFlow's placer (``placer.cc``, ``colocation_graph.cc``).

1. **Groups.** Ops that must share a device are joined: each ``loc:@x`` in an op's ``_class``
   attr joins it with x, and an op that takes a variable by reference joins the variable. A
   group merges its members' requested devices (conflicting jobs are an error; conflicting
   types or indices too, unless soft placement clears them) and keeps only the device types
   for which every member has a kernel.
2. **Candidates.** A group may go to the devices that match its merged request and support
   it. None match: without soft placement that is TF's error; with it, devlab tries the same
   type at any index, then any type (job, replica and task are always kept).
3. **Choice.** Ops are visited in creation order, generators (no inputs, one output) last.
   The first candidate in priority order wins (GPU before CPU, then lowest index); a generator
   follows its consumers when they all sit on one allowed device (heuristic A), a Shape-like or
   pass-through Identity op follows its input (heuristic B). A group's first placed member
   fixes the device for the rest.
"""
import heapq
from dataclasses import dataclass, field

from ..devices import gpu
from ..framework import errors
from ..framework.device_spec import DeviceSpec
from ..ops import kernel_registry
from ..ops.kernel_registry import priority
from ..ops.table import lookup
from .union_find import UnionFind

METADATA_OPS = ("Shape", "Size", "Rank")


@dataclass
class Reason:
    """One step of why an op is where it is, and the source line behind it (if any)."""
    text: str
    location: str = ""


@dataclass
class Placement:
    """The result: each op's device, the order TF logs them in, and what decided each.

    ``decisions`` keeps, per op, its colocation group and the rule that chose the device
    (``"request"``, ``"group"``, ``"soft"``, ``"generator"`` or ``"metadata"``); ``explain.py``
    turns that into sentences only when someone asks, so placing stays cheap.
    """
    devices: list
    assigned: dict = field(default_factory=dict)  # op name -> Device
    log_order: list = field(default_factory=list)
    groups: dict = field(default_factory=dict)  # op name -> group root op name
    decisions: dict = field(default_factory=dict)  # op name -> Decision

    def device_of(self, op):
        return self.assigned[op if isinstance(op, str) else op.name]


class Decision:
    """How one op got its device: its group, the rule that chose, and the rule's detail."""

    __slots__ = ("group", "rule", "detail")

    def __init__(self, group, rule, detail=None):
        self.group, self.rule, self.detail = group, rule, detail


class _Group:
    def __init__(self, op, request, types, resource):
        self.root = op
        self.members = [op]
        self.request = request  # the merged requested device (TF's requested_device_name_)
        self.resource = resource  # the merged device of its variables (resource_device_name_)
        self.types = types  # device types with a kernel for every member, in priority order
        self.assigned = None


def place(ops, devices, allow_soft_placement=False, local_task=None):
    """Places ``ops`` (a whole graph, in creation order) on ``devices``; returns a Placement.

    Raises InvalidArgumentError in TensorFlow's words when a request cannot be met.
    """
    if not devices:
        raise errors.InvalidArgumentError(None, None, "No devices are registered")
    placement = Placement(devices)
    present = {d.device_type for d in devices}
    ordered = graph_order(ops)  # TF's visiting order, for the groups and for the placing below
    groups = _build_groups(ops, ordered, present, allow_soft_placement)
    consumers = {}
    for op in ops:
        for t in op.inputs:
            consumers.setdefault(t.op.name, []).append(op)
        for c in op.control_inputs:
            consumers.setdefault(c.name, []).append(op)
    generators = [op for op in ordered if _is_generator(op)]
    first_pass = [op for op in ordered if not _is_generator(op)]
    matches = {}  # (request, kernel types) -> the candidate devices, in TF's order
    assigned = placement.assigned
    for op in first_pass + generators:
        group = groups[op.name]
        if group.assigned is not None:
            device, decision = group.assigned, Decision(group, "group")
        else:
            candidates, decision = _candidates(op, group, devices, allow_soft_placement, local_task, matches)
            device = candidates[0]
            heuristic = _heuristic(op, candidates, consumers, assigned)
            if heuristic is not None:
                device, decision = heuristic, Decision(group, "generator" if _is_generator(op) else "metadata",
                                                      decision)
            group.assigned = device
        assigned[op.name] = device
        placement.log_order.append(op.name)
        placement.groups[op.name] = group.root.name
        placement.decisions[op.name] = decision
    return placement


def graph_order(ops):
    """The order TF's placer visits ops: the session's graph is rebuilt from the GraphDef by
    ``GraphConstructor``, which adds a node once all its inputs (control ones too) are added,
    always taking the earliest-made ready node. So an op made before its input, as a tf.cond
    branch op is made before the Switch that feeds it, is visited after it. A loop's Merge
    waits for its control inputs and one data input (its back edge comes later)."""
    index = {op: i for i, op in enumerate(ops)}
    if _made_in_order(ops, index):
        return list(ops)  # every op made after its inputs: the earliest ready op is always the next one
    pending, users = {}, {}
    for op in ops:
        deps = [t.op for t in op.inputs] + list(op.control_inputs)
        deps = [d for d in deps if d in index]
        if op.type in ("Merge", "RefMerge") and any(t.op.type in ("NextIteration", "RefNextIteration")
                                                     for t in op.inputs):
            pending[op] = len(op.control_inputs) + 1
        else:
            pending[op] = len(deps)
        for d in deps:
            users.setdefault(d, []).append(op)
    ready = [index[op] for op in ops if pending[op] == 0]
    heapq.heapify(ready)
    out = []
    while ready:
        op = ops[heapq.heappop(ready)]
        out.append(op)
        for user in users.get(op, ()):
            pending[user] -= 1
            if pending[user] == 0:
                heapq.heappush(ready, index[user])
    if len(out) < len(ops):  # a cycle TF would refuse: keep the rest in creation order
        seen = set(out)
        out += [op for op in ops if op not in seen]
    return out


def _made_in_order(ops, index):
    """Whether every op of ``ops`` comes after its inputs and control inputs, and none is a loop's
    Merge (which waits for one data input only): then ``graph_order`` is the creation order."""
    for i, op in enumerate(ops):
        for t in op.inputs:
            j = index.get(t.op)
            if j is not None and j >= i:
                return False
        for c in op.control_inputs:
            j = index.get(c)
            if j is not None and j >= i:
                return False
        if op.type in ("Merge", "RefMerge"):
            return False
    return True


def _is_generator(op):
    return not op.inputs and len(op.outputs) == 1 and not op.outputs[0].dtype.is_ref


def _kernel_types(op, present):
    """The device types present with a kernel for ``op`` and its dtypes, in priority order: TF's
    kernel registry decides for the ops TF knows, the op table for devlab's own."""
    types = kernel_registry.supported_types(op.type, op.attrs, present)
    if types is not None:
        return types
    opdef = lookup(op.type)
    return [t for t in sorted(present, key=lambda t: -priority(t)) if t in opdef.devices]


def _registered(op):
    """TF's "Registered kernels" text for ``op``."""
    if kernel_registry.knows(op.type):
        return "\n  ".join(kernel_registry.registered_kernels(op.type))
    return ", ".join(f"device='{t}'" for t in lookup(op.type).devices)


def colocation_partners(op, by_name):
    """(other op, why) for each op that ``op`` must share a device with: its ``loc:@`` groups and
    the variables it takes by reference."""
    out = []
    for g in op.colocation_groups():
        other = g.decode()[len("loc:@"):]
        if other != op.name and other in by_name:
            out.append((by_name[other], f"colocated with '{other}' (its _class attr says loc:@{other})"))
    for i in lookup(op.type).ref_inputs:
        if i < len(op.inputs) and op.inputs[i].dtype.is_ref:
            src = op.inputs[i].op
            out.append((src, f"takes variable '{src.name}' by reference, so it runs where the variable lives"))
    for t in op.inputs:
        if _is_resource(t):
            out.append((t.op, f"takes a handle made by '{t.op.name}' (a resource edge), so it runs where that "
                              f"resource lives"))
    return out


def _is_resource(t):
    """A resource handle (a stack, a TensorArray): TF runs its reader beside its maker."""
    return t.dtype.name == "resource"


def _parse_request(op):
    try:
        return DeviceSpec.from_string(op.device)
    except ValueError:
        raise errors.InvalidArgumentError(
            op.node_def, op, f"Malformed device specification '{op.device}' in node: {{{{node {op.name}}}}}"
            + errors.defined_at(op)) from None


def _build_groups(ops, ordered, present, soft):
    """Joins colocated ops as ``ColocationGraph::Initialize`` does; returns {op name: its group}.

    Every op starts alone (its request, or, for a variable, its *resource* device). Then, in
    TF's order: each reference or resource edge joins its source and destination (a conflict
    is an error even under soft placement), then each op joins the first op seen in each of
    its ``loc:@`` groups, and its own name's group. Under soft placement a ``loc:@`` join that
    fails is skipped, and the op stays apart (TF logs "Ignoring request to colocate node").
    ``ordered`` is ``ops`` in ``graph_order``.
    """
    uf = UnionFind([op.name for op in ordered])
    group_of = {}
    types_of = {}
    for op in ordered:
        key = (op.type, kernel_registry.type_attrs(op.attrs))
        types = types_of.get(key)
        if types is None:
            types = types_of[key] = _kernel_types(op, present)
        if not types:
            registered = _registered(op)
            raise errors.InvalidArgumentError(
                op.node_def, op, f"No OpKernel was registered to support Op '{op.type}' used by "
                f"{{{{node {op.name}}}}} with these attrs: []\nRegistered devices: [{', '.join(sorted(present))}]\n"
                f"Registered kernels:\n  {registered}" + errors.defined_at(op))
        request = _parse_request(op)
        group_of[op.name] = _Group(op, request, types, resource=request if _makes_resource(op) else DeviceSpec())
    for dst in ordered:  # ColocateResourceAndRefEdges, in edge order
        opdef = lookup(dst.type) if dst.inputs else None
        for i, t in enumerate(dst.inputs):
            if (i in opdef.ref_inputs and t.dtype.is_ref) or _is_resource(t):
                _join_edge(uf, group_of, t.op, dst, soft, present)
    first_of = {}  # ColocateAllNodes: a group name -> the first op seen in it
    for op in ordered:
        classes = op.attrs.get("_class")
        names = [g.decode()[len("loc:@"):] for g in classes
                 if (g.decode() if isinstance(g, bytes) else g).startswith("loc:@")] if classes else ()
        for name in (*names, op.name):
            root = first_of.setdefault(name, op)
            if root is op:
                continue
            try:
                _join(uf, group_of, op, root, soft, present)
            except errors.InvalidArgumentError:
                if not soft:
                    raise
    return {op.name: group_of[uf.find(op.name)] for op in ops}


def _makes_resource(op):
    """TF's IsRefOrResourceGeneratorNode: no inputs, and every output a reference or handle."""
    return not op.inputs and op.outputs and all(t.dtype.is_ref or _is_resource(t) for t in op.outputs)


def _join_edge(uf, group_of, src, dst, soft, present):
    """A reference or resource edge (``ColocateResourceOrRefEdge``): the destination's group must
    agree with the source's resource device; a request it disagrees with gives way to the
    source's (TF logs "Ignoring device specification ... reference connection")."""
    s_root, d_root = group_of[uf.find(src.name)], group_of[uf.find(dst.name)]
    if s_root is d_root:
        return
    if not _compatible(s_root.resource, d_root.resource):
        raise errors.InvalidArgumentError(
            dst.node_def, dst, "Cannot place the graph because a reference or resource edge connects colocation "
            f"groups with incompatible resource devices: {s_root.resource.to_string()} vs "
            f"{d_root.resource.to_string()}. The edge src node is name='{src.name}' (op='{src.type}'), and the dst "
            f"node is name='{dst.name}' (op='{dst.type}')." + errors.defined_at(dst))
    if not _compatible(s_root.request, d_root.request):
        d_root.request = _ensure_specification(s_root.request, d_root.resource)
    try:
        _join(uf, group_of, src, dst, soft, present)
    except errors.InvalidArgumentError as e:
        raise errors.InvalidArgumentError(
            dst.node_def, dst, "Nodes were connected by a reference or resource connection (requiring them to be on "
            "the same device), but the two nodes were assigned two different devices: " + e.message) from None


def _compatible(a, b):
    """TF's AreCompatibleDevNames: no field set in both to different values."""
    return all(x is None or y is None or x == y for x, y in zip(a._fields(), b._fields()))


def _ensure_specification(spec, more):
    """TF's EnsureSpecification: ``spec`` with its unset fields taken from ``more``."""
    return DeviceSpec(*(a if a is not None else b for a, b in zip(spec._fields(), more._fields())))


def _join(uf, group_of, op, other, soft, present):
    """``ColocateNodes(op, other)``: the groups merge their requests into the new root's (by rank;
    on a tie, ``op``'s), or TF's error naming both ops; nothing changes on an error."""
    a, b = group_of[uf.find(op.name)], group_of[uf.find(other.name)]  # records are kept by root
    if a is b:
        return
    target, source = (b, a) if uf.rank[uf.find(op.name)] < uf.rank[uf.find(other.name)] else (a, b)
    try:
        resource = _merge_requests(target.resource, source.resource, False)
        request = _ensure_specification(_merge_requests(target.request, source.request, soft), resource)
    except ValueError as e:
        raise errors.InvalidArgumentError(
            op.node_def, op, f"Cannot colocate nodes {{{{colocation_node {op.name}}}}} and "
            f"{{{{colocation_node {other.name}}}}}: {e}" + errors.defined_at(op)) from None
    types = [t for t in target.types if t in source.types]
    if not types:
        raise errors.InvalidArgumentError(
            op.node_def, op, f"Cannot colocate nodes {{{{colocation_node {op.name}}}}} and "
            f"{{{{colocation_node {other.name}}}}} because no device type supports both of those nodes and "
            f"the other nodes colocated with them." + debug_info(a, present) + debug_info(b, present)
            + errors.defined_at(op))
    root, absorbed = uf.union(op.name, other.name)
    kept = group_of[root]
    kept.members += (b if kept is a else a).members  # disjoint: separate groups until now
    kept.request, kept.resource, kept.types = request, resource, types
    group_of.pop(absorbed, None)


def _merge_requests(target, other, soft):
    """TF's DeviceNameUtils::MergeDevNames: ``other``'s fields fill ``target``'s, in the order job,
    replica, task, type, id. A conflict names ``target`` as merged so far, then ``other``. Soft
    placement clears a conflicting type (and the id with it) or id instead."""
    out = DeviceSpec(*target._fields())
    for field_name, label in (("job", "jobs"), ("replica", "replicas"), ("task", "tasks")):
        x, y = getattr(out, field_name), getattr(other, field_name)
        if x is not None and y is not None and x != y:
            raise ValueError(f"Cannot merge devices with incompatible {label}: "
                             f"'{out.to_string()}' and '{other.to_string()}'")
        setattr(out, field_name, x if x is not None else y)
    if other.device_type is not None:
        if out.device_type is not None and out.device_type != other.device_type:
            if not soft:
                raise ValueError(f"Cannot merge devices with incompatible types: '{out.to_string()}' and "
                                 f"'{other.to_string()}'")
            out.device_type, out.device_index = None, None
            return out
        out.device_type = out.device_type or other.device_type
    if other.device_index is not None:
        if out.device_index is not None and out.device_index != other.device_index:
            if not soft:
                raise ValueError(f"Cannot merge devices with incompatible ids: '{out.to_string()}' and "
                                 f"'{other.to_string()}'")
            out.device_index = None
            return out
        out.device_index = out.device_index if out.device_index is not None else other.device_index
    return out


def _candidates(op, group, devices, soft, local_task, matches):
    """(the devices ``op``'s group may go to, in priority order; the Decision), or TF's error."""
    request = group.request
    key = (request._fields(), tuple(group.types), local_task)
    found = matches.get(key)
    if found is not None:
        return found, Decision(group, "request")
    supported = [d for d in devices if d.device_type in group.types]
    matching = [d for d in supported if d.matches(request)]
    decision = Decision(group, "request")
    if not matching:
        matching, why = _soft_fallback(op, group, devices, supported, soft)
        decision = Decision(group, "soft", why)
    if local_task is not None and request.job is None:
        local = [d for d in matching if (d.job, d.task) == local_task]
        matching = local or matching
    matching.sort(key=lambda d: d.sort_key())
    if decision.rule == "request":
        matches[key] = matching
    return matching, decision


def _soft_fallback(op, group, devices, supported, soft):
    """The devices soft placement falls back to, and why it had to; or TF's error without it.

    TF's GetSoftDeviceCandidates: the group's request without device type and index (unless its
    variables' device sets them), then without them at all; job, replica and task stay.
    """
    request = group.request
    if soft:
        resource = group.resource
        preferred = request.replace(device_type=request.device_type if resource.device_type is not None else None,
                                    device_index=request.device_index if resource.device_index is not None else None)
        matching = [d for d in supported if d.matches(preferred)]
        if not matching:
            matching = [d for d in supported if d.matches(request.replace(device_type=None, device_index=None))]
        if matching:
            named = [d for d in devices if d.matches(request)]
            why = "no such device" if not named else f"no {request.device_type} kernel for {op.type}"
            return matching, f"soft placement: {op.device or request.to_string()} cannot be used ({why}), so it falls back"
    raise _no_device_error(op, group, devices)


def _no_device_error(op, group, devices):
    """TF's error when no device fits ``op``'s group (``GetDevicesForNode``): it quotes the node's
    own request, and names the group's when that differs."""
    request = group.request
    present = {d.device_type for d in devices}
    requested = op.device
    if _parses_same(requested, request):
        if not any(d.matches(request) for d in devices):
            names = ", ".join(sorted(d.name for d in devices))
            msg = (f"{{{{node {op.name}}}}} was explicitly assigned to {requested} but available devices are "
                   f"[ {names} ]. Make sure the device specification refers to a valid device.")
            if (request.device_type or "").upper() == "GPU" and "GPU" not in present and gpu.cupy_module() is None:
                # a session with no GPU, simulated or real, is devlab's CPU-only build of TF
                msg += " The requested device appears to be a GPU, but CUDA is not enabled."
        elif request.device_type:
            msg = (f"Could not satisfy explicit device specification '{requested}' because no supported "
                   f"kernel for {request.device_type} devices is available." + debug_info(group, present)
                   + f"\nOp: {op.type}\nRegistered kernels:\n  " + _registered(op))
        else:
            msg = f"Could not satisfy explicit device specification '{requested}'" + debug_info(group, present)
    else:
        names = ", ".join(d.name for d in sorted(devices, key=lambda d: d.sort_key()))
        msg = (f"Could not satisfy explicit device specification '{requested}' because the node "
               f"{{{{colocation_node {op.name}}}}} was colocated with a group of nodes that required "
               f"incompatible device '{request.to_string()}'. All available devices [{names}]. "
               + debug_info(group, present))
    return errors.InvalidArgumentError(op.node_def, op, f"Cannot assign a device for operation {op.name}: "
                                       + msg + errors.defined_at(op))


def debug_info(group, present):
    """TF's "Colocation Debug Info" block (``ColocationGraph::DebugInfo``): the group's merged request
    and kernel types, each member op type's supported devices, and every member with the device
    its user asked for, so a conflict names the op that causes it."""
    text = ("\nColocation Debug Info:\nColocation group had the following types and supported devices: "
            f"\nRoot Member(assigned_device_name_index_=-1 requested_device_name_='{group.request.to_string()}' "
            f"assigned_device_name_='' resource_device_name_='' supported_device_types_=[{', '.join(group.types)}] "
            "possible_devices_=[]")
    members = sorted(group.members, key=lambda m: m.id if m.id is not None else -1)  # graph order, as TF
    by_type = {}
    for m in members:
        if m.type not in by_type:
            by_type[m.type] = "".join(t + " " for t in _kernel_types(m, present))
    text += "".join(f"\n{t}: {d}" for t, d in by_type.items())
    text += "\n\nColocation members, user-requested devices, and framework assigned devices, if any:"
    text += "".join(f"\n  {m.name} ({m.type}) {m.device}" for m in members)
    return text + "\n"


def _parses_same(raw, request):
    try:
        return DeviceSpec.from_string(raw) == request
    except ValueError:
        return False


def _heuristic(op, candidates, consumers, assigned):
    """TF's heuristics A (generators follow consumers) and B (metadata/identity follow input):
    the device they choose, or None."""
    if _is_generator(op):
        outs = consumers.get(op.name, [])
        placed = [assigned.get(c.name) for c in outs]
        if outs and all(d is not None and d is placed[0] for d in placed) and placed[0] in candidates:
            return placed[0]
        return None
    if op.type in METADATA_OPS or _is_passthrough_identity(op, consumers):
        src = assigned.get(op.inputs[0].op.name) if op.inputs else None
        if src is not None and src in candidates:
            return src
    return None


def _is_passthrough_identity(op, consumers):
    """TF's ``MatchIdentityOperation``: an Identity that asks for no device, with one in-edge and
    one out-edge (control edges count; an op that nothing reads has one, to the graph's sink,
    which asks for no device), whose input and output asked for the same device string."""
    if op.type not in ("Identity", "RefIdentity") or op.device or len(op.inputs) + len(op.control_inputs) != 1:
        return False
    outs = consumers.get(op.name, [])
    if len(outs) > 1:
        return False
    return op.inputs[0].op.device == (outs[0].device if outs else "")
