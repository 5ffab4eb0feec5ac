"""TF's markers for values that are TensorFlow types without being a ``Tensor``.

``NativeObject`` marks TF's own (variables, sparse tensors, IndexedSlices): ``tf.is_tensor`` is
true of a ``Tensor`` or of one of these. ``CompositeTensor`` marks values made of several tensors
(``SparseTensor``, ``IndexedSlices``, a user's class): ``convert_to_tensor_or_composite`` passes
them through. A user's composite defines ``_type_spec`` (a ``TypeSpec``) and, as in TF, is not
a ``NativeObject``: ``tf.is_tensor`` is false of it.
"""


class NativeObject:
    """A TensorFlow type that is not a ``Tensor`` (TF's ``types.internal.NativeObject``)."""

    __slots__ = ()


class CompositeTensor:
    """A value made of tensors, described by its ``_type_spec`` (TF's ``CompositeTensor``)."""

    __slots__ = ()
