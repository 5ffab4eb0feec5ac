"""``MirroredStrategy``: synchronous data parallelism, one tower per device (seed 003).

``call_for_each_tower(fn)`` builds ``fn`` once per device, under ``tf.device(d)``, name scope
``tower_i`` (i > 0) and variable reuse for i > 0. Variables created in ``scope()`` become
MirroredVariables: one component per device, updated together by ``update``. ``merge_call``
pauses every tower and runs a function once, in the cross-tower context, on the values of all
towers (PerDevice); reductions are real ops placed on their destination devices, so their
copies show in the placement log, the graph and the timeline.

As in TensorFlow's graph mode, each tower runs in its own thread, one at a time, so that a
``merge_call`` can pause a tower half-way through ``fn`` until all towers reach it. When a tower
(or a merge function) fails, every tower still paused is woken with ``TowerAborted`` raised from
its ``merge_call`` and joined before the error reaches the caller: no thread is left blocked.
"""
import contextlib
import threading

from ..framework.device_spec import DeviceSpec
from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from ..framework.scopes import colocate_with, device, name_scope
from ..api import math_ops
from ..api.array_ops import identity
from ..api.control_flow_ops import group
from ..api.variable_scope import variable_scope
from ..api.variables import variable_creator_scope
from ..api.variable_sync import VariableAggregation, VariableSynchronization
from .context import CrossTowerContext, TowerContext, context_stack, get_tower_context
from .data import DistributedIterator
from .values import (DistributedValues, Mirrored, MirroredVariable, PerDevice, TowerLocalVariable, WorkerDeviceIndex,
                     regroup, select_device)
from ..unimplemented import argument, reject

class TowerAborted(BaseException):
    """Raised inside a paused tower's ``merge_call`` when another tower failed, so that it ends.
    A BaseException, so that ``except Exception`` in a tower function does not keep it alive."""


class _TowerThread(threading.Thread):
    """Runs ``fn`` for one tower; pauses at ``merge_call`` until the main thread resumes it."""

    def __init__(self, strategy, tower_id, device_name, fn, args, kwargs, captured):
        super().__init__(daemon=True)
        self.strategy, self.tower_id, self.device_name = strategy, tower_id, device_name
        self.fn, self.args, self.kwargs, self.captured = fn, args, kwargs, captured
        self.should_run, self.has_paused = threading.Event(), threading.Event()
        self.done, self.result, self.error = False, None, None
        self.merge_request = None  # (merge_fn, args, kwargs) while paused in merge_call
        self.merge_result = None
        self.aborted = False  # set by the main thread to end a paused tower

    def run(self):
        self.should_run.wait()
        self.should_run.clear()
        graph = self.captured[0]
        try:
            if self.aborted:
                raise TowerAborted(f"tower {self.tower_id} was not started: another tower failed")
            graph.enter_captured_scopes(self.captured[1])
            with graph.as_default():
                context_stack().append(TowerContext(self.strategy, self.tower_id, self.device_name, self))
                with device(self.device_name), name_scope(f"tower_{self.tower_id}" if self.tower_id else None), \
                        variable_scope(self.captured[2], reuse=self.tower_id > 0, auxiliary_name_scope=False):
                    self.result = self.fn(*select_device(self.device_name, self.args),
                                          **select_device(self.device_name, self.kwargs))
        except BaseException as e:  # noqa: BLE001 - handed to the main thread, which re-raises
            self.error = e
        finally:
            self.done = True
            self.has_paused.set()

    def merge(self, merge_fn, args, kwargs):
        self.merge_request = (merge_fn, args, kwargs)
        self.has_paused.set()
        self.should_run.wait()
        self.should_run.clear()
        if self.aborted:
            raise TowerAborted(f"tower {self.tower_id} stopped in merge_call: another tower failed")
        return self.merge_result

    def step(self):
        """Lets this tower run until it finishes or reaches a merge_call."""
        self.has_paused.clear()
        self.merge_request = None
        self.should_run.set()
        self.has_paused.wait()

    def abort(self, timeout=10.0):
        """Ends this tower if it has not finished: wakes it (its merge_call raises TowerAborted)
        and waits for its thread."""
        if not self.done and self.is_alive():
            self.aborted = True
            self.has_paused.clear()
            self.should_run.set()
            self.has_paused.wait(timeout)
        self.join(timeout)


class MirroredStrategy:
    def __init__(self, devices=None, num_gpus=None, cross_tower_ops=None, prefetch_on_device=None):
        if devices is None:
            if num_gpus is None:
                from ..devices.device_set import build_devices
                num_gpus = sum(d.device_type == "GPU" for d in build_devices())
            devices = [f"/device:GPU:{i}" for i in range(num_gpus)] or ["/device:CPU:0"]
        if not devices:
            raise ValueError("Must specify at least one device.")
        self._devices = [_resolve(d) for d in devices]
        if len(set(self._devices)) != len(self._devices):
            raise ValueError("No duplicates allowed in `devices` argument.")
        # TF 1.x builds its default reduction (to one device) without these; another CrossTowerOps
        # (all-reduce) or prefetching builds other ops, which devlab does not yet
        reject("tf.contrib.distribute.MirroredStrategy", cross_tower_ops=(cross_tower_ops, None),
               prefetch_on_device=(prefetch_on_device, None))
        self._colocate_devices = None
        self._tower_local = None
        self._session_config = None

    # -- properties ----------------------------------------------------------------------------
    @property
    def worker_devices(self):
        return list(self._devices)

    @property
    def parameter_devices(self):
        return list(self._devices)

    @property
    def num_towers(self):
        return len(self._devices)

    @property
    def is_single_tower(self):
        return len(self._devices) == 1

    @property
    def worker_device_index(self):
        return WorkerDeviceIndex({d: i for i, d in enumerate(self._devices)}) if not self.is_single_tower else 0

    # -- scopes --------------------------------------------------------------------------------
    @contextlib.contextmanager
    def scope(self):
        """Cross-tower context: variables created inside are mirrored on every device."""
        context_stack().append(CrossTowerContext(self))
        try:
            with variable_creator_scope(self._create_variable):
                yield self
        finally:
            context_stack().pop()

    @contextlib.contextmanager
    def colocate_vars_with(self, colocate_with_variable):
        """Variables created inside go to the devices of ``colocate_with_variable``."""
        saved = self._colocate_devices
        self._colocate_devices = list(getattr(colocate_with_variable, "devices", None)
                                      or [_resolve(colocate_with_variable.device)])
        try:
            yield
        finally:
            self._colocate_devices = saved

    @contextlib.contextmanager
    def tower_local_var_scope(self, reduce_method):
        """Variables created inside are tower-local (not synced, not trainable), reduced on fetch."""
        if reduce_method not in ("sum", "mean"):
            raise ValueError(f"reduce_method must be 'sum' or 'mean', got {reduce_method!r}")
        saved = self._tower_local
        self._tower_local = reduce_method
        try:
            yield
        finally:
            self._tower_local = saved

    def configure(self, session_config=None):
        self._session_config = session_config

    # -- variables -----------------------------------------------------------------------------
    def _create_variable(self, next_creator, **kwargs):
        """One component per device: the primary is named as asked, the others ``<name>/replica_i``."""
        ctx = get_tower_context()
        if ctx is not None and ctx.strategy is self and ctx.tower_id > 0:
            raise RuntimeError("devlab creates mirrored variables in tower 0; use get_variable with reuse")
        _reject_sync_modes(kwargs)
        devices = self._colocate_devices or self._devices
        collections = kwargs.pop("collections", None) or [GraphKeys.GLOBAL_VARIABLES]
        trainable = kwargs.pop("trainable", True) and self._tower_local is None
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections = list(collections) + [GraphKeys.TRAINABLE_VARIABLES]
        index, primary = {}, None
        for i, d in enumerate(devices):
            with device(d):
                kw = dict(kwargs)
                if i > 0:
                    kw["name"] = f"{primary.op.name}/replica_{i}"
                    # every component starts from the primary's initial value, even a random one
                    kw["initial_value"] = lambda p=primary: identity(p.initial_value)
                    kw.pop("dtype", None)
                var = next_creator(collections=[], trainable=trainable, **kw)
            index[d] = var
            primary = primary or var
        wrapper = (TowerLocalVariable(index, primary, self._tower_local) if self._tower_local
                   else MirroredVariable(index, primary))
        for v in index.values():
            v._mirrored_owner = wrapper
        get_default_graph().add_to_collections(collections, wrapper)
        return wrapper

    # -- towers --------------------------------------------------------------------------------
    def call_for_each_tower(self, fn, *args, **kwargs):
        """Runs ``fn`` once per tower; returns the regrouped results (PerDevice or shared)."""
        kwargs.pop("run_concurrently", None)
        graph = get_default_graph()
        graph.switch_to_thread_local()
        from ..api.variable_scope import get_variable_scope
        captured = (graph, graph.capture_scopes(), get_variable_scope())
        threads = [_TowerThread(self, i, d, fn, args, kwargs, captured) for i, d in enumerate(self._devices)]
        for t in threads:
            t.start()
        try:
            return self._run_towers(threads)
        finally:  # a failed tower or merge function must leave no tower thread waiting forever
            for t in threads:
                t.abort()

    def _run_towers(self, threads):
        for t in threads:
            t.step()
        while True:
            for t in threads:
                if t.error is not None:
                    raise t.error
            waiting = [t for t in threads if not t.done]
            if not waiting:
                break
            if len(waiting) != len(threads):
                raise RuntimeError("merge_call must be called by every tower, the same number of times")
            merge_fn, _, kw = threads[0].merge_request
            gathered = [regroup({t.device_name: t.merge_request[1][i] for t in threads})
                        for i in range(len(threads[0].merge_request[1]))]
            context_stack().append(CrossTowerContext(self))
            try:
                merged = merge_fn(self, *gathered, **kw)
            finally:
                context_stack().pop()
            for t in threads:
                t.merge_result = merged
                t.step()
        return regroup({t.device_name: t.result for t in threads})

    # -- cross-tower operations ----------------------------------------------------------------
    def reduce(self, method_string, value, destinations=None):
        """Sums (or averages) a per-device value on the first destination, then mirrors it there."""
        if method_string not in ("sum", "mean"):
            raise ValueError(f"method_string must be 'sum' or 'mean', got {method_string!r}")
        parts = self.unwrap(value)
        dests = self._destinations(destinations, value)
        with device(dests[0]):
            total = math_ops.add_n(list(parts)) if len(parts) > 1 else identity(parts[0])
            if method_string == "mean":
                total = math_ops.multiply(total, 1.0 / len(parts))
        return self._mirror(total, dests)

    def batch_reduce(self, method_string, value_destination_pairs):
        return [self.reduce(method_string, v, d) for v, d in value_destination_pairs]

    def broadcast(self, tensor, destinations=None):
        """Copies ``tensor`` to every destination (default: the worker devices)."""
        return self._mirror(tensor, self._destinations(destinations, None))

    def _mirror(self, tensor, dests):
        if len(dests) == 1:
            return Mirrored({dests[0]: tensor})
        out = {}
        for d in dests:
            with device(d):
                out[d] = identity(tensor)
        return Mirrored(out)

    def _destinations(self, destinations, value):
        if destinations is None:
            if isinstance(value, DistributedValues):
                return value.devices
            return list(self._devices)
        if isinstance(destinations, DistributedValues):
            return destinations.devices
        if isinstance(destinations, str):
            return [_resolve(destinations)]
        if hasattr(destinations, "device") and not isinstance(destinations, (list, tuple)):
            return [_resolve(destinations.device)]
        return [_resolve(d) for d in destinations]

    def update(self, var, fn, *args, **kwargs):
        """``fn(component, *args)`` on every device of ``var`` (Mirrored args unwrapped per device)."""
        if not isinstance(var, MirroredVariable):
            with colocate_with(var):
                return fn(var, *args, **kwargs)
        out = {}
        for i, (d, component) in enumerate(var._index.items()):
            with device(d), name_scope(f"update_{i}"):
                out[d] = fn(component, *select_device(d, args), **select_device(d, kwargs))
        return regroup(out) if isinstance(next(iter(out.values())), DistributedValues) else Mirrored(out)

    def non_slot_devices(self, var_list):
        return list(self._devices)

    def update_non_slot(self, colocate_with, fn, *args, **kwargs):
        out = {}
        for d in colocate_with:
            with device(d):
                out[d] = fn(*select_device(d, args), **select_device(d, kwargs))
        return Mirrored(out)

    def unwrap(self, value):
        """The components of ``value`` in device order ([value] for a plain value)."""
        if isinstance(value, DistributedValues):
            return [value._index[d] for d in value.devices]
        return [value]

    def fetch(self, val, destination="/device:CPU:0", fn=lambda x: x):
        """A tensor on ``destination``: the component already there if any, else a copy
        (tower-local variables are reduced first)."""
        destination = _resolve(destination)
        if isinstance(val, TowerLocalVariable):
            val = self.reduce(val.reduce_method, PerDevice({d: v.value() for d, v in val._index.items()}),
                              destinations=destination).get(destination)
        elif isinstance(val, DistributedValues):
            val = val._index.get(destination, val.get(val.devices[0]))
        with device(destination):
            return fn(val)

    def group(self, value, name=None):
        return group(*self.unwrap(value), name=name)

    def map(self, map_over, fn, *args, **kwargs):
        """``fn(item)`` for each item, spread round-robin over the devices; PerDevice of lists."""
        index = {}
        for i, item in enumerate(map_over):
            d = self._devices[i % len(self._devices)]
            with device(d):
                index.setdefault(d, []).append(fn(item, *select_device(d, args), **select_device(d, kwargs)))
        return PerDevice(index)

    def distribute_dataset(self, dataset):
        """An iterator whose ``get_next()`` gives each tower its share of the next batch."""
        if callable(dataset):
            dataset = dataset()
        return DistributedIterator(dataset, self._devices)


def _resolve(device_name):
    """TF's ``device_util.resolve`` in graph mode: ``/replica:0/task:0/device:GPU:0``."""
    spec = DeviceSpec.from_string(device_name)
    merged = DeviceSpec(replica=0, task=0, device_type="CPU", device_index=0).make_merged_spec(spec)
    if spec.device_type is not None and spec.device_index is None:
        merged = merged.replace(device_index=0)
    return merged.to_string()


def _reject_sync_modes(kwargs):
    """This strategy mirrors every variable (tower-local ones through ``tower_local_var_scope``): a
    variable asked to sync on read, or to aggregate its replicas' updates, is not built yet."""
    sync = kwargs.get("synchronization")
    if sync not in (None, VariableSynchronization.AUTO, VariableSynchronization.ON_WRITE):
        raise argument("synchronization", "a MirroredStrategy variable")
    if kwargs.get("aggregation") not in (None, VariableAggregation.NONE):
        raise argument("aggregation", "a MirroredStrategy variable")
