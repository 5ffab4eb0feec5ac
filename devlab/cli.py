"""``devlab place SCRIPT.py [--gpus N] [--cpus N] [--soft] [--svg out.svg] [--trace out.json]``

Runs a TF1-style script with devlab standing in for TensorFlow (``import tensorflow as tf``
gives devlab), prints each session's device mapping and placement log, and optionally draws the
last run's placed graph and writes its timeline as a Chrome trace.
"""
import argparse
import runpy
import sys

from . import config
from .aliases import tensorflow_is_devlab
from .runtime.events import Recorder


def place(argv):
    ap = argparse.ArgumentParser(prog="devlab place", description="Show where a TF1 script's ops are placed.")
    ap.add_argument("script", help="a Python file written against TensorFlow 1.x")
    ap.add_argument("--gpus", type=int, default=None, help="simulated GPUs for sessions that name none")
    ap.add_argument("--cpus", type=int, default=None, help="CPUs for sessions that name none")
    ap.add_argument("--soft", action="store_true", help="allow soft placement in every session")
    ap.add_argument("--svg", metavar="OUT", help="draw the last run's placed graph (.svg, .png or .pdf)")
    ap.add_argument("--trace", metavar="OUT", help="write the last run's timeline as Chrome trace JSON")
    args = ap.parse_args(argv)
    settings = {"force_log": True, "trace_all": bool(args.trace)}
    if args.gpus is not None:
        settings["simulated_gpus"] = args.gpus
    if args.cpus is not None:
        settings["default_cpus"] = args.cpus
    if args.soft:
        settings["force_soft_placement"] = True
    from .framework import errors
    with Recorder() as cap, config.override(**settings), tensorflow_is_devlab():
        try:
            runpy.run_path(args.script, run_name="__main__")
        except errors.OpError as e:
            from .views.tracebacks import short_traceback
            print("\n".join(short_traceback(e)), file=sys.stderr)
            return 1
    last = cap.last
    if last is None:
        print("devlab: the script ran no session, so nothing was placed.", file=sys.stderr)
        return 0 if not (args.svg or args.trace) else 1
    if args.svg:
        from .views.graph_view import GraphView
        GraphView(last.session, last.plan).save(args.svg)
        print(f"devlab: placed graph written to {args.svg}")
    if args.trace:
        from .views.chrome_trace import Timeline
        Timeline(last.run_metadata.step_stats).save(args.trace)
        print(f"devlab: timeline written to {args.trace} (open it in https://ui.perfetto.dev)")
    return 0


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] != "place":
        print("usage: devlab place SCRIPT.py [--gpus N] [--cpus N] [--soft] [--svg OUT] [--trace OUT]",
              file=sys.stderr)
        return 2
    return place(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
