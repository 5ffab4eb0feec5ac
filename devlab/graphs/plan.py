"""The one plan of an imported graph: every node, variable and collection, checked.

Both parsers make one: ``decode.py`` and ``meta_graph_def.py`` from TensorFlow's GraphDef and
MetaGraphDef, ``json_meta_graph.py`` from devlab's JSON. Nothing in a plan can fail to build, so
``build.py`` creates its ops only after the whole file was read, and a bad file leaves the graph
as it was. Names are the file's, without the import scope (the builder adds it).
"""
from dataclasses import dataclass, field

SAVER_NAMES = ("filename_tensor_name", "save_tensor_name", "restore_op_name")  # a plan's saver_def


@dataclass
class NodeSpec:
    """One node, checked: the inputs are (producer name, output index)."""
    name: str
    op_type: str
    device: str
    inputs: list
    control_inputs: list
    attrs: dict
    outputs: list = field(default_factory=list)  # [(DType, dims or None)]
    runnable: bool = True  # devlab has a kernel for this node as written
    values: tuple = ()  # outputs known without running (Shape of a known shape), for shape inference
    back_edges: tuple = ()  # input indices read from a NextIteration (made after this node)


@dataclass
class VariableSpec:
    """A variable to rebuild from ops of the file (``tf.Variable``'s parts)."""
    variable: str  # the VariableV2 op
    initializer: str  # the op that assigns the initial value
    snapshot: tuple  # (op, output index) of the value read (``v/read``)
    initial_value: tuple = None  # (op, output index), or None
    trainable: bool = True


@dataclass
class GraphPlan:
    nodes: list  # in an order where every node comes after its inputs (back edges aside)
    by_name: dict
    versions: dict = field(default_factory=dict)
    variables: list = field(default_factory=list)  # [VariableSpec]
    # key -> [("variable", op name) | ("op", op name) | ("tensor", (op name, index)) | ("value", number)]
    collections: dict = field(default_factory=dict)
    saver_def: dict = None  # the file's Saver: the names of its ops, max_to_keep, sharded
    unbound: dict = field(default_factory=dict)  # "$unbound_inputs_<op>" -> [(DType, dims)]: for input_map to bind

    @property
    def without_kernel(self):
        """The nodes devlab would have to model (no kernel as written), in graph order."""
        return [n for n in self.nodes if not n.runnable]
