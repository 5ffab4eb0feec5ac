"""``tf.io.gfile`` and TF1's ``tf.gfile``: TensorFlow's file API, on the local file system.

TF routes these calls through its C++ file systems (local, GCS, HDFS...); devlab has only the
local one, so a path with a scheme (``gs://``) is refused by name. Errors are TF's classes and
words (``NotFoundError: /x; No such file or directory``), which TF1 scripts catch.
"""
import glob as _glob
import os
import shutil

from .framework import errors

_MODES = ("r", "w", "a", "r+", "w+", "a+")


def _path(name):
    name = os.fspath(name)
    name = name.decode() if isinstance(name, bytes) else name
    if "://" in name and not name.startswith("file://"):
        raise errors.UnimplementedError(None, None, f"File system scheme '{name.split('://')[0]}' not implemented "
                                                    f"(file: '{name}')")
    return name[len("file://"):] if name.startswith("file://") else name


def local_path(name):
    """The local file system's path for ``name`` (a path or a ``file://`` URI); another scheme is TF's
    UnimplementedError."""
    return _path(name)


def _not_found(path):
    return errors.NotFoundError(None, None, f"{path}; No such file or directory")


class GFile:
    """A file, opened lazily as TF's ``GFile`` is: text unless the mode has ``b``."""

    def __init__(self, name, mode="r"):
        if mode.replace("b", "") not in _MODES:
            raise errors.InvalidArgumentError(None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'")
        self.name, self.mode = _path(name), mode
        self._file = None

    def _f(self):
        if self._file is None:
            if self.mode.startswith("r") and not os.path.exists(self.name):
                raise _not_found(self.name)
            if os.path.isdir(self.name):
                raise errors.FailedPreconditionError(None, None, f"{self.name}; Is a directory")
            self._file = open(self.name, self.mode)  # noqa: SIM115 - closed by close() / __exit__
        return self._file

    def read(self, n=-1):
        return self._f().read(n)

    def readline(self):
        return self._f().readline()

    def readlines(self):
        return self._f().readlines()

    def write(self, data):
        f = self._f()
        if "b" not in self.mode and isinstance(data, bytes):
            data = data.decode()
        f.write(data)

    def seek(self, offset=None, whence=0, position=None):
        self._f().seek(position if offset is None else offset, whence)

    def tell(self):
        return self._f().tell()

    def size(self):
        return os.path.getsize(self.name)

    def flush(self):
        if self._file is not None:
            self._file.flush()

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def seekable(self):
        return True

    def __iter__(self):
        return iter(self._f())

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def exists(path):
    return os.path.exists(_path(path))


def isdir(path):
    return os.path.isdir(_path(path))


def makedirs(path):
    os.makedirs(_path(path), exist_ok=True)


def mkdir(path):
    path = _path(path)
    if not os.path.isdir(os.path.dirname(os.path.abspath(path))):
        raise _not_found(path)
    os.makedirs(path, exist_ok=True)


def listdir(path):
    path = _path(path)
    if not os.path.isdir(path):
        raise errors.NotFoundError(None, None, f"Could not find directory {path}")
    return os.listdir(path)  # the directory's order, as TF lists it


def glob(pattern):
    if isinstance(pattern, (list, tuple)):
        return [p for one in pattern for p in glob(one)]
    return sorted(_glob.glob(_path(pattern)))


def remove(path):
    path = _path(path)
    if os.path.isdir(path):
        raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory")
    if not os.path.exists(path):
        raise _not_found(path)
    os.remove(path)


def rmtree(path):
    path = _path(path)
    if not os.path.exists(path):
        raise errors.NotFoundError(None, None, f"{path} not found")
    shutil.rmtree(path)


def _check_target(dst, overwrite):
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")


def rename(src, dst, overwrite=False):
    src, dst = _path(src), _path(dst)
    _check_target(dst, overwrite)
    if not os.path.exists(src):
        raise _not_found(src)
    os.replace(src, dst)


def copy(src, dst, overwrite=False):
    src, dst = _path(src), _path(dst)
    _check_target(dst, overwrite)
    if not os.path.exists(src):
        raise _not_found(src)
    shutil.copyfile(src, dst)


class FileStatistics:
    """TF's FileStatistics: ``length``, ``mtime_nsec``, ``is_directory``."""

    def __init__(self, length, mtime_nsec, is_directory):
        self.length, self.mtime_nsec, self.is_directory = length, mtime_nsec, is_directory


def stat(path):
    path = _path(path)
    if not os.path.exists(path):
        raise _not_found(path)
    st = os.stat(path)
    return FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(path))


def walk(top, topdown=True, onerror=None):
    """(directory, subdirectories, files) for each directory under ``top``, as TF's walk."""
    top = _path(top)
    for root, dirs, files in os.walk(top, topdown=topdown, onerror=onerror):
        yield root, dirs, files  # pruning ``dirs`` in place prunes the walk, as in TF


def join(path, *paths):
    return os.path.join(path, *paths)


def get_registered_schemes():
    return ["", "file"]


def write_string_to_file(filename, file_content):
    """TF's ``file_io.write_string_to_file``: ``filename`` holds ``file_content`` (text or bytes) and nothing else."""
    with GFile(filename, "wb" if isinstance(file_content, bytes) else "w") as f:
        f.write(file_content)


def read_file_to_string(filename, binary_mode=False):
    """TF's ``file_io.read_file_to_string``: the whole file, as bytes with ``binary_mode``, else text."""
    with GFile(filename, "rb" if binary_mode else "r") as f:
        return f.read()
