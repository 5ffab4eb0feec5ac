"""The cluster's data plane (devlab/cluster/channel.py): framed messages arrive whole, arrays
writable and equal, however the socket splits them (a peer whose process dies: tests/test_cluster_kills.py)."""
import asyncio
import threading

import numpy as np
import pytest

from devlab.cluster import channel


@pytest.fixture
def echo():
    """A runtime-like server on its own event loop thread that answers a call with its payload."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def dispatch(function, payload):
        if function == "fail":
            raise ValueError("no")
        return payload

    server = asyncio.run_coroutine_threadsafe(channel.serve("127.0.0.1", dispatch), loop).result(10)
    yield loop, server.sockets[0].getsockname()[:2]
    loop.call_soon_threadsafe(server.close)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)


PAYLOADS = [
    {"big": np.arange(1 << 20, dtype=np.float32), "empty": np.zeros(0, np.int64), "text": "x" * 70_000},
    (np.ones((3, 0)), np.float64(2.5), b""),
    [np.full(100_003, 7, np.int8) for _ in range(5)],
]


def _same(a, b):
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(map(_same, a, b))
    return a == b


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_blocking_call_gets_its_payload_back_whole(echo, payload):
    _, endpoint = echo
    pool = channel.Pool(endpoint)
    try:
        for _ in range(3):  # the same socket, reused
            got = pool.call("echo", payload)
            assert _same(got, payload)
        with pytest.raises(RuntimeError, match="ValueError: no"):
            pool.call("fail", None)
    finally:
        pool.close()


def test_asyncio_links_multiplex_calls_and_receive_writable_arrays(echo):
    _, endpoint = echo

    async def calls():
        link = channel.Link(endpoint)
        sent = [np.arange(n, dtype=np.float64) for n in (0, 1, 300_000, 17)]
        got = await asyncio.gather(*(link.call("echo", a) for a in sent))
        await link.tell("echo", sent[2])
        return sent, got

    sent, got = asyncio.run(calls())
    assert all(_same(a, b) for a, b in zip(sent, got))
    got[2][0] = -1.0  # received arrays are writable (kernels may reuse them)
    assert got[2][0] == -1.0


def _stream(messages):
    return b"".join(b"".join(bytes(memoryview(f)) for f in channel.encode(m)) for m in messages)


def _read(data, sizes):
    """The messages a reader makes of ``data`` handed over in pieces of ``sizes`` (in turn)."""
    reader, got, position, turn = channel._Reader(), [], 0, 0
    while position < len(data):
        buffer = reader.buffer()
        n = min(len(buffer), int(sizes[turn % len(sizes)]), len(data) - position)
        buffer[:n] = data[position:position + n]
        position, turn = position + n, turn + 1
        got += [channel.decode(frames) for frames in reader.got(n)]
    return got


def test_the_reader_gets_every_message_whole_however_the_bytes_are_split():
    """Pieces of 1 byte to 200 KB, across frames and messages: a message with more frames than
    the staging buffer holds lengths of, an empty array, a 256 KB array, tiny messages."""
    small = [("call", 0, "f", (np.arange(5, dtype=np.int16), "y")), ("reply", 1, None, np.zeros(0))] * 2
    assert all(_same(a, b) for a, b in zip(_read(_stream(small), [1]), small))
    messages = [("call", 0, "f", [np.full(3, i, np.int16) for i in range(5000)]),
                ("tell", None, "g", (np.zeros(0), np.arange(1 << 16, dtype=np.float32))),
                ("reply", 1, None, "x")] * 2
    data = _stream(messages)
    for sizes in ([7, 1, 100_003], [65_536 * 3], list(np.random.default_rng(0).integers(1, 5000, 50))):
        got = _read(data, sizes)
        assert len(got) == len(messages) and all(_same(a, b) for a, b in zip(got, messages))
        assert got[1][3][1].flags.writeable


def test_messages_larger_than_the_socket_buffers_go_both_ways(echo):
    """16 MB each way: the worker side's single write takes part of it, its transport the rest."""
    _, endpoint = echo
    big = np.random.default_rng(1).standard_normal(1 << 21)

    async def calls():
        link = channel.Link(endpoint)
        return await asyncio.gather(*(link.call("echo", (big, i)) for i in range(3)))

    got = asyncio.run(calls())
    assert [i for _, i in got] == [0, 1, 2] and all(np.array_equal(a, big) for a, _ in got)
    pool = channel.Pool(endpoint)
    try:
        assert np.array_equal(pool.call("echo", big), big)
    finally:
        pool.close()


def test_a_requests_callback_sees_its_reply_or_the_lost_connection(echo):
    loop, endpoint = echo
    seen = []

    async def requests():
        link = channel.Link(endpoint)
        assert not link.tell_now("echo", 1)  # not open yet: the caller falls back to ``tell``
        first = link.request("echo", np.arange(3), lambda f: seen.append(("first", f.done(), f.result())))
        await first
        assert link.tell_now("echo", 2)  # open: written at once
        failed = link.request("fail", None, lambda f: seen.append(("failed", f.done(), type(f.exception()))))
        with pytest.raises(RuntimeError, match="ValueError: no"):
            await failed
        return link

    link = asyncio.run(requests())
    assert seen[0][:2] == ("first", True) and list(seen[0][2]) == [0, 1, 2]
    assert seen[1] == ("failed", True, RuntimeError)

    async def lost():  # a peer that is not there: the callback gets the error, the awaiting caller too
        dead = channel.Link(("127.0.0.1", 1))
        future = dead.request("echo", 1, lambda f: seen.append(("lost", type(f.exception()))))
        with pytest.raises(OSError):
            await future

    asyncio.run(lost())
    assert seen[2][0] == "lost" and issubclass(seen[2][1], OSError)


def test_a_part_closed_with_its_ended_event_loop_answers_nothing():
    """A worker process that ends closes its event loop with a run still waiting; the run's
    coroutine is closed later (GeneratorExit). It must not answer the master with the error its
    cleanup meets on the closed loop (the master would raise InternalError, not UnavailableError)."""
    import types

    from devlab.cluster.task_runtime import TaskRuntime
    runtime = TaskRuntime("/job:ps/task:0")
    runtime.plans["s/0"] = types.SimpleNamespace(writes=False)  # a part that first waits for its feeds
    sent = []
    protocol = types.SimpleNamespace(transport=types.SimpleNamespace(is_closing=lambda: False), write=sent.append)
    request = {"run": "r", "plan": "s/0", "peers": {}, "feeds": None, "vote_to": [], "voters": []}
    loop = asyncio.new_event_loop()
    task = loop.create_task(channel._answer(protocol, "call", 0, "run", request, runtime._dispatch))
    loop.run_until_complete(asyncio.sleep(0.05))
    assert not task.done() and sent == []
    loop.close()
    task.get_coro().close()  # what the garbage collector does to the abandoned task's coroutine
    assert sent == []
