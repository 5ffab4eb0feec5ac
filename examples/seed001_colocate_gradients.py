"""Seed 001: gradients colocated with their forward ops. sin runs on the GPU, cos on the CPU; with
colocate_gradients_with_ops=True each gradient op runs beside its forward op.

    devlab place examples/seed001_colocate_gradients.py --gpus 1
"""
import tensorflow as tf

PS_OPS = ["Variable", "VariableV2", "AutoReloadVariable"]


def assign_to_device(device, ps_device="/device:CPU:0"):
    def _assign(op):
        node_def = op if isinstance(op, tf.NodeDef) else op.node_def
        return ps_device if node_def.op in PS_OPS else device
    return _assign


with tf.device(assign_to_device("/device:GPU:0")):
    a = tf.Variable(1.0)
    b = tf.sin(a)
with tf.device("/CPU:0"):
    c = tf.cos(b)
g = tf.gradients(c, a, colocate_gradients_with_ops=True)
sess = tf.Session()
sess.run(tf.global_variables_initializer())
print(sess.run(g))
