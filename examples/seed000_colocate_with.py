"""Seed 000: what tf.colocate_with does. c is created inside tf.device("/gpu:0") but goes where a is.

    devlab place examples/seed000_colocate_with.py --gpus 1
"""
import tensorflow as tf

with tf.device("/cpu:0"):
    a = tf.constant(0.0, name="a")

with tf.device("/gpu:0"):
    b = tf.constant(0.0, name="b")
    with tf.colocate_with(a):
        c = tf.constant(0.0, name="c")
    d = tf.constant(0.0, name="d")

for operation in tf.get_default_graph().get_operations():
    print(operation.name, operation.device)
