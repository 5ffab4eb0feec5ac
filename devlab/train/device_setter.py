"""``replica_device_setter``: variables to parameter-server tasks (round robin), the rest to workers.

It returns a device *function* for ``tf.device``. For each op it merges the op's own device
(set by inner scopes) over ``ps_device`` for variable ops, or over ``worker_device`` for
everything else, so ``with tf.device("/cpu:0")`` inside still picks the CPU of that task.
"""
from ..framework.device_spec import DeviceSpec
from ..framework.operation import NodeDef
from ..runtime.cluster import ClusterSpec

STANDARD_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "MutableHashTable", "MutableHashTableV2",
                   "MutableHashTableOfTensors", "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
                   "MutableDenseHashTableV2", "VarHandleOp", "BoostedTreesEnsembleResourceHandleOp")


class _RoundRobinStrategy:
    """Task 0, 1, ..., n-1, 0, ... one per variable."""

    def __init__(self, num_tasks):
        self._num_tasks = num_tasks
        self._next = 0

    def __call__(self, op):
        task = self._next
        self._next = (self._next + 1) % self._num_tasks
        return task


class _ReplicaDeviceChooser:
    def __init__(self, ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy):
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = ps_ops
        self._ps_strategy = ps_strategy

    def device_function(self, op):
        """The device for ``op`` (TF's ``_ReplicaDeviceChooser.device_function``)."""
        if not self._merge_devices and op.device:
            return op.device
        current = DeviceSpec.from_string(op.device or "")
        node_def = op if isinstance(op, NodeDef) else op.node_def
        if self._ps_tasks and self._ps_device and node_def.op in self._ps_ops:
            ps = DeviceSpec.from_string(self._ps_device)
            if ps.job is not None and (current.job is None or current.job == ps.job):
                ps = ps.replace(task=self._ps_strategy(op))
            return ps.make_merged_spec(current).to_string()
        worker = DeviceSpec.from_string(self._worker_device or "")
        return worker.make_merged_spec(current).to_string()

    __call__ = device_function


def replica_device_setter(ps_tasks=0, ps_device="/job:ps", worker_device="/job:worker", merge_devices=True,
                          cluster=None, ps_ops=None, ps_strategy=None):
    """A device function placing variables on the tasks of ``ps_device``'s job (round robin)
    and the other ops on ``worker_device``; None when the cluster lacks that job."""
    if cluster is not None:
        # The ps job is the one ps_device names ("/job:moon" -> moon), not always "ps".
        cluster_spec = cluster if isinstance(cluster, ClusterSpec) else ClusterSpec(cluster)
        ps_job_name = DeviceSpec.from_string(ps_device).job
        if ps_job_name not in cluster_spec.jobs:
            return None
        ps_tasks = cluster_spec.num_tasks(ps_job_name)
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if not merge_devices:
        import warnings
        warnings.warn("DEPRECATION: It is recommended to set merge_devices=true in replica_device_setter")
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable")
    chooser = _ReplicaDeviceChooser(ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy)
    return chooser.device_function
