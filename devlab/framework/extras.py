"""One line for an optional feature whose extra is not installed.

numpy is devlab's only dependency; widgets, graph files, clusters and the rest import their
packages when first used. When one is missing, the user gets one line naming the feature, the
missing module, the extra that brings it and the pip command, instead of a bare
``ModuleNotFoundError`` from deep inside devlab.
"""
import importlib

# The package each extra brings, by its import name (to say which extra a module belongs to).
EXTRA_OF = {"anywidget": "notebook", "ipywidgets": "notebook", "IPython": "notebook", "matplotlib": "notebook",
            "traitlets": "notebook",
            "distributed": "cluster", "dask": "cluster", "bokeh": "cluster",
            "tensorboard": "graphs", "google.protobuf": "graphs"}


class MissingExtra(ModuleNotFoundError):
    """An optional feature's module is missing; the message names the extra to install."""


def message(feature, module, extra=None):
    """The one line: ``<feature> needs the <extra> extra (<module> is not installed): pip install 'devlab[<extra>]'``."""
    extra = extra or _extra_of(module)
    return f"{feature} needs the {extra} extra ({module} is not installed): pip install 'devlab[{extra}]'"


def require(module, feature, extra=None):
    """``module`` imported, or MissingExtra naming ``feature`` (what the user asked for) and the extra."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        missing = getattr(e, "name", None) or module  # the module that failed (maybe one it imports)
        missing = next((m for m in sorted(EXTRA_OF, key=len, reverse=True)  # its package: matplotlib.pyplot -> matplotlib
                        if missing == m or missing.startswith(m + ".")), missing)
        err = MissingExtra(message(feature, missing, extra or _extra_of(module)))
        err.name = missing
        raise err from None


def _extra_of(module):
    """The extra that brings ``module`` (``tensorboard.compat.proto`` -> graphs)."""
    return next(EXTRA_OF[m] for m in sorted(EXTRA_OF, key=len, reverse=True)
                if module == m or module.startswith(m + "."))
