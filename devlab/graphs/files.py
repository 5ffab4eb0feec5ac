"""Reading TensorFlow's graph files: bounded, from regular files only, parsed by protobuf.

``read_bytes`` refuses a device (``/dev/zero``), a pipe or a folder before reading a byte, and
a file over ``MAX_FILE_BYTES``; it reads at most that much even if the file grows meanwhile.
``parse_graph_def`` / ``parse_meta_graph_def`` turn the bytes into TensorFlow's message,
binary or text format (as ``tf.io.write_graph(as_text=...)`` and ``export_meta_graph`` write
them), and raise ``GraphFileError`` (a ValueError) naming the file and what is wrong. Parsing
never runs code: a GraphDef is data, and devlab only reads its fields.
"""
import os
import stat

from ..framework import errors
from ..framework.tf_protos import pb

MAX_FILE_BYTES = 1 << 30  # 1 GiB: a frozen graph with large constants is fine, /dev/zero is not
GRAPH_EXTENSIONS = (".pb", ".pbtxt", ".meta", ".graphdef", ".pbtext")


class GraphFileError(ValueError):
    """A graph file that cannot be read as TensorFlow's GraphDef or MetaGraphDef."""


def read_bytes(filename, limit=MAX_FILE_BYTES, what="a graph file", too_large=GraphFileError,
               limit_name="devlab.graphs.files.MAX_FILE_BYTES"):
    """The bytes of a regular file, at most ``limit`` of them; TF's errors otherwise (a file too
    large raises ``too_large``, naming the setting ``limit_name``)."""
    return read_file(filename, limit, what, too_large, limit_name)[0]


def read_file(filename, limit, what, too_large, limit_name):
    """(the bytes of a regular file, its path): ``read_bytes``, for callers that name the path."""
    try:
        path = os.fsdecode(os.fspath(filename))
    except (TypeError, UnicodeDecodeError) as e:
        raise TypeError(f"Expected binary or unicode string, got {filename!r}") from e
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO must not block the open
    except FileNotFoundError:
        raise OSError(f"File does not exist. Received: {path}.") from None
    except IsADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory") from None
    except OSError as e:
        raise OSError(f"Cannot read file {path}: {e.strerror or e}.") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory")
        if not stat.S_ISREG(info.st_mode):
            raise errors.FailedPreconditionError(
                None, None, f"{path}; Not a regular file: {what} is read only from a file, never from a "
                "device, pipe or socket")
        if info.st_size > limit:
            raise too_large(f"Cannot parse file {path}: it is {info.st_size} bytes, more than the {limit} "
                            f"devlab reads as {what} ({limit_name}).")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise too_large(f"Cannot parse file {path}: it grew past {limit} bytes while being read.")
    return data, path


def _looks_like_text(data):
    head = data[:4096]
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < len(head) - 4:  # a multi-byte character cut at the end of the sample is fine
            return False
        text = head[:e.start].decode("utf-8")
    return all(c.isprintable() or c in "\n\r\t" for c in text)


def _parse(data, message, path, kind):
    """``message`` (a fresh proto) filled from binary or text ``data``."""
    p = pb()
    if not data:
        raise GraphFileError(f"Cannot parse file {path}: it is empty, not a {kind}.")
    errors_seen = []
    text_first = path.endswith((".pbtxt", ".pbtext", ".txt")) or _looks_like_text(data)
    for as_text in ((True, False) if text_first else (False, True)):
        try:
            if as_text:
                p.text_format.Parse(data.decode("utf-8"), message)
            else:
                message.ParseFromString(data)
        except (p.text_format.ParseError, p.DecodeError, UnicodeDecodeError, RecursionError, ValueError,
                TypeError, OverflowError) as e:
            errors_seen.append(f"{'text' if as_text else 'binary'}: {_short(e)}")
            message.Clear()
            continue
        return message
    raise GraphFileError(f"Cannot parse file {path}: not a {kind} in TensorFlow's binary or text format "
                         f"({'; '.join(errors_seen)}).")


def _short(e):
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) < 200 else text[:197] + "..."


def parse_graph_def(data, path="<bytes>"):
    """A GraphDef from binary or text bytes."""
    return _parse(data, pb().GraphDef(), path, "GraphDef")


def parse_meta_graph_def(data, path="<bytes>"):
    """A MetaGraphDef from binary or text bytes."""
    return _parse(data, pb().MetaGraphDef(), path, "MetaGraphDef")


def read_graph_file(filename):
    """(kind, message) of a ``.pb``/``.pbtxt`` (GraphDef) or ``.meta`` (MetaGraphDef) file. A file
    with another name is tried as a GraphDef, then as a MetaGraphDef."""
    data = read_bytes(filename)
    path = os.fsdecode(os.fspath(filename))
    if path.endswith(".meta"):
        return "meta", parse_meta_graph_def(data, path)
    try:
        graph_def = parse_graph_def(data, path)
    except GraphFileError:
        if path.endswith((".pb", ".pbtxt", ".graphdef", ".pbtext")):
            raise
        return "meta", parse_meta_graph_def(data, path)
    if not graph_def.node and path.endswith(".pb"):
        meta = _try(parse_meta_graph_def, data, path)  # a .pb holding a MetaGraphDef parses as an empty GraphDef
        if meta is not None and meta.graph_def.node:
            return "meta", meta
    return "graph", graph_def


def _try(fn, *args):
    try:
        return fn(*args)
    except GraphFileError:
        return None
