"""``Saver``: variable values to an ``.npz`` file (and the graph beside it as ``.meta``).

Restoring reads arrays with ``allow_pickle=False``, so a checkpoint can never run code. A
missing variable or a shape mismatch is a clear error and no variable is changed.
"""
import os

import numpy as np

from ..framework import errors
from ..ops.variables import global_variables
from .meta_graph import export_meta_graph


class Saver:
    def __init__(self, var_list=None, **unused):
        if var_list is None:
            var_list = global_variables()
        if isinstance(var_list, dict):
            self._vars = dict(var_list)
        else:
            self._vars = {v.op.name: v for v in var_list}
        if not self._vars:
            raise ValueError("No variables to save")

    def save(self, sess, save_path, global_step=None, write_meta_graph=True, **unused):
        """Writes ``<save_path>.npz`` (and ``<save_path>.meta``); returns the path prefix."""
        if global_step is not None:
            step = global_step if isinstance(global_step, int) else int(sess.run(global_step))
            save_path = f"{save_path}-{step}"
        values = {name: sess.run(var) for name, var in self._vars.items()}
        directory = os.path.dirname(save_path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        np.savez(save_path + ".npz", **{_key(n): v for n, v in values.items()})
        if write_meta_graph:
            export_meta_graph(save_path + ".meta", graph=sess.graph)
        return save_path

    def restore(self, sess, save_path):
        """Loads every variable's value; all or nothing."""
        path = save_path + ".npz"
        if not os.path.exists(path):
            raise errors.NotFoundError(None, None, f"Failed to find any matching files for {save_path}")
        with np.load(path, allow_pickle=False) as data:
            loaded = {}
            for name, var in self._vars.items():
                if _key(name) not in data:
                    raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint {save_path}")
                value = data[_key(name)]
                if list(value.shape) != var.shape.as_list():
                    raise errors.InvalidArgumentError(
                        None, var.op, f"Assign requires shapes of both tensors to match. lhs shape= "
                        f"{var.shape.as_list()} rhs shape= {list(value.shape)} (variable {name})")
                loaded[name] = value
        sess.load_variables({self._vars[name]: value for name, value in loaded.items()})


def _key(name):
    return name.replace("/", "|")  # npz keys are file names inside a zip


def latest_checkpoint(checkpoint_dir):
    files = sorted((f for f in os.listdir(checkpoint_dir) if f.endswith(".npz")),
                   key=lambda f: os.path.getmtime(os.path.join(checkpoint_dir, f)))
    return os.path.join(checkpoint_dir, files[-1][:-4]) if files else None
