"""Plain-Python stand-ins for TensorFlow's config and metadata protos.

``ConfigProto``, ``GPUOptions``, ``RunOptions`` (with tfdbg's ``DebugOptions``), ``RunMetadata`` (with ``step_stats`` and
``partition_graphs``) and ``GraphDef`` keep TF's field names, so TF1 code that sets or reads
them runs unchanged. Unknown keyword fields are accepted and kept, as a proto would.
"""
from dataclasses import dataclass, field


class _Message:
    """Fields by keyword; nested messages are created on first access, as with protos."""

    _defaults = {}

    def __init__(self, **kwargs):
        for k, v in self._defaults.items():
            setattr(self, k, v() if callable(v) else v)
        for k, v in kwargs.items():
            setattr(self, k, v)

    def __eq__(self, other):  # as protos compare: the same message type with the same fields
        return type(self) is type(other) and vars(self) == vars(other)

    __hash__ = None  # mutable, as a proto

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if v not in (None, {}, [], False, 0, ""))
        return f"{type(self).__name__}({fields})"


class _Repeated(list):
    """A repeated message field: a list whose ``add()`` appends a new message, as protobuf's."""

    def __init__(self, message_class):
        super().__init__()
        self._message_class = message_class

    def add(self, **kwargs):
        message = self._message_class(**kwargs)
        self.append(message)
        return message


def _repeated(message_class):
    return lambda: _Repeated(message_class)


class ThreadPoolOptionProto(_Message):
    """One of a session's inter-op thread pools (``ConfigProto.session_inter_op_thread_pool``)."""
    _defaults = {"num_threads": 0, "global_name": ""}


class VirtualDevices(_Message):
    _defaults = {"memory_limit_mb": list}


class GPUOptionsExperimental(_Message):
    _defaults = {"virtual_devices": list}


class GPUOptions(_Message):
    _defaults = {"allow_growth": False, "per_process_gpu_memory_fraction": 0.0, "visible_device_list": "",
                 "experimental": GPUOptionsExperimental}


class RewriteOptions(_Message):
    _defaults = {"disable_meta_optimizer": False, "min_graph_nodes": 0}


class OptimizerOptions(_Message):
    L1, L0 = 0, -1  # TF's Level enum: the default optimizations, or none (devlab does no graph rewrites)
    DEFAULT, OFF, ON_1, ON_2 = 0, -1, 1, 2  # TF's GlobalJitLevel enum
    _defaults = {"opt_level": 0}


class GraphOptions(_Message):
    _defaults = {"rewrite_options": RewriteOptions, "optimizer_options": OptimizerOptions, "infer_shapes": False}


class ConfigProto(_Message):
    """Session settings: ``device_count``, ``log_device_placement``, ``allow_soft_placement``..."""

    _defaults = {"device_count": dict, "log_device_placement": False, "allow_soft_placement": False,
                 "gpu_options": GPUOptions, "graph_options": GraphOptions, "intra_op_parallelism_threads": 0,
                 "inter_op_parallelism_threads": 0, "cluster_def": None,
                 "operation_timeout_in_ms": 0, "session_inter_op_thread_pool": _repeated(ThreadPoolOptionProto)}


class DebugTensorWatch(_Message):
    """One tensor tfdbg watches (``debug_pb2``): the node, its output, the debug ops and where they write."""
    _defaults = {"node_name": "", "output_slot": 0, "debug_ops": list, "debug_urls": list,
                 "tolerate_debug_op_creation_failures": False}


class DebugOptions(_Message):
    _defaults = {"debug_tensor_watch_opts": list, "global_step": -1, "reset_disk_byte_usage": False}


class RunOptions(_Message):
    NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE = 0, 1, 2, 3
    _defaults = {"trace_level": 0, "output_partition_graphs": False, "timeout_in_ms": 0, "inter_op_thread_pool": 0,
                 "debug_options": DebugOptions, "report_tensor_allocations_upon_oom": False}


class CallableOptions(_Message):
    """What ``Session._make_callable_from_options`` runs: tensor names to ``feed`` and ``fetch``,
    op names to run as ``target``, and the ``run_options`` of each call."""
    _defaults = {"feed": list, "fetch": list, "target": list, "run_options": RunOptions, "tensor_connection": list,
                 "feed_devices": dict, "fetch_devices": dict, "fetch_skip_sync": False}


@dataclass
class AllocationDescription:
    """Where an output's buffer is (TF's ``allocation_description``: ``ptr`` is its address)."""
    requested_bytes: int = 0
    allocated_bytes: int = 0
    allocator_name: str = ""
    ptr: int = 0


@dataclass
class TensorDescription:
    dtype: str = ""
    shape: tuple = ()
    allocation_description: AllocationDescription = field(default_factory=AllocationDescription)


@dataclass
class NodeOutput:
    """One output of an executed node (TF's ``NodeOutput``): its slot and its buffer."""
    slot: int = 0
    tensor_description: TensorDescription = field(default_factory=TensorDescription)


@dataclass
class NodeExecStats:
    """One executed node: TF's fields, plus devlab's modelled timing and transfer details."""
    node_name: str
    op: str
    all_start_micros: float
    all_end_rel_micros: float
    timeline_label: str = ""
    modelled_start_micros: float = 0.0
    modelled_rel_micros: float = 0.0
    bytes: int = 0
    transfer_from: str = ""  # for a transfer: the source device
    tensor: str = ""  # for a transfer: the tensor it moves
    output: list = field(default_factory=list)  # TF's NodeOutput per array output (a buffer forwarded keeps its ptr)


@dataclass
class DeviceStepStats:
    device: str
    node_stats: list = field(default_factory=list)
    simulated: bool = False


@dataclass
class StepStats:
    dev_stats: list = field(default_factory=list)


@dataclass
class GraphDef:
    node: list = field(default_factory=list)
    versions: dict = field(default_factory=dict)


@dataclass
class RunMetadata:
    step_stats: StepStats = field(default_factory=StepStats)
    partition_graphs: list = field(default_factory=list)
    cost_graph: object = None

    def Clear(self):  # noqa: N802 - TF's method name
        self.step_stats = StepStats()
        self.partition_graphs = []

    def HasField(self, name):  # noqa: N802 - TF's (protobuf's) method name
        """Whether the message field ``name`` was filled in (a traced run's ``step_stats``)."""
        if name == "step_stats":
            return bool(self.step_stats.dev_stats)
        if name == "cost_graph":
            return self.cost_graph is not None
        raise ValueError(f'Protocol message RunMetadata has no singular "{name}" field.')
