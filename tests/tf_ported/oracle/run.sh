#!/bin/bash
# Runs the ported tests under TensorFlow (the oracle) instead of devlab:
#   tests/tf_ported/oracle/run.sh [pytest args]
# TF_PYTHON names a Python with tensorflow (default /work/tfvenv/bin/python); pytest comes from
# the Python on PATH (the devlab venv). `python -S` keeps any devlab installed in TF's venv away.
set -e
here=$(cd "$(dirname "$0")" && pwd)
tf_python=${TF_PYTHON:-/work/tfvenv/bin/python}
tf_site=$("$tf_python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
pytest_site=$(python -c "import os, pytest; print(os.path.dirname(os.path.dirname(pytest.__file__)))")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/tf_ported"
cp "$here"/../*.py "$work/tf_ported/"
cat > "$work/conftest.py" <<'EOC'
import pytest
import devlab as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def test_the_oracle_is_tensorflow():
    import devlab.framework.device_spec as d
    assert d.DeviceSpec.__module__.startswith("tensorflow")
EOC
cd "$work"
TF_CPP_MIN_LOG_LEVEL=3 PYTHONPATH="$here:$tf_site:$pytest_site" \
    "$tf_python" -S -m pytest -q -p no:cacheprovider -W ignore conftest.py tf_ported "$@"
