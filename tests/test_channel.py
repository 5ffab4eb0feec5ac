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
