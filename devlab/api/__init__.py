"""The TF1 graph-building API: the ``tf.*`` functions users call (``constant``'s wrappers in
``array_ops``, ``math_ops``, ``nn_ops``, ``variables``, ``control_flow``, ``gradients``, ``rnn``,
``losses``...). Each builds ops of the op table through ``devlab.ops.build``; the op layer below
never imports this one."""
