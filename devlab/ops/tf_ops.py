"""TensorFlow's ops that devlab's op table lacks: placed and modelled, never run.

A graph file (``devlab.load_graph``) holds ops from TensorFlow's whole library, while devlab's
op table (``table.py``) has kernels for a part of it. For every other op TensorFlow defines,
``synthesized(op_type)`` makes an ``OpDef`` out of TensorFlow's own OpDef, recorded in
``data/tf_op_defs.json``:

* its outputs' dtypes follow its type attrs (``T``, ``dtype``, ``out_type``...), a ref output
  (``is_ref``) is a reference; its shapes come from the ``_output_shapes`` attr when the file
  has one, else from ``tf_shapes.py``, else they are unknown;
* the inputs it takes by reference colocate it with their variable, as in TensorFlow;
* TensorFlow's kernel registry places it (``kernel_registry.py``), so it goes where TF puts it;
* its kernel (``no_kernel``) raises ``UnimplementedError`` naming the op, and ``runs`` is False:
  a real run stops at the first such op, and a modelled run (``runtime/modelled.py``) walks past it.

``table.lookup`` asks here for a type it does not know. The functions above ``synthesized`` read
TF's OpDef for the graph importer (``graphs/``): its attrs' defaults, its inputs' and outputs' dtypes.
"""
import functools

from ..framework import dtypes, errors
from . import tf_shapes
from .recorded import OP_DEFS
from .opdef import OpDef


def op_def(op_type):
    """TensorFlow's OpDef of ``op_type`` as recorded (a dict), or None if TF has no such op."""
    return OP_DEFS.get(op_type) if isinstance(op_type, str) else None


@functools.lru_cache(maxsize=None)
def attr_defaults(op_type):
    """{attr name: default value} of TF's OpDef (dtype names as DTypes); shared, never mutate it."""
    out = {}
    for a in (op_def(op_type) or {}).get("attrs", ()):
        if "default" in a:
            value = a["default"]
            if a["type"] == "type":
                value = dtypes._BY_NAME[value]
            elif a["type"] == "list(type)":
                value = [dtypes._BY_NAME[v] for v in value]
            out[a["name"]] = value
    return out


def arg_dtypes(arg, attrs):
    """The dtypes of the tensors of one input or output arg of an OpDef (a list: an arg may be a
    list of tensors), references where the arg is ``is_ref``. KeyError/TypeError if ``attrs``
    lacks what the arg needs."""
    if "type_list_attr" in arg:
        types = list(attrs[arg["type_list_attr"]])
    else:
        base = dtypes._BY_NAME[arg["type"]] if "type" in arg else attrs[arg["type_attr"]]
        if not isinstance(base, dtypes.DType):
            raise TypeError(f"attr '{arg.get('type_attr')}' is not a type")
        count = int(attrs[arg["number_attr"]]) if "number_attr" in arg else 1
        types = [base] * count
    if not all(isinstance(t, dtypes.DType) for t in types):
        raise TypeError(f"attr '{arg.get('type_list_attr')}' is not a list of types")
    return [t._as_ref if arg.get("is_ref") else t.base_dtype for t in types]


def input_dtypes(op_type, attrs):
    """[(dtype expected, arg name)] per input tensor of TF's OpDef, given the node's attrs."""
    out = []
    for arg in op_def(op_type).get("inputs", ()):
        out += [(t, arg["name"]) for t in arg_dtypes(arg, attrs)]
    return out


def output_dtypes(op_type, attrs):
    """The dtype of each output of TF's OpDef, given the node's attrs."""
    out = []
    for arg in op_def(op_type).get("outputs", ()):
        out += arg_dtypes(arg, attrs)
    return out


def _ref_inputs(definition):
    """Indices of the inputs taken by reference, counting each arg as one tensor (only the args
    before the first list arg can be placed statically; TF's ref args all come first)."""
    out = []
    for i, arg in enumerate(definition.get("inputs", ())):
        if "number_attr" in arg or "type_list_attr" in arg:
            break
        if arg.get("is_ref"):
            out.append(i)
    return tuple(out)


def _shape_rule(op_type):
    def shape(inputs, attrs):
        full = {**attr_defaults(op_type), **attrs}
        types = output_dtypes(op_type, full)
        known = attrs.get("_output_shapes")
        dims = list(known) if known is not None and len(known) == len(types) else \
            tf_shapes.infer(op_type, inputs, full)
        if dims is None or len(dims) != len(types):
            dims = [None] * len(types)
        return list(zip(types, dims))
    return shape


def no_kernel(op_type, why):
    """A kernel that raises UnimplementedError: devlab cannot run ``op_type`` ops, for the reason ``why``."""
    def kernel(ctx, *args):
        raise errors.UnimplementedError(
            None, None, f"devlab cannot run {op_type} ops: {why}. This graph can be placed and run *modelled* "
            "instead (shapes, dtypes and the cost model's times, no values): devlab.modelled_run(session, "
            "fetches), or `devlab place FILE` on the command line")
    return kernel


@functools.lru_cache(maxsize=None)
def synthesized(op_type):
    """A devlab OpDef for one of TensorFlow's ops that the op table lacks, or None if TensorFlow
    has no such op either."""
    definition = op_def(op_type)
    if definition is None:
        return None
    return OpDef(op_type, _shape_rule(op_type), no_kernel(op_type, "devlab has no kernel for them"),
                 ref_inputs=_ref_inputs(definition), stateful=bool(definition.get("stateful")),
                 type_input=None, runs=False)
