"""Seed 004, section 2: device_count makes CPU:0-2 and GPU:0-1 available to one session, and the
model is built under one device scope (devlab creates the GPUs, simulated, where there are none).

    devlab place examples/seed004_device_count.py
"""
import numpy as np
import tensorflow as tf

device_name = "/gpu:1"
config = tf.ConfigProto(device_count={"CPU": 3, "GPU": 2})
with tf.Session(config=config) as sess:
    with tf.device(device_name):
        x = tf.constant(np.ones((4, 8), np.float32), name="images")
        with tf.variable_scope("conv1"):
            weights = tf.get_variable("weights", [8, 16], initializer=tf.random_uniform_initializer())
            biases = tf.get_variable("biases", [16], initializer=tf.random_uniform_initializer())
            out = tf.nn.relu(tf.matmul(x, weights) + biases)
        sess.run(tf.global_variables_initializer())
        print(sess.run(tf.reduce_sum(out)) > 0)
