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


# -- no two files import each other ---------------------------------------------------------------
def module_graph():
    """{devlab module: the devlab modules it imports anywhere (function bodies included)}. A name
    imported from a module (``from .table import lookup``) is an edge to that module, a module
    imported from a package (``from . import table``) an edge to the module itself."""
    names = {name for _, name in modules()}
    graph = {}
    for path, module in modules():
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
                found = [f"{base}.{a.name}" for a in node.names]
            else:
                continue
            for name in found:
                while name not in names and "." in name:  # a name defined in a module: the module
                    name = name.rsplit(".", 1)[0]
                if name in names and name not in (module, "devlab"):
                    targets.add(name)
        graph[module] = targets
    return graph


def import_cycles(graph):
    """The groups of modules that import each other, directly or around a loop (the strongly
    connected components of more than one module, by Tarjan's algorithm)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _loop_through(group, graph):
    """One loop of imports inside ``group``, as "a -> b -> a"."""
    path = [group[0]]
    while True:
        nxt = min(t for t in graph[path[-1]] if t in group)
        if nxt in path:
            return " -> ".join(path[path.index(nxt):] + [nxt])
        path.append(nxt)


def test_no_two_modules_import_each_other():
    graph = module_graph()
    cycles = import_cycles(graph)
    assert not cycles, "import cycles (a function-level import is still an import):\n" + "\n".join(
        f"{', '.join(group)}\n    e.g. {_loop_through(group, graph)}" for group in cycles)


def test_the_cycle_check_finds_a_planted_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert import_cycles(graph) == [["a", "b", "c"]]
    assert _loop_through(["a", "b", "c"], graph) == "a -> b -> c -> a"
    # and the graph is read from real imports, function bodies included
    deps = module_graph()
    assert "devlab.ops.table" in deps["devlab.runtime.plan"]
    path = ROOT / "ops" / "_probe.py"
    try:
        path.write_text("def f():\n    from .table import lookup\n")
        assert "devlab.ops.table" in module_graph()["devlab.ops._probe"]
    finally:
        path.unlink()


# -- other layers read an operation through its public views ---------------------------------------
PRIVATE_FIELDS = {"_inputs", "_attrs", "_outputs", "_control_inputs"}


def private_reads(tree):
    """(line, field) of each ``x._inputs``-style read of another object's private field."""
    found = [(node.lineno, node.col_offset, node.attr) for node in ast.walk(tree)
             if isinstance(node, ast.Attribute) and node.attr in PRIVATE_FIELDS
             and not (isinstance(node.value, ast.Name) and node.value.id == "self")]
    return [(line, field) for line, _, field in sorted(found)]


def test_operations_are_read_through_public_views_outside_framework():
    found = [f"{module}:{line} reads .{field}" for path, module in modules()
             if not module.startswith("devlab.framework")
             for line, field in private_reads(ast.parse(path.read_text()))]
    assert not found, "use op.inputs, op.outputs / op.values(), op.control_inputs, op.attrs:\n" + "\n".join(found)


def test_the_view_check_finds_a_private_read():
    tree = ast.parse("def f(op):\n    return op._inputs[0], op._attrs, self._attrs\n")
    assert private_reads(tree) == [(2, "_inputs"), (2, "_attrs")]
