"""``devlab place SCRIPT.py [--gpus N] [--cpus N] [--soft] [--explain OP] [--fetch NAME] [--copies N]
[--svg/--png/--pdf OUT] [--trace OUT] [--timeout S]``

Runs a TF1-style script with devlab standing in for TensorFlow (``import tensorflow as tf``
gives devlab), then prints for each session its device mapping, a one-line summary (ops per
device, copies, bytes), its copies table and its placement log, as ``%%placement`` shows them;
``--explain OP`` says why an op is where it is, ``--fetch NAME`` models one run of NAME and lists
its copies. A script that asks for a GPU it was not given gets a hint naming ``--gpus N``.
Optionally it draws the last run's placed graph and writes its timeline as a Chrome trace. Also ``devlab --version``,
``devlab --help`` and ``python -m devlab``.

Every failure is one line on stderr and a non-zero exit, never a Python traceback: a missing
script (2), a bad option or an output path that cannot be written (2, checked before the script
runs), a script that raises (1: the error and the script's line), one that runs past
``--timeout`` (124). The script runs in a child process (``python -m devlab place ... --timeout
0``) that the parent stops when the time is up; ``--timeout 0`` runs it in this process with no
limit. Device counts are checked against ``devlab.config.MAX_DEVICES_PER_TYPE`` (64).
"""
import argparse
import os
import runpy
import shutil
import signal
import subprocess
import sys
import traceback

DEFAULT_TIMEOUT = 120.0  # seconds; a placement script that runs longer is almost surely stuck
EXIT_ERROR, EXIT_USAGE, EXIT_TIMEOUT, EXIT_INTERRUPTED = 1, 2, 124, 130
INSTALL_GRAPHVIZ = ("apt-get install graphviz (Debian/Ubuntu), brew install graphviz (macOS) or "
                    "conda install graphviz")
DRAWING_FORMATS = ("svg", "png", "pdf")  # one flag each: --svg OUT writes SVG, --png OUT a PNG...


def drawings(args):
    """[(format, path)] of the drawings asked for on the command line."""
    return [(fmt, getattr(args, fmt)) for fmt in DRAWING_FORMATS if getattr(args, fmt, None)]


def version():
    """devlab's version, from the installed package's metadata."""
    import devlab
    return devlab.__version__


def _count(minimum):
    """An argparse type: a whole number of devices in [minimum, MAX_DEVICES_PER_TYPE]."""
    from .config import MAX_DEVICES_PER_TYPE

    def parse(text):
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
        if not minimum <= n <= MAX_DEVICES_PER_TYPE:
            raise argparse.ArgumentTypeError(f"must be between {minimum} and {MAX_DEVICES_PER_TYPE} (devlab simulates "
                                             f"at most {MAX_DEVICES_PER_TYPE} devices of each type), got {n}")
        return n
    return parse


def _seconds(text):
    try:
        s = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not 0 <= s <= 7 * 24 * 3600:
        raise argparse.ArgumentTypeError(f"must be between 0 (no limit) and 604800 seconds, got {text}")
    return s


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad command line is the usage line and one line saying what is wrong (exit 2),
    not the whole help."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def parser():
    ap = _Parser(prog="devlab", description="See where TensorFlow 1.x graph code places each op, and why.")
    ap.add_argument("--version", action="version", version=f"devlab {version()}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    place = sub.add_parser("place", help="run a TF1 script and print its device mapping and placement log",
                           description="Show where a TF1 script's ops are placed.")
    place.add_argument("script", help="a Python file written against TensorFlow 1.x, or a TensorFlow graph file "
                       "(.pb, .pbtxt, .meta)")
    place.add_argument("--gpus", type=_count(0), default=None, help="simulated GPUs for sessions that name none (0-64)")
    place.add_argument("--cpus", type=_count(1), default=None, help="CPUs for sessions that name none (1-64)")
    place.add_argument("--soft", action="store_true", help="allow soft placement in every session")
    for fmt in DRAWING_FORMATS:
        place.add_argument(f"--{fmt}", metavar="OUT", help=f"draw the last run's placed graph as {fmt.upper()} "
                           f"(OUT.{fmt}; needs Graphviz's dot)")
    place.add_argument("--explain", metavar="OP", action="append", default=[],
                       help="say why op OP of the last session is on its device (repeatable)")
    place.add_argument("--fetch", metavar="NAME", action="append", default=[],
                       help="model one run of tensor or op NAME in the last session and list its copies (repeatable)")
    place.add_argument("--copies", type=int, default=20, metavar="N",
                       help="rows of the copies table to print, largest first (default 20; 0: every copy)")
    place.add_argument("--ops", action="store_true",
                       help="draw the ops even above 150 ops (there the drawing is one node per device)")
    place.add_argument("--trace", metavar="OUT", help="write the last run's timeline as Chrome trace JSON")
    place.add_argument("--doctor", action="store_true",
                       help="name the last run's costly placement patterns, what each costs and the change that removes it")
    place.add_argument("--timeout", type=_seconds, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                       help=f"stop the script after this long (default {DEFAULT_TIMEOUT:g}; 0: no limit, in this process)")
    return ap


def fail(message, code=EXIT_ERROR):
    print(f"devlab: {message}", file=sys.stderr)
    return code


def check_place_arguments(args):
    """Everything that can be checked before the script runs; returns an exit code or None."""
    if not os.path.exists(args.script):
        return fail(f"cannot run {args.script}: no such file", EXIT_USAGE)
    if not os.path.isfile(args.script):
        return fail(f"cannot run {args.script}: not a file", EXIT_USAGE)
    for fmt, path in drawings(args):
        ext = path.rsplit(".", 1)[-1].lower() if "." in os.path.basename(path) else ""
        if ext != fmt:
            other = f" (for {ext.upper()}, use --{ext} {path})" if ext in DRAWING_FORMATS else ""
            return fail(f"--{fmt} {path}: --{fmt} writes {fmt.upper()}, so the file name should end in .{fmt}{other}",
                        EXIT_USAGE)
        if shutil.which("dot") is None:
            return fail(f"--{fmt} needs Graphviz's `dot` program, which is not on PATH: {INSTALL_GRAPHVIZ}", EXIT_USAGE)
    for flag, path in [(f"--{fmt}", path) for fmt, path in drawings(args)] + [("--trace", args.trace)]:
        if path:
            problem = _unwritable(path)
            if problem:
                return fail(f"{flag} {path}: cannot write there ({problem})", EXIT_USAGE)
    return None


def _unwritable(path):
    """Why ``path`` cannot be written, or None."""
    if os.path.isdir(path):
        return "it is a folder"
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"no folder {folder}"
    if os.path.exists(path) and not os.access(path, os.W_OK):
        return "permission denied"
    if not os.access(folder, os.W_OK):
        return f"permission denied in {folder}"
    return None


def place(args):
    code = check_place_arguments(args)
    if code is not None:
        return code
    if args.script.lower().endswith((".pb", ".pbtxt", ".meta")):  # a TensorFlow graph file, not a script
        from .graph_cli import place_graph_file
        return place_graph_file(args)
    if args.timeout > 0:
        return _place_in_child(args)
    return _place_here(args)


def _place_in_child(args):
    """Runs ``devlab place`` (with no limit) in a child process and stops it when time is up."""
    argv = [sys.executable, "-m", "devlab", "place", args.script, "--timeout", "0"]
    for flag in ("gpus", "cpus", *DRAWING_FORMATS, "trace", "copies"):
        if getattr(args, flag) is not None:
            argv += [f"--{flag}", str(getattr(args, flag))]
    for flag in ("explain", "fetch"):
        for value in getattr(args, flag):
            argv += [f"--{flag}", value]
    if args.soft:
        argv.append("--soft")
    if args.doctor:
        argv.append("--doctor")
    if args.ops:
        argv.append("--ops")
    env = dict(os.environ)
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    child = subprocess.Popen(argv, env=env, start_new_session=True)
    try:
        return child.wait(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        _stop(child)
        return fail(f"{args.script} did not finish within {args.timeout:g} s (--timeout {args.timeout:g}), so it was "
                    "stopped; give it longer with --timeout SECONDS, or --timeout 0 for no limit", EXIT_TIMEOUT)
    except KeyboardInterrupt:
        _stop(child)
        return fail("interrupted", EXIT_INTERRUPTED)


def _stop(child):
    """Stops the child and anything it started (its process group)."""
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError):
        child.kill()
    child.wait()


def _place_here(args):
    from . import config
    from .aliases import tensorflow_is_devlab
    from .framework import errors
    from .runtime.events import Recorder
    # The log is printed from the sessions' events after the script, under each session's summary
    # and copies table (a long log is easier to read once you know what to look for in it).
    settings = {"force_log": True, "log_to_stdout": False, "trace_all": bool(args.trace)}
    if args.gpus is not None:
        settings["simulated_gpus"] = args.gpus
    if args.cpus is not None:
        settings["default_cpus"] = args.cpus
    if args.soft:
        settings["force_soft_placement"] = True
    script_dir = os.path.dirname(os.path.abspath(args.script))
    with Recorder() as cap, config.override(**settings), tensorflow_is_devlab():
        sys.path.insert(0, script_dir)  # as `python SCRIPT` would
        try:
            runpy.run_path(args.script, run_name="__main__")
        except errors.OpError as e:
            from .views.tracebacks import short_traceback
            print_reports(cap, args)
            print("\n".join(short_traceback(e)), file=sys.stderr)
            hint = gpu_hint(e, args)
            if hint:
                print(hint, file=sys.stderr)
            return EXIT_ERROR
        except SystemExit as e:
            if e.code not in (None, 0):
                return fail(f"{args.script} exited with status {e.code}",
                            e.code if isinstance(e.code, int) else EXIT_ERROR)
        except KeyboardInterrupt:
            return fail("interrupted", EXIT_INTERRUPTED)
        except SyntaxError as e:
            return fail(f"{args.script} failed: SyntaxError: {e.msg} (at {e.filename}, line {e.lineno})")
        except Exception as e:  # noqa: BLE001 - the script's own error, told in one line
            return fail(f"{args.script} failed: {_one_line(e)}{_script_line(e, args.script)}")
        finally:
            if script_dir in sys.path:
                sys.path.remove(script_dir)
    print_reports(cap, args)
    code = _explain_and_fetch(cap.last, args)
    if code:
        return code
    return _write_outputs(cap.last, args)


def print_reports(cap, args):
    """Each session's device mapping, its one-line summary (ops per device, copies, bytes), its
    copies table (largest first) and then its raw placement log, as TensorFlow prints it."""
    from .views.placement_report import report_text
    for report in cap.reports:
        print(report_text(report, copies_limit=args.copies or None))


def gpu_hint(error, args):
    """A one-line hint when the script asked for a GPU (or a second CPU) that ``--gpus`` (``--cpus``)
    did not give it, naming the flag and the count that would; else None."""
    import re
    op = getattr(error, "op", None)
    text = " ".join([getattr(op, "device", "") or "", str(error).partition("\n")[0]])
    available = re.search(r"available devices are \[([^\]]*)\]", text)
    if available is None:
        return None  # not a missing device (a kernel or colocation problem)
    graph = getattr(op, "graph", None)  # the count must cover every op's request, not only the first to fail
    requests = text.split("available devices")[0] + " " + " ".join(o.device or "" for o in (
        graph.get_operations() if graph is not None else ()))
    for kind, flag in (("GPU", "gpus"), ("CPU", "cpus")):
        wanted = [int(i) for i in re.findall(rf"(?i)/(?:device:)?{kind}:(\d+)", requests)]
        if wanted and getattr(args, flag) is None and f"{kind}:{max(wanted)}" not in available.group(1):
            given = "no GPUs" if kind == "GPU" else "one CPU"
            return (f"devlab: {args.script} asks for {kind}:{max(wanted)} and was given {given}: run it with "
                    f"`devlab place {args.script} --{flag} {max(wanted) + 1}` (simulated devices)")
    return None


def _explain_and_fetch(last, args):
    """``--explain OP`` and ``--fetch NAME`` on the last session; an exit code on a bad name."""
    if not (args.explain or args.fetch):
        return 0
    if last is None:
        return fail("--explain and --fetch need a session, and the script ran none")
    from .views.copies import copies, copies_text
    for name in args.explain:
        try:
            print(last.session.explain(name))
        except (KeyError, ValueError, TypeError) as e:
            return fail(f"--explain {name}: {_one_line(e)}", EXIT_USAGE)
    for name in args.fetch:
        from .framework import errors
        try:
            run = last.session.modelled_run(name)
        except (KeyError, ValueError, TypeError, errors.OpError) as e:
            return fail(f"--fetch {name}: {_one_line(e)}", EXIT_USAGE)
        print(f"--fetch {name}: one modelled run")
        print(copies_text(copies(run.plan), limit=args.copies or None))
        print(run.summary())
    return 0


def _one_line(e):
    text = " ".join(str(e).split())
    if len(text) > 300:
        text = text[:297] + "..."
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _script_line(e, script):
    """ " (at SCRIPT, line N)" for the innermost frame of the script (or of any file outside devlab)."""
    script = os.path.abspath(script)
    devlab_dir = os.path.dirname(os.path.abspath(__file__))
    frames = traceback.extract_tb(e.__traceback__)
    for f in reversed(frames):
        if os.path.abspath(f.filename) == script:
            return f" (at {f.filename}, line {f.lineno})"
    for f in reversed(frames):
        path = os.path.abspath(f.filename)
        if not path.startswith(devlab_dir + os.sep) and not f.filename.startswith("<") and "runpy" not in path:
            return f" (at {f.filename}, line {f.lineno})"
    return ""


def _write_outputs(last, args):
    if last is None:
        print("devlab: the script ran no session, so nothing was placed.", file=sys.stderr)
        return 0 if not (drawings(args) or args.trace) else EXIT_ERROR
    for fmt, path in drawings(args):
        from .views.graph_view import GraphView
        try:
            GraphView(last.session, last.plan, level="ops" if args.ops else None).save(path, fmt)
        except (OSError, RuntimeError, ValueError) as e:
            return fail(f"--{fmt} {path}: could not write the drawing: {_one_line(e)}")
        print(f"devlab: placed graph written to {path}")
    if args.trace:
        from .views.chrome_trace import Timeline
        stats = last.modelled.step_stats if last.modelled is not None else getattr(last.run_metadata, "step_stats", None)
        if stats is None:
            return fail(f"--trace {args.trace}: the last run was not traced, so there is no timeline")
        try:
            Timeline(stats).save(args.trace)
        except OSError as e:
            return fail(f"--trace {args.trace}: could not write the timeline: {_one_line(e)}")
        kind = "modelled timeline" if last.modelled is not None else "timeline"
        print(f"devlab: {kind} written to {args.trace} (open it in https://ui.perfetto.dev)")
    if args.doctor:
        try:
            print(last.session.diagnose())
        except ValueError as e:
            return fail(f"--doctor: {e}")
    return 0


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = parser()
    if not argv:
        ap.print_usage(sys.stderr)
        print("devlab: give a command, e.g. `devlab place SCRIPT.py --gpus 2`; `devlab --help` says more",
              file=sys.stderr)
        return EXIT_USAGE
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:  # --help and --version exit 0; a bad option exits 2 after one line
        return e.code if isinstance(e.code, int) else EXIT_USAGE
    if args.command == "place":
        return place(args)
    ap.print_usage(sys.stderr)
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
