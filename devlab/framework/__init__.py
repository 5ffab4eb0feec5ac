"""The graph layer: Graph, Operation, Tensor, device specifications and the scopes that shape an op.

Nothing here knows about kernels, devices or sessions; the layers above read what it records.
"""
