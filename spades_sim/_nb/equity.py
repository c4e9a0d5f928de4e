"""Kernels of the win-probability table of the score state, and of its exact check.

``win_values_nb`` solves, by value iteration, the chance that side 0 (N-S, or player 0)
wins the game from every score state of a two-sided game, given the joint distribution
of one hand's outcome: per outcome, the dealer's parity and, per side, the points (bag
penalty excluded) and the bags taken. A side's state is ``(u, b)``: its bags ``b``
(below ``bag_limit``; always 0 when the penalty is off) and its score
``s = low + r + g * u + b``, where ``g`` divides every outcome's points less its bags and
``penalty - limit``, so ``s - b`` stays on one residue ``r`` modulo ``g`` all game (the
caller solves one layer per pair of residues). One hand moves a side from ``(u, b)`` by
``(points, bags)`` to bags ``b + bags``, less ``bag_limit`` per penalty ``k``, and to
``u + (points - bags - k * (penalty - limit)) / g``.

The value array is ``W[parity, b0, b1, e0, e1]`` with ``e = u + lo`` on an extended
axis: the ``lo`` cells below ``u = 0`` and every cell at or over the target are the
ends of the game or the floor, written once (``end_values_nb``) and never iterated. A
state's parity is the dealer of the next hand modulo 2; a hand dealt by parity ``d``
draws its outcome from that parity's outcomes and leads to parity ``1 - d``. Ends: a
side at or over the target wins if its score is higher, a tie there is worth
``tie_value`` (play goes on; the caller's estimate of the next hands); with a loss
threshold a side at or below it loses (both: the higher wins, a tie ``tie_value``), the
target taking precedence. Without a threshold, a score below ``low`` counts as ``low``
(its cell copies the value at ``u = 0``; the caller puts ``low`` far enough down).

The sweep is Gauss-Seidel from the top of side 0's scores down (most hands raise
scores, so most of what a state reads is already new), the inner loop a shifted
multiply-add over side 1's scores, contiguous, so LLVM vectorises it.

``games_from_nb`` plays whole games from given score states with the built-in policies:
game ``g`` of row ``j`` deals its hand ``h`` from the stream
``(seed, KIND_EQUITY, j, g)`` then ``h``, whatever the state, so rows compared with each
other (the same row index in two calls) see the same later deals.
"""

import numpy as np
from numba import njit

from spades_sim._nb.enums import (
    MAX_TRICKS,
    N_INFO,
    N_MASKS,
    N_SCORE_SLOTS,
    InfoSlot,
    RuleField,
    ScoreSlot,
)
from spades_sim._nb.loop import new_scratch_nb, run_hand_nb, score_hand_nb
from spades_sim._nb.rng import stream_key_nb
from spades_sim._nb.score import game_result_nb

KIND_EQUITY = 11  # stream kind of the exact games (rng.py 1, 2; odds.py 3-5; env.py 7)


@njit(cache=True)
def side_steps_nb(points, bags, limit, penalty, g):
    """Per outcome ``j`` and bag count ``b`` one side's new bags and its step in ``u``
    (arrays ``(n, limit)``); ``limit`` 1 means bags are not tracked (penalty off)."""
    n = points.shape[0]
    new_bags = np.zeros((n, limit), dtype=np.int64)
    steps = np.zeros((n, limit), dtype=np.int64)
    for j in range(n):
        for b in range(limit):
            if limit == 1:
                new_bags[j, b] = 0
                steps[j, b] = points[j] // g
                continue
            total = b + bags[j]
            k = total // limit if penalty > 0 else 0
            if penalty == 0:
                # bags do not matter: the caller passes limit 1 then; kept for safety
                k = 0
            new_bags[j, b] = total - k * limit
            steps[j, b] = (points[j] - bags[j] - k * (penalty - limit)) // g
    return new_bags, steps


@njit(inline="always", cache=True)
def end_value_nb(s0, s1, target, has_threshold, threshold, tie_value):
    """The value of a finished state for side 0, or -1.0 when the game goes on."""
    if s0 >= target or s1 >= target:
        if s0 > s1:
            return 1.0
        if s1 > s0:
            return 0.0
        return tie_value
    if has_threshold and (s0 <= threshold or s1 <= threshold):
        if s0 > s1:
            return 1.0
        if s1 > s0:
            return 0.0
        return tie_value
    return -1.0


@njit(cache=True)
def end_values_nb(values, fixed, low, r0, r1, g, limit, lo, target, has_threshold, threshold,
                  tie_value):  # fmt: skip
    """Write every end cell's value into ``values`` and mark it in ``fixed``."""
    n = values.shape[3]
    for d in range(2):
        for b0 in range(limit):
            for b1 in range(limit):
                for e0 in range(n):
                    s0 = low + r0 + g * (e0 - lo) + b0
                    for e1 in range(n):
                        s1 = low + r1 + g * (e1 - lo) + b1
                        v = end_value_nb(s0, s1, target, has_threshold, threshold, tie_value)
                        if v >= 0.0:
                            values[d, b0, b1, e0, e1] = v
                            fixed[d, b0, b1, e0, e1] = True


@njit(cache=True)
def win_values_nb(parity, points0, bags0, points1, bags1, probs, low, r0, r1, g, limit,
                  penalty, lo, n_u, target, has_threshold, threshold, tie_value, tol,
                  max_sweeps, values):  # fmt: skip
    """Solve ``values`` (``(2, limit, limit, lo + n_u + hi, same)``, see the module
    docstring) for outcomes ``j`` of dealer parity ``parity[j]`` with probability
    ``probs[j]`` (sorted by parity, summing to 1 within each); return the sweeps used, negated if
    ``max_sweeps`` ran out before the largest change fell below ``tol``."""
    n_e = values.shape[3]
    fixed = np.zeros(values.shape, dtype=np.bool_)
    end_values_nb(values, fixed, low, r0, r1, g, limit, lo, target, has_threshold, threshold,
                  tie_value)  # fmt: skip
    nb0, st0 = side_steps_nb(points0, bags0, limit, penalty, g)
    nb1, st1 = side_steps_nb(points1, bags1, limit, penalty, g)
    # the outcomes come sorted by parity: those of parity d are starts[d] .. starts[d+1]-1
    starts = np.zeros(3, dtype=np.int64)
    for j in range(parity.shape[0]):
        starts[parity[j] + 1] += 1
    starts[2] += starts[1]
    acc = np.zeros(n_e, dtype=np.float64)
    # the interior cells of a side 1 row: e1 in [lo, top1[b1]) where its score is live
    top1 = np.zeros(limit, dtype=np.int64)
    for b1 in range(limit):
        t = lo
        while t < lo + n_u and low + r1 + g * (t - lo) + b1 < target:
            t += 1
        top1[b1] = t
    for sweep in range(max_sweeps):
        change = 0.0
        # side 0's rows from the top down, both parities at each row: a row reads the
        # other parity's rows at side 0's new score, mostly above it, already new
        for e0 in range(lo + n_u - 1, lo - 1, -1):
            for d in range(2):
                nd = 1 - d
                for b0 in range(limit):
                    s0 = low + r0 + g * (e0 - lo) + b0
                    if s0 >= target or (has_threshold and s0 <= threshold):
                        continue  # side 0 has ended the game here: an end cell
                    for b1 in range(limit):
                        hi1 = top1[b1]
                        for e1 in range(lo, hi1):
                            acc[e1] = 0.0
                        for j in range(starts[d], starts[d + 1]):
                            p = probs[j]
                            src = values[nd, nb0[j, b0], nb1[j, b1], e0 + st0[j, b0]]
                            shift = st1[j, b1]
                            for e1 in range(lo, hi1):
                                acc[e1] += p * src[e1 + shift]
                        row = values[d, b0, b1, e0]
                        for e1 in range(lo, hi1):
                            if not fixed[d, b0, b1, e0, e1]:
                                delta = abs(acc[e1] - row[e1])
                                if delta > change:
                                    change = delta
                                row[e1] = acc[e1]
                        if not has_threshold:
                            for e1 in range(lo):  # below the floor: as at the floor
                                row[e1] = row[lo]
        if not has_threshold:
            for d in range(2):
                for e0 in range(lo):
                    for b0 in range(limit):
                        for b1 in range(limit):
                            for e1 in range(n_e):
                                if not fixed[d, b0, b1, e0, e1]:
                                    values[d, b0, b1, e0, e1] = values[d, b0, b1, lo, e1]
        if change < tol:
            return sweep + 1
    return -max_sweeps


@njit(cache=True, nogil=True)
def games_from_nb(first, end, rules, seed, params, scores, bags, dealers, games, out_winner,
                  out_hands):  # fmt: skip
    """Rows ``first .. end-1``: ``games`` whole games from row ``j``'s score state
    (``scores[j]``, ``bags[j]`` by side, ``dealers[j]`` dealing the first hand), the
    built-in policies of ``params``; ``out_winner[j, g]`` the winning side (-1
    unfinished after ``max_hands`` more hands), ``out_hands[j, g]`` the hands played."""
    players = rules[RuleField.players]
    scratch = new_scratch_nb(rules)
    info = np.zeros(N_INFO, dtype=np.int64)
    masks = np.zeros(N_MASKS, dtype=np.uint64)
    side_out = np.zeros((4, N_SCORE_SLOTS), dtype=np.int64)
    winners = np.zeros(MAX_TRICKS, dtype=np.int8)
    no_plays = np.empty(0, dtype=np.int8)
    for j in range(first, min(end, scores.shape[0])):
        for g in range(games):
            game_key = stream_key_nb(seed, KIND_EQUITY, j, g)
            for k in range(N_INFO):
                info[k] = 0
            for k in range(N_MASKS):
                masks[k] = 0
            for side in range(2):
                info[InfoSlot.scores + side] = scores[j, side]
                info[InfoSlot.bags + side] = bags[j, side]
            winner, h = -1, 0
            while True:
                dealer = (dealers[j] + h) % players
                key = stream_key_nb(game_key, KIND_EQUITY, h, 0)
                run_hand_nb(rules, scratch, key, dealer, params, info, masks, no_plays, winners)
                score_hand_nb(rules, info, side_out)
                for side in range(2):
                    info[InfoSlot.scores + side] += side_out[side, ScoreSlot.score_change]
                    info[InfoSlot.bags + side] = side_out[side, ScoreSlot.bags_after]
                h += 1
                winner, reason = game_result_nb(rules, info, 2, h)
                if reason != 0:
                    break
            out_winner[j, g] = winner
            out_hands[j, g] = h
