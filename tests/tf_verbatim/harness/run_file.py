"""Run one TensorFlow test file's methods and write each method's result as JSON.

``python -m tests.tf_verbatim.harness.run_file FILE OUT.json`` runs it against devlab through
the routes (``routes.install``); ``--tf`` runs it against TensorFlow itself (run with a Python
that has TensorFlow), in TF1 graph mode (``disable_v2_behavior``), which is how TF's baseline is
recorded. Each method runs under an alarm (``--timeout`` seconds), so a queue that never fills
fails that method instead of hanging the file. Each result is ``[status, message, scope]``:
status is pass, fail, error or skip; scope is "" or the reason the method is out of scope
(``scope_reason``), read from the method's own source.
"""
import argparse
import importlib.abc
import importlib.util
import inspect
import json
import os
import re
import signal
import sys
import time
import traceback
import unittest

# Out of scope, decided from the method's name and source: (reason, pattern)
EXCLUSIONS = [
    ("eager", re.compile(r"^\S*[Ee]ager|eager_mode|EagerTensor|GradientTape|\.numpy\(\)|context\.context\(\)")),
    ("tf.function", re.compile(r"def_function|eager_function|polymorphic_function|wrap_function|"
                               r"\bDefun\b|@function\.|function\.defun|tf_function|ConcreteFunction")),
    ("XLA", re.compile(r"[Xx][Ll][Aa]\b|xla_|jit_scope|[Xx]la[A-Z]")),
    ("control flow v2", re.compile(r"while_v2|cond_v2|control_flow_v2|ControlFlowV2|[Cc]ontrol[Ff]low[Vv]2|"
                                   r"output_all_intermediates|enable_control_flow_v2")),
    ("C++ internals", re.compile(r"\btest_ops\.|c_api|pywrap|_c_op\b|_create_c_op|_test_metrics|"
                                 r"checkpoint_management\.|py_checkpoint_reader|saved_model")),
]


def _source(func):
    """The source of ``func`` without its decorator lines (``run_in_graph_and_eager_modes`` puts
    a graph method in scope; only the body says what the method uses)."""
    text = inspect.getsource(func)
    match = re.search(r"^\s*(async\s+)?def ", text, re.M)
    return text[match.start():] if match else text


def _method_source(test):
    """The source text of ``test``'s method: the original function under its decorators (whose
    wrappers, TF's or the file's own, would name eager or v2 modes the method itself never uses)."""
    method = getattr(type(test), test._testMethodName, None)
    func = inspect.unwrap(method) if method is not None else None
    texts = [test.id().split(".", 1)[-1]]
    if func is not None:
        try:
            texts.append(_source(func))
        except (OSError, TypeError):
            pass
    # absl's parameterized methods wrap the original; find it by the name before the parameters
    base = re.sub(r"(_\d+|_[A-Za-z0-9]+)$", "", test._testMethodName)
    for klass in type(test).__mro__:
        candidate = klass.__dict__.get(base) or klass.__dict__.get(test._testMethodName)
        if candidate is not None and callable(candidate):
            try:
                texts.append(_source(inspect.unwrap(candidate)))
            except (OSError, TypeError):
                pass
            break
    return "\n".join(texts)


def scope_reason(test):
    """"" when the method is in scope, else the reason it is not (eager, tf.function, ...)."""
    source = _method_source(test)
    for reason, pattern in EXCLUSIONS:
        if pattern.search(source):
            return reason
    return ""


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
SUPPORT = {"tensorflow.python.summary.writer.fake_summary_writer": "fake_summary_writer.py"}


class _SupportFinder(importlib.abc.MetaPathFinder):
    """Finds TF's test-only modules (SUPPORT) and, under TF, XLA's protos by their source-tree name."""

    def __init__(self, folder, use_tf):
        self.folder, self.use_tf = folder, use_tf

    def find_spec(self, fullname, path=None, target=None):
        if fullname in SUPPORT:
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
        results[method_id] = [status, message, scope_reason(test)]
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
