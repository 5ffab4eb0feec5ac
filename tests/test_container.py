"""``tf.container`` / ``Graph.container``: the resource container of the stateful ops built inside,
as their ``container`` attr (bytes, as TF's ``get_attr`` gives it), and the resource manager
keeping their resources apart by it. Expected attrs are TensorFlow 2.21's (``tf.compat.v1``)."""
import devlab as tf
from devlab.ops.resource_mgr import ResourceMgr


def test_container_scopes_name_the_container_of_stateful_ops():
    with tf.Graph().as_default() as g:
        outside = tf.Variable(2.0)
        with tf.container("c") as name:
            v = tf.Variable(1.0)
            q = tf.FIFOQueue(2, tf.float32)
            r = tf.Variable(1.0, use_resource=True)
            w = tf.get_variable("w", [1])
            with g.container("inner"):
                inner = tf.Variable(3.0)
            c = tf.constant(1.0)
        after = tf.Variable(4.0)
    assert name == "c"
    assert [x.op.get_attr("container") for x in (v, w, after, outside, inner)] == [b"c", b"c", b"", b"", b"inner"]
    assert q.queue_ref.op.get_attr("container") == b"c" and r.handle.op.get_attr("container") == b"c"
    assert v.op.get_attr("shared_name") in ("", b"") and "container" not in c.op.attrs


def test_queues_in_a_container_run():
    with tf.Graph().as_default():
        with tf.container("experiment0"):
            q = tf.FIFOQueue(2, tf.float32)
            enqueue = q.enqueue(5.0)
            dequeue = q.dequeue()
        with tf.Session() as sess:
            sess.run(enqueue)
            assert sess.run(dequeue) == 5.0


def test_resource_manager_keeps_containers_apart_whatever_the_attr_type():
    mgr = ResourceMgr("/job:localhost/replica:0/task:0/device:CPU:0")
    _, a = mgr.lookup_or_create("s", b"c1", "q", "node", lambda name: object())
    _, b = mgr.lookup_or_create("s", "c1", "q", "node", lambda name: object())
    handle, c = mgr.lookup_or_create("s", b"c2", "q", "node", lambda name: object())
    assert a is b and a is not c and handle.container == "c2"
