"""The adaptive optimizers of ``tf.train``: RMSProp, Adagrad, Adadelta, Ftrl and the proximal ones,
built as TF 2.21's ``training/rmsprop.py``, ``adagrad.py``, ``adadelta.py``, ``ftrl.py``,
``proximal_adagrad.py`` and ``proximal_gradient_descent.py`` build them.

Each keeps per-variable slots, made beside their variable (``colocate_with``) and named as TF
names them: the slot variable is ``<var>/<optimizer name>``, then ``_1``, ``_2`` in the order the
slots are made (RMSProp's ``rms`` is ``w/RMSProp``, its ``momentum`` ``w/RMSProp_1``). The
hyper-parameters become Consts in the optimizer's name scope (``RMSProp/decay``), and one
``Apply<Name>`` op per variable, colocated with it, does the update (``optimizer_kernels.py``);
a sparse gradient (``IndexedSlices``, from an embedding lookup) gets the same op's
``SparseApply<Name>`` twin, which updates only the rows it lists. So on a parameter server all
of an optimizer's state and work sits with the variables.
"""
from ..framework import dtypes
from ..framework.scopes import colocate_with
from ..api import array_ops, init_ops, math_ops
from ..ops.build import convert_to_tensor
from . import slots
from .optimizers import Optimizer, apply_update


class _AdaptiveOptimizer(Optimizer):
    """An optimizer whose sparse update is its dense one's ``SparseApply*`` twin (``apply_update``)."""

    def _apply_sparse(self, grad, var):
        return self._apply_dense(grad, var)


def _as(t, var):
    """TF's ``math_ops.cast(t, var.dtype)``: no op when the dtype already matches."""
    return array_ops.cast(t, var.dtype.base_dtype)


class RMSPropOptimizer(_AdaptiveOptimizer):
    """Divides each step by a moving root mean square of the recent gradients (Hinton's lecture
    6e): ms = decay·ms + (1 - decay)·grad²; mom = momentum·mom + lr·grad / sqrt(ms + epsilon);
    var -= mom. ``centered`` also tracks the mean gradient and divides by the variance estimate."""

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False, centered=False,
                 name="RMSProp"):
        super().__init__(use_locking, name)
        self._learning_rate, self._decay, self._momentum = learning_rate, decay, momentum
        self._epsilon, self._centered = epsilon, centered

    def _create_slots(self, var_list):
        for v in var_list:
            init_rms = init_ops.ones_initializer(dtype=v.dtype.base_dtype) if v.get_shape().is_fully_defined() \
                else array_ops.ones_like(v)
            self._get_or_make_slot_with_initializer(v, init_rms, v.get_shape(), v.dtype.base_dtype, "rms",
                                                    self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        call = self._call_if_callable
        self._lr_t = convert_to_tensor(call(self._learning_rate), name="learning_rate")
        self._decay_t = convert_to_tensor(call(self._decay), name="decay")
        self._momentum_t = convert_to_tensor(call(self._momentum), name="momentum")
        self._epsilon_t = convert_to_tensor(call(self._epsilon), name="epsilon")

    def _apply_dense(self, grad, var):
        rms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        scalars = [_as(t, var) for t in (self._lr_t, self._decay_t, self._momentum_t, self._epsilon_t)]
        if self._centered:
            return apply_update("ApplyCenteredRMSProp", [var, self.get_slot(var, "mg"), rms, mom], scalars + [grad],
                          self._use_locking)
        return apply_update("ApplyRMSProp", [var, rms, mom], scalars + [grad], self._use_locking)


class AdagradOptimizer(_AdaptiveOptimizer):
    """Per-coordinate step sizes that shrink with the gradients seen (Duchi et al.):
    accum += grad²; var -= lr·grad / sqrt(accum). The accumulator starts at
    ``initial_accumulator_value`` (positive, so the first step is finite)."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False, name="Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError("initial_accumulator_value must be positive: %s" % initial_accumulator_value)
        super().__init__(use_locking, name)
        self._learning_rate, self._initial_accumulator_value = learning_rate, initial_accumulator_value

    def _create_slots(self, var_list):
        for v in var_list:
            dtype = v.dtype.base_dtype
            if v.get_shape().is_fully_defined():
                init = init_ops.constant_initializer(self._initial_accumulator_value, dtype=dtype)
            else:  # TF's: the accumulator is a Fill of the variable's run-time shape
                init = self._init_constant_op(v, dtype)
            self._get_or_make_slot_with_initializer(v, init, v.get_shape(), dtype, "accumulator", self._name)

    def _init_constant_op(self, v, dtype):
        def init():
            return math_ops.cast(array_ops.fill(array_ops.shape(v), self._initial_accumulator_value), dtype)
        return init

    def _prepare(self):
        self._lr_t = convert_to_tensor(self._call_if_callable(self._learning_rate), name="learning_rate")

    def _apply_dense(self, grad, var):
        return apply_update("ApplyAdagrad", [var, self.get_slot(var, "accumulator")], [_as(self._lr_t, var), grad],
                      self._use_locking)


class AdadeltaOptimizer(_AdaptiveOptimizer):
    """Adagrad without its ever-shrinking step (Zeiler): moving averages of grad² (``accum``) and
    of the squared updates (``accum_update``) set each coordinate's step."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False, name="Adadelta"):
        super().__init__(use_locking, name)
        self._lr, self._rho, self._epsilon = learning_rate, rho, epsilon

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _prepare(self):
        call = self._call_if_callable
        self._lr_t = convert_to_tensor(call(self._lr), name="lr")
        self._rho_t = convert_to_tensor(call(self._rho), name="rho")
        self._epsilon_t = convert_to_tensor(call(self._epsilon), name="epsilon")

    def _apply_dense(self, grad, var):
        refs = [var, self.get_slot(var, "accum"), self.get_slot(var, "accum_update")]
        return apply_update("ApplyAdadelta", refs, [_as(t, var) for t in (self._lr_t, self._rho_t, self._epsilon_t)] + [grad],
                      self._use_locking)


class FtrlOptimizer(_AdaptiveOptimizer):
    """Follow-the-regularized-leader (McMahan et al., used for wide sparse models): slots ``accum``
    (sum of grad², starting at ``initial_accumulator_value``) and ``linear``; L1 makes weights
    exactly 0. With ``l2_shrinkage_regularization_strength`` > 0 the op is ``ApplyFtrlV2``."""

    def __init__(self, learning_rate, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0, use_locking=False, name="Ftrl",
                 accum_name=None, linear_name=None, l2_shrinkage_regularization_strength=0.0, beta=None):
        super().__init__(use_locking, name)
        if initial_accumulator_value < 0.0:
            raise ValueError("initial_accumulator_value %f needs to be positive or zero" % initial_accumulator_value)
        if learning_rate_power > 0.0:
            raise ValueError("learning_rate_power %f needs to be negative or zero" % learning_rate_power)
        for what, value in (("l1_regularization_strength", l1_regularization_strength),
                            ("l2_regularization_strength", l2_regularization_strength)):
            if value < 0.0:
                raise ValueError("%s %f needs to be positive or zero" % (what, value))
        if l2_shrinkage_regularization_strength < 0.0:
            raise ValueError("l2_shrinkage_regularization_strength %f needs to be positive or zero"
                             % l2_shrinkage_regularization_strength)
        self._learning_rate, self._learning_rate_power = learning_rate, learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1, self._l2 = l1_regularization_strength, l2_regularization_strength
        self._beta = 0.0 if beta is None else beta
        self._l2_shrinkage = l2_shrinkage_regularization_strength
        self._accum_name, self._linear_name = accum_name, linear_name

    def _create_slots(self, var_list):
        def accum_initializer(shape, dtype=dtypes.float32, partition_info=None):
            return array_ops.ones(shape=shape, dtype=dtype) * self._initial_accumulator_value

        for v in var_list:
            self._get_or_make_slot_with_initializer(v, accum_initializer, v.shape, v.dtype.base_dtype, "accum",
                                                    self._accum_name or self._name)
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _prepare(self):
        self._lr_t = convert_to_tensor(self._learning_rate, name="learning_rate")
        self._l1_t = convert_to_tensor(self._l1, name="l1_regularization_strength")
        # TF builds beta / (2 * max(lr, 1e-36)) as ops even when beta is 0
        self._adjusted_l2_t = convert_to_tensor(
            self._l2 + self._beta / (2. * math_ops.maximum(self._learning_rate, 1e-36)),
            name="adjusted_l2_regularization_strength")
        self._beta_t = convert_to_tensor(self._beta, name="beta")
        self._l2_shrinkage_t = convert_to_tensor(self._l2_shrinkage, name="l2_shrinkage_regularization_strength")
        self._lr_power_t = convert_to_tensor(self._learning_rate_power, name="learning_rate_power")

    def _apply_dense(self, grad, var):
        refs = [var, self.get_slot(var, "accum"), self.get_slot(var, "linear")]
        lr, l1, l2 = _as(self._lr_t, var), _as(self._l1_t, var), _as(self._adjusted_l2_t, var)
        if self._l2_shrinkage <= 0.0:
            return apply_update("ApplyFtrl", refs, [grad, lr, l1, l2, _as(self._lr_power_t, var)], self._use_locking)
        return apply_update("ApplyFtrlV2", refs, [grad, lr, l1, l2, _as(self._l2_shrinkage_t, var),
                                            _as(self._lr_power_t, var)], self._use_locking)


class ProximalAdagradOptimizer(_AdaptiveOptimizer):
    """Adagrad's step, then the proximal step of l1 (soft-thresholding: weights become exactly 0)
    and l2 regularisation (Duchi & Singer's FOBOS)."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, use_locking=False, name="ProximalAdagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError("initial_accumulator_value must be positive: %s" % initial_accumulator_value)
        super().__init__(use_locking, name)
        self._learning_rate, self._initial_accumulator_value = learning_rate, initial_accumulator_value
        self._l1, self._l2 = l1_regularization_strength, l2_regularization_strength

    def _create_slots(self, var_list):
        for v in var_list:
            with colocate_with(v):  # TF makes the initial value first, beside the variable, then the slot
                val = array_ops.constant(self._initial_accumulator_value, shape=v.get_shape().as_list(),
                                         dtype=v.dtype.base_dtype)
            table = self._slots.setdefault("accumulator", {})
            if v not in table:
                table[v] = slots.create_slot(v, val, self._name)

    def _prepare(self):
        self._lr_t = convert_to_tensor(self._learning_rate, name="learning_rate")
        self._l1_t = convert_to_tensor(self._l1, name="l1_regularization_strength")
        self._l2_t = convert_to_tensor(self._l2, name="l2_regularization_strength")

    def _apply_dense(self, grad, var):
        return apply_update("ApplyProximalAdagrad", [var, self.get_slot(var, "accumulator")],
                      [self._lr_t, self._l1_t, self._l2_t, grad], self._use_locking)


class ProximalGradientDescentOptimizer(_AdaptiveOptimizer):
    """Gradient descent, then the proximal step of l1 and l2 regularisation (no slots)."""

    def __init__(self, learning_rate, l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="ProximalGradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate, self._l1, self._l2 = learning_rate, l1_regularization_strength, l2_regularization_strength

    def _prepare(self):
        self._lr_t = convert_to_tensor(self._learning_rate, name="learning_rate")
        self._l1_t = convert_to_tensor(self._l1, name="l1_regularization_strength")
        self._l2_t = convert_to_tensor(self._l2, name="l2_regularization_strength")

    def _apply_dense(self, grad, var):
        return apply_update("ApplyProximalGradientDescent", [var], [self._lr_t, self._l1_t, self._l2_t, grad],
                      self._use_locking)
