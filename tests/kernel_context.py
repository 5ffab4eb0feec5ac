"""What a kernel sees of its step, for tests that call kernels directly (no graph, no session)."""
import threading

import numpy as np


class Context:
    """A kernel's context (``runtime/steps.py``): numpy, the attrs, no planned buffer, and with
    ``threads`` a ``parts`` that runs each index in a thread of its own (as ``parallel.ranges``
    does on as many cores)."""

    def __init__(self, attrs, threads=False):
        self.xp, self.attrs, self.out = np, attrs, None
        if threads:
            self.parts = self._parts

    @staticmethod
    def _parts(fn, count, blas=True, few=False):
        workers = [threading.Thread(target=fn, args=(i, i + 1)) for i in range(count)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
