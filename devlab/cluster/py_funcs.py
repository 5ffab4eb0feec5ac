"""Shipping a ``tf.py_func``'s Python function to the worker of the task it is placed on.

User code (a notebook cell, a script, a test module) is not importable on a worker, so its
functions travel *by value* (cloudpickle); functions of installed packages travel by reference.
"""
import sys

from ..api import script_ops


class ByValue:
    """A function that pickles by value when it is user code."""

    def __init__(self, func):
        self.func = func

    def __reduce__(self):
        import cloudpickle
        module = sys.modules.get(getattr(self.func, "__module__", None) or "")
        by_value = module is not None and module.__name__ != "__main__" and not _installed(module)
        if by_value:
            cloudpickle.register_pickle_by_value(module)
        try:
            return (_loads, (cloudpickle.dumps(self.func),))
        finally:
            if by_value:
                cloudpickle.unregister_pickle_by_value(module)


def _installed(module):
    path = getattr(module, "__file__", None) or ""
    top = module.__name__.split(".")[0]
    return "site-packages" in path or "dist-packages" in path or top == "devlab" or top in sys.builtin_module_names


def _loads(data):
    import cloudpickle
    return cloudpickle.loads(data)


def shipped(op):
    """The function of a PyFunc op, ready to travel."""
    return ByValue(script_ops.function_of(op))
