"""A traced run's node stats list each array output with its buffer (TF's ``NodeOutput``:
``tensor_description.allocation_description.ptr``), so a learner can see buffers reused and
forwarded: TF's testBufferForwarding expects a 1000-iteration loop to use fewer than 756
distinct buffers."""
import devlab as tf


def test_node_stats_describe_each_output_and_its_buffer():
    with tf.device("/cpu:0"):
        c = tf.constant(2)
        r = tf.while_loop(lambda i: i < 1000, lambda i: tf.square(c) + i, [tf.constant(0)])
    md = tf.RunMetadata()
    with tf.Session() as sess:
        assert sess.run(r, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=md) == 1000
    stats = md.step_stats.dev_stats[0].node_stats
    outputs = [o for n in stats for o in n.output]
    assert len(outputs) > 1000
    square = next(n for n in stats if n.op == "Square")
    description = square.output[0].tensor_description
    assert (square.output[0].slot, description.dtype, description.shape) == (0, "int32", ())
    assert description.allocation_description.requested_bytes == 4 and description.allocation_description.ptr > 0
    assert len({o.tensor_description.allocation_description.ptr for o in outputs}) < 756
