"""``SyncReplicasOptimizer``: synchronous data parallelism over parameter servers, as TF builds it.

Each worker's gradients go into one ``ConditionalAccumulator`` per variable, on that variable's
device; the chief's queue runner takes the mean once ``replicas_to_aggregate`` gradients arrived,
applies it with the wrapped optimizer and puts one token per replica into ``sync_token_q``; a worker's
train op is a dequeue of one token, so no worker starts a step before the update of the last one.
Gradients older than the accumulator's global step are dropped (the worker's
``sync_rep_local_step`` says which step it computed them for).
"""
from ..framework.graph_keys import GraphKeys
from ..framework.scopes import colocate_with, control_dependencies, device, name_scope
from ..api import array_ops, state_ops
from ..api.control_flow_ops import group, no_op
from ..api.data_flow_ops import ConditionalAccumulator, FIFOQueue
from ..api.uninitialized import report_uninitialized_variables
from ..api.variables import Variable, global_variables
from . import session_manager
from .optimizers import Optimizer
from .queue_runner import QueueRunner
from .session_run_hook import SessionRunHook


class SyncReplicasOptimizer(Optimizer):
    """Wraps ``opt`` so that ``replicas_to_aggregate`` workers' gradients are averaged before each update."""

    def __init__(self, opt, replicas_to_aggregate, total_num_replicas=None, variable_averages=None,
                 variables_to_average=None, use_locking=False, name="sync_replicas"):
        if total_num_replicas is None:
            total_num_replicas = replicas_to_aggregate
        super().__init__(use_locking, name)
        self._opt = opt
        self._replicas_to_aggregate = replicas_to_aggregate
        self._gradients_applied = False
        self._variable_averages = variable_averages
        self._variables_to_average = variables_to_average
        self._total_num_replicas = total_num_replicas
        self._tokens_per_step = max(total_num_replicas, replicas_to_aggregate)
        self._global_step = None
        self._sync_token_queue = None
        self._chief_queue_runner = None
        self._accumulator_list = []

    def compute_gradients(self, *args, **kwargs):
        """The wrapped optimizer's gradients (each replica's own, to clip before they are averaged)."""
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Builds the accumulators, the chief's update and the token queue; returns the worker's
        train op (take a token, and remember its step as ``sync_rep_local_step``)."""
        grads_and_vars = list(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        self._global_step = global_step
        train_ops, aggregated_grad, var_list = [], [], []
        local_anchor = no_op()
        with colocate_with(local_anchor):  # the default strategy's colocate_vars_with
            self._local_step = Variable(initial_value=0, trainable=False, collections=[GraphKeys.LOCAL_VARIABLES],
                                        dtype=global_step.dtype.base_dtype, name="sync_rep_local_step")
        self.local_step_init_op = state_ops.assign(self._local_step, global_step)
        chief_init_ops = [self.local_step_init_op]
        self.ready_for_local_init_op = report_uninitialized_variables(global_variables())

        with name_scope(None, self._name):
            for grad, var in grads_and_vars:
                var_list.append(var)
                with device(var.device):
                    if grad is None:
                        aggregated_grad.append(None)  # passed through to the wrapped optimizer
                        continue
                    if not hasattr(grad, "op") or not hasattr(grad, "dtype"):
                        raise ValueError("Unknown grad type!")
                    grad_accum = ConditionalAccumulator(grad.dtype, shape=var.get_shape(),
                                                        shared_name=var.name + "/grad_accum")
                    train_ops.append(grad_accum.apply_grad(grad, local_step=self._local_step))
                    aggregated_grad.append(grad_accum.take_grad(self._replicas_to_aggregate))
                    self._accumulator_list.append((grad_accum, var.device))
            aggregated_grads_and_vars = zip(aggregated_grad, var_list)

            with device(global_step.device), name_scope(""):
                update_op = self._opt.apply_gradients(aggregated_grads_and_vars, global_step)
            with device(global_step.device), name_scope(""):
                self._sync_token_queue = FIFOQueue(-1, global_step.dtype.base_dtype, shapes=(),
                                                   name="sync_token_q", shared_name="sync_token_q")
            with device(global_step.device), name_scope(""):
                with control_dependencies(train_ops):
                    token = self._sync_token_queue.dequeue()
                train_op = state_ops.assign(self._local_step, token)
                with control_dependencies([update_op]):
                    tokens = array_ops.fill([self._tokens_per_step], global_step)
                    sync_op = self._sync_token_queue.enqueue_many((tokens,))
                if self._variable_averages is not None:
                    with control_dependencies([sync_op]), name_scope(""):
                        sync_op = self._variable_averages.apply(self._variables_to_average)
                self._chief_queue_runner = QueueRunner(self._sync_token_queue, [sync_op])
            for accum, dev in self._accumulator_list:
                with device(dev):
                    chief_init_ops.append(accum.set_global_step(global_step, name="SetGlobalStep"))
            self.chief_init_op = group(*chief_init_ops)
            self._gradients_applied = True
            return train_op

    def get_chief_queue_runner(self):
        """The QueueRunner the chief runs: apply the averaged gradients, then hand out tokens."""
        if self._gradients_applied is False:
            raise ValueError("Should be called after apply_gradients().")
        return self._chief_queue_runner

    def get_slot(self, *args, **kwargs):
        return self._opt.get_slot(*args, **kwargs)

    def variables(self):
        return self._opt.variables()

    def get_slot_names(self, *args, **kwargs):
        return self._opt.get_slot_names(*args, **kwargs)

    def get_init_tokens_op(self, num_tokens=-1):
        """The op that puts the first tokens in the queue (``replicas_to_aggregate`` by default)."""
        if self._gradients_applied is False:
            raise ValueError("get_init_tokens_op() should be called after apply_gradients().")
        tokens_needed = self._replicas_to_aggregate - self._total_num_replicas
        if num_tokens == -1:
            num_tokens = self._replicas_to_aggregate
        elif num_tokens < tokens_needed:
            raise ValueError("Too few tokens to finish the first step: %d (given) vs %d (needed)"
                             % (num_tokens, tokens_needed))
        if num_tokens > 0:
            with device(self._global_step.device), name_scope(""):
                tokens = array_ops.fill([num_tokens], self._global_step)
                return self._sync_token_queue.enqueue_many((tokens,))
        return no_op(name="no_init_tokens")

    def make_session_run_hook(self, is_chief, num_tokens=-1):
        """A hook running the local (or chief's) init ops, the first tokens and the chief's queue runner."""
        return _SyncReplicasOptimizerHook(self, is_chief, num_tokens)


class _SyncReplicasOptimizerHook(SessionRunHook):
    def __init__(self, sync_optimizer, is_chief, num_tokens):
        self._sync_optimizer = sync_optimizer
        self._is_chief = is_chief
        self._num_tokens = num_tokens

    def begin(self):
        opt = self._sync_optimizer
        if opt._gradients_applied is False:
            raise ValueError("SyncReplicasOptimizer.apply_gradient should be called before using the hook.")
        self._ready_for_local_init_op = opt.ready_for_local_init_op
        if self._is_chief:
            self._local_init_op = opt.chief_init_op
            self._q_runner = opt.get_chief_queue_runner()
            self._init_tokens_op = opt.get_init_tokens_op(self._num_tokens)
        else:
            self._local_init_op = opt.local_step_init_op
            self._q_runner = None
            self._init_tokens_op = None

    def after_create_session(self, session, coord):
        ok, msg = session_manager._ready(self._ready_for_local_init_op, session,
                                         "Model is not ready for SyncReplicasOptimizer local init.")
        if not ok:
            raise RuntimeError("Init operations did not make model ready for SyncReplicasOptimizer local_init. "
                               f"Init op: {self._local_init_op.name}, error: {msg}")
        session.run(self._local_init_op)
        if self._init_tokens_op is not None:
            session.run(self._init_tokens_op)
        if self._q_runner is not None:
            self._q_runner.create_threads(session, coord=coord, daemon=True, start=True)



