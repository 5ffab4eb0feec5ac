"""TF's ``tf_inspect`` (``tensorflow.python.util.tf_inspect``), which TF1 libraries import to read
a function's arguments: Python's ``inspect`` seen through decorators (``__wrapped__``), with the
``getargspec`` Python 3.11 no longer has."""
import collections
import functools
import inspect

ArgSpec = collections.namedtuple("ArgSpec", ["args", "varargs", "keywords", "defaults"])
FullArgSpec = inspect.FullArgSpec
isclass, isfunction, ismethod, ismodule, isroutine = (inspect.isclass, inspect.isfunction, inspect.ismethod,
                                                      inspect.ismodule, inspect.isroutine)


def getfullargspec(obj):
    """The FullArgSpec of ``obj``, or of the function a decorator wraps."""
    return inspect.getfullargspec(inspect.unwrap(obj))


def getargspec(obj):
    """``(args, varargs, keywords, defaults)`` of ``obj``, as TF's: keyword-only arguments follow
    the others in ``args`` (their defaults after theirs); a partial's bound arguments are left out."""
    if isinstance(obj, functools.partial):
        params = inspect.signature(obj).parameters.values()
        args = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        varargs = next((p.name for p in params if p.kind is p.VAR_POSITIONAL), None)
        keywords = next((p.name for p in params if p.kind is p.VAR_KEYWORD), None)
        defaults = tuple(p.default for p in params if p.default is not p.empty and p.name in args) or None
        return ArgSpec(args, varargs, keywords, defaults)
    spec = getfullargspec(obj)
    defaults = tuple(spec.defaults or ()) + tuple((spec.kwonlydefaults or {}).values())
    return ArgSpec(spec.args + spec.kwonlyargs, spec.varargs, spec.varkw, defaults or None)


def signature(obj, *, follow_wrapped=True):
    return inspect.signature(obj, follow_wrapped=follow_wrapped)
