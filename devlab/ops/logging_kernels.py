"""The ``Print`` op's kernel: it hands its input on and writes ``message`` and a summary of each
data tensor to standard error, as TF's PrintOp does (``[values]`` per tensor, at most
``summarize`` values each, ``...`` after a cut)."""
import sys

import numpy as np

from .kernels import to_host


def _scalar_text(v):
    """One value as TF's StrCat writes it: floats in their shortest form ("1", "2.5")."""
    if isinstance(v, (bytes, np.bytes_)):
        return bytes(v).decode("utf-8", "replace")
    if isinstance(v, (np.floating, float)):
        digits = (6, 9) if np.asarray(v).dtype == np.float32 or np.asarray(v).dtype == np.float16 else (15, 17)
        text = f"{float(v):.{digits[0]}g}"
        return text if np.asarray(v).dtype.type(text) == v else f"{float(v):.{digits[1]}g}"
    if isinstance(v, (np.bool_, bool)):
        return "1" if v else "0"
    return str(v)


def summarize_value(x, limit):
    """TF's ``Tensor::SummarizeValue``: the first ``limit`` values in nested brackets, "..." if cut."""
    x = np.asarray(x)
    flat = x.reshape(-1)
    if x.ndim == 0:
        return _scalar_text(flat[0]) if limit > 0 else ""
    index = [0]
    out = []

    def one_dim(dim):
        if index[0] >= limit:
            return
        if dim == x.ndim - 1:
            for i in range(x.shape[dim]):
                if index[0] >= limit:
                    if dim != 0:  # a row cut short says so
                        out.append("...")
                    return
                if i > 0:
                    out.append(" ")
                out.append(_scalar_text(flat[index[0]]))
                index[0] += 1
            return
        for _ in range(x.shape[dim]):
            if index[0] < limit:
                out.append("[")
                one_dim(dim + 1)
                out.append("]")
    one_dim(0)
    if flat.size > limit:
        out.append("...")
    return "".join(out)


def print_(k, x, *data):
    """``x`` itself, after writing the message and the data to stderr (one line)."""
    limit = k.attrs.get("summarize", 3)
    limit = 3 if limit is None else int(limit)
    line = (k.attrs.get("message") or "")
    if isinstance(line, bytes):
        line = line.decode("utf-8", "replace")
    for d in data:
        value = np.asarray(to_host(d))
        line += "[" + summarize_value(value, value.size if limit < 0 else limit) + "]"
    print(line, file=sys.stderr, flush=True)
    return x
