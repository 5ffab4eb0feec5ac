"""The package's layers import only downward: framework -> ops -> devices -> placer -> runtime ->
the TF API namespaces (train, layers, distribute...) -> views -> notebook -> the command line.

Every ``import`` in every module is read (including those inside functions), so a lazy import
that reaches up is caught too.
"""
import ast
import pathlib

import devlab

ROOT = pathlib.Path(devlab.__file__).parent

# Lower numbers are lower layers. A module may import its own layer and any layer below it.
LAYERS = {
    "config": 0, "framework": 1, "ops": 2, "devices": 3, "placer": 4, "runtime": 5,
    "unimplemented": 2,
    "api": 6, "train": 6, "layers": 6, "distribute": 6, "nn": 6, "strings": 6, "summary": 6, "losses": 6, "metrics": 6,
    "app": 6,
    "flags": 6, "tf_logging": 6, "file_io": 6, "cluster": 6, "graphs": 6,
    "views": 7, "notebook": 8, "aliases": 8, "cli": 9, "graph_cli": 9, "__init__": 9, "__main__": 9,
}
# ``import devlab`` (the facade that ``tf`` names) is allowed where code hands the whole API to a
# user's program: the ``import tensorflow`` alias and the magic.


def layer_of(module):
    """The layer of ``devlab.x.y`` (its first component below devlab)."""
    parts = module.split(".")
    return LAYERS[parts[1] if len(parts) > 1 else "__init__"]


def imports_of(path, module):
    """The devlab modules imported anywhere in the file."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] == "devlab"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] == "devlab":
                found += [target + "." + a.name if node.module is None else target for a in node.names]
    return found


def modules():
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        name = ".".join(rel.parts)
        yield path, name[: -len(".__init__")] if name.endswith(".__init__") else name


def test_every_layer_imports_only_downward():
    upward = []
    for path, module in modules():
        mine = layer_of(module)
        for target in imports_of(path, module):
            if target != "devlab" and layer_of(target) > mine:
                upward.append(f"{module} imports {target}")
    assert not upward, "imports that reach up a layer:\n" + "\n".join(upward)


def test_the_check_sees_imports_inside_functions():
    src = ROOT / "runtime" / "run.py"
    assert any(t.startswith("devlab.runtime") for t in imports_of(src, "devlab.runtime.run"))
    # a planted upward import inside a function is found
    tree_text = "def f():\n    from ..notebook import magics\n"
    path = ROOT / "runtime" / "_probe.py"
    try:
        path.write_text(tree_text)
        assert layer_of(imports_of(path, "devlab.runtime._probe")[0]) == LAYERS["notebook"]
    finally:
        path.unlink()


def test_views_and_the_command_line_never_import_ipython():
    for path, module in modules():
        if layer_of(module) == LAYERS["notebook"] or module == "devlab.__init__":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n.split(".")[0] in ("IPython", "ipywidgets") for n in names), module
