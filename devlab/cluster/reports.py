"""What a cluster run did, as data: the tensors that crossed tasks and where each task runs."""
from dataclasses import dataclass, field

from .split import task_name


@dataclass(frozen=True)
class TransferRecord:
    """One tensor that moved between two tasks' workers: its ``_Send``/``_Recv`` pair, the bytes
    it carried and the measured time from the send on one worker to its arrival on the other."""
    cross: object  # split.CrossTask
    nbytes: int
    seconds: float

    def __str__(self):
        c = self.cross
        return (f"{c.send_name} (_Send) on {c.src} -> {c.recv_name} (_Recv) on {c.dst}: {c.tensor}, "
                f"{self.nbytes:,} bytes in {self.seconds * 1e3:.2f} ms")


@dataclass
class RunReport:
    """The cross-task traffic of one run (``devlab.cluster.last_run(sess)``)."""
    run_id: str
    tasks: dict  # task -> (worker address, pid) of the tasks that took part
    transfers: list = field(default_factory=list)
    seconds: float = 0.0  # the master's wall time for phase one

    @property
    def bytes_moved(self):
        return sum(t.nbytes for t in self.transfers)

    def bytes_between(self):
        """{(source task, destination task): bytes} moved in this run."""
        out = {}
        for t in self.transfers:
            key = (t.cross.src_task, t.cross.dst_task)
            out[key] = out.get(key, 0) + t.nbytes
        return out

    def __str__(self):
        lines = [f"Run {self.run_id}: {len(self.tasks)} task(s), {len(self.transfers)} cross-task transfer(s), "
                 f"{self.bytes_moved:,} bytes moved"]
        lines += ["  " + str(t) for t in self.transfers]
        return "\n".join(lines)


@dataclass
class TaskInfo:
    """Where one task runs and the variables it holds: {name: (shape, dtype, nbytes)}."""
    task: tuple
    address: str
    pid: int
    worker_name: str
    variables: dict

    @property
    def name(self):
        return task_name(self.task)
