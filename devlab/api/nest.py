"""Nested structures of values (TF's ``tensorflow.python.util.nest``): lists, tuples, namedtuples
and dicts (taken in sorted key order) hold leaves; ``flatten`` lists the leaves,
``pack_sequence_as`` puts a flat list back into a structure's shape, and ``assert_same_structure``
says, in TF's words, where two structures part.

With ``expand_composites=True`` an ``IndexedSlices`` is the sequence of its components
``(values, indices[, dense_shape])`` and a ``SparseTensor`` of ``(indices, values, dense_shape)``:
that is how ``tf.cond``, ``tf.while_loop`` and the other control-flow ops carry them, one
Switch/Merge/Enter per component.
"""
import collections.abc

from ..framework.indexed_slices import IndexedSlices
from ..ops.sparse_tensor import SparseTensor


def is_composite(value):
    return isinstance(value, (IndexedSlices, SparseTensor))


def components(value):
    """The tensors a composite is made of, in TF's order (its type spec's components)."""
    if isinstance(value, IndexedSlices):
        return [value.values, value.indices] + ([value.dense_shape] if value.dense_shape is not None else [])
    return [value.indices, value.values, value.dense_shape]


def from_components(like, parts):
    """A composite of ``like``'s type made of ``parts`` (as ``components`` lists them)."""
    if isinstance(like, IndexedSlices):
        return IndexedSlices(*parts)
    return SparseTensor(*parts)


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def is_nested(structure):
    """A list, tuple or mapping: something ``flatten`` looks into (a string is a leaf)."""
    return isinstance(structure, (list, tuple, collections.abc.Mapping))


def _is_sequence(x, expand_composites):
    return is_nested(x) or (expand_composites and is_composite(x))


def _children(x, expand_composites):
    if isinstance(x, collections.abc.Mapping):
        return [x[k] for k in sorted(x)]
    if isinstance(x, (list, tuple)):
        return list(x)
    return components(x)


def flatten(structure, expand_composites=False):
    """The leaves of ``structure``, depth first (``[structure]`` for a leaf, ``None`` included)."""
    if not _is_sequence(structure, expand_composites):
        return [structure]
    return [leaf for child in _children(structure, expand_composites) for leaf in flatten(child, expand_composites)]


def _rebuild(like, children):
    if isinstance(like, collections.abc.Mapping):
        keys = sorted(like)
        return type(like)((k, v) for k, v in zip(keys, children))
    if _is_namedtuple(like):
        return type(like)(*children)
    if isinstance(like, (list, tuple)):
        return type(like)(children)
    return from_components(like, children)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """``flat_sequence`` in the shape of ``structure``."""
    flat_sequence = list(flat_sequence)
    if not _is_sequence(structure, expand_composites):
        if len(flat_sequence) != 1:
            raise ValueError(f"The target structure is of type `{type(structure)}`\n  {structure}\nHowever the "
                             f"input is a sequence ({type(flat_sequence)}) of length {len(flat_sequence)}.\n  "
                             f"{flat_sequence}\nnest cannot guarantee that it is safe to map one to the other.")
        return flat_sequence[0]
    count = len(flatten(structure, expand_composites))
    if count != len(flat_sequence):
        raise ValueError(f"Could not pack sequence. Structure had {count} atoms, but flat_sequence had "
                         f"{len(flat_sequence)} items.  Structure: {structure}, flat_sequence: {flat_sequence}.")
    it = iter(flat_sequence)

    def build(s):
        if not _is_sequence(s, expand_composites):
            return next(it)
        return _rebuild(s, [build(c) for c in _children(s, expand_composites)])
    return build(structure)


def _describe(x):
    return f"type={type(x).__name__} str={x}"


def _dots(x, expand_composites):
    """The structure with each leaf drawn as a dot, as TF's messages draw it."""
    if not _is_sequence(x, expand_composites):
        return "."
    parts = [_dots(c, expand_composites) for c in _children(x, expand_composites)]
    if isinstance(x, collections.abc.Mapping):
        return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(sorted(x), parts)) + "}"
    if _is_namedtuple(x):
        return f"{type(x).__name__}(" + ", ".join(f"{f}={p}" for f, p in zip(x._fields, parts)) + ")"
    if isinstance(x, list):
        return "[" + ", ".join(parts) + "]"
    if isinstance(x, tuple):
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    return f"{type(x).__name__}(" + ", ".join(parts) + ")"


def _difference(a, b, check_types, expand_composites):
    """(error class, words) for the first place ``a`` and ``b`` differ, or None."""
    a_seq, b_seq = _is_sequence(a, expand_composites), _is_sequence(b, expand_composites)
    if a_seq != b_seq:
        seq, other = (a, b) if a_seq else (b, a)
        return ValueError, f'Substructure "{_describe(seq)}" is a sequence, while substructure "{_describe(other)}" is not'
    if not a_seq:
        return None
    if check_types and type(a) is not type(b) and not (isinstance(a, dict) and isinstance(b, dict)):
        return TypeError, (f"The two namedtuples don't have the same sequence type. First structure "
                           f"{_describe(a)} has type {type(a).__name__}, while second structure {_describe(b)} has "
                           f"type {type(b).__name__}")
    if isinstance(a, collections.abc.Mapping) and isinstance(b, collections.abc.Mapping) and set(a) != set(b):
        return ValueError, (f"The two dictionaries don't have the same set of keys. First structure has keys "
                            f"{_describe(sorted(a))}, while second structure has keys {_describe(sorted(b))}")
    ca, cb = _children(a, expand_composites), _children(b, expand_composites)
    if len(ca) != len(cb):
        return ValueError, (f"The two structures don't have the same number of elements. First structure: "
                            f"{_describe(a)}. Second structure: {_describe(b)}")
    for x, y in zip(ca, cb):
        found = _difference(x, y, check_types, expand_composites)
        if found is not None:
            return found
    return None


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raises ValueError (TypeError for differing sequence types) when the structures differ."""
    found = _difference(nest1, nest2, check_types, expand_composites)
    if found is not None:
        error, detail = found
        raise error(f"The two structures don't have the same nested structure.\n\nFirst structure: "
                    f"{_describe(nest1)}\n\nSecond structure: {_describe(nest2)}\n\nMore specifically: {detail}\n"
                    f"Entire first structure:\n{_dots(nest1, expand_composites)}\nEntire second structure:\n"
                    f"{_dots(nest2, expand_composites)}")


def map_structure(func, *structure, check_types=True, expand_composites=False):
    """``func`` applied to the leaves at each place of the structures, in the first one's shape."""
    if not structure:
        raise ValueError("Must provide at least one structure")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types, expand_composites=expand_composites)
    flat = [flatten(s, expand_composites) for s in structure]
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flat)], expand_composites)
