"""The ``save/...`` ops a ``Saver`` adds to the graph, built as TF's ``BulkSaverBuilder`` builds them.

A TF Saver is a piece of graph: a filename placeholder (``save/Const``), a ``SaveV2`` op that
reads every variable, and a ``RestoreV2`` op whose outputs are ``Assign``-ed to the variables
(``save/restore_all``). The variables are taken in the order of their names. A *sharded* Saver
(what ``MonitoredTrainingSession``'s Scaffold makes) groups the variables by device and gives each
device its own ``SaveV2``/``RestoreV2`` pair on the CPU of that device's task, then merges the
shards (``MergeV2Checkpoints``): in a cluster each parameter server writes its own variables.
The shards of a partitioned variable are slices of one checkpoint entry named after the whole
variable, each with its shape-and-slice spec (``"5 2 0,3:0,2"``), saved by value.

devlab builds these ops so that the graph, its placement and its log are TF's; ``Saver.save`` and
``Saver.restore`` then move the values themselves (``saver.py``), and running ``save/SaveV2``
directly is devlab's UnimplementedError (it has no kernel for TF's checkpoint format).
"""
import contextlib
from dataclasses import dataclass

from ..framework import dtypes
from ..framework.device_spec import DeviceSpec, canonical_name
from ..framework.scopes import control_dependencies, device, name_scope
from ..api import state_ops
from ..api.gen_resource_variable_ops import assign_variable_op, disable_copy_on_read, read_variable_op
from ..api.array_ops import constant, identity, placeholder_with_default, where
from ..api.array_ops import reshape as reshape_op, shape as array_shape
from ..ops.build import apply_op, apply_op_output, convert_to_tensor
from ..api.control_flow_ops import group, with_dependencies
from ..framework.tensor import Tensor
from .saveable import SaveableObject, SaveSpec


@dataclass
class SaverDef:
    """TF's ``SaverDef``: the names of a Saver's ops in the graph, and how it keeps checkpoints."""
    V1 = 1
    V2 = 2
    filename_tensor_name: str = ""
    save_tensor_name: str = ""
    restore_op_name: str = ""
    max_to_keep: int = 5
    sharded: bool = False
    keep_checkpoint_every_n_hours: float = 10000.0
    version: int = 2

    def as_proto(self):
        """TF's ``SaverDef`` message of the same fields (``tf.io.write_graph`` writes one so)."""
        from ..framework.tf_protos import saver_def_class
        return saver_def_class()(**{k: getattr(self, k) for k in self.__dataclass_fields__})


@dataclass
class _Saveable:
    """One tensor of a checkpoint: its entry's name, its slice of that entry ("" for all of it;
    TF's ``"5 2 0,3:0,2"`` for rows 0-2 of a [5, 2] entry) and the variable holding it."""
    name: str
    spec: str
    variable: object

    @property
    def tensor(self):
        # a whole variable is saved by reference, a slice (a shard) by its value, as TF does; a
        # resource variable by the read its constructor made (``v/Read/ReadVariableOp``)
        if _is_resource(self.variable):
            return _read_on_cpu(self.variable) if self.spec else self.variable._graph_element
        return self.variable.value() if self.spec else _ref(self.variable)


@dataclass
class _ObjectSpec:
    """One tensor of a SaveableObject (``saveable.py``): its spec, and the object that restores it."""
    owner: object
    save_spec: object

    @property
    def name(self):
        return self.save_spec.name

    @property
    def spec(self):
        return self.save_spec.slice_spec

    @property
    def tensor(self):
        return self.save_spec.tensor

    @property
    def device(self):
        return self.save_spec.device

    @property
    def dtype(self):
        return self.save_spec.dtype.base_dtype


def _dtype(item):
    return item.dtype if isinstance(item, _ObjectSpec) else item.variable.dtype.base_dtype


def _device(item):
    return item.device if isinstance(item, _ObjectSpec) else item.variable.op.device


def _is_resource(variable):
    return variable.op.type == "VarHandleOp"


def _read_on_cpu(variable):
    """TF's read of a resource shard for saving: a read beside the variable, copied to its task's CPU."""
    with device(variable.device):
        with name_scope("Read"):  # TF's read_value_no_copy
            disable_copy_on_read(variable.handle)
            value = read_variable_op(variable.handle, variable.dtype)
        value = identity(value)
        with device("/device:CPU:0"):
            return identity(value)


class ResourceVariableSaveable(SaveableObject):
    """TF's SaveableObject of a resource variable (or of a read of one): its value, read on its
    device and copied to the CPU when saved; written back by an AssignVariableOp beside it."""

    def __init__(self, var, slice_spec, name):
        self._var_device, self._var_shape = var.device, var.shape
        if isinstance(var, Tensor):  # a ReadVariableOp's output: its handle is the op's input
            self.handle_op, tensor = var.op.inputs[0], var
        else:
            self.handle_op, tensor = var.handle, (lambda: _read_on_cpu(var))
        spec = SaveSpec(tensor, slice_spec, name, dtype=var.dtype, device=var.device)
        super().__init__(var, [spec], name)

    def restore(self, restored_tensors, restored_shapes):
        tensor = restored_tensors[0]
        if restored_shapes is not None:
            tensor = reshape_op(tensor, restored_shapes[0])
        with device(self._var_device):
            tensor = identity(tensor)
            if not self._var_shape.is_compatible_with(tensor.shape):
                raise ValueError(f"Received incompatible tensor with shape {tensor.shape} when attempting to "
                                 f"restore variable with shape {self._var_shape} and name {self.name}.")
            return assign_variable_op(self.handle_op, tensor)


def slice_spec(info):
    """TF's shape-and-slice string of a shard's SaveSliceInfo: full shape, then offset,length per dim."""
    return " ".join(str(d) for d in info.full_shape) + " " + ":".join(
        f"{o},{n}" for o, n in zip(info.var_offset, info.var_shape))


def _saveables(names_to_variables):
    """The checkpoint's tensors in TF's order: by entry name, a partitioned entry's shards in turn."""
    out = []
    for name, v in sorted(names_to_variables.items()):
        if isinstance(v, SaveableObject):
            out += [_ObjectSpec(v, spec) for spec in v.specs]
            continue
        parts = v if isinstance(v, list) else [v]
        out += [_Saveable(name, slice_spec(p._save_slice_info) if isinstance(v, list) else "", p) for p in parts]
    return out


def build_saver_ops(names_to_variables, sharded=False, max_to_keep=5, keep_checkpoint_every_n_hours=10000.0,
                    name=None, filename=None, reshape=False, version=SaverDef.V2, object_restores=None):
    """Adds the save and restore ops for ``{checkpoint name: Variable or [shards]}``; returns
    their SaverDef. ``reshape`` puts a Reshape to the variable's shape before each restoring
    assign (TF's ``Saver(reshape=True)``); ``version`` V1 saves with TF's older ``SaveSlices`` op
    (restoring is RestoreV2 in both, as in TF). A SaveableObject among the values saves its specs'
    tensors and restores through its own ``restore``; ``object_restores`` (a dict) receives, by its
    name, that restore op and the RestoreV2 outputs it reads."""
    saveables = _saveables(names_to_variables)
    with name_scope(name, "save", [s.tensor.op if isinstance(s, _ObjectSpec) else s.variable.op
                                   for s in saveables]):
        filename_tensor = placeholder_with_default(filename or "model", shape=(), name="filename")
        filename_tensor = placeholder_with_default(filename_tensor, shape=(), name="Const")
        if sharded:
            per_device = _group_by_device(saveables)
            save_tensor = _sharded_save(filename_tensor, per_device)
            restore_op = group(*[_restore(filename_tensor, items, "restore_shard", on=dev, reshape=reshape,
                                          object_restores=object_restores)
                                 for dev, items in per_device], name="restore_all")
        else:
            save = _save_v2 if version == SaverDef.V2 else _save_slices
            save_tensor = with_dependencies([save(filename_tensor, saveables)], filename_tensor)
            restore_op = _restore(filename_tensor, saveables, "restore_all", reshape=reshape,
                                  object_restores=object_restores)
    return SaverDef(filename_tensor.name, save_tensor.name, restore_op.name, max_to_keep or 0, bool(sharded),
                    keep_checkpoint_every_n_hours, version)


def _ref(variable):
    return convert_to_tensor(variable, as_ref=True)


def _save_v2(prefix, saveables):
    tensors = [s.tensor for s in saveables]  # before the SaveV2 scope: a resource shard's read is built here
    with name_scope(None, "SaveV2") as scope:
        tensor_names = constant([s.name for s in saveables], name="tensor_names")
        slices = constant([s.spec for s in saveables], name="shape_and_slices")
        return apply_op("SaveV2", [prefix, tensor_names, slices] + tensors,
                        {"dtypes": [t.dtype.base_dtype for t in tensors]}, scope)


def _save_slices(prefix, saveables):
    """TF's V1 save op (``io_ops._save``): ``save/save``, a SaveSlices of every tensor."""
    tensors = [s.tensor for s in saveables]
    with name_scope(None, "save") as scope:
        tensor_names = constant([s.name for s in saveables], name="tensor_names")
        slices = constant([s.spec for s in saveables], name="shapes_and_slices")
        return apply_op("SaveSlices", [prefix, tensor_names, slices] + tensors,
                        {"T": [t.dtype.base_dtype for t in tensors]}, scope)


def _restore_v2(prefix, saveables):
    with name_scope(None, "RestoreV2") as scope:
        tensor_names = constant([s.name for s in saveables], name="tensor_names")
        slices = constant([s.spec for s in saveables], name="shape_and_slices")
        return apply_op("RestoreV2", [prefix, tensor_names, slices],
                        {"dtypes": [_dtype(s) for s in saveables]}, scope).outputs


def _restore(prefix, saveables, group_name, on=None, reshape=False, object_restores=None):
    """One RestoreV2 on ``cpu:0`` for ``saveables``, an Assign of each output to its variable, and a
    group of the Assigns named ``group_name`` (under ``device(on)`` for a shard). With ``reshape``
    each restored value is first reshaped to its variable's shape and assigned unchecked, as TF's
    saveables do when given the shapes."""
    with (device(on) if on is not None else contextlib.nullcontext()):
        with device("cpu:0"):
            restored = _restore_v2(prefix, saveables)
        assigns = []
        for i, (s, t) in enumerate(zip(saveables, restored)):
            if isinstance(s, _ObjectSpec):  # an object restores all its tensors at once, at its first
                if i == 0 or not (isinstance(saveables[i - 1], _ObjectSpec) and saveables[i - 1].owner is s.owner):
                    assigns.append(_restore_object(s.owner, saveables[i:], restored[i:], reshape, object_restores))
                continue
            if reshape:
                t = _reshape(t, s.variable)
            assigns.append(_restore_resource(s.variable, t) if _is_resource(s.variable) else
                           state_ops.assign(_ref(s.variable), t,
                                            validate_shape=not reshape and s.variable.shape.is_fully_defined()))
        return group(*assigns, name=group_name)


def _restore_object(owner, items, restored, reshape, object_restores):
    """``owner.restore`` of its restored tensors (with their shapes under ``reshape``), noted in
    ``object_restores`` as (restore op, the RestoreV2 outputs it reads) for the Saver."""
    count = len(owner.specs)
    tensors = list(restored[:count])
    shapes = [item.tensor.shape for item in items[:count]] if reshape else None
    restore_op = owner.restore(tensors, shapes)
    if object_restores is not None:
        object_restores[owner.name] = (restore_op, tensors)
    return restore_op


def _reshape(value, variable):
    """The restored ``value`` reshaped to ``variable``'s static shape (its run-time shape when not fixed)."""
    shape = variable.shape
    target = shape.as_list() if shape.is_fully_defined() else array_shape(variable)
    return reshape_op(value, target)


def _restore_resource(variable, value):
    """TF's ResourceVariableSaveable.restore: an Identity of the restored value on the variable's
    device, written by an AssignVariableOp."""
    with device(variable.device):
        value = identity(value)
        return assign_variable_op(variable.handle, value)


def _group_by_device(saveables):
    """[(canonical device, [saveable])], sorted by device, as TF's ``_GroupByDevices``."""
    per_device = {}
    for item in saveables:
        per_device.setdefault(canonical_name(_device(item)), []).append(item)
    return sorted(per_device.items())


def _set_cpu0(device_string):
    """The CPU:0 of the task ``device_string`` names (TF's ``saveable_object_util.set_cpu0``)."""
    return DeviceSpec.from_string(device_string).replace(device_type="CPU", device_index=0).to_string()


def _sharded_save(prefix, per_device):
    """One SaveV2 per device into a temporary shard name, then ``MergeV2Checkpoints`` of the shards
    into ``prefix`` (TF's ``_AddShardedSaveOpsForV2``)."""
    with device("CPU"):
        suffix = where(apply_op_output("StaticRegexFullMatch", [prefix], {"pattern": "^s3://.*"},
                                       "StaticRegexFullMatch"),
                       constant(".part"), constant("_temp/part"))
        with name_scope(None, "StringJoin", [prefix, suffix]) as scope:
            tmp_prefix = apply_op_output("StringJoin", [prefix, suffix], {"separator": "", "N": 2}, scope)
    num_shards = constant(len(per_device), name="num_shards")
    saves, prefixes = [], []
    for shard, (dev, saveables) in enumerate(per_device):
        with device(_set_cpu0(dev)):
            with name_scope(None, "ShardedFilename") as scope:
                shard_name = apply_op_output("ShardedFilename", [tmp_prefix, constant(shard, name="shard"),
                                                                 num_shards], None, scope)
            prefixes.append(shard_name)
            saves.append(with_dependencies([_save_v2(shard_name, saveables)], shard_name))
    with control_dependencies([s.op for s in saves]):
        with device(_set_cpu0(per_device[-1][0])):
            with name_scope(None, "MergeV2Checkpoints") as scope:
                packed = convert_to_tensor(prefixes, dtype=dtypes.string, name="checkpoint_prefixes")
                merge = apply_op("MergeV2Checkpoints", [packed, prefix],
                                 {"delete_old_dirs": True, "allow_missing_files": False}, scope)
            with control_dependencies([merge]):
                return identity(prefix)
