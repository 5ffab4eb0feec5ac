"""``Coordinator``: the thread scaffolding of TF1 input pipelines.

A ``Coordinator`` coordinates whatever threads the program registers (``should_stop``, ``request_stop``, ``join``), as TF's does, so scripts written around them run.
``LooperThread`` calls a function on a timer until the Coordinator stops (Supervisor's services).
"""
import contextlib
import sys
import threading
import time

from ..framework import errors


class Coordinator:
    """Lets threads ask each other to stop, and waits for them (TF's ``tf.train.Coordinator``)."""

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:  # the end of the input is a normal way to stop, as in TF
            clean_stop_exception_types = tuple(e for e in [getattr(errors, "OutOfRangeError", None)] if e)
        self._clean = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._exc_info = None
        self._registered_threads = set()
        self._joined = False

    def should_stop(self):
        return self._stop.is_set()

    def request_stop(self, ex=None):
        """Asks every thread to stop; an exception given (or being handled) is kept for ``join``,
        unless a stop was requested already: what threads raise while stopping (an enqueue
        cancelled as its queue closes) is not news, as in TF."""
        with self._lock:
            exc = ex[1] if isinstance(ex, tuple) else ex
            if exc is not None and isinstance(exc, self._clean):
                ex = exc = None
            if self._joined and exc is not None:  # joined already: nobody would report it, so raise it (TF's)
                raise exc
            if self._stop.is_set():
                return
            if ex is not None and self._exc_info is None:
                self._exc_info = (type(ex), ex, ex.__traceback__) if isinstance(ex, BaseException) else ex
            self._stop.set()

    def clear_stop(self):
        with self._lock:
            self._joined = False
            self._exc_info = None
            self._stop.clear()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """Inside the block, an exception requests a stop instead of propagating."""
        try:
            yield
        except Exception:  # noqa: BLE001 - TF's Coordinator catches everything a thread raises
            self.request_stop(ex=sys.exc_info()[1])

    def wait_for_stop(self, timeout=None):
        return self._stop.wait(timeout)

    def register_thread(self, thread):
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Waits for the threads (given and registered), then re-raises what stopped them."""
        threads = set(threads or ()) | self._registered_threads
        deadline = None
        while any(t.is_alive() for t in threads):
            if self._stop.is_set():
                deadline = deadline or time.monotonic() + stop_grace_period_secs
                if time.monotonic() > deadline:
                    if not ignore_live_threads:
                        names = [t.name for t in threads if t.is_alive()]
                        raise RuntimeError(f"Coordinator stopped with threads still running: {' '.join(names)}")
                    break
            time.sleep(0.01)
        self._joined = True
        self._registered_threads = set()
        self.raise_requested_exception()

    def raise_requested_exception(self):
        with self._lock:
            if self._exc_info is not None:
                exc_type, exc, tb = self._exc_info
                raise exc.with_traceback(tb)

    @property
    def joined(self):
        return self._joined


class LooperThread(threading.Thread):
    """A daemon thread that calls ``run_loop()`` (or ``target``) every ``timer_interval_secs`` (back
    to back when None) until its Coordinator stops; the first call is at once. TF's Supervisor runs
    its checkpoint and summary services on these."""

    def __init__(self, coord, timer_interval_secs, target=None, args=None, kwargs=None):
        if not isinstance(coord, Coordinator):
            raise ValueError(f"'coord' argument must be a Coordinator: {coord}")
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        if self._target:
            self._args, self._kwargs = args or (), kwargs or {}
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also pass 'target'")
        self._coord.register_thread(self)

    @staticmethod
    def loop(coord, timer_interval_secs, target, args=None, kwargs=None):
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        return looper

    def run(self):
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_time = time.time()
                while not self._coord.wait_for_stop(max(0.0, next_time - time.time())):
                    next_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self):
        pass

    def stop_loop(self):
        pass

    def run_loop(self):
        if self._target:
            self._target(*self._args, **self._kwargs)
