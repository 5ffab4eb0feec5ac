"""numba, when installed (the ``fast`` extra): imported on first use by a kernel with a compiled
loop (``fast_rows.py``), never at ``import devlab``. The kernel keeps its numpy path as the
reference, taken when numba is absent or ``DEVLAB_NUMBA=0`` (tests compare the two)."""
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
