"""Write {"_meta": ..., op: entry, ...} as compact JSON with one op per line, so that a
re-recording shows up in git as the ops that changed."""
import json


def write(meta, ops, path):
    enc = lambda x: json.dumps(x, separators=(",", ":"), sort_keys=True)  # noqa: E731
    lines = ['"_meta":' + json.dumps(meta, sort_keys=True)]
    lines += ["%s:%s" % (json.dumps(op), enc(ops[op])) for op in sorted(ops)]
    with open(path, "w") as f:
        f.write("{\n" + ",\n".join(lines) + "\n}\n")
    json.load(open(path))  # round-trip check
