"""Hostile arguments to public ``tf.*`` functions (issue 26): for each call, the error class and first
line TensorFlow gives when the op is built (or, if it builds, when it runs) and the ops left in the
graph after the failed call (TF keeps the constants it made of the arguments, never the failed op).
The same functions run under TensorFlow 2.21 (``tools/record_cases.py hostile tests/data/tf_hostile.json``
records what it does) and under devlab (``tests/test_hostile_arguments.py`` compares)."""
import numpy as np


def _first_line(e):
    lines = [l for l in str(e).splitlines() if l.strip() and not l[0].isspace()  # TF's run-time error
             and not l.startswith(("Graph execution error", "Detected at node", "Node:"))]  # says where first
    return [type(e).__name__, lines[0] if lines else ""]


def _outcome(tf, build):
    """What building, then running, ``build()`` gives: {"build": error or None, "run": error or None,
    "ops": the graph's op names after it}."""
    record = {"build": None, "run": None}
    try:
        out = build()
    except Exception as e:  # noqa: BLE001 - the class and first line are the facts
        record["build"] = _first_line(e)
    else:
        fetches = [t for t in (out if isinstance(out, (list, tuple)) else [out])]
        try:
            with tf.Session() as s:
                s.run(fetches)
        except Exception as e:  # noqa: BLE001
            record["run"] = _first_line(e)
    record["ops"] = sorted(op.name for op in tf.get_default_graph().get_operations())
    return record


def _case(build):
    def case(tf, rewrites_off=False):
        return _outcome(tf, lambda: build(tf))
    return case


HUGE = [10**6, 10**6]

CALLS = {
    # the examples of issue 26
    "argmax_of_a_scalar": lambda tf: tf.argmax(0),
    "split_into_zero": lambda tf: tf.split(4, 0),
    "squeeze_a_string_scalar": lambda tf: tf.squeeze("", axis=0),
    "pad_with_scalar_paddings": lambda tf: tf.pad(2**31, np.float32(0)),
    "expand_dims_with_empty_dim": lambda tf: tf.expand_dims(5, np.array([], "f")),
    "slice_with_string_size": lambda tf: tf.slice(-2, -2, np.array("-1")),
    "range_down_from_2_31": lambda tf: tf.range(2**31, np.float32(0)),
    "constant_none": lambda tf: tf.constant(None, None, 2**31),
    "argmax_infinite_axis": lambda tf: tf.argmax([1, 2], axis=float("inf")),
    "fill_scalar_dims": lambda tf: tf.fill(-171239814893, -1),
    "tile_scalar_multiples": lambda tf: tf.tile(-171239814893, -171239814893),
    "random_normal_scalar_shape": lambda tf: tf.random_normal(0),
    "stack_a_scalar": lambda tf: tf.stack(0),
    "zeros_of_an_empty_string": lambda tf: tf.zeros(""),
    "zeros_float_shape": lambda tf: tf.zeros([1e6, 1e6]),
    "zeros_huge": lambda tf: tf.zeros(HUGE),
    "ones_huge": lambda tf: tf.ones(HUGE),
    "fill_huge": lambda tf: tf.fill(HUGE, 1.0),
    "random_normal_huge": lambda tf: tf.random_normal(HUGE),
    "random_uniform_huge": lambda tf: tf.random_uniform(HUGE),
    "tile_huge": lambda tf: tf.tile([[1.0]], HUGE),
    "range_huge": lambda tf: tf.range(0, 10**12),
    "constant_huge": lambda tf: tf.constant(0.0, shape=HUGE),
    # ranks TF's shape functions require of the inputs
    "reshape_to_a_scalar_shape": lambda tf: tf.reshape([1], 1),
    "reshape_to_a_matrix_shape": lambda tf: tf.reshape([1], [[1]]),
    "transpose_scalar_perm": lambda tf: tf.transpose([[1]], 0),
    "concat_vector_axis": lambda tf: tf.concat([[1], [2]], [0]),
    "gather_vector_axis": lambda tf: tf.gather([1, 2], 0, axis=[0]),
    "gather_from_a_scalar": lambda tf: tf.gather(1, 0),
    "one_hot_vector_depth": lambda tf: tf.one_hot([0], [2]),
    "reduce_sum_matrix_axis": lambda tf: tf.reduce_sum([1], [[0]]),
    "reduce_mean_float_axis": lambda tf: tf.reduce_mean([1.0], 0.5),
    "range_of_a_vector": lambda tf: tf.range([1, 2]),
    "split_vector_axis": lambda tf: tf.split([1, 2], 2, axis=[0]),
    "expand_dims_matrix_dim": lambda tf: tf.expand_dims(5, [[0]]),
    "strided_slice_scalar_begin": lambda tf: tf.strided_slice([1, 2], 0, 1),
    "tile_multiples_too_long": lambda tf: tf.tile([1, 2], [1, 2]),
    "pad_vector_paddings": lambda tf: tf.pad([1, 2], [1, 2]),
    "pad_three_wide_paddings": lambda tf: tf.pad([1, 2], [[1, 2, 3]]),
    "fill_vector_value": lambda tf: tf.fill([2], [1]),
    "fill_matrix_dims": lambda tf: tf.fill([[2]], 1),
    "fill_float_dims": lambda tf: tf.fill([2.5], 1),
    "fill_negative_dims": lambda tf: tf.fill([-2], 1),
    "random_uniform_scalar_shape": lambda tf: tf.random_uniform(3),
    "truncated_normal_scalar_shape": lambda tf: tf.truncated_normal(3),
    "argmax_matrix_axis": lambda tf: tf.argmax([1, 2], [[0]]),
    "argmax_float_axis": lambda tf: tf.argmax([1, 2], 0.5),
    "argmax_of_strings": lambda tf: tf.argmax(["a"], 0),
    "matmul_scalars": lambda tf: tf.matmul(1, 2),
    "matmul_strings": lambda tf: tf.matmul([["a"]], [["b"]]),
    "add_n_nothing": lambda tf: tf.add_n([]),
    "add_n_of_a_scalar": lambda tf: tf.add_n(1),
    "cast_a_string": lambda tf: tf.cast("a", tf.float32),
    "one_hot_of_strings": lambda tf: tf.one_hot("a", 2),
    "one_hot_of_floats": lambda tf: tf.one_hot([0.5], 2),
    "squeeze_out_of_range": lambda tf: tf.squeeze([[1]], axis=5),
    "squeeze_a_string_axis": lambda tf: tf.squeeze([[1]], axis="a"),
    "unstack_a_scalar": lambda tf: tf.unstack(1),
    "where_of_strings": lambda tf: tf.where("a"),
    "identity_of_none": lambda tf: tf.identity(None),
    "concat_nothing": lambda tf: tf.concat([], 0),
    "transpose_repeated_perm": lambda tf: tf.transpose([[1, 2]], [0, 0]),
    "stack_ragged": lambda tf: tf.stack([[1], [1, 2]]),
    "reshape_string_shape": lambda tf: tf.reshape([1], "a"),
    "zeros_like_none": lambda tf: tf.zeros_like(None),
    "clip_by_value_of_strings": lambda tf: tf.clip_by_value("a", 0, 1),
    "gather_float_indices": lambda tf: tf.gather([1, 2], 0.5),
    "slice_too_long_begin": lambda tf: tf.slice([1, 2], [0, 0], [1]),
    "reduce_sum_axis_out_of_range": lambda tf: tf.reduce_sum([1], 3),
    "split_axis_out_of_range": lambda tf: tf.split([1, 2], 2, axis=4),
    "split_huge_count": lambda tf: tf.split([1, 2], 2**40),
    "expand_dims_huge_dim": lambda tf: tf.expand_dims(5, 2**40),
    "constant_nested_ragged": lambda tf: tf.constant([[1], [1, 2]]),
    "constant_int_overflow": lambda tf: tf.constant(2**70),
    "constant_shape_mismatch": lambda tf: tf.constant([1, 2, 3], shape=[2]),
    "ones_negative_shape": lambda tf: tf.ones([-3]),
    "one_hot_negative_depth": lambda tf: tf.one_hot([0], -2),
    "range_zero_delta": lambda tf: tf.range(0, 5, 0),
}

CASES = {name: _case(build) for name, build in CALLS.items()}


def case_a_failed_op_leaves_its_name_free(tf, rewrites_off=False):
    """After a failed tf.fill, the next tf.fill takes the name the failed one would have had."""
    record = _outcome(tf, lambda: tf.fill(3, 1.0))
    record["next"] = tf.fill([1], 1.0).op.name
    return record


CASES["a_failed_op_leaves_its_name_free"] = case_a_failed_op_leaves_its_name_free
