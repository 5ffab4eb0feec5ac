"""Seed 004, section 1.5: two towers on GPU:2 and GPU:3, summed on the CPU.

    devlab place examples/seed004_mixed_sum.py --gpus 4 --svg sum.svg --trace sum.json
"""
import tensorflow as tf

c = []
for d in ['/device:GPU:2', '/device:GPU:3']:
    with tf.device(d):
        a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3])
        b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2])
        c.append(tf.matmul(a, b))
with tf.device('/cpu:0'):
    sum = tf.add_n(c)
sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))
print(sess.run(sum))
