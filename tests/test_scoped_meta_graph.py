"""Part of a graph exported and copied by name scope (TF's ``export_scoped_meta_graph`` and
``copy_scoped_meta_graph``), Savers kept in the SAVERS collection through a meta graph, and
``import_meta_graph`` inside a name scope, as TF 2.21 does them."""
import os

import numpy as np
import pytest

import devlab as tf
from devlab.train import meta_graph

EXPECTED = [[5.1, 7.1, 9.1]] * 3  # relu(ones[3, 2] @ [[1, 2, 3], [4, 5, 6]] + 0.1), TF's values


def _hidden(scope="hidden1"):
    with tf.name_scope(scope):
        images = tf.constant(1.0, tf.float32, shape=[3, 2], name="images")
        weights = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], name="weights")
        biases = tf.Variable([0.1] * 3, name="biases")
        tf.nn.relu(tf.matmul(images, weights) + biases, name="relu")


def test_export_scope_keeps_the_scope_without_its_name():
    with tf.Graph().as_default():
        _hidden()
        tf.constant(0.0, name="outside")
        meta, var_list = meta_graph.export_scoped_meta_graph(export_scope="hidden1")
        assert sorted(var_list) == ["biases:0", "weights:0"]  # TF's keys: names without the scope
        names = {n["name"] for n in meta["nodes"]}
        assert "relu" in names and "weights" in names and not any(n.startswith(("hidden1", "outside")) for n in names)
        matmul = next(n for n in meta["nodes"] if n["op"] == "MatMul")
        assert matmul["inputs"] == ["images:0", "weights/read:0"]


def test_copy_scoped_meta_graph_within_and_across_graphs(tmp_path):
    path = str(tmp_path / "ckpt")
    g1 = tf.Graph()
    with g1.as_default():
        _hidden()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            _, var_list = meta_graph.export_scoped_meta_graph(export_scope="hidden1")
            tf.train.Saver(var_list).save(sess, path, write_state=False)
        with pytest.raises(ValueError, match="need to be different"):
            meta_graph.copy_scoped_meta_graph(from_scope="hidden1", to_scope="hidden1")
        copied = meta_graph.copy_scoped_meta_graph(from_scope="hidden1", to_scope="hidden2")
        assert sorted(v.op.name for v in copied.values()) == ["hidden2/biases", "hidden2/weights"]
    g2 = tf.Graph()
    with g2.as_default():
        copied = meta_graph.copy_scoped_meta_graph(from_scope="hidden1", to_scope="new_hidden1", from_graph=g1,
                                                   to_graph=g2)
        with tf.Session() as sess:
            tf.train.Saver(copied).restore(sess, path)
            np.testing.assert_allclose(sess.run("new_hidden1/relu:0"), EXPECTED, rtol=1e-6)


def test_an_input_from_outside_the_scope_is_bound_by_input_map():
    with tf.Graph().as_default():
        images = tf.constant(1.0, shape=[1, 2], name="images")
        with tf.name_scope("hidden1"):
            tf.matmul(images, tf.Variable(np.ones((2, 2), np.float32), name="w"), name="mm")
        meta, _ = meta_graph.export_scoped_meta_graph(export_scope="hidden1")
    mm = next(n for n in meta["nodes"] if n["name"] == "mm")
    assert mm["inputs"] == ["$unbound_inputs_images:0", "w/read:0"]  # TF: ['$unbound_inputs_images', 'w/read']
    with tf.Graph().as_default() as g2:
        with pytest.raises(ValueError, match=r"^Graph contains unbound inputs: \$unbound_inputs_images\. Must "
                                             r"provide these inputs through input_map\.$"):
            meta_graph.import_scoped_meta_graph(meta, import_scope="new")
        x = tf.constant(2.0, shape=[1, 2], name="x")
        var_list = meta_graph.import_scoped_meta_graph(meta, import_scope="new",
                                                       input_map={"$unbound_inputs_images": x})
        assert list(var_list) == ["w:0"] and var_list["w:0"].op.name == "new/w"
        assert [t.name for t in g2.get_operation_by_name("new/mm").inputs] == ["x:0", "new/w/read:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run("new/mm:0").tolist() == [[4.0, 4.0]]  # TF's value


def test_savers_of_the_collection_come_back_over_their_own_variables(tmp_path):
    path = str(tmp_path / "saver1.ckpt")
    graph = tf.Graph()
    with graph.as_default():
        with tf.name_scope("hidden1"):
            v1 = tf.Variable([1.0], name="variable1")
            saver1 = tf.train.Saver(var_list=[v1])
            graph.add_to_collection(tf.GraphKeys.SAVERS, saver1)
        with tf.name_scope("hidden2"):
            tf.Variable([2.0], name="variable2")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver1.save(sess, path, write_state=False)
    copy = tf.Graph()
    with copy.as_default():
        var_list = meta_graph.copy_scoped_meta_graph(from_scope="hidden1", to_scope="new_hidden1", from_graph=graph,
                                                     to_graph=copy)
        savers = copy.get_collection(tf.GraphKeys.SAVERS)
        assert len(savers) == 1 and savers[0].saver_def.restore_op_name == "new_hidden1/save/restore_all"
        with tf.Session() as sess:  # the copy's Saver restores the entry hidden1/variable1 into the copy
            savers[0].restore(sess, path)
            assert sess.run(var_list["variable1:0"]).tolist() == [1.0]


def test_import_meta_graph_inside_a_name_scope(tmp_path):
    path = str(tmp_path / "model")
    with tf.Graph().as_default():
        w = tf.Variable(2.0, name="w")
        tf.multiply(w, 3.0, name="out")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(w.initializer)
            saver.save(sess, path)
    graph = tf.Graph()
    with tf.Session(graph=graph) as sess:
        with tf.name_scope("new_model"):  # TF: no import_scope, so the names go under the current scope
            new_saver = tf.train.import_meta_graph(path + ".meta")
        new_saver.restore(sess, path)
        assert sess.run("new_model/out:0") == 6.0


def test_export_meta_graph_writes_the_nodes_of_a_given_graph_def():
    with tf.Graph().as_default() as g:
        _hidden()
        graph_def = g.as_graph_def()
        tf.constant(0.0, name="hidden1/later")  # not in graph_def: TF writes graph_def's nodes only
        meta, var_list = meta_graph.export_scoped_meta_graph(graph_def=graph_def, export_scope="hidden1")
        names = {n["name"] for n in meta["nodes"]}
        assert "relu" in names and "later" not in names
        assert sorted(var_list) == ["biases:0", "weights:0"]
