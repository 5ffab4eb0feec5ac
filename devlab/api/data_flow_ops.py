"""``tf.FIFOQueue`` and ``tf.ConditionalAccumulator``: the graph side of TF's data-flow resources.

Each object holds the handle its resource op made (``FIFOQueueV2``,
``ResourceConditionalAccumulator``) and builds the ops that use it, named as TF 2.21's
``data_flow_ops.py`` names them: ``q_enqueue`` (a scope, with ``q_enqueue/component_0``),
``q_EnqueueMany``, ``q_Dequeue``, ``q_Close``, ``q_Size``; ``ResourceAccumulatorApplyGradient``,
``ResourceAccumulatorTakeGradient`` (with ``.../num_required``), ``acc_NumAccumulated``. A
FIFOQueue is made on the CPU (``tf.device("CPU")`` inside any outer scope) outside control
dependencies (``init_scope``). The resources themselves and their kernels are in
``fifo_queue.py`` and ``conditional_accumulator.py``.
"""
import contextlib
import functools

from ..framework import dtypes as dtypes_mod
from ..framework.scopes import device, init_scope, name_scope
from ..framework.tensor_shape import TensorShape, unknown_shape
from .array_ops import cast, op as build_op
from ..ops.build import apply_op, convert_to_tensor
from ..ops.tensor_util import constant_value
from ..ops.validate import make_int
from .random_ops import get_seed

RESOURCE = dtypes_mod.as_dtype("resource")


def _check_compatible(shape, expected):
    """TF's ``assert_is_compatible_with``: a ValueError naming both shapes."""
    if not TensorShape(shape).is_compatible_with(expected):
        raise ValueError(f"Shapes {TensorShape(shape)} and {TensorShape(expected)} are incompatible")


def _as_type_list(types):
    return [dtypes_mod.as_dtype(t) for t in (types if isinstance(types, (list, tuple)) else [types])]


def _as_shape_list(shapes):
    """A list of fully defined shapes, or None (TF's ``_as_shape_list``)."""
    if shapes is None:
        return None
    if isinstance(shapes, TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError("Shapes must be a TensorShape or a list or tuple of TensorShapes, "
                        f"got {type(shapes)} instead.")
    if all(s is None or isinstance(s, int) for s in shapes):
        shapes = [shapes]
    shapes = [TensorShape(s) for s in shapes]
    if any(not s.is_fully_defined() for s in shapes):
        raise ValueError(f"All shapes must be fully defined: {shapes}")
    return shapes


def _shape_common(s1, s2):
    """The dims two shapes agree on (unknown where they differ, or when the ranks do)."""
    s1, s2 = TensorShape(s1), TensorShape(s2)
    if s1.dims is None or s2.dims is None or len(s1.dims) != len(s2.dims):
        return unknown_shape()
    return TensorShape([a if a is not None and a == b else None for a, b in zip(s1.dims, s2.dims)])


class QueueBase:
    """A queue's handle and the ops on it (TF's ``tf.QueueBase``)."""

    def __init__(self, dtypes, shapes, names, queue_ref):
        self._dtypes = dtypes
        if shapes is not None:
            if len(shapes) != len(dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes, "
                                 f"received len(shapes)={len(shapes)}, len(dtypes)={len(dtypes)}")
            self._shapes = [TensorShape(s) for s in shapes]
        else:
            self._shapes = [unknown_shape() for _ in dtypes]
        if names is not None and len(names) != len(dtypes):
            raise ValueError("Queue names must have the same length as dtypes,"
                             f"received len(names)={len(names)},len {len(dtypes)}")
        self._names = list(names) if names is not None else None
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name.split("/")[-1]

    @staticmethod
    def from_list(index, queues):
        """A queue whose handle is ``queues[index]``'s, chosen when the graph runs (a Pack of the
        handles and a GatherV2, as TF builds it); its shapes are what the queues' have in common."""
        if not queues or not isinstance(queues, list) or not all(isinstance(q, QueueBase) for q in queues):
            raise TypeError("A list of queues expected")
        types = queues[0].dtypes
        if not all(types == q.dtypes for q in queues[1:]):
            raise TypeError("Queues do not have matching component dtypes.")
        names = queues[0].names
        if not all(names == q.names for q in queues[1:]):
            raise TypeError("Queues do not have matching component names.")
        shapes = [functools.reduce(_shape_common, s) for s in zip(*[q.shapes for q in queues])]
        from .array_ops import gather, stack
        selected = gather(stack([q.queue_ref for q in queues]), index)
        return QueueBase(dtypes=types, shapes=shapes, names=names, queue_ref=selected)

    @property
    def queue_ref(self):
        return self._queue_ref

    @property
    def name(self):
        return self._queue_ref.op.name

    @property
    def dtypes(self):
        return self._dtypes

    @property
    def shapes(self):
        return self._shapes

    @property
    def names(self):
        return self._names

    def _check_enqueue_dtypes(self, vals):
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError("Keys in dictionary to enqueue do not match names of Queue.  Dictionary: "
                                 f"{sorted(vals.keys())},Queue: {sorted(self._names)}")
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        return [convert_to_tensor(v, dtype=t, name=f"component_{i}")
                for i, (v, t) in enumerate(zip(vals, self._dtypes))]

    @staticmethod
    def _scope_vals(vals):
        if isinstance(vals, (list, tuple)):
            return list(vals)
        return list(vals.values()) if isinstance(vals, dict) else [vals]

    def enqueue(self, vals, name=None):
        """The op that adds one element (it waits while the queue is full)."""
        with name_scope(name, f"{self._name}_enqueue", self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            for val, shape in zip(vals, self._shapes):
                _check_compatible(val.shape, shape)
            return apply_op("QueueEnqueueV2", [self._queue_ref] + vals,
                            {"Tcomponents": [v.dtype.base_dtype for v in vals], "timeout_ms": -1}, scope)

    def enqueue_many(self, vals, name=None):
        """The op that adds one element per row of ``vals`` (their first dimension)."""
        with name_scope(name, f"{self._name}_EnqueueMany", self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            batch = None
            for val, shape in zip(vals, self._shapes):
                dims = val.shape.dims
                if dims is not None and not dims:
                    raise ValueError(f"Shape {val.shape} must have rank at least 1")
                if dims is not None:
                    if batch is not None and dims[0] is not None and dims[0] != batch:
                        raise ValueError(f"Dimensions {batch} and {dims[0]} are not compatible")
                    batch = batch if dims[0] is None else dims[0]
                    _check_compatible(dims[1:], shape)
            return apply_op("QueueEnqueueManyV2", [self._queue_ref] + vals,
                            {"Tcomponents": [v.dtype.base_dtype for v in vals], "timeout_ms": -1}, scope)

    def _dequeue_return_value(self, tensors):
        if self._names:
            return {n: tensors[i] for i, n in enumerate(self._names)}
        return tensors[0] if len(tensors) == 1 else tensors

    def dequeue(self, name=None):
        """One element (it waits while the queue is empty)."""
        op = apply_op("QueueDequeueV2", [self._queue_ref], {"component_types": list(self._dtypes), "timeout_ms": -1},
                      name or f"{self._name}_Dequeue")
        for output, shape in zip(op.outputs, self._shapes):
            output.set_shape(shape)
        return self._dequeue_return_value(list(op.outputs))

    def _dequeue_n(self, op_type, n, name, batch_known):
        op = build_op(op_type, name, [("handle", self._queue_ref, None), ("n", n, dtypes_mod.int32)],
                      {"component_types": list(self._dtypes), "timeout_ms": -1})
        value = constant_value(op.inputs[1]) if batch_known else None
        if value is not None and int(value) < 0:
            raise ValueError(f"Input 'n' must be >= 0, but is {int(value)} for '{{{{node {op.name}}}}}'")
        batch = None if value is None else int(value)
        for output, shape in zip(op.outputs, self._shapes):
            output.set_shape(TensorShape([batch] + ([] if shape.dims is None else list(shape.dims)))
                             if shape.dims is not None else unknown_shape())
        return self._dequeue_return_value(list(op.outputs))

    def dequeue_many(self, n, name=None):
        """``n`` elements, stacked (it waits until there are ``n``)."""
        return self._dequeue_n("QueueDequeueManyV2", n, name or f"{self._name}_DequeueMany", True)

    def dequeue_up_to(self, n, name=None):
        """Up to ``n`` elements: a closed queue gives what it has left."""
        return self._dequeue_n("QueueDequeueUpToV2", n, name or f"{self._name}_DequeueUpTo", False)

    def close(self, cancel_pending_enqueues=False, name=None):
        """The op that closes the queue (and, if asked, cancels the enqueues that wait)."""
        return apply_op("QueueCloseV2", [self._queue_ref], {"cancel_pending_enqueues": bool(cancel_pending_enqueues)},
                        name or f"{self._name}_Close")

    def is_closed(self, name=None):
        return apply_op("QueueIsClosedV2", [self._queue_ref], None, name or f"{self._name}_Is_Closed").outputs[0]

    def size(self, name=None):
        return apply_op("QueueSizeV2", [self._queue_ref], None, name or f"{self._name}_Size").outputs[0]


def _fifo_queue(capacity, dtypes, shapes, names, shared_name, name, on_cpu):
    """The checked dtypes, shapes and names of a FIFO queue and its FIFOQueueV2 handle, made under
    ``init_scope`` and ``placement`` (TF pins a FIFOQueue to the CPU)."""
    dtypes = _as_type_list(dtypes)
    shapes = _as_shape_list(shapes)
    if names is not None:
        names = list(names) if isinstance(names, (list, tuple)) else [names]
        if len(names) != len(dtypes):
            raise ValueError("List of names must have the same length as the list of dtypes, received "
                             f"len(names)={len(names)},len(dtypes)={len(dtypes)}")
    attrs = {"component_types": dtypes, "shapes": [tuple(s.dims) for s in shapes] if shapes else [],
             "capacity": int(capacity), "container": b"", "shared_name": shared_name or ""}
    with init_scope(), device("CPU") if on_cpu else contextlib.nullcontext():
        queue_ref = apply_op("FIFOQueueV2", [], attrs, name).outputs[0]
    return dtypes, shapes, names, queue_ref


class FIFOQueue(QueueBase):
    """A queue that dequeues elements in the order they came (TF's ``tf.FIFOQueue``)."""

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None, name="fifo_queue"):
        super().__init__(*_fifo_queue(capacity, dtypes, shapes, names, shared_name, name, True))


class GPUCompatibleFIFOQueue(QueueBase):
    """A FIFOQueue that may be placed on a GPU as well (no CPU pin); only enqueue and dequeue."""

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None, name="fifo_queue"):
        super().__init__(*_fifo_queue(capacity, dtypes, shapes, names, shared_name, name, False))

    def enqueue_many(self, vals, name=None):
        raise NotImplementedError("GPUCompatibleFIFOQueue does not support enqueue_many or dequeue_many, "
                                  "only enqueue and dequeue.")

    def dequeue_many(self, n, name=None):
        raise NotImplementedError("GPUCompatibleFIFOQueue does not support enqueue_many or dequeue_many, "
                                  "only enqueue and dequeue.")


class RandomShuffleQueue(QueueBase):
    """A queue that dequeues its elements in random order, keeping at least ``min_after_dequeue``
    while it is open (TF's ``tf.RandomShuffleQueue``; the order is not TF's: ops/random_shuffle_queue.py)."""

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None, seed=None, shared_name=None,
                 name="random_shuffle_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        if names is not None:
            raise NotImplementedError("RandomShuffleQueue(names=...): not supported by devlab")
        seed1, seed2 = get_seed(seed)  # TF's seeds (and its count of seeded ops)
        attrs = {"component_types": dtypes, "shapes": [tuple(s.dims) for s in shapes] if shapes else [],
                 "capacity": int(capacity), "min_after_dequeue": int(min_after_dequeue),
                 "seed": seed1 or 0, "seed2": seed2 or 0,
                 "container": b"", "shared_name": shared_name or ""}
        with init_scope(), device("CPU"):
            queue_ref = apply_op("RandomShuffleQueueV2", [], attrs, name).outputs[0]
        super().__init__(dtypes, shapes, names, queue_ref)


class ConditionalAccumulatorBase:
    """An accumulator's handle and the ops every accumulator has."""

    def __init__(self, dtype, shape, accumulator_ref):
        self._dtype = dtype
        self._shape = TensorShape(shape) if shape is not None else unknown_shape()
        self._accumulator_ref = accumulator_ref
        self._name = accumulator_ref.op.name.split("/")[-1]

    @property
    def accumulator_ref(self):
        return self._accumulator_ref

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    def num_accumulated(self, name=None):
        """How many gradients it holds now."""
        return apply_op("ResourceAccumulatorNumAccumulated", [self._accumulator_ref], None,
                        name or f"{self._name}_NumAccumulated").outputs[0]

    def set_global_step(self, new_global_step, name=None):
        """The op that sets its step: gradients computed before it are stale from then on."""
        step = cast(convert_to_tensor(new_global_step), dtypes_mod.int64)
        return apply_op("ResourceAccumulatorSetGlobalStep", [self._accumulator_ref, step], None,
                        name or "ResourceAccumulatorSetGlobalStep")


class ConditionalAccumulator(ConditionalAccumulatorBase):
    """Averages the gradients of one step, dropping stale ones (TF's ``tf.ConditionalAccumulator``)."""

    def __init__(self, dtype, shape=None, shared_name=None, name="conditional_accumulator", reduction_type="MEAN"):
        dtype = dtypes_mod.as_dtype(dtype)
        shape = None if shape is None else TensorShape(shape)
        attrs = {"dtype": dtype, "shape": None if shape is None else shape.dims, "container": b"",
                 "shared_name": shared_name or "", "reduction_type": reduction_type}
        ref = apply_op("ResourceConditionalAccumulator", [], attrs, name).outputs[0]
        super().__init__(dtype, shape, ref)

    def apply_grad(self, grad, local_step=0, name=None):
        """The op that adds ``grad`` if it is not stale (``local_step`` >= the accumulator's step)."""
        grad = convert_to_tensor(grad, self._dtype)
        _check_compatible(grad.shape, self._shape)
        local_step = cast(convert_to_tensor(local_step), dtypes_mod.int64)
        return apply_op("ResourceAccumulatorApplyGradient", [self._accumulator_ref, local_step, grad], None,
                        name or "ResourceAccumulatorApplyGradient")

    def take_grad(self, num_required, name=None):
        """The mean of the gradients, once ``num_required`` are in (it waits until then)."""
        op = build_op("ResourceAccumulatorTakeGradient", name,
                      [("handle", self._accumulator_ref, None), ("num_required", num_required, dtypes_mod.int32)],
                      {"dtype": self._dtype})
        out = op.outputs[0]
        out.set_shape(self._shape)
        return out


def dynamic_partition(data, partitions, num_partitions, name=None):
    """``num_partitions`` tensors: the rows of ``data`` whose ``partitions`` entry is 0, 1, ..."""
    return build_op("DynamicPartition", name, [("data", data, None), ("partitions", partitions, None)],
                    {"num_partitions": make_int(num_partitions, "num_partitions")}).outputs


def _stitch(op_type):
    def build(indices, data, name=None):
        """One tensor: ``merged[indices[i]] = data[i]`` for each list i."""
        for arg, value in (("indices", indices), ("data", data)):
            if not isinstance(value, (list, tuple)):  # TF's op-def layer: a list argument takes a list
                raise TypeError(f"Expected list for '{arg}' argument to '{op_type}' Op, not {value!r}.")
        with name_scope(name, op_type, list(indices) + list(data)) as scope:
            idx = [convert_to_tensor(x, name=f"indices_{i}") for i, x in enumerate(indices)]
            vals = [convert_to_tensor(x, name=f"data_{i}") for i, x in enumerate(data)]
            types = [v.dtype.base_dtype.name for v in vals]
            if len(set(types)) > 1:  # TF's op-def layer: one T for the whole list
                raise TypeError(f"Tensors in list passed to 'data' of '{op_type}' Op have types [{', '.join(types)}] "
                                "that don't all match.")
            return apply_op(op_type, idx + vals, {"N": len(idx)}, scope).outputs[0]
    build.__name__ = "parallel_dynamic_stitch" if op_type.startswith("Parallel") else "dynamic_stitch"
    return build


dynamic_stitch = _stitch("DynamicStitch")
parallel_dynamic_stitch = _stitch("ParallelDynamicStitch")
