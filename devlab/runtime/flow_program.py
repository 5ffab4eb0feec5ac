"""A plan with control flow (tf.cond, tf.while_loop) compiled to one Python function.

The interpreter runs such a plan one step at a time and asks, before each step, whether one of
its inputs is DEAD (the untaken side of a Switch). Most of those questions have the same answer
in every run: inside a loop's body every value is live while the loop goes on; after it, the
body's values are dead and the Exits take the Switches' other side. So the program is written
with each slot's *deadness* known where compiling can tell it (live, dead, or "ask at run
time", ``DYN``), and a while loop becomes a Python ``while`` loop:

    enters; merges take the Enters' values
    while True:
        head  (steps that do not read the loop's Switches: the Merges, the condition, invariants)
        if not condition: break
        body  (steps that read the Switches' true side), NextIterations; merges take their values
    exits (steps that read the Switches' false side)

Only a step whose deadness depends on data (inside a tf.cond, say) tests ``is DEAD`` when it
runs. Values and errors are those of the interpreter (``Program`` reports a failing line as the
interpreter would). A plan whose loops do not have this shape is left to the interpreter.
"""
import numpy as np

from ..devices.parallel import matmul
from ..devices.transfer import transfer
from ..framework import cancellation
from ..ops.kernels import DEAD, forward, identity
from .plan import REF_FORWARDERS, written_variables
from .program import Program, _deref, _describe
from .steps import LoopStep, OpStep, flat_steps

LIVE, DYN = "live", "dyn"  # a slot's deadness where the code reads it (or DEAD, or a guard below)
SWITCHES = ("Switch", "RefSwitch")
COPIES = (forward, identity)
PY_FUNCS = ("PyFunc", "PyFuncStateless", "EagerPyFunc")  # kernels that hand their input on: an assignment in the program


class NotCompiled(Exception):
    """The plan has a shape this compiler does not handle: it is interpreted."""


GUARD = "guard"  # (GUARD, pred slot, side): live exactly when the predicate in that slot is ``side``


def _is_guard(st):
    return isinstance(st, tuple)


def _common_guard(states):
    """The deadness of a value computed from values of ``states`` (none DEAD): LIVE if all are,
    the one guard they share, else DYN."""
    other = {st for st in states if st != LIVE}
    if not other:
        return LIVE
    return other.pop() if len(other) == 1 and _is_guard(next(iter(other))) else DYN


def _join(a, b):
    """A loop variable's deadness from its two sources; a guard does not cross an iteration (the
    predicate is computed again)."""
    a, b = (DYN if _is_guard(x) else x for x in (a, b))
    return a if a == b else DYN


class FlowProgram(Program):
    """The compiled program of a plan with control flow (see the module's docstring)."""

    def _analyse(self, plan):
        """No fused groups, merged products or planned buffers: a loop's values live across
        iterations."""
        self.merges, self.groups, self.buffers = [], [], {}

    def _generate(self, plan):
        ns = {"DEAD": DEAD, "deref": _deref, "transfer": transfer}
        self._ns = ns
        flat = list(plan.flat_steps())
        self._readers = {}  # slot -> the steps reading it
        for step in flat:
            if isinstance(step, OpStep):
                reads = step.inputs + step.controls
            else:
                reads = () if step.alias else (step.input,)
            for slot in reads:
                self._readers.setdefault(slot, []).append(step)
        self._reads = set(self._readers)
        self._producer = {o: step for step in flat if isinstance(step, OpStep) for o in step.outputs}
        fetched = {s for s in plan.fetch_slots if s is not None}
        self._fetched = fetched
        self._deferred = {}  # an accumulating add's step index -> its Accumulation
        self._skipped = set()  # the indices of the products an Accumulation computes after its loop
        self._same = {}  # slot -> the slot it copies (an Identity's), for the predicates of guards
        self._check_fetches(plan.steps, fetched, inside=False)
        state = {}
        preloaded = [s for s, v in enumerate(plan.initial) if v is not None]
        preloaded += [s for s, *_ in plan.variable_slots] + [s for s, _, _ in plan.feed_slots]
        body = []
        for s in sorted(set(preloaded)):
            state[s] = LIVE
            if s in self._reads or s in fetched:
                body.append((None, f"s{s} = v[{s}]"))
        lines, state = self._steps(plan.steps, state)
        body += lines
        for slot in plan.fetch_slots:
            if slot is not None:
                body.append((None, f"v[{slot}] = {self._name(slot, state)}"))
        out = ["def program(v):"]
        for owner, text in body or [(None, "pass")]:
            out.append("    " + text + (f"  # {_describe(owner)}" if owner is not None else ""))
            if owner is not None:
                self.line_of[len(out)] = owner
        return "\n".join(out) + "\n", ns

    def _check_fetches(self, steps, fetched, inside):
        """A value made inside a loop (other than by its Exits) is fetched dead in TF: interpreted."""
        for step in steps:
            if isinstance(step, LoopStep):
                self._check_fetches(step.steps, fetched, True)
            elif inside and not (isinstance(step, OpStep) and step.op.type == "Exit"):
                outs = step.outputs if isinstance(step, OpStep) else (step.output,)
                if fetched.intersection(outs):
                    raise NotCompiled("a value made inside a loop is fetched")

    # -- steps -----------------------------------------------------------------------------------
    @staticmethod
    def _name(slot, state):
        return "DEAD" if state.get(slot) == DEAD else f"s{slot}"

    def _steps(self, steps, state):
        """(lines, state after them) for ``steps`` run in order, starting from ``state``."""
        state, lines = dict(state), []
        for step in steps:
            if isinstance(step, LoopStep):
                more, state = self._loop(step, state)
                lines += more
            elif isinstance(step, OpStep):
                lines += self._op(step, state)
            else:
                lines += self._transfer(step, state)
        return lines, state

    def _transfer(self, step, state):
        st = _state(state, step.input, step)
        if step.alias:
            return []  # the output slot is the input's
        state[step.output] = st
        if st == DEAD:
            return []
        ns = self._ns
        ns[f"src{step.index}"], ns[f"dst{step.index}"] = step.src, step.device
        call = (f"s{step.output} = transfer(deref(s{step.input}), src{step.index}, dst{step.index})")
        if st == LIVE:
            return [(step, call)]
        return [(None, f"if s{step.input} is DEAD:"), (None, f"    s{step.output} = DEAD"), (None, "else:"),
                (step, "    " + call)]

    def _op(self, step, state):
        opdef, ns = step.opdef, self._ns
        if step.index in self._skipped:  # computed after the loop (an Accumulation)
            if any(_state(state, s, step) != LIVE for s in step.inputs + step.controls):
                raise NotCompiled(f"{step.name} may be dead")
            state[step.outputs[0]] = LIVE
            if step.token is not None:
                state[step.token] = LIVE
                if step.token in self._reads:
                    return [(None, f"s{step.token} = True")]
            return []
        acc = self._deferred.get(step.index)
        if acc is not None:
            if any(_state(state, s, step) != LIVE for s in (acc.carried,) + acc.product.inputs):
                raise NotCompiled(f"{step.name} sums values that may be dead")
            state[step.outputs[0]] = LIVE
            a, b = (self._name(s, state) for s in acc.product.inputs)
            return [(step, f"{acc.stash}.append(({a}, {b}))"),
                    (None, f"s{step.outputs[0]} = {self._name(acc.carried, state)}")]
        watched = [] if opdef.live_controls else list(step.controls)
        if not opdef.reads_dead:
            watched += step.inputs
        states = [_state(state, s, step) for s in watched]
        outs = step.outputs + ((step.token,) if step.token is not None else ())
        if DEAD in states:
            for s in outs:
                state[s] = DEAD
            return []
        dyn = [s for s, st in zip(watched, states) if st != LIVE]
        # what the checks depend on: one side of one predicate (a branch of a tf.cond), or DYN
        guard = _common_guard(states)
        if opdef.reads_dead:  # Merge: the first live input
            ins = [_state(state, s, step) for s in step.inputs]
            live = {x for x in ins if x != DEAD}
            both = len(live) == 2 and all(_is_guard(x) for x in live) and len({x[1] for x in live}) == 1
            out_state = (LIVE if LIVE in ins or both  # a cond's Merge: one side or the other is live
                         else DEAD if not live else _common_guard(live))
        elif step.op.type in SWITCHES:
            out_state = DYN  # the side the predicate did not take is DEAD
        else:
            out_state = LIVE
        call = self._call(step, state, dyn)
        for s in step.outputs:  # a Switch or Merge that may not run: its outputs' deadness is data's
            state[s] = (DYN if step.op.type in SWITCHES or opdef.reads_dead else guard) if dyn else out_state
        if step.kernel in COPIES and len(step.inputs) == 1 and not step.deref:
            self._same[step.outputs[0]] = self._same.get(step.inputs[0], step.inputs[0])
        if step.op.type in SWITCHES and not dyn and len(step.outputs) == 2:
            # each side is live when the predicate says so (it is read before it changes): a
            # tf.cond's Switches read its pred_id, an Identity of the predicate its pivots read
            pred = self._same.get(step.inputs[1], step.inputs[1])
            state[step.outputs[0]], state[step.outputs[1]] = (GUARD, pred, False), (GUARD, pred, True)
        if opdef.reads_dead and step.outputs:
            state[step.outputs[-1]] = state[step.outputs[0]]
        if step.token is not None:
            state[step.token] = guard if dyn else LIVE
        token_read = step.token is not None and step.token in self._reads
        if not dyn:
            lines = [(step, call)] if call else []
            if token_read:
                lines.append((None, f"s{step.token} = True"))
            return lines
        lines = [(None, f"if {' or '.join(f's{s} is DEAD' for s in dict.fromkeys(dyn))}:")]
        dead = [f"s{s}" for s in step.outputs] + ([f"s{step.token}"] if token_read else [])
        lines.append((None, "    " + " = ".join(dead) + " = DEAD" if dead else "    pass"))
        lines.append((None, "else:"))
        lines.append((step, "    " + call) if call else (None, "    pass"))
        if token_read:
            lines.append((None, f"    s{step.token} = True"))
        return lines

    def _call(self, step, state, dyn):
        """The line running ``step``'s kernel on live inputs ("" when there is nothing to run)."""
        op, ns = step.op, self._ns
        if op.type == "NoOp":
            return ""
        if step.preloaded:  # loaded from the table at the start; a Const that may be dead is put back
            return f"s{step.outputs[0]} = v[{step.outputs[0]}]" if dyn else ""
        args = [self._name(s, state) for s in step.inputs]
        for i in step.deref:
            args[i] = f"deref({args[i]})"
        if step.kernel in COPIES and len(args) == 1 and len(step.outputs) == 1:
            return f"s{step.outputs[0]} = {args[0]}"
        ufunc = step.opdef.ufunc
        if ufunc is not None and step.device.backend == "numpy":
            name = f"np_{ufunc}"
            ns[name] = getattr(step.device.xp, ufunc)
            call = f"{name}({', '.join(args)})"
        else:
            ns[f"k{step.index}"], ns[f"c{step.index}"] = step.kernel, step.ctx
            call = f"k{step.index}(c{step.index}{''.join(', ' + a for a in args)})"
        if not step.outputs:
            return call
        return ", ".join(f"s{s}" for s in step.outputs) + " = " + call

    # -- loops -----------------------------------------------------------------------------------
    def _loop(self, loop, state):
        own = [s for s in loop.steps if isinstance(s, OpStep)]
        enters = [loop.steps[i] for i in loop.entry]
        nexts = set(loop.next_slots)
        merges = [s for s in own if s.op.type == "Merge" and nexts.intersection(s.inputs)]
        switches = [s for s in own if s.op.type in SWITCHES and s.inputs[1] == loop.cond_slot]
        variable = set(loop.variable_enters)
        merge_in = {}
        for m in merges:
            if (len(m.inputs) != 2 or m.inputs[0] not in variable or m.inputs[1] not in nexts or m.controls
                    or (len(m.outputs) > 1 and m.outputs[1] in self._reads)):
                raise NotCompiled(f"loop merge {m.op.name}")
            merge_in[m.index] = m.inputs
        merge_ids = set(merge_in)
        for s in flat_steps(loop.steps):  # the Enters' and NextIterations' values reach only the merges
            reads = (s.inputs + s.controls) if isinstance(s, OpStep) else (() if s.alias else (s.input,))
            if s.index not in merge_ids and (variable | nexts).intersection(reads):
                raise NotCompiled(f"{s.op.name} reads a loop variable's Enter or NextIteration")
        head, body, tail = self._classify(loop, enters, merges, switches)
        writes = _writes_state(loop)
        written = set(written_variables(flat_steps(loop.steps))) if writes else set()
        if any(e.deref and _variable_behind(e.op.inputs[0]) in written for e in enters):
            # the Enters run first here; the interpreter runs one where the frame's order puts it,
            # so one reading a variable may see a write the loop made before it
            raise NotCompiled(f"loop {loop.name} writes a variable that an Enter reads")
        if writes and any(isinstance(s, OpStep) and (s.deref or s.opdef.ref_inputs)
                          for h in head for s in (flat_steps(h.steps) if isinstance(h, LoopStep) else (h,))):
            raise NotCompiled(f"loop {loop.name}: a step before its condition reads or writes a variable")
        accumulations = [] if writes else [
            a for a in (self._accumulation(m, loop, switches, body) for m in merges) if a is not None]
        for acc in accumulations:
            self._deferred[acc.add.index] = acc
            self._skipped.update(s.index for s in acc.skipped)

        lines, entered = self._steps(enters, state)
        state = entered
        for m in merges:
            lines.append((None, f"s{m.outputs[0]} = {self._name(m.inputs[0], state)}"))
            if m.token is not None:  # a merge runs in every iteration (it has no control inputs)
                state[m.token] = LIVE
                if m.token in self._reads:
                    lines.append((None, f"s{m.token} = True"))
        for sw in switches:  # a loop's Switch runs in every iteration, the last one too
            if sw.controls:
                raise NotCompiled(f"loop switch {sw.op.name} has control inputs")
            if sw.token is not None:
                state[sw.token] = LIVE
                if sw.token in self._reads:
                    lines.append((None, f"s{sw.token} = True"))
        carried = {m.outputs[0]: _join(state[m.inputs[0]], state[m.inputs[0]]) for m in merges}
        while True:
            start = dict(state)
            for m in merges:
                start[m.outputs[0]] = carried[m.outputs[0]]
            for s in nexts:
                start[s] = DEAD
            head_lines, after_head = self._steps(head, start)
            in_body = dict(after_head)
            for sw in switches:
                in_body[sw.outputs[0]], in_body[sw.outputs[1]] = DEAD, after_head[sw.inputs[0]]
            body_lines, after_body = self._steps(body, in_body)
            joined = {m.outputs[0]: _join(carried[m.outputs[0]], after_body[m.inputs[1]]) for m in merges}
            if joined == carried:
                break
            carried = joined
        cond = loop.cond_slot
        test = f"not s{cond}" if after_head[cond] == LIVE else f"s{cond} is DEAD or not s{cond}"
        loop_lines = list(head_lines)
        loop_lines.append((None, f"if {test}:"))
        loop_lines.append((None, "    break"))
        loop_lines.append((None, "check_cancelled()"))  # as the interpreter: a run past its time limit stops
        self._ns["check_cancelled"] = cancellation.check
        for sw in switches:
            if sw.outputs[1] in self._reads:
                loop_lines.append((None, f"s{sw.outputs[1]} = s{sw.inputs[0]}"))
        loop_lines += body_lines
        for m in merges:
            loop_lines.append((None, f"s{m.outputs[0]} = {self._name(m.inputs[1], after_body)}"))
        for acc in accumulations:
            lines.append((None, f"{acc.stash} = []"))
        lines.append((None, "while True:"))
        lines += [(owner, "    " + text) for owner, text in loop_lines]
        for acc in accumulations:  # the products summed at once: one large product, not one a step
            ns = self._ns
            ns["summed_products"] = summed_products
            ns[f"tr{acc.add.index}"] = (bool(acc.product.op.get_attr("transpose_a")),
                                        bool(acc.product.op.get_attr("transpose_b")))
            lines.append((acc.product, f"s{acc.merge.outputs[0]} = summed_products(s{acc.merge.outputs[0]}, "
                                       f"{acc.stash}, *tr{acc.add.index})"))
        # the last iteration: the body's values are dead, the Switches hand their data to the Exits
        out = dict(after_head)
        for s in flat_steps(body):
            for slot in ((s.outputs + ((s.token,) if s.token is not None else ())) if isinstance(s, OpStep)
                         else (s.output,)):
                out[slot] = DEAD
        for sw in switches:
            out[sw.outputs[0]], out[sw.outputs[1]] = after_head[sw.inputs[0]], DEAD
            if sw.outputs[0] in self._reads:
                lines.append((None, f"s{sw.outputs[0]} = s{sw.inputs[0]}"))
        tail_lines, out = self._steps(tail, out)
        lines += tail_lines
        return lines, out

    def _accumulation(self, merge, loop, switches, body):
        """The Accumulation of loop variable ``merge`` if it only sums one product per iteration
        (``acc + matmul(a, b)``, a gradient loop's sum for a loop-invariant weight), else None."""
        readers, one = self._readers, self._only_reader
        sw = one(merge.outputs[0])
        if sw is None or sw not in switches or sw.inputs[0] != merge.outputs[0]:
            return None
        carried = sw.outputs[1]
        reader = one(carried)
        if reader is not None and reader.op.type == "Identity" and not reader.deref and reader in body:
            carried, reader = reader.outputs[0], one(reader.outputs[0])
        if reader is None or reader.op.type not in ("Add", "AddV2") or reader not in body:
            return None
        add = reader
        others = [s for s in add.inputs if s != carried]
        nxt = one(add.outputs[0])
        if len(others) != 1 or nxt is None or nxt.op.type != "NextIteration" or nxt.outputs[0] != merge.inputs[1]:
            return None
        product, passes, reader = self._producer.get(others[0]), [], add
        while product is not None and product.op.type == "Identity" and not product.deref and product in body \
                and one(product.outputs[0]) is reader:  # e.g. the gradient's tuple/control_dependency
            passes.append(product)
            reader, product = product, self._producer.get(product.inputs[0])
        if (product is None or product.op.type != "MatMul" or product not in body or product.deref
                or one(product.outputs[0]) is not reader or product.controls or add.controls
                or (add.token is not None and add.token in self._reads)):
            return None
        dtype = add.op.outputs[0].dtype.base_dtype.name
        shapes = [t.shape for t in product.op.inputs] + [add.op.outputs[0].shape, add.op.inputs[0].shape,
                                                         add.op.inputs[1].shape]
        if dtype not in ("float32", "float64") or not all(sh.is_fully_defined() for sh in shapes):
            return None  # a product that might fail must fail where the interpreter's does
        if add.op.outputs[0].shape != product.op.outputs[0].shape:
            return None
        if any(self._readers.get(s, [None])[0] is not None and s in self._fetched
               for s in (add.outputs[0], product.outputs[0])):
            return None
        return Accumulation(merge, add, product, carried, passes)

    def _only_reader(self, slot):
        """The one step reading ``slot`` (None if it has several, or none, or it is fetched)."""
        readers = self._readers.get(slot, ())
        return readers[0] if len(readers) == 1 and slot not in self._fetched else None

    def _classify(self, loop, enters, merges, switches):
        """(head, body, tail): the loop's steps (past its Enters) by which side of the loop's
        Switches they read; one reading both is not compiled."""
        true_side = {sw.outputs[1] for sw in switches}
        false_side = {sw.outputs[0] for sw in switches}
        special = {id(s) for s in enters + merges + switches}
        head, body, tail = [], [], []
        for step in loop.steps:
            if id(step) in special:
                if step in switches:
                    continue  # its outputs are assigned where each side starts
                if step in merges:
                    continue  # assigned before the loop and at the end of each iteration
                continue
            reads, writes = _reads_writes(step)
            t, f = bool(true_side.intersection(reads)), bool(false_side.intersection(reads))
            if t and f:
                raise NotCompiled(f"{step.name} reads both sides of a loop")
            (body if t else tail if f else head).append(step)
            (true_side if t else false_side if f else set()).update(writes)
        return head, body, tail


class Accumulation:
    """A loop variable that sums one product a step: the products' operands are kept, and summed
    as one product when the loop ends (``summed_products``)."""

    def __init__(self, merge, add, product, carried, passes):
        self.merge, self.add, self.product, self.carried = merge, add, product, carried
        self.skipped = [product] + passes  # the product and the Identities between it and the add
        self.stash = f"stash{add.index}"


def summed_products(total, operands, transpose_a, transpose_b):
    """``total`` plus the sum of ``op(a) @ op(b)`` over ``operands`` (pairs), as one product: the
    ``a``s side by side, the ``b``s one above the other."""
    if not operands:
        return total
    a = (np.concatenate([a for a, _ in operands], axis=0).T if transpose_a
         else np.concatenate([a for a, _ in operands], axis=1))
    b = (np.concatenate([b for _, b in operands], axis=1).T if transpose_b
         else np.concatenate([b for _, b in operands], axis=0))
    return total + matmul(a, b)


def _variable_behind(tensor):
    """The name of the op a tensor forwards (through Identities and reference forwarders)."""
    while tensor.op.type in REF_FORWARDERS + ("Identity", "Enter") and tensor.op.inputs:
        tensor = tensor.op.inputs[0]
    return tensor.op.name


def _writes_state(loop):
    """Whether a step of ``loop`` may write an array in place (a variable, through its reference)
    or run Python code: a product's operands kept for after the loop could change meanwhile."""
    return any(isinstance(s, OpStep) and ((s.opdef.stateful and s.opdef.ref_inputs) or s.op.type in PY_FUNCS)
               for s in flat_steps(loop.steps))


def _state(state, slot, step):
    """The deadness of ``slot`` where ``step`` reads it."""
    st = state.get(slot)
    if st is None:
        raise NotCompiled(f"{step.name} reads slot {slot} before it is written")
    return st


def _reads_writes(step):
    """(slots read, slots written) by a step or a whole loop (its own slots left out of reads)."""
    if isinstance(step, LoopStep):
        reads, writes = set(), set()
        for s in flat_steps(step.steps):
            r, w = _reads_writes(s)
            reads |= r
            writes |= w
        return reads - writes, writes
    if isinstance(step, OpStep):
        token = {step.token} if step.token is not None else set()
        return set(step.inputs) | set(step.controls), set(step.outputs) | token
    return ({step.input}, {step.output})


def build(plan):
    """The compiled program of a plan with control flow, or None: interpreted (a step on a real
    GPU, or a loop this compiler does not handle)."""
    if any(step.device.backend != "numpy" or getattr(step, "src", step.device).backend != "numpy"
           for step in plan.flat_steps()):
        return None
    try:
        return FlowProgram(plan)
    except NotCompiled:
        return None
