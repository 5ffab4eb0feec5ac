"""``tf.compat``'s text helpers: bytes and str, whichever a caller holds."""


def as_bytes(value, encoding="utf-8"):
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {value!r}")


def as_text(value, encoding="utf-8"):
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {value!r}")


def as_str_any(value):
    return value.decode() if isinstance(value, bytes) else str(value)
