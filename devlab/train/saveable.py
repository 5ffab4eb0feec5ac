"""``SaveSpec`` and ``SaveableObject``: how a Saver checkpoints state that is not a variable.

An object a Saver cannot read as a variable (a lookup table, say) describes itself as a
``SaveableObject``: the tensors to save, each a ``SaveSpec`` with its checkpoint entry's name,
and ``restore(restored_tensors, restored_shapes)``, which builds the op that puts restored values
back. A Saver takes them beside variables (in ``var_list``, or from the graph's
``SAVEABLE_OBJECTS`` collection), as TF's ``BaseSaverBuilder.SaveableObject`` and ``SaveSpec``.
"""


class SaveSpec:
    """One tensor to save (or a function making it) under the entry ``name``, with its slice spec."""

    def __init__(self, tensor, slice_spec, name, dtype=None, device=None):
        self._tensor = tensor
        self.slice_spec = slice_spec
        self.name = name
        if callable(tensor):
            if dtype is None or device is None:
                raise AssertionError("When passing a callable `tensor` to a SaveSpec, an explicit dtype and device "
                                     "must be provided.")
            self.dtype, self.device = dtype, device
        else:
            self.dtype = tensor.dtype
            self.device = device if device is not None else tensor.device

    @property
    def tensor(self):
        return self._tensor() if callable(self._tensor) else self._tensor


class SaveableObject:
    """What ``op`` saves: its ``specs``, under the name ``name``; subclasses define ``restore``."""

    def __init__(self, op, specs, name):
        self.op = op
        self.specs = specs
        self.name = name

    @property
    def device(self):
        """The device of its tensors (the Saver groups by it when sharded)."""
        return self.specs[0].device

    def restore(self, restored_tensors, restored_shapes):
        """The op that restores the object from ``restored_tensors`` (one per spec)."""
        raise ValueError("Calling an abstract method.")
