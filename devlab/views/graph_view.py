"""Drawing the placed graph: one box per device, ops inside in their device's colour, every copy
between devices a red dashed edge labelled with the bytes it moves, fed tensors as feeds on their
device, and a legend.

What is drawn is the session's *whole executed graph*: the union of every plan it ran (so an
update run and a read run both appear), or only the runs you name (``runs=[0, 2]`` or plans).

Big drawings fold, decided by their drawn size (nodes, and nodes side by side), not by a flag:

1. *series*: numbered ops of one type in one scope on one device (``add``, ``add_1``, ...)
   become one stacked node, ``add ×5000``;
2. *scopes*: if that is still too big, each name scope becomes one 3-D box per device
   (TensorBoard-style). ``unfold=["layer3"]`` opens a scope (its sub-scopes stay folded);
   in the notebook a click on the box does it.

Above ``DEVICE_VIEW_OPS`` ops the default drawing is the *device view*: one node per device (its
op count and biggest scopes), one arrow per (source, destination) labelled with its copies and
bytes per run, so the drawing has as many nodes as devices whether the graph has 10 ops or
100,000. ``level="ops"`` draws the ops; ``open_device="GPU:0"`` draws one device's ops (folded
by scope); in the notebook a click on a device opens it and a click on an arrow lists its copies.

The DOT text is written here directly, one line per node and edge with op names quoted safely,
so building it stays linear (a 10,000-op chain with 10,000 copies takes a few ms once folded);
``dot`` runs in a subprocess with a time limit. Node ids are op names or their folds, never
``id()``, so the SVG is the same on every run.
"""
import html
import re
import shutil
import subprocess

from .colours import COPY_COLOUR, CURRENT_COLOUR, device_colour, short_device
from .copies import by_route, copies, total_bytes
from .sizes import bytes_label, human_bytes, tensor_bytes  # noqa: F401 - also read from here by other views

DEVICE_VIEW_OPS = 150  # ops above which the default drawing is one node per device
SCOPE_LABEL = 18  # characters of a scope name in a device box (longer ones end in "…/")
NODE_BUDGET = 60  # drawn nodes above which series, then scopes, fold
RANK_BUDGET = 14  # nodes side by side (same depth) above which they fold too
SERIES_MIN = 3  # numbered ops that make a series
DOT_TIMEOUT = 30  # seconds
MISSING_DOT = ("Graphviz's `dot` program is not installed, so the graph cannot be drawn. Install it with "
               "`apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` (macOS) or "
               "`conda install graphviz`; the placement log above is complete without it.")
_NUMBERED = re.compile(r"^(.*?)(?:_(\d+))?$")


class GraphvizMissing(RuntimeError):
    pass


def dot_quote(text):
    """``text`` as a double-quoted DOT string: backslashes and quotes escaped, newlines as ``\\n``."""
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def run_dot(source, fmt="svg", timeout=DOT_TIMEOUT):
    """Runs graphviz's ``dot`` on DOT text; returns the output bytes."""
    exe = shutil.which("dot")
    if exe is None:
        raise GraphvizMissing(MISSING_DOT)
    proc = subprocess.run([exe, f"-T{fmt}"], input=source.encode(), capture_output=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError("dot failed: " + proc.stderr.decode(errors="replace").strip())
    return proc.stdout


class Dot:
    """DOT text with graphviz-like helpers (``.source``, ``.pipe(format=...)``)."""

    def __init__(self, source):
        self.source = source

    def pipe(self, format="svg"):  # noqa: A002 - graphviz's name
        return run_dot(self.source, format)

    def _repr_mimebundle_(self, include=None, exclude=None):  # a notebook cell's value: the drawing
        try:
            return {"image/svg+xml": run_dot(self.source, "svg").decode(), "text/plain": self.source}
        except GraphvizMissing:  # the DOT text, and how to draw it
            return {"text/plain": f"{MISSING_DOT}\n{self.source}"}

    def __str__(self):
        return self.source


class _Node:
    """One drawn node: an op, a fed tensor, a series of numbered ops, or a folded scope."""

    __slots__ = ("key", "kind", "device", "ops", "label", "scope")

    def __init__(self, key, kind, device, label, scope=None):
        self.key, self.kind, self.device, self.label, self.scope = key, kind, device, label, scope
        self.ops = []


class _CopyEdge:
    __slots__ = ("count", "nbytes", "unsized", "steps")

    def __init__(self):
        self.count, self.nbytes, self.unsized, self.steps = 0, 0, 0, []


class GraphView:
    """The placed graph of what a session ran.

    ``plan``: draw only this plan; ``runs``: the plans to draw (Plans, or indices into
    ``session.plans_run``); by default every plan the session ran. ``fold``: None decides by
    size, True folds, False never folds (``collapse`` is the old name). ``highlight``: an op
    name to mark as current; ``highlight_copy``: ``(tensor name, device name)`` of a copy to mark;
    ``done``: names of ops already run and ``done_copies``: ``(tensor name, device name)`` of copies
    already made (drawn solid, the rest faded), when stepping. ``interactive``: drawn for the
    widget, where a click opens a folded scope (a static drawing does not say so). ``level``:
    "device" (one node per device), "ops", or None: devices above ``DEVICE_VIEW_OPS`` ops unless
    stepping or told never to fold. ``open_device``: draw only this device's ops (a short or full
    name), folded by scope.
    """

    def __init__(self, session, plan=None, runs=None, fold=None, unfold=(), highlight=None,
                 highlight_copy=None, done=None, done_copies=(), collapse=None, interactive=False,
                 level=None, open_device=None):
        self.session = session
        self.interactive = interactive
        if plan is not None:
            self.plans = [plan]
        elif runs is not None:
            ran = list(session.plans_run)
            plans = [ran[r] if isinstance(r, int) else r for r in runs]
            self.plans = list({id(p): p for p in plans}.values())  # a plan that ran twice is drawn once
        else:
            self.plans = list(session.plans_run) or ([session.last_plan] if session.last_plan else [])
        self.fold = fold if fold is not None else collapse
        self.unfold = set(unfold)
        self.highlight = highlight
        self.highlight_copy = highlight_copy
        self.done = set(done) if done is not None else None
        self.done_copies = set(done_copies)
        self._collect()
        self.open_device = None
        if open_device:
            self._keep_device(open_device)
        if level not in (None, "device", "ops"):
            raise ValueError(f"level must be 'device' or 'ops', got {level!r}")
        if level is None:
            stepping = highlight is not None or highlight_copy is not None or done is not None
            big = len(self.ops) > DEVICE_VIEW_OPS
            level = "device" if big and not stepping and self.fold is not False and not open_device else "ops"
        self.level = level
        self.device_nodes = {}  # svg id of each device node (device view) -> the device's full name
        self.routes = {}  # svg id of each arrow (device view) -> (source, destination) full names
        self._layout = None
        self._bases = {}  # op name -> its series name (the name without its _N)

    # -- what ran -----------------------------------------------------------------------------------
    def _collect(self):
        placement = self.session.placement
        ops, feeds, transfers = {}, {}, {}
        if self.plans:
            for plan in self.plans:
                for op in plan.ops:
                    ops[op.name] = op
                for _, tensor, device in plan.feed_slots:
                    feeds[tensor] = device
                for step in plan.transfers:
                    transfers.setdefault((step.tensor, step.device.name), step)
        elif placement is not None:
            for op in self.session.graph.get_operations():
                if op.name in placement.assigned:
                    ops[op.name] = op
        self.ops = sorted(ops.values(), key=lambda op: op.id)
        self.feeds = {t: d for t, d in feeds.items() if t.op.name not in ops}
        self.transfers = list(transfers.values())
        self.device_of = {op.name: placement.device_of(op) for op in self.ops} if placement else {}

    def _keep_device(self, name):
        """Only the ops of device ``name`` (short or full), folded by scope unless told otherwise."""
        wanted = [d for d in {d.name: d for d in self.device_of.values()}.values()
                  if name in (d.name, short_device(d.name))]
        if not wanted:
            known = ", ".join(sorted({short_device(d.name) for d in self.device_of.values()}))
            raise ValueError(f"open_device: no ops ran on {name!r}; the devices drawn are {known}")
        device = wanted[0]
        self.open_device = device.name
        self.ops = [op for op in self.ops if self.device_of[op.name] is device]
        self.device_of = {op.name: device for op in self.ops}
        self.feeds = {t: d for t, d in self.feeds.items() if d is device}
        if self.fold is None:
            self.fold = True

    @property
    def devices(self):
        devs = {d.name: d for d in self.device_of.values()}
        devs.update({d.name: d for d in self.feeds.values()})
        return sorted(devs.values(), key=lambda d: d.sort_key())

    # -- folding --------------------------------------------------------------------------------------
    def layout(self):
        """(nodes by key, node key of each op name, node key of each fed tensor, folding used)."""
        if self._layout is None:
            folding = "none"
            if self.fold is not False:
                if self.fold or len(self.ops) + len(self.feeds) > NODE_BUDGET or self._too_big(
                        self._nodes(series=False, scopes=False)):
                    folding = "series"
                    series = self._nodes(series=True, scopes=False)
                    if self.fold or self._too_big(series):
                        folding = "scopes"
            if folding == "none":
                self._layout = self._nodes(False, False) + ("none",)
            else:
                self._layout = self._nodes(True, folding == "scopes") + (folding,)
        return self._layout

    def _too_big(self, layout):
        nodes, of_op, of_feed = layout
        if len(nodes) > NODE_BUDGET:
            return True
        return _widest_rank(nodes, self._node_edges(of_op, of_feed)) > RANK_BUDGET

    def _nodes(self, series, scopes):
        nodes, of_op, of_feed = {}, {}, {}
        counts = {}
        if series or scopes:
            for op in self.ops:
                k = self._fold_key(op, series, scopes, None)
                counts[k] = counts.get(k, 0) + 1
        for op in self.ops:
            device = self.device_of[op.name]
            key = self._fold_key(op, series, scopes, counts) if counts else None
            if key is None:
                node = nodes[op.name] = _Node(op.name, "op", device, None)
            else:
                node = nodes.get(key)
                if node is None:
                    kind, name = key[0], key[1]
                    node = nodes[key] = _Node(key, kind, device, name, scope=name if kind == "scope" else None)
            node.ops.append(op)
            of_op[op.name] = node.key
        for tensor, device in self.feeds.items():
            key = ("feed", tensor.name)
            nodes[key] = _Node(key, "feed", device, tensor.name)
            of_feed[tensor] = key
        return nodes, of_op, of_feed

    def _fold_key(self, op, series, scopes, counts):
        """The fold ``op`` belongs to (a tuple key), or None to draw it alone."""
        device = self.device_of[op.name].name
        if scopes:
            parts = op.name.split("/")
            prefix = ""
            for part in parts[:-1]:
                prefix = f"{prefix}/{part}" if prefix else part
                if prefix not in self.unfold:
                    key = ("scope", prefix, device)
                    if counts is None or counts.get(key, 0) > 1:
                        return key
                    break
        if series and not (self.unfold and op.name.rpartition("/")[0] in self.unfold):
            base = self._bases.get(op.name)
            if base is None:
                scope, _, last = op.name.rpartition("/")
                base = _NUMBERED.match(last).group(1)
                base = self._bases[op.name] = f"{scope}/{base}" if scope else base
            key = ("series", base, device, op.type)
            if counts is None or counts.get(key, 0) >= SERIES_MIN:
                return key
        return None

    # -- edges ----------------------------------------------------------------------------------------
    def _node_edges(self, of_op, of_feed):
        """{(src key, dst key)} for same-device data edges (copies are drawn apart)."""
        memo = getattr(self, "_edges_memo", None)
        if memo is not None and memo[0] is of_op:
            return memo[1]
        edges = set()
        for op in self.ops:
            dst = of_op[op.name]
            device = self.device_of[op.name]
            for t in op.inputs:
                src = of_op.get(t.op.name) if t not in of_feed else of_feed[t]
                if src is None or src == dst:
                    continue
                src_dev = self.device_of.get(t.op.name) or self.feeds.get(t)
                if src_dev is device:
                    edges.add((src, dst))
        self._edges_memo = (of_op, edges)
        return edges

    def _control_edges(self, of_op):
        edges = set()
        for op in self.ops:
            dst = of_op[op.name]
            for c in op.control_inputs:
                src = of_op.get(c.name)
                if src is not None and src != dst:
                    edges.add((src, dst))
        return edges

    def _copy_edges(self, of_op, of_feed):
        """{(src key, dst key): _CopyEdge} per drawn copy edge. A transfer is counted once, on the
        edge to the first op that reads it on its device; edges to other readers there carry no label."""
        consumers = {}
        device_of = self.device_of
        for op in self.ops:
            dname = device_of[op.name].name
            dst = of_op[op.name]
            for t in op.inputs:
                key = (t, dname)
                found = consumers.get(key)
                if found is None:
                    consumers[key] = [dst]
                elif dst not in found:
                    found.append(dst)
        edges = {}
        sizes = {}
        for step in self.transfers:
            t = step.tensor
            src = of_feed.get(t) or of_op.get(t.op.name)
            dsts = consumers.get((t, step.device.name))
            if src is None or not dsts:
                continue
            size_key = (t.shape, t.dtype)
            size = sizes.get(size_key, 0)
            if size == 0:
                size = sizes[size_key] = tensor_bytes(t)  # None: a size only the run knows
            for i, dst in enumerate(dsts):
                e = edges.get((src, dst))
                if e is None:
                    e = edges[(src, dst)] = _CopyEdge()
                if i == 0:
                    e.count += 1
                    e.nbytes += size or 0
                    e.unsized += size is None
                e.steps.append(step)
        return edges

    # -- DOT -----------------------------------------------------------------------------------------
    def to_dot(self):
        """The drawing as DOT text (a ``Dot``: ``.source``, ``.pipe(format=...)``)."""
        if self.level == "device":
            return self._device_dot()
        nodes, of_op, of_feed, folding = self.layout()
        self.folds = {}  # svg id of each folded scope -> the scope (what a click unfolds)
        self.copy_ids = {}  # (tensor name, device name) -> svg id of its copy edge
        lines = ['digraph placement {',
                 '  graph [rankdir=TB, fontname="Helvetica", fontsize=11, nodesep=0.25, ranksep=0.35, '
                 'newrank=true' + (', nslimit=2, mclimit=0.5' if len(nodes) > 150 else '') + '];',
                 '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10, height=0.3];',
                 '  edge [color="#555555", arrowsize=0.6, fontname="Helvetica"];']
        by_device = {}
        for node in nodes.values():
            by_device.setdefault(node.device.name, []).append(node)
        self._kinds = {n.kind for n in nodes.values()}
        ids = self.node_ids = {}  # node key -> svg id
        self._of_op = of_op
        for i, device in enumerate(self.devices):
            colour = device_colour(device.name)
            lines.append(f'  subgraph {dot_quote("cluster_" + short_device(device.name))} {{')
            lines.append(f'    id={dot_quote("cluster-" + short_device(device.name))}; '
                         f'label={dot_quote(_device_title(device))}; '
                         f'color="{colour}"; fontcolor="{colour}"; style="rounded"; penwidth=1.5;')
            for node in by_device.get(device.name, ()):
                nid = ids[node.key] = f"n{len(ids)}"
                lines.append("    " + self._node_line(nid, node, colour))
            lines.append('  }')
        for src, dst in sorted(self._node_edges(of_op, of_feed), key=lambda e: (ids[e[0]], ids[e[1]])):
            lines.append(f'  {ids[src]} -> {ids[dst]};')
        control = self._control_edges(of_op)
        if control:
            self._kinds.add("control")
        for src, dst in sorted(control, key=lambda e: (ids[e[0]], ids[e[1]])):
            lines.append(f'  {ids[src]} -> {ids[dst]} [style=dotted, color="#888888", arrowhead=odot];')
        copies = self._copy_edges(of_op, of_feed)
        hl = self.highlight_copy
        hl = None if hl is None else (getattr(hl[0], "name", hl[0]), hl[1])
        for n, ((src, dst), edge) in enumerate(sorted(copies.items(), key=lambda e: (ids[e[0][0]], ids[e[0][1]]))):
            eid = f"copy-{n}"
            current = False
            for step in edge.steps:
                self.copy_ids.setdefault((step.tensor.name, step.device.name), eid)
            if hl is not None:
                current = any(s.device.name == hl[1] and s.tensor.name == hl[0] for s in edge.steps)
            if edge.count == 0:
                label = ""  # the same copy reaches another op on that device
            elif edge.count == 1:
                label = f"copy {bytes_label(edge.nbytes, edge.unsized)}"
            else:
                label = f"{edge.count} copies, {bytes_label(edge.nbytes, edge.unsized)}"
            ran = self.done is None or current or any(
                (s.tensor.name, s.device.name) in self.done_copies for s in edge.steps)
            colour = "#E6A100" if current else COPY_COLOUR
            names = [s.tensor.name for s in edge.steps[:5]]
            more = len(edge.steps) - len(names)
            tip = "copy of " + ", ".join(names) + (f" and {more} more" if more > 0 else "")
            attrs = [f'id="{eid}"', f'class="devlab-copy{" devlab-current" if current else ""}"',
                     f'style="{"bold" if current else "dashed"}"', f'penwidth={4 if current else 2 if ran else 1}',
                     f'color="{colour}"', f'fontcolor="{colour}"', 'fontsize=9', f'tooltip={dot_quote(tip)}']
            if label:
                attrs.append(f"label={dot_quote(label)}")
            lines.append(f'  {ids[src]} -> {ids[dst]} [{", ".join(attrs)}];')
        lines.append(self._legend(folding))
        lines.append('}')
        return Dot("\n".join(lines))

    def _device_dot(self):
        """One node per device, one arrow per route labelled with its copies and bytes per run."""
        self.folds, self.copy_ids, self.node_ids, self._of_op = {}, {}, {}, {}
        self.routes_copies = by_route(copies(self.plans))
        counts, scopes = {}, {}
        for op in self.ops:
            d = self.device_of[op.name].name
            counts[d] = counts.get(d, 0) + 1
            top = op.name.split("/")[0] + "/" if "/" in op.name else None
            if top:
                per = scopes.setdefault(d, {})
                per[top] = per.get(top, 0) + 1
        fed = {}
        for d in self.feeds.values():
            fed[d.name] = fed.get(d.name, 0) + 1
        lines = ['digraph devices {',
                 '  graph [rankdir=LR, fontname="Helvetica", fontsize=12, nodesep=0.4, ranksep=1.0];',
                 '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=14, margin="0.25,0.12"];',
                 '  edge [color="' + COPY_COLOUR + '", fontcolor="' + COPY_COLOUR + '", fontname="Helvetica", '
                 'fontsize=13, style=dashed, penwidth=2];']
        ids = {}
        for device in self.devices:
            name, colour = device.name, device_colour(device.name)
            nid = ids[name] = f"device-{len(ids)}"
            self.device_nodes[nid] = name
            n = counts.get(name, 0)
            top = sorted(((sc, k) for sc, k in scopes.get(name, {}).items() if k > 2),  # scopes, not an op's Const
                         key=lambda kv: (-kv[1], kv[0]))[:3]
            label = [short_device(name), f"{n} op{'s' if n != 1 else ''}" + (f", {fed[name]} fed" if name in fed else "")]
            label += [f"{scope if len(scope) <= SCOPE_LABEL else scope[:SCOPE_LABEL - 2] + chr(0x2026) + '/'} {k}"
                      for scope, k in top]  # a long scope name no longer widens the whole drawing
            tip = f"{short_device(name)}: {n} ops ({_backing(device)})" + (" (click to open)" if self.interactive else "")
            lines.append(f'  "{nid}" [id="{nid}", class="devlab-device", label={dot_quote(chr(10).join(label))}, '
                         f'fillcolor="{colour}30", color="{colour}", fontcolor="#222222", penwidth=2, '
                         f'tooltip={dot_quote(tip)}];')
        for i, ((src, dst), rows) in enumerate(sorted(self.routes_copies.items(),
                                                        key=lambda kv: (ids.get(kv[0][0], ""), ids.get(kv[0][1], "")))):
            if src not in ids or dst not in ids:
                continue
            eid = f"route-{i}"
            self.routes[eid] = (src, dst)
            for c in rows:
                self.copy_ids.setdefault((c.tensor, c.destination), eid)
            nbytes = total_bytes(rows)
            label = f"{len(rows)} cop{'ies' if len(rows) != 1 else 'y'}\n{human_bytes(nbytes)} per run"
            tip = (f"{len(rows)} copies {short_device(src)} -> {short_device(dst)}: "
                   + ", ".join(c.tensor for c in rows[:5]) + (" ..." if len(rows) > 5 else "")
                   + (" (click to list them)" if self.interactive else ""))
            width = 1.5 + min(4.0, len(str(max(nbytes, 1))) / 2.5)  # thicker for more bytes
            lines.append(f'  "{ids[src]}" -> "{ids[dst]}" [id="{eid}", class="devlab-route", label={dot_quote(label)}, '
                         f'penwidth={width:.1f}, tooltip={dot_quote(tip)}];')
        n_ops = len(self.ops)
        moved = total_bytes([c for rows in self.routes_copies.values() for c in rows])
        n_copies = sum(len(rows) for rows in self.routes_copies.values())
        key = (f"device view: {n_ops} ops on {len(ids)} devices, {n_copies} copies ({human_bytes(moved)}) per run"
               + (" · click a device to open its ops, an arrow to list its copies" if self.interactive else
                  " · level='ops' or open_device=... draws the ops"))
        lines.append(f'  label={dot_quote(key)}; labelloc=b; labeljust=l; fontsize=12;')
        lines.append('}')
        return Dot("\n".join(lines))

    def svg_id_of_op(self, name):
        """The svg id of the node that draws op ``name`` (itself or its fold), after ``to_dot``."""
        key = self._of_op.get(name)
        return self.node_ids.get(key) if key is not None else None

    def svg_id_of_copy(self, tensor, device_name):
        """The svg id of the edge that draws the copy of ``tensor`` (a Tensor or its name) to
        ``device_name``, after ``to_dot``."""
        return self.copy_ids.get((getattr(tensor, "name", tensor), device_name))

    def _node_line(self, nid, node, colour):
        attrs, classes = [f'id="{nid}"'], []
        current = self.highlight is not None and any(op.name == self.highlight for op in node.ops)
        ran = self.done is None or any(op.name in self.done for op in node.ops)
        fill = CURRENT_COLOUR if current else colour + ("40" if ran else "10")
        line_colour = colour if ran or current else colour + "80"
        tip = ""
        if node.kind == "op":
            op = node.ops[0]
            label = f"{op.type}\n{op.name}"
            groups = _class_groups(op)
            if groups:
                self._kinds.add("colocated")
                label += "\n" + " ".join(groups)
                attrs.append("peripheries=2")
            tip = f"{op.name} ({op.type}) on {short_device(node.device.name)}"
        elif node.kind == "feed":
            label = f"feed\n{node.label}"
            attrs.append("shape=invhouse")
            tip = f"{node.label} is fed: its value comes from feed_dict, on {short_device(node.device.name)}"
        elif node.kind == "series":
            types = node.key[3]
            label = f"{types} \u00d7{len(node.ops)}\n{node.label}, {node.label}_1, ..."
            attrs += ['style="rounded,filled,bold"', "peripheries=2"]
            tip = f"{len(node.ops)} numbered {types} ops: {node.ops[0].name} ... {node.ops[-1].name}"
        else:  # a folded scope
            label = f"{node.label}/\n({len(node.ops)} ops)"
            attrs.append("shape=box3d")
            classes.append("devlab-fold")
            self.folds[nid] = node.scope
            tip = (f"name scope {node.label}/ folded: {len(node.ops)} ops on {short_device(node.device.name)}"
                   + (" (click to open)" if self.interactive else ""))
        attrs += [f"label={dot_quote(label)}", f'fillcolor="{fill}"', f'color="{line_colour}"',
                  f"tooltip={dot_quote(tip)}"]
        if current:
            attrs.append("penwidth=3")
            classes.append("devlab-current")
        elif not ran:
            attrs.append('fontcolor="#999999"')
        if classes:
            attrs.append(f'class="{" ".join(classes)}"')
        return f'{nid} [{", ".join(attrs)}];'

    def _legend(self, folding):
        swatches = [f'<font color="{device_colour(d.name)}">\u25a0</font> {html.escape(short_device(d.name))}: '
                    f'{html.escape(_backing(d))}' for d in self.devices]
        kinds = self._kinds
        keys = [f'<font color="{COPY_COLOUR}">- - &gt;</font> copy between devices (bytes moved)']
        if "colocated" in kinds:
            keys.append("double border: colocated (its loc:@ group)")
        if "control" in kinds:
            keys.append("dotted: control dependency")
        if "feed" in kinds:
            keys.append("house: fed from feed_dict")
        if "series" in kinds:
            keys.append("bold double box: numbered ops folded (name \u00d7 count)")
        if "scope" in kinds:
            keys.append("3-D box: folded name scope" + (" (click to open)" if self.interactive else ""))
        if self.done is not None:
            keys.append('<font color="#B8860B">yellow</font>: current step; faded: not run yet')
        gap = "    "
        lines = [gap.join(swatches[i:i + 4]) for i in range(0, len(swatches), 4)]  # four devices a line
        lines += [" \u00b7 ".join(keys[i:i + 3]) for i in range(0, len(keys), 3)]
        body = "".join(f'<tr><td align="left">{line}</td></tr>' for line in lines)
        return f'  label=<<table border="0" cellspacing="1" cellpadding="1">{body}</table>>; labelloc=b; labeljust=l;'

    # -- output ---------------------------------------------------------------------------------------
    def svg(self):
        """The drawing as SVG text, or None when ``dot`` is missing."""
        try:
            return fit_svg(self.to_dot().pipe("svg").decode())
        except GraphvizMissing:
            return None

    def save(self, path, fmt=None):
        """Writes SVG, PNG or PDF: ``fmt``, or by default the file's extension."""
        fmt = fmt or path.rsplit(".", 1)[-1].lower()
        if fmt not in ("svg", "png", "pdf"):
            raise ValueError(f"save() writes .svg, .png or .pdf, not .{fmt}")
        try:
            data = self.to_dot().pipe(fmt)
        except GraphvizMissing:
            raise RuntimeError(MISSING_DOT) from None
        with open(path, "wb") as f:
            f.write(data)
        return path

    def summary(self):
        n_dev = len(self.devices)
        sizes = [tensor_bytes(s.tensor) for s in self.transfers]
        nbytes = bytes_label(sum(n or 0 for n in sizes), sizes.count(None))
        return (f"placed graph: {len(self.ops)} ops on {n_dev} device{'s' if n_dev != 1 else ''}, "
                f"{len(self.transfers)} cop{'ies' if len(self.transfers) != 1 else 'y'} ({nbytes})")

    def _repr_mimebundle_(self, include=None, exclude=None):
        svg = self.svg()
        if svg is None:
            return {"text/plain": MISSING_DOT, "text/html": f"<p><b>devlab:</b> {html.escape(MISSING_DOT)}</p>"}
        return {"image/svg+xml": svg, "text/plain": repr(self)}

    def __repr__(self):
        return f"<{self.summary()}: run the cell (or trust the notebook) to see the drawing>"


def fit_svg(svg):
    """Lets a graphviz SVG shrink to the width of its output area (it never grows past 1:1). Also
    writes graphviz's ``&#45;`` as the plain hyphen it stands for, so ids and classes read as written."""
    return svg.replace("<svg width=", '<svg style="max-width:100%;height:auto" width=', 1).replace("&#45;", "-")


def _class_groups(op):
    """The op's real colocation groups (``loc:@w`` from its ``_class`` attr), or [] if it has none."""
    return [g.decode() if isinstance(g, bytes) else g for g in op.attrs.get("_class", ())
            if (g.decode() if isinstance(g, bytes) else g).startswith("loc:@")]


def _backing(device):
    if device.device_type == "GPU":
        return "simulated GPU (numpy)" if device.simulated else "real GPU (CuPy)"
    return "CPU (numpy)"


def _device_title(device):
    return short_device(device.name) + (" (simulated)" if device.simulated else "")


def _widest_rank(nodes, edges):
    """The most nodes at one depth of the drawn DAG (longest-path ranks; nodes in a cycle get the
    rank after the rest): roughly how many boxes dot will set side by side."""
    preds = {k: [] for k in nodes}
    succ = {k: [] for k in nodes}
    for a, b in edges:
        succ[a].append(b)
        preds[b].append(a)
    waiting = {k: len(v) for k, v in preds.items()}
    rank = {}
    ready = [k for k, n in waiting.items() if n == 0]
    for k in ready:
        rank[k] = 0
    while ready:
        k = ready.pop()
        for s in succ[k]:
            rank[s] = max(rank.get(s, 0), rank[k] + 1)
            waiting[s] -= 1
            if waiting[s] == 0:
                ready.append(s)
    top = max(rank.values(), default=0) + 1
    counts = {}
    for k in nodes:
        r = rank.get(k, top) if waiting[k] == 0 else top
        counts[r] = counts.get(r, 0) + 1
    return max(counts.values(), default=0)
