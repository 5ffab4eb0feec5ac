# Ported from TensorFlow's tensorflow/python/framework/device_spec_test.py
# (Copyright 2019 The TensorFlow Authors; Apache License 2.0), to run against `import devlab as tf`.
# TF runs most cases for DeviceSpecV1 and DeviceSpecV2; devlab's tf.DeviceSpec is
# tf.compat.v1.DeviceSpec (V1), so the cases run once, for it. See README.md for what is left out.
import pytest

import devlab as tf

DeviceSpecV1 = tf.DeviceSpec
TEST_V1 = [pytest.param(tf.DeviceSpec, id="v1")]


@pytest.mark.parametrize("device_spec_type", TEST_V1)
def test_empty(device_spec_type):
    d = device_spec_type()
    assert "" == d.to_string()
    d.parse_from_string("")
    assert "" == d.to_string()


@pytest.mark.parametrize("device_spec_type", TEST_V1)
def test_constructor(device_spec_type):
    d = device_spec_type(job="j", replica=0, task=1, device_type="CPU", device_index=2)
    assert "j" == d.job
    assert 0 == d.replica
    assert 1 == d.task
    assert "CPU" == d.device_type
    assert 2 == d.device_index
    assert "/job:j/replica:0/task:1/device:CPU:2" == d.to_string()

    d = device_spec_type(device_type="GPU", device_index=0)
    assert "/device:GPU:0" == d.to_string()


def test_to_string_legacy():
    """DeviceSpecV1 allows direct mutation."""
    d = DeviceSpecV1()
    d.job = "foo"
    assert "/job:foo" == d.to_string()
    d.task = 3
    assert "/job:foo/task:3" == d.to_string()
    d.device_type = "CPU"
    d.device_index = 0
    assert "/job:foo/task:3/device:CPU:0" == d.to_string()
    d.task = None
    d.replica = 12
    assert "/job:foo/replica:12/device:CPU:0" == d.to_string()
    d.device_type = "GPU"
    d.device_index = 2
    assert "/job:foo/replica:12/device:GPU:2" == d.to_string()
    d.device_type = "CPU"
    d.device_index = 1
    assert "/job:foo/replica:12/device:CPU:1" == d.to_string()
    d.device_type = None
    d.device_index = None
    assert "/job:foo/replica:12" == d.to_string()

    # Test wildcard
    d = DeviceSpecV1(job="foo", replica=12, task=3, device_type="GPU")
    assert "/job:foo/replica:12/task:3/device:GPU:*" == d.to_string()


@pytest.mark.parametrize("device_spec_type", TEST_V1)
def test_replace(device_spec_type):
    d = device_spec_type()
    d = d.replace(job="foo")
    assert "/job:foo" == d.to_string()

    d = d.replace(task=3)
    assert "/job:foo/task:3" == d.to_string()

    d = d.replace(device_type="CPU", device_index=0)
    assert "/job:foo/task:3/device:CPU:0" == d.to_string()

    d = d.replace(task=None, replica=12)
    assert "/job:foo/replica:12/device:CPU:0" == d.to_string()

    d = d.replace(device_type="GPU", device_index=2)
    assert "/job:foo/replica:12/device:GPU:2" == d.to_string()

    d = d.replace(device_type="CPU", device_index=1)
    assert "/job:foo/replica:12/device:CPU:1" == d.to_string()

    d = d.replace(device_type=None, device_index=None)
    assert "/job:foo/replica:12" == d.to_string()

    # Test wildcard
    d = DeviceSpecV1(job="foo", replica=12, task=3, device_type="GPU")
    assert "/job:foo/replica:12/task:3/device:GPU:*" == d.to_string()


@pytest.mark.parametrize("device_spec_type", TEST_V1)
def test_to_string(device_spec_type):
    d = device_spec_type(job="foo")
    assert "/job:foo" == d.to_string()

    d = device_spec_type(job="foo", task=3)
    assert "/job:foo/task:3" == d.to_string()

    d = device_spec_type(job="foo", task=3, device_type="cpu", device_index=0)
    assert "/job:foo/task:3/device:CPU:0" == d.to_string()

    d = device_spec_type(job="foo", replica=12, device_type="cpu", device_index=0)
    assert "/job:foo/replica:12/device:CPU:0" == d.to_string()

    d = device_spec_type(job="foo", replica=12, device_type="gpu", device_index=2)
    assert "/job:foo/replica:12/device:GPU:2" == d.to_string()

    d = device_spec_type(job="foo", replica=12)
    assert "/job:foo/replica:12" == d.to_string()

    # Test wildcard
    d = device_spec_type(job="foo", replica=12, task=3, device_type="GPU")
    assert "/job:foo/replica:12/task:3/device:GPU:*" == d.to_string()


def test_parse_legacy():
    d = DeviceSpecV1()
    d.parse_from_string("/job:foo/replica:0")
    assert "/job:foo/replica:0" == d.to_string()

    d.parse_from_string("/replica:1/task:0/cpu:0")
    assert "/replica:1/task:0/device:CPU:0" == d.to_string()

    d.parse_from_string("/replica:1/task:0/device:CPU:0")
    assert "/replica:1/task:0/device:CPU:0" == d.to_string()

    d.parse_from_string("/job:muu/device:GPU:2")
    assert "/job:muu/device:GPU:2" == d.to_string()

    with pytest.raises(ValueError, match="Multiple device types are not allowed"):
        d.parse_from_string("/job:muu/device:GPU:2/cpu:0")


@pytest.mark.parametrize("device_spec_type", TEST_V1)
def test_to_from_string(device_spec_type):
    d = device_spec_type.from_string("/job:foo/replica:0")
    assert "/job:foo/replica:0" == d.to_string()
    assert 0 == d.replica

    d = device_spec_type.from_string("/replica:1/task:0/cpu:0")
    assert "/replica:1/task:0/device:CPU:0" == d.to_string()
    assert [1, 0, "CPU", 0] == [d.replica, d.task, d.device_type, d.device_index]

    d = device_spec_type.from_string("/replica:1/task:0/device:CPU:0")
    assert "/replica:1/task:0/device:CPU:0" == d.to_string()
    assert [1, 0, "CPU", 0] == [d.replica, d.task, d.device_type, d.device_index]

    d = device_spec_type.from_string("/job:muu/device:GPU:2")
    assert "/job:muu/device:GPU:2" == d.to_string()
    assert ["muu", "GPU", 2] == [d.job, d.device_type, d.device_index]

    with pytest.raises(ValueError, match="Multiple device types are not allowed"):
        d.parse_from_string("/job:muu/device:GPU:2/cpu:0")


def test_merge_legacy():
    d = DeviceSpecV1.from_string("/job:foo/replica:0")
    assert "/job:foo/replica:0" == d.to_string()

    d.merge_from(DeviceSpecV1.from_string("/task:1/device:GPU:2"))
    assert "/job:foo/replica:0/task:1/device:GPU:2" == d.to_string()

    d = DeviceSpecV1()
    d.merge_from(DeviceSpecV1.from_string("/task:1/cpu:0"))
    assert "/task:1/device:CPU:0" == d.to_string()

    d.merge_from(DeviceSpecV1.from_string("/job:boo/device:GPU:0"))
    assert "/job:boo/task:1/device:GPU:0" == d.to_string()

    d.merge_from(DeviceSpecV1.from_string("/job:muu/cpu:2"))
    assert "/job:muu/task:1/device:CPU:2" == d.to_string()
    d.merge_from(DeviceSpecV1.from_string("/job:muu/device:MyFunnyDevice:2"))
    assert "/job:muu/task:1/device:MyFunnyDevice:2" == d.to_string()


@pytest.mark.parametrize("device_spec_type", TEST_V1)
def test_combine(device_spec_type):
    d = device_spec_type.from_string("/job:foo/replica:0")
    assert "/job:foo/replica:0" == d.to_string()

    d = d.make_merged_spec(device_spec_type.from_string("/task:1/device:GPU:2"))
    assert "/job:foo/replica:0/task:1/device:GPU:2" == d.to_string()

    d = device_spec_type()
    d = d.make_merged_spec(device_spec_type.from_string("/task:1/cpu:0"))
    assert "/task:1/device:CPU:0" == d.to_string()

    d = d.make_merged_spec(device_spec_type.from_string("/job:boo/device:GPU:0"))
    assert "/job:boo/task:1/device:GPU:0" == d.to_string()

    d = d.make_merged_spec(device_spec_type.from_string("/job:muu/cpu:2"))
    assert "/job:muu/task:1/device:CPU:2" == d.to_string()
    d = d.make_merged_spec(device_spec_type.from_string("/job:muu/device:MyFunnyDevice:2"))
    assert "/job:muu/task:1/device:MyFunnyDevice:2" == d.to_string()
