"""No argument of the public API is silently ignored (issue 24: "never silently wrong").

Every public function of devlab's ``tf`` namespace and its sub-namespaces (``tf.nn``, ``tf.train``,
``tf.layers``...), and every public method (``__init__`` included) of its public classes, is read
with ``inspect`` and ``ast``: each parameter must be read somewhere in the body (used, passed on,
checked, or handed to ``unimplemented.reject``, which raises a NotImplementedError naming it and
the user's line). ``**kwargs`` counts only if the body reads it too. The few parameters TF itself
ignores are listed below, each with TF's reason.
"""
import ast
import inspect
import json
import pathlib
import textwrap

import pytest

import devlab as tf

PUBLIC = ("app", "app.flags", "compat", "config", "contrib", "contrib.distribute", "distribute", "dtypes", "errors",
          "flags", "io", "layers", "linalg", "logging", "losses", "math", "metrics", "nn", "nn.rnn_cell", "strings",
          "summary", "timeline", "train", "version")

# (the function's __qualname__, parameter): why TF accepts it and does nothing with it either
ALLOWED = {
    ("Variable.__init__", "expected_shape"): "TF 2.21 RefVariable: 'Deprecated. Ignored.'",
    ("Variable.__init__", "_skip_creators"): "devlab-private; read by Variable.__new__, not __init__",
    ("gather", "validate_indices"): "TF: 'Deprecated, does nothing'",
    ("embedding_lookup", "validate_indices"): "TF: 'This parameter has no effect and is deprecated'",
    ("moments", "shift"): "TF: 'Not used in the current implementation'",
    ("import_graph_def", "op_dict"): "TF: 'Deprecated, do not use' (ignored since TF 1.x)",
    ("MirroredStrategy.non_slot_devices", "var_list"): "TF's MirroredStrategy: `del var_list`",
    ("Saver.__init__", "restore_sequentially"): "TF's BulkSaverBuilder.bulk_restore: `del restore_sequentially` "
                                                "(bulk restore is internally sequential)",
    ("OpError.__init__", "args"): "TF's error subclasses take *args and pass them on; OpError's extra "
                                  "positional is the error code, fixed per class",
    ("RNNCell.build", "inputs_shape"): "the base cell's build makes nothing (TF's Layer.build ignores it too)",
    ("RNNCell.call", "inputs"): "abstract: the base cell raises NotImplementedError, as TF's",
    ("RNNCell.call", "state"): "abstract: the base cell raises NotImplementedError, as TF's",
    ("no_regularizer", "_"): "TF's no_regularizer(_) ignores the variable: it is the regularizer that gives no loss",
    ("Timeline.__init__", "graph"): "TF's timeline.py stores it as _graph and never reads it",
    ("SyncReplicasOptimizer.apply_gradients", "name"): "TF's SyncReplicasOptimizer ignores it too (documented "
                                                       "'name for the returned operation', never read)",
    ("Graph.create_op", "compute_shapes"): "TF: 'Deprecated. Has no effect (shapes are always computed).'",
    ("as_graph_def", "from_version"): "TF 2.21 writes every node whatever from_version says (checked: 3 of 3 "
                                      "nodes with from_version=1)",
    ("as_graph_def", "use_pybind11_proto"): "TF: how the proto is read out of C++, not what it holds",
    ("Session.reset", "config"): "TF: the options of the connection to the master; an in-process task has none",
    ("Example.SerializeToString", "deterministic"): "devlab writes the map in insertion order: the same bytes every time",
    ("Server.__init__", "start"): "devlab's simulated task serves from creation: start=False then start() runs "
                                  "the same (a session made before start() would wait in TF)",
}
# SessionRunHook / CheckpointSaverListener callbacks: TF calls them with these arguments and the
# base classes (and many hooks) ignore them; they are an interface, not arguments a user passes.
HOOK_METHODS = {"begin", "after_create_session", "before_run", "after_run", "end", "before_save", "after_save"}


def _namespaces():
    yield "tf", tf
    for path in PUBLIC:
        ns = tf
        for part in path.split("."):
            ns = getattr(ns, part)
        yield "tf." + path, ns


def _callables():
    """(public name, function) for every public function and public method of a public class (each
    function once, under the first public name that reaches it)."""
    seen = set()
    for path, ns in _namespaces():
        for name in sorted(dir(ns)):
            if name.startswith("_"):
                continue
            obj = getattr(ns, name, None)
            found = []
            if inspect.isclass(obj):
                for klass in obj.__mro__:
                    if not klass.__module__.startswith("devlab"):
                        continue
                    for mname, member in vars(klass).items():
                        if mname.startswith("_") and mname != "__init__":
                            continue
                        if isinstance(member, (staticmethod, classmethod)):
                            member = member.__func__
                        if inspect.isfunction(member):
                            found.append((f"{path}.{name}.{mname}", member))
            elif inspect.isfunction(obj) and obj.__module__.startswith("devlab"):
                found.append((f"{path}.{name}", obj))
            for label, fn in found:
                fn = inspect.unwrap(fn)
                if fn.__code__ not in seen:
                    seen.add(fn.__code__)
                    yield label, fn


def public_members():
    """{key: callable} for every public function (``tf.nn.softmax``) and every public method of a
    public class (``tf.train.Saver:save``), under each public name: the names whose TF signatures
    tools/record_signatures.py records."""
    out = {}
    for path, ns in _namespaces():
        for name in sorted(dir(ns)):
            obj = None if name.startswith("_") else getattr(ns, name, None)
            if inspect.isclass(obj) and obj.__module__.startswith("devlab"):
                for member in dir(obj):
                    fn = getattr(obj, member, None)
                    if (member == "__init__" or not member.startswith("_")) and inspect.isfunction(fn) \
                            and fn.__module__.startswith("devlab"):
                        out[f"{path}.{name}:{member}"] = fn
            elif inspect.isfunction(obj) and obj.__module__.startswith("devlab"):
                out[f"{path}.{name}"] = obj
    return out


def unread_parameters(fn):
    """The parameters of ``fn`` that its body never reads (none for a generated function, such as a
    dataclass's ``__init__``, which has no source and stores every field)."""
    try:
        source = inspect.getsource(fn)
    except OSError:
        return []
    tree = ast.parse(textwrap.dedent(source))
    node = tree.body[0]
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []  # a lambda or an assignment: nothing to read
    args = node.args
    params = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    params += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    read = {n.id for stmt in node.body for n in ast.walk(stmt) if isinstance(n, ast.Name)}
    return [p for p in params if p not in ("self", "cls") and p not in read]


def ignored_arguments():
    out = []
    for label, fn in _callables():
        method = label.rsplit(".", 1)[-1]
        for param in unread_parameters(fn):
            if (fn.__qualname__, param) in ALLOWED or method in HOOK_METHODS:
                continue
            out.append(f"{label}({param}) at {fn.__code__.co_filename}:{fn.__code__.co_firstlineno}")
    return out


def test_the_walk_reaches_the_public_api():
    names = {fn.__qualname__ for _, fn in _callables()}
    assert {"get_variable", "variable_scope.__init__", "Variable.__init__", "softmax", "dense", "AdamOptimizer.__init__",
            "Optimizer.minimize", "Session.__init__", "DropoutWrapper.__init__", "Saver.__init__"} <= names
    assert len(names) > 500


def test_no_public_argument_is_silently_ignored():
    assert ignored_arguments() == []


def test_the_checker_finds_an_unread_parameter():
    def honours(a, b, **kwargs):
        return a + b + len(kwargs)

    def drops(a, b=None, **unused):
        return a
    assert unread_parameters(honours) == []
    assert unread_parameters(drops) == ["b", "unused"]


@pytest.mark.parametrize("qualname,param", sorted(ALLOWED))
def test_each_allowed_parameter_exists_and_is_unread(qualname, param):
    """An allow-list entry that no longer applies (renamed, now used) must go."""
    fns = {fn.__qualname__: fn for _, fn in _callables()}
    assert qualname in fns
    assert param in unread_parameters(fns[qualname])


def test_a_rejected_argument_names_itself_and_the_users_line():
    with pytest.raises(NotImplementedError) as e:
        tf.Variable(lambda: [1.0], shape=[None])
    message = str(e.value)
    assert "`shape` argument of tf.Variable" in message and __file__ in message
    assert len(message.splitlines()) == 1


# -- the same positions as TF's ---------------------------------------------------------------------------
SIGNATURES = json.loads((pathlib.Path(__file__).parent / "data" / "tf_signatures.json").read_text())
# devlab's own signature on purpose: (key, why)
OWN_SIGNATURE = {
    "tf.Graph:create_op": "devlab's op builder takes output specs (TF's create_op is deprecated for "
                          "tf.raw_ops; scripts build ops through the tf.* functions)",
}


def _positional(params):
    names = [name for name, kind in params if kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
    return names[1:] if names and names[0] in ("self", "instance", "cls") else names


def positional_conflicts():
    """Public callables where a parameter devlab shares with TF 2.21 sits at another position (so a
    positional argument would mean something else), from TF's recorded signatures."""
    members = public_members()
    out = []
    for key, tf_params in sorted(SIGNATURES.items()):
        if key.startswith("_") or key not in members or key in OWN_SIGNATURE:
            continue
        ours = _positional([(p.name, p.kind.name) for p in inspect.signature(members[key]).parameters.values()])
        theirs = _positional(tf_params)
        moved = [n for n in ours if n in theirs and ours.index(n) != theirs.index(n)]
        if moved:
            out.append(f"{key}: devlab {ours} vs TF {theirs}")
    return out


def test_shared_parameters_sit_where_tf_puts_them():
    assert len(SIGNATURES) > 400  # the record covers the API
    assert positional_conflicts() == []


if __name__ == "__main__":  # the names tools/record_signatures.py asks TF about
    print(json.dumps(sorted(public_members())))
