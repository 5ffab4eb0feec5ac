"""TensorFlow's random number generator for its stateful CPU kernels: Philox4x32-10 (Salmon et
al., "Parallel random numbers: as easy as 1, 2, 3"), seeded and advanced as TF's
``GuardedPhiloxRandom`` does, so a seeded op (``RandomShuffle``) draws exactly TF's numbers.

The generator is a 128-bit counter and a 64-bit key; each call turns the counter into four
32-bit numbers (ten rounds of multiply-and-xor, the key raised between rounds) and counts up.
A kernel reserves the samples it needs for one run; the next run starts after them.
"""
import numpy as np

_M0, _M1 = 0xD2511F53, 0xCD9E8D57  # the round multipliers
_W0, _W1 = 0x9E3779B9, 0xBB67AE85  # the key's increments (the golden ratio, sqrt(3) - 1)
_MASK = 0xFFFFFFFF


def _block(counter, key):
    """The four 32-bit outputs of one counter value (TF's PhiloxRandom::operator())."""
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for i in range(10):
        p0, p1 = _M0 * c0, _M1 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0) & _MASK, p1 & _MASK, ((p0 >> 32) ^ c3 ^ k1) & _MASK, p0 & _MASK
        if i < 9:
            k0, k1 = (k0 + _W0) & _MASK, (k1 + _W1) & _MASK
    return c0, c1, c2, c3


class Philox:
    """``PhiloxRandom(seed, seed2)``: the key from ``seed``, the counter's high half from ``seed2``."""

    def __init__(self, seed, seed2):
        seed, seed2 = int(seed) & (2**64 - 1), int(seed2) & (2**64 - 1)
        self.key = (seed & _MASK, seed >> 32)
        self.counter = 0 | (seed2 << 64)  # the 128-bit counter, as an int

    def reserve_samples32(self, samples):
        """A generator of ``samples`` 32-bit numbers (TF's ReserveSamples32 and SingleSampleAdapter);
        the counter moves past them for the next caller."""
        start = self.counter
        self.counter = (self.counter + (samples + 3) // 4) & (2**128 - 1)
        return _singles(start, self.key)

    def get_state(self):
        return self.counter

    def set_state(self, state):
        self.counter = state


def _singles(counter, key):
    while True:
        words = tuple((counter >> (32 * i)) & _MASK for i in range(4))
        yield from _block(words, key)
        counter = (counter + 1) & (2**128 - 1)


def shuffle_permutation(n, philox):
    """The order TF's RandomShuffle puts ``n`` rows in: a Fisher-Yates pass from the front, each
    swap partner ``i + sample % (n - i)``."""
    perm = np.arange(n)
    if n <= 1:
        return perm
    samples = philox.reserve_samples32(n - 1)
    for i in range(n - 1):
        j = i + next(samples) % (n - i)
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def random_shuffle(k, value):
    """TF's RandomShuffle: the rows of ``value`` in the order its seeded Philox generator draws
    (a tensor of one row, or none, comes back as it is and draws nothing)."""
    if value.ndim == 0 or value.size <= 1 or value.shape[0] <= 1:
        return value.copy()
    return value[k.xp.asarray(shuffle_permutation(value.shape[0], k.philox))]
