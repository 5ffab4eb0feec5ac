"""``ExponentialMovingAverage`` and ``assign_moving_average``.

Each shadow variable (``<var>/ExponentialMovingAverage``) is created under
``colocate_with(var)``, and its update (an AssignSub, which takes the shadow by reference) is
colocated with the shadow: the average lives and is written on the device of the variable it
tracks. This is seed 000's answer to "what is colocate_with used for?". TensorFlow initialises
a shadow from ``var.initialized_value()`` (a ``cond`` on IsVariableInitialized); devlab uses the
variable's initial value directly, so those cond ops are not in the graph.
"""
from ..framework.graph_keys import GraphKeys
from ..framework.graph import get_default_graph
from ..framework.scopes import name_scope
from ..ops import math_ops, state_ops
from ..ops.build import convert_to_tensor
from ..ops.control_flow_ops import group
from ..ops.variables import Variable, trainable_variables
from . import slots


def assign_moving_average(variable, value, decay, zero_debias=False, name=None):
    """variable -= (1 - decay) * (variable - value).

    As in TF 2.x, only the AssignSub is colocated with ``variable`` (it takes it by reference);
    TF 1.x also built the arithmetic under ``colocate_with(variable)``.
    """
    with name_scope(name, "AssignMovingAvg", [variable, value, decay]) as scope:
        decay = 1.0 - convert_to_tensor(decay, name="decay")
        delta = (variable - value) * decay
        return state_ops.assign_sub(variable, delta, name=scope)


class ExponentialMovingAverage:
    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._name = name
        self._averages = {}

    @property
    def name(self):
        return self._name

    def apply(self, var_list=None):
        """Creates the shadow variables (once) and returns one op updating all of them."""
        var_list = list(var_list) if var_list is not None else trainable_variables()
        for var in var_list:
            if var in self._averages:
                continue
            if isinstance(var, Variable):
                avg = slots.create_slot(var, var.initial_value, self._name, colocate_with_primary=True)
            else:
                colocate = var.op.type in ("Variable", "VariableV2", "VarHandleOp")
                avg = slots.create_zeros_slot(var, self._name, colocate_with_primary=colocate)
            get_default_graph().add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
            self._averages[var] = avg
        with name_scope(self._name) as scope:
            decay = convert_to_tensor(self._decay, name="decay")
            if self._num_updates is not None:
                n = math_ops.cast(convert_to_tensor(self._num_updates), decay.dtype)
                decay = math_ops.minimum(decay, math_ops.truediv(1.0 + n, 10.0 + n))
            updates = [assign_moving_average(self._averages[v], v, decay) for v in var_list]
            return group(*updates, name=scope)

    def average(self, var):
        return self._averages.get(var)

    def average_name(self, var):
        return f"{var.op.name}/{self._name}"

    def variables_to_restore(self, moving_avg_variables=None):
        return {self.average_name(v): v for v in (moving_avg_variables or self._averages)}
