"""TF's ``tensorflow.python.platform.test`` (and ``googletest``) for the harness: ``TestCase`` is the
harness's graph-mode ``TensorFlowTestCase``; the runner, not ``main``, runs the methods."""
import tempfile
import unittest
from unittest import mock  # noqa: F401 - TF's test files use test.mock

from .test_util import TensorFlowTestCase as TestCase  # noqa: F401
from .test_util import gpu_device_name, is_gpu_available  # noqa: F401

Benchmark = object


def main(argv=None):
    unittest.main()


def get_temp_dir():
    return tempfile.mkdtemp()


def is_built_with_cuda():
    return False


def is_built_with_gpu_support():
    return False


def is_built_with_rocm():
    return False
