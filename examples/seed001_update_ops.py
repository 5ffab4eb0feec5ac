"""Seed 001: batch normalisation's update ops gathered from tf.GraphKeys.UPDATE_OPS under a CPU
scope, and bound to the training op. (get_collection creates no op, so that scope moves nothing.)

    devlab place examples/seed001_update_ops.py --gpus 1
"""
import numpy as np
import tensorflow as tf

x = tf.constant(np.arange(8.0, dtype=np.float32).reshape(4, 2))
with tf.device("/gpu:0"):
    loss = tf.reduce_sum(tf.layers.batch_normalization(x, training=True))
with tf.device("/cpu:0"):
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
with tf.control_dependencies(update_ops):
    train = tf.identity(loss)
sess = tf.Session()
sess.run(tf.global_variables_initializer())
print(sess.run(train))
