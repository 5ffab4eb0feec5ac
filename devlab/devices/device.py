"""A device: a full TF name plus the array module that stores its tensors (needle's
``BackendDevice(name, mod)``). A *simulated* GPU stores numpy arrays but keeps a GPU identity,
so placement, transfers and the timeline behave as on a machine with that GPU."""
from dataclasses import dataclass, field

from ..framework.device_spec import DeviceSpec
from ..ops.kernel_registry import priority

@dataclass(eq=False)
class Device:
    job: str
    replica: int
    task: int
    device_type: str
    index: int
    xp: object = field(repr=False)  # numpy or cupy
    simulated: bool = False
    physical_id: int = None  # the CUDA device behind a real (or logical) GPU
    description: str = ""  # the "Device mapping:" text; CPUs have none, as in TF
    stream: object = field(default=None, repr=False)  # a real GPU's own CUDA stream (made on first use)
    # the queues and accumulators kernels on this device share (ops/resource_mgr.py), as a session sees them
    resource_manager: object = field(default=None, repr=False)
    name: str = field(init=False, repr=False)  # the full name, e.g. /job:localhost/replica:0/task:0/device:GPU:0
    backend: str = field(init=False, repr=False)  # "numpy" or "cupy": what stores its tensors

    def __post_init__(self):
        self.name = f"/job:{self.job}/replica:{self.replica}/task:{self.task}/device:{self.device_type}:{self.index}"
        self.backend = "cupy" if self.device_type == "GPU" and not self.simulated else "numpy"

    @property
    def spec(self):
        return DeviceSpec(self.job, self.replica, self.task, self.device_type, self.index)

    @property
    def short_name(self):
        """``GPU:0``, or ``/job:ps/task:0/CPU:0`` when the job is not the local one."""
        base = f"{self.device_type}:{self.index}"
        return base if self.job == "localhost" else f"/job:{self.job}/task:{self.task}/{base}"

    @property
    def priority(self):
        return priority(self.device_type)

    def matches(self, spec):
        """Whether this device satisfies every field that the (partial) ``spec`` sets."""
        return ((spec.job is None or spec.job == self.job)
                and (spec.replica is None or spec.replica == self.replica)
                and (spec.task is None or spec.task == self.task)
                and (spec.device_type is None or spec.device_type == self.device_type)
                and (spec.device_index is None or spec.device_index == self.index))

    def sort_key(self):
        """TF's device order: higher-priority type first, then by name fields."""
        return (-self.priority, self.job, self.replica, self.task, self.device_type, self.index)

    def __repr__(self):
        kind = "simulated " if self.simulated else ""
        return f"<Device {self.name} ({kind}{self.backend})>"
