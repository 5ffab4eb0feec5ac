"""Where the code being built runs: in a tower (``TowerContext``: its id and device), in the
cross-tower context of a strategy's ``scope()``, or in the default tower. One stack per thread,
since each tower's function runs in its own thread (``mirrored.py``)."""
import threading

_state = threading.local()


def context_stack():
    """This thread's stack of contexts, innermost last."""
    if not hasattr(_state, "contexts"):
        _state.contexts = []
    return _state.contexts


def get_tower_context():
    """The current TowerContext; None in the cross-tower context (inside ``scope()``)."""
    ctx = context_stack()[-1] if context_stack() else None
    if isinstance(ctx, TowerContext):
        return ctx
    if ctx is None:
        return TowerContext(None, 0, None)  # the default tower, outside any strategy
    return None


def get_cross_tower_context():
    ctx = context_stack()[-1] if context_stack() else None
    return ctx.strategy if isinstance(ctx, CrossTowerContext) else None


def current_device():
    ctx = context_stack()[-1] if context_stack() else None
    return ctx.device if isinstance(ctx, TowerContext) else None


class CrossTowerContext:
    def __init__(self, strategy):
        self.strategy = strategy


class TowerContext:
    """What ``fn`` sees inside ``call_for_each_tower``: its tower id, device and ``merge_call``."""

    def __init__(self, strategy, tower_id, device_name, thread=None):
        self.strategy = strategy
        self.tower_id = tower_id
        self.device = device_name
        self._thread = thread

    @property
    def num_towers(self):
        return self.strategy.num_towers if self.strategy else 1

    def merge_call(self, merge_fn, *args, **kwargs):
        """Runs ``merge_fn(strategy, *args)`` once for all towers, args gathered as PerDevice."""
        if self._thread is None:
            return merge_fn(self.strategy, *args, **kwargs)
        return self._thread.merge(merge_fn, args, kwargs)
