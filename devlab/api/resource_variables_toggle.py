"""``tf.compat.v1.enable_resource_variables``: whether ``tf.Variable`` and ``tf.get_variable`` make
resource variables when neither the call nor its variable scope says (TF 1.x's default: no)."""
from . import variables


def enable_resource_variables():
    """From here on, variables are resource variables unless a call or a scope says otherwise."""
    variables._RESOURCE_DEFAULT[0] = True


def disable_resource_variables():
    """From here on, variables are TF1's ref variables unless a call or a scope says otherwise."""
    variables._RESOURCE_DEFAULT[0] = False


def resource_variables_enabled():
    return variables._RESOURCE_DEFAULT[0]
