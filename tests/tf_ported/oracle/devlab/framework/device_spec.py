from tensorflow.python.framework.device import canonical_name, check_valid, merge_device  # noqa: F401
from tensorflow.python.framework.device_spec import DeviceSpecV1 as DeviceSpec  # noqa: F401
