"""The patterns the doctor looks for in a run's copies (``plan.transfers``), one function each.

Each returns Findings; ``diagnose`` keeps those whose fix, re-placed, makes the run cheaper (or
that cannot be re-placed, saying why), costliest first.
"""
from ...ops import kernel_registry
from ...ops.table import lookup
from .findings import Diagnosis, Finding
from .replace import cost, nbytes, replaced

VARIABLES = {"VariableV2", "Variable", "VarHandleOp"}
STATEFUL_TYPES = VARIABLES | {"Placeholder", "PlaceholderWithDefault", "Assign", "AssignAdd", "AssignSub"}
MAX_DETOUR_OPS = 8  # a round trip worth one `with tf.device(...)` line, not half the model


def diagnose(session, plan=None):
    """The Diagnosis of ``plan`` (default: ``session``'s last run; a modelled run's plan works too)."""
    plan = session.last_plan if plan is None else plan
    if plan is None:
        raise ValueError("diagnose() reads the last run: run something in this session first")
    placement = session.ensure_placed()
    before = cost(plan.transfers)
    ctx = _Context(session, plan, placement, before)
    findings = []
    for pattern in (variables_read_across_towers, round_trips, gradients_not_colocated, shared_constants,
                    densified_embeddings):
        findings += pattern(ctx)
    return Diagnosis(findings, *before[:2])


class _Context:
    """What every pattern reads: the session, its last plan, where each op went, the run's cost."""

    def __init__(self, session, plan, placement, before):
        self.session, self.plan, self.placement, self.before = session, plan, placement, before
        self.in_plan = set(plan.ops)

    def device(self, op):
        return self.placement.assigned[op.name]

    def check(self, finding, devices=None, colocate=None, measure=1, gain=0.0):
        """``finding`` with ``before``/``after`` measured by re-placing; None when the fix, re-placed,
        does not make the run cheaper by ``measure`` (1: bytes, 2: the busiest device's link) by at
        least the share ``gain`` -- the doctor never recommends a change it cannot back."""
        finding.before = self.before
        finding.after = replaced(self.session, self.plan, devices, colocate)
        limit = self.before[measure] * (1 - gain)
        if finding.after is None or finding.after[measure] >= self.before[measure] or finding.after[measure] > limit:
            return None
        return finding


def _variable_of(op):
    """The variable whose value ``op`` outputs (the variable itself or its ``read``), else None."""
    if op.type in VARIABLES:
        return op
    if op.type in ("Identity", "ReadVariableOp") and op.inputs and op.inputs[0].op.type in VARIABLES:
        return op.inputs[0].op
    return None


def _short(device):
    return f"{device.device_type}:{device.name.rsplit(':', 1)[-1]}"


def _scope(device):
    """What a learner writes in ``tf.device(...)`` for ``device``: ``/gpu:0`` for a local one."""
    if "/job:localhost/" in device.name:
        return f"/{device.device_type.lower()}:{device.name.rsplit(':', 1)[-1]}"
    return device.name


def variables_read_across_towers(ctx):
    """Variables on one tower's GPU, read by the other towers' GPUs every step: that GPU sends every
    variable to every tower and takes every gradient back, its link the step's bottleneck. The fix
    re-placed is cifar10's: the variables (with their reads, assigns and updates, colocated with
    them) on the host CPU, named when it relieves the busiest device by MIN_LINK_GAIN or more."""
    by_device = {}
    for t in ctx.plan.transfers:
        var = _variable_of(t.op)
        if var is not None and t.src.device_type == "GPU" and t.device.device_type == "GPU":
            by_device.setdefault(t.src.name, []).append((t, var))
    found = []
    for src, items in by_device.items():
        variables = sorted({v.name for _, v in items})
        readers = sorted({_short(t.device) for t, _ in items})
        f = Finding("variables on a tower's GPU",
                    f"{len(variables)} variable(s) on {_short(items[0][0].src)} are read by the towers on "
                    f"{', '.join(readers)} every step",
                    len(items), sum(nbytes(t.tensor) for t, _ in items),
                    "create the variables under `with tf.device('/cpu:0'):` (cifar10's _variable_on_cpu) "
                    "or `tf.train.replica_device_setter(ps_device='/cpu:0', worker_device=tower)`",
                    [t.tensor.name for t, _ in items])
        moved = {name for v in variables for name in _colocated(ctx.session.graph, v)}
        f = ctx.check(f, devices={name: ctx.session.host.name for name in moved}, measure=2, gain=MIN_LINK_GAIN)
        if f is not None:
            found.append(f)
    return found


MIN_LINK_GAIN = 0.1  # a fix relieving the busiest device by less than this share is not worth a finding


def _colocated(graph, name):
    """``name`` and the ops colocated with it (its read, assign and optimizer updates carry
    ``loc:@name``): moving a variable moves them all, or the placer refuses the group."""
    group = "loc:@" + name
    out = [name]
    for op in graph.get_operations():
        classes = op.attrs.get("_class") or ()
        if any((c.decode() if isinstance(c, bytes) else c) == group for c in classes):
            out.append(op.name)
    return out


def round_trips(ctx):
    """A few ops on the CPU between copies from a GPU and back to that GPU: values go out and come
    back each step. Either the ops belong on the GPU (one `tf.device` line), or their kernel exists
    only on the CPU (int32 and string ops, samplers, decoders) and the work belongs before the GPU
    part. Groups with the same way out and back are one finding (the same line fixes them all)."""
    copied_in = {}
    for t in ctx.plan.transfers:
        for c in dict.fromkeys(t.tensor.consumers()):  # an op reading it twice is listed twice
            if c in ctx.in_plan and ctx.device(c).name == t.device.name:
                copied_in.setdefault(c, []).append(t)
    buckets, seen = {}, set()
    for start in sorted(copied_in, key=lambda op: op.name):
        here = ctx.device(start)
        if start in seen or here.device_type != "CPU" or start.type in STATEFUL_TYPES or _variable_of(start):
            continue
        group = _grow(ctx, start, here)
        if group is None:
            continue
        seen |= group
        inputs = [t for op in group for t in copied_in.get(op, ())]
        outputs = [t for t in ctx.plan.transfers if t.op in group]
        homes = sorted({t.src.name for t in inputs if t.src.device_type == "GPU"} & {t.device.name for t in outputs})
        if homes:
            home = next(t.src for t in inputs if t.src.name == homes[0])
            bucket = buckets.setdefault((here.name, home.name), (here, home, set(), []))
            bucket[2].update(group)
            bucket[3].extend(inputs + outputs)
    found = []
    for here, home, group, moved in buckets.values():
        names = sorted(op.name for op in group)
        what = (f"{len(group)} op(s) on {_short(here)} ({', '.join(names[:3])}{', ...' if len(names) > 3 else ''}) "
                f"take values from {_short(home)} and send results back")
        f = Finding("round trip", what, len(moved), sum(nbytes(t.tensor) for t in moved),
                    f"build {'them' if len(group) > 1 else 'it'} under `with tf.device('{_scope(home)}'):`",
                    [t.tensor.name for t in moved])
        generators = {t.op.name for op in group for t in op.inputs  # its constants move with it
                      if not t.op.inputs and t.op.type not in STATEFUL_TYPES and ctx.device(t.op).name == here.name}
        checked = ctx.check(f, devices={n: home.name for n in set(names) | generators})
        if checked is not None:
            found.append(checked)
        elif any(not _has_kernel(op, home.device_type) for op in group):
            kinds = sorted({f"{op.type} ({op.outputs[0].dtype.name})" for op in group
                            if op.outputs and not _has_kernel(op, home.device_type)})
            f.pattern = "CPU-only kernel"
            f.what = f"{', '.join(kinds[:3])}: no kernel on {home.device_type}, so {what}"
            f.fix = ("do this work on the CPU before the values reach the GPU (in the input pipeline), "
                     "or use a dtype the GPU has a kernel for (float32 instead of int32 or string)")
            f.before, f.after = ctx.before, None
            f.note = f"re-placed on {_short(home)}, these ops cannot follow (no kernel there)"
            found.append(f)
    return found


def _has_kernel(op, device_type):
    """Whether ``op`` (with its dtypes) has a kernel on ``device_type``, as the placer decides."""
    types = kernel_registry.supported_types(op.type, op.attrs, {"CPU", device_type})
    if types is None:
        types = lookup(op.type).devices
    return device_type in types


def _grow(ctx, start, device):
    """The ops on ``device`` reached from ``start`` through data edges inside the plan (neither
    stateful nor variables), or None when there are more than MAX_DETOUR_OPS of them."""
    group, todo = set(), [start]
    while todo:
        op = todo.pop()
        if op in group:
            continue
        group.add(op)
        if len(group) > MAX_DETOUR_OPS:
            return None
        for t in op.outputs:
            for c in t.consumers():
                if c in ctx.in_plan and ctx.device(c).name == device.name and c.type not in STATEFUL_TYPES \
                        and _variable_of(c) is None:
                    todo.append(c)
    return group


def _in_gradients(op):
    """Whether ``op`` was built by ``tf.gradients`` (its name has a ``gradients`` scope)."""
    return any(p == "gradients" or p.startswith("gradients_") for p in op.name.split("/")[:-1])


def _forward_op(graph, op):
    """The forward op whose gradient ``op`` belongs to (``gradients/tower_0/MatMul_grad/...`` ->
    ``tower_0/MatMul``), else None."""
    parts = op.name.split("/")
    if "gradients" not in parts and not any(p.startswith("gradients_") for p in parts):
        return None
    last = max(i for i, p in enumerate(parts) if p == "gradients" or p.startswith("gradients_"))
    rest = parts[last + 1:]
    for i, p in enumerate(rest):
        if p.endswith("_grad"):
            name = "/".join(rest[:i] + [p[: -len("_grad")]])
            try:
                return graph.get_operation_by_name(name)
            except (KeyError, ValueError):
                return None
    return None


def gradients_not_colocated(ctx):
    """Gradient ops on another device than their forward ops, so activations travel to them."""
    graph = ctx.session.graph
    involved = []
    for t in ctx.plan.transfers:
        ops = [t.op] + [c for c in dict.fromkeys(t.tensor.consumers()) if c in ctx.in_plan and ctx.device(c).name == t.device.name]
        for op in ops:
            fwd = _forward_op(graph, op)
            if fwd is not None and ctx.device(fwd).name != ctx.device(op).name:
                involved.append(t)
                break
    if not involved:
        return []
    colocate, devices = {}, {}
    for op in graph.get_operations():
        fwd = _forward_op(graph, op)
        if fwd is None and _in_gradients(op):  # grad_ys and its shape: with the first consumer's forward op
            fwd = next((f for c in op.outputs[0].consumers() for f in [_forward_op(graph, c)] if f is not None),
                       None) if op.outputs else None
        if fwd is not None:
            colocate[op.name] = list(fwd.colocation_groups())
            devices[op.name] = ""  # colocate_with clears the device scope, as TF's does
    f = Finding("gradients not colocated",
                f"{len(involved)} cop{'y' if len(involved) == 1 else 'ies'} feed gradient ops that run on another "
                f"device than their forward ops", len(involved), sum(nbytes(t.tensor) for t in involved),
                "pass colocate_gradients_with_ops=True to tf.gradients / optimizer.minimize / compute_gradients",
                [t.tensor.name for t in involved])
    f = ctx.check(f, devices=devices, colocate=colocate)
    return [f] if f is not None else []


def shared_constants(ctx):
    """Constants used on several devices, copied from one to the others every step (each tower
    could make its own: a constant costs nothing to create where it is used)."""
    by_tensor = {}
    for t in ctx.plan.transfers:
        if t.op.type == "Const":
            by_tensor.setdefault(t.tensor, []).append(t)
    shared = {tensor: copies for tensor, copies in by_tensor.items()
              if len({ctx.device(c).name for c in tensor.consumers() if c in ctx.in_plan}) >= 2}
    if not shared:
        return []
    names = sorted(t.op.name for t in shared)
    copies = [t for ts in shared.values() for t in ts]
    return [Finding(
        "shared constant", f"{len(names)} constant(s) used on several devices ({', '.join(names[:3])}"
                           f"{', ...' if len(names) > 3 else ''}) are copied from one to the others every step",
        len(copies), sum(nbytes(t.tensor) for t in copies),
        "create the constant inside each tower's `with tf.device(...)` (one per tower), not once outside",
        [t.tensor.name for t in copies], before=ctx.before,
        note="the fix makes one new op per tower; its copies, all removed, are the cost shown")]


GATHERS = {"Gather", "GatherV2", "ResourceGather"}


def _gathered(variable):
    """The gathers (embedding lookups) of the graph that read ``variable``, directly or through its
    read (a training step's plan need not run the lookup itself: its gradient does not use it)."""
    out = []
    for t in variable.outputs:
        for c in dict.fromkeys(t.consumers()):
            if c.type in GATHERS:
                out.append(c)
            elif _variable_of(c) is variable:
                out += [g for r in c.outputs for g in dict.fromkeys(r.consumers()) if g.type in GATHERS]
    return out


def densified_embeddings(ctx):
    """An embedding table updated by a dense gradient: something turned the lookup's IndexedSlices
    gradient (the rows looked up) into a tensor the size of the whole table, every step."""
    found = []
    for op in ctx.plan.ops:
        if not (op.type.startswith("Apply") or op.type.startswith("ResourceApply")) or not op.inputs:
            continue
        variable = op.inputs[0].op if op.inputs[0].op.type in VARIABLES else None
        gathers = _gathered(variable) if variable is not None else []
        if not gathers:
            continue
        dense = next((t for t in op.inputs[1:] if t.shape == variable.outputs[0].shape), None)
        if dense is None:
            continue
        rows = sum(nbytes(g.outputs[0]) for g in gathers)
        found.append(Finding(
            "embedding densified", f"the embedding {variable.name} gets a dense gradient ({dense.op.name}, the whole "
                                   f"table) and {op.type} updates every row each step",
            0, nbytes(dense),
            "keep the gradient sparse: no tf.convert_to_tensor / tf.add_n / dense op on it (clip with "
            "tf.clip_by_global_norm, which keeps IndexedSlices), so the optimizer updates only the rows looked up",
            [dense.name], before=ctx.before,
            note=f"the sparse update would write only the looked-up rows ({rows} bytes per step); "
                 "it needs the gradient built again, so it was not re-placed"))
    return found
