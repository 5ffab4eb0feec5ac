"""How a distributed variable is synchronized and aggregated: TF's two enums and their check.

Every variable records both (``v.synchronization``, ``v.aggregation``), even outside a
distribution strategy, and saves them in its ``VariableDef``. One rule reaches ordinary graphs:
a variable synchronized ``ON_READ`` is not trainable unless ``trainable=True`` is given.
"""
import enum


class VariableSynchronization(enum.Enum):
    """When a distributed variable is synced: AUTO (the strategy decides), NONE, ON_WRITE, ON_READ."""
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregationV2(enum.Enum):
    """How the replicas' updates of a distributed variable are combined (``tf.VariableAggregation`` in TF2)."""
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3

    def __hash__(self):
        return hash(self.value)

    def __eq__(self, other):
        # equal to TF1's enum member of the same value (that enum has no __eq__, so ``v1 == v2`` lands here too)
        if self is other:
            return True
        return isinstance(other, VariableAggregation) and int(self.value) == int(other.value)


class VariableAggregation(enum.Enum):
    """TF1's ``tf.VariableAggregation``: V2's members and the deprecated ``ONLY_FIRST_TOWER`` alias."""
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3
    ONLY_FIRST_TOWER = 3  # deprecated alias of ONLY_FIRST_REPLICA

    def __hash__(self):
        return hash(self.value)


def validate_synchronization_aggregation_trainable(synchronization, aggregation, trainable, name):
    """``(synchronization, aggregation, trainable)`` with TF's defaults filled in (AUTO, NONE, and
    trainable unless ON_READ), each checked: an unknown mode is TF's ValueError naming the variable."""
    if aggregation is None:
        aggregation = VariableAggregation.NONE
    elif not isinstance(aggregation, (VariableAggregation, VariableAggregationV2)):
        try:
            aggregation = VariableAggregationV2(aggregation)
        except ValueError:
            raise ValueError(f"Invalid variable aggregation mode: {aggregation} for variable: {name}") from None
    if synchronization is None:
        synchronization = VariableSynchronization.AUTO
    else:
        try:
            synchronization = VariableSynchronization(synchronization)
        except ValueError:
            raise ValueError(f"Invalid variable synchronization mode: {synchronization} for variable: {name}") from None
    if trainable is None:
        trainable = synchronization != VariableSynchronization.ON_READ
    return synchronization, aggregation, trainable
