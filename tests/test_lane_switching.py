"""While a program's lanes run side by side (``parallel.side_by_side``), the interpreter switches
threads every ``parallel.SWITCH_INTERVAL`` at most, so that a lane waiting for the interpreter lock
gets it soon; the caller's interval is back once the last lanes have returned, however they end."""
import sys
import threading

import pytest

from devlab.devices import parallel

pytestmark = pytest.mark.skipif(parallel._workers()._max_workers < 1, reason="no worker: no lanes")


@pytest.fixture(autouse=True)
def usual_interval():
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.005)
    yield
    sys.setswitchinterval(before)


def test_lanes_run_with_the_short_interval_and_give_the_callers_back():
    seen = []

    def lane():
        seen.append(sys.getswitchinterval())

    assert parallel.side_by_side(lane, [lane])
    assert seen == [parallel.SWITCH_INTERVAL] * 2
    assert sys.getswitchinterval() == 0.005


def test_a_shorter_interval_of_the_callers_own_is_kept():
    sys.setswitchinterval(0.0001)
    mine = sys.getswitchinterval()
    seen = []
    assert parallel.side_by_side(lambda: seen.append(sys.getswitchinterval()), [lambda: None])
    assert seen == [mine]
    assert sys.getswitchinterval() == mine


def test_the_callers_interval_comes_back_whole_run_after_run():
    """Python keeps whole microseconds, truncating what it is given: it reports 502 µs as
    0.000501999..., and giving that back would lose one microsecond each run."""
    sys.setswitchinterval(0.0005025)
    mine = sys.getswitchinterval()
    assert round(mine * 1e6) == 502
    for _ in range(3):
        assert parallel.side_by_side(lambda: None, [lambda: None])
    assert sys.getswitchinterval() == mine


def test_the_interval_comes_back_after_an_interrupted_caller():
    def first():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        parallel.side_by_side(first, [lambda: None])
    assert sys.getswitchinterval() == 0.005


def test_the_interval_comes_back_when_the_last_of_two_side_by_side_calls_ends(monkeypatch):
    """Two sessions' lanes at once (a machine with workers for both): the first to end leaves the
    short interval to the other; the caller's comes back when the second ends."""
    monkeypatch.setattr(parallel, "_lanes", 0)
    pool = parallel._workers()
    monkeypatch.setattr(pool, "_max_workers", max(pool._max_workers, 2))
    inside, release, seen = threading.Event(), threading.Event(), []

    def long_lane():
        inside.set()
        assert release.wait(10)

    outer = threading.Thread(target=parallel.side_by_side, args=(long_lane, [lambda: None]))
    outer.start()
    try:
        assert inside.wait(10)
        assert parallel.side_by_side(lambda: None, [lambda: None])
        seen.append(sys.getswitchinterval())  # the first call still runs
    finally:
        release.set()
        outer.join(10)
    assert seen == [parallel.SWITCH_INTERVAL]
    assert sys.getswitchinterval() == 0.005
