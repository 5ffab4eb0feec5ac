"""numba, when installed (the ``fast`` extra): the one place devlab imports it, on first use by a
kernel with a compiled loop (pooling, relu, plain SGD's update, sparse rows), never at
``import devlab``. Each such kernel keeps its numpy path as the reference, taken when numba is
absent or ``DEVLAB_NUMBA=0`` (tests compare the two)."""
import os

ENABLED = os.environ.get("DEVLAB_NUMBA", "1") != "0"
_module = None  # numba once imported; False when it cannot be


def numba():
    """The numba module, or None when it is not installed."""
    global _module
    if _module is None:
        try:
            import numba as module
        except ImportError:
            module = False
        _module = module
    return _module or None


def compile(*functions):
    """``functions`` compiled by numba, or None where it is not installed. They release the
    interpreter lock (devlab's own threads run their parts; numba's threading layer is never used,
    so the cores keep one owner) and their machine code is cached on disk, so only the first
    process compiles them; where numba may write no cache, each process compiles them again."""
    module = numba()
    if module is None:
        return None
    try:
        return tuple(module.njit(cache=True, nogil=True)(f) for f in functions)
    except RuntimeError:  # no directory numba may write its cache to
        return tuple(module.njit(nogil=True)(f) for f in functions)
