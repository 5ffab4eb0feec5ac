"""The notebook layer: ``%load_ext devlab``, the ``%%placement`` cell magic, the step-through
widget and rich reprs. Everything it shows is drawn by ``devlab.views``; it reads only the
public API of the layers below (graphs, sessions, placements, plans, step stats)."""


def load_ipython_extension(ipython):
    from .magics import PlacementMagics
    from .reprs import register_reprs
    from . import source_names
    ipython.register_magics(PlacementMagics)
    register_reprs(ipython)
    source_names.install(ipython)


def unload_ipython_extension(ipython):
    """``%unload_ext devlab``: takes back the magics (and their instance) and the reprs."""
    from .reprs import unregister_reprs
    from . import source_names
    source_names.uninstall()
    magics = ipython.magics_manager.magics
    for kind, name in (("cell", "placement"), ("line", "placement"), ("line", "placement_log")):
        magics[kind].pop(name, None)
    ipython.magics_manager.registry.pop("PlacementMagics", None)
    unregister_reprs(ipython)


def __getattr__(name):
    """``devlab.notebook.StepperWidget`` and ``GraphWidget`` without importing widgets up front."""
    if name == "StepperWidget":
        from .stepper_widget import StepperWidget
        return StepperWidget
    if name == "GraphWidget":
        from .graph_widget import GraphWidget
        return GraphWidget
    raise AttributeError(name)
