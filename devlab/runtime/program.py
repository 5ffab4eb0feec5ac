"""A plan compiled to one straight-line Python function: the fast path of a steady run.

After a plan has run once, its steps are written out as Python source, one line per step, that
keeps values in local variables, calls numpy's ufuncs directly for elementwise ops, calls one
fused kernel per elementwise chain (``fusion.py``) and one product for the products towers
repeat (``products.py``), skips what costs nothing (constants and variables are already in the
value table, a transfer between host-memory devices is an alias, an ``Identity`` passes its
input on, an op computed from constants only was computed when the program was built:
``folding.py``), deletes each value after its last reader, and leaves out the steps whose
results nothing reads (``unread.py``). ``Program.source`` is that text, for the curious.

A failing line is traced back to its step, and reported exactly as the interpreter would report
it (a fused chain is replayed op by op to find the op that failed).

A plan with two or more host devices doing real work also gets one function per *lane*, the
devices' steps run side by side as TensorFlow's executor runs them (``lanes.py``), when the
session allows more than one inter-op thread and the cores are free.
"""
import itertools
import linecache
import threading

import numpy as np

from ..devices import parallel
from ..devices.transfer import transfer
from ..ops import relu_kernels
from . import folding, fusion, lanes, layer_fusion, memory, products, unread
from .executor import compute, kernel_error
from .steps import OpStep, describe
from .variable_store import VarRef

_ids = itertools.count()


class Program:
    def __init__(self, plan, threads=1):
        self.plan = plan
        self.threads = threads  # inter-op threads the session allows (0: one per core)
        self.lanes = None  # lanes.Lanes when the devices' steps may run side by side
        self.left_out = set()  # indices of the steps whose results nothing reads (``unread.py``)
        self.filename = f"<devlab program {next(_ids)}>"
        self.line_of = {}  # source line number -> the step (or fused group) it runs
        self._analyse(plan)
        self.source, namespace = self._generate(plan)
        linecache.cache[self.filename] = (len(self.source), None, self.source.splitlines(True), self.filename)
        exec(compile(self.source, self.filename, "exec"), namespace)  # noqa: S102 - our own generated code
        self._function = namespace["program"]
        self._lane_functions = [namespace[f"lane{i}"] for i in range(self.lanes.count)] if self.lanes else []
        self._busy = threading.Lock()  # the planned buffers serve one run at a time

    def run(self, values):
        """Runs every step against the value table (the fetched slots are written back into it).
        Returns False, having done nothing, if another thread is running this program."""
        if not self._busy.acquire(blocking=False):
            return False
        try:
            if not (self._lane_functions and self._run_lanes(values)):
                self._function(values)
        except Exception as e:  # noqa: BLE001 - becomes TF's error for the step that failed
            raise self._error(e, values) from e
        finally:
            self._busy.release()
        return True

    def _analyse(self, plan):
        """Finds the merged products, the fused groups, the steps left out, the lanes and the
        planned buffers of ``plan``."""
        self.merges = products.find_merges(plan)
        lane_of_device = lanes.device_lanes(plan, self.threads, parallel.cores())
        if lane_of_device is not None:  # towers side by side do not wait for each other's products
            self.merges = [m for m in self.merges if not (isinstance(m, products.Stacked)
                                                          and lanes.spans_lanes(m, lane_of_device))]
        merged = {m.index for g in self.merges for m in g.members}
        self.folded = folding.fold(plan, merged)  # step index -> its outputs' values, computed now
        self.merges += layer_fusion.find(plan, merged | set(self.folded))  # bias add + relu: one pass
        merged = {m.index for g in self.merges for m in g.members}
        self.groups = fusion.find_groups(plan, merged | set(self.folded))
        self.left_out = unread.find(plan, {m.index for g in self.groups + self.merges for m in g.members})
        self.lanes = None if lane_of_device is None else lanes.find(plan, self.groups + self.merges, lane_of_device,
                                                                    self.left_out)
        lane_of = None if self.lanes is None else self.lanes.lane_of
        self.buffers = memory.plan_buffers(plan, self.groups + self.merges, lane_of)  # step index -> the buffer its output goes into

    # -- writing the source ----------------------------------------------------------------------
    def _generate(self, plan):
        ns = {"transfer": transfer, "deref": _deref, "split": parallel.split,
              "stacked": products.stacked, "summed": products.summed, "bias_relu": _bias_relu,
              "relu_grad_sum": _relu_grad_sum}
        functions = []  # lines of the functions that large fused groups run on parts of their arrays
        body = self._body(plan, plan.steps, ns, functions)
        programs = [("def program(v):", body or [(None, "pass")])]
        if self.lanes is not None:
            for lane in range(self.lanes.count):
                lines = self._body(plan, self.lanes.steps_of(lane, plan.steps), ns, functions, self.lanes)
                programs.append((f"def lane{lane}(v, ev, halt):", lines or [(None, "pass")]))
        lines, seen = [], set()
        for header, fn_body in functions + programs:
            if header in seen:
                continue  # a split group's function, written once for the program and once for its lane
            seen.add(header)
            lines.append(header)
            for owner, text in fn_body:
                lines.append("    " + text + (f"  # {_describe(owner)}" if owner is not None else ""))
                if owner is not None:
                    self.line_of[len(lines)] = owner
        return "\n".join(lines) + "\n", ns

    def _body(self, plan, steps, ns, functions, lanes=None):
        """The lines running ``steps`` (all of the plan's, or one lane's: ``lanes`` then says what
        it waits for, publishes and frees)."""
        groups = self.groups + self.merges
        in_group = {m.index: g for g in groups for m in g.members}
        preloaded = {s for s, v in enumerate(plan.initial) if v is not None}
        preloaded.update(s for s, *_ in plan.variable_slots)
        preloaded.update(s for s, _, _ in plan.feed_slots)
        folded = {s for i in self.folded for s in plan.steps[i].outputs}  # read from the namespace
        for i, outs in self.folded.items():
            ns.update((f"f{s}", v) for s, v in zip(plan.steps[i].outputs, outs))
        shared = folding.aliasing(plan, self.folded) if self.folded else ()
        ns["copy"] = np.array
        body, assigned = [], set()
        # A fused group runs where its last member (the root) is: a value its members read must
        # live until then, even if a step in between read it last.
        needed_until = {}
        for g in groups:
            for slot in g.inputs:
                needed_until[slot] = max(needed_until.get(slot, -1), g.root.index)
        deferred = {}  # root index -> slots to free after it

        def use(slot):
            if slot in folded:
                return f"f{slot}"
            if slot not in assigned:
                assert slot in preloaded or lanes, f"slot {slot} read before it is written"
                body.append((None, f"s{slot} = v[{slot}]"))
                assigned.add(slot)
            return f"s{slot}"

        def arg(step, i):
            """The text of ``step``'s input ``i``: its slot, dereferenced if the step reads a variable."""
            return f"deref({use(step.inputs[i])})" if i in step.deref else use(step.inputs[i])

        for step in steps:
            group = in_group.get(step.index)
            frees = step.frees
            if lanes is not None and (group is None or step is group.root):
                body.extend(_lane_waits(lanes, step.index))
            if group is not None:
                if step is not group.root:
                    continue  # a member runs inside the root's fused kernel, and frees after it
                if isinstance(group, products.Stacked):
                    body.append((group, group.line(arg)))
                    assigned.update(m.outputs[0] for m in group.members)
                elif isinstance(group, (products.Summed, layer_fusion.BiasRelu, layer_fusion.ReluGradSum)):
                    body.append((group, group.line(arg, self._buffer_name(step, ns))))
                    if isinstance(group, layer_fusion.ReluGradSum):
                        assigned.add(group.total.outputs[0])  # its second output, the Sum's
                elif self._splits(group):
                    body.extend(self._split_group(group, ns, use, functions))
                elif group.in_place:
                    body.extend(self._in_place(group, ns, use))
                else:
                    name = f"fused{step.index}"
                    ns[name] = group.compiled()
                    args = "".join(use(s) + ", " for s in group.inputs)
                    out = self._buffer_name(step, ns)
                    body.append((group, f"s{step.outputs[0]} = {name}({args}out={out})"))
                assigned.add(step.outputs[0])
                frees = [s for m in group.members for s in m.frees]
            elif step.index in self.left_out:
                pass  # nothing reads what it makes: TF's optimizer removes it too
            elif isinstance(step, OpStep):
                line = None if step.index in self.folded else self._op_line(step, ns, use)
                if line is not None:
                    body.append((step, line))
                    assigned.update(step.outputs)
            elif not step.alias:
                ns[f"src{step.index}"], ns[f"dst{step.index}"] = step.src, step.device
                body.append((step, f"s{step.output} = transfer(deref({use(step.input)}), "
                                   f"src{step.index}, dst{step.index})"))
                assigned.add(step.output)
            if lanes is not None:  # publish what other lanes read; free what this lane is done with
                body.extend((None, _publish(s, f"f{s}" if s in folded else f"s{s}", shared))
                            for s in sorted(lanes.published.get(step.index, ())) if s in assigned or s in folded)
                if step.index in lanes.signals:
                    body.append((None, f"ev[{step.index}].set()"))
                frees = lanes.frees.get(step.index, ())
            else:
                frees = list(frees) + deferred.pop(step.index, [])
                for s in [s for s in frees if needed_until.get(s, -1) > step.index]:
                    frees.remove(s)
                    deferred.setdefault(needed_until[s], []).append(s)
            dead = [f"s{s}" for s in frees if s in assigned]
            if dead:
                body.append((None, "del " + ", ".join(dead)))
                assigned.difference_update(frees)
        if lanes is None:
            for slot in plan.fetch_slots:
                if slot is not None and slot not in preloaded:
                    body.append((None, _publish(slot, use(slot), shared)))
        return body

    def _op_line(self, step, ns, use):
        op = step.op
        if step.preloaded or op.type == "NoOp":
            return None  # already in the value table, or nothing to do
        args = [use(s) for s in step.inputs]
        for i in step.deref:
            args[i] = f"deref({args[i]})"
        if step.opdef.forwards:
            return f"s{step.outputs[0]} = {args[0]}"  # Identity: its input, as its kernel returns it
        ufunc = step.opdef.ufunc
        if ufunc is not None and step.device.backend == "numpy":
            name = f"np_{ufunc}"
            ns[name] = getattr(step.device.xp, ufunc)
            out = self._buffer_name(step, ns)
            call = f"{name}({', '.join(args)}{'' if out == 'None' else ', out=' + out})"
        else:
            buffer = self.buffers.get(step.index)
            ctx = step.ctx if buffer is None else step.ctx.writing_into(buffer)
            ns[f"k{step.index}"], ns[f"c{step.index}"] = step.kernel, ctx
            call = f"k{step.index}(c{step.index}{''.join(', ' + a for a in args)})"
        if not step.outputs:
            return call
        return ", ".join(f"s{s}" for s in step.outputs) + " = " + call

    def _in_place(self, group, ns, use):
        """The lines of a fused group run as ufuncs in the program (see ``_member_lines``); the
        root's value is whichever array its member wrote."""
        lines, held = self._member_lines(group, ns, use, self._buffer_name(group.root, ns), False)
        lines.append((None, f"s{group.root.outputs[0]} = {held}"))
        return lines

    def _splits(self, group):
        """Whether ``group`` runs as one function on parts of its arrays, split over the cores
        (``devices/parallel.py``): every member makes an array shaped like the root, which is
        large and has a planned buffer, and every input is shaped like it or is a scalar."""
        root = group.root.op.outputs[0]
        if (group.root.index not in self.buffers or not root.shape.is_fully_defined()
                or root.shape.num_elements() < 2 * parallel.MIN_ELEMENTS):
            return False
        shape = root.shape.sizes
        if any(m.op.outputs[0].shape.sizes != shape for m in group.members):
            return False
        inputs = {slot: t for m in group.members for slot, t in zip(m.inputs, m.op.inputs)}
        return all(inputs[s].shape.sizes in (shape, ()) for s in group.inputs)

    def _split_group(self, group, ns, use, functions):
        """The line calling ``split`` with a function that runs the group's members as ufuncs on
        parts of its arrays (see ``_member_lines``); the root writes into the planned buffer,
        which ``split`` has cut into the same parts."""
        names = {s: use(s) for s in group.inputs}  # the function's parameters: the program's names
        params = list(names.values())
        buffer = self._buffer_name(group.root, ns)
        name = f"group{group.root.index}"
        lines, _ = self._member_lines(group, ns, names.__getitem__, buffer, True)
        functions.append((f"def {name}({', '.join(params + [buffer])}):", lines))
        ns[f"shape{group.root.index}"] = tuple(group.root.op.outputs[0].shape.sizes)
        root = group.root.outputs[0]
        return [(group, f"split({name}, shape{group.root.index}, {', '.join(params + [buffer])})"),
                (None, f"s{root} = {buffer}")]

    def _member_lines(self, group, ns, name_of, buffer, root_into_buffer):
        """(lines, the variable holding the root's value) running a fused group's members as
        ufuncs: a member writes into an intermediate it reads that has its shape, else into the
        root's planned ``buffer`` (or "None") while that holds nothing and has its shape, else
        into a new array; the root into ``buffer`` when ``root_into_buffer``. Operands keep
        their order; AddN adds its inputs left to right."""
        shape_of = {m.outputs[0]: (m.op.outputs[0].shape.sizes, m.op.outputs[0].dtype) for m in group.members}
        root_shape = shape_of[group.root.outputs[0]]
        lines, held = [], {}  # slot inside the group -> the variable holding its value
        writable = set()  # the variables of the arrays made inside the group
        free = buffer  # the buffer while nothing has been written into it, then "None"
        for m in group.members:
            ufunc = f"np_{m.opdef.float_ufunc}"
            ns[ufunc] = getattr(m.device.xp, m.opdef.float_ufunc)
            args = [held.pop(s) if s in held else name_of(s) for s in m.inputs]
            shape = shape_of[m.outputs[0]]
            target = next((a for a, s in zip(args[:2], m.inputs) if a in writable and shape_of[s] == shape), None)
            if m is group.root and root_into_buffer:
                target = out = buffer
                free = "None"
            elif target is not None:
                out = target
            else:
                target, out = f"t{m.outputs[0]}", "None"
                if free != "None" and shape == root_shape:
                    out, free = free, "None"
            if shape[0]:  # a ufunc of 0-d arrays returns a numpy scalar, which no later out= takes
                writable.add(target)
            assign = "" if target == out and target != buffer else f"{target} = "  # into an array it reads
            lines.append((m, f"{assign}{ufunc}({', '.join(args[:2])}, out={out})"))
            for a in args[2:]:
                lines.append((m, f"{ufunc}({target}, {a}, out={target})"))
            held[m.outputs[0]] = target
        return lines, held[group.root.outputs[0]]

    def _buffer_name(self, step, ns):
        """The name of the planned buffer for ``step``'s output in the namespace, or "None"."""
        buffer = self.buffers.get(step.index)
        if buffer is None:
            return "None"
        ns[f"buf{step.index}"] = buffer
        return f"buf{step.index}"

    # -- lanes ------------------------------------------------------------------------------------
    def _run_lanes(self, values):
        """Runs the lane functions side by side (False: the cores are taken, nothing ran). A lane
        that fails stops the others at the steps after its own; the earliest failure is raised."""
        stops = lanes.Stops(self.lanes.signals)

        def lane(fn):
            def run():
                try:
                    with np.errstate(all="ignore"):  # numpy's error state is each thread's own
                        fn(values, stops.events, stops.halt)
                except BaseException as e:  # noqa: BLE001 - raised in the calling thread below
                    stops.failed(self._failed_at(e), e)
            return run

        runs = [lane(fn) for fn in self._lane_functions]
        if not parallel.side_by_side(runs[0], runs[1:], stops.stop_all):
            return False
        error = stops.first_error()
        if error is not None:
            raise error
        return True

    def _failed_at(self, e):
        """The index of the step (or fused group's root) whose line raised ``e``; -1 when no step's
        line did (an interrupt while waiting): every lane then stops at once, and ``e`` is raised."""
        tb, owner = e.__traceback__, None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                owner = self.line_of.get(tb.tb_lineno, owner)
            tb = tb.tb_next
        if owner is None:
            return -1
        return owner.root.index if hasattr(owner, "root") else owner.index

    # -- errors ----------------------------------------------------------------------------------
    def _error(self, e, values):
        tb, frame_locals, owner = e.__traceback__, None, None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                owner, frame_locals = self.line_of.get(tb.tb_lineno), tb.tb_frame.f_locals
            tb = tb.tb_next
        if owner is None:
            return e

        def value(slot):
            return frame_locals.get(f"s{slot}", values[slot])

        if isinstance(owner, (fusion.Group, products.Stacked, products.Summed, layer_fusion.BiasRelu,
                              layer_fusion.ReluGradSum)):  # replay op by op
            table = dict.fromkeys(range(len(values)))
            table.update({s: value(s) for s in owner.inputs})
            table = [table[i] for i in range(len(values))]
            for member in owner.members:
                compute(member, table)
            return e
        if isinstance(owner, OpStep):
            return kernel_error(owner, e, [value(s) for s in owner.inputs])
        return kernel_error(owner, e, [value(owner.input)])


def _publish(slot, name, shared):
    """The line writing ``slot``'s value (held in ``name``) into the value table: a copy where it
    may share memory with a folded value the program keeps for every run (``folding.aliasing``)."""
    return f"v[{slot}] = copy({name})" if slot in shared else f"v[{slot}] = {name}"


def _lane_waits(lanes, index):
    """The lines a lane runs before the step (or fused group) ``index``: wait for the steps of other
    lanes it depends on, then stop if a step before it failed (a lane stops at its next step)."""
    lines = [(None, f"ev[{w}].wait()") for w in lanes.waits.get(index, ())]
    lines.append((None, f"if halt[0] < {index}: return"))
    return lines


def _bias_relu(x, bias, out):
    """relu(x + bias) in one pass (``layer_fusion.py``), a large array's rows on the cores."""
    return relu_kernels.bias_relu(x, bias, out, parallel.ranges)


def _relu_grad_sum(dy, x, count, keep_dims, out):
    """(ReluGrad, its Sum over the first ``count`` axes) in one pass (``layer_fusion.py``)."""
    grad, total = relu_kernels.relu_grad_sum(dy, x, count, out)
    return grad, total.reshape((1,) * count + total.shape) if keep_dims else total


def _deref(value):
    """The array behind a variable reference (a value that crossed devices is one already)."""
    return value.read() if isinstance(value, VarRef) else value


def build(plan, threads=1):
    """The compiled program of ``plan``, or None when a step runs on a real GPU (each of those
    needs its device's stream around it: such plans are interpreted). ``threads``: the inter-op
    threads the session allows (0: one per core; 1, or a negative number: one at a time)."""
    if plan.has_control_flow or any(step.device.backend != "numpy" or getattr(step, "src", step.device).backend
                                    != "numpy" for step in plan.steps):
        return None  # loops and DEAD values are the interpreter's
    return Program(plan, threads)


def _describe(owner):
    if isinstance(owner, (products.Stacked, products.Summed, layer_fusion.BiasRelu, layer_fusion.ReluGradSum)):
        return f"merged: {', '.join(m.op.name for m in owner.members if m.op.type != 'Identity')}"
    if isinstance(owner, fusion.Group):
        return f"fused: {', '.join(m.op.name for m in owner.members[:3])}{'...' if len(owner.members) > 3 else ''}"
    if isinstance(owner, OpStep):
        return describe(owner)
    return f"copy {owner.tensor.name}: {owner.src.short_name} -> {owner.device.short_name}"
