"""Partitioned variables: one big variable stored as several shards (``emb/part_0``, ``part_1``...).

``tf.get_variable(name, shape, partitioner=tf.fixed_size_partitioner(n))`` (or a partitioner on
the ``variable_scope``) makes one ordinary variable per shard, each a slice of the full shape
along one axis, so a ``replica_device_setter`` spreads them over the parameter servers like any
variables. The ``PartitionedVariable`` it returns iterates over the shards (what
``embedding_lookup`` and the optimizers use) and, where a dense value is needed, becomes the
shards concatenated (``<name>/ConcatPartitions/concat``) under the variable's own name.
"""
import math

from ..framework import dtypes
from ..framework.scopes import control_dependencies, name_scope
from ..framework.tensor_shape import TensorShape
from . import array_ops
from .partition_info import PartitionInfo  # noqa: F401 - variable_scope imports it from here


class SaveSliceInfo:
    """Where a shard sits in its full variable (``tf.Variable.SaveSliceInfo``): the full variable's
    name and shape, and the shard's offset and shape in it; ``spec`` is the checkpoint's slice string."""

    def __init__(self, full_name=None, full_shape=None, var_offset=None, var_shape=None, save_slice_info_def=None,
                 import_scope=None):
        if save_slice_info_def is not None:  # read back from a VariableDef (the name under import_scope)
            from ..framework.graph import prepend_name_scope
            full_name = prepend_name_scope(save_slice_info_def.full_name, import_scope)
            full_shape, var_offset, var_shape = (list(save_slice_info_def.full_shape),
                                                 list(save_slice_info_def.var_offset),
                                                 list(save_slice_info_def.var_shape))
        self.full_name, self.full_shape, self.var_offset, self.var_shape = full_name, full_shape, var_offset, var_shape

    def to_proto(self, export_scope=None):
        """TF's ``SaveSliceInfoDef`` of this slice, or None when the full name is not under ``export_scope``."""
        from ..framework.graph import strip_name_scope
        from ..framework.tf_protos import pb
        if export_scope is not None and not self.full_name.startswith(export_scope):
            return None
        proto = pb().SaveSliceInfoDef()
        proto.full_name = strip_name_scope(self.full_name, export_scope)
        proto.full_shape.extend(self.full_shape)
        proto.var_offset.extend(self.var_offset)
        proto.var_shape.extend(self.var_shape)
        return proto

    @property
    def spec(self):
        """The full shape, then offset,length per dimension: ``"2 3 4 0,1:2,1:0,3"``."""
        return " ".join("%d" % d for d in self.full_shape) + " " + ":".join(
            "%d,%d" % (o, s) for o, s in zip(self.var_offset, self.var_shape))

    @classmethod
    def from_spec(cls, spec):
        """The SaveSliceInfo (no full name) a ``spec`` string describes; TF's ValueErrors otherwise."""
        if not spec:
            return cls()
        try:
            full_shape_str, slice_str = spec.rsplit(" ", 1)
        except ValueError as e:
            raise ValueError("Spec string must contain space-separated full_shape info.") from e
        full_shape = []
        for dim in full_shape_str.split():
            try:
                full_shape.append(int(dim))
            except ValueError as e:
                raise ValueError("Spec string full_shape must be a sequence of integers. "
                                 f"Found '{dim}', which is not an integer.") from e
        var_offset, var_shape = [], []
        for dim_spec in slice_str.split(":"):
            try:
                offset, shape = dim_spec.split(",")
            except ValueError as e:
                raise ValueError("Spec string must contain comma-separated pairs of offsets and shapes.") from e
            try:
                var_offset.append(int(offset))
            except ValueError as e:
                raise ValueError(f"Spec string var_offset must be an integer. Found '{offset}', which is not an "
                                 "integer.") from e
            try:
                var_shape.append(int(shape))
            except ValueError as e:
                raise ValueError(f"Spec string var_shape must be an integer. Found '{shape}', which is not an "
                                 "integer.") from e
        return cls(full_shape=full_shape, var_offset=var_offset, var_shape=var_shape)


def fixed_size_partitioner(num_shards, axis=0):
    """A partitioner splitting ``axis`` into ``num_shards`` shards (fewer if the axis is shorter)."""
    def _partitioner(shape, dtype):
        partitions = [1] * shape.ndims
        partitions[axis] = min(num_shards, shape.sizes[axis])
        return partitions
    return _partitioner


def variable_axis_size_partitioner(max_shard_bytes, axis=0, bytes_per_string_element=16, max_shards=None):
    """A partitioner splitting ``axis`` into as few shards as keep each under ``max_shard_bytes``
    (at least one slice per shard; at most ``max_shards`` shards). A string counts
    ``bytes_per_string_element`` bytes."""
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError(f"Both max_shard_bytes and bytes_per_string_element must be positive. Currently, "
                         f"max_shard_bytes is {max_shard_bytes} andbytes_per_string_element is "
                         f"{bytes_per_string_element}")
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape, dtype):
        if not isinstance(shape, TensorShape):
            raise ValueError(f"shape is not a TensorShape: {shape}")
        if not shape.is_fully_defined():
            raise ValueError(f"shape is not fully defined: {shape}")
        dtype = dtypes.as_dtype(dtype).base_dtype
        element_size = bytes_per_string_element if dtype == dtypes.string else dtype.size
        sizes = shape.as_list()
        partitions = [1] * len(sizes)
        bytes_per_slice = 1.0 * (shape.num_elements() / sizes[axis]) * element_size
        slices_per_shard = max(1, math.floor(max_shard_bytes / bytes_per_slice))
        axis_shards = int(math.ceil(1.0 * sizes[axis] / slices_per_shard))
        partitions[axis] = min(max_shards, axis_shards) if max_shards else axis_shards
        return partitions
    return _partitioner


def min_max_variable_partitioner(max_partitions=1, axis=0, min_slice_size=256 << 10, bytes_per_string_element=16):
    """A partitioner giving ``axis`` as many shards as keep each at least ``min_slice_size`` bytes,
    at most ``max_partitions`` and at most the axis' length (at least one)."""
    def _partitioner(shape, dtype):
        if axis >= len(shape):
            raise ValueError(f"Cannot partition variable along axis {axis} when shape is only {shape}")
        dtype = dtypes.as_dtype(dtype).base_dtype
        bytes_per_element = bytes_per_string_element if dtype == dtypes.string else dtype.size
        partitions = shape.num_elements() * bytes_per_element / min_slice_size
        partitions_list = [1] * len(shape)
        partitions_list[axis] = max(1, min(shape.as_list()[axis], max_partitions, int(math.ceil(partitions))))
        return partitions_list
    return _partitioner


def call_partitioner(partitioner, shape, dtype):
    """The partitions a partitioner gives ``shape``, checked as TF checks them."""
    if not shape.is_fully_defined():
        raise ValueError(f"Shape of a new partitioned variable must be fully defined, but instead was {shape}.")
    if shape.ndims < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1, shape: {shape}")
    slicing = partitioner(shape=shape, dtype=dtype)
    if not isinstance(slicing, (list, tuple)):
        raise ValueError(f"Partitioner returned a non-sequence: {slicing}")
    if len(slicing) != shape.ndims:
        raise ValueError(f"Partitioner returned a partition list that does not match the Variable's rank: "
                         f"{slicing} vs. {shape}")
    if any(p < 1 for p in slicing):
        raise ValueError(f"Partitioner returned zero partitions for some axes: {slicing}")
    if sum(p > 1 for p in slicing) > 1:
        raise ValueError(f"Can only slice a variable along one dimension: shape: {shape}, partitioning: {slicing}")
    return list(slicing)


def iter_slices(full_shape, partitions):
    """(offset, shape) of each shard: the first ``size % n`` shards one row longer."""
    axis = next((i for i, p in enumerate(partitions) if p > 1), 0)
    n = partitions[axis]
    excess, least = full_shape[axis] % n, full_shape[axis] // n
    offset = [0] * len(full_shape)
    for i in range(n):
        shape = list(full_shape)
        shape[axis] = least + (1 if i < excess else 0)
        yield list(offset), shape
        offset[axis] += shape[axis]


class PartitionedVariable:
    """A variable stored as shards: iterate for the shards, convert for the whole."""

    def __init__(self, name, shape, dtype, variable_list, partitions):
        # TF's checks, in TF's order; the shards are kept sorted by their offsets
        if not isinstance(variable_list, (list, tuple)):
            raise TypeError(f"variable_list is not a list or tuple: {variable_list}")
        if not isinstance(partitions, (list, tuple)):
            raise TypeError(f"partitions is not a list or tuple: {partitions}")
        if not all(p >= 1 for p in partitions):
            raise ValueError(f"partition values must be positive: {partitions}")
        if not variable_list:
            raise ValueError("variable_list may not be empty")
        infos = [getattr(v, "_save_slice_info", None) for v in variable_list]
        if any(info is None for info in infos):
            raise ValueError(f"All variables must have a save_slice_info available: {[v.name for v in variable_list]}")
        full = TensorShape(shape).as_list()
        if len(full) != len(partitions):
            raise ValueError(f"len(shape) != len(partitions): {shape} vs. {partitions}")
        for info in infos:
            if list(info.full_shape) != full:
                raise ValueError(f"All variables' full shapes must match shape: {shape}; but full shapes were: "
                                 f"{[info.full_shape]}")
        self._name, self._shape, self._dtype = name, TensorShape(shape), dtype
        self._variable_list = sorted(variable_list, key=lambda v: list(v._save_slice_info.var_offset))
        self._partitions = list(partitions)

    def __iter__(self):
        return iter(self._variable_list)

    def __len__(self):
        return len(self._variable_list)

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    @property
    def graph(self):
        return self._variable_list[0].graph

    def _get_variable_list(self):
        return list(self._variable_list)

    def _get_partitions(self):
        return list(self._partitions)

    def _partition_axes(self):
        axes = [i for i, p in enumerate(self._partitions) if p > 1]
        return axes or [0]

    def as_tensor(self):
        """The shards concatenated: an ``Identity`` named like the variable."""
        with control_dependencies(None):
            if len(self._variable_list) == 1:
                with name_scope(None):
                    return array_ops.identity(self._variable_list[0], name=self._name)
            with name_scope(self._name + "/ConcatPartitions/"):
                whole = array_ops.concat(self._variable_list, self._partition_axes()[0])
            with name_scope(None):
                return array_ops.identity(whole, name=self._name)

    def _to_tensor(self, as_ref=False):
        if as_ref:
            raise NotImplementedError("PartitionedVariable doesn't support being used as a reference.")
        return self.as_tensor()

    def _apply_assign_fn(self, assign_fn, value):
        """``assign_fn(shard, its part of value)`` for each shard: ``value`` is a list of parts, another
        PartitionedVariable's shards, or a tensor split along the partition axis (one SplitV)."""
        axes = self._partition_axes()
        if len(axes) > 1:
            raise NotImplementedError(f"Cannot do assign action along more than one dimension: {axes}.  Multi-axis "
                                      f"partition assign action is not supported ")
        if isinstance(value, list):
            if len(value) != len(self._variable_list):
                raise AssertionError(f"{len(value)} values for {len(self._variable_list)} partitions")  # TF asserts
            parts = value
        elif isinstance(value, PartitionedVariable):
            parts = list(value)
        else:
            sizes = [v.shape.sizes[axes[0]] for v in self._variable_list]
            parts = array_ops.split(value, sizes, axis=axes[0])
        return [assign_fn(v, p) for v, p in zip(self._variable_list, parts)]

    def assign(self, value, use_locking=False, name=None, read_value=True):
        """Each shard gets its part of ``value`` (one Assign per shard)."""
        return self._apply_assign_fn(
            lambda v, p: v.assign(p, use_locking=use_locking, name=name, read_value=read_value), value)

    def assign_add(self, value, use_locking=False, name=None, read_value=True):
        """Each shard adds its part of ``value`` (one AssignAdd per shard)."""
        return self._apply_assign_fn(
            lambda v, p: v.assign_add(p, use_locking=use_locking, name=name, read_value=read_value), value)

    def assign_sub(self, value, use_locking=False, name=None, read_value=True):
        """Each shard subtracts its part of ``value`` (one AssignSub per shard)."""
        return self._apply_assign_fn(
            lambda v, p: v.assign_sub(p, use_locking=use_locking, name=name, read_value=read_value), value)

    def __repr__(self):
        return f"<PartitionedVariable {self._name!r} shape={self._shape} shards={len(self)}>"
