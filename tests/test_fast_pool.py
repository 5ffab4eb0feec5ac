"""The compiled pooling of devlab/ops/fast_pool.py (numba, the ``fast`` extra) gives the numpy
kernels' values bit for bit (an average's NaN up to its sign bit), over random shapes, windows,
strides and SAME/VALID padding, with ties, NaN, infinities and signed zeros in the input and in
the gradient, in float32 and float64, in one call and in parts on threads; max pooling gives TF's
recorded values; and the path hands back (None) what it is not given."""
import json
import pathlib
import sys

import numpy as np
import pytest

from devlab.ops import fast_pool, optional_numba
from devlab.ops import nn_kernels as nk
from kernel_context import Context

pytest.importorskip("numba")  # the fast extra, which the test extra installs


@pytest.fixture(autouse=True)
def compiled_path_on(monkeypatch):
    """These tests are about the compiled path: on, whatever DEVLAB_NUMBA says."""
    monkeypatch.setattr(fast_pool, "ENABLED", True)


def bits(a):
    """The array's bytes as unsigned integers: equal only where every bit is (NaN == NaN, 0 != -0)."""
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def bits_any_nan(a):
    """As ``bits``, every NaN made one: a sum's NaN sign bit (inf + -inf, or NaN + NaN) depends on
    which operand the CPU's addition met first, which the compiler may order either way."""
    return bits(np.where(np.isnan(a), np.array(np.nan, a.dtype), a))


def both_paths(monkeypatch, fn, *args):
    """(the compiled kernel's result, the numpy kernel's) of ``nn_kernels`` function ``fn``."""
    with np.errstate(all="ignore"):  # inf + -inf in a sum of shares, without a warning, as a run computes
        fast = fn(*args)
        with monkeypatch.context() as m:
            m.setattr(fast_pool, "ENABLED", False)
            slow = fn(*args)
    return fast, slow


SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, 1.0, -1.0])


def values(rng, shape, dtype, special):
    """Few distinct values (ties in most windows), and with ``special`` NaN, infinities and zeros of
    both signs scattered among them."""
    x = rng.integers(-3, 4, shape).astype(dtype)
    if special:
        where = rng.random(shape) < 0.3
        x[where] = rng.choice(SPECIALS, int(where.sum())).astype(dtype)
    return x


def geometries(seed, count):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        h, w = int(rng.integers(1, 12)), int(rng.integers(1, 12))
        kh, kw = int(rng.integers(1, 6)), int(rng.integers(1, 6))
        sh, sw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        padding = str(rng.choice(["SAME", "VALID"]))
        if padding == "VALID":
            kh, kw = min(kh, h), min(kw, w)
        shape = (int(rng.integers(1, 5)), h, w, int(rng.choice([1, 3, 8, 64, 67])))
        out.append((shape, {"ksize": [1, kh, kw, 1], "strides": [1, sh, sw, 1], "padding": padding,
                            "data_format": "NHWC"}))
    return out


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # inf + -inf in the threads of parts
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("special", [False, True], ids=["ties", "nan_inf_zeros"])
@pytest.mark.parametrize("threads", [False, True], ids=["one_call", "in_parts"])
def test_compiled_pooling_is_the_numpy_kernels_bit_for_bit(monkeypatch, dtype, special, threads):
    if threads:
        monkeypatch.setattr(nk, "POOL_PARTS", 1)  # every input handed to the cores in parts
    rng = np.random.default_rng(int(special) * 2 + int(threads))
    for shape, attrs in geometries(29 + int(special), 40):
        k = Context(attrs, threads)
        x = values(rng, shape, dtype, special)
        fast, slow = both_paths(monkeypatch, nk.max_pool, k, x)
        assert fast is not None and fast.dtype == dtype
        np.testing.assert_array_equal(bits(fast), bits(slow), err_msg=str((shape, attrs)))
        dy = values(rng, fast.shape, dtype, special)
        fast_dx, slow_dx = both_paths(monkeypatch, nk.max_pool_grad, k, x, fast, dy)
        np.testing.assert_array_equal(bits(fast_dx), bits(slow_dx), err_msg=str((shape, attrs)))
        fast, slow = both_paths(monkeypatch, nk.avg_pool, k, x)
        np.testing.assert_array_equal(bits_any_nan(fast), bits_any_nan(slow), err_msg=str((shape, attrs)))
        fast_dx, slow_dx = both_paths(monkeypatch, nk.avg_pool_grad, k, np.array(shape), dy)
        np.testing.assert_array_equal(bits_any_nan(fast_dx), bits_any_nan(slow_dx), err_msg=str((shape, attrs)))


def test_shares_of_one_input_add_in_the_windows_scan_order(monkeypatch):
    """One input the maximum of four overlapping windows: its gradient is ((a + b) + c) + d in the
    windows' order, which differs in float32 from other orders; both paths add in that order."""
    attrs = {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": "VALID", "data_format": "NHWC"}
    x = np.zeros((1, 5, 5, 1), np.float32)
    x[0, 2, 2, 0] = 1.0  # inside all four windows
    dy = np.array([1e8, 1.0, -1e8, 1.0], np.float32).reshape(1, 2, 2, 1)
    fast, slow = both_paths(monkeypatch, nk.max_pool_grad, Context(attrs), x, x, dy)
    want = np.float32(np.float32(np.float32(np.float32(1e8) + np.float32(1.0)) + np.float32(-1e8)) + np.float32(1.0))
    assert fast[0, 2, 2, 0] == slow[0, 2, 2, 0] == want == 1.0  # 1e8 + 1 rounds back to 1e8 first
    assert fast.sum() == slow.sum() == 1.0


def test_what_the_compiled_path_is_not_given_goes_back_to_numpy(monkeypatch):
    attrs = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID", "data_format": "NHWC"}
    k = Context(attrs)
    x = np.arange(32, dtype=np.float32).reshape(1, 4, 4, 2)
    win = nk.Windows(k, x.shape, (2, 2))
    run = lambda fn: fn(0, 1)  # noqa: E731
    assert fast_pool.max_pool(k, win, x.astype(np.int32), run) is None  # integers: numpy's
    assert fast_pool.max_pool(k, win, x.astype(np.float16), run) is None
    y = fast_pool.max_pool(k, win, x, run)
    assert fast_pool.max_pool_grad(k, win, x, y.astype(np.float64), run) is None  # mixed dtypes
    assert fast_pool.max_pool(Context(dict(attrs, data_format="NCHW")), win, x, run) is None
    monkeypatch.setattr(fast_pool, "ENABLED", False)
    assert fast_pool.max_pool(k, win, x, run) is None
    np.testing.assert_array_equal(y, nk.max_pool(k, x))  # the numpy kernel's values


def test_a_strided_view_is_pooled_as_its_values(monkeypatch):
    """An input that is not one contiguous block (a slice of channels) gives the values of its copy."""
    attrs = {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": "SAME", "data_format": "NHWC"}
    base = np.random.default_rng(3).standard_normal((2, 9, 9, 10)).astype(np.float32)
    x = base[..., 1:8:2]
    k = Context(attrs)
    fast, slow = both_paths(monkeypatch, nk.max_pool, k, x)
    np.testing.assert_array_equal(fast, nk.max_pool(k, np.ascontiguousarray(x)))
    np.testing.assert_array_equal(fast, slow)
    dy = np.ones(fast.shape, np.float32)[..., ::1]
    fast_dx, slow_dx = both_paths(monkeypatch, nk.max_pool_grad, k, x, fast, dy)
    np.testing.assert_array_equal(fast_dx, slow_dx)


RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "tf_max_pool.json").read_text())


@pytest.mark.parametrize("compiled", [True, False], ids=["numba", "numpy"])
@pytest.mark.parametrize("case", sorted(RECORDED["cases"]))
def test_max_pooling_gives_tensorflows_values_for_nan_infinities_zeros_and_ties(monkeypatch, compiled, case):
    """MaxPool as both of TF's kernels (they agree); MaxPoolGrad as TF's Eigen kernel, bit for bit,
    shares added in its order. TF's default oneDNN kernel is recorded beside it: it differs where a
    window's first input is NaN, where a padded window holds only NaN or -inf (it loses that
    window's gradient), and in the order it adds one input's shares (tools/record_max_pool.py)."""
    monkeypatch.setattr(fast_pool, "ENABLED", compiled)
    c = RECORDED["cases"][case]
    attrs = {"ksize": c["ksize"], "strides": c["strides"], "padding": c["padding"], "data_format": "NHWC"}
    x, dy = np.array(c["x"], np.float32), np.array(c["dy"], np.float32)
    k = Context(attrs)
    y = nk.max_pool(k, x)
    dx = nk.max_pool_grad(k, x, y, dy)
    for kernel in ("eigen", "onednn"):
        np.testing.assert_array_equal(bits(y), bits(np.array(RECORDED[kernel][case]["y"], np.float32)))
    np.testing.assert_array_equal(bits(dx), bits(np.array(RECORDED["eigen"][case]["dx"], np.float32)))
    if case in ("nan_first", "mixed", "padded_all_nan", "padded_all_minus_inf", "four_windows"):
        assert RECORDED["onednn"][case]["dx"] != RECORDED["eigen"][case]["dx"]


def test_without_numba_the_numpy_kernels_run(monkeypatch):
    """numba is an extra: where it cannot be imported, the numpy kernels give the values."""
    attrs = {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": "SAME", "data_format": "NHWC"}
    x = np.random.default_rng(5).standard_normal((2, 7, 7, 4)).astype(np.float32)
    k = Context(attrs)
    compiled = nk.max_pool(k, x)
    fast_pool._kernels.cache_clear()
    monkeypatch.setitem(sys.modules, "numba", None)  # import numba raises ImportError
    monkeypatch.setattr(optional_numba, "_module", None)  # ... and devlab tries it again
    try:
        assert fast_pool._kernels() is None and not fast_pool.usable(k, x)
        np.testing.assert_array_equal(nk.max_pool(k, x), compiled)
    finally:
        fast_pool._kernels.cache_clear()


def test_importing_devlab_leaves_numba_unimported():
    """numba's import (0.4 s of CPU time) waits for the first pooling."""
    import subprocess
    code = "import sys, devlab; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_without_a_cache_directory_the_kernels_compile_all_the_same(monkeypatch):
    """numba refuses ``cache=True`` (RuntimeError) where it finds no directory to write to."""
    import numba

    def njit(**options):
        if options.get("cache"):
            raise RuntimeError("cannot cache function '_max_pool': no locator available for file")
        return lambda f: f  # the plain Python function stands for the compiled one

    monkeypatch.setattr(numba, "njit", njit)
    fast_pool._kernels.cache_clear()
    try:
        kernels = fast_pool._kernels()
        assert kernels == (fast_pool._max_pool, fast_pool._max_pool_grad, fast_pool._avg_pool,
                           fast_pool._avg_pool_grad)
    finally:
        fast_pool._kernels.cache_clear()
