"""Sizes of tensors and how to say them: the bytes a fully-shaped tensor holds, and ``1.5 KB``."""


def tensor_bytes(t):
    """Bytes of a fully-shaped numeric tensor, else None."""
    if t.shape.is_fully_defined() and t.dtype.base_dtype.name != "string":
        return t.shape.num_elements() * t.dtype.base_dtype.size
    return None


def human_bytes(n):
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def bytes_label(known, unsized=0):
    """``"8.0 KB"``; with copies whose size only the run knows (a shape the graph leaves open, as
    ``dynamic_partition``'s), says so rather than counting them as 0 B: ``"8.0 KB + 2 sized at run time"``."""
    if not unsized:
        return human_bytes(known)
    what = f"{unsized} sized at run time" if unsized > 1 else "sized at run time"
    return what if not known else f"{human_bytes(known)} + {what}"
