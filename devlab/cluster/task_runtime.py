"""The devlab task runtime: one per task, in the process of the Dask worker that serves the task.

It holds the task's variables (a ``SharedStore``, the store of an in-process cluster's task)
and drives the task's part of each plan as a ``TaskRun`` (``task_run.py``: the runtime's ``Run``,
which owns the writes and runs each op with its kernel, plus sends and recvs); nothing is
committed until every task of the run is ready. A run on a task goes:

1. execute the steps in the plan's order. A ``send`` hands a value straight to the consuming
   task's worker (``deliver``: worker to worker over the data plane, ``channel.py``, never
   through the client); what a task owes another goes in one message, just before the task waits for a
   ``recv`` (or at its end). A task whose part writes variables holds the task's write lock
   from its first read to the decision.
2. prepare: every step succeeded and the fetched values are read. The run's writes are still
   its own (``Run.writes``). The task *votes*: it tells each task that writes variables that it
   is prepared, in the same message as its last values.
3. commit: a task that writes commits once every other task of the run voted. If any task
   fails (a kernel error, a worker that cannot be reached), the master aborts the run on every
   task and no task changes a variable: a two-phase commit whose decision each writing task
   takes from the votes, so it costs no extra round trip from the master.

The master and the other tasks reach the runtime at the listener ``info`` starts (the calls in
``CALLS``). The methods are coroutines on the worker's event loop, so deliveries arrive while a run waits
for them; kernels run on the loop, or in a thread once a part has shown itself slow. A writing
task that waits ``DECISION_TIMEOUT`` seconds for a vote abandons the run, so a client that dies
mid-run cannot hold a task's lock for ever.

Queues and accumulators live in the task's ``ResourceMgr`` of their device, one per device for
the life of the worker process, so every client's session shares them as TF's per-server
resources are shared. A part with an op that may wait for another run (``OpDef.blocking``: a
dequeue, a take_grad) runs in a pool of several threads, never on the loop, with a
``CancellationManager`` current: the run's time limit (``timeout_in_ms``), its abort, or its
session's close wakes the waiting kernel. Such a part publishes its writes before it hands
something to another run (``framework/publishing.py``), as the in-process cluster does.
"""
import asyncio
import functools
import os
import socket
import time
import traceback
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

from ..devices import parallel
from ..framework import cancellation, errors, publishing
from ..ops.resource_mgr import ResourceMgr
from ..runtime.server_state import SharedStore
from . import channel, heap
from .split import task_name, task_of_name
from .task_run import TaskRun, is_recv
from .task_steps import RecvStep, TaskPlan, random_generators

DECISION_TIMEOUT = 120.0  # seconds a prepared writer waits for the other tasks' votes
SLOW_SECONDS = 0.05  # a run whose kernels took more CPU time computes in a thread from then on
MAX_PLANS = 512
WAITING_THREADS = 32  # parts that may wait run at once in threads (each may wait for another's enqueue)
CALLS = frozenset({"info", "variables", "forget", "coordinate", "run", "abort", "lock", "deliver", "assign"})


class Aborted(Exception):
    """The master aborted the run (another task failed)."""


class Unreachable(Exception):
    """A peer task's worker could not be reached."""

    def __init__(self, task, cause):
        super().__init__(f"{task_name(task)}: {cause}")
        self.task = task


class Outbox:
    """The values a run sends, grouped by destination: everything owed to one task goes in one
    message, sent when the run is about to wait (or ends).

    ``first_flush`` (a coordinator's) is called once, at the first flush, with what is owed to
    each task: it starts the other tasks' parts and takes those values along with them. At the
    end, what is owed to ``coordinator`` is returned (it goes back in the reply).
    """

    def __init__(self, runtime, run_id, peers, first_flush=None, coordinator=None):
        self.runtime, self.run_id, self.peers = runtime, run_id, peers
        self.first_flush, self.coordinator = first_flush, coordinator
        self.pending = {}  # destination task -> [(key, value)]
        self.sending = []

    def put(self, dst, key, value):
        self.pending.setdefault(dst, []).append((key, value))

    def flush(self, final=False):
        held = (0.0, [])
        if self.first_flush is not None:
            hook, self.first_flush = self.first_flush, None
            hook(self.pending)
        if final and self.coordinator is not None:
            held = (time.time(), self.pending.pop(self.coordinator, []))
        for dst, items in self.pending.items():
            payload = (self.run_id, items, time.time())
            if not self.runtime._link(self.peers[dst]).tell_now("deliver", payload):  # written at once, mostly
                self.sending.append(asyncio.ensure_future(self.runtime._send(self.peers[dst], dst, payload)))
        self.pending = {}
        return held

    async def delivered(self):
        if self.sending:
            await asyncio.gather(*self.sending)

    def cancel(self):
        for s in self.sending:
            s.cancel()


class TaskRuntime:
    def __init__(self, name):
        self.task = task_of_name(name)  # a task's name, not its tuple: older Dask reads tuples as keys
        # runs in threads read it while others commit: a replaced buffer is never written in place
        self.store = SharedStore()
        self.managers = {}  # device name -> ResourceMgr: the task's queues and accumulators
        self.waiting = {}  # run id -> (session key, CancellationManager) of a part that may wait
        self._waiters = None  # the thread pool of the parts that may wait
        self.plans = OrderedDict()  # plan key -> TaskPlan
        self.rngs = {}  # session key -> RandomGenerators
        self.mailbox = {}  # run id -> {key: Future of (value, sent at, arrived at)}
        self.ended = OrderedDict()  # run ids that ended here: late messages for them are dropped
        self._lock = None  # the write lock (an asyncio.Lock, made on the worker's loop)
        self._owner = None  # the run id holding it
        self._timers = {}
        self._pool = None
        self._worker_ = None
        self._starting = None
        self._server = None  # the listener the master and the other tasks reach this runtime at
        self._links = {}  # peer endpoint -> channel.Link

    # -- about this task ------------------------------------------------------------------------
    async def info(self, _=None):
        """Where this runtime runs and listens; the first call (``start_runtime``) starts the listener on the worker's host (``channel.py``)."""
        worker = self._worker()
        if self._server is None:
            host = worker.address.split("://", 1)[-1].rsplit(":", 1)[0].strip("[]")
            if self._starting is None:  # two clients asking at once get one listener
                self._starting = asyncio.ensure_future(channel.serve(host, self._dispatch))
            server = await asyncio.shield(self._starting)
            self._server = server
        endpoint = self._server.sockets[0].getsockname()[:2]
        return {"task": self.task, "pid": os.getpid(), "address": worker.address, "name": worker.name,
                "host": socket.gethostname(), "endpoint": tuple(endpoint)}

    async def variables(self, _=None):
        """{name: (shape, dtype, nbytes)} of the variables this task holds."""
        return {name: (tuple(v.shape), str(v.dtype), int(v.nbytes)) for name, v in self.store.values.items()}

    async def forget(self, session_key):
        """Drops a closed session's plans and random generators; its runs that wait (a dequeue in
        another thread of the client) end with the waiting kernel's CancelledError, as TF's do."""
        for session, manager in list(self.waiting.values()):
            if session == session_key:
                manager.cancel()
        for key in [k for k in self.plans if k.startswith(session_key + "/")]:
            del self.plans[key]
        self.rngs.pop(session_key, None)

    # -- a run ------------------------------------------------------------------------------------
    async def coordinate(self, request):
        """The master's one call for a run. This task runs its own part and starts the other
        tasks' parts (as TF's master does with its workers); returns every task's reply, or the
        error that made the run fail (then every task aborted it)."""
        run_id = request["run"]
        others, peers = request["others"], request["peers"]
        calls, failures = {}, {}

        def start(bundles):
            for t, sub in others.items():
                sub = dict(sub, early=(time.time(), bundles.pop(t, [])), coordinator=self.task)
                # the peer's reply is taken (_peer_done) as soon as it is read
                calls[t] = self._link(peers[t]).request(
                    "run", sub, functools.partial(self._peer_done, run_id, t, failures, peers))

        mine = await self._part(request["mine"], start)
        if "error" in mine or failures:
            self._abort_everywhere(run_id, peers, others)
        waiting = [c for c in calls.values() if not c.done()]
        if waiting:
            await asyncio.gather(*waiting, return_exceptions=True)
        if "error" in mine or "need_plan" in mine or failures:
            if "need_plan" in mine:
                failures[self.task] = ("NeedPlan", None, "", self.task)
            elif "error" in mine:
                failures.setdefault(self.task, mine["error"])
            return {"failures": failures}
        replies = {t: c.result() for t, c in calls.items()}
        replies[self.task] = mine
        return {"replies": replies}

    async def run(self, request):
        """Runs this task's part of a run that another task coordinates."""
        return await self._part(request)

    async def _part(self, request, first_flush=None):
        """Runs this task's part of one run; returns fetches (and, if asked, step records).

        ``voters`` are the other tasks of the run: a task that writes variables commits only
        once each of them said it prepared (its vote). ``vote_to`` are the writing tasks this
        task tells, with its last values, that it prepared. What a task owes its coordinator at
        its end goes back in its reply (``final``) rather than in a message of its own.
        """
        run_id = request["run"]
        if run_id in self.ended:
            return {"error": _describe(Aborted())}
        plan = self._plan(request)
        if plan is None:
            return {"need_plan": True}
        sent_at, items = request.get("early", (0.0, ()))
        now = time.time()
        for key, value in items:  # values that came with the request
            self._put(run_id, key, value, sent_at, now)
        held = False
        run = manager = None
        outbox = Outbox(self, run_id, request["peers"], first_flush, request.get("coordinator"))
        try:
            if plan.writes:
                if self._owner != run_id:
                    await self._acquire(run_id)
                held = True
                if run_id in self.ended:
                    raise Aborted()
            feeds = request["feeds"]
            if feeds is None:  # the master sent them straight to this worker
                feeds = (await self._mail(run_id, ("feeds",)))[0]
            run = TaskRun(plan, self.store, feeds, outbox, bool(request.get("trace")))
            if plan.blocking:
                manager = self._cancellable(run_id, request)
            await self._execute(run, run_id)
            fetched = run.fetch()
            for writer in request["vote_to"]:  # prepared: the vote travels with the last values
                outbox.put(writer, ("vote", self.task), None)
            # a writer waits for votes before it replies: it cannot hold back what it owes
            final = outbox.flush(final=not plan.writes)
            await outbox.delivered()
            if plan.writes:  # phase two: commit once every other task of the run prepared
                votes = [self._mail(run_id, ("vote", t)) for t in request["voters"]]
                if all(v.done() for v in votes):  # they came with the values (no turn of the loop)
                    for v in votes:
                        v.result()  # an aborted run's raise
                else:
                    await asyncio.wait_for(asyncio.gather(*votes), DECISION_TIMEOUT)
        except BaseException as e:  # noqa: BLE001 - every failure is reported to the master
            if isinstance(e, GeneratorExit):
                # the coroutine is being closed after its event loop was (a worker process that
                # is ending): nothing can be cleaned up or answered; the master finds the socket gone
                raise
            outbox.cancel()
            if run is not None:
                run.abandon()
            self._end(run_id)
            self._cancel_timer(run_id)
            if held:
                self._release(run_id)
            if isinstance(e, asyncio.CancelledError):
                raise
            if manager is not None and manager.error is not None:
                e = manager.error  # the time limit passed: TF's DeadlineExceededError
            return {"error": _describe(e)}
        run.commit()
        self._end(run_id)
        self._cancel_timer(run_id)
        if held:
            self._release(run_id)
        return {"fetches": fetched, "records": run.records, "transfers": run.transfers, "final": final}

    def _cancellable(self, run_id, request):
        """The CancellationManager of a part that may wait, cancelled when the run's time limit
        (``timeout_ms``, from ``RunOptions`` or the session's config) passes."""
        manager = cancellation.CancellationManager()
        self.waiting[run_id] = (request["plan"].rsplit("/", 1)[0], manager)
        limit = request.get("timeout_ms") or 0
        if limit > 0:
            error = errors.DeadlineExceededError(None, None, "Timed out waiting for notification")
            timer = asyncio.get_running_loop().call_later(limit / 1000.0, manager.cancel, error)
            self._timers[("deadline", run_id)] = timer
        return manager

    def _peer_done(self, run_id, task, failures, peers, call):
        """A part this task coordinates ended: take what it owes us, or abort the run."""
        try:
            reply = call.result()
        except asyncio.CancelledError:
            return
        except BaseException as e:  # noqa: BLE001 - the peer's worker could not be reached
            reply = {"error": _describe(Unreachable(task, e))}
        if "need_plan" in reply:
            reply = {"error": ("NeedPlan", None, "", task)}
        if "error" in reply:
            first = not failures
            failures[task] = reply["error"]
            if first:
                self._end(run_id)  # our own part stops waiting
                self._abort_everywhere(run_id, peers, [t for t in peers if t != task])
            return
        now = time.time()
        sent_at, items = reply.pop("final", (now, ()))
        for key, value in items:  # what the peer owed this task at its end
            self._put(run_id, key, value, sent_at, now)

    def _abort_everywhere(self, run_id, peers, tasks):
        for t in tasks:
            if t != self.task:
                asyncio.ensure_future(self._tell(peers[t], "abort", run_id))

    async def abort(self, run_id):
        """Drops a run wherever it is: not started, waiting for a value, or waiting for votes."""
        self._end(run_id)
        self._cancel_timer(run_id)
        self._release(run_id)
        return True

    async def lock(self, run_id):
        """Takes the write lock for a run ahead of it (the master takes the locks of a run that
        writes on several tasks one task at a time, in task order, so runs cannot deadlock)."""
        await self._acquire(run_id)
        self._timers[run_id] = asyncio.get_running_loop().call_later(DECISION_TIMEOUT, self._expire, run_id)
        return True

    async def deliver(self, payload):
        """Values (or control tokens, votes, a run's feeds) sent to one of this task's runs."""
        run_id, items, sent_at = payload
        arrived = time.time()
        if run_id in self.ended:
            return False
        for key, value in items:
            self._put(run_id, key, value, sent_at, arrived)
        return True

    def _put(self, run_id, key, value, sent_at, arrived):
        future = self._mail(run_id, key)
        if not future.done():
            future.set_result((value, sent_at, arrived))

    async def assign(self, values):
        """Sets committed values ({name: array}): ``Saver.restore``, ``Variable.load``."""
        token = ("assign", time.time())
        await self._acquire(token)
        try:
            self.store.assign(values)
        finally:
            self._release(token)
        return sorted(values)

    # -- executing --------------------------------------------------------------------------------
    async def _execute(self, run, run_id):
        """Drives the task's run to its end: computes up to each recv (in a thread once the part
        showed itself slow), and before waiting for a recv's value sends what this task owes."""
        plan = run.plan
        while (step := run.peek()) is not None:
            if type(step) is RecvStep:
                run.outbox.flush()
                run.arrived = await self._mail(run_id, step.key)
                run.step()
            elif plan.blocking:
                if self._waiters is None:
                    self._waiters = ThreadPoolExecutor(WAITING_THREADS, thread_name_prefix="devlab-task-wait")
                manager = self.waiting[run_id][1]
                await asyncio.get_running_loop().run_in_executor(self._waiters, self._run_waiting, run, manager)
            elif plan.slow:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(1, thread_name_prefix="devlab-task")
                await asyncio.get_running_loop().run_in_executor(self._pool, run.run_until, is_recv)
            else:
                start = time.thread_time()  # CPU time: a run preempted on a busy machine is not slow
                run.run_until(is_recv)
                plan.slow = time.thread_time() - start > SLOW_SECONDS

    def _run_waiting(self, run, manager):
        """Computes up to the next recv in a pool thread: a kernel that waits is woken by
        ``manager``, and an enqueue first makes the run's writes visible to other runs."""
        def publish():
            if run.writes:
                self.store.assign(dict(run.writes))
        with cancellation.active(manager), publishing.publishing(publish):
            run.run_until(is_recv)

    async def _send(self, peer, dst, payload):
        try:  # one way: no reply (a peer that died is found by the master, whose call to it fails)
            await self._tell(peer, "deliver", payload, quiet=False)
        except (OSError, asyncio.TimeoutError) as e:
            raise Unreachable(dst, e) from None

    async def _tell(self, peer, function, payload, quiet=True):
        """A one-way message to another task's runtime."""
        try:
            await self._link(peer).tell(function, payload)
        except (OSError, asyncio.TimeoutError):
            if not quiet:
                raise

    def _link(self, peer):
        link = self._links.get(peer)
        if link is None:
            link = self._links[peer] = channel.Link(peer)
        return link

    async def _dispatch(self, function, payload):
        """A message from the master or another task: one of the runtime's calls."""
        if function not in CALLS:
            raise ValueError(f"not a devlab task runtime call: {function!r}")
        return await getattr(self, function)(payload)

    # -- bookkeeping ------------------------------------------------------------------------------
    def _plan(self, request):
        key = request["plan"]
        plan = self.plans.get(key)
        if plan is None:
            part = request.get("part")
            if part is None:
                return None  # this worker never saw the plan (it replaced a lost one): ask for it
            session = key.rsplit("/", 1)[0]
            rngs = self.rngs.get(session)
            if rngs is None:
                rngs = self.rngs[session] = random_generators(part.graph_seed)
            plan = self.plans[key] = TaskPlan(part, rngs)
            for device in plan.devices.values():  # queues and accumulators: the task's, shared
                device.resource_manager = self._manager(device.name).session(session)
            while len(self.plans) > MAX_PLANS:
                self.plans.popitem(last=False)
        return plan

    def _manager(self, device_name):
        found = self.managers.get(device_name)
        if found is None:
            found = self.managers[device_name] = ResourceMgr(device_name)
        return found

    def _mail(self, run_id, key):
        box = self.mailbox.setdefault(run_id, {})
        future = box.get(key)
        if future is None:
            future = box[key] = asyncio.get_running_loop().create_future()
        return future

    def _end(self, run_id):
        """No more values or runs are accepted for ``run_id``; waiting ones fail."""
        self.ended[run_id] = True
        while len(self.ended) > 10000:
            self.ended.popitem(last=False)
        for future in self.mailbox.pop(run_id, {}).values():
            if not future.done():
                future.set_exception(Aborted())
        waiting = self.waiting.pop(run_id, None)
        if waiting is not None:  # a kernel that waits in a thread wakes (a no-op once it ended)
            waiting[1].cancel()

    def _expire(self, run_id):
        """A lock taken ahead of a run whose master never came back."""
        self._end(run_id)
        self._timers.pop(run_id, None)
        self._release(run_id)

    async def _acquire(self, owner):
        if self._lock is None:
            self._lock = asyncio.Lock()
        await self._lock.acquire()
        self._owner = owner

    def _release(self, owner):
        if self._owner == owner and self._lock is not None:
            self._owner = None
            self._lock.release()

    def _cancel_timer(self, run_id):
        for key in (run_id, ("deadline", run_id)):
            timer = self._timers.pop(key, None)
            if timer is not None:
                timer.cancel()

    def _worker(self):
        if self._worker_ is None:
            from distributed import get_worker
            self._worker_ = get_worker()
        return self._worker_


_runtimes = {}  # task name -> the TaskRuntime of this worker process


async def start_runtime(name, dask_worker=None):
    """The task's runtime in this worker process, made on first use (``Client.run`` calls it on the
    task's worker, on its event loop); returns where it runs and listens. Every client of the
    cluster gets the same one, so a ps task's variables are shared as TF's per-server state is;
    a restarted worker process starts with none. (``Client.run`` passes ``dask_worker``.)"""
    runtime = _runtimes.get(name)
    if runtime is None:
        parallel.blas_on_one_thread_from_now()  # as a session's run holds it, for good in a task's process
        heap.keep_freed_buffers()  # a step's tensors reuse the last step's memory (heap.py)
        runtime = _runtimes[name] = TaskRuntime(name)
        runtime._worker_ = dask_worker
    return await runtime.info()


def _describe(e):
    """(error class name, op name, message, unreachable task) for the master to raise."""
    if isinstance(e, errors.OpError):
        return (type(e).__name__, getattr(e.op, "name", None), e.message, None)
    if isinstance(e, Unreachable):
        return ("UnavailableError", None, str(e), e.task)
    if isinstance(e, Aborted):
        return ("CancelledError", None, "Run was cancelled: another task failed", None)
    text = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    return ("InternalError", None, f"{type(e).__name__}: {e}\n{text}", None)
