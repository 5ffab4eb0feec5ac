"""``Saver``: variable values to one ``.npz`` file (and the graph beside it as ``.meta``).

A Saver adds TF's ``save/...`` ops to the graph when it is made (``saver_graph.py``), so the graph,
its placement and its log are TF's; the values themselves are moved here, in Python, not by those
ops. It keeps the newest ``max_to_keep`` checkpoints and deletes older ones, as TF's does.

Saving reads every variable in one run and writes a temporary file that is then renamed, so a
crash never leaves half a checkpoint under the real name. Restoring treats the file as data
only (no pickles) and checks the *whole* checkpoint before any variable changes
(``read_checkpoint``): every variable has an entry, of exactly the variable's dtype (a float16,
float64, int64, complex or string entry for a float32 variable is TF's InvalidArgumentError,
never a silent cast) and of its shape; every read is bounded by the size the variable needs. A
truncated or corrupt file is TF's DataLossError. Then ``Session.load_variables`` sets them all at
once: all or nothing. ``restore`` also reads a checkpoint TensorFlow wrote (``PREFIX.index`` and its
data shards, ``tf_checkpoint.py``), with the same checks.
"""
import inspect
import math
import numbers
import os
import tempfile
import time
import zipfile
import zlib

import numpy as np

from .. import file_io
from . import checkpoint_state
from ..unimplemented import argument, reject
from ..framework import dtypes, errors
from ..framework.tensor_shape import TensorShape
from ..api.partitioned_variables import PartitionedVariable
from ..api.variables import global_variables
from ..graphs.json_encode import export_meta_graph
from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from .saveable import SaveableObject, SaveSpec
from .saver_graph import ResourceVariableSaveable, SaverDef, build_saver_ops
from .tf_checkpoint import INDEX_SUFFIX, CheckpointFormatError, TFCheckpoint, is_tf_checkpoint

CHECKPOINT_SUFFIX = ".npz"
MAX_HEADER_BYTES = 64 * 1024  # an .npy header is ~128 bytes; numpy's own limit is 10,000
MAX_UNKNOWN_SHAPE_BYTES = 1 << 30  # the most read for a variable whose shape is not fixed (validate_shape=False)
# numpy >= 1.24 bounds the header it parses; older numpy has a fixed bound of its own
_HEADER_LIMIT = ({"max_header_size": MAX_HEADER_BYTES}
                 if "max_header_size" in inspect.signature(np.lib.format.read_array).parameters else {})

_MISMATCH = ("Restoring from checkpoint failed. This is most likely due to a mismatch between the current "
             "graph and the graph from the checkpoint. Please ensure that you have not altered the graph "
             "expected based on the checkpoint. Original error:\n\n")
_MISSING = ("Restoring from checkpoint failed. This is most likely due to a Variable name or other graph key "
            "that is missing from the checkpoint. Please ensure that you have not altered the graph expected "
            "based on the checkpoint. Original error:\n\n")


class BaseSaverBuilder:
    """TF's saver builder; here the home of ``SaveSpec`` and ``SaveableObject`` (``saveable.py``),
    which TF code reaches as ``BaseSaverBuilder.SaveableObject``. devlab's Saver builds its ops itself
    (``saver_graph.py``): a ``builder=`` argument is not implemented."""
    SaveSpec = SaveSpec
    SaveableObject = SaveableObject
    ResourceVariableSaveable = ResourceVariableSaveable


class Saver:
    """TF1's ``tf.train.Saver``: adds the ``save/...`` ops for ``var_list`` (default: every global
    variable) to the graph, as TF does (``saver_graph.py``; ``sharded=True`` gives one save and
    restore op per device), unless ``defer_build`` (then ``build()`` does it) or ``saver_def``
    names ops that already exist (an imported graph's saver)."""

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False, saver_def=None,
                 builder=None, defer_build=False, allow_empty=False, write_version=SaverDef.V2,
                 pad_step_number=False, save_relative_paths=False, filename=None):
        # restore_sequentially is accepted and has no effect, as in TF: its bulk RestoreV2 ignores it
        reject("tf.train.Saver", builder=(builder, None), save_relative_paths=(save_relative_paths, False))
        if write_version not in (SaverDef.V1, SaverDef.V2) or (write_version == SaverDef.V1 and sharded):
            raise argument("write_version", "tf.train.Saver (SaverDef.V2, or V1 unsharded)")
        if defer_build and var_list:
            raise ValueError("If `var_list` is provided then build cannot be deferred. "
                             "Either set defer_build=False or var_list=None.")
        self._vars = None if var_list is None else _names_to_variables(var_list)
        self._sharded, self._name, self._filename = sharded, name, filename
        self._reshape, self._write_version = reshape, write_version
        self._object_restores = {}  # a SaveableObject's name -> (its restore op, the tensors it reads)
        self._max_to_keep, self._keep_hours = max_to_keep, keep_checkpoint_every_n_hours
        self._allow_empty, self._pad_step_number = allow_empty, pad_step_number
        self.saver_def = saver_def
        self._is_built = False
        self._is_empty = None
        self._last_checkpoints = []  # [(path prefix, time saved)], oldest first
        self._next_checkpoint_time = time.time() + keep_checkpoint_every_n_hours * 3600
        if not defer_build:
            self.build()

    def build(self):
        """Adds the save and restore ops (once)."""
        if self._is_built:
            return
        self._is_built = True
        if self._vars is None and self.saver_def is not None:  # the variables its restore op writes
            self._vars = _restored_variables(get_default_graph(), self.saver_def)
        if self._vars is None:  # TF's default: the global variables and the SAVEABLE_OBJECTS collection
            self._vars = _names_to_variables(global_variables() + get_default_graph().get_collection(
                GraphKeys.SAVEABLE_OBJECTS))
        if self.saver_def is not None:
            self._is_empty = not self._vars
            return
        if not self._vars:
            if self._allow_empty:
                self._is_empty = True
                return
            raise ValueError("No variables to save")
        self._is_empty = False
        self.saver_def = build_saver_ops(self._vars, self._sharded, self._max_to_keep, self._keep_hours,
                                         self._name, self._filename, self._reshape, self._write_version,
                                         self._object_restores)

    def as_saver_def(self):
        return self.saver_def

    def export_meta_graph(self, filename=None, collection_list=None, as_text=False, export_scope=None,
                          clear_devices=False, clear_extraneous_savers=False, strip_default_attrs=False,
                          save_debug_info=False):
        """``tf.train.export_meta_graph`` of the default graph with this Saver's ``saver_def``."""
        return export_meta_graph(filename=filename, saver_def=self.saver_def, collection_list=collection_list,
                                 as_text=as_text, export_scope=export_scope, clear_devices=clear_devices,
                                 clear_extraneous_savers=clear_extraneous_savers,
                                 strip_default_attrs=strip_default_attrs, save_debug_info=save_debug_info)

    @property
    def last_checkpoints(self):
        """The path prefixes of the checkpoints this Saver keeps, oldest first."""
        return [path for path, _ in self._last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints):
        self._last_checkpoints = [(path, float("inf")) for path in last_checkpoints]

    def recover_last_checkpoints(self, checkpoint_paths):
        """Takes over checkpoints written before (e.g. by an earlier run): the ones that exist."""
        found = [(p, os.path.getmtime(p + CHECKPOINT_SUFFIX)) for p in checkpoint_paths
                 if os.path.isfile(p + CHECKPOINT_SUFFIX)]
        self._last_checkpoints = found

    def _record_checkpoint(self, path):
        """Keeps the newest ``max_to_keep`` checkpoints and deletes the files of older ones, except
        one every ``keep_checkpoint_every_n_hours`` (TF's ``_RecordLastCheckpoint``)."""
        if not self._max_to_keep:
            return
        self._last_checkpoints = [p for p in self._last_checkpoints if p[0] != path] + [(path, time.time())]
        while len(self._last_checkpoints) > self._max_to_keep:
            old, saved_at = self._last_checkpoints.pop(0)
            if saved_at > self._next_checkpoint_time:
                self._next_checkpoint_time += self._keep_hours * 3600
                continue
            for suffix in (CHECKPOINT_SUFFIX, ".meta"):
                try:
                    os.remove(file_io.local_path(old) + suffix)
                except OSError:
                    pass

    def save(self, sess, save_path, global_step=None, latest_filename=None, meta_graph_suffix="meta",
             write_meta_graph=True, write_state=True, strip_default_attrs=False, save_debug_info=False):
        """Writes ``<save_path>.npz`` (and ``<save_path>.meta``) and, with ``write_state``, the
        checkpoint state file (``latest_filename``, default ``checkpoint``); returns the path
        prefix. TF's arguments in TF's order; another meta suffix, stripped attrs and debug info
        are not implemented and say so."""
        reject("Saver.save", meta_graph_suffix=(meta_graph_suffix, "meta"),
               strip_default_attrs=(strip_default_attrs, False), save_debug_info=(save_debug_info, False))
        _check_session(sess)
        if not isinstance(save_path, str):
            raise TypeError(f"Expected binary or unicode string, got {save_path!r}")
        if not self._is_built:
            raise RuntimeError("`build()` should be called before save if defer_build==True")
        if global_step is not None:
            step = global_step if isinstance(global_step, numbers.Integral) else int(sess.run(global_step))
            save_path = f"{save_path}-{step:08d}" if self._pad_step_number else f"{save_path}-{step}"
        local = file_io.local_path(save_path)  # a file:// URI is a local path; another scheme is refused
        directory = os.path.dirname(local)
        if directory and not os.path.isdir(directory):
            raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.")
        if not self._is_empty:
            entries = _entries(self._vars)
            names = list(entries)
            values = sess.run([entries[n] for n in names])  # one run: a consistent snapshot
            values = [_whole(entries[n], v) for n, v in zip(names, values)]  # a partitioned entry: one array
            _write_atomically(local + CHECKPOINT_SUFFIX,
                              lambda f: np.savez(f, **{_key(n): _storable(v) for n, v in zip(names, values)}))
            if write_state:  # as TF: without it the checkpoint is neither kept track of nor in the state file
                self._record_checkpoint(save_path)
                checkpoint_state.write_state(os.path.dirname(save_path), save_path, self.last_checkpoints,
                                             latest_filename)
        if write_meta_graph:
            meta = local + ".meta"
            _write_atomically(meta, lambda f: f.write(_meta_bytes(sess.graph, self.saver_def)))
        return None if self._is_empty else save_path

    def restore(self, sess, save_path):
        """Loads every variable's value from ``save_path``: all or nothing."""
        _check_session(sess)
        if self._is_empty:
            return
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        if not isinstance(save_path, str):
            raise TypeError(f"Expected binary or unicode string, got {save_path!r}")
        objects = {n: v for n, v in self._vars.items() if isinstance(v, SaveableObject)}
        checked = {n: v for n, v in self._vars.items() if n not in objects}
        checked.update({spec.name: _SpecEntry(spec) for obj in objects.values() for spec in obj.specs})
        values = read_checkpoint(file_io.local_path(save_path), checked, reshape=self._reshape)
        loads = {}
        for name, var in self._vars.items():
            if name in objects:
                continue
            if isinstance(var, list):  # a partitioned entry: each shard its slice
                loads.update({p: values[name][_slices(p)] for p in var})
            else:
                loads[var] = values[name]
        sess.load_variables(loads)
        for name, obj in objects.items():  # an object's own restore op, fed the values read
            restore_op, tensors = self._object_restores[name]
            sess.run(restore_op, feed_dict={t: values[spec.name] for t, spec in zip(tensors, obj.specs)})


class _SpecEntry:
    """A SaveableObject's tensor as ``read_checkpoint`` checks it: its dtype, any shape."""

    def __init__(self, spec):
        self.dtype, self.shape, self.op = spec.dtype, TensorShape(None), spec.tensor.op


def _entries(names_to_variables):
    """{checkpoint entry: what to fetch for it}: a variable (or its shards), or a SaveableObject's tensors."""
    out = {}
    for name, v in names_to_variables.items():
        if isinstance(v, SaveableObject):
            out.update({spec.name: spec.tensor for spec in v.specs})
        else:
            out[name] = v
    return out


def _names_to_variables(var_list):
    """{checkpoint name: Variable, or the shards of a partitioned variable in order} of a dict or
    list of variables, with TF's errors for anything else. Shards (variables with a
    ``_save_slice_info``) share the entry of the whole variable, as in TF's checkpoints."""
    if isinstance(var_list, dict):
        out = {}
        for name, v in var_list.items():
            if isinstance(v, PartitionedVariable):
                v = list(v)
            if isinstance(v, SaveableObject) and isinstance(name, str):
                out[name] = v
                continue
            if not isinstance(name, str) or not all(_is_variable(p) for p in (v if isinstance(v, list) else [v])):
                raise TypeError("names_to_saveables must be a dict mapping string names to Tensors/Variables. "
                                f"Not a variable: {v}")
            out[name] = v
        _check_each_once(out)
        return out
    if isinstance(var_list, (list, tuple)):
        out = {}
        for v in var_list:
            if isinstance(v, PartitionedVariable):  # its entry is named after the PartitionedVariable, as TF's
                if v.name in out:
                    raise ValueError(f"At least two variables have the same name: {v.name}")
                out[v.name] = list(v)
                continue
            if isinstance(v, SaveableObject):
                out[v.name] = v
                continue
            if not _is_variable(v):
                raise TypeError(f"Variable to save is not a Variable: {v}")
            info = getattr(v, "_save_slice_info", None)
            if info is not None:
                shards = out.setdefault(info.full_name, [])
                if not isinstance(shards, list):
                    raise ValueError(f"At least two variables have the same name: {info.full_name}")
                shards.append(v)
                continue
            if v.op.name in out:
                raise ValueError(f"At least two variables have the same name: {v.op.name}")
            out[v.op.name] = v
        return out
    raise TypeError(f"Variables to save should be passed in a dict or a list. Got {var_list}")


def _restored_variables(graph, saver_def):
    """{checkpoint name: Variable} that the restore op of ``saver_def`` writes (each Assign of a
    RestoreV2 output, whose tensor_names Const names its entry), or None where the ops are not
    such a Saver's (sliced entries, objects restored their own way): then the Saver takes the
    global variables, as before."""
    try:
        root = graph.get_operation_by_name(saver_def.restore_op_name)
    except (KeyError, ValueError):
        return None
    by_op = {v.op.name: v for v in global_variables() if getattr(v.op, "graph", graph) is graph}
    out, stack, seen = {}, [root], set()
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if op.type == "NoOp":
            stack.extend(op.control_inputs)
            continue
        if op.type not in ("Assign", "AssignVariableOp"):
            return None
        value = op.inputs[1]
        while value.op.type == "Identity":
            value = value.op.inputs[0]
        variable = by_op.get(op.inputs[0].op.name)
        if value.op.type != "RestoreV2" or variable is None:
            return None
        names, slices = (np.asarray(value.op.inputs[i].op.attrs.get("value")) for i in (1, 2))
        if slices.ndim != 1 or any(slices.tolist()):
            return None
        name = names.tolist()[value.value_index]
        out[name.decode() if isinstance(name, bytes) else name] = variable
    return out or None


def _check_each_once(names_to_variables):
    """TF's check that no variable (or saveable object) is saved under two names."""
    seen = set()
    for name, v in sorted(names_to_variables.items()):
        if isinstance(v, SaveableObject):
            owners, name = [v.op], v.name
        else:
            owners = v if isinstance(v, list) else [v]
        for owner in owners:
            if id(owner) in seen:
                raise ValueError(f"The same saveable will be restored with two names: {name}")
            seen.add(id(owner))


class _Whole:
    """The full variable a list of shards stands for: what a checkpoint entry is checked against."""

    def __init__(self, shards):
        info = shards[0]._save_slice_info
        self.dtype, self.shape, self.op = shards[0].dtype, TensorShape(info.full_shape), shards[0].op


def _slices(shard):
    info = shard._save_slice_info
    return tuple(slice(o, o + n) for o, n in zip(info.var_offset, info.var_shape))


def _whole(var, value):
    """A partitioned entry's shard values put together into the full array; any other value as it is."""
    if not isinstance(var, list):
        return value
    whole = np.empty(var[0]._save_slice_info.full_shape, dtype=np.asarray(value[0]).dtype)
    for shard, part in zip(var, value):
        whole[_slices(shard)] = part
    return whole


def read_checkpoint(save_path, variables, reshape=False):
    """{name: array} for every variable in ``variables`` ({name: Variable}), read from
    ``save_path + ".npz"`` and checked against them, or TF's error; nothing is changed here.
    With ``reshape`` (TF's ``Saver(reshape=True)``) an entry of another shape but as many values
    is reshaped to its variable's shape."""
    path = save_path + CHECKPOINT_SUFFIX
    if not os.path.isfile(path):
        if is_tf_checkpoint(save_path):  # written by TensorFlow: PREFIX.index and PREFIX.data-*
            return read_tf_checkpoint(save_path, variables, reshape)
        raise ValueError(f"The passed save_path is not a valid checkpoint: {save_path}")
    try:
        with zipfile.ZipFile(path) as archive:
            entries = {}
            variables = {n: _Whole(v) if isinstance(v, list) else v for n, v in variables.items()}
            for name, var in variables.items():  # first every key and dtype (TF's RestoreV2) ...
                entries[name] = _entry_header(archive, path, name, var)
            for name, var in variables.items():  # ... then every shape (TF's Assign ops, or Reshape ops)
                _check_shape(name, var, entries[name][1], reshape)
            return {name: _reshaped(_read_entry(archive, path, name, var, *entries[name]), var, reshape)
                    for name, var in variables.items()}
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError) as e:
        raise _data_loss(path, e) from None


def read_tf_checkpoint(save_path, variables, reshape=False):
    """``read_checkpoint`` for a checkpoint TensorFlow wrote (its V2 format, ``tf_checkpoint.py``),
    with the same checks in the same order: every key and dtype, then every shape, then the values."""
    index = save_path + INDEX_SUFFIX
    try:
        checkpoint = TFCheckpoint(save_path)
        entries = {}
        for name, var in variables.items():
            entry = checkpoint.entries.get(name)
            if isinstance(var, list) or (entry is not None and entry.sliced):
                raise NotImplementedError(
                    f"Saver.restore: {name} is a partitioned variable, which devlab restores from its own .npz "
                    f"checkpoints only, not from TensorFlow's {os.path.basename(index)}")
            if entry is None:
                raise errors.NotFoundError(None, var.op, _MISSING + f"Key {name} not found in checkpoint")
            want = var.dtype.base_dtype
            if entry.dtype != want:
                raise errors.InvalidArgumentError(
                    None, var.op, _MISMATCH + f"tensor_name = {name}; expected dtype {want.tf_type_name} does not "
                    f"equal original dtype {entry.dtype.tf_type_name if entry.dtype else entry.type_name}")
            entries[name] = entry
        for name, var in variables.items():
            _check_shape(name, var, entries[name].shape, reshape)
        return {name: _reshaped(checkpoint.read(entries[name]), var, reshape) for name, var in variables.items()}
    except (CheckpointFormatError, OSError, EOFError) as e:
        raise _data_loss(index, e) from None


def _entry_header(archive, path, name, var):
    """(ZipInfo, shape, dtype) of ``name``'s entry, checked: it exists, has the variable's dtype and
    is no bigger than the variable needs."""
    key = _key(name) + ".npy"
    try:
        info = archive.getinfo(key)
    except KeyError:
        raise errors.NotFoundError(None, var.op, _MISSING + f"Key {name} not found in checkpoint") from None
    with archive.open(info) as f:
        try:
            version = np.lib.format.read_magic(f)
            read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                           else np.lib.format.read_array_header_2_0)
            shape, _, dtype = read_header(f, **_HEADER_LIMIT)
        except ValueError as e:
            raise _data_loss(path, f"entry for {name} is not an array ({e})") from None
    want = var.dtype.base_dtype
    if not _dtype_matches(dtype, want):
        raise errors.InvalidArgumentError(
            None, var.op, _MISMATCH + f"tensor_name = {name}; expected dtype {want.tf_type_name} does not equal "
            f"original dtype {_tf_name(dtype)}")
    # Bounded reads: an entry may hold no more bytes than its header's shape needs, and that shape
    # must be the variable's (checked next), or at most MAX_UNKNOWN_SHAPE_BYTES where it has none.
    size = math.prod(shape) * dtype.itemsize
    if info.file_size > size + MAX_HEADER_BYTES:
        raise _data_loss(path, f"entry for {name} declares {info.file_size} bytes, more than its "
                               f"{list(shape)} {_tf_name(dtype)} array can hold")
    if not var.shape.is_fully_defined() and size > MAX_UNKNOWN_SHAPE_BYTES:
        raise _data_loss(path, f"entry for {name} is {size} bytes, more than the {MAX_UNKNOWN_SHAPE_BYTES} "
                               "devlab reads for a variable without a fixed shape")
    return info, shape, dtype


def _check_shape(name, var, shape, reshape=False):
    want = var.shape
    if reshape and not isinstance(var, _Whole):  # TF's Reshape to the variable's shape, then an unchecked Assign
        count = math.prod(shape)
        if want.is_fully_defined() and math.prod(want.as_list()) != count:
            raise errors.InvalidArgumentError(
                None, var.op, _MISMATCH + f"Input to reshape is a tensor with {count} values, but the requested "
                f"shape has {math.prod(want.as_list())}\n\t(restoring variable {name})")
        return
    if want.sizes is not None and not want.is_compatible_with(shape):
        lhs = ",".join("?" if d is None else str(d) for d in want.sizes)
        raise errors.InvalidArgumentError(
            None, var.op, _MISMATCH + f"Assign requires shapes of both tensors to match. lhs shape= [{lhs}] "
            f"rhs shape= [{','.join(map(str, shape))}]\n\t(restoring variable {name})")


def _reshaped(value, var, reshape):
    """``value`` in its variable's shape where ``reshape`` allows another shape of as many values."""
    if reshape and not isinstance(var, (_Whole, list)) and var.shape.is_fully_defined():
        return value.reshape(var.shape.as_list())
    return value


def _read_entry(archive, path, name, var, info, shape, dtype):
    with archive.open(info) as f:
        try:
            value = np.lib.format.read_array(f, allow_pickle=False, **_HEADER_LIMIT)
        except ValueError as e:  # too few bytes for the shape (a truncated entry), or a pickle
            raise _data_loss(path, f"entry for {name} is truncated or corrupt ({e})") from None
    if var.dtype.base_dtype == dtypes.string:
        items = [x.encode() if isinstance(x, str) else x for x in value.reshape(-1).tolist()]
        return np.array(items + [None], dtype=object)[:-1].reshape(value.shape)
    return value.astype(dtype.newbyteorder("="), copy=False)


def _dtype_matches(dtype, want):
    """Exactly the variable's dtype (byte order aside); a string variable takes bytes or text."""
    if want == dtypes.string:
        return dtype.kind in "SU"
    if dtype.hasobject or dtype.kind in "SUV":
        return False
    return dtype.newbyteorder("=") == np.dtype(want.as_numpy_dtype)


def _tf_name(dtype):
    if dtype.kind in "SUO":
        return "string" if dtype.kind != "O" else "object (a pickled array, which devlab never loads)"
    try:
        return dtypes.as_dtype(dtype.newbyteorder("=")).tf_type_name
    except (TypeError, ValueError, KeyError):
        return str(dtype)


def _data_loss(path, reason):
    return errors.DataLossError(None, None, f"Unable to read checkpoint {path}: the file is truncated or corrupt "
                                            f"({reason})")


def _is_variable(v):
    return hasattr(v, "op") and getattr(v.op, "type", None) in ("VariableV2", "VarHandleOp") and \
        hasattr(v, "initializer")


def _check_session(sess):
    from ..runtime.session import Session
    if not isinstance(sess, Session):
        raise TypeError(f"'sess' must be a Session; {sess}")


def _storable(value):
    """An array np.savez writes without pickling: string values become fixed-width bytes."""
    value = np.asarray(value)
    if value.dtype.hasobject:
        items = [x if isinstance(x, bytes) else str(x).encode() for x in value.reshape(-1)]
        return np.array(items, dtype="S").reshape(value.shape) if items else np.zeros(value.shape, dtype="S1")
    return value


def _meta_bytes(graph, saver_def=None):
    import json
    return json.dumps(export_meta_graph(graph=graph, saver_def=saver_def), indent=1).encode()


def _write_atomically(path, write):
    """Writes through ``write(file)`` into a temporary file beside ``path``, then renames it."""
    directory = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _key(name):
    return name.replace("/", "|")  # npz keys are file names inside a zip


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The newest checkpoint's path prefix in ``checkpoint_dir``, or None (also when there is no
    such folder): the one its state file names, as TF (None if that checkpoint is gone); in a
    folder without a state file (older devlab checkpoints), the newest checkpoint file there."""
    if not isinstance(checkpoint_dir, str) or not os.path.isdir(file_io.local_path(checkpoint_dir)):
        return None
    state = checkpoint_state.read_state(checkpoint_dir, latest_filename)
    if state is not None:
        latest = state[0]
        local = latest and file_io.local_path(latest)
        found = local and (os.path.isfile(local + CHECKPOINT_SUFFIX) or is_tf_checkpoint(local))
        return latest if found else None
    checkpoint_dir = file_io.local_path(checkpoint_dir)
    files = sorted((f for f in os.listdir(checkpoint_dir) if f.endswith((CHECKPOINT_SUFFIX, INDEX_SUFFIX))),
                   key=lambda f: os.path.getmtime(os.path.join(checkpoint_dir, f)))  # devlab's or TensorFlow's
    return os.path.join(checkpoint_dir, os.path.splitext(files[-1])[0]) if files else None
