"""The placement doctor: ``sess.diagnose()`` names the costly patterns a reader of the placement
log looks for in the last run, each with the copies and bytes it costs per step and the one-line
change that removes it, checked (where it can be) by re-placing the graph with that change applied.

It reads a session's placement and plan only; the views and the magic show what it returns.
"""
from .findings import Diagnosis, Finding
from .patterns import diagnose

__all__ = ["Diagnosis", "Finding", "diagnose"]
