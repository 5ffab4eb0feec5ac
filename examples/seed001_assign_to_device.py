"""Seed 001 (ADCME's docs, in Python): a device function that puts variables on the CPU (a
parameter server) and every other op on the GPU.

    devlab place examples/seed001_assign_to_device.py --gpus 1
"""
import tensorflow as tf

PS_OPS = ["Variable", "VariableV2", "AutoReloadVariable"]


def assign_to_device(device, ps_device="/device:CPU:0"):
    def _assign(op):
        node_def = op if isinstance(op, tf.NodeDef) else op.node_def
        if node_def.op in PS_OPS:
            return ps_device
        else:
            return device
    return _assign


with tf.device(assign_to_device("/device:GPU:0")):
    a = tf.Variable(1.0)
    b = tf.sin(a)
print(a.device)
print(b.device)
sess = tf.Session()
sess.run(tf.global_variables_initializer())
print(sess.run(b))
