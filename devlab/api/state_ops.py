"""Ops that write variables. They take the variable by reference, so ``apply_op`` colocates
each with its variable (``_class = [loc:@v]``): an assignment always runs where ``v`` lives."""
from ..framework.dtypes import DType
from ..framework.scopes import name_scope
from ..ops.validate import make_int
from ..ops.build import apply_op_output, convert_to_tensor
from .partitioned_variables import PartitionedVariable


def _is_resource(ref):
    """A resource variable: its writes are its own methods (ops on its handle), as TF's state_ops dispatch."""
    return hasattr(ref, "handle") and hasattr(ref, "_lazy_read")


def _write(op_type, default_name):
    def build(ref, value, use_locking=None, name=None, validate_shape=True):
        """Writes ``value`` into the variable ``ref`` (``validate_shape``: Assign only)."""
        if _is_resource(ref):  # TF passes the name on to assign only
            if op_type == "Assign":
                return ref.assign(value, name=name)
            return ref.assign_add(value) if op_type == "AssignAdd" else ref.assign_sub(value)
        if op_type == "Assign" and isinstance(ref, PartitionedVariable):
            return ref.assign(value, use_locking=use_locking, name=name)  # one Assign per shard
        with name_scope(name, default_name, [ref, value]) as scope:
            ref_t = convert_to_tensor(ref, as_ref=True)
            if not ref_t.dtype.is_ref:
                raise TypeError(f"'{op_type}' Op requires that input 'ref' be a mutable tensor "
                                f"(e.g.: a tf.Variable)")
            given = getattr(value, "dtype", None)
            if isinstance(given, DType) and given.base_dtype != ref_t.dtype.base_dtype:  # TF's op_def_library words
                raise TypeError(f"Input 'value' of '{op_type}' Op has type {given.base_dtype.name} that does not "
                                f"match type {ref_t.dtype.base_dtype.name} of argument 'ref'.")
            value = convert_to_tensor(value, dtype=ref_t.dtype.base_dtype, name="value")
            attrs = {"use_locking": bool(use_locking)}
            if op_type == "Assign":
                attrs["validate_shape"] = validate_shape
            return apply_op_output(op_type, [ref_t, value], attrs, scope)
    build.__name__ = default_name.lower()
    return build


_assign = _write("Assign", "Assign")
_assign_add = _write("AssignAdd", "AssignAdd")
_assign_sub = _write("AssignSub", "AssignSub")


def count_up_to(ref, limit, name=None):
    """``tf.count_up_to``: a CountUpTo op that returns the int32/int64 variable's value and adds
    one, until the value reaches ``limit`` (then the run fails with OutOfRangeError)."""
    if _is_resource(ref):
        return ref.count_up_to(limit)
    ref = convert_to_tensor(ref, as_ref=True)
    if ref.dtype.base_dtype.name not in ("int32", "int64"):
        raise TypeError(f"Value passed to parameter 'ref' has DataType {ref.dtype.base_dtype.name} not in list of "
                        "allowed values: int32, int64")
    return apply_op_output("CountUpTo", [ref], {"limit": make_int(limit, "limit"), "T": ref.dtype.base_dtype},
                           name or "CountUpTo")


# TF's signatures (and their positional order): only ``assign`` takes ``validate_shape``
def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    return _assign(ref, value, use_locking, name, True if validate_shape is None else validate_shape)


def assign_add(ref, value, use_locking=None, name=None):
    return _assign_add(ref, value, use_locking, name)


def assign_sub(ref, value, use_locking=None, name=None):
    return _assign_sub(ref, value, use_locking, name)


def is_variable_initialized(variable, name=None):  # TF's argument name
    if _is_resource(variable):
        return variable.is_initialized(name=name)
    ref = convert_to_tensor(variable, as_ref=True)
    return apply_op_output("IsVariableInitialized", [ref], {"dtype": ref.dtype.base_dtype},
                           name or "IsVariableInitialized")


def _scatter(op_type, use_locking_default):
    def build(ref, indices, updates, use_locking=use_locking_default, name=None):
        """Writes ``updates`` into the rows ``indices`` of the variable ``ref`` (the rest stay)."""
        if _is_resource(ref):
            return ref._scatter_op(op_type, indices, updates, name)
        with name_scope(name, op_type, [ref, indices, updates]) as scope:
            ref_t = convert_to_tensor(ref, as_ref=True)
            if not ref_t.dtype.is_ref:
                raise TypeError(f"'{op_type}' Op requires that input 'ref' be a mutable tensor (e.g.: a tf.Variable)")
            indices = convert_to_tensor(indices, name="indices")
            updates = convert_to_tensor(updates, dtype=ref_t.dtype.base_dtype, name="updates")
            return apply_op_output(op_type, [ref_t, indices, updates], {"use_locking": bool(use_locking)}, scope)
    build.__name__ = "scatter_" + op_type[len("Scatter"):].lower()
    return build


scatter_update = _scatter("ScatterUpdate", True)
scatter_add = _scatter("ScatterAdd", False)
scatter_sub = _scatter("ScatterSub", False)
