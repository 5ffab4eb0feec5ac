"""Seed 002: how tf.device sets each op's device: the scope's entry on the device stack is
applied when the op is created.

    devlab place examples/seed002_device_scope.py --gpus 1
"""
import tensorflow as tf

a = tf.constant([[1.0, 2.0], [3.0, 4.0]], name="a")
b = tf.constant([[1.0], [1.0]], name="b")
with tf.device('/GPU:0'):
    result = tf.matmul(a, b)
print(result.device, [scope.obj for scope in result.op._device_assignments])
print(tf.Session().run(result))
