"""Static shapes: a list of dimensions, each a size or unknown; or an unknown rank.

devlab keeps the sizes as a tuple of ints and None (``shape.sizes``). What TF1 code sees is
TF1's: ``shape[i]``, iterating and ``shape.dims`` give ``Dimension`` objects (so
``shape[1].value`` works), ``as_list()`` gives ints.
"""
import functools

from .dimension import Dimension


class TensorShape:
    """The static shape TensorFlow infers at graph-construction time."""

    __slots__ = ("sizes",)

    def __init__(self, dims):
        if isinstance(dims, TensorShape):
            dims = dims.sizes
        if dims is None:
            self.sizes = None
        else:
            if not isinstance(dims, (tuple, list)):
                if hasattr(dims, "unknown_rank") and hasattr(dims, "dim"):  # a TensorShapeProto
                    self.sizes = None if dims.unknown_rank else tuple(
                        None if d.size == -1 else int(d.size) for d in dims.dim)
                    return
                try:
                    iter(dims)
                except TypeError:  # one dimension (an int, a Dimension): a shape of rank 1, as TF's
                    dims = (dims,)
            dims = dims if isinstance(dims, tuple) else tuple(dims)
            try:
                self.sizes = _canonical(dims)
            except TypeError:  # an unhashable dimension (a list, a Dimension): convert without the cache
                self.sizes = tuple(_dim(d) for d in dims)

    @property
    def dims(self):
        """TF1's list of ``Dimension``s (None for an unknown rank)."""
        return None if self.sizes is None else [Dimension(d) for d in self.sizes]

    @property
    def ndims(self):
        return None if self.sizes is None else len(self.sizes)

    rank = ndims

    def as_list(self):
        if self.sizes is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self.sizes)

    def is_fully_defined(self):
        return self.sizes is not None and all(d is not None for d in self.sizes)

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self.sizes:
            n *= d
        return n

    def is_compatible_with(self, other):
        other = as_shape(other)
        if self.sizes is None or other.sizes is None:
            return True
        return len(self.sizes) == len(other.sizes) and all(
            a is None or b is None or a == b for a, b in zip(self.sizes, other.sizes))

    def assert_is_compatible_with(self, other):
        """TF's ValueError when the shapes cannot describe the same tensor."""
        other = as_shape(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are incompatible")

    def is_subtype_of(self, other):
        """Whether every tensor of this shape also has shape ``other`` (``other`` is as or less specific)."""
        other = as_shape(other)
        if other.sizes is None:
            return True
        if self.sizes is None or len(self.sizes) != len(other.sizes):
            return False
        return all(b is None or a == b for a, b in zip(self.sizes, other.sizes))

    def merge_with(self, other):
        other = as_shape(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        if self.sizes is None:
            return other
        if other.sizes is None:
            return self
        return TensorShape([a if a is not None else b for a, b in zip(self.sizes, other.sizes)])

    def concatenate(self, other):
        """This shape's dims followed by ``other``'s (unknown if either rank is)."""
        other = as_shape(other)
        if self.sizes is None or other.sizes is None:
            return TensorShape(None)
        return TensorShape(self.sizes + other.sizes)

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def assert_is_fully_defined(self):
        """TF's ValueError unless every dimension is known."""
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def most_specific_compatible_shape(self, other):
        """The shape keeping the dimensions both shapes know and agree on (others unknown)."""
        other = as_shape(other)
        if self.sizes is None or other.sizes is None or len(self.sizes) != len(other.sizes):
            return unknown_shape()
        return TensorShape([a if a is not None and a == b else None for a, b in zip(self.sizes, other.sizes)])

    def most_specific_common_supertype(self, others):
        """The most specific shape every one of ``self`` and ``others`` is a subtype of (None if
        one of them is not a TensorShape)."""
        if any(not isinstance(other, TensorShape) for other in others):
            return None
        if self.sizes is None or any(o.sizes is None or len(o.sizes) != len(self.sizes) for o in others):
            return unknown_shape()
        return TensorShape([d if all(d == o.sizes[i] for o in others) else None for i, d in enumerate(self.sizes)])

    def __reduce__(self):
        return TensorShape, (self.dims,)

    def __bool__(self):
        """True when the rank is known (TF's: a known scalar shape is true too)."""
        return self.sizes is not None

    def assert_has_rank(self, rank):
        """TF's ValueError when the rank is known and is not ``rank``."""
        if self.sizes is not None and len(self.sizes) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

    def assert_same_rank(self, other):
        """TF's ValueError when both ranks are known and differ."""
        other = as_shape(other)
        if self.sizes is not None and other.sizes is not None and len(self.sizes) != len(other.sizes):
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def with_rank(self, rank):
        """This shape with rank ``rank`` (unknown dimensions where the rank was unknown), or TF's ValueError."""
        self.assert_has_rank(rank)
        return self if self.sizes is not None else TensorShape([None] * rank)

    def with_rank_at_least(self, rank):
        """This shape, or TF's ValueError when its rank is known and below ``rank``."""
        if self.sizes is not None and len(self.sizes) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank):
        """This shape, or TF's ValueError when its rank is known and above ``rank``."""
        if self.sizes is not None and len(self.sizes) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def as_proto(self):
        """This shape as TF's ``TensorShapeProto`` (unknown dims are -1; needs the ``graphs`` extra)."""
        from .tf_protos import pb
        proto = pb().TensorShapeProto()
        if self.sizes is None:
            proto.unknown_rank = True
        else:
            for d in self.sizes:
                proto.dim.add().size = -1 if d is None else d
        return proto

    def __len__(self):
        if self.sizes is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self.sizes)

    def __iter__(self):
        if self.sizes is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return (Dimension(d) for d in self.sizes)

    def __getitem__(self, key):
        """A ``Dimension`` for an index, a TensorShape for a slice (TF1's rules)."""
        if self.sizes is None:
            if isinstance(key, slice):
                return TensorShape(None)
            return Dimension(None)
        if isinstance(key, slice):
            return TensorShape(self.sizes[key])
        return Dimension(self.sizes[key])

    def __eq__(self, other):
        try:
            return self.sizes == as_shape(other).sizes
        except (TypeError, ValueError):
            return NotImplemented

    def __hash__(self):
        return hash(self.sizes)

    def __repr__(self):
        return "TensorShape(None)" if self.sizes is None else f"TensorShape({self.dims})"

    def __str__(self):
        if self.sizes is None:
            return "<unknown>"
        return "(" + ", ".join("?" if d is None else str(d) for d in self.sizes) + ("," if len(self.sizes) == 1 else "") + ")"


def _dim(d):
    """One dimension's size (None: unknown); TF's errors for anything else."""
    if d is None:
        return None
    return Dimension(d).value


@functools.lru_cache(maxsize=4096)
def _canonical(dims):
    """Dimensions as ints, None for unknown (memoised: a program uses a few shapes many times; an
    error is not cached, so each bad shape raises it)."""
    return tuple(_dim(d) for d in dims)


_SHARED = {}


def shared(dims):
    """The TensorShape of ``dims`` (a tuple or None), shared: shapes are never changed in place,
    and a graph has thousands of tensors of the same few shapes."""
    try:
        shape = _SHARED.get(dims)
    except TypeError:  # unhashable dims (a list): not shared
        return TensorShape(dims)
    if shape is None:
        shape = TensorShape(dims)
        if len(_SHARED) < 4096:
            _SHARED[dims] = shape
    return shape


def as_shape(shape):
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank=None, **kwargs):
    """A shape of unknown dimensions: of unknown rank, or of ``rank`` unknown dimensions."""
    if rank is None and "ndims" in kwargs:
        rank = kwargs.pop("ndims")
    if kwargs:
        raise TypeError(f"Unknown argument: {kwargs}")
    return TensorShape(None) if rank is None else TensorShape([None] * rank)


def as_dimension(value):
    """``value`` as a Dimension (a Dimension as it is)."""
    return value if isinstance(value, Dimension) else Dimension(value)
