"""tf.cond and tf.while_loop: the graphs, placements and values TensorFlow 2.21 recorded for the
same programs (tests/cases/control_flow_cases.py; tools/record_cases.py control_flow records them),
DEAD values, loop frames, the errors TF gives, and the stepper walking a loop's iterations."""
import pathlib
import sys

import pytest

import devlab as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent / "cases"))
from recorded import compare, load  # noqa: E402

CASES, RECORDED = load("control_flow", "tf_control_flow.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_placement_and_values_match_tensorflow(name):
    compare(tf, CASES[name], RECORDED[name])


def test_only_the_branch_taken_runs():
    x = tf.placeholder(tf.float32, [], name="x")
    v = tf.Variable(0.0, name="v")
    r = tf.cond(x > 0, lambda: v.assign_add(1.0), lambda: v.assign_add(-100.0))
    sess = tf.Session()
    sess.run(v.initializer)
    sess.run(r, {x: 1.0})
    sess.run(r, {x: 2.0})
    assert sess.run(v) == 2.0


def test_ops_inside_a_branch_or_loop_cannot_be_fetched_or_fed():
    x = tf.placeholder(tf.float32, [2], name="x")
    tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0, lambda: x - 1.0)
    out = tf.while_loop(lambda v: tf.reduce_sum(v) < 10.0, lambda v: v * 2.0, [x])
    sess = tf.Session()
    with pytest.raises(tf.errors.InaccessibleTensorError, match="Operation cond/mul has been marked as not fetchable"):
        sess.run("cond/mul:0", {x: [1.0, 2.0]})
    with pytest.raises(ValueError, match="Tensor while/Enter:0 may not be fed"):
        sess.run(out, {x: [1.0, 2.0], "while/Enter:0": [1.0, 1.0]})
    assert sess.run("cond/Merge:1", {x: [1.0, 2.0]}) == 1  # a Merge is outside both branches


def test_the_body_may_not_change_a_loop_variables_shape():
    with pytest.raises(ValueError, match=r"Input tensor 'Const:0' enters the loop with shape \(1,\), but has shape "
                                         r"\(2,\) after one iteration"):
        tf.while_loop(lambda v: True, lambda v: tf.concat([v, v], 0), [tf.constant([1.0])])


def test_shape_invariants_let_a_loop_variable_grow():
    v = tf.while_loop(lambda v: tf.size(v) < 8, lambda v: tf.concat([v, v], 0), [tf.constant([1.0])],
                      shape_invariants=[tf.TensorShape([None])])
    assert v.shape.as_list() == [None]
    assert tf.Session().run(v).tolist() == [1.0] * 8


def test_stepper_walks_each_iteration_of_a_loop():
    i = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant(0)], name="count")
    sess = tf.Session()
    stepper = sess.stepper(i)
    seen = []
    while not stepper.done:
        view = stepper.next()
        if view.name == "count/add":
            value = view.outputs[0][1]
            seen.append((view.iteration, "dead" if value is tf.ops.kernels.DEAD else int(value)))
    assert seen == [((0,), 1), ((1,), 2), ((2,), 3), ((3,), "dead")]  # the last pass only reaches Exit
    assert stepper.finish() == 3
    stepper.back()  # replays from the start up to the step before the last one
    assert not stepper.done


def test_a_loop_inside_a_branch_not_taken_never_runs_its_body():
    p = tf.placeholder(tf.bool, [], name="p")
    v = tf.Variable(0.0, name="v")

    def loop():
        return tf.while_loop(lambda k: k < 3, lambda k: k + tf.cast(tf.is_variable_initialized(v), tf.int32),
                             [tf.constant(0)])
    r = tf.cond(p, loop, lambda: tf.constant(-1))
    sess = tf.Session()
    assert sess.run(r, {p: False}) == -1  # v is not initialised: the body would never finish
    sess.run(v.initializer)
    assert sess.run(r, {p: True}) == 3


def test_traced_loops_record_every_iteration():
    out = tf.while_loop(lambda v: v < 40.0, lambda v: v * 2.0, [tf.constant(5.0)], name="grow")
    sess = tf.Session()
    md = tf.RunMetadata()
    assert sess.run(out, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=md) == 40.0
    muls = [n for d in md.step_stats.dev_stats for n in d.node_stats if n.node_name == "grow/mul"]
    assert len(muls) == 4  # 5 -> 10 -> 20 -> 40, then the condition fails and the body is DEAD
    executed = [n for d in md.step_stats.dev_stats for n in d.node_stats if n.node_name == "grow/Exit"]
    assert len(executed) == 4


def test_cond_errors_match_tensorflow():
    with pytest.raises(TypeError, match="true_fn must be callable."):
        tf.cond(tf.constant(True), 1.0, lambda: 2.0)
    # TF 2.21 compares the branches' results with nest.assert_same_structure, in its words
    with pytest.raises(ValueError, match="The two structures don't have the same nested structure.\n\n"
                                         "First structure: type=tuple"):
        tf.cond(tf.constant(True), lambda: (tf.constant(1.0), tf.constant(2.0)), lambda: tf.constant(2.0))
    with pytest.raises(TypeError, match="'pred' must not be a Python bool."):
        tf.cond(False, lambda: tf.constant(1), lambda: tf.constant(2))
    with pytest.raises(ValueError, match="Outputs of 'true_fn' and 'false_fn' must have the same type\\(s\\). "
                                         "Received int32 from 'true_fn' and float32 from 'false_fn'."):
        tf.cond(tf.constant(True), lambda: tf.constant(1), lambda: tf.constant(2.0))
    with pytest.raises(ValueError, match="No loop variables provided"):
        tf.while_loop(lambda: True, lambda: (), [])
    with pytest.raises(ValueError, match="More specifically: The two structures don't have the same number of "
                                         "elements. First structure: type=list str=\\[<tf.Tensor 'while_1/Identity:0'"):
        tf.while_loop(lambda v: v < 3, lambda v: (v, v), [tf.constant(0)])
