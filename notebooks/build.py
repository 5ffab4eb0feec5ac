"""Executes the tutorial sources (``src/NAME.md``, MyST markdown) into the notebooks Binder and
nbval use (``NAME.ipynb``, with real outputs), and checks that both say the same thing.

    python notebooks/build.py              # every tutorial
    python notebooks/build.py 04_mixed_sums
    python notebooks/build.py --check      # only compare sources and notebooks (what the tests do)

Cells are tagged in the source (``:tags: [check]``): ``exercise`` cells ship open (the learner
writes the answer), ``check`` cells print a line starting with ✔ or ✘, ``nbval-check-output``
cells have their output compared by nbval, ``raises-exception`` cells are meant to fail.
Widget state is not saved: a notebook opened before running shows each widget's text, which
says to run the cell.
"""
import os
import sys
import time

import nbformat

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


def names():
    return sorted(f[:-3] for f in os.listdir(SRC) if f.endswith(".md"))


def read_source(name):
    import jupytext
    nb = jupytext.read(os.path.join(SRC, name + ".md"))
    nb.metadata.pop("jupytext", None)
    nb.metadata["kernelspec"] = KERNELSPEC
    nb.metadata["language_info"] = {"name": "python"}
    for i, cell in enumerate(nb.cells):
        cell.id = f"{name[:2]}-{i:02d}"
        cell.metadata.pop("lines_to_next_cell", None)
    return nb


def cell_summary(nb):
    """[(cell type, source, tags)]: what a source and its notebook must agree on."""
    return [(c.cell_type, c.source.strip(), tuple(c.metadata.get("tags", ()))) for c in nb.cells]


def disagreements(name):
    """Lines describing where ``src/NAME.md`` and ``NAME.ipynb`` differ (empty: they agree)."""
    path = os.path.join(HERE, name + ".ipynb")
    if not os.path.exists(path):
        return [f"{name}.ipynb is missing: run python notebooks/build.py {name}"]
    src, built = cell_summary(read_source(name)), cell_summary(nbformat.read(path, as_version=4))
    out = []
    if len(src) != len(built):
        out.append(f"{name}: {len(src)} cells in the source, {len(built)} in the notebook")
    for i, (a, b) in enumerate(zip(src, built)):
        if a != b:
            out.append(f"{name}: cell {i} differs:\n  source:   {a!r:.300}\n  notebook: {b!r:.300}")
    return out


def execute(nb, timeout=300):
    from nbclient import NotebookClient
    NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True, store_widget_state=False,
                   resources={"metadata": {"path": HERE}}).execute()
    return nb


def build(name):
    t0 = time.perf_counter()
    nb = execute(read_source(name))
    seconds = time.perf_counter() - t0
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error" and "raises-exception" not in cell.metadata.get("tags", []):
                raise RuntimeError(f"{name}: cell {i} failed: {out['ename']}: {out['evalue']}")
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)  # timestamps: they would change every build
    nbformat.write(nb, os.path.join(HERE, name + ".ipynb"))
    print(f"wrote {name}.ipynb (executed in {seconds:.1f} s)")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--check"]:
        problems = [p for n in names() for p in disagreements(n)]
        print("\n".join(problems) or "every source agrees with its notebook")
        sys.exit(1 if problems else 0)
    for n in args or names():
        build(n)
