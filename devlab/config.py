"""Machine-wide settings: simulated GPUs for programs that ask for none, and session overrides.

``simulate_gpus(n)`` (or the environment variable ``DEVLAB_SIMULATED_GPUS=n``) gives every
later session ``n`` GPUs: real ones first, simulated ones for the rest. Notebooks call it once,
so the seeds' programs run unchanged on a laptop or on Binder. ``override(...)`` changes what
sessions do for the length of a ``with`` block (the ``%%placement`` magic and ``devlab place``
use it): default device counts, forced soft placement, forced logging, tracing every run.

Device counts are bounded: a session has at most ``MAX_DEVICES_PER_TYPE`` (64) devices of each
type per task. TensorFlow can only hide real devices, so it needs no bound; devlab *creates*
simulated ones, and a mistyped count (``10**7``) would otherwise take the machine's memory.
"""
import contextlib
import numbers
import os

MAX_DEVICES_PER_TYPE = 64  # per device type and per task: far above any seed program, far below harm

_settings = {
    "simulated_gpus": None,  # GPUs a session gets when its config names none (None: the real ones)
    "default_cpus": None,  # CPUs a session gets when its config names none (None: 1, as TF)
    "logical_gpus_per_card": 1,  # split each real GPU into this many logical GPUs
    "force_soft_placement": False,
    "force_log": False,  # print the device mapping and placement log whatever the config says
    "log_to_stdout": True,  # False: sessions only emit their log as events (%%placement prints those)
    "trace_all": False,  # record step stats on every run, as FULL_TRACE does
}


def check_count(what, n, minimum=0, maximum=MAX_DEVICES_PER_TYPE):
    """``n`` as an int in [minimum, maximum], or a ValueError/TypeError that says what ``what`` needs."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"{what} must be a whole number of devices, got {n!r} ({type(n).__name__})")
    n = int(n)
    if not minimum <= n <= maximum:
        raise ValueError(f"{what} must be between {minimum} and {maximum}, got {n} (devlab simulates at most "
                         f"{MAX_DEVICES_PER_TYPE} devices of each type)")
    return n


def simulate_gpus(n):
    """Sessions created from now on see ``n`` GPUs (None: only the real ones)."""
    if isinstance(n, (str, bytes)):  # a number written as text: a bad value, as the bounds (ValueError)
        raise ValueError(f"simulate_gpus(n) must be a whole number of devices, got {n!r} ({type(n).__name__})")
    _settings["simulated_gpus"] = None if n is None else check_count("simulate_gpus(n)", n)


def simulated_gpus():
    """The GPU count sessions default to, or None to use the real GPUs only."""
    if _settings["simulated_gpus"] is not None:
        return _settings["simulated_gpus"]
    env = os.environ.get("DEVLAB_SIMULATED_GPUS", "").strip()
    if not env:
        return None
    try:
        n = int(env)
    except ValueError:
        raise ValueError(f"DEVLAB_SIMULATED_GPUS must be a number of GPUs, got {env!r}") from None
    return check_count("DEVLAB_SIMULATED_GPUS", n)


def set_logical_gpus_per_card(n):
    """Split each real GPU into ``n`` logical GPUs (TF's virtual devices), e.g. 4 on one card."""
    _settings["logical_gpus_per_card"] = check_count("set_logical_gpus_per_card(n)", n, minimum=1)


def set_placement_log(on):
    """Print every session's device mapping and placement log, whatever its config says."""
    _settings["force_log"] = bool(on)


def get(name):
    """The current value of one setting."""
    if name == "simulated_gpus":
        return simulated_gpus()
    return _settings[name]


@contextlib.contextmanager
def override(**settings):
    """Changes settings inside the block, restoring them after (even on error)."""
    unknown = set(settings) - set(_settings)
    if unknown:
        raise TypeError(f"unknown devlab settings: {sorted(unknown)}")
    for name, minimum in (("simulated_gpus", 0), ("default_cpus", 1), ("logical_gpus_per_card", 1)):
        if settings.get(name) is not None:
            check_count(name, settings[name], minimum)
    saved = dict(_settings)
    _settings.update({k: v for k, v in settings.items()})
    try:
        yield
    finally:
        _settings.clear()
        _settings.update(saved)


# -- how a source location is written -------------------------------------------------------------
_source_namers = []  # fn(filename, lineno) -> text or None; the notebook adds one for its cells


def add_source_namer(fn):
    """Lets ``fn(filename, lineno)`` name source locations (e.g. ``cell 3, line 2`` for a notebook
    cell's temporary file); it returns None for files it does not know."""
    if fn not in _source_namers:
        _source_namers.append(fn)


def remove_source_namer(fn):
    if fn in _source_namers:
        _source_namers.remove(fn)


def source_location(filename, lineno):
    """``filename:lineno``, or what a source namer calls it (a notebook cell and its line)."""
    for fn in reversed(_source_namers):
        text = fn(filename, lineno)
        if text:
            return text
    return f"{filename}:{lineno}"
