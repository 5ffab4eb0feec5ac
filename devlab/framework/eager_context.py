"""The part of TF's ``eager.context`` that graph-mode code uses: devlab always builds graphs, so
``graph_mode()`` (TF's switch into graph building) changes nothing here; ``eager_mode`` has no
counterpart and stays unimplemented."""
import contextlib


@contextlib.contextmanager
def graph_mode():
    """TF's ``context.graph_mode()``: build graphs inside (devlab never does anything else)."""
    yield
