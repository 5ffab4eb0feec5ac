"""Re-placing a session's graph with a change applied, to measure a fix: the graph's ops get
other requested devices or colocation groups for a moment, the graph is placed and the last run's
plan compiled again, and everything is put back (the user's graph and session are unchanged)."""
from ...config import get as config_get
from ...framework import errors
from ...placer.placer import place
from ..plan import compile_plan


def nbytes(tensor):
    """Bytes of a fully-shaped tensor, else 0 (a size only the run knows)."""
    shape = tensor.shape
    if not shape.is_fully_defined() or tensor.dtype.base_dtype.name == "string":
        return 0
    return shape.num_elements() * tensor.dtype.base_dtype.size


def cost(transfers):
    """(copies, bytes, busiest link) of a plan's transfers: the link's figure is the most bytes any
    one device sends and receives, what serialises a step when one GPU serves every tower."""
    load = {}
    for t in transfers:
        n = nbytes(t.tensor)
        load[t.src.name] = load.get(t.src.name, 0) + n
        load[t.device.name] = load.get(t.device.name, 0) + n
    return len(transfers), sum(nbytes(t.tensor) for t in transfers), max(load.values(), default=0)


def replaced(session, plan, devices=None, colocate=None):
    """(copies, bytes, busiest link) of ``plan``'s fetches re-placed with ``devices`` ({op name: requested
    device}) and ``colocate`` ({op name: [b"loc:@x"]}) applied; None if that placement fails
    (a kernel missing on the device asked for, a colocation conflict)."""
    graph = session.graph
    saved_devices, saved_classes = {}, {}
    try:
        for name, device in (devices or {}).items():
            op = graph.get_operation_by_name(name)
            saved_devices[op] = op.device
            op._set_device(device)
        for name, groups in (colocate or {}).items():
            op = graph.get_operation_by_name(name)
            saved_classes[op] = op.attrs.get("_class")
            op._set_attr("_class", list(groups))
        soft = session.config.allow_soft_placement or config_get("force_soft_placement")
        placement = place(graph.get_operations(), session.devices, soft, session.local_task)
        feeds = [t for _, t, _ in plan.feed_slots]
        new_plan = compile_plan(list(plan.fetches), feeds, placement, session.random_generators)
        return cost(new_plan.transfers)
    except errors.OpError:
        return None
    finally:
        for op, device in saved_devices.items():
            op._set_device(device)
        for op, groups in saved_classes.items():
            if groups is None:
                op._clear_attr("_class")
            else:
                op._set_attr("_class", groups)
