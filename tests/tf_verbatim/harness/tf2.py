"""``tensorflow.python.tf2``: devlab is TF1 graph mode, so TF2 behaviour is off."""


def enabled():
    return False
