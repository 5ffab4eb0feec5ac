"""``Session``: places the graph on the session's devices, runs fetches, keeps variable values.

A run goes: place the whole graph (once, and again only when it has grown), compile a plan
for (fetches, feeds) (once, then cached), then make a ``Run`` of it: execute, fetch, and only
then commit the variable writes (a failure anywhere commits nothing). With
``log_device_placement`` the device mapping and one line per op are printed to ``sys.stdout``
(so a notebook cell shows them, once, without logging noise) and kept in
``session.placement_log``. Everything a session does is also told to ``events`` listeners.
"""
import contextlib
import logging
import sys
import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .. import config as devlab_config
from ..unimplemented import argument
from ..devices import parallel
from ..devices.device_set import build_devices, device_mapping
from ..devices.transfer import transfer
from ..ops.resource_mgr import ResourceMgr
from ..ops.sparse_tensor import SparseTensor
from ..framework.indexed_slices import IndexedSlices
from ..framework import default_session, errors, optimizer_options, publishing
from ..framework.graph import Graph, get_default_graph
from ..framework.operation import Operation
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape
from ..placer import explain as explain_mod
from ..placer.placer import place
from . import cluster as cluster_mod
from . import device_lib
from .device_lib import _DeviceAttributes  # noqa: F401 - TF's name in client.session
from . import events
from . import fetches as fetch_mod
from . import modelled as modelled_mod
from . import server_state
from . import time_limits
from .plan import compile_plan
from .plan_cache import PlanCache
from .protos import ConfigProto, RunMetadata, RunOptions
from .run import Run
from .stepper import Stepper
from .steps import RandomGenerators, flat_steps
from .trace import Tracer
from .variable_store import VariableStore



# The ops whose kernels call BLAS: a run of a plan with one of them holds BLAS to one thread
# (devices/parallel.py); other runs skip the few microseconds of asking BLAS.
_BLAS_OPS = frozenset(("MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "SparseMatMul", "Conv2D",
                       "Conv2DBackpropInput", "Conv2DBackpropFilter", "MirrorPadGrad"))
_blas_plans = weakref.WeakKeyDictionary()


def _calls_blas(plan):
    """Whether any op of the plan (loop bodies included) calls BLAS (asked once per plan)."""
    calls = _blas_plans.get(plan)
    if calls is None:
        calls = _blas_plans[plan] = any(getattr(getattr(step, "op", None), "type", None) in _BLAS_OPS
                                        for step in flat_steps(plan.steps))
    return calls


@dataclass(frozen=True)
class PlacementRecord:
    """One line of the placement log, kept as data."""
    op_name: str
    op_type: str
    device: str

    def __str__(self):
        return f"{self.op_name}: ({self.op_type}): {self.device}"


class Session:
    """TF1's ``tf.Session``: ``Session(target="", graph=None, config=None)``."""

    def __init__(self, target="", graph=None, config=None):
        _check_session_arguments(target, graph, config)
        self.graph = get_default_graph() if graph is None else graph
        if config is None:  # TF's default config: the optimizer switches set for new sessions
            config = ConfigProto()
            optimizer_options.apply_to(config.graph_options.rewrite_options)
        self.config = config
        self.sess_str = target.encode() if isinstance(target, str) else (target or b"")  # TF's: the target, bytes
        server = cluster_mod.lookup(target or "")
        tasks = server.cluster.tasks() if server else [("localhost", 0)]
        self.local_task = (server.job_name, server.task_index) if server else None
        # A cluster bound to a backend runs each task's part of a plan where that task lives
        # (a Dask worker); the session still places and plans here. None: everything in-process.
        self.backend = server.backend if server else None
        devices = self.backend.devices(self.config.device_count) if self.backend else \
            build_devices(self.config.device_count, tasks)
        self.devices = sorted(devices, key=lambda d: d.sort_key())
        self.host = next(d for d in self.devices if d.device_type == "CPU")  # where fed and fetched values live
        # A plain Session's variables, queues and accumulators are its own; on an in-process
        # cluster they live in their task, shared with every session on the cluster, as in TF.
        shared = server is not None and self.backend is None
        for d in self.devices:
            if d.resource_manager is None:
                manager = server_state.device_state(server.cluster, d).manager(d.name) if shared else ResourceMgr(d.name)
                d.resource_manager = manager.session(self)
        if self.backend:
            self.variables = self.backend.variables(self)
        elif shared:
            self.variables = server_state.ClusterVariables(self, server.cluster)
            server_state.task_state(server.cluster.task_address(*self.local_task)).sessions.add(self)
        else:
            self.variables = VariableStore()
        self.placement = None
        self._placed_version = -1
        self._plans = PlanCache(self.config.inter_op_parallelism_threads)  # TF's default 0: one per core
        self._rngs = RandomGenerators(self.graph)
        self.placement_log = []
        self.last_plan = None
        self.plans_run = []  # every plan this session ran, in the order of their first run
        self.last_run_metadata = None
        self._closed = False
        self.device_mapping = device_mapping(self.devices)
        if self._prints_log:
            print(self.device_mapping, file=sys.stdout)
        events.emit(events.SessionCreated(self))

    @property
    def graph_def(self):
        """The session's graph as a GraphDef (with ``_output_shapes`` when the config's
        ``graph_options.infer_shapes`` asks), as TF's ``Session.graph_def``."""
        return self.graph.as_graph_def(add_shapes=bool(self.config.graph_options.infer_shapes))

    # -- lifecycle -------------------------------------------------------------------------------
    @property
    def _prints_log(self):
        """Whether this session prints its device mapping and placement log to ``sys.stdout``."""
        return bool(self.config.log_device_placement or devlab_config.get("force_log")) and \
            devlab_config.get("log_to_stdout")

    def close(self):
        """Closes the session; a run that waits (a dequeue) in another thread ends with TF's
        CancelledError."""
        if self.backend is not None and not self._closed:
            self.backend.close_session(self)
        self._closed = True
        time_limits.cancel_all(self)

    @staticmethod
    def reset(target, containers=None, config=None):
        """Empties the resource containers (None: all) on every task of ``target``'s cluster and
        closes the sessions whose master is ``target``: their variables lose their values."""
        server = cluster_mod.lookup(target or "")
        if server is None:  # a local session's state is its own: TF resets nothing either
            return
        if server.backend is not None:
            raise errors.UnimplementedError(
                None, None, "Session.reset() is implemented for the tasks of an in-process tf.train.Server, not for a cluster on Dask workers")
        server_state.reset(server, containers)

    def __enter__(self):
        if getattr(self, "graph_ctx", None) is not None:
            raise RuntimeError("Session context managers are not re-entrant. Use `Session.as_default()` if you "
                               "want to enter a session multiple times.")
        default_session.push(self)
        self.graph_ctx = self.graph.as_default()
        self.graph_ctx.__enter__()
        return self

    def __exit__(self, *exc):
        try:
            default_session.pop(self, raise_on_misnesting=exc[0] is None)
        finally:
            self.graph_ctx.__exit__(*exc)
            self.graph_ctx = None
            self.close()
        return False

    def as_default(self):
        return _DefaultSession(self)

    def list_devices(self):
        """The session's devices as TF lists them: ``_DeviceAttributes`` (name, device_type,
        memory_limit_bytes, incarnation), in TF's device order."""
        return [device_lib.session_device(d) for d in self.devices]

    # -- placement -----------------------------------------------------------------------------
    def _graph_state(self):
        """What a placement and its cached plans were made for: the ops, and the control edges
        added to ops after they were created (``op._add_control_input``), which change the order."""
        return self.graph.version, getattr(self.graph, "control_edges_added", 0)

    def _ensure_placed(self):
        """Places the whole graph if it is new or has grown since the last placement (and drops
        the cached plans when a control edge was added since)."""
        state = self._graph_state()
        if self._placed_version == state:
            return self.placement
        soft = self.config.allow_soft_placement or devlab_config.get("force_soft_placement")
        ops = self.graph.get_operations()
        placement = place(ops, self.devices, soft, self.local_task)
        old = self.placement.assigned if self.placement else {}
        by_name = {op.name: op for op in ops}
        new_records = [PlacementRecord(name, by_name[name].type, placement.assigned[name].name)
                       for name in placement.log_order if name not in old]
        self.placement, self._placed_version = placement, state
        self._plans.clear()
        self.placement_log.extend(new_records)
        if self._prints_log and new_records:
            print("\n".join(map(str, new_records)), file=sys.stdout)
        events.emit(events.OpsPlaced(self, tuple(new_records)))
        return placement

    def ensure_placed(self):
        """The Placement of the whole graph (placing it first if it is new or has grown)."""
        return self._ensure_placed()

    @property
    def random_generators(self):
        """The session's random generators (a plan compiled for this session needs them)."""
        return self._rngs

    def modelled_run(self, fetches=None, feed_dict=None, **options):
        """Models a run without kernels: shapes, dtypes and the cost model's times
        (``runtime/modelled.py``); works for graphs with ops devlab cannot run."""
        return modelled_mod.modelled_run(self, fetches, feed_dict, **options)

    def modelled_stepper(self, fetches=None, feed_dict=None, **options):
        """A stepper over a modelled run: values shown as shapes."""
        return modelled_mod.ModelledStepper(self, fetches, feed_dict, **options)

    def diagnose(self):
        """The placement doctor on the last run: its costly patterns, each with the bytes it costs
        per step and the one-line change that removes it, checked by re-placing (``runtime/doctor``)."""
        from .doctor import diagnose
        return diagnose(self)

    def explain(self, op):
        """Why ``op`` (an Operation, Tensor, Variable or name) is on its device."""
        self._ensure_placed()
        return explain_mod.explain(_as_op(self.graph, op), self.placement)

    # -- running ---------------------------------------------------------------------------------
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs the ops needed for ``fetches``; returns their values in the same structure."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if self.graph.version == 0:
            raise RuntimeError("The Session graph is empty. Add operations to the graph before calling run().")
        server_state.check_open(self)
        _check_run_arguments(options, run_metadata)
        if options is not None and options.inter_op_thread_pool:  # an index into the config's pools (TF's check)
            pools = len(getattr(self.config, "session_inter_op_thread_pool", ())) or 1
            if not -1 <= options.inter_op_thread_pool < pools:
                raise errors.InvalidArgumentError(None, None, "Graph execution error:\n\nInvalid inter_op_thread_pool: "
                                                              f"{options.inter_op_thread_pool}")
        plan, feed_values = self.prepare(fetches, feed_dict)
        # TF traces at any level above NO_TRACE (DirectSession: do_trace = trace_level > NO_TRACE)
        traced = (options is not None and options.trace_level > RunOptions.NO_TRACE) or devlab_config.get("trace_all")
        tracer = Tracer() if traced else None
        lock = self.variables.locked(plan.written_variables) if plan.writes_variables else contextlib.nullcontext()
        # BLAS keeps to one thread while the run's kernels (and devlab's threads) use the cores
        with lock, time_limits.limited(self, plan, options) as manager, \
                (parallel.one_blas_thread() if self.backend is None and _calls_blas(plan)
                 else contextlib.nullcontext()):  # a cluster's tasks compute, not this process
            run = self.new_run(plan, feed_values, (tracer,) if tracer else ())
            if self.backend is not None:  # its tasks keep the time limit where they wait
                run.timeout_ms = time_limits.timeout_ms(self, options)
            try:
                publish = getattr(self.variables, "publish", None)  # a cluster's shared variables
                if publish is None:
                    run.run_to_end()
                else:
                    with publishing.publishing(lambda: publish(run)):
                        run.run_to_end()
                results = run.fetch()
            except errors.CancelledError:
                run.abandon()
                if manager is not None and manager.error is not None:
                    raise manager.error from None  # the time limit passed: TF's DeadlineExceededError
                raise
            except errors.OpError as e:
                run.abandon()
                # as TF's Session.run: the op's error is raised from here (its message names the
                # node and the user's line; the kernel's own exception stays its __cause__)
                raise e.with_traceback(None)
            except BaseException:
                run.abandon()
                raise
            run.commit()
        if run_metadata is None and tracer is not None:
            run_metadata = RunMetadata()
        if run_metadata is not None:
            run_metadata.Clear()
            if options is not None and options.output_partition_graphs:
                run_metadata.partition_graphs = list(plan.partition_graphs)
            if tracer is not None:
                run_metadata.step_stats = tracer.step_stats()
        self.record_run(plan, run_metadata, feed_values)
        return fetch_mod.pack(fetches, results)

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        """TF's ``Session.make_callable``: a function that runs ``fetches`` with its positional
        arguments fed to ``feed_list`` (tensors or their names), paired in order as TF pairs
        them (extra arguments or feeds are left out, not an error); with
        ``accept_options`` it also takes ``options=`` and ``run_metadata=``. The fetches and feeds
        are checked now, as TF checks them."""
        feed_list = list(feed_list or ())
        for f in fetch_mod.flatten(fetches):
            _as_fetch(self.graph, f)
        feeds = [_as_feed(self.graph, f) for f in feed_list]

        def call(*args, **kwargs):
            unexpected = set(kwargs) - ({"options", "run_metadata"} if accept_options else set())
            if unexpected:
                raise TypeError(f"got an unexpected keyword argument {sorted(unexpected)[0]!r}")
            return self.run(fetches, dict(zip(feeds, args)), options=kwargs.get("options"),
                            run_metadata=kwargs.get("run_metadata"))
        return call

    def _make_callable_from_options(self, callable_options):
        """TF's private ``Session._make_callable_from_options``: a function running the
        ``CallableOptions``' fetches (tensor names) and targets (op names), its positional
        arguments fed to the ``feed`` names in order; it returns the fetched values as a list."""
        for name in ("tensor_connection", "feed_devices", "fetch_devices"):
            if getattr(callable_options, name, None):
                raise NotImplementedError(f"devlab does not implement CallableOptions.{name} yet")
        if getattr(callable_options, "fetch_skip_sync", False):
            raise NotImplementedError("CallableOptions.fetch_skip_sync = true is not yet implemented: devlab "
                                      "(like TF) always syncs its fetches")
        feeds = [_as_feed(self.graph, name) for name in callable_options.feed]
        fetches = [_as_fetch(self.graph, name) for name in callable_options.fetch]
        targets = [_as_fetch(self.graph, name) for name in callable_options.target]
        options = getattr(callable_options, "run_options", None)

        def call(*args, run_metadata=None):
            if len(args) != len(feeds):
                raise errors.InvalidArgumentError(None, None, f"Expected {len(feeds)} feed tensors, but got "
                                                              f"{len(args)}")
            results = self.run(fetches + targets, dict(zip(feeds, args)), options=options, run_metadata=run_metadata)
            return results[:len(fetches)]
        return call

    @property
    def _config(self):
        """TF's private name for the session's ConfigProto."""
        return self.config

    # -- what the stepper drives a run with ----------------------------------------------------
    def prepare(self, fetches, feed_dict=None):
        """(the cached Plan of ``fetches`` given the feeds, the fed values on their devices): fetches
        and feeds resolved and checked as ``run`` does, the graph placed first."""
        leaves = [_as_fetch(self.graph, f) for f in fetch_mod.flatten(fetches)]
        if self.graph._mistyped_inputs:  # an input rewired to a tensor of another dtype: no run works (TF's)
            _check_input_types(self.graph._mistyped_inputs)
        feeds = {}
        for key, value in _feed_items(feed_dict):
            t = _as_feed(self.graph, key)
            feeds[t] = _feed_array(t, value, key)
        placement = self._ensure_placed()
        plan = self._plans.get((tuple(leaves), tuple(feeds)), lambda: compile_plan(leaves, list(feeds), placement,
                                                                                    self._rngs, self.local_task))
        return plan, [transfer(v, self.host, device) for (_, _, device), v in zip(plan.feed_slots, feeds.values())]

    def checkpoint(self):
        """Where a run can be replayed from: the committed variable values and the state of the
        random generators (``new_run(..., start=checkpoint)``)."""
        values = self.variables.values
        if isinstance(values, dict):  # a copy of the dict: its references keep a later write from going in place
            values = dict(values)
        return values, self._rngs.state()

    def new_run(self, plan, feed_values, subscribers=(), start=None):
        """A ``Run`` of ``plan`` (a cluster's run on a cluster target). A fresh run of a plan that
        ran before, with no subscribers, runs its compiled program. ``start`` (a ``checkpoint()``)
        rewinds the random generators and reads the variables as they were then."""
        if self.backend is not None:
            return self.backend.new_run(plan, self.variables, feed_values, self.host, subscribers)
        base = None
        if start is not None:
            base = start[0]
            self._rngs.restore(start[1])
        entry = self._plans.entry(plan)
        program = entry.program() if entry is not None and not subscribers else None
        return Run(plan, self.variables, feed_values, self.host, subscribers, base, program)

    def complete(self, run):
        """Fetches a run's values, commits its writes (holding the variables' write locks) and
        records it as the session's last run; returns the fetched values (flat)."""
        results = run.fetch()
        with self.variables.locked(run.plan.written_variables):
            run.commit()
        self.record_run(run.plan, None, run.feed_values)
        return results

    def compiled_program(self, plan):
        """The compiled program a steady run of ``plan`` uses (None: it is interpreted)."""
        entry = self._plans.entry(plan)
        return entry.built if entry is not None else None

    def record_run(self, plan, run_metadata=None, feed_values=()):
        """Notes that ``plan`` ran with ``feed_values`` (for ``last_plan``, ``plans_run``, the compiled
        program of its next run) and tells the listeners (``events.RunFinished``)."""
        entry = self._plans.entry(plan)
        if entry is not None:
            entry.runs += 1
        if plan is not self.last_plan and plan not in self.plans_run:
            self.plans_run.append(plan)
        self.last_plan, self.last_run_metadata = plan, run_metadata
        events.emit(events.RunFinished(self, plan, run_metadata, tuple(feed_values)))

    # -- stepping and loading ------------------------------------------------------------------
    def stepper(self, fetches, feed_dict=None):
        """A Stepper that runs ``fetches`` one step at a time (see ``runtime/stepper.py``)."""
        return Stepper(self, fetches, feed_dict)

    def load_variables(self, values):
        """Sets several variables at once ({Variable: value}), all or none: every value is checked
        (dtype, shape) before any variable changes."""
        if not isinstance(values, Mapping):
            raise TypeError(f"load_variables takes a dict {{Variable: value}}, got {type(values).__name__}")
        self._ensure_placed()
        staged = {}
        for variable, value in values.items():
            fed = _load_target(variable)  # TF's load feeds the initializer's value input
            arr = _feed_array(fed, value, variable)
            staged[variable.op.name] = transfer(arr, self.host, self.placement.device_of(variable.op))
        self.variables.assign(staged)

    def load_variable(self, variable, value):
        self.load_variables({variable: value})

    def __repr__(self):
        gpus = sum(d.device_type == "GPU" for d in self.devices)
        cpus = sum(d.device_type == "CPU" for d in self.devices)
        return f"<devlab.Session: {cpus} CPU, {gpus} GPU, {self.graph.version} ops>"


class InteractiveSession(Session):
    """A Session that makes itself the default on creation."""

    _count_lock = threading.Lock()
    _active_session_count = 0  # open InteractiveSessions: a second one logs TF's error

    def __init__(self, target="", graph=None, config=None):
        super().__init__(target, graph, config)
        with InteractiveSession._count_lock:
            if InteractiveSession._active_session_count > 0:
                logging.getLogger("tensorflow").error(
                    "An interactive session is already active. This can cause out-of-memory errors or some other "
                    "unexpected errors (due to the unpredictable timing of garbage collection) in some cases. You "
                    "must explicitly call `InteractiveSession.close()` to release resources held by the other "
                    "session(s). Please use `tf.Session()` if you intend to productionize.")
            InteractiveSession._active_session_count += 1
        self._explicitly_closed = False
        default_session.push(self)

    def close(self):
        default_session.pop(self, raise_on_misnesting=False)
        super().close()
        with InteractiveSession._count_lock:
            if not self._explicitly_closed:
                InteractiveSession._active_session_count -= 1
                self._explicitly_closed = True


class _DefaultSession:
    def __init__(self, session):
        self.session = session

    def __enter__(self):
        default_session.push(self.session)
        return self.session

    def __exit__(self, *exc):
        default_session.pop(self.session, raise_on_misnesting=exc[0] is None)
        return False


def _as_op(graph, obj):
    el = graph.as_graph_element(obj)
    return el.op if isinstance(el, Tensor) else el


def _check_session_arguments(target, graph, config):
    """TF's TypeErrors for a Session made with arguments of the wrong type."""
    if target is not None and not isinstance(target, (str, bytes)):
        text = f'Argument `target` must be a string, but got "{type(target).__name__}"'
        if isinstance(target, ConfigProto):
            text += '. Did you do "Session(config)" instead of "Session(config=config)"?'
        raise TypeError(text)
    if graph is not None and not isinstance(graph, Graph):
        raise TypeError(f'Argument `graph` must be a tf.Graph, but got "{type(graph).__name__}"')
    if config is not None and not isinstance(config, ConfigProto):
        raise TypeError(f'Argument `config` must be a tf.ConfigProto, but got "{type(config).__name__}"')


def _check_input_types(mistyped):
    """TF's InvalidArgumentError, for any run of the graph, while an input that ``_update_input``
    rewired holds a tensor of another dtype than its op expects (TF checks the whole graph)."""
    for op, inputs in mistyped.items():
        for index, expected in inputs.items():
            t = op.inputs[index]
            raise errors.InvalidArgumentError(None, None, f"Graph execution error:\n\nInput {index} of node {op.name} "
                                                          f"was passed {t.dtype.name} from {t.name} incompatible with "
                                                          f"expected {expected.name}.")


def _check_run_arguments(options, run_metadata):
    if options is not None and not isinstance(options, RunOptions):
        raise TypeError(f'Argument `options` must be a tf.RunOptions, but got "{type(options).__name__}"')
    if run_metadata is not None and not isinstance(run_metadata, RunMetadata):
        raise TypeError(f'Argument `run_metadata` must be a tf.RunMetadata, but got "{type(run_metadata).__name__}"')
    if options is not None and any(w.debug_urls for w in options.debug_options.debug_tensor_watch_opts):
        # a watch without URLs publishes nothing (TF inserts its debug op and nothing is written)
        raise argument("debug_urls", "tf.RunOptions.debug_options.debug_tensor_watch_opts (tfdbg)")


def _graph_element(graph, obj, allow_tensor=True, allow_operation=True):
    """``graph.as_graph_element`` with TF 2.x's exact errors (TypeError, ValueError, KeyError)."""
    kinds = "Tensor or Operation" if allow_tensor and allow_operation else "Tensor" if allow_tensor else "Operation"
    if hasattr(obj, "_as_graph_element"):
        obj = obj._as_graph_element()
    if isinstance(obj, bytes):
        obj = obj.decode("utf-8", "replace")
    if isinstance(obj, str):
        name = obj
        if ":" in name and allow_tensor:
            op_name, _, index = name.partition(":")
            if not index.isdigit() or not op_name:
                raise ValueError(f"The name {name!r} looks a like a Tensor name, but is not a valid one. Tensor "
                                 "names must be of the form \"<op_name>:<output_index>\".")
            try:
                op = graph.get_operation_by_name(op_name)
            except KeyError:
                raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. The operation, "
                               f"{op_name!r}, does not exist in the graph.") from None
            if int(index) >= len(op.outputs):
                raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. The operation, "
                               f"{op_name!r}, exists but only has {len(op.outputs)} outputs.")
            return op.outputs[int(index)]
        if ":" in name:
            raise ValueError(f"Name {name!r} appears to refer to a Tensor, not a {kinds}.")
        try:
            op = graph.get_operation_by_name(name)
        except KeyError:
            if allow_operation:
                raise KeyError(f"The name {name!r} refers to an Operation not in the graph.") from None
            op = None
        if allow_operation:
            return op
        what = (f"The name {name!r} refers to an Operation, not a {kinds}." if op is not None else
                f"The name {name!r} looks like an (invalid) Operation name, not a {kinds}.")
        raise ValueError(what + " Tensor names must be of the form \"<op_name>:<output_index>\".")
    if isinstance(obj, Tensor) and allow_tensor:
        if obj.graph is not graph:
            raise ValueError(f"Tensor {obj} is not an element of this graph.")
        return obj
    if isinstance(obj, Operation) and allow_operation:
        if obj.graph is not graph:
            raise ValueError(f"Operation {obj} is not an element of this graph.")
        return obj
    raise TypeError(f"Can not convert a {type(obj).__name__} into a {kinds}.")


def _as_fetch(graph, f):
    """A fetch as a Tensor or Operation of ``graph``, with TF's errors for anything else."""
    if f is None:
        raise TypeError('Argument `fetch` = None has invalid type "NoneType". Cannot be None')
    try:
        el = _graph_element(graph, f)
    except TypeError as e:
        raise TypeError(f'Argument `fetch` = {f} has invalid type "{type(f).__name__}" must be a string or '
                        f'Tensor. ({e})') from None
    except (ValueError, KeyError) as e:
        raise ValueError(f"Argument `fetch` = {f} cannot be interpreted as a Tensor. ({e})") from None
    if not graph.is_fetchable(el):
        op = getattr(el, "op", el)
        raise errors.InaccessibleTensorError(
            f"Operation {op.name} has been marked as not fetchable. Typically this happens when it is defined in "
            "another function or code block. Use return values, explicit Python locals or TensorFlow collections "
            "to access it.")
    return el


def _feed_items(feed_dict):
    """(key, value) pairs of a feed_dict; a tuple of tensors as a key takes a tuple of values."""
    if feed_dict is None:
        return []
    if not isinstance(feed_dict, Mapping):
        raise TypeError("FlattenDictItems: 'dict' must be a dictionary or collection.Mapping type object, "
                        f"instead of '{type(feed_dict).__name__}'.")
    items = []
    for key, value in feed_dict.items():
        if isinstance(key, (tuple, list)):  # a nest of keys takes the same nest of values (TF's FlattenDictItems)
            keys, values = _flatten(key), _flatten(value)
            if len(values) != len(keys):
                raise ValueError(f"Could not flatten dictionary. Key had {len(keys)} elements, but value had "
                                 f"{len(values)} elements. Key: {keys}, value: {values}.")
            for k, v in zip(keys, values):
                _add_feed(items, k, v)
        else:
            _add_feed(items, key, value)
    return items


def _flatten(nest):
    """The leaves of nested tuples and lists, in order."""
    if not isinstance(nest, (tuple, list)):
        return [nest]
    return [leaf for item in nest for leaf in _flatten(item)]


def _add_feed(items, key, value):
    """Appends the (tensor key, value) pairs of one feed: a SparseTensor or IndexedSlices key
    takes its parts' values."""
    if isinstance(key, SparseTensor):  # a SparseTensorValue or (indices, values, dense_shape)
        if isinstance(value, SparseTensor):
            raise TypeError("The value of a feed cannot be a tf.Tensor object. Acceptable feed values include "
                            "Python scalars, strings, lists, numpy ndarrays, or TensorHandles.")
        items.extend(zip((key.indices, key.values, key.dense_shape), value))
    elif isinstance(key, IndexedSlices):  # an IndexedSlicesValue or (values, indices[, dense_shape])
        parts = (key.values, key.indices) if key.dense_shape is None else (key.values, key.indices, key.dense_shape)
        items.extend(zip(parts, value))
    else:
        items.append((key, value))


def _as_feed(graph, key):
    if type(key) is Tensor and key.graph is graph and graph.is_feedable(key):
        return key  # the common case, decided without the checks below
    try:
        t = _graph_element(graph, key, allow_operation=False)
    except Exception as e:  # noqa: BLE001 - TF turns every failure to resolve a key into this TypeError
        raise TypeError(f"Cannot interpret feed_dict key as Tensor: {e.args[0] if e.args else e}") from None
    if not graph.is_feedable(t):
        raise ValueError(f"Tensor {t.name} may not be fed.")
    return t


def _fits(sizes, shape):
    """Whether an array of ``shape`` may be fed to a tensor of static ``sizes`` (None: any)."""
    return sizes is None or (len(sizes) == len(shape) and all(a is None or a == b for a, b in zip(sizes, shape)))


def _load_target(variable):
    """The tensor TF's ``Variable.load`` feeds: the initializer's value input (or the value)."""
    init = getattr(variable, "initializer", None)
    inputs = getattr(init, "inputs", ())
    return inputs[1] if len(inputs) > 1 else variable.value()


def _shape_text(shape):
    """A static shape as TF 2.x prints it: ``(2,)``, ``(None, 3)``, ``<unknown>``."""
    dims = TensorShape(shape).sizes
    return "<unknown>" if dims is None else str(tuple(dims))


def _feed_array(t, value, key=None):
    """``value`` as an array for tensor ``t``, with TF's errors for a wrong type or shape."""
    if type(value) is np.ndarray:  # the common case: an array of t's dtype and of a shape t takes
        dtype = t.dtype.base_dtype
        if value.dtype == dtype.as_numpy_dtype and dtype.name != "string" and _fits(t.shape.sizes, value.shape):
            return value  # what np.asarray(value, dtype) below returns: the array itself
    if isinstance(value, Tensor):
        raise TypeError("The value of a feed cannot be a tf.Tensor object. Acceptable feed values include "
                        "Python scalars, strings, lists, numpy ndarrays, or TensorHandles. For reference, the "
                        f"tensor object was {value} which was passed to the argument `feed_dict` with key "
                        f"{t if key is None else key}.")
    if value is None:  # numpy would make it a NaN (or a shape-() array): refuse it by name
        raise ValueError(f"Cannot feed value None for Tensor {t.name}: a feed needs a value, and None is not one "
                         f"(a {t.dtype.base_dtype.name} of shape {_shape_text(t.shape)} is expected)")
    np_dtype = t.dtype.base_dtype.as_numpy_dtype
    if isinstance(value, int):  # TF's check: a Python int must survive conversion to the tensor's type
        kind = np.dtype(np_dtype).kind
        if not isinstance(value, bool) and kind in "iu":
            info = np.iinfo(np_dtype)
            lost = not info.min <= value <= info.max
        else:  # TF converts to str for a string tensor (numpy type ``object``): 1 is not "1"
            lost = (str(value) if kind == "O" else np_dtype(np.array(value).astype(np_dtype))) != value
        if lost:
            raise TypeError(f"Type of feed value {value} with type {type(value)} is not compatible with Tensor "
                            f"type {object if kind == 'O' else np_dtype}. Try explicitly setting the type of the "
                            "feed tensor to a larger type (e.g. int64).")
    try:
        arr = np.asarray(value, dtype=np_dtype)
    except OverflowError as e:
        raise TypeError(f"Type of feed value {value} with type {type(value)} is not compatible with Tensor type "
                        f"{np_dtype}. ({e})") from None
    if t.dtype.base_dtype.name == "string":  # TF's strings are bytes: text is fed as its UTF-8
        arr = np.array(arr, dtype=object)  # a copy: the caller's array stays as it was
        for i, x in enumerate(arr.flat):
            if isinstance(x, str):
                arr.flat[i] = x.encode("utf-8")
    if not t.shape.is_compatible_with(arr.shape):
        raise ValueError(f"Cannot feed value of shape {arr.shape} for Tensor {t.name}, which has shape "
                         f"{_shape_text(t.shape)}")
    return arr


