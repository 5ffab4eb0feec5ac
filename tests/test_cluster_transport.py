"""What a cluster step costs its task processes, asserted as behaviour (not timed: benchmarks/
bench_cluster.py times it): the tensors a step moves reuse the last step's memory.
"""
import os
import resource
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import devlab as tf

FAULTS_OF_256K_BUFFERS = textwrap.dedent("""
    import resource, numpy as np
    from devlab.cluster import heap

    def faults():
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for _ in range(100):  # a 256 KiB tensor made, written and freed, as a task's step does
            a = np.empty(65536, np.float32)
            a.fill(1.0)
            del a
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

    print(faults(), heap.keep_freed_buffers(), faults())
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc thresholds (heap.py)")
def test_a_task_process_keeps_freed_buffers_where_dask_sets_the_trim_threshold():
    # what Dask's nanny starts its workers with (with BLAS's own threads, the count varies)
    env = dict(os.environ, MALLOC_TRIM_THRESHOLD_="65536", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", FAULTS_OF_256K_BUFFERS], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    before, applied, after = int(out[0]), out[1], int(out[2])
    assert applied == "True"
    # Without it, each buffer usually faults its 64 pages in (a run now and then reuses them anyway,
    # so the first count is only an upper bound for the second); with it, the same memory is reused.
    assert after < 100 * 2 and after <= before


@pytest.fixture(scope="module")
def spec():
    pytest.importorskip("distributed")
    import devlab.cluster
    spec = devlab.cluster.local(ps=1, worker=1, dashboard=False, verbose=False)
    yield spec
    spec.close()


def step_program():
    """The issue's step: a 256x256 variable on the ps, its gradient from a 32-row product on the worker."""
    with tf.device("/job:ps/task:0"):
        w = tf.Variable(tf.zeros([256, 256]), name="w")
    with tf.device("/job:worker/task:0"):
        x = tf.constant(np.random.default_rng(0).standard_normal((32, 256)).astype(np.float32))
        grad = tf.gradients(tf.reduce_sum(tf.matmul(x, w)), [w])[0]
    with tf.device("/job:ps/task:0"):
        train = tf.train.GradientDescentOptimizer(0.001).apply_gradients([(grad, w)])
    return x, w, train


def minor_faults(spec):
    """{task: page faults so far} of each task's process."""
    import devlab.cluster
    infos = devlab.cluster.tasks(spec)
    found = spec.backend.client.run(resource.getrusage, resource.RUSAGE_SELF, workers=[i.address for i in infos])
    return {i.task: found[i.address].ru_minflt for i in infos}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc thresholds (heap.py)")
def test_the_issues_step_moves_its_tensors_without_faulting_in_new_memory(spec):
    with tf.Graph().as_default():
        x, w, train = step_program()
        with tf.Session(tf.train.Server(spec, job_name="worker", task_index=0).target) as sess:
            sess.run(w.initializer)
            for _ in range(5):
                sess.run(train)
            before = minor_faults(spec)
            for _ in range(40):
                sess.run(train)
            after = minor_faults(spec)
            x_value = sess.run(x)
            expected = -0.001 * 45 * np.repeat(x_value.sum(axis=0)[:, None], 256, axis=1)
            np.testing.assert_allclose(sess.run(w), expected, rtol=1e-4)
    # each step makes three 256 KiB buffers (64 pages each): the gradient and w's new value on
    # the ps, w's copy on the worker; fresh mappings faulted 130 and 65 pages in per step
    for task in before:
        assert (after[task] - before[task]) / 40 < 16, (task, after[task] - before[task])
