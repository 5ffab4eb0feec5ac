"""Route TensorFlow's module names onto devlab's, so TF's own test files import devlab unedited.

``install()`` puts a finder first on ``sys.meta_path``: ``tensorflow`` is devlab itself;
``tensorflow.python.framework.test_util``, ``...platform.test`` and ``...platform.googletest``
are the harness's small graph-mode test framework (``test_util.py``, ``googletest.py``); every
other ``tensorflow.*`` module is a view that looks each name up in an ordered list of devlab
modules (``SOURCES``, else the defaults per package below). A name found in none of them is a
``missing`` stand-in that fails the test that uses it. Nothing here implements TensorFlow: a
name devlab lacks stays missing.
"""
import importlib
import importlib.abc
import importlib.util
import sys
import types

from .missing import missing

HARNESS = __name__.rsplit(".", 1)[0]

# TF module -> the harness module that provides it (the test framework, not the API under test)
HARNESS_MODULES = {
    "tensorflow.python.framework.test_util": "test_util",
    "tensorflow.python.platform.test": "googletest",
    "tensorflow.python.platform.googletest": "googletest",
}

# TF module -> the devlab module that is all of it: the test gets devlab's module object itself, so a
# test that patches a name there (``tf_logging.info = mock``) patches what devlab's code calls
ALIASES = {
    "tensorflow.python.platform.tf_logging": "devlab.tf_logging",
    # FakeSummaryWriter.install() swaps the FileWriter class that FileWriterCache makes writers of
    "tensorflow.python.summary.writer.writer": "devlab.summary",
    "tensorflow.python.summary.writer.writer_cache": "devlab.summary",
}

# TF module (without "tensorflow.python.") -> devlab modules searched in order
SOURCES = {
    "framework.ops": ["devlab.framework.graph", "devlab.framework.scopes", "devlab.framework.operation",
                      "devlab.framework.tensor", "devlab.framework.indexed_slices", "devlab.framework.op_stats", "devlab.ops.build", "devlab"],
    "framework.tensor": ["devlab.framework.tensor", "devlab.framework.tensor_spec"],
    "framework.config": ["devlab.framework.optimizer_options"],
    "framework.type_spec": ["devlab.framework.type_spec", "devlab.framework.tensor_spec"],
    "framework.constant_op": ["devlab.api.array_ops"],
    "framework.errors": ["devlab.framework.errors"],
    "framework.errors_impl": ["devlab.framework.errors"],
    "framework.device": ["devlab.framework.device_spec"],
    "framework.device_spec": ["devlab.framework.device_spec"],
    "framework.tensor_util": ["devlab.ops.tensor_util"],
    "framework.versions": ["devlab"],
    "framework.importer": ["devlab.graphs", "devlab"],
    "framework.meta_graph": ["devlab.train.meta_graph"],
    "framework.graph_io": ["devlab.graphs.encode"],
    "framework.random_seed": ["devlab.api.random_ops"],
    "framework.sparse_tensor": ["devlab.ops.sparse_tensor", "devlab"],
    "framework.tensor_conversion_registry": ["devlab"],
    "framework.stack": ["devlab.framework.default_session"],
    "framework._dtypes": ["devlab.framework.dtypes"],
    "framework.test_ops": [],  # TF's C++ test ops
    "ops.variable_v1": ["devlab.api.variables"],
    "ops.ref_variable": ["devlab.api.variables"],
    "ops.gradients": ["devlab.api.gradients", "devlab.api.hessians"],
    "ops.gradients_impl": ["devlab.api.gradients", "devlab.api.hessians"],
    "ops.gradients_util": ["devlab.api.gradients"],
    "ops.math_grad": ["devlab.api.grad_table"],
    "ops.math_ops": ["devlab.api.math_ops", "devlab.api.math_ops_more", "devlab.api.segment_ops", "devlab.api.linspace",
                     "devlab"],
    "ops.while_loop": ["devlab.api.control_flow"],
    "ops.map_fn": ["devlab.api.functional_ops"],
    "ops.cond": ["devlab.api.control_flow"],
    "ops.control_flow_ops": ["devlab.api.control_flow_ops", "devlab.api.control_flow", "devlab.api.ref_ops", "devlab"],
    "ops.gen_array_ops": ["devlab.api.ref_ops", "devlab"],
    "ops.control_flow_assert": ["devlab.api.control_flow_ops", "devlab.api.asserts"],
    "ops.array_ops_stack": ["devlab.api.array_ops"],
    "ops.nn_ops": ["devlab.api.nn_ops", "devlab.nn"],
    "ops.nn_impl": ["devlab.api.nn_impl", "devlab.nn"],
    "ops.nn": ["devlab.nn"],
    "ops.logging_ops": ["devlab.api.logging_ops", "devlab"],
    "ops.gen_logging_ops": ["devlab.api.asserts", "devlab"],
    "ops.sparse_ops": ["devlab.api.sparse_ops", "devlab"],
    "ops.linalg_ops_impl": ["devlab.api.matrix_ops"],
    "ops.custom_gradient": ["devlab.api.custom_gradient", "devlab.api.recompute_grad", "devlab"],
    "ops.embedding_ops": ["devlab.api.embedding_ops", "devlab.api.embedding_sparse", "devlab"],
    "ops.init_ops": ["devlab.api.init_ops", "devlab.api.conv_orthogonal", "devlab"],
    "ops.gen_linalg_ops": ["devlab.api.matrix_ops"],
    "ops.check_ops": ["devlab.api.check_ops", "devlab.api.check_ranks", "devlab.api.assert_shapes", "devlab"],
    "client.session": ["devlab.runtime.session", "devlab"],
    "training.training": ["devlab.train"],
    "training.saver": ["devlab.train.saver", "devlab.train", "devlab.train.scaffold"],
    "training.basic_session_run_hooks": ["devlab.train.basic_session_run_hooks", "devlab.train"],
    "training.slot_creator": ["devlab.train.slots"],
    "training.queue_runner_impl": ["devlab.train.queue_runner"],
    "training.queue_runner": ["devlab.train.queue_runner"],
    "training.server_lib": ["devlab.train"],
    "training.learning_rate_decay": ["devlab.train.learning_rate_decay", "devlab.train"],
    "summary.summary": ["devlab.summary"],
    "util.compat": ["devlab.api.compat"],
    "util.tf_inspect": ["devlab.api.tf_inspect"],
    "util.nest": ["devlab.api.nest"],
    "platform.gfile": ["devlab:gfile"],  # TF1's tf.gfile names (a namespace of devlab's, not a module)
    "lib.io.file_io": ["devlab.file_io"],
    "eager.backprop": ["devlab.api.gradient_tape"],
    "eager.context": ["devlab.framework.eager_context", "devlab"],  # executing_eagerly() is False: devlab is graph mode
    "distribute.distribute_coordinator": ["devlab.distribute.worker_context"],
    "distribute.distribute_coordinator_context": ["devlab.distribute.worker_context"],
    "layers.core": ["devlab.layers.core", "devlab.layers"],
    "layers.layers": ["devlab.layers"],
}
for _name in ("gradient_descent", "momentum", "adam", "adagrad", "adadelta", "rmsprop", "ftrl", "optimizer",
              "proximal_adagrad", "proximal_gradient_descent", "adagrad_da"):
    SOURCES[f"training.{_name}"] = ["devlab.train.optimizers", "devlab.train.adaptive_optimizers", "devlab.train"]

# TF's modules outside tensorflow.python: its protos (generated code, as TensorBoard ships it)
CORE = {
    "tensorflow.core.protobuf.config_pb2": ["devlab.runtime.protos"],
    "tensorflow.core.protobuf.debug_pb2": ["devlab.runtime.protos"],
    "tensorflow.core.protobuf.saver_pb2": ["devlab.train.saver_graph"],
    "tensorflow.core.protobuf.queue_runner_pb2": ["devlab.train.queue_runner"],
    "tensorflow.core.framework.types_pb2": ["tensorboard.compat.proto.types_pb2"],
    "tensorflow.core.framework.summary_pb2": ["tensorboard.compat.proto.summary_pb2"],
    "tensorflow.core.framework.attr_value_pb2": ["tensorboard.compat.proto.attr_value_pb2"],
    "tensorflow.core.framework.tensor_shape_pb2": ["tensorboard.compat.proto.tensor_shape_pb2"],
    "tensorflow.core.function.trace_type": ["devlab.framework.trace_type"],
}

# Package -> where its modules' names are searched when SOURCES does not name the module
DEFAULTS = {
    "framework": ["devlab.framework.{}", "devlab.api.{}", "devlab"],
    "ops": ["devlab.api.{}", "devlab"],
    "training": ["devlab.train.{}", "devlab.train", "devlab"],
    "client": ["devlab.runtime.{}", "devlab"],
}

# TF package names (directories): importing ``pkg.name`` from one of these imports the submodule
PACKAGES = {"tensorflow.python", "tensorflow.core", "tensorflow.core.protobuf", "tensorflow.core.framework",
            "tensorflow.core.lib", "tensorflow.core.lib.core", "tensorflow.core.function"}
for _name in ("framework", "ops", "ops.ragged", "ops.parallel_for", "ops.linalg", "training", "client", "platform",
              "eager", "eager.polymorphic_function", "util", "data", "data.ops", "data.experimental",
              "data.experimental.ops", "summary", "summary.writer", "saved_model", "distribute", "compiler",
              "compiler.xla", "compiler.xla.experimental", "checkpoint", "trackable", "module", "lib", "lib.io",
              "layers", "autograph", "autograph.core", "keras", "debug", "tpu", "user_ops", "kernel_tests"):
    PACKAGES.add(f"tensorflow.python.{_name}")


def sources_for(fullname):
    """The devlab module names searched, in order, for the TF module ``fullname``."""
    short = fullname[len("tensorflow.python."):] if fullname.startswith("tensorflow.python.") else None
    if short is None:
        return CORE.get(fullname, [])
    if short in SOURCES:
        return SOURCES[short]
    package, _, module = short.rpartition(".")
    return [s.format(module) for s in DEFAULTS.get(package, [])]


class RoutedModule(types.ModuleType):
    """A TF module name whose attributes come from devlab modules, or are ``missing``."""

    def __init__(self, fullname, sources, is_package):
        super().__init__(fullname)
        self.__dict__["_sources"] = sources
        if is_package:
            self.__path__ = []

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if hasattr(self, "__path__"):  # a package: the name is a submodule
            return importlib.import_module(f"{self.__name__}.{name}")
        for source in self._sources:
            module = _load(source)
            if module is None:
                continue
            try:
                value = getattr(module, name)
            except (AttributeError, NotImplementedError):
                continue
            self.__dict__[name] = value
            return value
        value = missing(f"{self.__name__}.{name}")
        self.__dict__[name] = value
        return value


    def __setattr__(self, name, value):
        # patching a TF module (``mock.patch.object(random_ops, ...)``) patches the devlab module the
        # name comes from, as patching TF's module reaches TF's own callers
        if not name.startswith("__") and not hasattr(self, "__path__"):
            for source in self._sources:
                module = _load(source)
                if module is not None and not isinstance(module, RoutedModule) and name in vars(module):
                    setattr(module, name, value)
                    break
        super().__setattr__(name, value)


def _load(name):
    """The devlab module ``name`` (or ``module:attribute``), or None when devlab has no such module."""
    if ":" in name:
        module, attribute = name.split(":")
        return getattr(_load(module), attribute, None)
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name and (name == e.name or name.startswith(e.name + ".")):
            return None
        raise


class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        fullname = spec.name
        if fullname == "tensorflow":
            return importlib.import_module("devlab")
        if fullname in HARNESS_MODULES:
            return importlib.import_module(f"{HARNESS}.{HARNESS_MODULES[fullname]}")
        if fullname in ALIASES:
            return importlib.import_module(ALIASES[fullname])
        if fullname == "tensorflow.python.tf2":
            return importlib.import_module(f"{HARNESS}.tf2")
        return RoutedModule(fullname, sources_for(fullname), fullname in PACKAGES)

    def exec_module(self, module):
        pass


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname == "tensorflow" or fullname.startswith("tensorflow.") or fullname.startswith("local_xla"):
            is_package = fullname in PACKAGES or fullname == "tensorflow" or fullname == "local_xla"
            return importlib.util.spec_from_loader(fullname, _Loader(), is_package=is_package)
        return None


def install():
    """Route ``tensorflow`` and ``tensorflow.*`` to devlab in this process."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
