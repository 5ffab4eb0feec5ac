"""MirroredStrategy's 1.x tower API (seed 003) on simulated GPUs."""
import numpy as np
import pytest

import devlab as tf

GPU = "/replica:0/task:0/device:GPU:"


@pytest.fixture
def strategy():
    tf.config.simulate_gpus(2)
    return tf.distribute.MirroredStrategy()


def run(fetch, gpus=2):
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": gpus})) as s:
        s.run(tf.global_variables_initializer())
        return s.run(fetch)


def test_properties(strategy):
    assert strategy.worker_devices == [GPU + "0", GPU + "1"] == strategy.parameter_devices
    assert strategy.num_towers == 2 and not strategy.is_single_tower
    assert strategy.worker_devices is not strategy.worker_devices  # a copy each time
    assert tf.distribute.MirroredStrategy(num_gpus=1).is_single_tower
    assert tf.contrib.distribute.MirroredStrategy(["/cpu:0"]).worker_devices == ["/replica:0/task:0/device:CPU:0"]
    with pytest.raises(ValueError, match="No duplicates"):
        tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:0"])


def test_seed_merge_call_example(strategy):
    def merge_fn(distribution, three_plus_tower_id):
        return sum(distribution.unwrap(three_plus_tower_id))

    def fn(three):
        tower_ctx = tf.get_tower_context()
        v = three + tower_ctx.tower_id
        s = tower_ctx.merge_call(merge_fn, v)
        return s + v

    with strategy.scope():
        merged = strategy.call_for_each_tower(fn, 3)
        assert strategy.unwrap(merged) == [10, 11]
        assert tf.get_tower_context() is None  # cross-tower context inside scope()


def test_towers_run_on_their_devices_with_tower_scopes(strategy):
    def fn(device_id):
        assert tf.get_tower_context().tower_id == device_id
        return tf.constant(1.0, name="c") * 2.0
    with strategy.scope():
        out = strategy.call_for_each_tower(fn, strategy.worker_device_index)
    a, b = strategy.unwrap(out)
    assert (a.op.name, b.op.name) == ("mul", "tower_1/mul")
    assert a.device == GPU + "0" and b.device == GPU + "1"


def test_mirrored_variables_same_initial_value_even_random(strategy):
    with strategy.scope():
        v = tf.Variable(tf.random_uniform([3]), name="v")
        w = tf.get_variable("w", [2, 2])
    parts = strategy.unwrap(v)
    assert [p.op.name for p in parts] == ["v", "v/replica_1"]
    assert [p.device for p in parts] == [GPU + "0", GPU + "1"]
    assert tf.global_variables() == [v, w]  # only the wrappers enter the collections
    a, b = run(parts)
    np.testing.assert_array_equal(a, b)
    wa, wb = run(strategy.unwrap(w))
    np.testing.assert_array_equal(wa, wb)


def test_colocate_vars_with_seed_example(strategy):
    with strategy.scope():
        var1 = tf.Variable(1.0, name="var1")
        with strategy.colocate_vars_with(var1):
            var2 = tf.Variable(2.0, name="var2")
            var3 = tf.Variable(3.0, name="var3")

        def fn(v1, v2, v3):
            return v1.assign_add(v2 + v3)
        updated = strategy.update(var1, fn, var2, var3)
    assert var2.devices == var1.devices == var3.devices
    for d in var1.devices:
        assert updated.get(d).op.device == d
    assert run(strategy.unwrap(updated)) == [6.0, 6.0]


def test_reduce_is_placed_on_the_destination_and_mirrored(strategy):
    with strategy.scope():
        per = strategy.call_for_each_tower(lambda: tf.constant(1.0) + tf.cast(tf.get_tower_context().tower_id, tf.float32))
        total = strategy.reduce("sum", per, destinations="/device:CPU:0")
        mean = strategy.reduce("mean", per)
        both = strategy.batch_reduce("sum", [(per, "/gpu:1")])
    assert total.devices == ["/replica:0/task:0/device:CPU:0"]
    assert run(total.get("/replica:0/task:0/device:CPU:0")) == 3.0
    assert run(strategy.unwrap(mean)) == [1.5, 1.5]
    assert run(both[0].get(GPU + "1")) == 3.0
    with pytest.raises(ValueError):
        strategy.reduce("max", per)


def test_broadcast_fetch_group_map_unwrap(strategy):
    with strategy.scope():
        x = tf.constant([1.0, 2.0], name="x")
        mirrored = strategy.broadcast(x)
        fetched = strategy.fetch(mirrored, "/cpu:0", fn=lambda t: t * 10.0)
        grouped = strategy.group(mirrored)
        mapped = strategy.map([1.0, 2.0, 3.0], lambda item: tf.constant(item) * 2.0)
    assert [t.device for t in strategy.unwrap(mirrored)] == [GPU + "0", GPU + "1"]
    assert run(fetched).tolist() == [10.0, 20.0] and fetched.device == "/replica:0/task:0/device:CPU:0"
    assert grouped.type == "NoOp" and len(grouped.control_inputs) == 2
    assert [len(v) for v in strategy.unwrap(mapped)] == [2, 1]
    assert strategy.unwrap(5) == [5]


def test_tower_local_variables_reduce_on_fetch(strategy):
    with strategy.scope():
        with strategy.tower_local_var_scope("sum"):
            count = tf.Variable(0.0, name="count")
        inc = strategy.call_for_each_tower(
            lambda: count.get().assign_add(tf.cast(tf.get_tower_context().tower_id, tf.float32) + 1.0))
        total = strategy.fetch(count)
    assert count not in tf.trainable_variables()
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 2})) as s:
        s.run(tf.global_variables_initializer())
        s.run(strategy.unwrap(inc))
        assert s.run(total) == 3.0


def test_update_non_slot_and_non_slot_devices(strategy):
    with strategy.scope():
        devices = strategy.non_slot_devices([])
        out = strategy.update_non_slot(devices, lambda: tf.constant(4.0))
    assert devices == strategy.worker_devices and run(strategy.unwrap(out)) == [4.0, 4.0]


def train(num_towers, data, labels, steps=5):
    """A linear softmax model trained with MirroredStrategy on ``num_towers`` simulated GPUs."""
    with tf.Graph().as_default():
        strategy = tf.distribute.MirroredStrategy(num_gpus=num_towers)
        with strategy.scope():
            w = tf.get_variable("w", [4, 3], initializer=tf.random_normal_initializer(seed=1))
            xs = strategy.distribute_dataset(tf.distribute.Dataset.from_tensor_slices(data).batch(len(data))).get_next()
            ys = strategy.distribute_dataset(tf.distribute.Dataset.from_tensor_slices(labels).batch(len(data))).get_next()

            def tower(x, y):
                loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=tf.matmul(x, w)))
                grad = tf.gradients(loss, w)[0]

                def merge(dist, grads):
                    mean = dist.reduce("mean", grads, destinations=w)
                    return dist.update(w, lambda v, g: v.assign_sub(0.5 * g), mean)
                return tf.get_tower_context().merge_call(merge, grad)
            step = strategy.group(strategy.call_for_each_tower(tower, xs, ys))
        with tf.Session(config=tf.ConfigProto(device_count={"GPU": num_towers})) as s:
            s.run(tf.global_variables_initializer())
            for _ in range(steps):
                s.run(step)
            return [s.run(c) for c in strategy.unwrap(w)]


def test_two_and_four_towers_match_one_tower_on_the_combined_batch():
    rng = np.random.default_rng(0)
    data = rng.normal(size=(8, 4)).astype(np.float32)
    labels = np.eye(3, dtype=np.float32)[rng.integers(0, 3, 8)]
    one = train(1, data, labels)[0]
    for towers in (2, 4):
        components = train(towers, data, labels)
        assert len(components) == towers
        for c in components:
            np.testing.assert_allclose(c, one, rtol=1e-5, atol=1e-6)
