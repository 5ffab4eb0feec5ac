"""Real-GPU figures: run on a machine where CuPy finds a CUDA GPU.

    python benchmarks/bench_gpu.py               # on a GPU machine
    python benchmarks/bench_gpu.py --simulated   # the same program on numpy-backed GPUs (checks the script)

- matmul through devlab vs CuPy alone, float32, n = 1024..8192 (TFLOP/s and the ratio);
- Conv2D through devlab vs the same im2col product written in CuPy alone, and their values;
- a 1,000-op chain of small ops on one GPU (per-op overhead);
- host<->device and device<->device copies through devlab's ``transfer`` vs CuPy's own;
- seed 004's mixed sum on 4 logical GPUs sharing the one card;
- the training steps of ``bench_models.py`` (CNN towers, PTB LSTM) on one real GPU, on two logical
  GPUs sharing it, on the real GPU beside a simulated one, and on the CPU, with their losses.
Medians of several runs; every GPU timing synchronises the device first.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from models import cnn_towers, ptb_lm  # noqa: E402

import devlab as tf  # noqa: E402
from devlab.devices import gpu  # noqa: E402
from devlab.devices.device_set import build_devices  # noqa: E402
from devlab.devices.transfer import transfer  # noqa: E402


def timed(fn, sync, repeat=7):
    fn()
    sync()
    out = []
    for _ in range(repeat):
        sync()
        t0 = time.perf_counter()
        fn()
        sync()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def gpu_session(n_gpus, cpus=1):
    return tf.Session(config=tf.ConfigProto(device_count={"GPU": n_gpus, "CPU": cpus}))


def matmuls(cp, to_host, sync, sizes):
    print("matmul, float32: devlab session.run (GPU-resident inputs) vs cupy.matmul")
    for n in sizes:
        a = cp.asarray(np.random.default_rng(n).standard_normal((n, n), dtype=np.float32))
        with tf.Graph().as_default():
            with tf.device("/gpu:0"):
                v = tf.Variable(tf.zeros([n, n]), name="a")
                y = tf.reduce_sum(tf.matmul(v, v))  # a scalar fetch: the product stays on the GPU
            s = gpu_session(1)
            s.run(v.initializer)
            s.load_variable(v, to_host(a))
            t_dev = timed(lambda: s.run(y), sync)
            got = float(s.run(y))
        t_cp = timed(lambda: cp.matmul(a, a).sum(), sync)
        want = float(cp.matmul(a, a).sum())
        flops = 2 * n ** 3
        print(f"  n={n}: devlab {flops / t_dev / 1e12:7.2f} TFLOP/s, cupy {flops / t_cp / 1e12:7.2f} TFLOP/s, "
              f"ratio {t_cp / t_dev:.3f}; sums {got:.6g} vs {want:.6g}")


def im2col_conv(cp, x, f):
    """SAME, stride 1 Conv2D of NHWC ``x`` by HWIO ``f`` in CuPy alone: one product of the taps."""
    kh, kw, cin, cout = f.shape
    n, h, w, _ = x.shape
    top, left = (kh - 1) // 2, (kw - 1) // 2
    padded = cp.pad(x, ((0, 0), (top, kh - 1 - top), (left, kw - 1 - left), (0, 0)))
    taps = cp.stack([padded[:, i:i + h, j:j + w, :] for i in range(kh) for j in range(kw)], axis=3)
    return (taps.reshape(n * h * w, kh * kw * cin) @ f.reshape(kh * kw * cin, cout)).reshape(n, h, w, cout)


def convs(cp, to_host, sync, shapes):
    print("Conv2D, float32, SAME: devlab session.run vs the same im2col product in CuPy alone")
    for n, hw, cin, cout, k in shapes:
        rng = np.random.default_rng(cin)
        x = cp.asarray(rng.standard_normal((n, hw, hw, cin), dtype=np.float32))
        f = cp.asarray(rng.standard_normal((k, k, cin, cout), dtype=np.float32) * 0.05)
        with tf.Graph().as_default():
            with tf.device("/gpu:0"):
                vx = tf.Variable(tf.zeros([n, hw, hw, cin]), name="x")
                vf = tf.Variable(tf.zeros([k, k, cin, cout]), name="f")
                y = tf.nn.conv2d(vx, vf, [1, 1, 1, 1], "SAME")
                total = tf.reduce_sum(y)
            s = gpu_session(1)
            s.run([vx.initializer, vf.initializer])
            s.load_variables({vx: to_host(x), vf: to_host(f)})
            t_dev = timed(lambda: s.run(total), sync)
            got = s.run(y)
        t_cp = timed(lambda: im2col_conv(cp, x, f).sum(), sync)
        want = to_host(im2col_conv(cp, x, f))
        err = float(np.max(np.abs(got - want)) / max(1e-30, float(np.max(np.abs(want)))))
        flops = 2 * n * hw * hw * k * k * cin * cout
        print(f"  {n}x{hw}x{hw}x{cin} * {k}x{k}x{cin}x{cout}: devlab {t_dev * 1e3:8.3f} ms "
              f"({flops / t_dev / 1e12:6.2f} TFLOP/s), cupy im2col {t_cp * 1e3:8.3f} ms, ratio {t_cp / t_dev:.3f}; "
              f"largest difference / largest value {err:.2e}")


def chain(sync):
    print("1,000-op chain of small ops on GPU:0 (per-op overhead)")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [16])
        with tf.device("/gpu:0"):
            h = x
            for _ in range(1000):
                h = h * 1.0001
        s = gpu_session(1)
        feed = {x: np.ones(16, np.float32)}
        t = timed(lambda: s.run(h, feed), sync)
        print(f"  {t * 1e3:.2f} ms per run, {t * 1e6 / 1000:.1f} us per op; value {s.run(h, feed)[0]:.6f} "
              f"(numpy {np.float32(1.0001) ** 1000:.6f})")


def copies(cp, sync, real):
    devices = build_devices({"GPU": 2})
    host, g0, g1 = devices[0], devices[1], devices[2]
    print("copies of 256 MiB through devlab's transfer() vs cupy")
    arr = np.ones(64 * 2 ** 20, np.float32)
    on_gpu = cp.asarray(arr)
    nbytes = arr.nbytes
    asnumpy = getattr(cp, "asnumpy", np.asarray)
    for label, fn, ref in (("host->device", lambda: transfer(arr, host, g0), lambda: cp.asarray(arr)),
                           ("device->host", lambda: transfer(on_gpu, g0, host), lambda: asnumpy(on_gpu))):
        t, r = timed(fn, sync), timed(ref, sync)
        print(f"  {label}: devlab {nbytes / t / 1e9:.1f} GB/s, cupy {nbytes / r / 1e9:.1f} GB/s")
    if real and gpu.physical_gpu_count() > 1:
        t = timed(lambda: transfer(on_gpu, g0, g1), sync)
        print(f"  device->device (two cards): devlab {nbytes / t / 1e9:.1f} GB/s")
    tf.config.set_logical_gpus_per_card(2)
    try:
        devices = build_devices({"GPU": 2})
        g0, g1 = devices[1], devices[2]
        t = timed(lambda: transfer(on_gpu, g0, g1), sync)
        print(f"  device->device (two logical GPUs of one card): devlab {nbytes / t / 1e9:.1f} GB/s")
    finally:
        tf.config.set_logical_gpus_per_card(1)


def mixed_sum(sync):
    print("seed 004 mixed sum on 4 logical GPUs sharing card 0")
    tf.config.set_logical_gpus_per_card(4)
    try:
        with tf.Graph().as_default():
            parts = []
            for d in ["/device:GPU:2", "/device:GPU:3"]:
                with tf.device(d):
                    parts.append(tf.matmul(tf.ones([2048, 2048]), tf.ones([2048, 2048])))
            with tf.device("/cpu:0"):
                total = tf.reduce_sum(tf.add_n(parts))
            s = gpu_session(4)
            print(f"  {timed(lambda: s.run(total), sync) * 1e3:.2f} ms per run; value {s.run(total):.0f} "
                  f"(exact {2 * 2048 ** 3})")
    finally:
        tf.config.set_logical_gpus_per_card(1)


def model_step(sync, build, config, repeat, **kw):
    """(median seconds of a training step, (loss before training, after one step), the devices of
    its products) of ``build``'s model."""
    g, init, train, loss, feed = build(tf, **kw)
    with g.as_default():
        s = tf.Session(graph=g, config=config)
    s.run(init)
    before = float(s.run(loss, feed))
    s.run(train, feed)
    after_one = float(s.run(loss, feed))  # the same on every device up to float32 rounding
    s.run(train, feed)
    t = timed(lambda: s.run(train, feed), sync, repeat)
    placed = sorted({getattr(d, "name", str(d)).rsplit("/", 1)[-1] for d in
                     (s.placement.device_of(op) for op in g.get_operations() if op.type in ("Conv2D", "MatMul"))})
    s.close()
    return t, (before, after_one), placed


def models(sync, repeat):
    print("training steps (bench_models.py's models), median of", repeat, "steps; loss before training and after one step")
    runs = [
        ("CNN towers on the CPU (/cpu:0, /cpu:1)", cnn_towers, {"CPU": 2, "GPU": 0}, 1, {}),
        ("CNN towers both on one real GPU", cnn_towers, {"CPU": 1, "GPU": 1}, 1,
         {"devices": ["/gpu:0", "/gpu:0"]}),
        ("CNN towers on 2 logical GPUs of one card", cnn_towers, {"CPU": 1, "GPU": 2}, 2,
         {"devices": ["/gpu:0", "/gpu:1"]}),
        ("CNN towers on the real GPU + a simulated one", cnn_towers, {"CPU": 1, "GPU": 2}, 1,
         {"devices": ["/gpu:0", "/gpu:1"]}),
        ("CNN towers on one real GPU, variables on it too", cnn_towers, {"CPU": 1, "GPU": 1}, 1,
         {"devices": ["/gpu:0", "/gpu:0"], "variables": "/gpu:0"}),
        ("PTB LSTM on the CPU", ptb_lm, {"CPU": 1, "GPU": 0}, 1, {}),
        ("PTB LSTM on one real GPU (embedding on /cpu:0)", ptb_lm, {"CPU": 1, "GPU": 1}, 1, {}),
    ]
    for title, build, count, per_card, kw in runs:
        tf.config.set_logical_gpus_per_card(per_card)
        try:
            t, (before, after), placed = model_step(sync, build, tf.ConfigProto(device_count=count), repeat, **kw)
            print(f"  {title:50s} {t * 1e3:9.2f} ms  loss {before:.6f} -> {after:.6f}  products on {', '.join(placed)}")
        except Exception as e:  # noqa: BLE001 - one failing model must not hide the others' figures
            print(f"  {title:50s} FAILED: {type(e).__name__}: {str(e).splitlines()[0][:300]}")
        finally:
            tf.config.set_logical_gpus_per_card(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--simulated", action="store_true", help="run on numpy-backed GPUs where no GPU exists")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--quick", action="store_true", help="small sizes only")
    ap.add_argument("parts", nargs="*", help=f"some of {', '.join(PARTS)} (default: all)")
    args = ap.parse_args()
    cp = gpu.cupy_module()
    if cp is None and not args.simulated:
        print("no CUDA GPU found by CuPy: nothing to measure here (--simulated runs the script on numpy)")
        return 1
    real = cp is not None
    if real:
        sync = cp.cuda.Device(0).synchronize
        to_host = cp.asnumpy
        print(gpu.describe(0))
        print(f"CuPy {cp.__version__}, CUDA runtime {cp.cuda.runtime.runtimeGetVersion()}, "
              f"driver {cp.cuda.runtime.driverGetVersion()}, numpy {np.__version__}")
    else:
        cp, sync, to_host = np, (lambda: None), np.asarray
        print("simulated GPUs (numpy): the script's check, not a GPU figure")
    parts = args.parts or PARTS
    if "matmul" in parts:
        matmuls(cp, to_host, sync, (256, 512) if args.quick else (1024, 2048, 4096, 8192))
    if "conv" in parts:
        shapes = [(32, 24, 3, 64, 5), (32, 12, 64, 64, 5)]  # the CNN's two convolutions (one tower)
        convs(cp, to_host, sync, shapes + ([] if args.quick else [(64, 32, 64, 128, 3), (128, 56, 64, 64, 3)]))
    if "chain" in parts:
        chain(sync)
    if "copies" in parts:
        copies(cp, sync, real)
    if "mixed" in parts:
        mixed_sum(sync)
    if "models" in parts:
        models(sync, args.repeat)
    return 0


PARTS = ("matmul", "conv", "chain", "copies", "mixed", "models")


if __name__ == "__main__":
    sys.exit(main())
