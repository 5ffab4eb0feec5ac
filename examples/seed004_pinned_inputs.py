"""Seed 004, section 1.3: the inputs pinned to the CPU, MatMul left free (it goes to GPU:0 and its
inputs are copied there).

    devlab place examples/seed004_pinned_inputs.py --gpus 1
"""
import tensorflow as tf

with tf.device('/cpu:0'):
    a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3], name='a')
    b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2], name='b')
c = tf.matmul(a, b)
sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))
print(sess.run(c))
