"""TensorFlow's own test files, unedited, run against devlab (tests/tf_verbatim/README.md).

    python tools/tf_verbatim.py extract --mirror GIT_DIR   # the pinned files into tests/tf_verbatim/src
    python tools/tf_verbatim.py record-tf                  # TF 2.21's own result per method (TF_PYTHON)
    python tools/tf_verbatim.py run [FILE...]              # devlab's results, and the per-file table
    python tools/tf_verbatim.py ratchet                    # the passing set the test holds devlab to

A method is in scope when TF 2.21 passes it in TF1 graph mode on CPU and its source uses no
eager, tf.function, XLA, control-flow-v2 or C++-only internals (harness/run_file.py EXCLUSIONS).
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from tests.tf_verbatim.harness.scope import scope_reason  # noqa: E402
SRC = os.path.join(ROOT, "tests", "tf_verbatim", "src")
DATA = os.path.join(ROOT, "tests", "data", "tf_verbatim")
MANIFEST = os.path.join(DATA, "files.json")
TF_RESULTS = os.path.join(DATA, "tf_results.json")
PASSING = os.path.join(DATA, "passing.json")
DEVLAB_RESULTS = os.path.join(ROOT, "build", "tf_verbatim_devlab.json")


def load(path):
    with open(path) as f:
        return json.load(f)


def save(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(value, f, indent=1, sort_keys=True)
        f.write("\n")


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def extract(mirror):
    """Write the manifest's files from a git copy of TensorFlow at the pinned commit, checked by hash."""
    manifest = load(MANIFEST)
    os.makedirs(os.path.join(SRC, "support"), exist_ok=True)
    entries = [(name, e) for name, e in manifest["files"].items()]
    entries += [(os.path.join("support", name), e) for name, e in manifest["support"].items()]
    for name, entry in entries:
        text = subprocess.run(["git", "--git-dir", mirror, "show", f"{manifest['commit']}:{entry['path']}"],
                              check=True, capture_output=True).stdout
        if hashlib.sha256(text).hexdigest() != entry["sha256"]:
            sys.exit(f"{entry['path']}: not the file the manifest pins (sha256 differs)")
        with open(os.path.join(SRC, name), "wb") as f:
            f.write(text)
    print(f"{len(manifest['files'])} files in {SRC}")


def check_sources(names):
    """The files are present and unedited (their sha256 is the manifest's)."""
    files = load(MANIFEST)["files"]
    for name in names:
        path = os.path.join(SRC, name)
        if not os.path.exists(path):
            sys.exit(f"{path} is missing: run `python tools/tf_verbatim.py extract --mirror GIT_DIR` first")
        if sha256(path) != files[name]["sha256"]:
            sys.exit(f"{path} was edited (sha256 differs from the manifest)")


def run_file(name, use_tf, timeout=60, file_timeout=900):
    """One file's results ({method: [status, message, scope]}) from a fresh process."""
    python = os.environ.get("TF_PYTHON", "/work/tfvenv/bin/python") if use_tf else sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        env = dict(os.environ, PYTHONPATH=ROOT, TEST_TMPDIR=tmp, TF_CPP_MIN_LOG_LEVEL="3",
                   CUDA_VISIBLE_DEVICES="", PYTHONHASHSEED="0")
        env.pop("DEVLAB_SIMULATED_GPUS", None)
        cmd = [python, "-m", "tests.tf_verbatim.harness.run_file", os.path.join(SRC, name), out,
               "--timeout", str(timeout)] + (["--tf"] if use_tf else [])
        try:
            subprocess.run(cmd, cwd=tmp, env=env, timeout=file_timeout, capture_output=True)  # files tests write land in tmp
        except subprocess.TimeoutExpired:
            return {"file": name, "methods": {}, "import_error": "the file ran past its timeout"}
        if not os.path.exists(out):
            return {"file": name, "methods": {}, "import_error": "the runner died"}
        return load(out)


def run_all(names, use_tf, jobs):
    with ThreadPoolExecutor(jobs) as pool:
        return dict(zip(names, pool.map(lambda n: run_file(n, use_tf, timeout=300 if use_tf else 60), names)))


def annotate(results):
    """Each method's result gets its exclusion ("" when in scope) as a third field."""
    for name, result in results.items():
        for method, value in result["methods"].items():
            result["methods"][method] = value[:2] + [scope_reason(os.path.join(SRC, name), method)]
    return results


def in_scope(tf_results, name):
    """The methods of file ``name`` that are in scope: TF passes them and no exclusion applies."""
    return sorted(m for m, (status, _, scope) in tf_results[name]["methods"].items()
                  if status == "pass" and not scope)


def counts(tf_results, devlab_results):
    """{file: (in-scope passes, in-scope methods)}."""
    table = {}
    for name in sorted(tf_results):
        scope = in_scope(tf_results, name)
        got = devlab_results.get(name, {}).get("methods", {})
        table[name] = (sum(1 for m in scope if got.get(m, ["missing"])[0] == "pass"), len(scope))
    return table


def print_table(table):
    print(f"| file | passes / in scope |\n|---|---|")
    for name, (passed, total) in table.items():
        print(f"| {name} | {passed} / {total} |")
    passed, total = sum(p for p, _ in table.values()), sum(t for _, t in table.values())
    print(f"| **total** | **{passed} / {total}** ({100 * passed / max(total, 1):.1f}%) |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("extract")
    p.add_argument("--mirror", required=True, help="the git directory of a TensorFlow copy")
    p = sub.add_parser("record-tf")
    p.add_argument("files", nargs="*")
    p.add_argument("--jobs", type=int, default=1)
    p = sub.add_parser("run")
    p.add_argument("files", nargs="*")
    p.add_argument("--jobs", type=int, default=1)
    sub.add_parser("ratchet")
    sub.add_parser("rescope", help="recompute each method's exclusion in tf_results.json (no run)")
    sub.add_parser("table")
    args = parser.parse_args()
    names = sorted(load(MANIFEST)["files"])
    if args.command == "extract":
        return extract(args.mirror)
    if args.command == "record-tf":
        check_sources(args.files or names)
        results = load(TF_RESULTS) if os.path.exists(TF_RESULTS) else {}
        results.update(run_all(args.files or names, True, args.jobs))
        save(TF_RESULTS, annotate(results))
        return print_table(counts(results, results))
    if args.command == "run":
        check_sources(args.files or names)
        results = load(DEVLAB_RESULTS) if os.path.exists(DEVLAB_RESULTS) else {}
        results.update(run_all(args.files or names, False, args.jobs))
        save(DEVLAB_RESULTS, results)
        return print_table(counts(load(TF_RESULTS), results))
    if args.command == "rescope":
        results = annotate(load(TF_RESULTS))
        save(TF_RESULTS, results)
        return print_table(counts(results, results))
    if args.command == "table":
        return print_table(counts(load(TF_RESULTS), load(DEVLAB_RESULTS)))
    if args.command == "ratchet":
        tf_results, results = load(TF_RESULTS), load(DEVLAB_RESULTS)
        # a file this run did not cover keeps its entry (a run of a few files ratchets only those)
        before = load(PASSING) if os.path.exists(PASSING) else {}
        passing = {name: [m for m in in_scope(tf_results, name)
                          if results[name].get("methods", {}).get(m, ["missing"])[0] == "pass"]
                   if name in results else before.get(name, []) for name in names}
        save(PASSING, passing)
        print(f"{sum(map(len, passing.values()))} methods in {PASSING}")


if __name__ == "__main__":
    main()
