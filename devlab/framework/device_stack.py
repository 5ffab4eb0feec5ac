"""How an op's requested device is decided at creation: device scopes, functions, colocation.

TensorFlow applies this once, when the op is created (``Graph._apply_device_functions`` then
the colocation block of ``_create_op_helper``):

1. Walk the device stack innermost first. Skip empty merges (``tf.device("")``); stop at
   ``tf.device(None)``; otherwise set the op's device to ``f(op)``. A string scope is a merge
   function, so inner fields win and outer scopes only fill blanks.
2. Then walk the colocation stack innermost first: the first colocated op that has a device
   gives the op its device, and every colocated op's groups go into ``_class``.
"""
from .device_spec import DeviceSpecV2, MergeDevice
from .traceable import TraceableObject


class DeviceScope:
    """One entry of the device stack: a merge function, a user function, or None (a reset).

    Its ``location.obj`` is TF's ``display_name``: what the user passed, as ``str()`` gives it
    (``"/cpu"`` stays ``"/cpu"``), or ``name<file, line>`` for a device function.
    """

    def __init__(self, device, filename, lineno):
        if device is None or callable(device) and not isinstance(device, (str, DeviceSpecV2)):
            self.function = device
        else:
            self.function = _merge_function(device)
        self.merge = self.function if isinstance(self.function, MergeDevice) else None  # the common case
        self.is_null_merge = self.merge is not None and self.merge.is_null_merge
        if device is None or not callable(device) or isinstance(device, MergeDevice):
            label = str(device)  # what the user wrote, as TF records it
        else:
            name = getattr(device, "__name__", type(device).__name__)
            code = getattr(device, "__code__", None)
            where = f"<{code.co_filename}, {code.co_firstlineno}>" if code else ""
            label = name + where
        # A loop that opens the same scope for each of its thousands of ops gives them one record
        # of where it was opened, not one each (fewer objects for the garbage collector to walk).
        key = (label, filename, lineno)
        self.alone = _ALONE.get(key)  # the device_code_locations of an op inside only this scope
        if self.alone is None:
            self.alone = (TraceableObject(label, filename, lineno),)
            if len(_ALONE) < 4096:
                _ALONE[key] = self.alone
        self.location = self.alone[0]

    def apply(self, op):
        """The device string this scope gives ``op``; a device function may not return None."""
        result = self.function(op)
        if isinstance(result, DeviceSpecV2):
            return result.to_string()
        if not isinstance(result, (str, bytes)):
            raise TypeError(f"Expected binary or unicode string, got {result!r}")
        return result.decode() if isinstance(result, bytes) else result


def scope_for(device, filename, lineno):
    """The DeviceScope of ``tf.device(device)`` opened at ``filename:lineno``. A string's scope
    holds nothing but what these three give it, so it is made once per line and reused: a loop
    that opens a device scope around each of its 10,000 ops makes one (a third of the time of
    entering a scope went into making it)."""
    if type(device) is not str:
        return DeviceScope(device, filename, lineno)
    key = (device, filename, lineno)
    scope = _SCOPES.get(key)
    if scope is None:
        scope = DeviceScope(device, filename, lineno)
        if len(_SCOPES) < 4096:
            _SCOPES[key] = scope
    return scope


def _merge_function(device):
    """The MergeDevice for a string (memoised: loops open the same scopes over and over) or spec."""
    if isinstance(device, str):
        merge = _MERGES.get(device)
        if merge is None:
            merge = _MERGES[device] = MergeDevice(device)
        return merge
    return MergeDevice(device)


_MERGES = {}
_SCOPES = {}  # (device string, file, line) -> its DeviceScope
_ALONE = {}  # (label, file, line) -> a one-scope device_code_locations, shared


def apply_device_stack(op, device_stack):
    """Sets ``op``'s device from the device stack (innermost first) and records the scopes."""
    for scope in reversed(device_stack):
        if scope.is_null_merge:
            continue
        if scope.merge is not None:
            op._device = scope.merge.merged(op._device)
        elif scope.function is None:
            break
        else:
            op._set_device(scope.apply(op))
    if device_stack:
        op.device_code_locations = device_stack[0].alone if len(device_stack) == 1 else tuple(
            s.location for s in reversed(device_stack))


def apply_colocation_stack(op, colocation_stack):
    """Gives ``op`` the device of the innermost colocated op that has one, and its groups."""
    op.colocation_code_locations = {
        other.name: TraceableObject(None, filename, lineno) for other, filename, lineno in colocation_stack}
    if not colocation_stack:
        return
    groups, device_set = set(), False
    for other, _, _ in reversed(colocation_stack):
        groups.update(other.colocation_groups())
        if other.device and not device_set:
            op._set_device(other.device)
            device_set = True
    op._set_attr("_class", sorted(groups))
