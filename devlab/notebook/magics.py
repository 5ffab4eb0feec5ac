"""``%%placement`` and ``%placement_log``.

``%%placement`` runs the cell's TF1 code with ``tf`` bound to devlab and a fresh default graph,
then shows in that cell, in this order: the device mapping and placement log once, as TF's lines,
printed from each session's events as it places (a long log only its first lines), the cell's own output, a
one-line summary per session (ops, devices, copies, bytes) over the placement table (folded), the
placed graph of everything the cell ran (a widget: pan, zoom, click a folded scope to open it; above
150 ops one node per device, a click on a device opens its ops, on an arrow lists its copies),
and, on request, the stepper, the timeline or an explanation. Inside
the cell ``import tensorflow as tf`` (or ``tensorflow.compat.v1``) gives devlab, so pasted code
runs as pasted; outside the magic nothing is redirected.

An error raised in the cell is shown short: for devlab's (TF's) errors the op, the reason and the
op's line; for any other, only the user's own frames (cells and the user's files), each as
"cell N, line L" with its source line, never devlab's or IPython's internals.
"""
import ast
import contextlib
import functools
import os
import re
import sys
import sysconfig
import traceback

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import HTML, display

import devlab

from .. import config as devlab_config
from ..aliases import tensorflow_is_devlab
from ..framework import errors
from ..framework.graph import Graph, reset_default_graph
from ..devices.transfer import transfer
from ..runtime import events
from ..runtime.events import OpsPlaced, Recorder, SessionCreated
from ..views.placement_report import LOG_LIMIT, PlacementReport, log_text
from . import source_names
from .reprs import Unwrapped
from ..views.tracebacks import short_traceback


_MAGIC_BODIES = {}  # cached file name of a %%placement cell's body -> its execution count
_DEVLAB_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBRARY_DIRS = tuple({os.path.abspath(p) for p in (sysconfig.get_paths().get("stdlib"), sysconfig.get_paths().get("purelib"),
                                                    sysconfig.get_paths().get("platlib"), sys.prefix, sys.base_prefix) if p})


def _calling_cell(shell):
    """The execution count of the cell running this magic: the number IPython cached the calling
    cell under (IPython 9 counts up before a cell runs, 8 after), else the shell's count."""
    cells = getattr(shell.compile, "_filename_map", {}) or {}
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename in cells:
            return cells[frame.f_code.co_filename]
        frame = frame.f_back
    return getattr(shell, "execution_count", 0) or 0


def _is_user_file(filename, cells):
    """A cell, or a file of the user's (not devlab's, IPython's or an installed package's)."""
    if filename in cells or filename in _MAGIC_BODIES:
        return True
    if filename.startswith("<"):
        return False
    path = os.path.abspath(filename)
    return not path.startswith(_DEVLAB_DIR + os.sep) and not any(path.startswith(d + os.sep) for d in _LIBRARY_DIRS)


def _where(filename, lineno, cells):
    """"cell N, line L" for a cell (a %%placement body starts on the cell's line 2); else "file:line"."""
    if filename in _MAGIC_BODIES:
        return f"cell {_MAGIC_BODIES[filename]}, line {lineno + 1}"
    if filename in cells:
        return f"cell {cells[filename]}, line {lineno}"
    return f"{filename}, line {lineno}"


def _name_cells(line, cells):
    """``line`` with every "<cell file>:<line>" or 'File "<cell file>", line <n>' said as "cell N, line L"."""
    for filename in set(cells) | set(_MAGIC_BODIES):
        if filename not in line:
            continue
        pattern = re.compile(r'File "' + re.escape(filename) + r'", line (\d+)|' + re.escape(filename) + r":(\d+)")
        line = pattern.sub(lambda m: _where(filename, int(m.group(1) or m.group(2)), cells), line)
    return line


def _asked_for_log(session):
    """Whether ``session`` was made with ``log_device_placement=True`` (or the log is on for all)."""
    config = getattr(session, "config", None)
    return bool(getattr(config, "log_device_placement", False)) or bool(devlab_config.get("force_log"))


def _usage():
    """``%%placement``'s help: what it does, then its options."""
    parser = PlacementMagics.placement.parser
    text = parser.format_help().lstrip(":\n").replace("%placement [", "usage: %%placement [", 1)
    return text.strip() + "\n"


@contextlib.contextmanager
def fresh_default_graph():
    """A new default graph for the cell. It stays the default afterwards (so later cells can
    inspect it), unless an enclosing ``with graph.as_default()`` is active, as in tests."""
    try:
        reset_default_graph()
    except AssertionError:  # nested default graphs: reset is refused, so nest one more
        with Graph().as_default():
            yield
        return
    yield


@magics_class
class PlacementMagics(Magics):
    @magic_arguments()
    @argument("--gpus", type=int, default=None, help="simulated GPUs for sessions that name no GPU count")
    @argument("--cpus", type=int, default=None, help="CPUs for sessions that name no CPU count")
    @argument("--soft", action="store_true", help="allow soft placement in every session")
    @argument("--draw", dest="draw", action="store_true", default=True, help="draw the placed graph (default)")
    @argument("--no-draw", dest="draw", action="store_false", help="do not draw the placed graph")
    @argument("--step", action="store_true", help="open the stepper on the last run")
    @argument("--timeline", action="store_true", help="show the last run's timeline")
    @argument("--explain", metavar="OP", default=None, help="explain the placement of op OP")
    @argument("--fold", dest="fold", action="store_true", default=None,
              help="fold numbered ops and name scopes in the drawing (default: when it is big)")
    @argument("--no-fold", dest="fold", action="store_false", help="never fold the drawing")
    @argument("--collapse", dest="fold", action="store_true", help="the old name of --fold")
    @argument("--ops", action="store_true",
              help="draw the ops even above 150 ops (the default there: one node per device)")
    @argument("--unfold", metavar="SCOPE", action="append", default=[], help="open this folded name scope")
    @argument("--runs", metavar="I,J", default=None,
              help="draw only these of the cell's different runs (0 is the first); default: all of them")
    @argument("--full-log", action="store_true", help="print every placement line, however long the log")
    @argument("--compare-tf", action="store_true", help="also run the cell under TensorFlow, if installed")
    @argument("--no-log", dest="log", action="store_false", default=True,
              help="do not print the sessions' placement logs (printed by default, as log_device_placement=True would)")
    @argument("--doctor", action="store_true", help="name the costly placement patterns of the last run and their fixes")
    @argument("-h", "--help", action="store_true", help="print this help and run nothing")
    @cell_magic
    def placement(self, line, cell):
        """Run TF1 code with devlab and show where each op goes and why."""
        args = parse_argstring(self.placement, line)
        if args.help:
            print(_usage())
            return None
        for flag in ("gpus", "cpus"):
            value = getattr(args, flag)
            minimum = 1 if flag == "cpus" else 0
            if value is not None and value < minimum:
                raise UsageError(f"--{flag} must be at least {minimum}, got {value}")
            if value is not None and value > devlab_config.MAX_DEVICES_PER_TYPE:
                raise UsageError(f"--{flag} must be at most {devlab_config.MAX_DEVICES_PER_TYPE} (devlab simulates at "
                                 f"most {devlab_config.MAX_DEVICES_PER_TYPE} devices of each type), got {value}")
        if "import tensorflow" in cell:
            print("devlab: `import tensorflow` gives devlab inside this cell.")
        settings = {"log_to_stdout": False, "trace_all": args.timeline}  # the log is printed from events
        if args.gpus is not None:
            settings["simulated_gpus"] = args.gpus
        if args.cpus is not None:
            settings["default_cpus"] = args.cpus
        if args.soft:
            settings["force_soft_placement"] = True
        with Recorder() as cap, devlab_config.override(**settings), tensorflow_is_devlab(), fresh_default_graph(), \
                self._tf_is_devlab(), self._print_logs(None if args.full_log else LOG_LIMIT, args.log):
            try:
                value = self._run(cell)
            except SyntaxError:
                raise  # IPython shows these itself, with the cell and the caret
            except (Exception, KeyboardInterrupt) as e:  # shown by IPython as the user's frames only, by cell and line
                with contextlib.suppress(AttributeError, TypeError):
                    e._render_traceback_ = functools.partial(self._cell_traceback, e)
                raise
        self._show(cap, args)
        if args.compare_tf:
            self._compare_tf(cell, cap)
        return value

    @contextlib.contextmanager
    def _tf_is_devlab(self):
        """``tf`` names devlab inside the cell; afterwards the notebook's own ``tf`` is back (a cell
        that imports tensorflow gets devlab, but only for that cell)."""
        ns = self.shell.user_ns
        missing = object()
        before = ns.get("tf", missing)
        ns["tf"] = devlab
        try:
            yield
        finally:
            if ns.get("tf") is devlab and before is not devlab:
                if before is missing:
                    ns.pop("tf", None)
                else:
                    ns["tf"] = before

    @contextlib.contextmanager
    def _print_logs(self, limit, on=True):
        """Inside, every session's device mapping and placement log are printed from its events
        (``SessionCreated``, ``OpsPlaced``), a log longer than ``limit`` lines only its head. A
        session that did not ask for ``log_device_placement`` gets one line saying why it prints."""
        def show(event):
            if not on:
                return
            if isinstance(event, SessionCreated):
                if not _asked_for_log(event.session):
                    print("devlab: %%placement prints every session's placement log, as log_device_placement=True "
                          "would (--no-log: don't)")
                display(Unwrapped(event.session.device_mapping))  # its long lines scroll, never wrap
            elif isinstance(event, OpsPlaced) and event.records:
                print(log_text(event.records, limit=limit))
        events.add_listener(show)
        try:
            yield
        finally:
            events.remove_listener(show)

    def _run(self, cell):
        """Executes the cell as IPython would (as %%time does) and returns its last expression.
        The code is cached under the cell's execution count, so tracebacks can say "cell N"."""
        shell = self.shell
        src = shell.transform_cell(cell)
        number = _calling_cell(shell)
        filename = shell.compile.cache(src, number, raw_code=cell)
        _MAGIC_BODIES[filename] = number
        source_names.remember(filename, number, line_offset=1)  # the body's line 1 is the cell's line 2
        tree = shell.transform_ast(shell.compile.ast_parse(src, filename=filename))
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr) and not src.rstrip().endswith(";"):
            last = ast.Expression(tree.body.pop().value)
        exec(shell.compile(tree, filename, "exec"), shell.user_ns)  # noqa: S102 - the user's own cell
        if last is not None:
            return eval(shell.compile(last, filename, "eval"), shell.user_ns)  # noqa: S307
        return None

    def _show(self, cap, args):
        for report in cap.reports:
            if report.records:
                display(PlacementReport(report.session, report.records, report.plans, report.run_metadata))
        last = cap.last
        if args.draw and not args.step and last is not None:  # the stepper draws the graph itself
            from .graph_widget import GraphWidget
            plans = list({id(p): p for p in last.plans}.values())  # each different run once
            if args.runs is not None:
                try:
                    plans = [plans[int(i)] for i in args.runs.split(",")]
                except (ValueError, IndexError):
                    raise UsageError(f"--runs names runs 0 to {len(plans) - 1} of this cell, "
                                     f"got {args.runs!r}") from None
            graph = GraphWidget(last.session, runs=plans, fold=args.fold, level="ops" if args.ops or args.unfold else None)
            for scope in args.unfold:
                graph.unfold(scope)
            display(graph)
        if args.explain and last is not None:
            try:
                display(last.session.explain(args.explain))
            except (KeyError, ValueError) as e:
                print(f"devlab: cannot explain {args.explain!r}: {e}")
        if args.timeline:
            self._show_timeline(last)
        if args.step and last is not None:
            from .stepper_widget import StepperWidget
            if last.modelled is not None:
                print("devlab: --step replays a real run, and this cell's last run was modelled; "
                      "sess.modelled_stepper(fetches) steps through a modelled one")
            else:
                host = last.session.host  # the last run's feeds, replayed by the stepper
                feeds = {t: transfer(v, device, host) for (_, t, device), v in zip(last.plan.feed_slots, last.feeds)}
                display(StepperWidget(last.session, list(last.plan.fetches), feeds))

        if args.doctor:
            if last is None:
                print("devlab: --doctor reads a run, and this cell ran none")
            else:
                from ..runtime.doctor import diagnose
                display(diagnose(last.session, last.plan))  # the cell's last run, modelled ones too

    def _show_timeline(self, last):
        if last is None or last.run_metadata is None:
            print("devlab: no traced run in this cell, so there is no timeline to show.")
            return
        from ..views.timeline_view import gantt
        fig = gantt(last.run_metadata.step_stats)  # says which extra to install when matplotlib is missing
        import matplotlib.pyplot as plt
        display(fig)
        plt.close(fig)

    def _compare_tf(self, cell, cap):
        import importlib.util
        if importlib.util.find_spec("tensorflow") is None:  # never import it here: the cell ran with devlab
            print("devlab: --compare-tf needs TensorFlow (pip install tensorflow-cpu); skipped.")
            return
        from ..views.compare import compare_with_tensorflow
        display(HTML(compare_with_tensorflow(cell, cap)))

    def _cell_traceback(self, error):
        """The lines IPython shows for an error raised in a %%placement cell: for devlab's errors,
        the op, the reason and the op's line; for any other, the user's own frames (cells and the
        user's files, never devlab's or IPython's) as "cell N, line L" with the source line."""
        try:
            return self._user_frames(error)
        except Exception:  # noqa: BLE001 - never hide the user's error behind one of ours
            return traceback.format_exception(type(error), error, error.__traceback__)

    def _user_frames(self, error):
        compiler = getattr(self.shell, "compile", None)
        cells = dict(getattr(compiler, "_filename_map", {}) or {})
        if isinstance(error, errors.OpError):
            return [_name_cells(line, cells) for line in short_traceback(error)]
        frames = [f for f in traceback.extract_tb(error.__traceback__) if _is_user_file(f.filename, cells)
                  and not (f.line or "").startswith("get_ipython().")]  # the line IPython made of "%%placement"
        lines = ["Traceback (your code only, most recent call last):"] if frames else []
        for f in frames:
            where = _where(f.filename, f.lineno, cells)
            lines.append(f"  {where}" + (f", in {f.name}" if f.name not in ("<module>", "<lambda>") else ""))
            if f.line:
                lines.append(f"    {f.line.strip()}")
        text = str(error)
        lines.append(f"{type(error).__name__}: {text}" if text else type(error).__name__)
        return lines

    @line_magic("placement")
    def placement_line(self, line):
        """``%placement --help``: the cell magic's help (IPython sends ``%%placement --help`` with an
        empty cell here, "did you mean the line magic"); anything else says it is a cell magic."""
        if line.strip() in ("-h", "--help", ""):
            print(_usage())
            return
        raise UsageError("%%placement is a cell magic: put `%%placement " + line.strip() + "` on the first line "
                         "of a cell of TF1 code (`%placement --help` lists its options)")

    @line_magic
    def placement_log(self, line):
        """``%placement_log on|off``: print every session's placement log in later cells."""
        word = line.strip().lower()
        if word not in ("on", "off"):
            raise UsageError("usage: %placement_log on|off")
        devlab_config.set_placement_log(word == "on")
        print(f"devlab: placement log {word} for every session")
