"""The regularisation loss ``get_variable`` collects: a tensor-like object that builds its ops again
each time it is used (TF's ``_LazyEvalTensor``).

TF keeps, in REGULARIZATION_LOSSES, a thunk that builds the loss beside its variable, in
``<variable>/Regularizer/``. The first build (the *master*) answers ``name``, ``op``, ``dtype``,
``shape``... and is what a session fetches; every conversion to a tensor (``tf.add_n(losses)``,
``loss * 2``) calls the thunk again, so the graph gets ``L2Loss_1``, ``L2Loss_2``... and the
gradient flows through the copy that was used, as in TensorFlow.
"""


class LazyEvalTensor(object):
    """A tensor-like object whose ``thunk`` makes a new tensor each time it is used."""

    def __init__(self, thunk):
        self._thunk = thunk
        self._master_tensor = thunk()

    def _as_tensor(self, dtype=None, name=None, as_ref=False):
        """A new copy; ``name`` is not used (the thunk's own scope names it), and TF asserts that
        no reference and no other dtype is asked for (an AssertionError)."""
        if as_ref or (dtype is not None and dtype != self.dtype):
            raise AssertionError(f"a regularization loss converts to a {self.dtype.name} value only, "
                                 f"not {'a reference' if as_ref else dtype.name} (name={name!r})")
        return self._thunk()

    def __tf_tensor__(self, dtype=None, name=None):
        """``convert_to_tensor`` asks here: a fresh copy of the loss."""
        return self._as_tensor(dtype, name)

    def _as_graph_element(self):
        """What ``Session.run`` fetches: the first copy (TF's session-run conversion)."""
        return self._master_tensor


def _master_property(name):
    return property(lambda self: getattr(self._master_tensor, name))


def _master_method(name):
    def method(self, *args, **kwargs):
        return getattr(self._master_tensor, name)(*args, **kwargs)
    method.__name__ = name
    return method


def _copy_method(name):
    def method(self, *args, **kwargs):
        return getattr(self._as_tensor(), name)(*args, **kwargs)
    method.__name__ = name
    return method


# TF's lists: what the first copy answers, and what builds a new copy first.
for _name in ("device", "dtype", "graph", "name", "op", "shape", "value_index"):
    setattr(LazyEvalTensor, _name, _master_property(_name))
for _name in ("get_shape", "__str__", "shape_as_list"):
    setattr(LazyEvalTensor, _name, _master_method(_name))
for _name in ("__abs__", "__add__", "__and__", "__bool__", "__div__", "__eq__", "__floordiv__", "__ge__",
              "__getitem__", "__gt__", "__invert__", "__iter__", "__le__", "__len__", "__lt__", "__matmul__",
              "__mod__", "__mul__", "__ne__", "__neg__", "__nonzero__", "__or__", "__pow__", "__radd__", "__rand__",
              "__rdiv__", "__rfloordiv__", "__rmatmul__", "__rmod__", "__rmul__", "__ror__", "__rpow__", "__rsub__",
              "__rtruediv__", "__rxor__", "__sub__", "__truediv__", "__xor__", "eval", "numpy"):
    setattr(LazyEvalTensor, _name, _copy_method(_name))
# A TF1 graph tensor compares by identity: the fresh copy is never the other operand.
LazyEvalTensor.__eq__ = lambda self, other: self._as_tensor() is other
LazyEvalTensor.__ne__ = lambda self, other: self._as_tensor() is not other
LazyEvalTensor.__hash__ = object.__hash__  # __eq__ is set above; a class that sets __eq__ in its body loses its hash
