"""``tf.train.import_meta_graph`` and ``export_meta_graph``: a graph with its devices, variables
and collections, saved to a file and rebuilt.

devlab writes its own JSON format (``graphs/json_encode.py``). ``import_meta_graph`` reads that
or TensorFlow's MetaGraphDef (binary or text, as ``tf.train.Saver`` writes it, or a message
passed in): each has its parser (``graphs/json_decode.py``, ``graphs/meta_graph_def.py``), and
both give the one plan that ``graphs/build.py`` builds, so a bad file never leaves a half-built
graph. ``clear_devices=True`` drops every requested device; ``import_scope="s"`` puts every
name under ``s/``.
"""
import os

from ..framework.graph import VALID_OP_NAME, Graph, get_default_graph, strip_name_scope
from ..framework.graph_keys import GraphKeys
from ..graphs.files import GraphFileError, parse_meta_graph_def, read_file
from ..graphs.json_decode import parse_meta_graph_bytes, validate_meta_graph
from ..graphs import json_encode
from ..graphs.load import import_graph_def, import_meta_plan
from ..graphs.meta_graph_def import plan_meta_graph_def
from ..unimplemented import argument
from .saver import Saver
from .saver_graph import SaverDef

MAX_FILE_BYTES = 256 << 20  # a saved graph (constants included) larger than this is refused unread


def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None, collection_list=None,
                      as_text=False, graph=None, export_scope=None, clear_devices=False, clear_extraneous_savers=False,
                      strip_default_attrs=False, save_debug_info=False, **kwargs):
    """``tf.train.export_meta_graph`` (devlab's JSON meta graph, ``graphs/json_encode.py``). As TF's,
    a ``graph_def`` given gives the nodes, and the graph its variables and collections."""
    nodes = None if graph_def is None else _ops_of(graph_def)
    return json_encode.export_meta_graph(
        filename=filename, meta_info_def=meta_info_def, saver_def=saver_def, collection_list=collection_list,
        as_text=as_text, graph=graph, export_scope=export_scope, clear_devices=clear_devices,
        clear_extraneous_savers=clear_extraneous_savers, strip_default_attrs=strip_default_attrs,
        save_debug_info=save_debug_info, nodes=nodes, **kwargs)


def _ops_of(graph_def):
    """The ops of ``graph_def``, built in a scratch graph to be written as any op is."""
    scratch = Graph()
    with scratch.as_default():
        import_graph_def(graph_def, name="")
    return scratch.get_operations()


def _saver_from_def(fields):
    """TF's ``Saver.from_proto``: a Saver over the imported ops a SaverDef names."""
    return Saver(saver_def=SaverDef(**fields))


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **kwargs):
    """Rebuilds a saved graph in the default graph (or ``graph=``); returns a Saver for its
    variables (None if it has none). Everything is checked before the graph is touched."""
    graph = kwargs.pop("graph", None)
    for key in kwargs:  # TF passes these on to import_scoped_meta_graph (input_map, ...)
        raise argument(key, "tf.train.import_meta_graph")
    if graph is None:
        return _import_meta_graph(meta_graph_or_file, clear_devices, import_scope)
    with graph.as_default():  # TF imports into `graph` and makes the Saver there
        return _import_meta_graph(meta_graph_or_file, clear_devices, import_scope)


def _import_meta_graph(meta_graph_or_file, clear_devices, import_scope):
    if not isinstance(clear_devices, bool):
        raise TypeError(f"clear_devices must be True or False, got {clear_devices!r}")
    prefix = _scope_prefix(import_scope)
    if not prefix and get_default_graph().get_name_scope():
        # TF: without an import scope, names go under the name scope the import is made in
        prefix = get_default_graph().get_name_scope() + "/"
    plan, devices = _plan(meta_graph_or_file)
    # devlab's JSON keeps the devices as requested; TF's importer then gives colocated ops their group's
    variables = import_meta_plan(plan, get_default_graph(), prefix, clear_devices, devices, colocate=True,
                                 make_saver=_saver_from_def)
    saver_def = plan.saver_def and {k: prefix + v if isinstance(v, str) else v for k, v in plan.saver_def.items()}
    return _saver_for(variables, saver_def, prefix, import_scope)


def _plan(meta):
    """(the plan of a meta graph file, dict or MetaGraphDef; how its devices are read)."""
    devices = "import"  # TF's files: TF's importer decides the devices
    if isinstance(meta, (str, bytes, os.PathLike)):
        data, path = _read_bounded(meta)
        if data.lstrip()[:1] not in (b"{", b"["):  # not devlab's JSON: TF's MetaGraphDef, binary or text
            plan = plan_meta_graph_def(_parse_tf(data, path))
        else:
            plan, devices = validate_meta_graph(parse_meta_graph_bytes(data, path)), "file"
    elif type(meta).__name__ == "MetaGraphDef" and hasattr(meta, "graph_def"):
        plan = plan_meta_graph_def(meta)
    elif isinstance(meta, dict):
        plan, devices = validate_meta_graph(meta), "file"
    else:
        raise TypeError(f"Expected binary or unicode string, got {meta!r}")
    return plan, devices


def _saver_for(variables, saver_def, prefix, import_scope):
    """TF's rule: a Saver over the file's own save ops when the file has a saver (even with no
    variables), else a new Saver of every global variable if the import scope holds any; else None."""
    if saver_def is not None:
        var_list = list(variables.values())
        if prefix and not any(getattr(v, "_save_slice_info", None) for v in var_list):
            # the file's save ops keep the checkpoint's names: the variables' names before the import scope
            var_list = {name[len(prefix):] if name.startswith(prefix) else name: v for name, v in variables.items()}
        return Saver(var_list, saver_def=SaverDef(**saver_def))
    del variables  # TF's rule below looks at the graph, not only at what was imported
    graph = get_default_graph()
    in_scope = graph.get_collection(GraphKeys.GLOBAL_VARIABLES, scope=import_scope)
    # TF asks whether the import scope holds variables (made there before the import count too)
    return Saver() if in_scope else None


def _parse_tf(data, path):
    """TensorFlow's MetaGraphDef in ``data``, or TF's OSError "Cannot parse file"."""
    try:
        return parse_meta_graph_def(data, path)
    except GraphFileError as e:
        reason = str(e).split(": ", 1)[-1]
        raise OSError(f"Cannot parse file {path}: not a devlab meta graph (JSON), and {reason}") from None


def _scope_prefix(import_scope):
    if import_scope is None or import_scope == "":
        return ""
    if not isinstance(import_scope, str):
        raise TypeError(f"import_scope must be a string, got {import_scope!r}")
    scope = import_scope.rstrip("/")
    if not VALID_OP_NAME.match(scope):
        raise ValueError(f"'{import_scope}' is not a valid scope name")
    return scope + "/"


def read_meta_graph_file(filename):
    """The parsed JSON of a meta graph file, read with bounds; TF's errors for a file that is
    missing, a folder, not a regular file, too large, or not parseable."""
    data, path = _read_bounded(filename)
    return parse_meta_graph_bytes(data, path)


def _read_bounded(filename):
    """(the bytes of a meta graph file, its path), read with bounds; TF's errors for a file that
    is missing, a folder, not a regular file or too large."""
    return read_file(filename, MAX_FILE_BYTES, "a meta graph", OSError, "devlab.train.meta_graph.MAX_FILE_BYTES")


def export_scoped_meta_graph(filename=None, graph_def=None, graph=None, export_scope=None, as_text=False,
                             unbound_inputs_col_name="unbound_inputs", clear_devices=False, saver_def=None,
                             clear_extraneous_savers=False, strip_default_attrs=False, save_debug_info=False,
                             **kwargs):
    """TF's ``meta_graph.export_scoped_meta_graph``: (the meta graph of the part of ``graph`` under
    ``export_scope``, without the scope in its names; {variable name without the scope: Variable})."""
    graph = graph or get_default_graph()
    meta = export_meta_graph(filename=filename, graph_def=graph_def, saver_def=saver_def, as_text=as_text,
                             graph=graph, export_scope=export_scope, clear_devices=clear_devices,
                             clear_extraneous_savers=clear_extraneous_savers,
                             strip_default_attrs=strip_default_attrs, save_debug_info=save_debug_info, **kwargs)
    var_list = {strip_name_scope(v.name, export_scope): v
                for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES, scope=export_scope)
                if not export_scope or v.name.startswith(export_scope)}
    return meta, var_list


def import_scoped_meta_graph(meta_graph_or_file, clear_devices=False, graph=None, import_scope=None,
                             input_map=None, unbound_inputs_col_name="unbound_inputs",
                             restore_collections_predicate=lambda key: True):
    """TF's ``meta_graph.import_scoped_meta_graph``: builds the meta graph into ``graph`` under
    ``import_scope``, ``input_map`` binding its unbound inputs (or any of its tensors); returns
    {variable name without the scope: Variable} of what it made."""
    if restore_collections_predicate("") is not True or restore_collections_predicate("variables") is not True:
        raise argument("restore_collections_predicate", "meta_graph.import_scoped_meta_graph")
    graph = graph or get_default_graph()
    with graph.as_default():
        prefix = _scope_prefix(import_scope)
        plan, devices = _plan(meta_graph_or_file)
        variables = import_meta_plan(plan, graph, prefix, clear_devices, devices, colocate=True, input_map=input_map,
                                     make_saver=_saver_from_def)
    return {strip_name_scope(v.name, import_scope): v for v in variables.values()}


def copy_scoped_meta_graph(from_scope, to_scope, from_graph=None, to_graph=None):
    """TF's ``meta_graph.copy_scoped_meta_graph``: the part of ``from_graph`` under ``from_scope``
    rebuilt in ``to_graph`` under ``to_scope``; returns its variables by name without the scope."""
    from_graph = from_graph or get_default_graph()
    to_graph = to_graph or get_default_graph()
    if from_graph is to_graph and from_scope == to_scope:
        raise ValueError("'from_scope' and 'to_scope' need to be different when performing copy in the same "
                         f"graph. Received: 'from_graph': {from_graph}, 'to_graph': {to_graph}, 'from_scope': "
                         f"{from_scope}, 'to_scope': {to_scope}.")
    meta, _ = export_scoped_meta_graph(export_scope=from_scope, graph=from_graph)
    return import_scoped_meta_graph(meta, graph=to_graph, import_scope=to_scope)
