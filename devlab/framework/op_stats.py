"""TF's per-op statistics registry (``ops.OpStats``, ``ops.RegisterStatistics``,
``ops.get_stats_for_node_def``): user code registers a function per (op type, statistic) that
reports, say, the FLOPs of a NodeDef; asking for one nobody registered gives an empty OpStats."""

_REGISTRY = {}  # "op_type,statistic_type" -> function(graph, node_def) -> OpStats


class OpStats:
    """A statistic of one op (``statistic_type``, e.g. "flops") and its value (None: unknown)."""

    __slots__ = ["statistic_type", "value"]

    def __init__(self, statistic_type, value=None):
        self.statistic_type = statistic_type
        self.value = value

    def __iadd__(self, other):
        """Adds ``other`` of the same type; an unknown value on either side leaves the other (TF's)."""
        if other.statistic_type != self.statistic_type:
            raise ValueError("Can't add an OpStat of type %s to one of %s." %
                             (self.statistic_type, other.statistic_type))
        if self.value is None:
            self.value = other.value
        elif other.value is not None:
            self.value += other.value
        return self


class RegisterStatistics:
    """A decorator registering a function as the ``statistic_type`` statistic of ``op_type`` ops."""

    def __init__(self, op_type, statistic_type):
        for what, value in (("op_type", op_type), ("statistic_type", statistic_type)):
            if not isinstance(value, str):
                raise TypeError(f"{what} must be a string.")
            if "," in value:
                raise TypeError(f"{what} must not contain a comma.")
        self._key = op_type + "," + statistic_type

    def __call__(self, f):
        if self._key in _REGISTRY:
            raise KeyError(f"Registering two statistical functions with name '{self._key}'!")
        _REGISTRY[self._key] = f
        return f


def get_stats_for_node_def(graph, node, statistic_type):
    """The registered ``statistic_type`` of ``node`` (a NodeDef) in ``graph``, else an empty OpStats."""
    stats_func = _REGISTRY.get(node.op + "," + statistic_type)
    return OpStats(statistic_type) if stats_func is None else stats_func(graph, node)
