"""Steps whose results nothing reads, which a compiled program leaves out.

``tf.gradients`` makes the gradient of every input of an op, and groups them with
``tf.tuple``: a convolution on the images the step is fed gets a ``Conv2DBackpropInput`` whose
result nothing reads, kept in the graph only by the tuple's control edges. TensorFlow's graph
optimizer (grappler) removes such ops before the run (a traced run of the CNN of
``benchmarks/bench_models.py`` shows no ``tower_0/gradients/tower_0/Conv2D_grad/
Conv2DBackpropInput``); the interpreter runs them, and so would a program, spending 6 ms a tower
on the CNN's first layer.

A step is left out when every output is neither read (except by steps left out) nor fetched,
and it is one of the ops below, which cannot fail once its shapes are static (so leaving it
out changes no value and no error): stateless, every shape fully defined, and any variable it
reads read by a step that runs too.
"""
from .steps import OpStep, wiring

PURE = frozenset(("Conv2DBackpropInput", "Conv2DBackpropFilter", "MatMul", "ShapeN", "Shape"))


def find(plan, keep=()):
    """The indices of the steps of ``plan`` a compiled program leaves out (never those in ``keep``:
    the members of fused groups and merged products)."""
    _, readers = wiring(plan.steps)
    fetched = {s for s in plan.fetch_slots if s is not None}
    keep = set(keep)
    while True:
        left_out = set()
        for step in reversed(plan.steps):  # a reader comes after what it reads: one pass backwards
            if step.index in keep or not _pure(step) or any(s in fetched for s in step.outputs):
                continue
            if all(r.index in left_out for s in step.outputs for r in readers.get(s, ())):
                left_out.add(step.index)
        # Reading a variable fails while it is uninitialized: a step left out may read one only
        # if a step that runs reads it too (the forward convolution reads the filter its
        # gradients read), so the run fails as before.
        read = {step.inputs[i] for step in plan.steps if isinstance(step, OpStep) and step.index not in left_out
                for i in step.deref}
        alone = {i for i in left_out if any(plan.steps[i].inputs[d] not in read for d in plan.steps[i].deref)}
        if not alone:
            return left_out
        keep |= alone


def _pure(step):
    if not isinstance(step, OpStep) or step.op.type not in PURE or step.preloaded:
        return False
    if step.opdef.stateful or step.opdef.ref_inputs:
        return False
    tensors = list(step.op.inputs) + list(step.op.outputs)
    return all(t.shape.is_fully_defined() and t.dtype.base_dtype.name != "resource" for t in tensors)
