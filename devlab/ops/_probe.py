def f():
    from .table import lookup
