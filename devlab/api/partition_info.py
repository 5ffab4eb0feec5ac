"""``_PartitionInfo``: where one shard of a partitioned variable sits in the whole, handed to an
initializer as ``partition_info`` (TF's ``variable_scope._PartitionInfo``, with its checks), so an
initializer can draw the shard's part of the full variable."""


class PartitionInfo:
    """The full variable's shape and this shard's offset in it (sequences of ints)."""

    __slots__ = ["_full_shape", "_var_offset"]

    def __init__(self, full_shape, var_offset):
        if not isinstance(full_shape, (list, tuple)):
            raise TypeError("`full_shape` must be a sequence (like tuple or list) instead of "
                            + type(full_shape).__name__)
        if not isinstance(var_offset, (list, tuple)):
            raise TypeError("`var_offset` must be a sequence (like tuple or list) instead of "
                            + type(var_offset).__name__)
        if len(var_offset) != len(full_shape):
            raise ValueError(f"Expected equal length, but `var_offset` is of length {len(var_offset)} while "
                             f"full_shape is of length {len(full_shape)}.")
        for offset, shape in zip(var_offset, full_shape):
            if offset < 0 or offset >= shape:
                raise ValueError(f"Expected 0 <= offset < shape but found offset={offset}, shape={shape} for "
                                 f"var_offset={var_offset}, full_shape={full_shape}")
        self._full_shape = full_shape
        self._var_offset = var_offset

    @property
    def full_shape(self):
        return self._full_shape

    @property
    def var_offset(self):
        return self._var_offset

    def single_offset(self, shape):
        """The offset along the one partitioned dimension (0 when the variable is not partitioned)."""
        dim = self.single_slice_dim(shape)
        return 0 if dim is None else self.var_offset[dim]

    def single_slice_dim(self, shape):
        """The one dimension a shard of ``shape`` is cut along (None when it is the whole variable)."""
        if not isinstance(shape, (tuple, list)):
            raise TypeError("`shape` must be a sequence (like tuple or list) instead of " + type(shape).__name__)
        if len(shape) != len(self.full_shape):
            raise ValueError(f"Expected equal length, but received shape={shape} of length {len(shape)} while "
                             f"self.full_shape={self.full_shape} is of length {len(self.full_shape)}.")
        for i in range(len(shape)):
            if self.var_offset[i] + shape[i] > self.full_shape[i]:
                raise ValueError(f"With self.var_offset={self.var_offset}, a partition of shape={shape} would "
                                 f"exceed self.full_shape={self.full_shape} in dimension {i}.")
        slice_dim = None
        for i in range(len(shape)):
            if shape[i] == self.full_shape[i]:
                continue
            if slice_dim is not None:
                raise ValueError(f"Cannot use single_slice_dim() with shape={shape} and "
                                 f"self.full_shape={self.full_shape} since slice dim could be either "
                                 f"dimension {i} or {slice_dim}.")
            slice_dim = i
        return slice_dim
