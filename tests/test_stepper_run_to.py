"""The stepper on a fed training run (tutorial 10's towers): "run to next copy", "run to op",
breakpoints on a device or a name scope, through ``Session.stepper`` and through the widget's
buttons; and its lanes at hundreds of steps: every box drawn at a fixed size (text of 11 px or
more), grouped by device and scope, and a box where it was whatever step is current (no panning)."""
import os
import re
import sys

import pytest

import devlab as tf
from devlab.notebook.stepper_widget import StepperWidget
from devlab.runtime.steps import OpStep
from devlab.views.lanes import COMPACT_AT, lanes_parts, schedule

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_doctor import tutorial_cells  # noqa: E402


@pytest.fixture(scope="module")
def towers():
    return tutorial_cells("10_towers", "split_batch", "tower_loss", "average_gradients", "towers")["towers"]


@pytest.fixture
def run(towers):
    """A stepper over one fed training step of two towers (variables and average on GPU:0)."""
    with tf.Graph().as_default():
        sess, train, feed = towers("/gpu:0", "/gpu:0")
        yield sess, sess.stepper(train, feed), train, feed


def test_run_to_next_copy_stops_after_each_copy_in_turn(run):
    _, st, _, _ = run
    copies = [s for s in st.steps if not isinstance(s, OpStep)]
    seen = []
    while (view := st.run_to_next_copy()) is not None:
        assert view.kind == "transfer" and view is st.history[-1]
        seen.append((view.inputs[0][0], view.device))
    assert seen == [(s.tensor.name, s.device.name) for s in copies] and len(seen) == 8
    assert st.done  # no copy after the last: the run ended
    assert any(t.startswith("x") or "split" in t for t, _ in seen)  # the fed batch's slices travel too


def test_run_to_op_stops_with_that_op_current_and_its_values(run):
    _, st, _, _ = run
    view = st.run_to_op("tower_1/MatMul")
    assert view.name == "tower_1/MatMul" and view.kind == "op" and view.device.endswith("GPU:1")
    assert st.history[-1] is view and len(view.outputs) == 1
    assert view.outputs[0][1].shape == (128, 32)  # half the fed batch
    before = st.position
    with pytest.raises(KeyError, match=r"no op 'tower_1/MatMull'; did you mean tower_1/MatMul"):
        st.run_to_op("tower_1/MatMull")
    assert st.position == before  # a wrong name moves nothing
    assert st.run_to_op("tower_1/MatMul") is None and st.done  # already run: the run goes to its end


def test_breakpoint_on_a_device_stops_at_each_of_its_steps(run):
    _, st, _, _ = run
    assert st.break_on(device="/gpu:1") == "device GPU:1"
    stops = []
    while (view := st.run_to_breakpoint()) is not None:
        stops.append(view)
    on_gpu1 = [s for s in st.steps if s.device.name.endswith("GPU:1")]
    assert len(stops) == len(on_gpu1) > 10 and all(v.device.endswith("GPU:1") for v in stops)
    assert {v.kind for v in stops} == {"op", "transfer"}  # copies arriving on GPU:1 stop too


def test_breakpoint_on_a_scope_and_wrong_breakpoints(run):
    _, st, _, _ = run
    assert st.break_on(scope="tower_0/") == "scope tower_0/"
    view = st.run_to_breakpoint()
    assert view.name.startswith("tower_0/") and st.hits(view) == "scope tower_0/"
    with pytest.raises(ValueError, match="no step on device '/gpu:5'"):
        st.break_on(device="/gpu:5")
    with pytest.raises(ValueError, match="no op in name scope 'tower_9'"):
        st.break_on(scope="tower_9")
    with pytest.raises(ValueError, match="one of device= or scope="):
        st.break_on()
    st.clear_breakpoints()
    with pytest.raises(ValueError, match="no breakpoints"):
        st.run_to_breakpoint()


def test_widget_buttons_run_to_copy_op_and_breakpoint(run):
    sess, _, train, feed = run
    w = StepperWidget(sess, train, feed, draw=False)
    w.copy_button.click()
    assert w.current.kind == "transfer" and "copy</b> of" in w.info.value
    assert w.slider.value == w.stepper.position  # the slider follows
    w.op_name.value = "tower_1/MatMul"
    w.op_button.click()
    assert w.current.name == "tower_1/MatMul" and "ran to tower_1/MatMul" in w.message.value
    w.op_name.value = "nothing_here"
    w.op_button.click()
    assert "no op 'nothing_here'" in w.message.value and w.current.name == "tower_1/MatMul"
    w.break_text.value = "GPU:0"
    w.break_button.click()
    assert "breakpoints: device GPU:0" in w.message.value
    w.continue_button.click()
    assert w.current.device.endswith("GPU:0") and "stopped at the breakpoint on device GPU:0" in w.message.value
    w.clear_button.click()
    w.break_text.value = "tower_1"  # not a device: a name scope
    w.break_button.click()
    assert "scope tower_1/" in w.message.value
    w.break_text.value = "towr_1"
    w.break_button.click()
    assert "nor is 'towr_1' a name scope" in w.message.value


def font_sizes(svg):
    return [float(x) for x in re.findall(r'font-size="([\d.]+)"', svg)]


def test_lanes_at_hundreds_of_steps_are_grouped_fixed_size_and_never_pan(towers):
    with tf.Graph().as_default():
        sess, train, feed = towers("/gpu:0", "/gpu:0", num_towers=8)
        w = StepperWidget(sess, train, feed, draw=False)
    placed = schedule(w.stepper.plan)
    columns = max(c for _, _, c in placed) + 1
    assert len(w.stepper.steps) >= 200 and columns > COMPACT_AT
    labels, boxes = w.lane_labels.value, w.lanes.value
    assert boxes.count("devlab-lane-step") == len(w.stepper.steps)  # every step drawn, none windowed out
    assert min(font_sizes(labels + boxes)) >= 11 and "viewBox" not in boxes and "max-width" not in boxes
    assert "tower_3" in labels and "GPU:3" in labels  # lanes by device and scope
    assert w.lanes.layout.overflow == "auto hidden"  # the boxes scroll sideways; the labels do not
    width = re.search(r'class="devlab-lanes" width="(\d+)"', boxes).group(1)

    def box_x(svg, step):
        return re.search(rf"<title>step {step}: .*?<rect x=\"([\d.]+)\"", svg).group(1)

    x_before = box_x(boxes, 5)
    w.go(150)
    later = w.lanes.value
    assert re.search(r'class="devlab-lanes" width="(\d+)"', later).group(1) == width
    assert box_x(later, 5) == x_before and later.count("devlab-current") == 1
    assert "current step is in column" in w.lanes_caption.value
    w.group.value = "device"
    assert w.lane_labels.value.count("<text") == 9  # CPU:0 and eight GPUs, one lane each


def test_few_steps_keep_one_lane_per_device_and_named_boxes():
    c = []
    for d in ["/gpu:0", "/gpu:1"]:
        with tf.device(d), tf.name_scope("tower"):
            c.append(tf.matmul(tf.ones([2, 3]), tf.ones([3, 2])))
    sess = tf.Session(config=tf.ConfigProto(device_count={"GPU": 2}))
    with tf.device("/cpu:0"):
        total = tf.add_n(c)
    labels, boxes = lanes_parts(sess.stepper(total).plan, (), None, sess.devices)
    assert labels.count("<text") == 3 and "tower" not in labels  # CPU:0, GPU:0, GPU:1
    assert ">MatMul<" in boxes and min(font_sizes(labels + boxes)) >= 11
