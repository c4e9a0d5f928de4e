"""Scoring a batch of ``LANES`` finished hands in lock-step, and writing their rows.

``score_lanes_nb`` scores both sides of every deal of a lock-step batch at once with the
scalar path's own ``score.side_score_nb`` (the same operations, so the same scores),
from the bids, nil kinds and tricks in the batch's ``DealLane`` fields, at a fresh table
(independent hands: no bags before). The rules go in as a tuple of scalars, not as the
array: loads from an array inside the deal loop would keep LLVM from vectorising it (it
cannot tell they never alias the stores). Numpy's error model leaves the bag division
(``bag_limit`` >= 1 by the rules' validation) without Python's zero-division branch,
which would also stop the vectoriser. ``write_lane_rows_four_nb`` (``_two_nb``) then
writes the batch's output rows with ``rows.py``'s column groups, as ``loop.write_rows_nb``
does for one hand.
"""

import numpy as np
from numba import njit

from spades_sim._nb.enums import (
    N_RULE_FIELDS,
    N_SCORE_SLOTS,
    DealLane,
    RuleField,
    ScoreSlot,
)
from spades_sim._nb.lockstep import lane_at_nb, prefer_wide_vectors_nb
from spades_sim._nb.rows import (
    write_features_nb,
    write_score_columns_nb,
    write_seat_columns_nb,
    write_side_columns_nb,
)
from spades_sim._nb.score import side_score_nb

if N_RULE_FIELDS != 28:  # pragma: no cover - a new rule field must be added below
    raise ImportError("rule_values_nb lists 28 rule fields; RuleField has another count")


@njit(inline="always", cache=True)
def rule_values_nb(rules):
    """The rule array as a tuple (read with the same ``RuleField`` indices)."""
    return (
        rules[0], rules[1], rules[2], rules[3], rules[4], rules[5], rules[6], rules[7],
        rules[8], rules[9], rules[10], rules[11], rules[12], rules[13], rules[14], rules[15],
        rules[16], rules[17], rules[18], rules[19], rules[20], rules[21], rules[22], rules[23],
        rules[24], rules[25], rules[26], rules[27],
    )  # fmt: skip


@njit(cache=True, error_model="numpy")
def score_lanes_nb(rules, lanes, n):
    """Score deals 0..n-1 of a batch: side s's ``ScoreSlot`` fields into
    ``DealLane.score + s * N_SCORE_SLOTS``, from each deal's ``DealLane`` bids, nils and
    tricks (no bags before the hand)."""
    prefer_wide_vectors_nb()
    table = rule_values_nb(rules)
    four = rules[RuleField.players] == 4
    for side in range(2):
        partner = side + 2
        base = DealLane.score + side * N_SCORE_SLOTS
        for b in range(n):
            res = side_score_nb(
                table,
                lanes[lane_at_nb(DealLane.bids + side, b)],
                lanes[lane_at_nb(DealLane.nils + side, b)],
                lanes[lane_at_nb(DealLane.tricks + side, b)],
                lanes[lane_at_nb(DealLane.bids + partner, b)],
                lanes[lane_at_nb(DealLane.nils + partner, b)],
                lanes[lane_at_nb(DealLane.tricks + partner, b)],
                four,
                0,
            )
            for f in range(N_SCORE_SLOTS):
                lanes[lane_at_nb(base + f, b)] = res[f]


@njit(cache=True)
def write_lane_rows_four_nb(lanes, n, first_deal, row0, out_hand, out_i8, out_i32):
    """The output rows of deals 0..n-1 of a scored four-player batch (``score_lanes_nb``),
    with ``rows.py``'s column groups, as the row kernels write them (tests hold the
    lock-step and row kernels equal), for a run of independent hands: not the scores and
    bags before and after the hand, games-mode columns (``out_i32`` may have just the
    rows before them). Deal b is deal ``first_deal + b`` (its dealer that modulo 4) and
    fills rows ``row0 + 4 * b + seat``."""
    _lane_rows_nb(4, lanes, n, first_deal, row0, out_hand, out_i8, out_i32)


@njit(cache=True)
def write_lane_rows_two_nb(lanes, n, first_deal, row0, out_hand, out_i8, out_i32):
    """``write_lane_rows_four_nb`` for two players (rows ``row0 + 2 * b + seat``)."""
    _lane_rows_nb(2, lanes, n, first_deal, row0, out_hand, out_i8, out_i32)


@njit(inline="always", cache=True)
def _lane_rows_nb(players, lanes, n, first_deal, row0, out_hand, out_i8, out_i32):
    # One loop over the deals per group of columns (``rows.py``'s), the seats unrolled
    # inside (``players`` a constant: a run-time count measured ~10 ns a hand slower; one
    # function per player count, so a run compiles only its own). Grouped: 32-54 ns a
    # hand (in cache, one batch over and over); one loop writing whole rows: 117-121.
    # LLVM vectorises neither (too many arrays to check apart); one loop per column,
    # which it does, measured no faster.
    base = np.uint64(row0)  # unsigned: no wraparound test
    for b in range(n):
        for s in range(players):
            write_seat_columns_nb(
                base + np.uint64(b * players + s),
                np.uint64(lanes[lane_at_nb(DealLane.hands + s, b)]),
                (first_deal + b) % players,
                lanes[lane_at_nb(DealLane.bids + s, b)],
                lanes[lane_at_nb(DealLane.nils + s, b)],
                lanes[lane_at_nb(DealLane.tricks + s, b)],
                out_hand,
                out_i8,
            )
    for b in range(n):
        for s in range(players):
            hand = np.uint64(lanes[lane_at_nb(DealLane.hands + s, b)])
            write_features_nb(hand, base + np.uint64(b * players + s), out_i8)
    for b in range(n):
        for s in range(players):
            side = DealLane.score + (s & 1) * N_SCORE_SLOTS  # the seat's side
            write_side_columns_nb(
                base + np.uint64(b * players + s),
                # member a of a side is its seat below 2, member b the other
                lanes[lane_at_nb(side + ScoreSlot.nil_made_a + (s >> 1), b)],
                lanes[lane_at_nb(side + ScoreSlot.contract, b)],
                lanes[lane_at_nb(side + ScoreSlot.side_tricks, b)],
                lanes[lane_at_nb(side + ScoreSlot.made, b)],
                lanes[lane_at_nb(side + ScoreSlot.bags_change, b)],
                lanes[lane_at_nb(side + ScoreSlot.boston, b)],
                out_i8,
            )
    for b in range(n):
        for s in range(players):
            side = DealLane.score + (s & 1) * N_SCORE_SLOTS
            write_score_columns_nb(
                base + np.uint64(b * players + s),
                lanes[lane_at_nb(side + ScoreSlot.score_change, b)],
                lanes[lane_at_nb(side + ScoreSlot.bag_penalty, b)],
                out_i32,
            )
