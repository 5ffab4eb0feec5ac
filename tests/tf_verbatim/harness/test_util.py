"""The graph-mode parts of TF's ``test_util`` that TF's test files use, written for devlab.

``TensorFlowTestCase`` gives each test a fresh default graph with TF's test graph seed, and the
sessions TF's tests ask for (``cached_session``, ``session``, ``test_session``) and ``evaluate``;
the assertions compare numbers as TF's do (``assertAllClose`` with dtype-dependent tolerances,
``assertAllEqual``, ``assertDeviceEqual``). devlab is TF1 graph mode, so the mode decorators run
the graph variant only and skip what runs only in TF2 (eager, ``tf.function``, control flow
v2): those methods are out of scope, and TF's own results are recorded the same way.
"""
import contextlib
import functools
import math
import os
import random
import re
import tempfile
import threading
import unittest

import numpy as np
from absl.testing import parameterized

import devlab
from devlab.framework.device_spec import canonical_name

DEFAULT_GRAPH_SEED = 87654321


def _skip_v2(reason):
    """A decorator (bare or called) that skips the test: it needs TF2 behaviour devlab lacks."""
    def decorator(f):
        if isinstance(f, type):
            return unittest.skip(reason)(f)

        @functools.wraps(f)
        def wrapper(self, *args, **kwargs):
            self.skipTest(reason)
        return wrapper
    return decorator


def _identity_decorator(func=None, *args, **kwargs):
    """A decorator, bare or called with arguments, that leaves the test as it is."""
    if callable(func) and not args and not kwargs:
        return func
    return lambda f: f


def _for_methods(wrap):
    """A decorator (bare or called, on a method or on a class's test methods) applying ``wrap``."""
    def decorator(f):
        if isinstance(f, type):
            for name, value in list(vars(f).items()):
                if name.startswith("test") and callable(value) and name != "test_session" \
                        and not name.startswith(("testSkipEager", "test_skip_eager")):
                    setattr(f, name, wrap(value))
            return f
        return wrap(f)
    return decorator


def _graph(f):
    """TF's ``run_deprecated_v1``: the body as it is, in the test's default graph (graph mode)."""
    return f


def _graph_in_session(f):
    """The graph half of TF's ``run_in_graph_and_eager_modes``: the body inside
    ``self.test_session()``, a SkipTest raised inside it swallowed, as TF does."""
    @functools.wraps(f)
    def wrapper(self, *args, **kwargs):
        try:
            with self.test_session():
                return f(self, *args, **kwargs)
        except unittest.SkipTest:
            pass
    return wrapper


def run_deprecated_v1(func=None):
    return _for_methods(_graph)(func) if func is not None else _for_methods(_graph)


def run_v1_only(reason=None, func=None):
    if callable(reason):
        return _for_methods(_graph)(reason)
    return _for_methods(_graph)(func) if func is not None else _for_methods(_graph)


deprecated_graph_mode_only = run_deprecated_v1


def run_in_graph_and_eager_modes(func=None, config=None, use_gpu=True, assert_no_eager_garbage=False):
    return _for_methods(_graph_in_session)(func) if func is not None else _for_methods(_graph_in_session)


run_all_in_graph_and_eager_modes = run_in_graph_and_eager_modes


def build_as_function_and_v1_graph(func):
    """TF's two variants of the method: ``_v1_graph`` (in a fresh graph) runs; ``_function`` (built
    in a ``tf.function``) is skipped, out of scope as tf.function."""
    @parameterized.named_parameters(("_v1_graph", "v1_graph"), ("_function", "function"))
    @functools.wraps(func)
    def decorated(self, run_mode, *args, **kwargs):
        if run_mode == "function":
            self.skipTest("tf.function")
        with devlab.Graph().as_default():
            func(self, *args, **kwargs)
    return decorated


def run_v2_only(func=None, reason=None):
    if isinstance(func, str):
        return _skip_v2("TF2 only")
    return _skip_v2("TF2 only")(func) if func is not None else _skip_v2("TF2 only")


run_gpu_only = _skip_v2("needs a GPU (TF's CPU baseline skips it)")
also_run_as_tf_function = _skip_v2("tf.function")
enable_control_flow_v2 = _skip_v2("control flow v2")
with_control_flow_v2 = _identity_decorator  # the v1 variant runs; TF adds a v2 subclass
disable_control_flow_v2 = _identity_decorator
disable_xla = _identity_decorator
disable_tfrt = _identity_decorator
enable_output_all_intermediates = _identity_decorator
run_without_tensor_float_32 = _identity_decorator
run_all_without_tensor_float_32 = _identity_decorator  # TF32 is a GPU matmul mode: nothing to turn off here


def is_xla_enabled():
    return False  # devlab models no XLA
with_eager_op_as_function = _identity_decorator
enable_quantized_dtypes_training = _identity_decorator


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """TF's baseline is recorded on CPU, so the harness runs without GPUs too."""
    return False


def gpu_device_name():
    return ""


@contextlib.contextmanager
def device(use_gpu):
    """``test_util.device(use_gpu)``: the CPU (no GPU in the CPU baseline)."""
    with devlab.device("/cpu:0"):
        yield


@contextlib.contextmanager
def use_gpu():
    yield


@contextlib.contextmanager
def force_cpu():
    """``test_util.force_cpu()``: the ops made inside go to the CPU."""
    with devlab.device("/device:CPU:0"):
        yield


def get_node_def_from_graph(node_name, graph_def):
    for node in graph_def.node:
        if node.name == node_name:
            return node
    return None


def _tolerances(dtype, rtol, atol, float_rtol=1e-6, float_atol=1e-6, half_rtol=1e-3, half_atol=1e-3,
                bfloat16_rtol=1e-2, bfloat16_atol=1e-2):
    name = np.dtype(dtype).name if not isinstance(dtype, str) else dtype
    if name == "float16":
        return max(rtol, half_rtol), max(atol, half_atol)
    if name == "bfloat16":
        return max(rtol, bfloat16_rtol), max(atol, bfloat16_atol)
    if name in ("float32", "complex64"):
        return max(rtol, float_rtol), max(atol, float_atol)
    return rtol, atol


class CheckedThread:
    """``self.checkedThread``: a thread whose exception fails the test at ``join``."""

    def __init__(self, testcase, target, args=None, kwargs=None):
        self._testcase, self._target = testcase, target
        self._args, self._kwargs = args or (), kwargs or {}
        self._exception = None
        self._thread = threading.Thread(target=self._protected_run, daemon=True)
        self._is_thread_joined = False

    def _protected_run(self):
        try:
            self._target(*self._args, **self._kwargs)
        except Exception as e:  # noqa: BLE001 - reported at join
            self._exception = e

    def start(self):
        self._thread.start()

    def join(self):
        self._thread.join()
        self._is_thread_joined = True
        if self._exception is not None:
            self._testcase.fail(f"Error in checkedThread: {self._exception}")

    def is_alive(self):
        return self._thread.is_alive()

    def check_termination(self):
        if self._is_thread_joined:
            if self.is_alive():
                raise RuntimeError("Thread was not joined, but is still alive.")
        else:
            self._testcase.fail("A checked thread was not joined.")


class TensorFlowTestCase(parameterized.TestCase):
    """TF's base test case, graph mode: a fresh default graph per test and TF's sessions."""

    def __init__(self, methodName="runTest"):
        super().__init__(methodName)
        self._cached_session = None
        self._threads = []
        self._tempdir = None

    def setUp(self):
        super().setUp()
        self._cached_session = None
        random.seed(DEFAULT_GRAPH_SEED)
        np.random.seed(DEFAULT_GRAPH_SEED)
        devlab.reset_default_graph()
        devlab.get_default_graph().seed = DEFAULT_GRAPH_SEED

    def tearDown(self):
        for thread in self._threads:
            thread.check_termination()
        if self._cached_session is not None:
            self._cached_session.close()
            self._cached_session = None
        super().tearDown()

    # sessions ------------------------------------------------------------------------------------
    @staticmethod
    def _config(config):
        return config if config is not None else devlab.ConfigProto(allow_soft_placement=True)

    @contextlib.contextmanager
    def _as_default(self, sess, use_gpu, force_gpu):
        with sess.graph.as_default(), sess.as_default():
            if force_gpu:
                with devlab.device("/device:GPU:0"):
                    yield sess
            elif not use_gpu:
                with devlab.device("/device:CPU:0"):
                    yield sess
            else:
                yield sess

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        graph = graph if graph is not None else devlab.get_default_graph()
        with devlab.Session(graph=graph, config=self._config(config)) as sess:
            with self._as_default(sess, use_gpu, force_gpu):
                yield sess

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        if self._cached_session is None:
            graph = graph if graph is not None else devlab.get_default_graph()
            self._cached_session = devlab.Session(graph=graph, config=self._config(config))
        elif graph is not None and self._cached_session.graph is not graph:
            raise ValueError("The graph used to get the cached session is different than the one that was "
                             "used to create the session. Maybe create a new session with self.session()")
        with self._as_default(self._cached_session, use_gpu, force_gpu) as sess:
            yield sess

    @contextlib.contextmanager
    def test_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """A session (TF's older name). A generator, as TF's: collected as a test method, calling it
        runs nothing (TF's runner passes it); entered by a method so named, it skips, as TF's does."""
        if self.id().endswith(".test_session"):
            self.skipTest("the name test_session is reserved for creating sessions within tests")
        if graph is None:
            with self.cached_session(config=config, use_gpu=use_gpu, force_gpu=force_gpu) as sess:
                yield sess
        else:
            with self.session(graph, config, use_gpu, force_gpu) as sess:
                yield sess

    def evaluate(self, tensors):
        sess = devlab.get_default_session()
        if sess is None:
            with self.test_session() as sess:
                return sess.run(tensors)
        return sess.run(tensors)

    def checkedThread(self, target, args=None, kwargs=None):
        thread = CheckedThread(self, target, args, kwargs)
        self._threads.append(thread)
        return thread

    def get_temp_dir(self):
        if not self._tempdir:
            self._tempdir = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR") or None)
        return self._tempdir

    @contextlib.contextmanager
    def captureWritesToStream(self, stream):
        raise NotImplementedError("captureWritesToStream (writes to a file descriptor)")
        yield  # pragma: no cover

    # assertions ----------------------------------------------------------------------------------
    def _values(self, a):
        if isinstance(a, (devlab.Tensor, devlab.Variable)):
            a = self.evaluate(a)
        return a

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        a, b = self._values(a), self._values(b)
        if isinstance(a, dict) or isinstance(b, dict):
            self.assertEqual(set(a), set(b), msg)
            for k in a:
                self.assertAllClose(a[k], b[k], rtol, atol, msg)
            return
        if isinstance(a, (list, tuple)) and a and not np.isscalar(a[0]) and not isinstance(a[0], (list, tuple)) \
                and not isinstance(a[0], np.ndarray):
            a = list(a)
        if (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b)
                and any(isinstance(x, (np.ndarray, list, tuple, dict)) for x in a)):
            try:
                np.asarray(a, dtype=float)
                np.asarray(b, dtype=float)
            except (ValueError, TypeError):
                for x, y in zip(a, b):
                    self.assertAllClose(x, y, rtol, atol, msg)
                return
        a_arr, b_arr = np.asarray(a), np.asarray(b)
        if a_arr.dtype.kind in "fc" or b_arr.dtype.kind in "fc":
            np.testing.assert_allclose(a_arr, b_arr, rtol=rtol, atol=atol, err_msg=msg or "", equal_nan=True)
        else:
            np.testing.assert_array_equal(a_arr, b_arr, err_msg=msg or "")
        self.assertEqual(a_arr.shape, b_arr.shape, msg)

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6, float_rtol=1e-6, float_atol=1e-6,
                                      half_rtol=1e-3, half_atol=1e-3, bfloat16_rtol=1e-2, bfloat16_atol=1e-2,
                                      msg=None):
        a, b = self._values(a), self._values(b)
        dtypes = [np.asarray(a).dtype, np.asarray(b).dtype]
        for d in dtypes:
            if d.kind in "fc":
                rtol, atol = _tolerances(d, rtol, atol, float_rtol, float_atol, half_rtol, half_atol,
                                         bfloat16_rtol, bfloat16_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol)
        except AssertionError:
            return
        self.fail(msg or "The two values are close at all elements")

    def assertAllEqual(self, a, b, msg=None):
        a, b = self._values(a), self._values(b)
        a_arr, b_arr = _nd_array(a), _nd_array(b)
        self.assertEqual(a_arr.shape, b_arr.shape, f"{msg or ''} shape mismatch: {a_arr.shape} vs {b_arr.shape}")
        if a_arr.dtype.kind in "SUO" or b_arr.dtype.kind in "SUO":
            self.assertEqual(a_arr.tolist(), b_arr.tolist(), msg)
        else:
            np.testing.assert_array_equal(a_arr, b_arr, err_msg=msg or "")

    def assertNotAllEqual(self, a, b, msg=None):
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        self.fail(msg or "The two values are equal at all elements")

    def assertArrayNear(self, farray1, farray2, err, msg=None):
        self.assertEqual(len(farray1), len(farray2), msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg)

    def assertNear(self, f1, f2, err, msg=None):
        self.assertTrue(f1 == f2 or math.fabs(f1 - f2) <= err,
                        f"{f1} != {f2} +/- {err}{' (' + msg + ')' if msg else ''}")

    def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False,
                         open_upper_bound=False):
        target = np.asarray(self._values(target))
        lower_ok = target > lower_bound if open_lower_bound else target >= lower_bound
        upper_ok = target < upper_bound if open_upper_bound else target <= upper_bound
        self.assertTrue(np.all(lower_ok & upper_ok), f"{target} not in range")

    def assertAllGreater(self, a, comparison_target):
        self.assertGreater(np.min(self._values(a)), comparison_target)

    def assertAllLess(self, a, comparison_target):
        self.assertLess(np.max(self._values(a)), comparison_target)

    def assertAllGreaterEqual(self, a, comparison_target):
        self.assertGreaterEqual(np.min(self._values(a)), comparison_target)

    def assertAllLessEqual(self, a, comparison_target):
        self.assertLessEqual(np.max(self._values(a)), comparison_target)

    def assertShapeEqual(self, input_a, input_b, msg=None):
        self.assertEqual(list(np.asarray(input_a).shape), input_b.get_shape().as_list(), msg)

    def assertDeviceEqual(self, device1, device2, msg=None):
        self.assertEqual(canonical_name(device1), canonical_name(device2),
                         f"Devices {device1} and {device2} are not equal. {msg or ''}")

    def assertStartsWith(self, actual, expected_start, msg=None):
        if not actual.startswith(expected_start):
            self.fail(f"{actual!r} does not start with {expected_start!r}" + (f" : {msg!r}" if msg else ""))

    def assertItemsEqual(self, a, b, msg=None):
        self.assertCountEqual(a, b, msg)

    def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            def predicate(e):
                err_str = e.message if hasattr(e, "message") and e.message is not None else str(e)
                return re.search(expected_err_re_or_predicate, err_str) is not None
        return _RaisesPredicate(self, exception_type, predicate)

    def assertRaisesOpError(self, expected_err_re_or_predicate):
        return self.assertRaisesWithPredicateMatch(devlab.errors.OpError, expected_err_re_or_predicate)

    def assertRaisesIncompatibleShapesError(self, exception_type=None):
        return self.assertRaisesWithPredicateMatch(
            exception_type or devlab.errors.InvalidArgumentError,
            r"Incompatible shapes|Dimensions must be equal|required broadcastable shapes")

    def assertProtoEquals(self, expected_message_maybe_ascii, message, msg=None):
        """TF's check: ``expected`` (text format, or a message) equals ``message``; a devlab
        NodeDef or GraphDef is compared as the TF message devlab writes for it."""
        from google.protobuf import text_format

        from devlab.graphs import encode
        if not hasattr(message, "DESCRIPTOR"):
            message = (encode.node_def_proto(message) if isinstance(message, devlab.NodeDef)
                       else encode.graph_def(message))
        if isinstance(expected_message_maybe_ascii, type(message)):
            expected = expected_message_maybe_ascii
        else:
            expected = type(message)()
            text_format.Merge(expected_message_maybe_ascii, expected)
        self.assertMultiLineEqual(text_format.MessageToString(expected), text_format.MessageToString(message),
                                  msg)

    def assertProtoEqualsVersion(self, expected, actual, producer=None, min_consumer=None, msg=None):
        producer = devlab.GRAPH_DEF_VERSION if producer is None else producer
        min_consumer = devlab.GRAPH_DEF_VERSION_MIN_CONSUMER if min_consumer is None else min_consumer
        expected = f"versions {{ producer: {producer} min_consumer: {min_consumer} }};\n{expected}"
        self.assertProtoEquals(expected, actual, msg=msg)


class _FakeGradientTape:
    """TF's test-only stand-in: ``tf.gradients`` behind the tape's interface."""

    def watch(self, x):
        pass

    def gradient(self, y, x, grad_ys=None):
        result = devlab.gradients(y, x, grad_ys)
        return result if isinstance(x, (list, tuple)) else result[0]


class AbstractGradientTape:
    """TF's test helper: a ``tf.GradientTape``, or (``use_tape=False``) ``tf.gradients`` behind its interface."""

    def __init__(self, use_tape, persistent=False):
        self._use_tape, self._persistent = use_tape, persistent

    def __enter__(self):
        self._tape = devlab.GradientTape(persistent=self._persistent) if self._use_tape else None
        return self._tape.__enter__() if self._tape is not None else _FakeGradientTape()

    def __exit__(self, exc_type, exc_val, exc_tb):
        if self._tape is not None:
            self._tape.__exit__(exc_type, exc_val, exc_tb)


class _RaisesPredicate:
    def __init__(self, testcase, exception_type, predicate):
        self._testcase, self._type, self._predicate = testcase, exception_type, predicate

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self._testcase.fail(f"Exception of type {self._type} not raised")
        if not issubclass(exc_type, self._type) or not self._predicate(exc):
            raise AssertionError(f"Exception of type {exc_type}: {exc}") from exc
        return True


def _nd_array(a):
    """TF's ``_GetNdArray``: a ragged nest becomes an object array (NumPy 1.24 no longer infers it)."""
    if isinstance(a, np.ndarray):
        return a
    try:
        return np.array(a)
    except ValueError as e:
        if "inhomogeneous shape" in str(e):
            return np.array(a, dtype=object)
        raise
