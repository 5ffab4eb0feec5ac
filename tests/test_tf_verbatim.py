"""TensorFlow's own test files, unedited, against devlab (tests/tf_verbatim/README.md): every
method that passed when the ratchet was last taken (tests/data/tf_verbatim/passing.json) still
passes. A fixed fast subset runs here; ``python tools/tf_verbatim.py run`` runs them all.

The files are not in git (code fetched from public repositories stays out of the project's
commits); ``python tools/tf_verbatim.py extract --mirror GIT_DIR`` puts them in place, checked
against the pinned hashes. Without them conftest.py leaves this file out of the suite."""
import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).parent.parent
SRC = ROOT / "tests" / "tf_verbatim" / "src"
DATA = ROOT / "tests" / "data" / "tf_verbatim"
# Files whose methods run in seconds under devlab (the others wait on queues, threads and timeouts:
# saver, queue_runner, session_manager, session, control_flow_ops_py, fifo_queue; the tool runs them)
SUBSET = ["adadelta_test.py", "adagrad_test.py", "adam_test.py", "basic_session_run_hooks_test.py",
          "coordinator_test.py", "dense_update_ops_test.py", "device_setter_test.py", "device_spec_test.py",
          "device_test.py", "dtypes_test.py", "ftrl_test.py", "gradient_descent_test.py", "gradients_test.py",
          "math_grad_test.py", "momentum_test.py", "monitored_session_test.py", "moving_averages_test.py",
          "ops_test.py", "optimizer_test.py", "rmsprop_test.py", "slot_creator_test.py", "tensor_shape_test.py",
          "training_util_test.py", "variable_scope_test.py", "variables_test.py",
          # SparseTensor (sparse_ops_test and the dense matmul's take tens of seconds; the tool runs them)
          "sparse_add_op_test.py", "sparse_concat_op_test.py", "sparse_reorder_op_test.py", "sparse_reshape_op_test.py",
          "sparse_tensor_test.py", "sparse_to_dense_op_py_test.py",
          "clip_ops_test.py", "identity_op_py_test.py", "unstack_op_test.py", "split_op_test.py", "stack_op_test.py",
          "one_hot_op_test.py", "relu_op_test.py", "softmax_op_test.py", "init_ops_test.py", "check_ops_test.py",
          "embedding_ops_test.py"]

needs_files = pytest.mark.skipif(
    not (SRC / "ops_test.py").exists(),
    reason="TensorFlow's test files are not here: python tools/tf_verbatim.py extract --mirror GIT_DIR")


def _results(name):
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import tf_verbatim
    finally:
        sys.path.pop(0)
    tf_verbatim.check_sources([name])
    return tf_verbatim.run_file(name, use_tf=False)


@needs_files
@pytest.mark.parametrize("name", SUBSET)
def test_methods_that_passed_still_pass(name):
    passing = json.loads((DATA / "passing.json").read_text())[name]
    in_scope = [m for m, (status, _, scope) in
                json.loads((DATA / "tf_results.json").read_text())[name]["methods"].items()
                if status == "pass" and not scope]
    got = _results(name)
    assert got["import_error"] is None, got["import_error"]
    methods = got["methods"]
    now = [m for m in in_scope if methods.get(m, ["missing"])[0] == "pass"]
    print(f"{name}: {len(now)} / {len(in_scope)} in-scope methods pass")
    regressed = {m: methods.get(m, ["missing", "not run"])[:2] for m in passing if m not in now}
    assert not regressed, f"{name}: methods that passed now fail: {regressed}"
    assert len(now) >= len(passing)


@needs_files
def test_the_runner_refuses_an_edited_file(tmp_path, monkeypatch):
    """The hashes pin the files: an edited copy is refused, so the counts are of TF's own tests."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import tf_verbatim
    finally:
        sys.path.pop(0)
    (tmp_path / "device_test.py").write_text((SRC / "device_test.py").read_text() + "\n# edited\n")
    monkeypatch.setattr(tf_verbatim, "SRC", str(tmp_path))
    with pytest.raises(SystemExit, match="was edited"):
        tf_verbatim.check_sources(["device_test.py"])


def test_a_missing_name_fails_only_the_method_that_uses_it():
    """The shim's stand-in for a name devlab lacks: importable, but calling it inside a test fails."""
    code = ("from tests.tf_verbatim.harness import routes, missing; routes.install();\n"
            "from tensorflow.python.framework import test_ops\n"
            "f = test_ops.no_such_op\n"
            "try:\n    f()\nexcept NotImplementedError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert "devlab does not implement tensorflow.python.framework.test_ops.no_such_op" in out.stdout
