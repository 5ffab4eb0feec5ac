"""Merging the matrix products that data-parallel towers repeat, for compiled programs.

Towers over a split batch multiply each shared weight by their own slice of the batch, and the
weight gradients they make are added up (and averaged) as soon as they exist. On host-memory
devices a value moves between devices by alias, so a program can do that work once:

* **stacked**: products with the same right operand (``x1 @ W``, ``x2 @ W``) become one product
  of the stacked left operands, ``[x1; x2] @ W``, each result a block of its rows: ``W`` is read
  from memory once instead of once per tower;
* **summed**: a sum of products read by nothing else (``a1ᵀ @ d1 + a2ᵀ @ d2``, through the
  gradients' ``Identity`` ops: an ``AddN``, or the mean or sum of the products stacked on a new
  axis 0) and a scaling by a scalar after it become one product over the joined inner
  dimension, ``[a1; a2]ᵀ @ [d1; d2]``, the scale (or the mean's 1/n) applied to the smaller
  operand: the per-tower gradients are never written, read back and added.

The products of a weight are the largest arrays of a training step, and the step is bound by
memory, so this is where its time goes. TensorFlow's executor gets part of the same effect by
running the towers' ops at once, both reading each weight while it is in cache.

Like fusion (``fusion.py``), a merge changes how a steady run executes, not what it reports: the
placement log, the stepper and traced runs see every op. The sums are the same up to rounding
(the terms are added in another order, as a different BLAS would add them).
"""
import numpy as np

from ..devices import parallel
from ..ops import tensor_util
from .steps import OpStep, wiring, writes_state

MIN_BYTES = 1 << 20  # the shared operand (stacked) or the sum (summed): smaller ones stay as they are
FLOATS = ("float32", "float64")


class Stacked:
    """MatMul steps (``members``, in execution order) sharing their right operand, run as one
    product where the last of them runs; ``inputs`` are the slots read (left operands, then the
    right one)."""

    root_writes_out = False  # the results are blocks of one new array

    def __init__(self, members):
        self.members, self.root = members, members[-1]
        self.inputs = tuple(m.inputs[0] for m in members) + (members[0].inputs[1],)

    def line(self, arg):
        """The program's line: ``arg(step, i)`` is the text of ``step``'s input ``i``."""
        first = self.members[0]
        lefts = ", ".join(arg(m, 0) for m in self.members)
        outs = ", ".join(f"s{m.outputs[0]}" for m in self.members)
        return (f"{outs} = stacked(({lefts},), {arg(first, 1)}, "
                f"{_flag(first, 'transpose_a')}, {_flag(first, 'transpose_b')})")


class Summed:
    """A sum of MatMul results (``AddN``, or a ``Mean``/``Sum`` over the towers' results stacked
    by ``ExpandDims`` + ``ConcatV2`` or by ``Pack``), reached through ``Identity`` steps, and a
    ``Mul``/``RealDiv`` by a scalar after it when there is one (the root), run as one product
    where the root runs."""

    root_writes_out = True  # the sum goes into the root's planned buffer

    def __init__(self, products, passed, reducer, mean, scale):
        self.products, self.reducer, self.mean, self.scale = products, reducer, mean, scale
        self.members = sorted(products + passed + [reducer] + ([scale] if scale else []), key=lambda s: s.index)
        self.root = scale or reducer
        # which input of the scaling step is the scalar
        self.scalar = None if scale is None else int(scale.inputs[0] == reducer.outputs[0])
        made = {s for m in self.members for s in m.outputs}
        self.inputs = tuple(dict.fromkeys(s for m in self.members for s in m.inputs if s not in made))

    def line(self, arg, out):
        pairs = ", ".join(f"({arg(p, 0)}, {arg(p, 1)}, {_flag(p, 'transpose_a')}, {_flag(p, 'transpose_b')})"
                          for p in self.products)
        if self.mean:
            scale, divide = len(self.products), True
        elif self.scale is not None:
            scale, divide = arg(self.scale, self.scalar), self.scale.op.type == "RealDiv"
        else:
            scale, divide = None, False
        return f"s{self.root.outputs[0]} = summed(({pairs},), {scale}, {divide}, {out})"


def find_merges(plan):
    """The stacked and summed merges worth making in ``plan`` (steps on host-memory devices)."""
    steps = plan.steps
    producer, readers = wiring(steps)
    fetched = {s for s in plan.fetch_slots if s is not None}
    writers = [s.index for s in steps if writes_state(s)]

    def only_reader(slot):
        """The one step reading ``slot``, if it is read once and not fetched."""
        read = readers.get(slot, ())
        return read[0] if len(read) == 1 and slot not in fetched else None

    def clear(lo, hi):  # no variable may change between the first member and the root
        return not any(lo < w < hi for w in writers)

    merges, taken = [], set()
    for step in steps:  # summed first: it takes products that stacking would otherwise read
        merge = _summed(step, producer, only_reader)
        if merge is not None and clear(merge.members[0].index, merge.root.index):
            merges.append(merge)
            taken.update(m.index for m in merge.members)
    by_right = {}
    for step in steps:
        # a product joins when its right operand is large, and larger than its left one (which
        # is copied into the stacked operand)
        if (_product(step) and step.index not in taken
                and _nbytes(step.op.inputs[1]) >= max(MIN_BYTES, _nbytes(step.op.inputs[0]) + 1)):
            key = (step.inputs[1], 1 in step.deref, _flag(step, "transpose_a"), _flag(step, "transpose_b"))
            by_right.setdefault(key, []).append(step)
    for members in by_right.values():
        # The product runs where its last member does: a member joins while nothing has yet read
        # the results of those before it (a later product may depend on an earlier one).
        batch, first_read = [members[0]], _first_read(members[0], readers)
        for m in members[1:] + [None]:
            if m is not None and first_read > m.index and clear(batch[0].index, m.index):
                batch.append(m)
                first_read = min(first_read, _first_read(m, readers))
                continue
            if len(batch) > 1:
                merges.append(Stacked(batch))
            if m is not None:
                batch, first_read = [m], _first_read(m, readers)
    return sorted(merges, key=lambda m: m.root.index)


def _first_read(step, readers):
    return min((r.index for r in readers.get(step.outputs[0], ())), default=float("inf"))


def _summed(reducer, producer, only_reader):
    terms = _terms(reducer, producer, only_reader)
    if terms is None:
        return None
    slots, passed, mean = terms
    products = []
    for slot in slots:
        step = producer.get(slot)
        while isinstance(step, OpStep) and step.op.type == "Identity" and not step.deref \
                and not step.op.inputs[0].dtype.is_ref and only_reader(slot) is not None:
            passed.append(step)
            slot = step.inputs[0]
            step = producer.get(slot)
        if only_reader(slot) is None or not _product(step) or step in products:
            return None
        products.append(step)
    if sum(_nbytes(t) for p in products for t in p.op.inputs) > _nbytes(reducer.op.outputs[0]):
        return None  # joining the operands would cost more than the sum saves
    scale = None if mean else only_reader(reducer.outputs[0])
    return Summed(products, passed, reducer, mean, scale if _scales(scale, reducer.outputs[0]) else None)


def _terms(step, producer, only_reader):
    """(the slots ``step`` adds up, the steps between them and it, whether it takes their mean)
    when ``step`` is a large float sum of two or more same-shaped tensors, else None: an
    ``AddN``, or a ``Mean``/``Sum`` over axis 0 of the tensors stacked by ``ExpandDims`` +
    ``ConcatV2`` (the cifar10_multi_gpu way) or by ``Pack``."""
    if not (isinstance(step, OpStep) and step.op.type in ("AddN", "Mean", "Sum") and not step.deref
            and step.op.outputs[0].dtype.base_dtype.name in FLOATS and _nbytes(step.op.outputs[0]) >= MIN_BYTES):
        return None
    if step.op.type == "AddN":
        return (list(step.inputs), [], False) if len(step.inputs) > 1 else None
    if step.op.attrs.get("keep_dims") or not _is_zero(step.op.inputs[1]):
        return None
    stack = producer.get(step.inputs[0])
    if only_reader(step.inputs[0]) is None or not isinstance(stack, OpStep) or stack.deref:
        return None
    if stack.op.type == "Pack" and not stack.op.attrs.get("axis") and len(stack.inputs) > 1:
        return list(stack.inputs), [stack], step.op.type == "Mean"
    if stack.op.type != "ConcatV2" or len(stack.inputs) < 3 or not _is_zero(stack.op.inputs[-1]):
        return None
    slots, passed = [], [stack]
    for slot in stack.inputs[:-1]:
        expand = producer.get(slot)
        if (only_reader(slot) is None or not isinstance(expand, OpStep) or expand.op.type != "ExpandDims"
                or expand.deref or not _is_zero(expand.op.inputs[1])):
            return None
        slots.append(expand.inputs[0])
        passed.append(expand)
    return slots, passed, step.op.type == "Mean"


def _is_zero(tensor):
    """Whether ``tensor`` is the constant 0 or [0] (an axis)."""
    value = tensor_util.constant_value(tensor)
    return value is not None and value.size == 1 and int(value.reshape(-1)[0]) == 0


def _scales(step, slot):
    """Whether ``step`` multiplies ``slot`` by a scalar, or divides it by one."""
    if step is None or step.op.type not in ("Mul", "RealDiv") or step.deref or not _float(step):
        return False
    if len(step.inputs) != 2 or step.inputs[0] == step.inputs[1] or (step.op.type == "RealDiv" and step.inputs[0] != slot):
        return False
    other = step.op.inputs[1] if step.inputs[0] == slot else step.op.inputs[0]
    return other.shape.ndims == 0


def _product(step):
    """Whether ``step`` is a MatMul of static 2-D float matrices on a host-memory device."""
    return (isinstance(step, OpStep) and step.op.type == "MatMul" and step.device.backend == "numpy"
            and _float(step) and all(t.shape.is_fully_defined() for t in step.op.inputs))


def _float(step):
    dtype = step.op.outputs[0].dtype.base_dtype.name
    return dtype in FLOATS and all(t.dtype.base_dtype.name == dtype for t in step.op.inputs)


def _nbytes(tensor):
    shape = tensor.shape
    if not shape.is_fully_defined():
        return 0
    return shape.num_elements() * np.dtype(tensor.dtype.base_dtype.as_numpy_dtype).itemsize


def _flag(step, name):
    return bool(step.op.attrs.get(name))


# -- what the program calls --------------------------------------------------------------------
def stacked(lefts, right, transpose_a, transpose_b):
    """The products ``left @ right`` for every left operand, computed as one product."""
    a = np.concatenate([x.T for x in lefts] if transpose_a else lefts)
    product = parallel.matmul(a, right.T if transpose_b else right)
    out, row = [], 0
    for x in lefts:
        rows = x.shape[1] if transpose_a else x.shape[0]
        out.append(product[row:row + rows])
        row += rows
    return out


def summed(pairs, scale, divide, out):
    """The sum of the products ``a @ b`` over ``pairs`` of (a, b, transpose_a, transpose_b), times
    ``scale`` (or divided by it), computed as one product over the joined inner dimension."""
    if all(ta for _, _, ta, _ in pairs):  # aᵀ side by side: the a's stacked, then transposed
        a = np.concatenate([p[0] for p in pairs]).T
    else:
        a = np.concatenate([p[0].T if p[2] else p[0] for p in pairs], axis=1)
    if all(tb for _, _, _, tb in pairs):
        b = np.concatenate([p[1] for p in pairs], axis=1).T
    else:
        b = np.concatenate([p[1].T if p[3] else p[1] for p in pairs])
    if scale is not None:  # applied to the smaller operand, a new array of our own
        smaller = a if a.size <= b.size else b
        (np.divide if divide else np.multiply)(smaller, scale, out=smaller)
    return parallel.matmul(a, b, out)
