"""Letting pasted code run as pasted: ``import tensorflow`` gives devlab inside a block."""
import contextlib
import sys
import types


@contextlib.contextmanager
def tensorflow_is_devlab():
    """Inside the block, ``import tensorflow`` and ``tensorflow.compat.v1`` give devlab."""
    import devlab
    names = ("tensorflow", "tensorflow.compat", "tensorflow.compat.v1")
    saved = {n: sys.modules.get(n) for n in names}
    compat = types.ModuleType("tensorflow.compat")
    compat.v1 = devlab
    sys.modules.update({"tensorflow": devlab, "tensorflow.compat": compat, "tensorflow.compat.v1": devlab})
    try:
        yield
    finally:
        for n, m in saved.items():
            if m is None:
                sys.modules.pop(n, None)
            else:
                sys.modules[n] = m
