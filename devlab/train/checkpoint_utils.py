"""``tf.train.list_variables`` and ``tf.train.load_variable``: what a checkpoint holds, read without
a graph. A checkpoint is a Saver's ``.npz`` file (train/saver.py); a directory means its newest one."""
import os
import zipfile

import numpy as np

from ..framework import errors
from .saver import CHECKPOINT_SUFFIX, latest_checkpoint


def _path(ckpt_dir_or_file):
    prefix = latest_checkpoint(ckpt_dir_or_file) if os.path.isdir(ckpt_dir_or_file) else ckpt_dir_or_file
    if prefix is None or not os.path.isfile(prefix + CHECKPOINT_SUFFIX):
        raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {ckpt_dir_or_file}")
    return prefix + CHECKPOINT_SUFFIX


def list_variables(ckpt_dir_or_file):
    """[(name, shape)] of every variable in the checkpoint, by name."""
    with np.load(_path(ckpt_dir_or_file), allow_pickle=False) as archive:
        return sorted((key.replace("|", "/"), list(archive[key].shape)) for key in archive.files)


def load_variable(ckpt_dir_or_file, name):
    """The value the checkpoint holds for the variable ``name`` (a trailing ``:0`` is dropped)."""
    if name.endswith(":0"):
        name = name[:-2]
    path = _path(ckpt_dir_or_file)
    try:
        with np.load(path, allow_pickle=False) as archive:
            key = name.replace("/", "|")
            if key not in archive.files:
                raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint")
            return archive[key]
    except (zipfile.BadZipFile, OSError) as e:
        raise errors.DataLossError(None, None, f"Unable to open table file {path}: {e}") from None
