"""Time limits and cancellation of a run that waits (a dequeue from an empty queue), in one
process. ``case(tf)`` works with TensorFlow's ``tf.compat.v1`` and with devlab and returns what
the program saw: error classes, their first line, and the values after."""
import threading
import time

JOIN_SECONDS = 30


def _outcome(tf, fn):
    start = time.monotonic()
    try:
        value = fn()
    except tf.errors.OpError as e:
        return {"error": type(e).__name__, "message": _first_line(str(e)), "fast": time.monotonic() - start < 10}
    return {"value": value.tolist() if hasattr(value, "tolist") else value}


def _first_line(text):
    """The line that says what went wrong (TF 2.x puts "Graph execution error:" and where the
    node was defined before it)."""
    for line in text.splitlines():
        line = line.strip()
        if line and line != "Graph execution error:" and not line.startswith(("Detected at", "Node:", "File ")):
            return line
    return ""


def _graph(tf):
    g = tf.Graph()
    with g.as_default():
        q = tf.FIFOQueue(4, tf.float32, shapes=[], name="q")
        v = tf.Variable(0.0, name="v")
        other = tf.Variable(0.0, name="other")
        take = q.dequeue()
        # a run that writes a variable and waits for the queue: TF runs the write first
        with tf.control_dependencies([other.assign_add(1.0)]):
            take_after_write = q.dequeue()
        put = q.enqueue([7.0])
        close = q.close(cancel_pending_enqueues=True)
        init = tf.global_variables_initializer()
    return g, dict(take=take, take_after_write=take_after_write, put=put, v=v, other=other, init=init,
                   close=close, size=q.size())


def run_timeout(tf):
    """``RunOptions(timeout_in_ms=...)``: DeadlineExceededError, then the queue works as before."""
    g, t = _graph(tf)
    sess = tf.Session(graph=g)
    sess.run(t["init"])
    out = {"timeout": _outcome(tf, lambda: sess.run(t["take"], options=tf.RunOptions(timeout_in_ms=200)))}
    out["timeout_after_write"] = _outcome(
        tf, lambda: sess.run(t["take_after_write"], options=tf.RunOptions(timeout_in_ms=200)))
    out["other_after"] = float(sess.run(t["other"]))
    sess.run(t["put"])
    out["then"] = _outcome(tf, lambda: sess.run(t["take"], options=tf.RunOptions(timeout_in_ms=200)))
    out["size"] = int(sess.run(t["size"]))
    sess.close()
    return out


def config_timeout(tf):
    """``ConfigProto(operation_timeout_in_ms=...)``: every run of the session has that limit."""
    g, t = _graph(tf)
    sess = tf.Session(graph=g, config=tf.ConfigProto(operation_timeout_in_ms=200))
    sess.run(t["init"])
    out = {"timeout": _outcome(tf, lambda: sess.run(t["take"]))}
    # a run's own timeout wins over the session's
    sess.run(t["put"])
    out["with_put"] = _outcome(tf, lambda: sess.run(t["take"]))
    sess.close()
    return out


def close_cancels(tf):
    """``sess.close()`` from another thread ends a run waiting in a dequeue with CancelledError."""
    g, t = _graph(tf)
    sess = tf.Session(graph=g)
    sess.run(t["init"])
    got = {}

    def waiter():
        got["outcome"] = _outcome(tf, lambda: sess.run(t["take"]))

    th = threading.Thread(target=waiter, daemon=True)
    th.start()
    time.sleep(0.5)
    sess.close()
    th.join(JOIN_SECONDS)
    return {"finished": not th.is_alive(), **got}
