"""The models of benchmarks/bench_models.py (the same program text, built small): a few SGD steps
run as the compiled program give the losses and the variables of the same steps interpreted op
by op (every run traced), to float32 tolerance."""
import os
import sys

import numpy as np
import pytest

import devlab as tf

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import models  # noqa: E402

SMALL = {
    "cnn": dict(batch=8, image=8, channels=4, hidden=16),
    "lstm": dict(batch=3, steps=4, vocab=20, hidden=8),
    "word2vec": dict(batch=8, vocab=100, size=8, sampled=4),
}
TRACED = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)


def train(name, traced, steps=3):
    g, init, train_op, loss, feed = models.MODELS[name](tf, **SMALL[name])
    with g.as_default():
        variables = tf.global_variables()
    sess = tf.Session(graph=g, config=tf.ConfigProto(device_count={"CPU": 2}))
    sess.run(init)
    options = TRACED if traced else None
    losses = [sess.run(loss, feed, options=options)]  # the loss alone, then with each step
    losses += [sess.run([loss, train_op], feed, options=options)[0] for _ in range(steps)]
    return losses, sess.run(variables)


def numpy_only(monkeypatch):
    """devlab as installed with numpy alone: no numexpr fusion, no OpenVINO convolutions."""
    from devlab.ops import fast_conv
    from devlab.runtime import fusion
    monkeypatch.setattr(fusion, "numexpr_module", lambda: None)
    monkeypatch.setattr(fast_conv, "ENABLED", False)


@pytest.mark.parametrize("extras", [True, False], ids=["with-extras", "numpy-only"])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_compiled_steps_give_the_interpreted_values(name, extras, monkeypatch):
    if not extras:
        numpy_only(monkeypatch)
    losses, values = train(name, traced=False)
    want_losses, want_values = train(name, traced=True)
    np.testing.assert_allclose(losses, want_losses, rtol=1e-5, atol=1e-6)
    assert len(values) == len(want_values) > 2
    for got, want in zip(values, want_values):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert losses[-1] != losses[0]  # the steps did train


def test_the_cnn_step_places_each_tower_on_its_cpu():
    g, init, train_op, loss, feed = models.cnn_towers(tf, **SMALL["cnn"])
    sess = tf.Session(graph=g, config=tf.ConfigProto(device_count={"CPU": 2}))
    sess.run(init)
    sess.run(train_op, feed)
    conv = {op.name: sess.placement.device_of(op).name for op in g.get_operations() if op.type == "Conv2D"}
    assert sorted(conv) == ["tower_0/Conv2D", "tower_0/Conv2D_1", "tower_1/Conv2D", "tower_1/Conv2D_1"]
    assert all(d.endswith("CPU:1") == n.startswith("tower_1") for n, d in conv.items())
