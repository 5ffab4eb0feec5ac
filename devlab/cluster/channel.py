"""The data plane: framed pickle messages over plain TCP between the master and the task runtimes.

Dask starts each task's runtime in its worker's process (``Client.run(..., workers=[address])``)
and tells where it listens; the runs themselves travel on connections of
their own, as TF's workers talk gRPC to each other. A step then costs a few socket writes
instead of Dask's RPC machinery: no hop through the client's event loop thread, no handler
lookup, and numpy arrays go out of band (pickle protocol 5), not copied into the message.

A message is ``(kind, id, function, payload)``: a ``call`` expects a ``reply`` with its id; a
``tell`` gets none. On the wire: the number of frames, their lengths, then the frames (the
pickle and its out-of-band buffers). The master's side is blocking (``Pool``: one socket per
call in flight, reused); the workers' side is asyncio (``Link``: one connection per peer, calls
multiplexed by id; each frame read straight into its own buffer). A peer whose process died
closes its sockets: the waiting call fails at once with ``ConnectionError``, which the callers
turn into TF's ``UnavailableError``.

The listener binds the worker's own host (127.0.0.1 for ``devlab.cluster.local``); like Dask's
comms without TLS it trusts whoever can reach it, so run clusters on networks you trust.
"""
import asyncio
import itertools
import pickle
import socket
import struct
import threading

_COUNT = struct.Struct("!I")
_LENGTH = struct.Struct("!Q")


def encode(message):
    """The frames of a message: [header, pickle, buffer, ...]."""
    buffers = []
    try:
        body = pickle.dumps(message, protocol=5, buffer_callback=buffers.append)
    except (pickle.PicklingError, AttributeError, TypeError):
        # a py_func's function that a worker received by value travels on by value (as Dask does)
        import cloudpickle
        buffers = []
        body = cloudpickle.dumps(message, protocol=5, buffer_callback=buffers.append)
    frames = [body] + [b.raw() for b in buffers]
    header = _COUNT.pack(len(frames)) + b"".join(_LENGTH.pack(memoryview(f).nbytes) for f in frames)
    return [header] + frames


def decode(frames):
    return pickle.loads(frames[0], buffers=frames[1:])


class Lost(ConnectionError):
    """The peer closed the connection (its process ended) while a message was due."""


# -- the workers' side (asyncio) ------------------------------------------------------------------

class _Framed(asyncio.BufferedProtocol):
    """One connection's messages, read straight into each frame's own buffer: a tensor is copied
    once, from the socket, not four times through a stream reader's buffers (a 1 MB value cost
    ~4 ms that way). ``on_message(message)`` gets each message; ``write`` sends one; ``drain``
    waits while the socket is behind, as a stream writer's does."""

    def __init__(self, on_message, on_lost=None):
        self._on_message, self._on_lost = on_message, on_lost
        self.transport = None
        self._writable = asyncio.Event()
        self._writable.set()
        self._lost = None
        self._expect(bytearray(_COUNT.size), self._got_count)

    # reading: a small state machine over (count, lengths, frame, frame, ...)
    def _expect(self, buf, then):
        self._buf, self._view, self._got, self._then = buf, memoryview(buf), 0, then

    def get_buffer(self, sizehint):
        return self._view[self._got:]

    def buffer_updated(self, nbytes):
        self._got += nbytes
        while self._got == len(self._buf) and self._lost is None:
            self._then()

    def _got_count(self):
        (n,) = _COUNT.unpack(self._buf)
        self._frames, self._lengths = [], None
        self._expect(bytearray(_LENGTH.size * n), self._got_lengths)

    def _got_lengths(self):
        self._lengths = [length for (length,) in _LENGTH.iter_unpack(self._buf)]
        self._next_frame()

    def _got_frame(self):
        self._frames.append(self._buf)  # writable: kernels may reuse a received array
        self._next_frame()

    def _next_frame(self):
        if len(self._frames) < len(self._lengths):
            return self._expect(bytearray(self._lengths[len(self._frames)]), self._got_frame)
        frames = self._frames
        self._expect(bytearray(_COUNT.size), self._got_count)
        try:
            message = decode(frames)
        except Exception:  # noqa: BLE001 - not one of ours: drop the connection
            self.transport.close()
            return
        self._on_message(message)

    # writing, with the flow control a stream writer has
    def connection_made(self, transport):
        self.transport = transport

    def write(self, message):
        for frame in encode(message):  # each frame as it is (writelines would join them: a copy)
            self.transport.write(frame)

    async def drain(self):
        if self._lost is not None:
            raise Lost(str(self._lost))
        await self._writable.wait()
        if self._lost is not None:
            raise Lost(str(self._lost))

    def pause_writing(self):
        self._writable.clear()

    def resume_writing(self):
        self._writable.set()

    def connection_lost(self, exc):
        self._lost = exc or "the connection was closed"
        self._writable.set()
        if self._on_lost is not None:
            self._on_lost(self._lost)


async def serve(host, dispatch):
    """Listens on ``host`` (a free port); ``dispatch(function, payload)`` answers each message.
    Returns the asyncio server."""

    def connection():
        def on_message(message):
            kind, call_id, function, payload = message
            asyncio.ensure_future(_answer(protocol, kind, call_id, function, payload, dispatch))
        protocol = _Framed(on_message)
        return protocol

    return await asyncio.get_running_loop().create_server(connection, host, 0)


async def _answer(protocol, kind, call_id, function, payload, dispatch):
    try:
        result, ok = await dispatch(function, payload), True
    except Exception as e:  # noqa: BLE001 - the caller raises it
        result, ok = f"{type(e).__name__}: {e}", False
    if kind == "call" and not protocol.transport.is_closing():
        protocol.write(("reply" if ok else "failed", call_id, None, result))


class Link:
    """One asyncio connection to a peer's runtime, shared by every run on this worker."""

    def __init__(self, endpoint):
        self.endpoint = endpoint
        self._opened = None
        self._pending = {}
        self._ids = itertools.count()

    async def _open(self):
        if self._opened is None:
            self._opened = asyncio.ensure_future(self._connect())
        try:
            return await asyncio.shield(self._opened)
        except BaseException:
            self._opened = None
            raise

    async def _connect(self):
        _, protocol = await asyncio.get_running_loop().create_connection(
            lambda: _Framed(self._reply, self._closed), *self.endpoint)
        return protocol

    def _reply(self, message):
        kind, call_id, _, result = message
        future = self._pending.pop(call_id, None)
        if future is not None and not future.done():
            if kind == "reply":
                future.set_result(result)
            else:
                future.set_exception(RuntimeError(result))

    def _closed(self, cause):
        self._opened = None
        pending, self._pending = self._pending, {}
        for future in pending.values():
            if not future.done():
                future.set_exception(Lost(f"{self.endpoint[0]}:{self.endpoint[1]}: {cause}"))

    async def call(self, function, payload):
        protocol = await self._open()
        call_id = next(self._ids)
        future = self._pending[call_id] = asyncio.get_running_loop().create_future()
        protocol.write(("call", call_id, function, payload))
        return await future

    async def tell(self, function, payload):
        protocol = await self._open()
        protocol.write(("tell", None, function, payload))
        await protocol.drain()


# -- the master's side (blocking) -----------------------------------------------------------------

class Pool:
    """Blocking connections to one runtime: a call takes an idle socket (or opens one), so
    sessions in several threads run at once."""

    def __init__(self, endpoint):
        self.endpoint = endpoint
        self._idle = []
        self._lock = threading.Lock()
        self._ids = itertools.count()

    def _take(self):
        with self._lock:
            if self._idle:
                return self._idle.pop()
        sock = socket.create_connection(self.endpoint, timeout=10)
        sock.settimeout(None)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        return sock

    def _give(self, sock):
        with self._lock:
            self._idle.append(sock)

    def call(self, function, payload):
        """The runtime's answer to ``function(payload)``; ``Lost`` if its process is gone."""
        sock = self._take()
        try:
            call_id = next(self._ids)
            sock.sendall(b"".join(encode(("call", call_id, function, payload))))
            kind, got_id, _, result = _receive(sock)
        except BaseException:
            sock.close()
            raise
        self._give(sock)
        if kind != "reply":
            raise RuntimeError(result)
        return result

    def tell(self, function, payload):
        sock = self._take()
        try:
            sock.sendall(b"".join(encode(("tell", None, function, payload))))
        except BaseException:
            sock.close()
            raise
        self._give(sock)

    def close(self):
        with self._lock:
            idle, self._idle = self._idle, []
        for sock in idle:
            sock.close()


def _receive(sock):
    (n,) = _COUNT.unpack(_exactly(sock, _COUNT.size))
    lengths = _LENGTH.iter_unpack(_exactly(sock, _LENGTH.size * n))
    return decode([_exactly(sock, length) for (length,) in lengths])


def _exactly(sock, n):
    buf = bytearray(n)
    view, got = memoryview(buf), 0
    while got < n:
        k = sock.recv_into(view[got:])
        if not k:
            raise Lost("the connection was closed")
        got += k
    return buf
