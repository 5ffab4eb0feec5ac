"""``tf.Print``: an identity of its input that, each time it runs, writes ``message`` and the
values of ``data`` to standard error (TF1's way of printing from inside a graph)."""
from ..framework.scopes import name_scope
from ..ops.build import apply_op, convert_to_tensor


def Print(input_, data, message=None, first_n=None, summarize=None, name=None):  # noqa: N802 - TF's name
    """``input_``, passed on; running it prints ``message`` then ``[values]`` for each of ``data``
    (``summarize`` values each, 3 by default)."""
    if first_n is not None and first_n != -1:
        raise NotImplementedError(f"tf.Print(first_n={first_n}): devlab prints every time the op runs")
    with name_scope(name, "Print", [input_] + list(data)) as scope:
        x = convert_to_tensor(input_, name="input")
        tensors = [convert_to_tensor(d, name=f"data_{i}") for i, d in enumerate(data)]
        attrs = {"message": "" if message is None else message, "first_n": -1,
                 "summarize": 3 if summarize is None else int(summarize),
                 "U": [t.dtype.base_dtype for t in tensors]}
        return apply_op("Print", [x] + tensors, attrs, scope).outputs[0]
