"""Optimizers: ``compute_gradients``, ``apply_gradients`` and ``minimize`` as in TF1.

Each variable's update op is built under ``colocate_with(var)`` (it takes the variable by
reference anyway), so updates run where the variables live: on the parameter server in a
``replica_device_setter`` program, while the gradients are computed on the workers.
"""
from ..framework import dtypes
from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import Tensor
from ..framework.scopes import colocate_with, control_dependencies, init_scope, name_scope
from ..api import array_ops, math_ops, state_ops
from ..ops.build import apply_op, apply_op_output, convert_to_tensor
from ..api.resource_variable_ops import is_resource_variable, resource_scatter_add
from ..api.control_flow_ops import group, tuple_
from ..api.gradients import gradients
from ..api.variables import Variable, trainable_variables
from . import slots


def apply_update(op_type, refs, values, use_locking, **attrs):
    """One ``Apply*`` op: the variable and slots by reference, then the other inputs. A sparse
    gradient among them makes it the ``SparseApply*`` op: the gradient's rows where the gradient
    goes, then their indices."""
    inputs = [r._ref() for r in refs]
    for v in values:
        if isinstance(v, IndexedSlices):
            op_type = "Sparse" + op_type
            inputs += [v.values, v.indices]
        else:
            inputs.append(v)
    if is_resource_variable(refs[0]):  # the same update on the handles (TF's _resource_apply_*): no output;
        with name_scope(None, "Resource" + op_type) as scope:  # a variable among the values is read in its scope
            inputs = [convert_to_tensor(x) for x in inputs]
            return apply_op("Resource" + op_type, inputs, {"use_locking": use_locking, **attrs}, scope)
    return apply_op_output(op_type, inputs, {"use_locking": use_locking, **attrs}, op_type).op


def _variables_read_since(first):
    """The trainable variables that the ops made since graph version ``first`` read (TF's
    ``tape.watched_variables()`` of a loss given as a function)."""
    made = get_default_graph().get_operations()[first:]
    read = {t.op for op in made for t in op.inputs}
    return [v for v in trainable_variables() if v.op in read or getattr(v, "_snapshot", None) is not None
            and v._snapshot.op in read]


class Optimizer:
    GATE_NONE, GATE_OP, GATE_GRAPH = 0, 1, 2

    def __init__(self, use_locking, name):
        self._use_locking = use_locking
        self._name = name
        self._slots = {}  # slot name -> {variable: slot variable}

    def get_name(self):
        return self._name

    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                          colocate_gradients_with_ops=False, grad_loss=None):
        """[(gradient, variable)] for every trainable variable (or ``var_list``)."""
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH):
            raise ValueError("gate_gradients must be one of: Optimizer.GATE_NONE, Optimizer.GATE_OP, "
                             f"Optimizer.GATE_GRAPH.  Not {gate_gradients}")
        if callable(loss):  # TF records the call on a tape: the variables it read are the ones to train
            first = get_default_graph().version
            loss = loss()
            if var_list is None:
                var_list = _variables_read_since(first)
        var_list = list(var_list) if var_list is not None else trainable_variables()
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = gradients(loss, var_list, grad_ys=grad_loss, gate_gradients=gate_gradients == Optimizer.GATE_OP,
                          aggregation_method=aggregation_method,
                          colocate_gradients_with_ops=colocate_gradients_with_ops)
        if gate_gradients == Optimizer.GATE_GRAPH:  # every gradient waits for all of them
            grads = tuple_(grads)
        return list(zip(grads, var_list))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """One op applying every gradient to its variable (and incrementing ``global_step``)."""
        grads_and_vars = [(g if g is None or isinstance(g, IndexedSlices) else convert_to_tensor(g), v)
                          for g, v in grads_and_vars]  # TF's: a gradient given as a variable is its value
        usable = [(g, v) for g, v in grads_and_vars if g is not None]
        tensor = next((v for _, v in usable if isinstance(v, Tensor)), None)
        if tensor is not None:  # compute_gradients takes tensors in var_list; a tensor cannot be updated
            raise NotImplementedError(f"Trying to update a Tensor {tensor}")
        if not usable:
            raise ValueError("No gradients provided for any variable, check your graph for ops that do not "
                             f"support gradients, between variables {[v.name for _, v in grads_and_vars]} and loss.")
        with init_scope():  # as TF: the slots take the device scope around minimize (init_scope's rule)
            self._create_slots([v for _, v in usable])
        updates = []
        with name_scope(name, self._name) as scope:
            self._prepare()
            for grad, var in usable:
                constraint = getattr(var, "constraint", None)  # TF's: applied to the variable after its update
                with name_scope("update_" + var.op.name), colocate_with(var):
                    if isinstance(grad, IndexedSlices):  # rows of an embedding table: update only those
                        if constraint is not None:
                            raise RuntimeError("Cannot use a constraint function on a sparse variable.")
                        updates.append(self._apply_sparse_duplicate_indices(grad, var))
                    else:
                        update = self._apply_dense(grad, var)
                        if constraint is not None:
                            with control_dependencies([update]):
                                update = var.assign(constraint(var))
                        updates.append(update)
            if global_step is None:
                train_op = self._finish(updates, scope)
            else:
                with control_dependencies([self._finish(updates, "update")]):
                    with colocate_with(global_step):
                        train_op = state_ops.assign_add(global_step, 1, name=scope).op
        get_default_graph().add_to_collection(GraphKeys.TRAIN_OP, train_op)
        return train_op

    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                 colocate_gradients_with_ops=False, name=None, grad_loss=None):
        grads_and_vars = self.compute_gradients(loss, var_list, gate_gradients, aggregation_method,
                                                colocate_gradients_with_ops, grad_loss)
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def get_slot(self, var, name):
        return self._slots.get(name, {}).get(var)

    def get_slot_names(self):
        return sorted(self._slots)

    def variables(self):
        """The optimizer's variables in the current graph (its slots, and Adam's beta powers), by name (TF's order)."""
        graph = get_default_graph()
        found = [v for v in self._non_slot_variables() if v.graph is graph]
        found += [v for table in self._slots.values() for v in table.values() if v.graph is graph]
        return sorted(found, key=lambda v: v.name)

    def _non_slot_variables(self):
        return []

    # -- what each optimizer defines ---------------------------------------------------------
    def _create_slots(self, var_list):
        pass

    def _prepare(self):
        pass

    def _apply_dense(self, grad, var):
        raise NotImplementedError

    def _apply_sparse_duplicate_indices(self, grad, var):
        """A sparse gradient's rows listed more than once are added up first (Unique, then
        UnsortedSegmentSum, as TF does), so ``_apply_sparse`` sees each row once."""
        unique_indices, positions = array_ops.unique(grad.indices)
        summed = math_ops.unsorted_segment_sum(grad.values, positions, array_ops.shape(unique_indices)[0])
        return self._apply_sparse(IndexedSlices(summed, unique_indices, grad.dense_shape), var)

    def _apply_sparse(self, grad, var):
        raise NotImplementedError(f"{type(self).__name__} has no sparse update in devlab: make the gradient of "
                                  f"{var.op.name} dense with tf.convert_to_tensor before applying it")

    def _finish(self, update_ops, name):
        return group(*update_ops, name=name)

    @staticmethod
    def _call_if_callable(param):
        """A hyper-parameter given as a function (``lambda: schedule(step)``) is called here."""
        return param() if callable(param) else param

    def _get_or_make_slot_with_initializer(self, var, initializer, shape, dtype, slot_name, op_name):
        table = self._slots.setdefault(slot_name, {})
        if var not in table:
            table[var] = slots.create_slot_with_initializer(var, initializer, shape, dtype, op_name)
        return table[var]

    def _zeros_slot(self, var, slot_name, op_name):
        table = self._slots.setdefault(slot_name, {})
        if var not in table:
            table[var] = slots.create_zeros_slot(var, op_name)
        return table[var]


class GradientDescentOptimizer(Optimizer):
    """var -= learning_rate * grad."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate

    def _prepare(self):
        self._lr = convert_to_tensor(self._call_if_callable(self._learning_rate), preferred_dtype=dtypes.float32,
                                     name="learning_rate")

    def _apply_dense(self, grad, var):
        return apply_update("ApplyGradientDescent", [var], [self._lr, grad], self._use_locking)

    def _apply_sparse_duplicate_indices(self, grad, var):
        """var[indices] -= values * lr, one ScatterSub: repeated rows subtract twice, as summed (a
        resource variable: one ResourceScatterAdd of -values * lr, as TF)."""
        lr = array_ops.cast(self._lr, var.dtype.base_dtype)  # TF's: the rate in the variable's dtype
        if is_resource_variable(var):
            return resource_scatter_add(var.handle, grad.indices, -grad.values * lr)
        return state_ops.scatter_sub(var, grad.indices, grad.values * lr, use_locking=self._use_locking).op


class MomentumOptimizer(Optimizer):
    """accum = momentum * accum + grad; var -= learning_rate * accum."""

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False):
        super().__init__(use_locking, name)
        self._learning_rate, self._momentum, self._use_nesterov = learning_rate, momentum, use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._lr = convert_to_tensor(self._call_if_callable(self._learning_rate), preferred_dtype=dtypes.float32,
                                     name="learning_rate")
        self._mom = convert_to_tensor(self._call_if_callable(self._momentum), preferred_dtype=dtypes.float32,
                                      name="momentum")

    def _apply_dense(self, grad, var):
        return apply_update("ApplyMomentum", [var, self.get_slot(var, "momentum")], [self._lr, grad, self._mom],
                            self._use_locking, use_nesterov=self._use_nesterov)

    _apply_sparse = _apply_dense  # an IndexedSlices grad makes it SparseApplyMomentum (apply_update)


class AdamOptimizer(Optimizer):
    """Adam (Kingma & Ba): per-variable first and second moments, bias-corrected step size."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False, name="Adam"):
        super().__init__(use_locking, name)
        self._lr_value, self._beta1, self._beta2, self._epsilon = learning_rate, beta1, beta2, epsilon
        self._beta_powers_of = {}  # graph -> (beta1_power, beta2_power): TF keeps them per graph

    def _create_slots(self, var_list):
        first = min(var_list, key=lambda v: v.name)
        if self._beta_powers is None:  # this graph's
            resource = is_resource_variable(first)  # TF's _create_non_slot_variable: a resource one beside one
            with colocate_with(first):  # in the current name scope, under apply_gradients' init_scope (TF)
                self._beta_powers_of[get_default_graph()] = (
                    Variable(self._beta1, name="beta1_power", trainable=False, use_resource=resource),
                    Variable(self._beta2, name="beta2_power", trainable=False, use_resource=resource))
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    @property
    def _beta_powers(self):
        return self._beta_powers_of.get(get_default_graph())

    def _get_beta_accumulators(self):
        return self._beta_powers

    def _non_slot_variables(self):
        return list(self._beta_powers or ())

    def _prepare(self):
        call = self._call_if_callable
        self._lr = convert_to_tensor(call(self._lr_value), preferred_dtype=dtypes.float32, name="learning_rate")
        self._b1 = convert_to_tensor(call(self._beta1), preferred_dtype=dtypes.float32, name="beta1")
        self._b2 = convert_to_tensor(call(self._beta2), preferred_dtype=dtypes.float32, name="beta2")
        self._eps = convert_to_tensor(call(self._epsilon), preferred_dtype=dtypes.float32, name="epsilon")

    def _apply_dense(self, grad, var):
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        b1p, b2p = self._beta_powers
        if is_resource_variable(var):  # TF casts the powers to the gradient's dtype (a no-op): the op reads them
            b1p, b2p = array_ops.cast(b1p, grad.dtype.base_dtype), array_ops.cast(b2p, grad.dtype.base_dtype)
        else:
            b1p, b2p = b1p.value(), b2p.value()
        return apply_update("ApplyAdam", [var, m, v], [b1p, b2p, self._lr, self._b1, self._b2,
                                                       self._eps, grad], self._use_locking)

    def _apply_sparse(self, grad, var):
        """TF's sparse Adam: the moments decay everywhere (Assign), the new gradient goes into the
        listed rows only (ScatterAdd), and the variable takes the whole step (AssignSub)."""
        dtype = var.dtype.base_dtype  # TF's _apply_sparse_shared: every scalar in the variable's dtype
        b1p, b2p = (array_ops.cast(b, dtype) for b in self._beta_powers)
        lr_t, b1, b2, eps = (array_ops.cast(t, dtype) for t in (self._lr, self._b1, self._b2, self._eps))
        resource = is_resource_variable(var)
        lr = lr_t * math_ops.sqrt(1 - b2p) / (1 - b1p)

        def scatter_add(x, values):  # TF's _resource_scatter_add: the write, then a read after it
            if not resource:
                return state_ops.scatter_add(x, grad.indices, values, use_locking=self._use_locking)
            with control_dependencies([resource_scatter_add(x.handle, grad.indices, values)]):
                return x.value()
        m = self.get_slot(var, "m")
        m_scaled = grad.values * (1 - b1)
        m_t = state_ops.assign(m, m * b1, use_locking=self._use_locking)
        with control_dependencies([m_t]):
            m_t = scatter_add(m, m_scaled)
        v = self.get_slot(var, "v")
        v_scaled = (grad.values * grad.values) * (1 - b2)
        v_t = state_ops.assign(v, v * b2, use_locking=self._use_locking)
        with control_dependencies([v_t]):
            v_t = scatter_add(v, v_scaled)
        v_sqrt = math_ops.sqrt(v_t)
        var_update = state_ops.assign_sub(var, lr * m_t / (v_sqrt + eps), use_locking=self._use_locking)
        return group(var_update, m_t, v_t)

    def _finish(self, update_ops, name):
        b1p, b2p = self._beta_powers
        with control_dependencies(update_ops), colocate_with(b1p):
            up1 = b1p.assign(b1p * self._b1, use_locking=self._use_locking)
            up2 = b2p.assign(b2p * self._b2, use_locking=self._use_locking)
        return group(*update_ops, up1, up2, name=name)
