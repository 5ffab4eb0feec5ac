"""The variable scope a legacy layer builds in, as tf_keras's ``legacy_tf_layers`` ``Layer._set_scope`` picks it.

Without ``reuse``, an unnamed layer gets a unique scope from its base name (``conv2d``,
``conv2d_1``...). With ``reuse=True`` TF enters the scope *named* by the base name instead
(``variable_scope(name or base_name)``), so an unnamed layer built again under a reused
scope finds the first one's variables (golbin's multi-GPU MNIST relies on this).
"""
from ..api.variable_scope import variable_scope


def layer_scope(name, base_name, reuse):
    """``variable_scope`` for a layer called ``name`` (None: unnamed) of kind ``base_name``."""
    if reuse:
        return variable_scope(name if name is not None else base_name, reuse=reuse)
    return variable_scope(name, default_name=base_name, reuse=reuse)
