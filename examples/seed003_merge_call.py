"""Seed 003: MirroredStrategy's call_for_each_tower and merge_call (TF 1.10-1.12 contrib API).

    devlab place examples/seed003_merge_call.py --gpus 2
"""
import tensorflow as tf

distribution = tf.contrib.distribute.MirroredStrategy()


# Called once in "cross-tower" context.
def merge_fn(distribution, three_plus_tower_id):
    # sum the values across towers
    return sum(distribution.unwrap(three_plus_tower_id))


# Called once per tower in `distribution`, in a "tower" context.
def fn(three):
    tower_ctx = tf.get_tower_context()
    v = three + tower_ctx.tower_id
    # Computes the sum of the `v` values across all towers.
    s = tower_ctx.merge_call(merge_fn, v)
    return s + v


with distribution.scope():
    # in "cross-tower" context
    merged_results = distribution.call_for_each_tower(fn, 3)
    # merged_results has the values from every tower execution of `fn`.
    print(distribution.unwrap(merged_results))  # Prints a list
