"""Letting pasted code run as pasted: ``import tensorflow`` gives devlab inside a block."""
import contextlib
import sys
import types


@contextlib.contextmanager
def tensorflow_is_devlab():
    """Inside the block, ``import tensorflow`` and ``tensorflow.compat.v1`` give devlab, and
    ``from tensorflow.python.client import device_lib`` (how scripts count GPUs) devlab's."""
    import devlab
    from devlab.runtime import device_lib
    names = ("tensorflow", "tensorflow.compat", "tensorflow.compat.v1", "tensorflow.python",
             "tensorflow.python.client", "tensorflow.python.client.device_lib")
    saved = {n: sys.modules.get(n) for n in names}
    compat = types.ModuleType("tensorflow.compat")
    compat.v1 = devlab
    python, client = types.ModuleType("tensorflow.python"), types.ModuleType("tensorflow.python.client")
    python.__path__, client.__path__ = [], []  # packages, so the dotted import finds them
    python.client, client.device_lib = client, device_lib
    sys.modules.update({"tensorflow": devlab, "tensorflow.compat": compat, "tensorflow.compat.v1": devlab,
                        "tensorflow.python": python, "tensorflow.python.client": client,
                        "tensorflow.python.client.device_lib": device_lib})
    try:
        yield
    finally:
        for n, m in saved.items():
            if m is None:
                sys.modules.pop(n, None)
            else:
                sys.modules[n] = m
