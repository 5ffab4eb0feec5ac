"""Stand-ins for the TensorFlow names devlab does not have, so a test file still imports.

A TF test file imports dozens of internal modules at its top; one name devlab lacks must not
fail the file's other methods. A missing name becomes a ``Missing`` class: reading attributes
off it gives more of them (``def_function.function``), subclassing it works, and while the file
is being imported a call returns another stand-in (decorators such as
``@ops.RegisterGradient("X")`` run at import). Inside a test method any call raises
``NotImplementedError`` naming the TF name, so a test that needs it fails, never passes by accident.
"""
import threading

_state = threading.local()


def importing():
    """True while the harness executes a test file's top level (set by ``importing_file``)."""
    return getattr(_state, "importing", False)


class importing_file:
    """Context manager: calls of missing names are lazy while a test file is imported."""

    def __enter__(self):
        _state.importing = True

    def __exit__(self, *exc):
        _state.importing = False


class _MissingMeta(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return missing(f"{cls._tf_name}.{name}")

    def __call__(cls, *args, **kwargs):
        if importing():
            return missing(f"{cls._tf_name}(...)")
        raise NotImplementedError(f"devlab does not implement {cls._tf_name}")

    def __iter__(cls):
        if importing():
            return iter((missing(f"{cls._tf_name}[0]"),))  # one element: the tests it makes fail
        raise NotImplementedError(f"devlab does not implement {cls._tf_name}")

    def __repr__(cls):
        return f"<missing {cls._tf_name}>"

    def __bool__(cls):
        if importing():
            return False
        raise NotImplementedError(f"devlab does not implement {cls._tf_name}")


def missing(tf_name):
    """A stand-in class for the TensorFlow name ``tf_name`` (``tensorflow.python.eager.context.X``)."""
    return _MissingMeta(tf_name.rsplit(".", 1)[-1], (), {"_tf_name": tf_name})


def is_missing(value):
    return isinstance(value, _MissingMeta)
