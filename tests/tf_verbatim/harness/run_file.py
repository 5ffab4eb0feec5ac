"""Run one TensorFlow test file's methods and write each method's result as JSON.

``python -m tests.tf_verbatim.harness.run_file FILE OUT.json`` runs it against devlab through
the routes (``routes.install``); ``--tf`` runs it against TensorFlow itself (run with a Python
that has TensorFlow), in TF1 graph mode (``disable_v2_behavior``), which is how TF's baseline is
recorded. Each method runs under an alarm (``--timeout`` seconds), so a queue that never fills
fails that method instead of hanging the file. Each result is ``[status, message]``: status is
pass, fail, error or skip (scope.py decides which methods count).
"""
import argparse
import importlib.abc
import importlib.util
import json
import os
import re
import signal
import sys
import time
import traceback
import unittest

def _tests(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from _tests(item)
        else:
            yield item


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout("the method ran past the harness's timeout")


def _message(err):
    exc_type, exc, _ = err
    text = f"{exc_type.__name__}: {exc}".strip().splitlines()
    return (text[0] if text else exc_type.__name__)[:300]


# TF's test-only modules its pip package lacks, taken from the same TF source (tools/tf_verbatim.py
# extract writes them under src/support/): module name -> file
SUPPORT = {"tensorflow.python.summary.writer.fake_summary_writer": "fake_summary_writer.py",
           "tensorflow.python.training.saver_test_utils": "saver_test_utils.py"}


class _SupportFinder(importlib.abc.MetaPathFinder):
    """Finds TF's test-only modules (SUPPORT) and, under TF, XLA's protos by their source-tree name."""

    def __init__(self, folder, use_tf):
        self.folder, self.use_tf = folder, use_tf

    def find_spec(self, fullname, path=None, target=None):
        if fullname in SUPPORT and os.path.exists(os.path.join(self.folder, SUPPORT[fullname])):
            return importlib.util.spec_from_file_location(fullname, os.path.join(self.folder, SUPPORT[fullname]))
        if self.use_tf and fullname in ("local_xla", "local_xla.xla"):
            return importlib.util.spec_from_loader(fullname, _Package(), is_package=True)
        if self.use_tf and fullname == "local_xla.xla.xla_data_pb2":
            return importlib.util.find_spec("tensorflow.compiler.xla.xla_data_pb2")
        return None


class _Package(importlib.abc.Loader):
    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__path__ = []


def run(path, use_tf, timeout):
    """{method id: [status, message, scope]} for the test file at ``path``, and an import error."""
    sys.argv = [path]
    if use_tf:
        import tensorflow as tf
        tf.compat.v1.disable_v2_behavior()
        importing = None
    else:
        from tests.tf_verbatim.harness import missing, routes
        routes.install()
        importing = missing.importing_file
    sys.meta_path.insert(0, _SupportFinder(os.path.join(os.path.dirname(path), "support"), use_tf))
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    results = {}
    try:
        if importing:
            with importing():
                spec.loader.exec_module(module)
        else:
            spec.loader.exec_module(module)
    except BaseException:  # noqa: BLE001 - a file that fails to import fails every method
        return results, traceback.format_exc(limit=3)[-2000:]
    signal.signal(signal.SIGALRM, _alarm)
    for test in _tests(unittest.TestLoader().loadTestsFromModule(module)):
        method_id = test.id().split(".", 1)[-1]
        result = unittest.TestResult()
        signal.alarm(timeout)
        try:
            test.run(result)
        except _Timeout as e:
            result.errors.append((test, str(e)))
        finally:
            signal.alarm(0)
        if result.errors or result.failures:
            status = "error" if result.errors else "fail"
            detail = (result.errors or result.failures)[0][1]
            lines = [ln for ln in detail.strip().splitlines() if ln.strip()]
            message = lines[-1][:300] if lines else ""
        elif result.skipped:
            status, message = "skip", str(result.skipped[0][1])[:300]
        elif result.expectedFailures:
            status, message = "skip", "expected failure"
        else:
            status, message = "pass", ""
        results[method_id] = [status, message]
    return results, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("out")
    parser.add_argument("--tf", action="store_true", help="run against TensorFlow itself")
    parser.add_argument("--timeout", type=int, default=60)
    args = parser.parse_args()
    start = time.time()
    results, import_error = run(os.path.abspath(args.file), args.tf, args.timeout)
    with open(args.out, "w") as f:
        json.dump({"file": os.path.basename(args.file), "methods": results, "import_error": import_error,
                   "seconds": round(time.time() - start, 1)}, f, indent=0, sort_keys=True)
    sys.stdout.flush()
    os._exit(0)  # threads a failed test left blocked must not keep the process alive


if __name__ == "__main__":
    main()
