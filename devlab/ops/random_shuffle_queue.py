"""``RandomShuffleQueueV2``: a queue that dequeues its elements in random order (``tf.train.shuffle_batch``).

It is a FIFOQueue (same enqueue, close and cancellation) whose dequeue waits until
``min_after_dequeue`` elements would be left (unless it is closed) and takes each element at a
random position, drawn by the queue's own generator, seeded from the op's ``seed``/``seed2``
(random when both are 0). The order is not TF's (TF's generator is not reproduced), and, as in
TF, it also depends on how far the enqueue threads have got when each dequeue runs.
"""
import numpy as np

from .fifo_queue import FIFOQueue
from .resource_mgr import resources_of


class RandomShuffleQueue(FIFOQueue):
    KIND = "RandomShuffleQueue"

    def __init__(self, name, dtypes, shapes, capacity, min_after_dequeue, seed, seed2):
        super().__init__(name, dtypes, shapes, capacity)
        self.min_after_dequeue = max(int(min_after_dequeue), 0)
        self._rng = np.random.default_rng(None if seed == 0 and seed2 == 0 else [seed, seed2])
        self._items = []

    def _enough(self, n):
        return len(self._items) >= n + self.min_after_dequeue

    def _pop(self):
        items = self._items
        i = int(self._rng.integers(len(items)))
        items[i], items[-1] = items[-1], items[i]
        return items.pop()


def random_shuffle_queue_v2(k):
    a = k.attrs
    types, shapes, capacity = a["component_types"], a.get("shapes") or None, a.get("capacity", -1)
    handle, queue = resources_of(k).create(
        a.get("container", ""), a.get("shared_name", ""), k.op_name,
        lambda name: RandomShuffleQueue(name, types, shapes, capacity, a.get("min_after_dequeue", 0),
                                        a.get("seed", 0), a.get("seed2", 0)))
    queue.check_matches(types, shapes, capacity)
    return handle
