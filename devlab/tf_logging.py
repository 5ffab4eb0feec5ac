"""``tf.logging``: TF1's logging functions, on Python's ``logging`` (logger ``tensorflow``).

Messages are printed as TF1 printed them, ``INFO:tensorflow:step 100``, to the ``sys.stderr`` of
the moment (so a notebook shows them under the cell); the default verbosity is WARN, as in TF1.
"""
import logging as _logging
import sys

DEBUG, INFO, WARN, ERROR, FATAL = _logging.DEBUG, _logging.INFO, _logging.WARN, _logging.ERROR, _logging.FATAL


class _StderrHandler(_logging.Handler):
    """Writes to whatever ``sys.stderr`` is when a message comes (Jupyter replaces it per cell)."""

    def emit(self, record):
        try:
            sys.stderr.write(self.format(record) + "\n")
        except Exception:  # noqa: BLE001 - logging must never raise
            self.handleError(record)


_logger = _logging.getLogger("tensorflow")
if not any(isinstance(h, _StderrHandler) for h in _logger.handlers):
    _handler = _StderrHandler()
    _handler.setFormatter(_logging.Formatter("%(levelname)s:tensorflow:%(message)s"))
    _logger.addHandler(_handler)
    _logger.propagate = False
    _logger.setLevel(WARN)


def get_logger():
    return _logger


def set_verbosity(v):
    _logger.setLevel(v)


def get_verbosity():
    return _logger.getEffectiveLevel()


def log(level, msg, *args, **kwargs):
    _logger.log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    _logger.debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    _logger.info(msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    _logger.warning(msg, *args, **kwargs)


warn = warning


def error(msg, *args, **kwargs):
    _logger.error(msg, *args, **kwargs)


def fatal(msg, *args, **kwargs):
    _logger.fatal(msg, *args, **kwargs)


def vlog(level, msg, *args, **kwargs):
    _logger.log(level, msg, *args, **kwargs)


_counts = {}


def log_every_n(level, msg, n, *args):
    """Logs the 1st, (n+1)th, (2n+1)th... call from the same line."""
    key = sys._getframe(1).f_code, sys._getframe(1).f_lineno
    count = _counts[key] = _counts.get(key, 0) + 1
    if (count - 1) % n == 0:
        _logger.log(level, msg, *args)


def log_first_n(level, msg, n, *args):
    key = sys._getframe(1).f_code, sys._getframe(1).f_lineno
    count = _counts[key] = _counts.get(key, 0) + 1
    if count <= n:
        _logger.log(level, msg, *args)


def log_if(level, msg, condition, *args):
    if condition:
        _logger.log(level, msg, *args)


def flush():
    sys.stderr.flush()


def TaskLevelStatusMessage(msg):  # noqa: N802 - TF's name
    return msg
