"""``tf.compat.v1.enable_resource_variables``: whether ``tf.Variable`` and ``tf.get_variable`` make
resource variables when neither the call nor its variable scope says (TF 1.x's default: no).
``variables.py`` reads ``_DEFAULT_USE_RESOURCE`` when it makes a variable."""
_DEFAULT_USE_RESOURCE = False


def enable_resource_variables():
    """From here on, variables are resource variables unless a call or a scope says otherwise."""
    global _DEFAULT_USE_RESOURCE
    _DEFAULT_USE_RESOURCE = True


def disable_resource_variables():
    """From here on, variables are TF1's ref variables unless a call or a scope says otherwise."""
    global _DEFAULT_USE_RESOURCE
    _DEFAULT_USE_RESOURCE = False


def resource_variables_enabled():
    return _DEFAULT_USE_RESOURCE
