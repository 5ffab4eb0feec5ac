"""Shared fixtures: a fresh default graph per test, and device kinds to parametrize over.

The simulated GPU is always present; the real-GPU variant skips only where CuPy finds no GPU.
"""
import os
import pathlib

import pytest
from hypothesis import settings

import devlab as tf
from devlab.devices import gpu

HAS_GPU = gpu.cupy_module() is not None

# TensorFlow's own test files (and the harness that runs them) are run by test_tf_verbatim.py in
# subprocesses, never collected here: they import ``tensorflow``.
collect_ignore = ["tf_verbatim"]
# The verbatim suite needs TF's test files, which no commit may carry and CI cannot fetch: it is
# collected where they were extracted (python tools/tf_verbatim.py extract --mirror GIT_DIR).
if not (pathlib.Path(__file__).parent / "tf_verbatim" / "src" / "ops_test.py").exists():
    collect_ignore.append("test_tf_verbatim.py")

# Property tests draw the same examples on every run, so CI is repeatable; HYPOTHESIS_PROFILE=fuzz
# draws new random ones (and 20x as many) to hunt for failures.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("fuzz", derandomize=False, max_examples=2000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


@pytest.fixture(autouse=True)
def cpu_only_machine(request, monkeypatch):
    """Every test but the real-GPU ones describes a machine without a GPU (simulated GPUs only),
    so the suite asserts the same placements, devices and messages on a GPU machine too."""
    if request.node.get_closest_marker("gpu") is None:
        monkeypatch.setenv("DEVLAB_DISABLE_CUPY", "1")
    gpu.cupy_module.cache_clear()
    yield
    gpu.cupy_module.cache_clear()


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.config.simulate_gpus(None)
    with tf.Graph().as_default() as g:
        yield g
    tf.config.simulate_gpus(None)


# Where a kernel runs: (device string, device_count, real GPU?) for CPU, simulated and real GPU.
DEVICE_KINDS = [
    pytest.param(("/cpu:0", {"GPU": 0}, False), id="cpu"),
    pytest.param(("/gpu:0", {"GPU": 1}, False), id="simulated-gpu"),
    pytest.param(("/gpu:0", {"GPU": 1}, True), id="real-gpu",
                 marks=[pytest.mark.gpu, pytest.mark.skipif(not HAS_GPU, reason="no CUDA GPU")]),
]


@pytest.fixture(params=DEVICE_KINDS)
def device_kind(request, monkeypatch):
    """(device string, ConfigProto) for running ops on one device kind."""
    device, count, real = request.param
    if not real:
        monkeypatch.setenv("DEVLAB_DISABLE_CUPY", "1")  # a numpy-backed GPU even on a GPU machine
    gpu.cupy_module.cache_clear()
    yield device, tf.ConfigProto(device_count=count)
    gpu.cupy_module.cache_clear()
