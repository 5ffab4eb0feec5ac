"""Static shapes: a list of dimensions, each an int or None (unknown); or an unknown rank."""
import functools


class TensorShape:
    """The static shape TensorFlow infers at graph-construction time."""

    __slots__ = ("dims",)

    def __init__(self, dims):
        if isinstance(dims, TensorShape):
            dims = dims.dims
        if dims is None:
            self.dims = None
        else:
            dims = dims if isinstance(dims, tuple) else tuple(dims)
            try:
                self.dims = _canonical(dims)
            except TypeError:  # an unhashable dimension (e.g. a list): convert without the cache
                self.dims = tuple(_dim(d) for d in dims)

    @property
    def ndims(self):
        return None if self.dims is None else len(self.dims)

    rank = ndims

    def as_list(self):
        if self.dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self.dims)

    def is_fully_defined(self):
        return self.dims is not None and all(d is not None for d in self.dims)

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self.dims:
            n *= d
        return n

    def is_compatible_with(self, other):
        other = as_shape(other)
        if self.dims is None or other.dims is None:
            return True
        return len(self.dims) == len(other.dims) and all(
            a is None or b is None or a == b for a, b in zip(self.dims, other.dims))

    def merge_with(self, other):
        other = as_shape(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        if self.dims is None:
            return other
        if other.dims is None:
            return self
        return TensorShape([a if a is not None else b for a, b in zip(self.dims, other.dims)])

    def __len__(self):
        if self.dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self.dims)

    def __iter__(self):
        if self.dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self.dims)

    def __getitem__(self, i):
        return self.dims[i]

    def __eq__(self, other):
        try:
            return self.dims == as_shape(other).dims
        except (TypeError, ValueError):
            return NotImplemented

    def __hash__(self):
        return hash(self.dims)

    def __repr__(self):
        return "TensorShape(None)" if self.dims is None else f"TensorShape({list(self.dims)})"

    def __str__(self):
        if self.dims is None:
            return "<unknown>"
        return "(" + ", ".join("?" if d is None else str(d) for d in self.dims) + ("," if len(self.dims) == 1 else "") + ")"


def _dim(d):
    return None if d is None or d == -1 else int(d)


@functools.lru_cache(maxsize=4096)
def _canonical(dims):
    """Dimensions as ints, None for unknown (memoised: a program uses a few shapes many times)."""
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


def unknown_shape():
    return TensorShape(None)
