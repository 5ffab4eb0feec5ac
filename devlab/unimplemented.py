"""One clear line for the TensorFlow APIs devlab does not have yet.

Each namespace (``tf``, ``tf.nn``, ``tf.train``...) ends in a module ``__getattr__`` built here,
so ``tf.nn.ctc_loss`` raises ``AttributeError: devlab does not implement
tf.nn.ctc_loss yet (used at cell.py:3)`` naming the full ``tf.X`` name and the user's line,
instead of a traceback through devlab's internals. Reached through an installed library that
wraps TF, it names the user's line and the library's: ``(used at train.py:12, through
.../site-packages/tf_slim/layers.py:88)``. An accepted argument devlab does not implement raises
``NotImplementedError`` the same way (``argument``/``reject``): never silently ignored.
"""
import types

from .framework.traceable import user_and_library_locations


def _where():
    """`` (used at cell.py:3)``: the user's line, and the wrapping library's line when one called."""
    (filename, lineno), library = user_and_library_locations()
    if not lineno:
        return ""
    through = f", through {library[0]}:{library[1]}" if library else ""
    return f" (used at {filename}:{lineno}{through})"


def missing(path):
    """The AttributeError for the API ``path`` (``tf.nn.foo``), naming the line that asked for it."""
    return AttributeError(f"devlab does not implement {path} yet{_where()}")


def argument(name, api):
    """The NotImplementedError for an argument devlab accepts in ``api``'s signature (so code
    written for TF reads as TF's) but does not implement: raised rather than silently ignored."""
    return NotImplementedError(f"devlab does not implement the `{name}` argument of {api} yet{_where()}")


def call(api, **given):
    """The NotImplementedError for a call of ``api`` (a method devlab has but does not implement);
    ``given`` are its arguments, named for the reader."""
    return NotImplementedError(f"devlab does not implement {api} yet{_where()}")


def reject(api, **given):
    """Raises ``argument`` for the first of ``given`` (argument name -> (value, default)) whose
    value is not its default: ``reject("tf.layers.dense", kernel_constraint=(c, None))``."""
    __tracebackhide__ = True  # noqa: F841
    for name, (value, default) in given.items():
        if not _is_default(value, default):
            raise argument(name, api)


def _is_default(value, default):
    if value is default:
        return True  # None, and any object default
    return isinstance(default, (bool, int, float, str)) and type(value) is type(default) and value == default


def module_getattr(path, module_name):
    """A module-level ``__getattr__`` for the namespace ``path`` (``tf.nn``) of ``module_name``.
    Private and dunder names (what tools probe for) get Python's usual message."""
    def __getattr__(name):
        __tracebackhide__ = True  # noqa: F841 - IPython and pytest hide this frame
        if name.startswith("_"):
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        raise missing(f"{path}.{name}")
    return __getattr__


class Namespace(types.SimpleNamespace):
    """A namespace object (``tf.contrib``, ``tf.app``) whose missing names raise ``missing``."""

    def __init__(self, path, **names):
        super().__init__(**names)
        object.__setattr__(self, "_path", path)

    def __getattr__(self, name):
        __tracebackhide__ = True  # noqa: F841
        if name.startswith("_"):
            raise AttributeError(name)
        raise missing(f"{self._path}.{name}")
