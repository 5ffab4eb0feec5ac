"""The checkpoint state file (``checkpoint`` beside the checkpoints): which checkpoint is newest.

TF's Saver writes it on each save (unless ``write_state=False``) as a text ``CheckpointState``
message: ``model_checkpoint_path``, the newest, and ``all_model_checkpoint_paths``, the ones it
keeps, oldest first; ``tf.train.latest_checkpoint`` reads it. devlab writes and reads the same
two fields in the same text form, so either side reads the other's.
"""
import os
import re

from .. import file_io

STATE_FILE = "checkpoint"
_LINE = re.compile(r'^\s*(model_checkpoint_path|all_model_checkpoint_paths)\s*:\s*"((?:[^"\\]|\\.)*)"\s*$')


def _quote(path):
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _unquote(text):
    return re.sub(r"\\(.)", r"\1", text)


def write_state(save_dir, latest, all_paths, latest_filename=None):
    """Writes ``save_dir/latest_filename`` (``checkpoint``): ``latest`` is the newest checkpoint."""
    lines = [f"model_checkpoint_path: {_quote(latest)}"]
    lines += [f"all_model_checkpoint_paths: {_quote(p)}" for p in all_paths]
    path = os.path.join(file_io.local_path(save_dir) or ".", latest_filename or STATE_FILE)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


def read_state(checkpoint_dir, latest_filename=None):
    """(newest path, [kept paths]) from ``checkpoint_dir``'s state file, or None without one. A
    relative path is taken relative to ``checkpoint_dir``, as TF takes it."""
    path = os.path.join(file_io.local_path(checkpoint_dir), latest_filename or STATE_FILE)
    if not os.path.isfile(path):
        return None
    latest, kept = None, []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            match = _LINE.match(line)
            if not match:
                continue
            value = _unquote(match.group(2))
            if not os.path.isabs(file_io.local_path(value)) and "://" not in value:
                value = os.path.join(checkpoint_dir, value)
            if match.group(1) == "model_checkpoint_path":
                latest = value
            else:
                kept.append(value)
    return latest, kept
