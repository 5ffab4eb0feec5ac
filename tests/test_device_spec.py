"""DeviceSpec parsing, printing, merging and TF's errors for malformed strings."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

import devlab as tf
from devlab.framework.device_spec import DeviceSpec, canonical_name, merge_device


@pytest.mark.parametrize("text,want", [
    ("/gpu:0", "/device:GPU:0"), ("/cpu:0", "/device:CPU:0"), ("GPU:1", "/device:GPU:1"),
    ("/Gpu:1", "/device:GPU:1"), ("gpu", "/device:GPU:*"), ("/CPU", "/device:CPU:*"), ("/cpu:*", "/device:CPU:*"),
    ("job:ps/task:3", "/job:ps/task:3"), ("/replica:1/job:foo", "/job:foo/replica:1"),
    ("/device:GPU:0/task:0/replica:0/job:foo", "/job:foo/replica:0/task:0/device:GPU:0"),
    ("/device:MyFunnyDevice:2", "/device:MyFunnyDevice:2"), ("", ""), ("/device:gpu:0", "/device:GPU:0"),
    ("/job:w/replica:0/task:1/device:GPU:0", "/job:w/replica:0/task:1/device:GPU:0"),
])
def test_parse_to_canonical_string(text, want):
    assert canonical_name(text) == want


def test_constructor_fields():
    spec = DeviceSpec(job="worker", replica=2, task=0, device_type="CPU", device_index=3)
    assert spec.to_string() == "/job:worker/replica:2/task:0/device:CPU:3"
    assert DeviceSpec(device_type="Gpu").to_string() == "/device:Gpu:*"


@pytest.mark.parametrize("text,message", [
    ("/job:j/replica:foo", "invalid literal for int() with base 10: 'foo'"),
    ("/task:bar", "invalid literal for int() with base 10: 'bar'"),
    ("/gpu:a", "invalid literal for int() with base 10: 'a'"),
    ("/cpu:0/device:GPU:2", "Multiple device types are not allowed"),
    ("/device:CPU", "Unknown attribute 'device'"),
    ("/job:foo/bar", "Unknown attribute 'bar'"),
    ("/job:a:b", "Unknown attribute 'job'"),
])
def test_malformed_strings_raise_tf_value_errors(text, message):
    with pytest.raises(ValueError) as e:
        DeviceSpec.from_string(text)
    assert message in str(e.value)


def test_merge_inner_fields_win_and_type_keeps_old_index():
    base = DeviceSpec.from_string("/job:foo/replica:0")
    assert base.make_merged_spec(DeviceSpec.from_string("/task:1/device:GPU:2")).to_string() == \
        "/job:foo/replica:0/task:1/device:GPU:2"
    ps = DeviceSpec.from_string("/job:ps/task:0/device:GPU:0")
    assert ps.make_merged_spec(DeviceSpec.from_string("/cpu")).to_string() == "/job:ps/task:0/device:CPU:0"
    gpu1 = DeviceSpec.from_string("/device:GPU:1")
    gpu1.merge_from(DeviceSpec.from_string("/device:CPU:*"))
    assert gpu1.to_string() == "/device:CPU:1"


def test_merge_device_is_null_for_empty_string():
    assert merge_device("").is_null_merge
    assert not merge_device("/cpu:0").is_null_merge


jobs = st.sampled_from([None, "ps", "worker", "localhost", "a_1"])
small = st.one_of(st.none(), st.integers(0, 20))
types = st.sampled_from([None, "CPU", "GPU", "TPU"])
specs = st.builds(DeviceSpec, job=jobs, replica=small, task=small, device_type=types, device_index=small)


@given(specs)
def test_parse_print_parse_is_stable(spec):
    text = spec.to_string()
    again = DeviceSpec.from_string(text)
    assert again.to_string() == text
    assert DeviceSpec.from_string(again.to_string()) == again


@given(specs, specs)
def test_merge_sets_every_field_the_inner_spec_sets(outer, inner):
    merged = outer.make_merged_spec(inner)
    for f in ("job", "replica", "task", "device_type", "device_index"):
        want = getattr(inner, f) if getattr(inner, f) is not None else getattr(outer, f)
        assert getattr(merged, f) == want


@given(st.lists(specs, min_size=1, max_size=5))
def test_nested_string_scopes_equal_folding_merges_outside_in(stack):
    """An op inside nested tf.device scopes gets outer specs merged under inner ones."""
    with tf.Graph().as_default():
        import contextlib
        with contextlib.ExitStack() as es:
            for spec in stack:
                es.enter_context(tf.device(spec.to_string()))
            c = tf.constant(1.0)
    want = DeviceSpec()
    for spec in stack:  # a spec's string is what the scope sees (an index without a type is dropped)
        want = want.make_merged_spec(DeviceSpec.from_string(spec.to_string()))
    assert c.op.device == want.to_string()
