"""Drawing the placed graph with graphviz: one cluster and one colour per device, transfers as
bold dashed edges labelled with the bytes they move, colocated ops marked.

Large graphs fold each top-level name scope into one node per device (TensorBoard-style), so
a 10,000-op graph still draws in well under two seconds; ``unfold=["scope"]`` opens a scope.
Node ids are op names, never ``id()``, so the SVG is the same on every run.
"""
import html

from ..runtime.steps import OpStep

PALETTE = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C",
           "#CCB974", "#64B5CD"]
FOLD_ABOVE = 150  # ops: fold name scopes by default above this many
MISSING_DOT = ("Graphviz's `dot` program is not installed, so the graph cannot be drawn. Install it with "
               "`apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` (macOS) or "
               "`conda install graphviz`; the placement log above is complete without it.")


class GraphView:
    """The placed graph of a session's last run (or of all its placed ops)."""

    def __init__(self, session, plan=None, collapse=None, unfold=(), highlight=None):
        self.session = session
        self.plan = plan if plan is not None else session.last_plan
        graph_ops = session.graph.get_operations()
        if self.plan is not None:
            ran = {s.op.name for s in self.plan.steps if isinstance(s, OpStep)}
            ran |= {t.op.name for t in (s.tensor for s in self.plan.transfers)}
            self.ops = [op for op in graph_ops if op.name in ran]
        else:
            self.ops = [op for op in graph_ops if op.name in session.placement.assigned]
        self.collapse = len(self.ops) > FOLD_ABOVE if collapse is None else collapse
        self.unfold = set(unfold)
        self.highlight = highlight

    def _node_of(self, op):
        """The drawn node for ``op``: itself, or its folded top-level scope on its device."""
        device = self.session.placement.device_of(op)
        if self.collapse and "/" in op.name:
            scope = op.name.split("/", 1)[0]
            if scope not in self.unfold:
                # graphviz reads "a:b" in a node id as node a, port b, so the id has no colon
                return f"{scope}/@{device.device_type}_{device.index}@{device.job}_{device.task}", scope
        return op.name, None

    def to_dot(self):
        """The graphviz ``Digraph``."""
        import graphviz
        placement = self.session.placement
        devices = sorted({placement.device_of(op) for op in self.ops}, key=lambda d: d.sort_key())
        colour = {d.name: PALETTE[i % len(PALETTE)] for i, d in enumerate(devices)}
        dot = graphviz.Digraph("placement", graph_attr={"rankdir": "TB", "fontname": "Helvetica", "fontsize": "11"},
                               node_attr={"shape": "box", "style": "rounded,filled", "fontname": "Helvetica",
                                          "fontsize": "10"})
        folded = {}
        for device in devices:
            with dot.subgraph(name=f"cluster_{device.short_name}") as sub:
                sub.attr(label=device.name, color=colour[device.name], fontcolor=colour[device.name],
                         style="rounded")
                for op in self.ops:
                    if placement.device_of(op) is not device:
                        continue
                    node, scope = self._node_of(op)
                    if scope is not None:
                        folded.setdefault(node, []).append(op)
                        continue
                    group = placement.groups.get(op.name, op.name)
                    label = f"{op.type}\n{op.name}" + (f"\nloc:@{group}" if group != op.name else "")
                    attrs = {"fillcolor": colour[device.name] + "33", "color": colour[device.name]}
                    if group != op.name:
                        attrs["peripheries"] = "2"  # colocated with another op
                    if self.highlight == op.name:
                        attrs.update(fillcolor="#FFD54F", penwidth="3")
                    sub.node(op.name, label, tooltip=f"{op.name} on {device.name}", **attrs)
                for node, members in sorted(folded.items()):
                    if placement.device_of(members[0]) is device:
                        hit = any(m.name == self.highlight for m in members)
                        sub.node(node, f"{node.split('/@')[0]}/\n({len(members)} ops)", shape="box3d",
                                 fillcolor="#FFD54F" if hit else colour[device.name] + "22",
                                 color=colour[device.name])
        edges = set()
        for op in self.ops:
            dst, _ = self._node_of(op)
            for t in op.inputs:
                src, _ = self._node_of(t.op)
                crosses = placement.device_of(t.op) is not placement.device_of(op)
                if src != dst and not crosses:
                    edges.add((src, dst))
        for src, dst in sorted(edges):
            dot.edge(src, dst)
        consumers = {}  # (tensor, device) -> the drawn ops on that device that read it
        for op in self.ops:
            device = placement.device_of(op)
            for t in op.inputs:
                consumers.setdefault((t, device), []).append(op)
        for step, size in self._transfers():
            t = step.tensor
            src, _ = self._node_of(t.op)
            for consumer in consumers.get((t, step.device), ()):
                dst, _ = self._node_of(consumer)
                dot.edge(src, dst, label=f"copy {_human(size)}" if size is not None else "copy",
                         style="dashed", penwidth="2", color="#C62828", fontcolor="#C62828", fontsize="9")
        return dot

    def _transfers(self):
        if self.plan is None:
            return []
        out = []
        for step in self.plan.transfers:
            t = step.tensor
            size = None
            if t.shape.is_fully_defined() and t.dtype.base_dtype.name != "string":
                size = t.shape.num_elements() * t.dtype.base_dtype.size
            out.append((step, size))
        return out

    def svg(self):
        """The drawing as SVG text, or a one-paragraph message when ``dot`` is missing."""
        import graphviz
        try:
            return self.to_dot().pipe(format="svg").decode()
        except graphviz.ExecutableNotFound:
            return None

    def save(self, path):
        """Writes SVG, PNG or PDF, chosen by the file's extension."""
        import graphviz
        fmt = path.rsplit(".", 1)[-1].lower()
        if fmt not in ("svg", "png", "pdf"):
            raise ValueError(f"save() writes .svg, .png or .pdf, not .{fmt}")
        try:
            data = self.to_dot().pipe(format=fmt)
        except graphviz.ExecutableNotFound:
            raise RuntimeError(MISSING_DOT) from None
        with open(path, "wb") as f:
            f.write(data)
        return path

    def _repr_mimebundle_(self, include=None, exclude=None):
        svg = self.svg()
        if svg is None:
            return {"text/plain": MISSING_DOT, "text/html": f"<p><b>devlab:</b> {html.escape(MISSING_DOT)}</p>"}
        return {"image/svg+xml": svg, "text/plain": repr(self)}

    def __repr__(self):
        n_dev = len({self.session.placement.device_of(op).name for op in self.ops})
        return f"<placed graph: {len(self.ops)} ops on {n_dev} devices, {len(self._transfers())} transfers>"


def _human(n):
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


