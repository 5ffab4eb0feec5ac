"""The oracle: ``import devlab as tf`` backed by TensorFlow's ``tf.compat.v1`` (graph mode).

Only ``run.sh`` puts this directory on the path, to run the ported tests under TensorFlow and
so check that each ported expectation is what TensorFlow itself does. It maps the few devlab
modules the tests import to TensorFlow's modules of the same role.
"""
import sys as _sys
import types as _types

_own_path = list(__path__)
import tensorflow.compat.v1 as _tf  # noqa: E402

_tf.disable_v2_behavior()
from tensorflow.python.framework import test_ops  # noqa: E402,F401 - registers FloatOutput & co.
from tensorflow.compat.v1 import *  # noqa: E402,F401,F403
from tensorflow.python.training import moving_averages as _ma  # noqa: E402

executing_eagerly = _tf.executing_eagerly
# tf.compat.v1.layers needs tf_keras under Keras 3; TF still ships the legacy layers themselves.
from tensorflow.python.layers import layers  # noqa: E402,F401
train = _types.ModuleType("devlab.train")
train.__dict__.update({k: v for k, v in vars(_tf.train).items() if not k.startswith("__")})
train.moving_averages = _ma
_sys.modules["devlab.train"] = train
_sys.modules["devlab.train.moving_averages"] = _ma
__path__ = _own_path  # the star import brought TensorFlow's __path__
