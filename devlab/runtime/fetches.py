"""Nested fetch structures: ``sess.run({"a": [x, y], "b": (z,)})`` returns the same shape."""


def flatten(fetches):
    """The leaves of ``fetches`` (lists, tuples, namedtuples and dicts), in order."""
    if isinstance(fetches, dict):
        return [leaf for k in fetches for leaf in flatten(fetches[k])]
    if isinstance(fetches, (list, tuple)):
        return [leaf for item in fetches for leaf in flatten(item)]
    return [fetches]


def pack(fetches, values):
    """``values`` (one per leaf) arranged like ``fetches``."""
    it = iter(values)

    def build(f):
        if isinstance(f, dict):
            return type(f)((k, build(v)) for k, v in f.items())
        if isinstance(f, tuple) and hasattr(f, "_fields"):
            return type(f)(*[build(x) for x in f])
        if isinstance(f, (list, tuple)):
            return type(f)(build(x) for x in f)
        return next(it)

    return build(fetches)
