"""``tf.python_io``: TFRecord files from Python (``TFRecordWriter``, ``tf_record_iterator``).

The record format is ``ops/tfrecord.py``. Only uncompressed files: TF's ``TFRecordOptions``
with ZLIB or GZIP compression is refused by name.
"""
from ..framework import errors
from ..ops import tfrecord


class TFRecordCompressionType:
    NONE, ZLIB, GZIP = 0, 1, 2


class TFRecordOptions:
    """``tf.python_io.TFRecordOptions(compression_type)``: devlab writes uncompressed files only."""

    def __init__(self, compression_type=None, **kwargs):
        if compression_type not in (None, "", 0, "NONE") or kwargs:
            raise NotImplementedError(
                f"TFRecordOptions(compression_type={compression_type!r}): devlab reads and writes uncompressed "
                "TFRecord files only")
        self.compression_type = compression_type


def _check_options(options):
    if options is not None and not isinstance(options, TFRecordOptions):
        TFRecordOptions(options)


class TFRecordWriter:
    """Writes records to a TFRecord file: ``with TFRecordWriter(path) as w: w.write(bytes)``."""

    def __init__(self, path, options=None):
        _check_options(options)
        try:
            self._file = open(path, "wb")
        except OSError as e:
            raise errors.NotFoundError(None, None, f"{path}; {e.strerror}") from None

    def write(self, record):
        if isinstance(record, str):
            record = record.encode()
        self._file.write(tfrecord.encode(bytes(record)))

    def flush(self):
        self._file.flush()

    def close(self):
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def tf_record_iterator(path, options=None):
    """The records of a TFRecord file, as bytes."""
    _check_options(options)
    try:
        f = open(path, "rb")
    except OSError as e:
        raise errors.NotFoundError(None, None, f"{path}; {e.strerror}") from None
    with f:
        yield from tfrecord.records(f, path)
