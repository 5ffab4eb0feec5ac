"""What a newcomer gets from the package: the sdist and wheel's files, the licence, the extras.

The builds run setuptools' own PEP 517 hooks on a copy of the repository (the `test` extra installs a
setuptools that reads the SPDX `license` key), so the test sees exactly what `pip install` and
`python -m build` would ship, without a network.
"""
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())

BUILD = """
import sys
from setuptools import build_meta
out = sys.argv[2]
print(getattr(build_meta, "build_" + sys.argv[1])(out))
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The sdist's and the wheel's file names, built from a copy of the repository."""
    import setuptools
    major = int(setuptools.__version__.split(".")[0])
    assert major >= 77, (f"setuptools {setuptools.__version__} cannot read pyproject's SPDX licence: "
                         "pip install -e '.[test]' brings setuptools>=77")
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "MANIFEST.in"):
        shutil.copy(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in ("devlab", "tests"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    out = tmp_path_factory.mktemp("dist")
    names = {}
    for kind in ("sdist", "wheel"):
        done = subprocess.run([sys.executable, "-c", BUILD, kind, str(out)], cwd=src, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        path = out / done.stdout.strip().splitlines()[-1]
        if kind == "sdist":
            with tarfile.open(path) as tar:
                names[kind] = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
        else:
            with zipfile.ZipFile(path) as whl:
                names[kind] = set(whl.namelist())
    return names


def test_sdist_has_licence_changelog_and_no_half_test_suite(built):
    sdist = built["sdist"]
    assert {"LICENSE", "CHANGELOG.md", "README.md", "pyproject.toml", "devlab/py.typed"} <= sdist
    assert not [n for n in sdist if n.startswith("tests/")], "the tests need the repository: leave them out"


def test_wheel_has_typing_marker_licence_and_widget_code(built):
    wheel = built["wheel"]
    assert "devlab/py.typed" in wheel
    assert "devlab/notebook/graph_widget.js" in wheel
    assert "devlab/notebook/graphviz.js" in wheel  # the browser's Graphviz: no npm at install time
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in wheel)
    assert not [n for n in wheel if n.startswith("tests/") or n.endswith(".whl")]


def test_licence_is_apache_in_spdx_form():
    assert PYPROJECT["project"]["license"] == "Apache-2.0"
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text


def test_test_extra_names_the_other_extras_instead_of_repeating_them():
    """The bounds of an extra's packages are written once: the test extra names those extras."""
    extras = PYPROJECT["project"]["optional-dependencies"]
    test = extras["test"]
    assert "devlab[notebook,cluster,graphs,fast,fastconv]" in test
    others = {req.split(">")[0].split("=")[0].split("[")[0]
              for name in ("notebook", "cluster", "graphs", "fast", "fastconv") for req in extras[name]}
    repeated = [req for req in test if req.split(">")[0] in others]
    assert not repeated, f"the test extra repeats {repeated}: name their extra instead"


def test_no_wheel_files_tracked_at_the_root():
    assert not list(ROOT.glob("*.whl"))


def test_the_committed_graphviz_bundle_is_the_pinned_build():
    """devlab/notebook/graphviz.js is what tools/build_widget.sh builds from tools/widget/package.json."""
    import json
    pinned = json.loads((ROOT / "tools" / "widget" / "package.json").read_text())["devDependencies"]
    lock = json.loads((ROOT / "tools" / "widget" / "package-lock.json").read_text())
    version = pinned["@hpcc-js/wasm-graphviz"]
    assert lock["packages"]["node_modules/@hpcc-js/wasm-graphviz"]["version"] == version
    bundle = (ROOT / "devlab" / "notebook" / "graphviz.js").read_text()
    assert bundle.startswith(f"// @hpcc-js/wasm-graphviz {version} (Apache-2.0")
    assert "Built by tools/build_widget.sh" in bundle.splitlines()[1]
    assert "build_widget.sh" in (ROOT / "README.md").read_text()
