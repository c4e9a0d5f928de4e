"""The race model: a game's win chance from the scores in a few numbers, for a kernel.

Contract
--------
``race_win_nb(scores, bags, sides, side, target, mean, sd, bag_rate, penalty, limit)`` is
``side``'s chance to win a game to ``target`` from ``scores`` and ``bags`` (one entry a
side, ``sides`` of them), when every side scores ``mean`` points a hand on average
(before bag penalties) with standard deviation ``sd``, and takes ``bag_rate`` bags a
hand. Pure arithmetic on scalars and small arrays, no I/O. Its plain-Python twin is
``spades_sim.odds.equity.race_win`` (tested equal), which fits the three numbers to a
win table (``spades_sim.odds.equity.race_fit``).

Why a model and not the table: the win table (``odds/equity.py``) holds millions of
cells, and a bidder running inside the play kernels gets only its parameter row
(``PARAM_SLOTS`` numbers). The score-aware bidder (``advise_bid.py``) needs the win
chance after each bid it weighs, so it carries the table's shape in three numbers.

The model, as a race to the target (a backgammon race formula in spirit): side ``s``
needs ``d_s = target - score_s`` points plus what its bags will cost it before the game
ends, ``penalty * E[floor((bags_s + X) / limit)]`` with ``X`` the bags it takes in the
hands left, Poisson with mean ``bag_rate * h`` and ``h = min_s d_s / mean + 1/2`` the
hands the leader needs (so 9 bags cost a nearly full penalty early in a game and little
with one hand to go). Side ``s`` has reached its distance ``D_s`` within ``n`` hands
with chance ``F_s(n) = Phi((n * mean - D_s) / (sd * sqrt(n)))`` (a normal sum of
independent hands). A side wins at hand ``n`` when it arrives then and every other side
has not arrived, or arrives in the same hand and is beaten (half the time):
``w_s = sum_n f_s(n) * prod_{j != s} (1 - (F_j(n-1) + F_j(n)) / 2)``, ``f_s(n) =
F_s(n) - F_s(n-1)``, normalised over the sides. Not modelled: the loss threshold (a
state past it is judged exactly by the caller), the hands' correlation between sides,
``max_hands``. Against the standard game's table (20,000 games, every seat ``count``
and ``heuristic``), fitted, the mean absolute error over its live states is about 1.3
points of percentage (docs/win-table.md, "The race model").
"""

import math

import numpy as np
from numba import njit

RACE_HANDS = 200
"""The most hands the race sums (a game to 500 from -500 takes about 40 at 34 points a
hand); arrivals later than that count as never."""


@njit(cache=True)
def normal_cdf_nb(x):
    """The standard normal distribution function."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


@njit(cache=True)
def bag_charge_nb(bags, hands, bag_rate, penalty, limit):
    """``penalty * E[floor((bags + X) / limit)]``, ``X`` Poisson with mean
    ``bag_rate * hands``: the penalty points a side carrying ``bags`` expects to pay over
    ``hands`` more hands. 0 without a bag penalty."""
    if penalty <= 0 or limit <= 0:
        return 0.0
    lam = min(max(bag_rate * hands, 0.0), 600.0)
    p = math.exp(-lam)
    total = 0.0
    seen = 0.0
    k = 0
    while k < 2000:
        total += p * ((bags + k) // limit)
        seen += p
        if k > lam and seen > 1.0 - 1e-12:
            break
        k += 1
        p *= lam / k
    return penalty * total


@njit(cache=True)
def race_win_nb(scores, bags, sides, side, target, mean, sd, bag_rate, penalty, limit):
    """``side``'s chance to win (the module docstring); ``scores`` and ``bags`` hold at
    least ``sides`` entries."""
    mean = max(mean, 1e-9)
    sd = max(sd, 1e-9)
    nearest = 1e300
    for s in range(sides):
        nearest = min(nearest, max(target - scores[s], 0.0))
    hands = nearest / mean + 0.5
    dist = np.empty(sides, dtype=np.float64)
    for s in range(sides):
        dist[s] = target - scores[s] + bag_charge_nb(bags[s], hands, bag_rate, penalty, limit)
    before = np.zeros(sides, dtype=np.float64)  # F_s(n - 1)
    now = np.zeros(sides, dtype=np.float64)  # F_s(n)
    mass = np.zeros(sides, dtype=np.float64)
    for n in range(1, RACE_HANDS + 1):
        root = math.sqrt(n)
        done = True
        for s in range(sides):
            # a side already past its distance arrives at once; F never falls back
            now[s] = max(before[s], normal_cdf_nb((n * mean - dist[s]) / (sd * root)))
            if now[s] < 1.0 - 1e-12:
                done = False
        for s in range(sides):
            arrive = now[s] - before[s]
            if arrive <= 0.0:
                continue
            rest = 1.0
            for j in range(sides):
                if j != s:
                    rest *= 1.0 - 0.5 * (before[j] + now[j])
            mass[s] += arrive * rest
        for s in range(sides):
            before[s] = now[s]
        if done:
            break
    total = 0.0
    for s in range(sides):
        total += mass[s]
    if total <= 0.0:
        return 1.0 / sides
    return mass[side] / total


@njit(cache=True)
def race_wins_nb(scores, bags, side, target, mean, sd, bag_rate, penalty, limit, out):
    """``race_win_nb`` of every row of ``scores`` and ``bags`` (shape ``(k, sides)``) into
    ``out`` (for fitting the model to a table)."""
    sides = scores.shape[1]
    for i in range(scores.shape[0]):
        out[i] = race_win_nb(
            scores[i], bags[i], sides, side, target, mean, sd, bag_rate, penalty, limit
        )
