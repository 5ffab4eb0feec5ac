"""``tf.config.optimizer.set_experimental_options``: TF's Grappler switches for new sessions.

TF keeps these in its context and copies them into the ``graph_options.rewrite_options`` of the
config of every Session made without one. devlab has no graph rewriter: the switches only rewrite
a graph TF would run to the same values, so they are kept and shown in that config, except
``auto_mixed_precision``, which would compute in float16 on a GPU and is refused by name.
"""

ON, OFF = 1, 2  # TF's RewriterConfig.Toggle values
_BOOLS = ("disable_model_pruning", "disable_meta_optimizer")
_INTS = ("min_graph_nodes",)
_TOGGLES = ("layout_optimizer", "constant_folding", "shape_optimization", "remapping", "arithmetic_optimization",
            "dependency_optimization", "loop_optimization", "function_optimization", "debug_stripper",
            "scoped_allocator_optimization", "pin_to_host_optimization", "implementation_selector",
            "auto_mixed_precision", "auto_parallel")

_options = {}


def set_optimizer_experimental_options(options):
    """Adds ``options`` ({name: value}) to the switches new sessions get (a name TF does not know
    is ignored, as TF ignores it)."""
    for name, value in options.items():
        if name == "auto_mixed_precision" and value:
            raise NotImplementedError("devlab does not implement the auto_mixed_precision graph rewrite (float16 "
                                      "on GPUs) yet")
    _options.update(options)


def get_optimizer_experimental_options():
    """The switches as TF reports them ({name: value}): the two booleans always, the others once set."""
    out = {name: _options.get(name, False) for name in _BOOLS}
    out.update((name, value) for name, value in _options.items() if name in _TOGGLES + _INTS)
    return out


def apply_to(rewrite_options):
    """Sets the switches on a ConfigProto's ``graph_options.rewrite_options``, as TF's context does."""
    for name, value in _options.items():
        if name in _TOGGLES:
            setattr(rewrite_options, name, ON if value else OFF)
        elif name in _BOOLS + _INTS:
            setattr(rewrite_options, name, value)
