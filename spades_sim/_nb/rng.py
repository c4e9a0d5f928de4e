"""Counter-based random streams: ``(seed, kind, a, b) -> key``, then ``draw(key, i)``.

Every random draw of deal ``a`` (or hand ``b`` of game ``a``) is ``mix64(key + i * GOLDEN)``
for a counter ``i`` the kernel advances, where ``key`` depends on the run seed and the
deal's coordinates alone (SplitMix64's finaliser, Steele, Lea & Flood 2014). So a result
never depends on thread count, chunking or worker count, and any deal can be regenerated
on its own.
"""

import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
LOW32 = np.uint64(0xFFFFFFFF)
KIND_HANDS = 1
KIND_GAMES = 2


@njit(inline="always", cache=True)
def mix64_nb(z):
    """SplitMix64 finaliser: a bijective 64-bit mix with full avalanche."""
    z = (z ^ (z >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    return z ^ (z >> np.uint64(31))


@njit(inline="always", cache=True)
def stream_key_nb(seed, kind, a, b):
    """The key of the stream of item ``(a, b)`` of a run of kind ``kind`` with ``seed``."""
    k = mix64_nb(np.uint64(seed) ^ np.uint64(0x5BADE5_0000_0000))
    k = mix64_nb(k + np.uint64(kind) * GOLDEN)
    k = mix64_nb(k + np.uint64(a) * GOLDEN)
    return mix64_nb(k + np.uint64(b) * GOLDEN + np.uint64(1))


@njit(inline="always", cache=True)
def draw_nb(key, counter):
    """The 64 random bits number ``counter`` of the stream ``key``."""
    return mix64_nb(key + np.uint64(counter) * GOLDEN)


@njit(inline="always", cache=True)
def below_nb(bits32, n):
    """An integer uniform on 0..n-1 from 32 random bits (Lemire's multiply-shift)."""
    return np.int64((np.uint64(bits32) * np.uint64(n)) >> np.uint64(32))


@njit(inline="always", cache=True)
def unit_nb(bits):
    """A float uniform on [0, 1) from 64 random bits (53 of them used)."""
    return np.float64(bits >> np.uint64(11)) * (1.0 / 9007199254740992.0)
