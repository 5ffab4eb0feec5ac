"""Machine-wide settings: how many GPUs to simulate when a program asks for none.

``simulate_gpus(n)`` (or the environment variable ``DEVLAB_SIMULATED_GPUS=n``) gives every
later session ``n`` GPUs: real ones first, simulated ones for the rest. Notebooks call it
once, so the seeds' programs run unchanged on a laptop or on Binder.
"""
import os

_settings = {"simulated_gpus": None, "logical_gpus_per_card": 1}


def simulate_gpus(n):
    """Sessions created from now on see ``n`` GPUs (None: only the real ones)."""
    if n is not None and (not isinstance(n, int) or n < 0):
        raise ValueError(f"simulate_gpus needs a count >= 0, got {n!r}")
    _settings["simulated_gpus"] = n


def simulated_gpus():
    """The GPU count sessions default to, or None to use the real GPUs only."""
    if _settings["simulated_gpus"] is not None:
        return _settings["simulated_gpus"]
    env = os.environ.get("DEVLAB_SIMULATED_GPUS")
    return int(env) if env else None


def set_logical_gpus_per_card(n):
    """Split each real GPU into ``n`` logical GPUs (TF's virtual devices), e.g. 4 on one card."""
    _settings["logical_gpus_per_card"] = int(n)


def logical_gpus_per_card():
    return _settings["logical_gpus_per_card"]
