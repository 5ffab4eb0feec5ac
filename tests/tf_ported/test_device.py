# Ported from TensorFlow's tensorflow/python/framework/device_test.py
# (Copyright 2015 The TensorFlow Authors; Apache License 2.0), to run against `import devlab as tf`.
# TF's `device.merge_device`, `device.canonical_name` and `device.check_valid` live in
# devlab.framework.device_spec. TF runs testMerge for DeviceSpecV1 and V2; devlab has V1 only.
import pytest

import devlab as tf
from devlab.framework import device_spec as device


@pytest.mark.parametrize("DeviceSpec", [pytest.param(tf.DeviceSpec, id="v1")])
def test_merge(DeviceSpec):  # noqa: N803 - TF's parameter name
    d = DeviceSpec.from_string("/job:muu/task:1/device:MyFunnyDevice:2")
    assert "/job:muu/task:1/device:MyFunnyDevice:2" == d.to_string()

    if not tf.executing_eagerly():
        with tf.device(device.merge_device("/device:GPU:0")):
            var1 = tf.Variable(1.0)
            assert "/device:GPU:0" == var1.device
            with tf.device(device.merge_device("/job:worker")):
                var2 = tf.Variable(1.0)
                assert "/job:worker/device:GPU:0" == var2.device
                with tf.device(device.merge_device("/device:CPU:0")):
                    var3 = tf.Variable(1.0)
                    assert "/job:worker/device:CPU:0" == var3.device
                    with tf.device(device.merge_device("/job:ps")):
                        var4 = tf.Variable(1.0)
                        assert "/job:ps/device:CPU:0" == var4.device


def test_canonical_name():
    assert "/job:foo/replica:0" == device.canonical_name("/job:foo/replica:0")
    assert "/job:foo/replica:0" == device.canonical_name("/replica:0/job:foo")

    assert "/job:foo/replica:0/task:0" == device.canonical_name("/job:foo/replica:0/task:0")
    assert "/job:foo/replica:0/task:0" == device.canonical_name("/job:foo/task:0/replica:0")

    assert "/device:CPU:0" == device.canonical_name("/device:CPU:0")
    assert "/device:GPU:2" == device.canonical_name("/device:GPU:2")

    assert "/job:foo/replica:0/task:0/device:GPU:0" == device.canonical_name(
        "/job:foo/replica:0/task:0/device:GPU:0")
    assert "/job:foo/replica:0/task:0/device:GPU:0" == device.canonical_name(
        "/device:GPU:0/task:0/replica:0/job:foo")


def test_check_valid():
    device.check_valid("/job:foo/replica:0")

    with pytest.raises(ValueError, match="invalid literal for int"):
        device.check_valid("/job:j/replica:foo")

    with pytest.raises(ValueError, match="invalid literal for int"):
        device.check_valid("/job:j/task:bar")

    # Assume no one will register a device type named "barcpugpu"
    with pytest.raises(ValueError, match="Unknown attribute 'barcpugpu'"):
        device.check_valid("/barcpugpu:muu/baz:2")

    with pytest.raises(ValueError, match="Multiple device types are not allowed"):
        device.check_valid("/cpu:0/device:GPU:2")
