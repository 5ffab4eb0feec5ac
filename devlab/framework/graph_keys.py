"""``tf.GraphKeys``: the standard collection names."""


class GraphKeys:
    GLOBAL_VARIABLES = "variables"
    VARIABLES = GLOBAL_VARIABLES
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    UPDATE_OPS = "update_ops"
    TRAIN_OP = "train_op"
    GLOBAL_STEP = "global_step"
    LOSSES = "losses"
    REGULARIZATION_LOSSES = "regularization_losses"
    SUMMARIES = "summaries"
    SAVERS = "savers"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    ACTIVATIONS = "activations"
    WEIGHTS = "weights"
    BIASES = "biases"
