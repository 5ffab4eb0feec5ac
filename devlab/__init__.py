"""devlab: TensorFlow 1.x device placement you can see. ``import devlab as tf`` and run TF1 code.

The package is layered, each layer importing only those below it:
framework (graph) -> ops (op table, kernels, graph-building API) -> devices -> placer ->
runtime (partition, executor, Session) -> train / distribute -> notebook (magics, widgets).
This module only gathers the public names, as ``tensorflow.compat.v1`` does.
"""
from .framework import dtypes, errors
from .framework.default_session import get_default_session
from .framework.device_spec import DeviceSpec
from .framework.dtypes import (DType, as_dtype, bfloat16, bool, complex64, complex128, double, float16,  # noqa: A004
                               float32, float64, half, int8, int16, int32, int64, qint8, qint16, qint32, quint8,
                               quint16, resource, string, uint8, uint16, uint32, uint64, variant)
from .framework.graph import Graph, container, get_default_graph, reset_default_graph
from .framework.graph_keys import GraphKeys
from .framework.operation import NodeDef, Operation
from .framework.scopes import colocate_with, control_dependencies, device, init_scope, name_scope
from .framework.tensor import Tensor
from .framework.tensor_shape import TensorShape
from .framework.dimension import Dimension, dimension_value
from .api import operators as _operators
from .api.array_ops import (cast, concat, constant, expand_dims, fill, gather, gather_nd,  # noqa: A004
                            identity, invert_permutation, newaxis, one_hot, ones, ones_like, pad, placeholder,
                            placeholder_with_default, range, rank, reshape, shape, shape_n, size, slice, sparse_to_dense,
                            split, squeeze, stack, stop_gradient, strided_slice, tile, to_float, to_int32, to_int64,
                            transpose, unique, unstack, where, where_v2, zeros, zeros_like)
from .api.masking import boolean_mask
from .api.array_ops import check_numerics, identity_n, parallel_stack, sequence_mask
from .api import compat as _compat
from .api import math_ops as _math_ops
from .ops.build import convert_to_tensor as _convert_to_tensor
from .ops.tensor_conversion import register_tensor_conversion_function
from .ops.tensor_util import is_tensor
from .api.asserts import Assert
from .api.array_ops import scatter_nd
from .api.linspace import broadcast_dynamic_shape, broadcast_to, lin_space, linspace
from .api.check_ops import (assert_equal, assert_greater, assert_greater_equal, assert_less, assert_less_equal,
                            assert_near, assert_negative, assert_non_negative, assert_non_positive, assert_none_equal,
                            assert_positive, assert_proper_iterable, is_non_decreasing, is_numeric_tensor,
                            is_strictly_increasing)
from .api.check_ranks import (assert_integer, assert_rank, assert_rank_at_least, assert_rank_in, assert_same_float_dtype,
                              assert_scalar, assert_type, ensure_shape)
from .api.logging_ops import Print
from .api.scalar_mul import scalar_mul
from .api.reverse_ops import reverse, reverse_sequence
from .api.control_flow_ops import group, no_op
from .api.control_flow_ops import tuple_ as tuple  # noqa: A001 - TF.s name
from .api.init_ops import (constant_initializer, glorot_normal_initializer, glorot_uniform_initializer, ones_initializer,
                           orthogonal_initializer, random_normal_initializer, random_uniform_initializer,
                           truncated_normal_initializer, uniform_unit_scaling_initializer, variance_scaling_initializer,
                           zeros_initializer)
from .api.matrix_ops import diag_part, eye, matrix_diag, matrix_set_diag, matrix_transpose, qr
from .api.math_ops import (abs, add, add_n, argmax, clip_by_value, cos, div, div_no_nan, divide, equal,  # noqa: A004
                           exp, floor, floor_div, floordiv, floormod, greater, greater_equal, less, less_equal,
                           log, logical_and, logical_not, logical_or, matmul, maximum, minimum, mod, multiply,
                           negative, not_equal, pow, realdiv, reciprocal, reduce_all, reduce_any, reduce_max,
                           reduce_mean, reduce_min, reduce_prod, reduce_sum, rsqrt, sigmoid, sign, sin, sqrt,
                           square, squared_difference, subtract, tanh, truediv, unsorted_segment_sum)
from .api.control_flow import cond, while_loop
from .api.functional_ops import map_fn, scan
from .api.clip_ops import clip_by_average_norm, clip_by_global_norm, clip_by_norm, global_norm
from .api.control_flow_case import case
from .api.math_ops import ceil, count_nonzero, cumsum, log1p, reduce_euclidean_norm, reduce_logsumexp
from .api.tensordot import tensordot
from .api.tensor_array_ops import TensorArray
from .api.data_flow_ops import (ConditionalAccumulator, FIFOQueue, RandomShuffleQueue, dynamic_partition,
                                dynamic_stitch, parallel_dynamic_stitch)
from .api.random_ops import random_normal, random_shuffle, random_uniform, set_random_seed, truncated_normal
from .api.script_ops import py_func
from .api.state_ops import assign, assign_add, assign_sub, count_up_to, is_variable_initialized, scatter_add, scatter_sub, scatter_update
from .framework.indexed_slices import IndexedSlices, IndexedSlicesSpec, IndexedSlicesValue
from .framework.tensor_spec import TensorSpec
from .framework.type_spec import TypeSpec
from .api.uninitialized import assert_variables_initialized, report_uninitialized_variables
from .api.lookup_ops import initialize_all_tables, tables_initializer
from .api.variable_scope import (AUTO_REUSE, VariableScope, get_local_variable, get_variable, get_variable_scope,
                                 no_regularizer, variable_scope)
from .api.partitioned_variables import (PartitionedVariable, fixed_size_partitioner, min_max_variable_partitioner,
                                         variable_axis_size_partitioner)
from .api.variables import (Variable, global_variables, global_variables_initializer, initialize_all_variables,
                            local_variables, local_variables_initializer, model_variables, moving_average_variables,
                            trainable_variables, variables_initializer)
from .runtime.protos import (ConfigProto, GPUOptions, GraphDef, GraphOptions, OptimizerOptions, RunMetadata,
                             RunOptions)
from .runtime.session import InteractiveSession, Session
from .runtime.explain import explain
from .views import chrome_trace as timeline
from .api.gradients import AggregationMethod, UnconnectedGradients, gradients
from .api.hessians import hessians
from .api.grad_table import RegisterGradient
from .api.custom_gradient import custom_gradient, grad_pass_through
from .api.recompute_grad import recompute_grad
from .api.gradient_tape import GradientTape
from .api.variable_sync import VariableAggregation, VariableSynchronization
from .api.resource_variable_ops import ResourceVariable as _ResourceVariable  # noqa: F401 - Variable(use_resource=True) makes it
from .api.resource_variables_toggle import (disable_resource_variables, enable_resource_variables,
                                            resource_variables_enabled)


def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None, dtype_hint=None):
    """TF's ``tf.convert_to_tensor`` (its arguments and order; ``dtype_hint`` is the new name of
    ``preferred_dtype``)."""
    if preferred_dtype is not None and dtype_hint is not None and preferred_dtype != dtype_hint:
        raise ValueError("Cannot specify both 'preferred_dtype' and 'dtype_hint'.")
    return _convert_to_tensor(value, dtype=dtype, name=name,
                              preferred_dtype=dtype_hint if preferred_dtype is None else preferred_dtype)
# The namespaces, built from the names above:
from . import app, config, distribute, flags, layers, losses, metrics, nn, strings, summary, train  # noqa: E402
from .views.profiler_hook import ProfilerHook as _ProfilerHook  # noqa: E402

train.ProfilerHook = _ProfilerHook  # tf.train.ProfilerHook: it writes a timeline, a view (a layer above train)
from . import tf_logging as logging  # noqa: E402
from .unimplemented import Namespace as _Namespace, module_getattr as _module_getattr  # noqa: E402
from .strings import as_string, join as string_join  # noqa: E402 - TF1's top-level names
from .graphs import import_graph_def, load_graph  # noqa: E402 - TensorFlow's graph files (the graphs extra)
from .graphs.encode import write_graph as _write_graph  # noqa: E402
from .graphs import encode as _encode  # noqa: E402
from .graphs import op_def as _op_def  # noqa: E402
from .runtime.modelled import modelled_run  # noqa: E402
from .distribute import get_tower_context  # noqa: E402
from .distribute.values import MirroredVariable as _MirroredVariable  # noqa: E402
from .api.variables import variable_creator_scope  # noqa: E402

_operators.install(_MirroredVariable)
contrib = _Namespace("tf.contrib", distribute=distribute)  # tf.contrib.distribute, as in TF 1.10-1.12
from . import file_io as _gfile  # noqa: E402
from .api.io_ops import read_file, write_file  # noqa: E402
_GFILE = ("GFile", "copy", "exists", "get_registered_schemes", "glob", "isdir", "join", "listdir", "makedirs", "mkdir",
          "remove", "rename", "rmtree", "stat", "walk")
from .api.gradient_checker import compute_gradient as _compute_gradient  # noqa: E402
from .api.gradient_checker import compute_gradient_error as _compute_gradient_error  # noqa: E402
test = _Namespace("tf.test", compute_gradient=_compute_gradient, compute_gradient_error=_compute_gradient_error)
from .api.assert_shapes import assert_shapes as _assert_shapes  # noqa: E402 - tf.debugging's only
debugging = _Namespace("tf.debugging", check_numerics=check_numerics, Assert=Assert, assert_shapes=_assert_shapes, **{
    name: globals()[name] for name in (
        "assert_equal", "assert_greater", "assert_greater_equal", "assert_integer", "assert_less", "assert_less_equal",
        "assert_near", "assert_negative", "assert_non_negative", "assert_non_positive", "assert_none_equal",
        "assert_positive", "assert_proper_iterable", "assert_rank", "assert_rank_at_least", "assert_rank_in",
        "assert_same_float_dtype", "assert_scalar", "assert_type", "is_non_decreasing", "is_numeric_tensor", "is_strictly_increasing")})
# TF1's tf.gfile: the same functions under their TF1 names
gfile = _Namespace("tf.gfile", GFile=_gfile.GFile, FastGFile=_gfile.GFile, Open=_gfile.GFile, Exists=_gfile.exists,
                   MakeDirs=_gfile.makedirs, MkDir=_gfile.mkdir, Glob=_gfile.glob, IsDirectory=_gfile.isdir,
                   ListDirectory=_gfile.listdir, Remove=_gfile.remove, Rename=_gfile.rename, Copy=_gfile.copy,
                   DeleteRecursively=_gfile.rmtree, Stat=_gfile.stat, Walk=_gfile.walk)
from .api import init_ops as _init_ops  # noqa: E402
initializers = _Namespace(  # TF1's tf.initializers: the initializer classes under their short names
    "tf.initializers", zeros=zeros_initializer, ones=ones_initializer, constant=constant_initializer,
    random_normal=random_normal_initializer, random_uniform=random_uniform_initializer,
    truncated_normal=truncated_normal_initializer, uniform_unit_scaling=uniform_unit_scaling_initializer,
    variance_scaling=variance_scaling_initializer, orthogonal=orthogonal_initializer, identity=_init_ops.Identity,
    glorot_uniform=glorot_uniform_initializer, glorot_normal=glorot_normal_initializer,
    global_variables=global_variables_initializer, local_variables=local_variables_initializer,
    variables=variables_initializer)
from .api.linalg_ops import norm  # noqa: E402 - tf.norm and tf.linalg.norm
linalg = _Namespace("tf.linalg", tensordot=tensordot, norm=norm, eye=eye, diag=matrix_diag, set_diag=matrix_set_diag,
                    diag_part=diag_part, matrix_transpose=matrix_transpose, transpose=matrix_transpose, qr=qr)
from .api import python_io as _python_io  # noqa: E402
from .api.parsing_ops import (FixedLenFeature, TFRecordReader, VarLenFeature, decode_raw,  # noqa: E402
                              parse_example, parse_single_example)
python_io = _Namespace("tf.python_io", TFRecordWriter=_python_io.TFRecordWriter,
                       tf_record_iterator=_python_io.tf_record_iterator, TFRecordOptions=_python_io.TFRecordOptions,
                       TFRecordCompressionType=_python_io.TFRecordCompressionType)
io = _Namespace("tf.io", write_graph=_write_graph, read_file=read_file, write_file=write_file,
                gfile=_Namespace("tf.io.gfile", **{n: getattr(_gfile, n) for n in _GFILE}),
                TFRecordWriter=_python_io.TFRecordWriter,
                tf_record_iterator=_python_io.tf_record_iterator, TFRecordOptions=_python_io.TFRecordOptions,
                decode_raw=decode_raw, parse_example=parse_example, parse_single_example=parse_single_example,
                FixedLenFeature=FixedLenFeature, VarLenFeature=VarLenFeature)
from .ops.sparse_tensor import SparseTensor, SparseTensorValue  # noqa: E402
from .api import sparse_ops as _sparse_ops  # noqa: E402
from .api.sparse_ops import (sparse_add, sparse_concat, sparse_fill_empty_rows, sparse_merge,  # noqa: E402
                             sparse_placeholder, sparse_reduce_max, sparse_reduce_sum, sparse_reorder, sparse_reshape,
                             sparse_maximum, sparse_minimum, sparse_reset_shape, sparse_retain, sparse_softmax, sparse_tensor_dense_matmul,
                             sparse_tensor_to_dense, sparse_to_indicator)
from .api.segment_ops import segment_sum, sparse_segment_mean, sparse_segment_sqrt_n, sparse_segment_sum  # noqa: E402
from .api.segment_ops import segment_max, segment_mean, segment_min, segment_prod  # noqa: E402
from .api.math_ops_more import argmin, complex, conj, cumprod, imag, multiply_no_nan, real  # noqa: E402, A004
from .api import math_ops_more as _math_ops_more  # noqa: E402
sparse = _Namespace("tf.sparse", SparseTensor=SparseTensor, placeholder=sparse_placeholder, add=sparse_add,
                    concat=sparse_concat, fill_empty_rows=sparse_fill_empty_rows, merge=sparse_merge,
                    reduce_max=sparse_reduce_max, reduce_sum=sparse_reduce_sum, reorder=sparse_reorder,
                    reset_shape=sparse_reset_shape, maximum=sparse_maximum, minimum=sparse_minimum,
                    transpose=_sparse_ops.sparse_transpose,
                    reshape=sparse_reshape, retain=sparse_retain, softmax=sparse_softmax,
                    sparse_dense_matmul=sparse_tensor_dense_matmul, matmul=sparse_tensor_dense_matmul,
                    to_dense=sparse_tensor_to_dense, to_indicator=sparse_to_indicator,
                    from_dense=_sparse_ops.from_dense, segment_sum=sparse_segment_sum,
                    segment_mean=sparse_segment_mean, segment_sqrt_n=sparse_segment_sqrt_n,
                    SparseTensorValue=SparseTensorValue)
# tf.math: the names TF 1.13+ scripts reach there, the same functions as at the top level and in tf.nn
math = _Namespace("tf.math", **{n: globals()[n] for n in (
    "abs", "add", "add_n", "argmax", "ceil", "cos", "count_nonzero", "cumsum", "divide", "equal", "exp", "floor", "floordiv",
    "floormod", "greater", "greater_equal", "invert_permutation", "less", "less_equal", "log", "log1p",
    "logical_and", "logical_not", "logical_or", "maximum", "minimum", "mod", "multiply", "negative", "not_equal",
    "pow", "reciprocal", "reduce_all", "reduce_any", "reduce_logsumexp", "reduce_max", "reduce_mean", "reduce_min",
    "reduce_prod", "reduce_sum", "rsqrt", "sigmoid", "sign", "sin", "sqrt", "square", "squared_difference",
    "subtract", "tanh", "tensordot", "truediv", "unsorted_segment_sum", "segment_sum", "sparse_segment_sum",
    "sparse_segment_mean", "sparse_segment_sqrt_n", "segment_max", "segment_min", "segment_prod", "segment_mean",
    "argmin", "cumprod", "multiply_no_nan", "complex", "real", "imag", "conj")}, nextafter=_math_ops_more.nextafter,
    reduce_euclidean_norm=reduce_euclidean_norm, **{n: getattr(_math_ops, n) for n in ("xdivy", "xlog1py", "xlogy")},
    **{n: getattr(nn, n) for n in ("in_top_k", "l2_normalize", "log_softmax", "softmax", "softplus", "softsign",
                                   "top_k", "zero_fraction")}, divide_no_nan=div_no_nan)

_operators.install(Tensor, Variable)
_operators.install_indexed_slices(IndexedSlices)
_encode.install(Graph)
_op_def.install(Operation)
GRAPH_DEF_VERSION = _encode.PRODUCER  # TF 2.21's (tf.compat.v1.GRAPH_DEF_VERSION)
GRAPH_DEF_VERSION_MIN_CONSUMER = _encode.MIN_CONSUMER
GRAPH_DEF_VERSION_MIN_PRODUCER = _encode.MIN_PRODUCER

# The TF version whose API devlab offers: TF1's last (1.15), so scripts that test the version take
# their TF1 path. What the ops build, how they are named and placed follows TF 2.21's
# ``tf.compat.v1`` graph mode, where devlab's facts were recorded. ``tf.__version__`` carries
# devlab's own version as a local label: ``1.15.0+devlab.0.1.0`` (see ``__getattr__`` below).
TF_API_VERSION = "1.15.0"
GIT_VERSION = "devlab"
compat = _Namespace("tf.compat", v1=__import__("sys").modules[__name__], as_bytes=_compat.as_bytes,
                    as_text=_compat.as_text, as_str=_compat.as_text, as_str_any=_compat.as_str_any,
                    integral_types=_compat.integral_types, real_types=_compat.real_types,
                    complex_types=_compat.complex_types, bytes_or_text_types=_compat.bytes_or_text_types)
_missing = _module_getattr("tf", __name__)


class _VersionNamespace(_Namespace):
    """``tf.version``: VERSION and GIT_VERSION."""
    VERSION = property(lambda self: __getattr__("__version__"))


version = _VersionNamespace("tf.version", GIT_VERSION=GIT_VERSION, GRAPH_DEF_VERSION=GRAPH_DEF_VERSION,
                            GRAPH_DEF_VERSION_MIN_CONSUMER=GRAPH_DEF_VERSION_MIN_CONSUMER,
                            GRAPH_DEF_VERSION_MIN_PRODUCER=GRAPH_DEF_VERSION_MIN_PRODUCER)


def add_to_collection(name, value):
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    get_default_graph().add_to_collections(names, value)


def get_collection(key, scope=None):
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key):
    return get_default_graph().get_collection_ref(key)


set_random_seed = set_random_seed


def load_ipython_extension(ipython):
    """``%load_ext devlab``: the ``%%placement`` magic and rich reprs (needs the notebook extra)."""
    from .notebook import load_ipython_extension as load
    load(ipython)


def unload_ipython_extension(ipython):
    from .notebook import unload_ipython_extension as unload
    unload(ipython)


def disable_v2_behavior():
    """devlab is always TF1 graph mode; kept so pasted ``tf.disable_v2_behavior()`` runs."""


disable_eager_execution = disable_v2_behavior


def executing_eagerly():
    return False


# Subpackages for optional features, imported on first use (``devlab.cluster.local()`` after a
# plain ``import devlab``), so ``import devlab`` stays numpy-only and fast.
_LAZY_SUBPACKAGES = ("cluster", "notebook")


def __getattr__(name):
    """``devlab.cluster`` and ``devlab.notebook``, imported on first use. ``tf.__version__`` (and
    ``tf.VERSION``): the TF API version with devlab's package version as its local label, read
    from the installed package's metadata on first use. Any other name devlab lacks is an API it
    does not implement yet (one line naming it and the user's line)."""
    if name in _LAZY_SUBPACKAGES:
        import importlib
        return importlib.import_module(f"{__name__}.{name}")  # which also sets it on this module
    if name in ("__version__", "VERSION"):
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as package_version
        try:
            value = f"{TF_API_VERSION}+devlab.{package_version('devlab')}"
        except PackageNotFoundError:  # run from a source tree that was never installed
            value = f"{TF_API_VERSION}+devlab"
        globals()["__version__"] = globals()["VERSION"] = value
        return value
    __tracebackhide__ = True  # noqa: F841
    return _missing(name)
