"""``devlab place MODEL.pbtxt --gpus 8``: a TensorFlow graph file instead of a script.

``cli.py`` sends a file named ``*.pb``, ``*.pbtxt``, ``*.meta`` here. The graph is loaded
(``devlab.load_graph``), placed on the devices asked for, and a modelled run of its sinks (the
ops nothing reads: the train op, the losses...) gives what a real run would cost. Printed: the
device mapping and the placement log (as for a script), the ops devlab cannot run and those
whose kernels had to be assumed, the transfers between devices, and the modelled step time.
``--fetch NAME`` models a run of NAME instead, ``--explain OP`` says why OP is where it is.
``--svg``/``--png``/``--pdf`` draw the placed graph, ``--trace`` writes the modelled timeline.
"""
import os
import sys

from . import config
from .framework import errors


def place_graph_file(args):
    """Runs ``devlab place`` on a graph file; returns the exit code."""
    from .graphs import GraphFileError, kernel_report, load_graph
    from .runtime.protos import ConfigProto
    from .runtime.session import Session
    try:
        graph = load_graph(args.script)
    except ImportError as e:
        return _fail(str(e), 2)
    except (GraphFileError, OSError, errors.OpError, ValueError, TypeError) as e:
        return _fail(f"cannot load {args.script}: {_one_line(e)}")
    settings = {"force_log": True, "log_to_stdout": False}  # printed below, under the summary and copies
    if args.gpus is not None:
        settings["simulated_gpus"] = args.gpus
    if args.cpus is not None:
        settings["default_cpus"] = args.cpus
    from .runtime.events import Recorder
    from .views.placement_report import report_text
    with Recorder() as cap, config.override(**settings):
        session = Session(graph=graph, config=ConfigProto(allow_soft_placement=bool(args.soft)))
        try:
            session.ensure_placed()
            fetches = list(getattr(args, "fetch", None) or []) or None  # --fetch NAME: model those, not the sinks
            run = session.modelled_run(fetches)
        except (KeyError, ValueError, TypeError) as e:
            return _fail(f"--fetch {' '.join(args.fetch)}: {_one_line(e)}", 2)
        except errors.OpError as e:
            hint = ("" if args.soft else " (the file requests devices this session lacks: add --cpus N or --gpus N, "
                    "or --soft to let TensorFlow's soft placement choose)")
            return _fail(f"cannot place {os.path.basename(args.script)}: {_one_line(e)}{hint}")
    for report in cap.reports:
        print(report_text(report, copies_limit=getattr(args, "copies", 20) or None, lines=False))
    for name in getattr(args, "explain", None) or []:
        try:
            print(session.explain(name))
        except (KeyError, ValueError, TypeError) as e:
            return _fail(f"--explain {name}: {_one_line(e)}", 2)
    print()
    print(kernel_report(graph))
    print()
    print(_transfers(run))
    print()
    print(f"fetches modelled: {', '.join(f.name for f in run.fetches[:8])}{' ...' if len(run.fetches) > 8 else ''}")
    print(run.summary())
    if getattr(args, "doctor", False):
        from .runtime.doctor import diagnose
        print(diagnose(session, run.plan))
    return _outputs(session, run, args)


def _transfers(run):
    """The transfers of the modelled run, grouped by (source, destination)."""
    transfers = run.transfers
    if not transfers:
        return "transfers: none (every tensor is used where it is made)"
    pairs = {}
    for t in transfers:
        n, b, s = pairs.get((t.source, t.destination), (0, 0, 0.0))
        pairs[(t.source, t.destination)] = (n + 1, b + t.nbytes, s + t.seconds)
    lines = [f"transfers: {len(transfers)} (one per tensor and destination device)"]
    for (src, dst), (n, b, s) in sorted(pairs.items()):
        lines.append(f"  {_short(src)} -> {_short(dst)}: {n} tensors, {b} bytes, {s * 1e6:.1f} us modelled")
    return "\n".join(lines)


def _short(name):
    return name.split("/device:")[-1] if name.startswith("/job:localhost/") else name


def _outputs(session, run, args):
    for fmt in ("svg", "png", "pdf"):
        path = getattr(args, fmt, None)
        if not path:
            continue
        from .views.graph_view import GraphView
        try:
            GraphView(session, run.plan, level="ops" if getattr(args, "ops", False) else None).save(path, fmt)
        except (OSError, RuntimeError, ValueError) as e:
            return _fail(f"--{fmt} {path}: could not write the drawing: {_one_line(e)}")
        print(f"devlab: placed graph written to {path}")
    if args.trace:
        from .views.chrome_trace import Timeline
        try:
            Timeline(run.step_stats).save(args.trace)
        except OSError as e:
            return _fail(f"--trace {args.trace}: could not write the timeline: {_one_line(e)}")
        print(f"devlab: modelled timeline written to {args.trace} (open it in https://ui.perfetto.dev)")
    return 0


def _one_line(e):
    text = " ".join(str(e).split())
    if len(text) > 400:
        text = text[:397] + "..."
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _fail(message, code=1):
    print(f"devlab: {message}", file=sys.stderr)
    return code
