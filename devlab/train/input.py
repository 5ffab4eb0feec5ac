"""TF1's queue-based input producers and batching: ``tf.train.input_producer``,
``string_input_producer`` and ``batch``, built as TF builds them (training/input.py): a FIFOQueue,
a QueueRunner in the graph's QUEUE_RUNNERS collection that fills it (started by
``start_queue_runners``, a Supervisor or a MonitoredSession), and for ``num_epochs`` a local
variable counted up by ``CountUpTo`` until the producer closes its queue.

An input producer with ``shuffle=True`` shuffles each epoch with TF's RandomShuffle op, which
draws TF's own numbers (``ops/philox.py``): with a seed, the files come in TF's order.
``shuffle_batch`` draws from a RandomShuffleQueue whose order is its own, not TF's.
"""
from ..api import math_ops
from ..api.array_ops import identity, range as range_
from ..api.data_flow_ops import FIFOQueue, RandomShuffleQueue
from ..api.random_ops import random_shuffle
from ..api.variables import Variable
from ..framework import dtypes as dtypes_mod
from ..framework.graph_keys import GraphKeys
from ..framework.scopes import control_dependencies, name_scope
from ..ops.build import apply_op, convert_to_tensor
from ..summary import scalar
from .queue_runner import QueueRunner, add_queue_runner


def match_filenames_once(pattern, name=None):
    """A local variable holding the files that match ``pattern`` (a glob), read once, when it is
    initialised (``tf.local_variables_initializer()``), as TF's ``MatchingFiles``."""
    with name_scope(name or "matching_filenames") as scope:
        with name_scope("MatchingFiles") as op_scope:  # TF's wrapper converts the pattern in the op's scope
            pattern = convert_to_tensor(pattern, dtypes_mod.string, name="pattern")
            files = apply_op("MatchingFiles", [pattern], None, op_scope).outputs[0]
        return Variable(files, name=scope, trainable=False, validate_shape=False,
                        collections=[GraphKeys.LOCAL_VARIABLES])


def limit_epochs(tensor, num_epochs=None, name=None):
    """``tensor``, but each evaluation counts an epoch, and after ``num_epochs`` it is OutOfRangeError."""
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    with name_scope(name or "limit_epochs"):
        epochs = Variable(0, name="epochs", trainable=False, collections=[GraphKeys.LOCAL_VARIABLES],
                          dtype=dtypes_mod.int64)
        counter = apply_op("CountUpTo", [epochs._variable], {"limit": int(num_epochs), "T": dtypes_mod.int64},
                           "CountUpTo").outputs[0]
        with control_dependencies([counter]):
            return identity(tensor)


def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True, seed=None, capacity=32,
                   shared_name=None, summary_name=None, name=None, cancel_op=None):
    """A queue filled, epoch after epoch, with the rows of ``input_tensor``."""
    if cancel_op is not None:
        raise NotImplementedError("input_producer(cancel_op=): not supported by devlab")
    with name_scope(name or "input_producer"):
        input_tensor = convert_to_tensor(input_tensor, name="input_tensor")
        shape = element_shape if element_shape is not None else input_tensor.shape[1:]
        if shuffle:
            input_tensor = random_shuffle(input_tensor, seed=seed)
        produced = limit_epochs(input_tensor, num_epochs)
        queue = FIFOQueue(capacity, [input_tensor.dtype.base_dtype], shapes=[shape], shared_name=shared_name,
                          name="input_producer" if name is None else name)
        enqueue = queue.enqueue_many([produced])
        add_queue_runner(QueueRunner(queue, [enqueue]))
        if summary_name is not None:  # how full the queue is, as TF's producers report it
            scalar(summary_name, math_ops.cast(queue.size(), dtypes_mod.float32) * (1. / capacity))
        return queue


def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None, name=None):
    """A queue filled with ``0 .. limit - 1``, epoch after epoch (ptb_word_lm's reader counts its
    batches with it), and a ``fraction_of_<capacity>_full`` summary of how full it is."""
    with name_scope(name or "input_producer") as scope:
        range_tensor = range_(limit)
        return input_producer(range_tensor, [], num_epochs, shuffle, seed, capacity, shared_name,
                              "fraction_of_%d_full" % capacity, scope)


def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None,
                          name=None, cancel_op=None):
    """A queue of file names for a reader (``tf.TFRecordReader().read(queue)``)."""
    string_tensor = convert_to_tensor(string_tensor, dtypes_mod.string)
    return input_producer(string_tensor, [], num_epochs, shuffle, seed, capacity, shared_name, None,
                          name or "input_producer", cancel_op)


def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None, dynamic_pad=False,
          allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches of ``batch_size`` of ``tensors`` (a list or dict), made by ``num_threads`` threads."""
    if dynamic_pad:
        raise NotImplementedError("tf.train.batch(dynamic_pad=True): devlab has no PaddingFIFOQueue")
    with name_scope(name or "batch") as scope:
        return _batch([tensors], lambda types, shapes_: FIFOQueue(capacity, types, shapes=shapes_,
                                                                 shared_name=shared_name),
                      batch_size, enqueue_many, shapes, allow_smaller_final_batch, scope, num_threads)


def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None, enqueue_many=False,
                  shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches of ``batch_size`` drawn at random from a queue that keeps ``min_after_dequeue``
    elements while the input lasts."""
    with name_scope(name or "shuffle_batch") as scope:
        return _batch([tensors], lambda types, shapes_: RandomShuffleQueue(
            capacity, min_after_dequeue, types, shapes=shapes_, seed=seed, shared_name=shared_name),
            batch_size, enqueue_many, shapes, allow_smaller_final_batch, scope, num_threads)


def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None, dynamic_pad=False,
               allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches from several lists of tensors (one reader each), one thread per list."""
    if dynamic_pad:
        raise NotImplementedError("tf.train.batch_join(dynamic_pad=True): devlab has no PaddingFIFOQueue")
    with name_scope(name or "batch_join") as scope:
        return _batch(tensors_list, lambda types, shapes_: FIFOQueue(capacity, types, shapes=shapes_,
                                                                      shared_name=shared_name),
                      batch_size, enqueue_many, shapes, allow_smaller_final_batch, scope)


def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None, enqueue_many=False,
                       shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    """``shuffle_batch`` from several lists of tensors, one thread per list."""
    with name_scope(name or "shuffle_batch_join") as scope:
        return _batch(tensors_list, lambda types, shapes_: RandomShuffleQueue(
            capacity, min_after_dequeue, types, shapes=shapes_, seed=seed, shared_name=shared_name),
            batch_size, enqueue_many, shapes, allow_smaller_final_batch, scope)


def _batch(tensors_list, make_queue, batch_size, enqueue_many, shapes, allow_smaller_final_batch, scope,
           num_threads=None):
    """What the four batchers share: the queue ``make_queue`` builds for the items' types and shapes,
    its QueueRunner (``num_threads`` runs of one enqueue op, or one enqueue op per tensor list for the
    ``_join`` forms, as TF's ``_enqueue``/``_enqueue_join``) and the dequeue of ``batch_size``."""
    if not tensors_list:
        raise ValueError("Expected at least one set of tensors")
    first = tensors_list[0]
    keys = sorted(first) if isinstance(first, dict) else None
    if keys is not None and any(set(ts) != set(keys) for ts in tensors_list[1:]):
        raise ValueError("All dictionaries in tensors_list must have the same keys")
    lists = [[convert_to_tensor(ts[k]) for k in keys] if keys is not None else [convert_to_tensor(t) for t in ts]
             for ts in tensors_list]
    if not lists[0]:
        raise ValueError("Expected at least one tensor in batch().")
    queue = make_queue(_dtypes(lists), _shapes(lists, shapes, enqueue_many))
    enqueue = queue.enqueue_many if enqueue_many else queue.enqueue
    enqueues = [enqueue(lists[0])] * num_threads if num_threads else [enqueue(items) for items in lists]
    add_queue_runner(QueueRunner(queue, enqueues))
    out = queue.dequeue_up_to(batch_size, name=scope) if allow_smaller_final_batch else \
        queue.dequeue_many(batch_size, name=scope)
    out = out if isinstance(out, (list, tuple)) else [out]
    return _as_original(keys, out)


def _dtypes(lists):
    """The items' dtypes, the same in every tensor list (TF's ``_dtypes``)."""
    types = [t.dtype for t in lists[0]]
    for items in lists[1:]:
        if [t.dtype for t in items] != types:
            raise TypeError("Expected types to be consistent: %s vs. %s." % (
                ", ".join(t.name for t in types), ", ".join(t.dtype.name for t in items)))
    return [t.base_dtype for t in types]


def _shapes(lists, shapes, enqueue_many):
    """The queue's element shapes: ``shapes`` as given, else each item's shape (less its batch
    dimension with ``enqueue_many``) of the first list, checked against the other lists', as TF's
    ``_shapes``; the queue then insists they are fully defined."""
    if shapes is not None:
        return shapes
    for items in lists:
        for t in items:
            if t.shape.ndims is None:
                raise ValueError(f"Cannot infer Tensor's rank: {t}")
    merged = []
    for i in range(len(lists[0])):
        each = [items[i].shape.with_rank_at_least(1)[1:] if enqueue_many else items[i].shape for items in lists]
        for shape in each[1:]:
            each[0].merge_with(shape)  # TF checks the lists agree but keeps the first list's shape
        merged.append(each[0])
    return merged


def _as_original(keys, out):
    """The dequeued tensors in the form given: a dict by key, else a list, or one Tensor for one
    (TF's ``_as_original_type``)."""
    out = list(out)
    if keys is not None:
        return dict(zip(keys, out))
    return out[0] if len(out) == 1 else out
