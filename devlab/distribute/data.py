"""A small in-memory dataset for ``distribute_dataset``: batches of an array, split per tower.

Each tower's share comes from a ``DatasetSlice`` op: CPU-only, as TF's input pipeline runs on
the host, so the copy of every split to its GPU shows in the placement log and the timeline.
"""
import numpy as np

from ..framework import dtypes
from ..framework.scopes import device, name_scope
from ..ops.build import apply_op_output
from .values import PerDevice


class Dataset:
    """``Dataset.from_tensor_slices(array).batch(n)``: an array, read in batches of n rows."""

    def __init__(self, data, batch_size=None):
        self.data = np.asarray(data)
        self.batch_size = batch_size

    @classmethod
    def from_tensor_slices(cls, data):
        return cls(data)

    def batch(self, batch_size):
        if batch_size > len(self.data):
            raise ValueError(f"batch size {batch_size} is larger than the dataset ({len(self.data)} rows)")
        return Dataset(self.data, batch_size)


class DistributedIterator:
    def __init__(self, dataset, devices):
        if dataset.batch_size is None:
            raise ValueError("distribute_dataset needs a batched dataset: call .batch(n) first")
        if dataset.batch_size % len(devices):
            raise ValueError(f"batch size {dataset.batch_size} does not split evenly over {len(devices)} towers")
        self.dataset = dataset
        self.devices = devices

    def get_next(self, name="IteratorGetNext"):
        """One tensor per tower: that tower's share of the next batch (a PerDevice)."""
        data, per = self.dataset.data, self.dataset.batch_size // len(self.devices)
        out = {}
        with name_scope(name):
            for i, d in enumerate(self.devices):
                with device("/device:CPU:0"):
                    # the iterator's position: a variable the slice op reads and advances
                    position = apply_op_output("VariableV2", [], {"shape": None, "dtype": dtypes.int64,
                                                                   "container": b"", "shared_name": ""},
                                               f"tower_{i}_position")
                    out[d] = apply_op_output("DatasetSlice", [position], {
                        "data": data, "batch": self.dataset.batch_size, "tower": i, "towers": len(self.devices),
                        "dtype": dtypes.as_dtype(data.dtype), "shape": (per,) + data.shape[1:]}, f"tower_{i}")
        return PerDevice(out)
