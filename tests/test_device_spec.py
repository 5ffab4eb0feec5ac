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


def test_v2_spec_is_immutable_and_returns_new_specs():
    # TF 2.21: DeviceSpecV2 has no setters and no merge_from; parse_from_string returns a new spec
    from devlab.framework.device_spec import DeviceSpecV2
    spec = DeviceSpecV2(job="w", device_type="gpu", device_index=1)
    assert spec.to_string() == "/job:w/device:GPU:1"
    with pytest.raises(AttributeError):
        spec.job = "x"
    assert not hasattr(spec, "merge_from")
    parsed = spec.parse_from_string("/cpu:0")
    assert (spec.to_string(), parsed.to_string(), type(parsed)) == ("/job:w/device:GPU:1", "/device:CPU:0", DeviceSpecV2)
    replaced = spec.replace(task=2)
    assert (type(replaced), replaced.to_string()) == (DeviceSpecV2, "/job:w/task:2/device:GPU:1")
    merged = DeviceSpecV2.from_string("/job:foo").make_merged_spec(DeviceSpecV2.from_string("/task:1/cpu:0"))
    assert (type(merged), merged.to_string()) == (DeviceSpecV2, "/job:foo/task:1/device:CPU:0")


def test_v1_and_v2_specs_of_one_device_are_not_equal():
    # TF compares with isinstance(other, self.__class__); the subclass's __eq__ is asked first
    from devlab.framework.device_spec import DeviceSpecV2
    assert DeviceSpec.from_string("/gpu:0") != DeviceSpecV2.from_string("/gpu:0")
    assert DeviceSpecV2.from_string("/gpu:0") != DeviceSpec.from_string("/gpu:0")
    assert DeviceSpecV2.from_string("/gpu:0") == DeviceSpecV2(device_type="GPU", device_index=0)


def test_device_scope_takes_a_v2_spec():
    from devlab.framework.device_spec import DeviceSpecV2
    with tf.Graph().as_default():
        with tf.device(DeviceSpecV2(job="ps", task=1)):
            c = tf.constant(1)
    assert c.device == "/job:ps/task:1"
