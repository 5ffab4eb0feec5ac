"""``ExponentialMovingAverage``, ``assign_moving_average`` and ``weighted_moving_average``.

Each shadow variable (``<var>/ExponentialMovingAverage``) is a slot created under
``colocate_with(var)``, and its update (an AssignSub, which takes the shadow by reference) is
colocated with the shadow: the average lives and is written on the device of the variable it
tracks. This is seed 000's answer to "what is colocate_with used for?". As in TF 2.x, only the
ops that take the shadow by reference are colocated with it; TF 1.x also built the arithmetic
under ``colocate_with(variable)``.

With ``zero_debias`` (the default of ``assign_moving_average``; ``ExponentialMovingAverage``
uses it for the averages of plain tensors) the average is kept biased in ``<var>/biased`` and
divided by ``1 - decay ** <var>/local_step``, as in Adam. TensorFlow initialises a variable's
shadow from ``cond(is_variable_initialized(var), var.read_value, lambda: var.initial_value)``;
devlab has no ``cond`` and uses the initial value, so those cond ops are not in the graph.
"""
from ..framework import dtypes
from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from ..framework.scopes import colocate_with, device, init_scope, name_scope
from ..api import init_ops, math_ops, state_ops
from ..api.array_ops import cast
from ..ops.build import convert_to_tensor
from ..api.control_flow import cond
from ..api.control_flow_ops import group
from ..api.state_ops import is_variable_initialized
from ..api.variable_scope import get_variable, get_variable_scope, variable_scope
from ..api.variables import Variable, global_variables, moving_average_variables, trainable_variables
from . import slots


def assign_moving_average(variable, value, decay, zero_debias=True, name=None):
    """variable -= (1 - decay) * (variable - value); with ``zero_debias``, the debiased update."""
    with name_scope(name, "AssignMovingAvg", [variable, value, decay]) as scope:
        decay = convert_to_tensor(1.0 - decay, name="decay")
        if decay.dtype.base_dtype != variable.dtype.base_dtype:
            decay = cast(decay, variable.dtype.base_dtype)
        if zero_debias:
            return _zero_debias(variable, value, decay)
        return state_ops.assign_sub(variable, (variable - value) * decay, name=scope)


def weighted_moving_average(value, decay, weight, truediv=True, collections=None, name=None):
    """The moving average of ``value * weight`` divided by the moving average of ``weight``."""
    if collections is None:
        collections = [GraphKeys.GLOBAL_VARIABLES]
    with variable_scope(name, "WeightedMovingAvg", [value, weight, decay]) as scope:
        value_x_weight_var = get_variable("value_x_weight", shape=value.get_shape(), dtype=value.dtype,
                                          initializer=init_ops.zeros_initializer(), trainable=False,
                                          collections=collections)
        weight_var = get_variable("weight", shape=weight.get_shape(), dtype=weight.dtype,
                                  initializer=init_ops.zeros_initializer(), trainable=False, collections=collections)
        numerator = assign_moving_average(value_x_weight_var, value * weight, decay, zero_debias=False)
        denominator = assign_moving_average(weight_var, weight, decay, zero_debias=False)
        if truediv:
            return math_ops.truediv(numerator, denominator, name=scope.name)
        return math_ops.divide(numerator, denominator, name=scope.name)


def _zero_debias(unbiased_var, value, decay):
    """The debiased update (TF's ``_zero_debias``): ``biased`` and ``local_step`` variables in a
    variable scope named after ``unbiased_var``, colocated with it, made unique per call."""
    with variable_scope(unbiased_var.name[:-len(":0")], values=[unbiased_var, value, decay]):

        def _maybe_get_unique(name):
            scope = get_variable_scope()
            if scope.reuse:
                return name
            vs_vars = [x.op.name for x in scope.global_variables()]
            full_name = scope.name + "/" + name
            if full_name not in vs_vars:
                return name
            idx = 1
            while full_name + f"_{idx}" in vs_vars:
                idx += 1
            return name + f"_{idx}"

        with colocate_with(unbiased_var):
            biased_var = get_variable(_maybe_get_unique("biased"), initializer=init_ops.zeros_initializer(),
                                      shape=unbiased_var.get_shape(), dtype=unbiased_var.dtype, trainable=False)
            local_step = get_variable(_maybe_get_unique("local_step"), shape=[], dtype=unbiased_var.dtype,
                                      initializer=init_ops.zeros_initializer(), trainable=False)
    update_biased = state_ops.assign_sub(biased_var, (biased_var - value) * decay)
    update_local_step = local_step.assign_add(1)
    bias_factor = 1 - math_ops.pow(1.0 - decay, update_local_step)
    return state_ops.assign(unbiased_var, update_biased / bias_factor,
                            name=get_default_graph().get_name_scope() + "/")


class ExponentialMovingAverage:
    """Shadow copies of variables (or tensors), each updated to ``decay * shadow + (1 - decay) * value``."""

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages = {}

    @property
    def name(self):
        return self._name

    def apply(self, var_list=None):
        """Creates the shadow variables (once) and returns one op updating all of them."""
        var_list = list(var_list) if var_list is not None else trainable_variables()
        zero_debias_true = set()  # the averages of tensors created by this call, when zero_debias
        for var in var_list:
            if var.dtype.base_dtype not in (dtypes.float16, dtypes.float32, dtypes.float64):
                raise TypeError(f"The variables must be half, float, or double: {var.name}")
            if var in self._averages:
                continue
            with init_scope():
                if isinstance(var, Variable):
                    with device(var.device):  # TF: the variable's value if set, else its initial value
                        initialized_value = cond(is_variable_initialized(var), var.read_value,
                                                 lambda v=var: v.initial_value)
                    avg = slots.create_slot(var, initialized_value, self._name, colocate_with_primary=True)
                    get_default_graph().add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
                else:
                    colocate = var.op.type in ("Variable", "VariableV2", "VarHandleOp")
                    avg = slots.create_zeros_slot(var, self._name, colocate_with_primary=colocate)
                    if self._zero_debias:
                        zero_debias_true.add(avg)
            self._averages[var] = avg
        with name_scope(self._name) as scope:
            decay = convert_to_tensor(self._decay, dtype=dtypes.float32, name="decay")
            if self._num_updates is not None:
                num_updates = cast(self._num_updates, dtypes.float32, name="num_updates")
                decay = math_ops.minimum(decay, (1.0 + num_updates) / (10.0 + num_updates))
            updates = [assign_moving_average(self._averages[var], var, decay,
                                             zero_debias=self._averages[var] in zero_debias_true)
                       for var in var_list]
            return group(*updates, name=scope)

    def average(self, var):
        return self._averages.get(var)

    def average_name(self, var):
        """The name of ``var``'s average: its op name once made, else what it would be here."""
        if var in self._averages:
            return self._averages[var].name[:-len(":0")]
        return get_default_graph().unique_name(var.name[:-len(":0")] + "/" + self._name, mark_as_used=False)

    def variables_to_restore(self, moving_avg_variables=None):
        """{checkpoint name: variable}: each averaged variable restored from its average's name,
        every other global variable from its own."""
        name_map = {}
        if moving_avg_variables is None:
            moving_avg_variables = trainable_variables() + moving_average_variables()
        moving_avg_variables = list(dict.fromkeys(moving_avg_variables))
        for v in moving_avg_variables:
            name_map[self.average_name(v)] = v
        names = {v.name for v in moving_avg_variables}
        for v in global_variables():
            if v.name not in names and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map
