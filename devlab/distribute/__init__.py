"""``tf.distribute`` / ``tf.contrib.distribute``: MirroredStrategy with the 1.x tower API."""
from .context import get_cross_tower_context, get_tower_context  # noqa: F401
from .mirrored import MirroredStrategy  # noqa: F401
from .values import Mirrored, MirroredVariable, PerDevice, TowerLocalVariable  # noqa: F401
from .data import Dataset  # noqa: F401
