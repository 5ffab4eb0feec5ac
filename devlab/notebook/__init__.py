"""The notebook layer: ``%load_ext devlab``, the ``%%placement`` cell magic, the placed-graph
drawing, the step-through widget and the timeline view. It reads only the public API of the
layers below (graphs, sessions, placements, plans, step stats)."""


def load_ipython_extension(ipython):
    from .magics import PlacementMagics
    from .reprs import register_reprs
    ipython.register_magics(PlacementMagics)
    register_reprs(ipython)


def unload_ipython_extension(ipython):
    pass
