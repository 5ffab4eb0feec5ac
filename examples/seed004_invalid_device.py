"""Seed 004, section 1.4: a variable's assign pinned to a CPU that does not exist."""
import tensorflow as tf

with tf.device('/device:CPU:1'):
    v = tf.Variable(1.0, name='v')
    value = tf.assign(v, 2.0, name='value')
sess = tf.Session()
sess.run(value)
