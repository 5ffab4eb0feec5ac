"""``tf.compat``'s text helpers (bytes and str, whichever a caller holds) and its type tuples
(``integral_types``...: Python's and numpy's number types, for ``isinstance``)."""
import numbers

import numpy as np

integral_types = (numbers.Integral, np.integer)
real_types = (numbers.Real, np.integer, np.floating)
complex_types = (numbers.Complex, np.number)
bytes_or_text_types = (bytes, str)


def as_bytes(bytes_or_text, encoding="utf-8"):  # TF's argument names
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text, encoding="utf-8"):
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_str_any(value, encoding="utf-8"):
    return value.decode(encoding) if isinstance(value, bytes) else str(value)
