"""Records TensorFlow 2.21's signature of every public ``tf.compat.v1`` callable devlab also offers.
devlab lists its public names first (its venv), then TF's venv records their signatures:

    python tests/test_api_signatures.py > /tmp/devlab_names.json
    /path/to/tf-venv/bin/python tools/record_signatures.py tests/data/tf_signatures.json /tmp/devlab_names.json

For each function, and each public method of each class, of devlab's ``tf`` namespace and its
sub-namespaces (the list tests/test_api_signatures.py walks), TF's parameters in order with their
kind. tests/test_api_signatures.py checks that a parameter devlab shares with TF sits at the same
position, so an argument passed by position means what it means in TF.
"""
import inspect
import json
import os
import sys

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".tf_keras"))


def main(out_path, names_path):
    import tensorflow.compat.v1 as tf
    names = json.load(open(names_path))
    out = {"_meta": {"tensorflow": tf.__version__}}
    for key in names:
        path, _, member = key.partition(":")  # tf.train.Saver:save
        obj = tf
        try:
            for part in path.split(".")[1:]:
                obj = getattr(obj, part)
            if member:
                obj = getattr(obj, member)
            params = inspect.signature(obj).parameters.values()
        except (AttributeError, TypeError, ValueError):
            continue  # not in TF (a devlab extra), or no signature
        out[key] = [[p.name, p.kind.name] for p in params]
    with open(out_path, "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
    print(f"recorded {len(out) - 1} of {len(names)} signatures")


if __name__ == "__main__":
    main(*sys.argv[1:3])
