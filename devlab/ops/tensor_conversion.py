"""``tf.register_tensor_conversion_function``: how values of a user's type become tensors.

``convert_to_tensor`` (build.py) asks here for any value that is not already a tensor: the
functions registered for its type, lowest ``priority`` first, each called as
``fn(value, dtype=, name=, as_ref=)``; one may decline by returning ``NotImplemented``.
"""
import numbers

import numpy as np

_REGISTRY = []  # (priority, order registered, base types, function)


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Registers ``conversion_func`` for values of ``base_type`` (a type or a tuple of types),
    with TF's checks: not for Python numbers or numpy values, and the function must be callable."""
    types = base_type if isinstance(base_type, tuple) else (base_type,)
    if any(not isinstance(t, type) for t in types):
        raise TypeError(f"Argument `base_type` must be a type or a tuple of types. Obtained: {base_type}")
    if any(issubclass(t, (numbers.Number, np.ndarray, np.generic)) for t in types):
        raise TypeError("Cannot register conversions for Python numeric types and NumPy scalars and arrays.")
    if not callable(conversion_func):
        raise TypeError(f"Argument `conversion_func` must be callable. Received {conversion_func}.")
    _REGISTRY.append((priority, len(_REGISTRY), types, conversion_func))
    _REGISTRY.sort(key=lambda entry: entry[:2])


def registered():
    return bool(_REGISTRY)


def convert_registered(value, dtype, name, as_ref, tensor_type):
    """The tensor a registered function makes of ``value``, or None when none applies."""
    for _, _, types, fn in _REGISTRY:
        if not isinstance(value, types):
            continue
        result = fn(value, dtype=dtype, name=name, as_ref=as_ref)
        if result is NotImplemented:
            continue
        if not isinstance(result, tensor_type):
            raise RuntimeError(f"Conversion function {fn!r} for type {type(value)} returned non-Tensor: {result!r}")
        if dtype is not None and not dtype.is_compatible_with(result.dtype):
            raise RuntimeError(f"Conversion function {fn!r} for type {type(value)} returned incompatible dtype: "
                               f"requested = {dtype.name}, actual = {result.dtype.name}")
        return result
    return None
