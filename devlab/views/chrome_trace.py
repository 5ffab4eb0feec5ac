"""Chrome trace JSON from ``RunMetadata.step_stats`` (after TF's ``client/timeline.py``).

Each device is a process with two lanes, ``Compute`` (its ops) and ``Copies`` (the transfers
arriving there); ops are complete events (``ph: X``) and each transfer is also drawn as a flow
arrow (``ph: s`` at the producer's end, ``ph: t`` at the copy's start). Load the file in
chrome://tracing or https://ui.perfetto.dev. Times are *modelled* when any device in the run is
simulated (a numpy-backed GPU's measured time means nothing), *measured* otherwise.
"""
import json

from ..unimplemented import argument


class Timeline:
    def __init__(self, step_stats, graph=None):
        self.step_stats = step_stats
        self.modelled = any(d.simulated for d in step_stats.dev_stats)

    @property
    def clock(self):
        return "modelled" if self.modelled else "measured"

    def events(self):
        """[(device, lane, node name, op type, start us, duration us, stats)] in start order."""
        out = []
        for dev in self.step_stats.dev_stats:
            for n in dev.node_stats:
                start, dur = ((n.modelled_start_micros, n.modelled_rel_micros) if self.modelled
                              else (n.all_start_micros, n.all_end_rel_micros))
                lane = "Copies" if n.op == "_Recv" else "Compute"
                out.append((dev.device, lane, n.node_name, n.op, start, dur, n))
        return sorted(out, key=lambda e: (e[4], e[0], e[2]))

    def generate_chrome_trace_format(self, show_dataflow=True, show_memory=False):
        if show_memory:  # TF adds memory-usage counters from the allocation records
            raise argument("show_memory", "Timeline.generate_chrome_trace_format")
        devices = sorted(d.device for d in self.step_stats.dev_stats)
        pid = {d: i + 1 for i, d in enumerate(devices)}
        trace = [{"name": "process_name", "ph": "M", "pid": 0, "args": {"name": f"devlab ({self.clock} time)"}}]
        for d in devices:
            trace.append({"name": "process_name", "ph": "M", "pid": pid[d], "args": {"name": d}})
            for tid, lane in enumerate(("Compute", "Copies")):
                trace.append({"name": "thread_name", "ph": "M", "pid": pid[d], "tid": tid,
                              "args": {"name": f"{d} {lane}"}})
        ends = {}
        for device, lane, name, op, start, dur, n in self.events():
            tid = 0 if lane == "Compute" else 1
            args = {"name": name, "op": op, "bytes": n.bytes}
            if op == "_Recv":
                args.update({"tensor": n.tensor, "from": n.transfer_from})
            trace.append({"ph": "X", "cat": "Op", "name": op if op != "_Recv" else f"copy {n.tensor}",
                          "pid": pid[device], "tid": tid, "ts": round(start, 3), "dur": round(dur, 3), "args": args})
            ends[(device, name)] = start + dur
        if show_dataflow:
            flow = 0
            for device, lane, name, op, start, dur, n in self.events():
                if op != "_Recv":
                    continue
                producer = n.tensor.rsplit(":", 1)[0]
                src_end = ends.get((n.transfer_from, producer))
                if src_end is None:
                    continue
                flow += 1
                common = {"cat": "DataFlow", "name": n.tensor, "id": flow}
                trace.append({"ph": "s", "pid": pid[n.transfer_from], "tid": 0, "ts": round(src_end, 3), **common})
                trace.append({"ph": "t", "pid": pid[device], "tid": 1, "ts": round(start, 3), "bp": "e", **common})
        return json.dumps({"traceEvents": trace, "displayTimeUnit": "ns"}, indent=4)

    def save(self, path):
        with open(path, "w") as f:
            f.write(self.generate_chrome_trace_format())
