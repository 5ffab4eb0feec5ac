"""Between-graph replication in one process: each worker a client with its own graph and session,
sharing the ps tasks' state (runtime/server_state.py), against TF 2.21's recorded runs of the same
programs (tests/cases/between_graph_cases.py, tools/record_between_graph.py)."""
import itertools
import json
import os
import sys

import numpy as np
import pytest

import devlab as tf

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "cases"))
import between_graph_cases as cases  # noqa: E402

with open(os.path.join(HERE, "data", "tf_between_graph.json")) as f:
    RECORDED = json.load(f)

_ports = itertools.count(31000)


def addresses(n):
    """Fresh addresses: a task's state lives as long as the process, as a server's does."""
    return [f"localhost:{next(_ports)}" for _ in range(n)]


def test_two_clients_share_the_ps_as_tensorflow():
    assert cases.two_clients(tf, addresses) == RECORDED["two_clients"]


def test_a_non_chief_waits_until_the_chief_initialises():
    assert cases.waiting_worker(tf, addresses) == RECORDED["waiting_worker"]


def test_a_plain_session_keeps_its_own_variables():
    """Only a server's tasks are shared: two sessions on the local target are strangers."""
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(1.0, name="v")
    s0, s1 = tf.Session(graph=g), tf.Session(graph=g)
    s0.run(v.initializer)
    with pytest.raises(tf.errors.FailedPreconditionError):
        s1.run(v)


def test_reset_names_its_containers():
    w, _ = cases.cluster(tf, addresses, 1, 1)
    g = tf.Graph()
    with g.as_default(), tf.device("/job:ps/task:0"):
        v = tf.Variable(2.0, name="v")
    s = tf.Session(w[0].target, graph=g)
    s.run(v.initializer)
    tf.Session.reset(w[0].target, containers=["other"])  # not the default container: v stays
    with pytest.raises(tf.errors.AbortedError):  # but the sessions on the target are closed
        s.run(v)
    assert tf.Session(w[0].target, graph=g).run(v) == 2.0
    tf.Session.reset("")  # TF resets nothing for the local target, and says nothing


def _close(a, b):
    """Recorded and devlab values agree to float32 rounding, structure for structure."""
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return np.isclose(a, b, rtol=1e-6, atol=1e-6)
    return a == b


def test_sync_replicas_two_workers_as_tensorflows_test2Workers():
    got = cases.sync_two_workers(tf, addresses)
    want = RECORDED["sync_two_workers"]
    assert got.keys() == want.keys()
    for key in want:
        assert _close(want[key], got[key]), (key, want[key], got[key])


def test_an_mnist_replica_style_program_finishes_with_tensorflows_model():
    got = cases.replica_program(tf, addresses)
    want = RECORDED["replica_program"]
    assert got["errors"] == [] and got["finished"] and got["step"] == want["step"]
    for key in ("w", "b", "loss"):
        assert _close(want[key], got[key]), (key, want[key], got[key])




# cases.supervisor_program (mnist_replica.py --sync_replicas with two Supervisors) is recorded but not
# asserted: it races in TF too (a non-chief still waiting for tokens after the chief stopped hangs
# TF's own runs now and then), and devlab reproduced the race in about 1 run of 6.
# Supervisor.start_queue_runners itself is tested in test_variable_api.py.
