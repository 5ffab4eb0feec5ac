"""An op's definition: every fact devlab knows about one op type, in one record.

As a JAX primitive carries its rules, an ``OpDef`` carries the op's shape rule, its kernel and
everything the placer, the planner and the compiled program need to know about that kernel. Code
reads ``opdef.<fact>``; no fact hides on the kernel function. The table of them is ``table.py``;
``tf_ops.py`` makes one for TensorFlow's ops that the table lacks.
"""
import functools
import inspect
import math
from dataclasses import dataclass

import numpy as np

BOTH = ("GPU", "CPU")
CPU_ONLY = ("CPU",)


@dataclass(frozen=True)
class OpDef:
    type: str
    shape: object  # the shape rule: (inputs, attrs) -> [(dtype, dims)] per output
    kernel: object  # f(k, *inputs), written once against ``k.xp`` (kernels.py)
    devices: tuple = BOTH  # device types with a kernel: the placer reads this
    ref_inputs: tuple = ()  # inputs taken by reference (or a resource variable's handle) that the op writes
    colocated_refs: tuple = None  # the ref inputs it is colocated with (None: all of ref_inputs)
    stateful: bool = False  # never pruned, never folded
    args: tuple = ()  # input names that share one dtype ``T``, for TF's type-mismatch error
    type_input: int = 0  # the input whose dtype is the op's ``T`` attr (None: the builder sets it)
    required_attrs: tuple = ()  # attrs its kernel reads: a graph file's node without one is refused
    runs: bool = True  # False: the kernel raises UnimplementedError (placed and modelled only)
    # What the runtime may assume of the kernel:
    writes_out: bool = False  # it accepts ``k.out``, a buffer the run planned for its one output
    returns_view: bool = False  # it may hand back (a view of) its input: a fetch of it is copied
    forwards: bool = False  # it returns its one input itself (Identity): the compiled program passes it on
    reads_dead: bool = False  # it runs on DEAD inputs (Merge: the untaken side of a tf.cond)
    live_controls: bool = False  # it runs when a control input was DEAD (ControlTrigger)
    blocking: bool = False  # it may wait for another run (a queue's dequeue, an accumulator's take)
    # Elementwise ops: the compiled program calls the ufunc directly and fuses chains of them.
    ufunc: str = None  # the kernel is exactly ``xp.<ufunc>(*inputs)``
    float_ufunc: str = None  # the ufunc computing it on floating-point inputs (n-ary: pairwise)
    expression: object = None  # f(*input expressions) -> the op in numexpr's syntax; None: never fused

    @functools.cached_property
    def arity(self):
        """(fewest, most) inputs the op takes, read from its kernel's signature."""
        params = list(inspect.signature(self.kernel).parameters.values())[1:]
        fixed = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
        if not any(p.kind == p.VAR_POSITIONAL for p in params):
            return fixed, fixed
        if self.ufunc is not None:
            n = getattr(np, self.ufunc).nin
            return n, n
        if len(self.args) > 1:
            return len(self.args), len(self.args)
        return max(fixed, 1), math.inf
