#!/usr/bin/env python3
"""Record what TensorFlow does with each program in tests/programs/.

usage: python tools/record_programs.py [--python /work/tfvenv/bin/python] [PROGRAM ...]

Runs every variant of every program (``tests/programs/pNN_*.py``, or the ones named) under
TensorFlow's ``tf.compat.v1`` with v2 behaviour disabled and graph rewrites off, each in its
own process (flags, seeds and the default graph start fresh), and writes
``tests/data/tf_recorded/<program>.json``:
``{"program", "doc", "tensorflow", "variants": {variant: facts}}`` with the facts of
``tests/programs/harness.py`` (ops, placed, values, log, error).

TensorFlow is never a dependency of devlab: it lives in its own virtual environment
(``--python``, default /work/tfvenv/bin/python, or $DEVLAB_TF_PYTHON). ``tf.compat.v1.layers``
needs Keras 2 under TF 2.16+, so the recorder puts ``tools/.tf_keras`` on the child's path and
sets TF_USE_LEGACY_KERAS=1. Install it once, next to this file, without touching that venv:

    /work/tfvenv/bin/python -m pip install --no-deps --target tools/.tf_keras "tf_keras==2.21.*"

TensorFlow's CPU build has no GPUs: programs execute on ``device_count={"CPU": N}`` with
``/cpu:1``.. standing in for GPUs; their GPU-flavoured variants are only built (ops), or are
placed with ``allow_soft_placement=True``, as each variant's note says.
"""
import argparse
import glob
import importlib
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAMS = os.path.join(ROOT, "tests", "programs")
OUT = os.path.join(ROOT, "tests", "data", "tf_recorded")
TF_KERAS = os.path.join(ROOT, "tools", ".tf_keras")
sys.path.insert(0, PROGRAMS)


def program_names():
    return sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(PROGRAMS, "p[0-9][0-9]_*.py")))


def child(program, variant, out_path):
    """In the TensorFlow venv: record one variant and write its facts as JSON."""
    import tensorflow as real_tf
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    tf.logging.set_verbosity(tf.logging.ERROR)
    import harness
    harness.ORACLE = True
    module = importlib.import_module(program)
    facts = harness.record(tf, module, variant)
    facts["tensorflow"] = real_tf.__version__
    with open(out_path, "w") as f:
        json.dump(facts, f)


def record_program(python, program):
    module = importlib.import_module(program)
    import harness
    result = {"program": program, "doc": (module.__doc__ or "").strip().splitlines()[0], "variants": {}}
    # oneDNN off: its layout pass fuses Conv2D into _MklNativeConv2DWithBias nodes, a build detail
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="2", PYTHONHASHSEED="0", TF_ENABLE_ONEDNN_OPTS="0",
               PYTHONPATH=os.pathsep.join(p for p in [TF_KERAS, os.environ.get("PYTHONPATH", "")] if p))
    for variant in harness.variants(module):
        tmp = os.path.join(OUT, f".{program}.{variant}.json")
        proc = subprocess.run([python, os.path.abspath(__file__), "--child", program, variant, tmp],
                              env=env, capture_output=True, text=True, cwd=ROOT)
        if proc.returncode != 0 or not os.path.exists(tmp):
            sys.stderr.write(proc.stdout[-3000:] + proc.stderr[-3000:])
            raise SystemExit(f"recording {program}:{variant} failed")
        with open(tmp) as f:
            facts = json.load(f)
        os.remove(tmp)
        result["tensorflow"] = facts.pop("tensorflow")
        result["variants"][variant] = facts
        summary = ", ".join(f"{k}={len(v) if isinstance(v, (list, dict)) else v}" for k, v in facts.items()
                            if k in ("ops", "placed", "values", "log", "error"))
        print(f"{program}:{variant}: {summary}")
    with open(os.path.join(OUT, program + ".json"), "w") as f:
        f.write(dumps(result) + "\n")


def dumps(obj, indent=0):
    """JSON with one op / one placement / one log line per line: small, and readable in a diff."""
    pad = " " * indent
    if isinstance(obj, dict) and obj:
        items = [f'{pad} {json.dumps(k)}: {dumps(v, indent + 1).lstrip()}' for k, v in obj.items()]
        return pad + "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list) and obj and any(isinstance(x, (list, dict, str)) for x in obj) and len(json.dumps(obj)) > 100:
        return pad + "[\n" + ",\n".join(pad + " " + json.dumps(x) for x in obj) + "\n" + pad + "]"
    return pad + json.dumps(obj)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(*sys.argv[2:5])
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=os.environ.get("DEVLAB_TF_PYTHON", "/work/tfvenv/bin/python"))
    ap.add_argument("programs", nargs="*")
    args = ap.parse_args()
    if not os.path.isdir(TF_KERAS):
        sys.exit(f"missing {TF_KERAS}: see the install line in this script's docstring")
    os.makedirs(OUT, exist_ok=True)
    for program in args.programs or program_names():
        record_program(args.python, program)


if __name__ == "__main__":
    main()
