"""``tf.map_fn`` and ``tf.scan``: a Python function applied to each row of a tensor (or of a
nested structure of tensors), built as TF 1.x builds them: the rows unstacked into TensorArrays,
a ``tf.while_loop`` that reads row i, calls the function and writes its result at i, and the
results stacked back. So they run, place and differentiate as any while loop does.
"""
from ..framework.scopes import name_scope
from ..framework.tensor_shape import TensorShape, unknown_shape
from ..ops.build import convert_to_tensor
from . import nest
from .array_ops import constant, shape
from .control_flow import while_loop
from .tensor_array_ops import TensorArray
from .variable_scope import get_variable_scope


class _CachingDeviceBesideTheOp:
    """TF's map_fn and scan read variables beside the ops reading them (a caching device of
    ``lambda op: op.device``) while their loop is built, when the scope names none."""

    def __enter__(self):
        self.scope = get_variable_scope()
        self.was_none = self.scope.caching_device is None
        if self.was_none:
            self.scope.set_caching_device(lambda op: op.device)

    def __exit__(self, *exc):
        if self.was_none:
            self.scope.set_caching_device(None)


def _rows(elems_flat):
    """The static number of rows (None when unknown) of the first element; every element must
    agree, and none be a scalar."""
    n_static = None
    for i, t in enumerate(elems_flat):
        dims = t.shape.sizes
        if dims is not None and len(dims) < 1:
            if i == 0:
                raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
            raise ValueError(f"Shape {t.shape} must have rank at least 1")
        rows = None if dims is None else dims[0]
        if i == 0:
            n_static = rows
        elif n_static is not None and rows is not None and rows != n_static:
            raise ValueError(f"Dimensions {n_static} and {rows} are not compatible")
    return n_static


def _with_rows(n_static, t):
    t.set_shape(TensorShape([n_static]).concatenate(t.shape[1:]) if t.shape.sizes is not None
                else TensorShape([n_static]).concatenate(unknown_shape()))
    return t


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True,
           name=None, fn_output_signature=None):
    """``fn`` applied to each row of ``elems`` (a tensor, or a nested structure of them unstacked
    together); the results stacked. ``dtype``/``fn_output_signature`` give the structure and types
    of ``fn``'s result when they differ from ``elems``'."""
    if fn_output_signature is None:
        fn_output_signature = dtype
    if not callable(fn):
        raise TypeError(f"The provided function {getattr(fn, '__name__', fn)} is not callable.fn must be callable.")
    if not parallel_iterations:
        parallel_iterations = 10
    elems_flat = nest.flatten(elems)
    if not elems_flat:
        raise ValueError("elems must be a Tensor or (possibly nested) sequence of Tensors. Got {}, which does not "
                         "contain any Tensors.".format(elems))
    if any(nest.is_composite(e) for e in elems_flat):
        raise NotImplementedError("tf.map_fn over IndexedSlices or SparseTensor elems: not supported by devlab")
    with name_scope(name, "map", elems_flat), _CachingDeviceBesideTheOp():
        elems_flat = [convert_to_tensor(t, name="elem") for t in elems_flat]
        if fn_output_signature is None:
            out_dtypes, unflatten = [t.dtype.base_dtype for t in elems_flat], (lambda x: nest.pack_sequence_as(elems, x))
        else:
            out_dtypes = nest.flatten(fn_output_signature)
            unflatten = (lambda x: nest.pack_sequence_as(fn_output_signature, x))
        n_static = _rows(elems_flat)
        n = n_static if n_static is not None else shape(elems_flat[0])[0]
        elems_ta = [TensorArray(dtype=t.dtype.base_dtype, size=n, dynamic_size=False, infer_shape=True)
                    for t in elems_flat]  # all made, then all filled: TF's order of ops
        elems_ta = [ta.unstack(t) for ta, t in zip(elems_ta, elems_flat)]
        i = constant(0)
        results_ta = [TensorArray(dtype=dt, size=n, dynamic_size=False, infer_shape=infer_shape)
                      for dt in out_dtypes]

        def compute(i, tas):
            value = fn(nest.pack_sequence_as(elems, [ta.read(i) for ta in elems_ta]))
            nest.assert_same_structure(fn_output_signature or elems, value)
            tas = [ta.write(i, v) for ta, v in zip(tas, nest.flatten(value))]
            return i + 1, tas

        _, r_a = while_loop(lambda i, _: i < n, compute, (i, results_ta), parallel_iterations=parallel_iterations,
                            back_prop=back_prop, swap_memory=swap_memory, maximum_iterations=n)
        return unflatten([_with_rows(n_static, r.stack()) for r in r_a])


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, infer_shape=True,
         reverse=False, name=None):
    """The running results of ``a = fn(a, row)`` over the rows of ``elems`` (from the end when
    ``reverse``), starting from ``initializer`` (else from the first row, which is its own result)."""
    input_is_sequence = nest.is_nested(elems)

    def input_flatten(x):
        return nest.flatten(x) if input_is_sequence else [x]

    def input_pack(x):
        return nest.pack_sequence_as(elems, x) if input_is_sequence else x[0]
    if initializer is None:
        output_flatten, output_pack = input_flatten, input_pack
    else:
        output_is_sequence = nest.is_nested(initializer)

        def output_flatten(x):
            return nest.flatten(x) if output_is_sequence else [x]

        def output_pack(x):
            return nest.pack_sequence_as(initializer, x) if output_is_sequence else x[0]
    elems_flat = input_flatten(elems)
    with name_scope(name, "scan", elems_flat), _CachingDeviceBesideTheOp():
        elems_flat = [convert_to_tensor(e, name="elem") for e in elems_flat]
        n = elems_flat[0].shape.sizes[0] if elems_flat[0].shape.sizes else None
        if n is None:
            n = shape(elems_flat[0])[0]
        elems_ta = [TensorArray(dtype=e.dtype.base_dtype, size=n, dynamic_size=False, element_shape=e.shape[1:],
                                infer_shape=True) for e in elems_flat]
        elems_ta = [ta.unstack(e) for ta, e in zip(elems_ta, elems_flat)]
        if initializer is None:
            a_flat = [ta.read(n - 1 if reverse else 0) for ta in elems_ta]
            i = 1
        else:
            a_flat = [convert_to_tensor(init) for init in output_flatten(initializer)]
            i = 0
        accs_ta = [TensorArray(dtype=a.dtype.base_dtype, size=n, element_shape=a.shape if infer_shape else None,
                               dynamic_size=False, infer_shape=infer_shape) for a in a_flat]
        if initializer is None:
            accs_ta = [ta.write(n - 1 if reverse else 0, a) for ta, a in zip(accs_ta, a_flat)]

        def compute(i, a_flat, tas):
            a_out = fn(output_pack(a_flat), input_pack([ta.read(i) for ta in elems_ta]))
            nest.assert_same_structure(elems if initializer is None else initializer, a_out)
            flat_a_out = output_flatten(a_out)
            tas = [ta.write(i, v) for ta, v in zip(tas, flat_a_out)]
            return (i - 1 if reverse else i + 1), flat_a_out, tas

        if reverse:
            initial_i, condition = n - 1 - i, (lambda i, _1, _2: i >= 0)
        else:
            initial_i, condition = i, (lambda i, _1, _2: i < n)
        _, _, r_a = while_loop(condition, compute, (initial_i, a_flat, accs_ta), parallel_iterations=parallel_iterations,
                               back_prop=back_prop, swap_memory=swap_memory, maximum_iterations=n)
        n_static = _rows(elems_flat)
        return output_pack([_with_rows(n_static, r.stack()) for r in r_a])
