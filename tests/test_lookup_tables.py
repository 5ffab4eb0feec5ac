"""Mutable hash tables (``MutableHashTableV2`` and the ``LookupTable*V2`` ops) and a table saved
by a Saver through a ``SaveableObject``, with the values and messages TF 2.21 gives."""
import os

import numpy as np
import pytest

import devlab as tf
from devlab.api import gen_lookup_ops
from devlab.train.saver import BaseSaverBuilder


def _table(name="t"):
    return gen_lookup_ops.mutable_hash_table_v2(key_dtype=tf.string, value_dtype=tf.float32, name=name)


def test_insert_find_export_import_size_as_tf():
    with tf.Graph().as_default():
        t = _table()
        insert = gen_lookup_ops.lookup_table_insert_v2(t, ["a", "b"], [1.0, 2.0])
        find = gen_lookup_ops.lookup_table_find_v2(t, [["a", "c"]], -1.0)
        keys, values = gen_lookup_ops.lookup_table_export_v2(t, tf.string, tf.float32)
        size = gen_lookup_ops.lookup_table_size_v2(t)
        replace = gen_lookup_ops.lookup_table_import_v2(t, ["z"], [9.0])
        # TF's graph: Consts named after the argument, the dtypes as Tin/Tout, the shapes TF infers
        assert [i.name for i in insert.inputs] == ["t:0", "LookupTableInsertV2/keys:0", "LookupTableInsertV2/values:0"]
        assert (insert.attrs["Tin"], insert.attrs["Tout"]) == (tf.string, tf.float32)
        assert find.shape.as_list() == [1, 2] and size.dtype == tf.int64 and keys.shape.ndims is None
        with tf.Session() as sess:
            sess.run(insert)
            found, k, v, n = sess.run([find, keys, values, size])
            np.testing.assert_array_equal(found, [[1.0, -1.0]])  # TF: [[1., -1.]]
            assert dict(zip(k.tolist(), v.tolist())) == {b"a": 1.0, b"b": 2.0} and n == 2
            sess.run(replace)  # an import replaces the whole contents
            found, k, v, n = sess.run([find, keys, values, size])
            np.testing.assert_array_equal(found, [[-1.0, -1.0]])
            assert k.tolist() == [b"z"] and v.tolist() == [9.0] and n == 1
        with tf.Session() as sess:  # a new session has a new, empty table
            assert sess.run(size) == 0


def test_bad_shapes_are_tf_errors():
    with tf.Graph().as_default():
        t = _table()
        bad_insert = gen_lookup_ops.lookup_table_insert_v2(t, ["a", "b"], [1.0, 2.0, 3.0])
        bad_default = gen_lookup_ops.lookup_table_find_v2(t, ["a"], [1.0, 2.0])
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected shape \[2\] for value, got \[3\]"):
                sess.run(bad_insert)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Expected shape \[\] or \[1\] for default value, got \[2\]"):
                sess.run(bad_default)
            assert sess.run(gen_lookup_ops.lookup_table_size_v2(t)) == 0  # nothing was inserted


class _TableSaveable(BaseSaverBuilder.SaveableObject):
    """A table saved as two entries, NAME-keys and NAME-values (TF's saver_test_utils.CheckpointedOp)."""

    def __init__(self, table, name):
        keys, values = gen_lookup_ops.lookup_table_export_v2(table, tf.string, tf.float32)
        specs = [BaseSaverBuilder.SaveSpec(keys, "", name + "-keys"),
                 BaseSaverBuilder.SaveSpec(values, "", name + "-values")]
        super().__init__(table, specs, name)

    def restore(self, restored_tensors, restored_shapes):
        return gen_lookup_ops.lookup_table_import_v2(self.op, restored_tensors[0], restored_tensors[1])


def test_saver_saves_and_restores_a_saveable_object(tmp_path):
    path = os.path.join(tmp_path, "ckpt")
    with tf.Graph().as_default():
        v = tf.Variable(10.0, name="v")
        t = _table("table")
        saveable = _TableSaveable(t, "table")
        tf.add_to_collection(tf.GraphKeys.SAVEABLE_OBJECTS, saveable)
        saver = tf.train.Saver()  # TF's default: global variables and the SAVEABLE_OBJECTS collection
        with tf.Session() as sess:
            sess.run([v.initializer, gen_lookup_ops.lookup_table_insert_v2(t, ["k1"], [30.0])])
            assert saver.save(sess, path) == path
    with tf.Graph().as_default():
        v = tf.Variable(-1.0, name="v")
        t = _table("table")
        saver = tf.train.Saver({"v": v, "table": _TableSaveable(t, "table")})
        export = gen_lookup_ops.lookup_table_export_v2(t, tf.string, tf.float32)
        with tf.Session() as sess:
            sess.run(gen_lookup_ops.lookup_table_insert_v2(t, ["k1000"], [3000.0]))
            saver.restore(sess, path)
            keys, values = sess.run(export)
            assert (sess.run(v), keys.tolist(), values.tolist()) == (10.0, [b"k1"], [30.0])


def test_one_saveable_under_two_names_is_tf_error():
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v0")
        saveable = _TableSaveable(_table("v2"), "v2")
        with pytest.raises(ValueError, match="^The same saveable will be restored with two names: v0too$"):
            tf.train.Saver({"v0": v, "v0too": v})
        with pytest.raises(ValueError, match="The same saveable will be restored with two names: v2"):
            tf.train.Saver({"v2": saveable, "v2too": saveable})
        tf.train.Saver({"v0": v, "v2": saveable})


def test_remove_drops_keys_and_ignores_missing_ones():
    with tf.Graph().as_default():
        t = _table()
        insert = gen_lookup_ops.lookup_table_insert_v2(t, ["a", "b", "c"], [1.0, 2.0, 3.0])
        remove = gen_lookup_ops.lookup_table_remove_v2(t, ["b", "zz"])
        find = gen_lookup_ops.lookup_table_find_v2(t, ["a", "b", "c"], -1.0)
        with tf.Session() as sess:
            sess.run(insert)
            sess.run(remove)
            found, size = sess.run([find, gen_lookup_ops.lookup_table_size_v2(t)])
            assert found.tolist() == [1.0, -1.0, 3.0] and size == 2  # TF: [1., -1., 3.], 2
