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
multiplexed by id). A peer whose process died closes its sockets: the waiting call fails at once
with ``ConnectionError``, which the callers turn into TF's ``UnavailableError``.

Each message costs as few system calls as it can, since on a loopback they, and the wake-ups of
the peer they cause, are most of a step's time: a message goes out in one ``writev``/``sendmsg``
of its frames (no copy into one buffer, and the peer wakes once, not once per frame), and comes
in through a ``_Reader``, which reads the small parts of several frames at a time and a large
frame straight into its own buffer.

The listener binds the worker's own host (127.0.0.1 for ``devlab.cluster.local``); like Dask's
comms without TLS it trusts whoever can reach it, so run clusters on networks you trust.
"""
import asyncio
import itertools
import os
import pickle
import socket
import struct
import threading

_COUNT = struct.Struct("!I")
_LENGTH = struct.Struct("!Q")
_MAX_FRAMES = 512  # more frames than this go out one by one (writev takes at most IOV_MAX: 1024)


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


def _after(frames, sent):
    """The frames that remain once their first ``sent`` bytes went out."""
    rest = []
    for frame in frames:
        size = memoryview(frame).nbytes
        if sent >= size:
            sent -= size
            continue
        rest.append(memoryview(frame)[sent:] if sent else frame)
        sent = 0
    return rest


class _Reader:
    """A connection's bytes, whatever sizes the socket hands them over in, as messages' frames.

    The socket reads into ``buffer()``; ``got(n)`` takes the n bytes it read and returns the
    messages (lists of frames) they completed. Small pieces (the count, the lengths, a pickle,
    small arrays) arrive many at a time in a staging buffer and are copied out; the part of a
    large frame that is not there yet is read straight into the frame's own buffer: a tensor is
    copied once, from the socket. Each frame is a bytearray of its own: the arrays on it are writable (kernels may
    reuse a received array).
    """

    STAGE = 1 << 16
    SMALL = STAGE // 4  # a frame up to this size is staged whole; the stage keeps this much room

    def __init__(self):
        self._stage = bytearray(self.STAGE)
        self._start = self._end = 0  # the staged bytes not parsed yet: _stage[_start:_end]
        self._count = self._lengths = None
        self._frames = []
        self._direct = None  # the frame being read straight into its buffer
        self._direct_got = 0

    def large_frame_due(self):
        """Whether the reader waits for the rest of a large frame (read straight into it)."""
        return self._direct is not None

    def buffer(self):
        if self._direct is not None:
            return memoryview(self._direct)[self._direct_got:]
        if self._start == self._end:
            self._start = self._end = 0
        elif len(self._stage) - self._end < self.SMALL:  # little room left: the unparsed bytes to the front
            rest = bytes(self._stage[self._start:self._end])
            if len(rest) > len(self._stage) // 2:  # a piece larger than the stage (the lengths of many frames)
                self._stage.extend(bytes(len(self._stage)))
            self._stage[:len(rest)] = rest
            self._start, self._end = 0, len(rest)
        return memoryview(self._stage)[self._end:]

    def got(self, n):
        if self._direct is not None:
            self._direct_got += n
        else:
            self._end += n
        return self._parse()

    def _parse(self):
        done = []
        while True:
            available = self._end - self._start
            if self._direct is not None:
                if self._direct_got < len(self._direct):
                    return done
                self._frames.append(self._direct)
                self._direct = None
            elif self._count is None:
                if available < _COUNT.size:
                    return done
                (self._count,) = _COUNT.unpack_from(self._stage, self._start)
                self._start += _COUNT.size
            elif self._lengths is None:
                if available < _LENGTH.size * self._count:
                    return done
                self._lengths = [n for (n,) in _LENGTH.iter_unpack(
                    memoryview(self._stage)[self._start:self._start + _LENGTH.size * self._count])]
                self._start += _LENGTH.size * self._count
            elif len(self._frames) < len(self._lengths):
                length = self._lengths[len(self._frames)]
                if available < length <= self.SMALL:
                    return done  # a small frame is read whole into the stage, with what follows it
                frame = bytearray(length)
                take = min(length, available)
                frame[:take] = memoryview(self._stage)[self._start:self._start + take]
                self._start += take
                if take < length:  # the rest of a large frame comes straight into it
                    self._direct, self._direct_got = frame, take
                else:
                    self._frames.append(frame)
            else:
                done.append(self._frames)
                self._count = self._lengths = None
                self._frames = []


class Lost(ConnectionError):
    """The peer closed the connection (its process ended) while a message was due."""


# -- the workers' side (asyncio) ------------------------------------------------------------------

class _Framed(asyncio.BufferedProtocol):
    """One connection's messages, read through a ``_Reader``. ``on_message(message)`` gets each
    message; ``write`` sends one; ``drain`` waits while the socket is behind, as a stream
    writer's does."""

    def __init__(self, on_message, on_lost=None):
        self._on_message, self._on_lost = on_message, on_lost
        self.transport = None
        self._fd = None  # the socket's descriptor: a message's frames written in one call, a large frame read at once
        self._writable = asyncio.Event()
        self._writable.set()
        self._lost = None
        self._reader = _Reader()

    def get_buffer(self, sizehint):
        return self._reader.buffer()

    def buffer_updated(self, nbytes):
        messages = self._reader.got(nbytes)
        while self._reader.large_frame_due() and self._fd is not None and self._lost is None:
            # the rest of a large frame is most likely in the socket already (a peer writes a
            # message in one call): read it now rather than a turn of the event loop later
            try:
                n = os.readv(self._fd, [self._reader.buffer()])
            except OSError:  # not there yet (BlockingIOError), or an error the transport's next read finds
                break
            if not n:
                break  # the end of the stream: the transport's next read finds it
            messages += self._reader.got(n)
        for frames in messages:
            if self._lost is not None:
                return
            try:
                message = decode(frames)
            except Exception:  # noqa: BLE001 - not one of ours: drop the connection
                self.transport.close()
                return
            self._on_message(message)

    # writing, with the flow control a stream writer has
    def connection_made(self, transport):
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None and hasattr(os, "writev") and hasattr(os, "readv"):
            self._fd = sock.fileno()

    def write(self, message):
        frames = encode(message)
        transport = self.transport
        # the frames in one system call when nothing waits in the transport's buffer (the
        # descriptor is the socket's until the transport closes); what did not fit goes through
        # the transport, which sends it once the socket can take it
        if self._fd is not None and not transport.is_closing() and not transport.get_write_buffer_size() \
                and len(frames) <= _MAX_FRAMES:
            try:
                frames = _after(frames, os.writev(self._fd, frames))
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                pass  # a broken connection: the transport's own write finds it and closes
        for frame in frames:  # each frame as it is (writelines would join them: a copy)
            transport.write(frame)

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
    """One asyncio connection to a peer's runtime, shared by every run on this worker.

    ``request`` and ``tell_now`` write at once when the connection is open (the common case):
    no task to schedule first, and a request's ``on_done`` runs as its reply is read, not one
    or two turns of the event loop later (each turn is a system call and a few Python calls)."""

    def __init__(self, endpoint):
        self.endpoint = endpoint
        self._opened = None
        self._pending = {}  # call id -> (future, on_done)
        self._ids = itertools.count()

    async def _open(self):
        if self._opened is None:
            self._opened = asyncio.ensure_future(self._connect())
        try:
            return await asyncio.shield(self._opened)
        except BaseException:
            self._opened = None
            raise

    def _open_now(self):
        """The connection's protocol when it is open and not lost, else None."""
        opened = self._opened
        if opened is None or not opened.done() or opened.cancelled() or opened.exception() is not None:
            return None
        protocol = opened.result()
        return None if protocol._lost is not None or protocol.transport.is_closing() else protocol

    async def _connect(self):
        _, protocol = await asyncio.get_running_loop().create_connection(
            lambda: _Framed(self._reply, self._closed), *self.endpoint)
        return protocol

    def _reply(self, message):
        kind, call_id, _, result = message
        future, on_done = self._pending.pop(call_id, (None, None))
        if future is not None and not future.done():
            if kind == "reply":
                future.set_result(result)
            else:
                future.set_exception(RuntimeError(result))
            _done(future, on_done)

    def _closed(self, cause):
        self._opened = None
        pending, self._pending = self._pending, {}
        for future, on_done in pending.values():
            if not future.done():
                future.set_exception(Lost(f"{self.endpoint[0]}:{self.endpoint[1]}: {cause}"))
                _done(future, on_done)

    def request(self, function, payload, on_done=None):
        """Sends a call; returns the Future of its reply. ``on_done(future)`` runs as soon as the
        future is resolved (with the reply, or with ``Lost``)."""
        future = asyncio.get_running_loop().create_future()
        protocol = self._open_now()
        if protocol is not None:
            self._send_call(protocol, function, payload, future, on_done)
        else:
            asyncio.ensure_future(self._open_and_send(function, payload, future, on_done))
        return future

    async def _open_and_send(self, function, payload, future, on_done):
        try:
            protocol = await self._open()
        except BaseException as e:  # noqa: BLE001 - the caller's future carries it
            if not future.done():
                future.set_exception(e)
                _done(future, on_done)
            return
        self._send_call(protocol, function, payload, future, on_done)

    def _send_call(self, protocol, function, payload, future, on_done):
        call_id = next(self._ids)
        self._pending[call_id] = (future, on_done)
        protocol.write(("call", call_id, function, payload))

    async def call(self, function, payload):
        return await self.request(function, payload)

    def tell_now(self, function, payload):
        """Writes a one-way message at once if the connection is open and its socket keeps up;
        returns whether it did (else ``tell``, which opens and waits)."""
        protocol = self._open_now()
        if protocol is None or not protocol._writable.is_set():
            return False
        protocol.write(("tell", None, function, payload))
        return True

    async def tell(self, function, payload):
        protocol = await self._open()
        protocol.write(("tell", None, function, payload))
        await protocol.drain()


def _done(future, on_done):
    """Runs a request's ``on_done``; an error in it must not reach the protocol reading the
    reply (asyncio would drop the connection), so it is logged."""
    if on_done is None:
        return
    try:
        on_done(future)
    except Exception as e:  # noqa: BLE001
        asyncio.get_running_loop().call_exception_handler(
            {"message": "devlab cluster: a reply's callback failed", "exception": e, "future": future})


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
        return _Blocking(sock)

    def _give(self, conn):
        with self._lock:
            self._idle.append(conn)

    def call(self, function, payload):
        """The runtime's answer to ``function(payload)``; ``Lost`` if its process is gone."""
        conn = self._take()
        try:
            conn.send(encode(("call", next(self._ids), function, payload)))
            kind, got_id, _, result = conn.receive()
        except BaseException:
            conn.sock.close()
            raise
        self._give(conn)
        if kind != "reply":
            raise RuntimeError(result)
        return result

    def tell(self, function, payload):
        conn = self._take()
        try:
            conn.send(encode(("tell", None, function, payload)))
        except BaseException:
            conn.sock.close()
            raise
        self._give(conn)

    def close(self):
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.sock.close()


class _Blocking:
    """A blocking socket and the reader of what comes back on it."""

    def __init__(self, sock):
        self.sock = sock
        self._reader = _Reader()
        self._messages = []

    def send(self, frames):
        """The frames in as few system calls as the socket takes them (one, mostly)."""
        if not hasattr(self.sock, "sendmsg"):
            self.sock.sendall(b"".join(frames))
            return
        while frames:
            frames = _after(frames, self.sock.sendmsg(frames[:_MAX_FRAMES]))

    def receive(self):
        """The next message."""
        while not self._messages:
            n = self.sock.recv_into(self._reader.buffer())
            if not n:
                raise Lost("the connection was closed")
            self._messages.extend(self._reader.got(n))
        return decode(self._messages.pop(0))
