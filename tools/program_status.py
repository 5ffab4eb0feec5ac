#!/usr/bin/env python3
"""Run every program of tests/programs/ under devlab and compare with what TensorFlow recorded.

usage: python tools/program_status.py [--write tests/programs/STATUS.md] [-v] [PROGRAM ...]

For each variant of each program: does it run under devlab (``import devlab as tf``), the
first exception (class, message, and the program line that raised it), and, where it runs,
how its facts differ from ``tests/data/tf_recorded/<program>.json`` (ops: names, types,
requested devices, colocation groups; placed; values; log; error). It also lists the
``tf.*`` names each program's source uses that devlab does not define. Needs only devlab.
"""
import argparse
import ast
import glob
import importlib
import json
import os
import sys
import traceback
import warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAMS = os.path.join(ROOT, "tests", "programs")
RECORDED = os.path.join(ROOT, "tests", "data", "tf_recorded")
sys.path.insert(0, PROGRAMS)


def tf_names(path):
    """Dotted ``tf.x.y`` names used in a program's source, in order of first use."""
    seen = []

    class V(ast.NodeVisitor):
        def visit_Attribute(self, node):
            parts, n = [], node
            while isinstance(n, ast.Attribute):
                parts.append(n.attr)
                n = n.value
            if isinstance(n, ast.Name) and n.id == "tf":
                name = ".".join(reversed(parts))
                if name not in seen:
                    seen.append(name)
                return  # the inner attributes are prefixes of this one
            self.generic_visit(node)

    V().visit(ast.parse(open(path).read()))
    return seen


def missing_names(tf, names):
    out = []
    for name in names:
        obj = tf
        for i, part in enumerate(name.split(".")):
            try:
                obj = getattr(obj, part)
            except Exception:  # noqa: BLE001 - any failure to resolve counts as missing
                prefix = ".".join(name.split(".")[:i + 1])
                if prefix not in out:
                    out.append(prefix)
                break
    return out


def where(exc):
    """The innermost frame of the exception's traceback inside tests/programs (the user's line)."""
    tb = traceback.extract_tb(exc.__traceback__)
    frames = [f for f in tb if f.filename.startswith(PROGRAMS) and not f.filename.endswith("harness.py")]
    if not frames:
        return ""
    f = frames[-1]
    return f"{os.path.basename(f.filename)}:{f.lineno} `{(f.line or '').strip()}`"


def diff_ops(got, want):
    g = {o[0]: o for o in got}
    w = {o[0]: o for o in want}
    missing = [n for n in w if n not in g]
    extra = [n for n in g if n not in w]
    kinds = {"type": 1, "device": 2, "groups": 3}
    wrong = {k: [] for k in kinds}
    for n in w:
        if n in g:
            for k, i in kinds.items():
                if list(g[n][i]) != list(w[n][i]):
                    wrong[k].append((n, w[n][i], g[n][i]))
    order_same = [o[0] for o in got if o[0] in w] == [o[0] for o in want if o[0] in g]
    return missing, extra, wrong, order_same


def diff_values(got, want, path="values"):
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return [f"{path}: want a dict, got {type(got).__name__}"]
        out = []
        for k in want:
            if k not in got:
                out.append(f"{path}[{k}]: missing")
            else:
                out += diff_values(got[k], want[k], f"{path}[{k}]")
        return out
    try:
        a, b = np.asarray(got), np.asarray(want)
        if a.dtype.kind in "fiub" and b.dtype.kind in "fiub":
            if a.shape != b.shape:
                return [f"{path}: shape {a.shape}, want {b.shape}"]
            if not np.allclose(a.astype(float), b.astype(float), rtol=1e-4, atol=1e-5):
                return [f"{path}: got {short(got)}, want {short(want)}"]
            return []
    except Exception:  # noqa: BLE001
        pass
    return [] if got == want else [f"{path}: got {short(got)}, want {short(want)}"]


def short(x, n=90):
    s = json.dumps(x) if not isinstance(x, str) else x
    return s if len(s) <= n else s[:n] + "..."


def compare(got, want):
    """Lines describing how devlab's facts differ from TensorFlow's."""
    lines = []
    if "ops" in want:
        missing, extra, wrong, order_same = diff_ops(got.get("ops", []), want["ops"])
        n = len(want["ops"])
        if missing or extra or any(wrong.values()) or not order_same:
            lines.append(f"ops: {len(got.get('ops', []))} built vs TF's {n}; {len(missing)} of TF's names missing, "
                         f"{len(extra)} extra; wrong type {len(wrong['type'])}, device {len(wrong['device'])}, "
                         f"groups {len(wrong['groups'])}" + ("" if order_same else "; creation order differs"))
            if missing:
                lines.append("  missing: " + ", ".join(f"`{m}`" for m in missing[:6]) + (" ..." if len(missing) > 6 else ""))
            if extra:
                lines.append("  extra: " + ", ".join(f"`{m}`" for m in extra[:6]) + (" ..." if len(extra) > 6 else ""))
            wvars = {o[0] for o in want["ops"] if o[1] in ("VariableV2", "VarHandleOp")}
            gvars = {o[0] for o in got.get("ops", []) if o[1] in ("VariableV2", "VarHandleOp")}
            if wvars != gvars:
                lines.append("  variables: devlab creates " + ", ".join(f"`{v}`" for v in sorted(gvars - wvars)[:6])
                             + " that TF does not; lacks " + (", ".join(f"`{v}`" for v in sorted(wvars - gvars)[:6]) or "none"))
            for k, items in wrong.items():
                for name, w, g in items[:3]:
                    lines.append(f"  {k} of `{name}`: TF `{w}`, devlab `{g}`")
    if "placed" in want:
        gp = got.get("placed", {})
        bad = [(k, v, gp.get(k)) for k, v in want["placed"].items() if k in gp and gp[k] != v]
        absent = [k for k in want["placed"] if k not in gp]
        if bad:
            lines.append(f"placed: {len(bad)} of {len(want['placed'])} common nodes on another device")
            for k, v, g in bad[:4]:
                lines.append(f"  `{k}`: TF {v.rsplit('/', 1)[-1]}, devlab {g.rsplit('/', 1)[-1] if g else g}")
        if absent and not bad:
            lines.append(f"placed: {len(absent)} of TF's {len(want['placed'])} nodes not in devlab's partition graphs")
    if "values" in want:
        d = diff_values(got.get("values"), want["values"])
        if d:
            lines.append(f"values: {len(d)} differ")
            lines += ["  " + x for x in d[:3]]
    if "log" in want and "log" in got:
        gl, wl = set(got["log"]), set(want["log"])
        if gl != wl:
            lines.append(f"log: {len(wl - gl)} of TF's {len(wl)} lines absent, {len(gl - wl)} extra")
    elif "log" in want:
        lines.append("log: none printed")
    if want.get("error") or got.get("error"):
        if want.get("error") != got.get("error"):
            lines.append(f"error: TF {want.get('error')}, devlab {got.get('error')}")
    return lines


def program_names():
    return sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(RECORDED, "p[0-9][0-9]_*.json")))


def status(tf, harness, program, verbose):
    module = importlib.import_module(program)
    recorded = json.load(open(os.path.join(RECORDED, program + ".json")))
    rows = []
    for variant, want in recorded["variants"].items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = harness.record(tf, module, variant)
        exc = harness.LAST_EXCEPTION
        tf_error = want.get("error")
        ran = "error" not in got or (tf_error is not None and got["error"][0] == tf_error[0])
        first = None
        if not ran:
            first = f"{got['error'][0]}: {got['error'][1]}"
            at = where(exc) if exc is not None else ""
            if at:
                first += f" — at {at}"
        diffs = compare(got, want) if ran else []
        rows.append({"variant": variant, "runs": ran, "first": first, "diffs": diffs,
                     "matches": ran and not diffs, "tf_error": tf_error})
        if verbose:
            print(f"  {program}:{variant}: {'ok' if ran and not diffs else 'FAIL'} {first or ''}")
            for d in diffs:
                print("     " + d)
    path = os.path.join(PROGRAMS, program + ".py")
    return {"program": program, "doc": recorded["doc"], "rows": rows,
            "missing": missing_names(tf, tf_names(path))}


def render(results):
    out = ["# Programs under devlab: status", "",
           "Written by `python tools/program_status.py --write tests/programs/STATUS.md` (devlab only; "
           "TensorFlow's facts come from `tests/data/tf_recorded/`, recorded by `tools/record_programs.py` "
           "with TF 2.21 `tf.compat.v1`).", "",
           "A variant *runs* when devlab gets through it (or fails the way TF does); it *matches* when its ops "
           "(names, types, requested devices, colocation groups, creation order), placements, values, "
           "placement log and error are TensorFlow's.", "",
           "## Summary", "",
           "| program | variants run / match / total | first blocker under devlab | `tf.*` names devlab lacks |",
           "| --- | --- | --- | --- |"]
    for r in results:
        n = len(r["rows"])
        runs = sum(x["runs"] for x in r["rows"])
        match = sum(x["matches"] for x in r["rows"])
        first = next((x["first"] for x in r["rows"] if not x["runs"] and x["first"]), "")
        first = first.split(" — at ")[0].replace(ROOT + os.sep, "")  # paths relative to the repository
        if len(first) > 110:
            first = first[:110] + "…"
        out.append(f"| `{r['program']}` | {runs} / {match} / {n} | {first.replace('|', '/')} | "
                   f"{', '.join('`tf.' + m + '`' for m in r['missing']) or '—'} |")
    blockers = {}
    for r in results:
        for m in r["missing"]:
            blockers.setdefault(m, []).append(r["program"].split("_")[0])
    out += ["", "## Missing APIs and the programs they block", "",
            "| `tf.*` name | programs |", "| --- | --- |"]
    for m, ps in sorted(blockers.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        out.append(f"| `tf.{m}` | {', '.join(ps)} |")
    out += ["", "## Per program", ""]
    for r in results:
        out += [f"### {r['program']}", "", r["doc"], ""]
        for x in r["rows"]:
            state = "matches TF" if x["matches"] else ("runs, differs" if x["runs"] else "fails")
            line = f"- **{x['variant']}**: {state}"
            if x["tf_error"]:
                line += f" (TF fails too: `{x['tf_error'][0]}: {x['tf_error'][1][:120]}`)"
            out.append(line)
            if x["first"]:
                out.append(f"  - first error: `{x['first'][:400]}`")
            for d in x["diffs"]:
                out.append("  - " + d.strip() if not d.startswith("  ") else "    - " + d.strip())
        out.append("")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", metavar="FILE")
    ap.add_argument("-v", action="store_true")
    ap.add_argument("programs", nargs="*")
    args = ap.parse_args()
    os.environ.setdefault("DEVLAB_DISABLE_CUPY", "1")
    import devlab as tf
    import harness
    results = []
    for program in args.programs or program_names():
        print(program, flush=True)
        results.append(status(tf, harness, program, args.v))
    text = render(results)
    if args.write:
        with open(args.write, "w") as f:
            f.write(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
