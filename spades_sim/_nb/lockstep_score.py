"""Scoring a batch of ``LANES`` finished hands in lock-step, and writing their rows.

``score_lanes_nb`` scores both sides of every deal of a lock-step batch at once with the
scalar path's own ``score.side_score_nb`` (the same operations, so the same scores),
from the bids, nil kinds and tricks in the batch's ``DealLane`` fields, at a fresh table
(independent hands: no bags before). The rules go in as a tuple of scalars, not as the
array: loads from an array inside the deal loop would keep LLVM from vectorising it (it
cannot tell they never alias the stores). Numpy's error model leaves the bag division
(``bag_limit`` >= 1 by the rules' validation) without Python's zero-division branch,
which would also stop the vectoriser. ``write_lane_rows_four_nb`` (``_two_nb``) then
writes the batch's output rows, the values ``loop.write_rows_nb`` writes for one hand.
"""

import numpy as np
from numba import njit

from spades_sim._nb.enums import (
    LANES,
    N_RULE_FIELDS,
    N_SCORE_SLOTS,
    DealLane,
    OutI8,
    OutI32,
    RuleField,
    ScoreSlot,
)
from spades_sim._nb.features import FEATURES, hand_features_nb
from spades_sim._nb.lockstep import prefer_wide_vectors_nb
from spades_sim._nb.score import side_score_nb


@njit(inline="always", cache=True)
def _at(field, lane):
    return field * LANES + lane


if FEATURES[-1] != "points" or len(FEATURES) != 8:  # pragma: no cover
    raise ImportError("_lane_rows_nb writes the 8 features by name; FEATURES changed")
if N_RULE_FIELDS != 18:  # pragma: no cover - a new rule field must be added below
    raise ImportError("rule_values_nb lists 18 rule fields; RuleField has another count")


@njit(inline="always", cache=True)
def rule_values_nb(rules):
    """The rule array as a tuple (read with the same ``RuleField`` indices)."""
    return (
        rules[0], rules[1], rules[2], rules[3], rules[4], rules[5], rules[6], rules[7],
        rules[8], rules[9], rules[10], rules[11], rules[12], rules[13], rules[14], rules[15],
        rules[16], rules[17],
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
                lanes[_at(DealLane.bids + side, b)], lanes[_at(DealLane.nils + side, b)],
                lanes[_at(DealLane.tricks + side, b)], lanes[_at(DealLane.bids + partner, b)],
                lanes[_at(DealLane.nils + partner, b)], lanes[_at(DealLane.tricks + partner, b)],
                four, 0,
            )  # fmt: skip
            for f in range(N_SCORE_SLOTS):
                lanes[_at(base + f, b)] = res[f]


@njit(cache=True)
def write_lane_rows_four_nb(lanes, n, first_deal, row0, out_hand, out_i8, out_i32):
    """The output rows of deals 0..n-1 of a scored four-player batch (``score_lanes_nb``),
    the values ``loop.write_rows_nb`` writes (tests hold the lock-step and row kernels
    equal) for a run of independent hands: not the scores and bags before and after the
    hand, games-mode columns (``out_i32`` may have just the rows before them). Deal b is
    deal ``first_deal + b`` (its dealer that modulo 4) and fills rows
    ``row0 + 4 * b + seat``."""
    _lane_rows_nb(4, lanes, n, first_deal, row0, out_hand, out_i8, out_i32)


@njit(cache=True)
def write_lane_rows_two_nb(lanes, n, first_deal, row0, out_hand, out_i8, out_i32):
    """``write_lane_rows_four_nb`` for two players (rows ``row0 + 2 * b + seat``)."""
    _lane_rows_nb(2, lanes, n, first_deal, row0, out_hand, out_i8, out_i32)


@njit(inline="always", cache=True)
def _lane_rows_nb(players, lanes, n, first_deal, row0, out_hand, out_i8, out_i32):
    # One loop over the deals per group of columns, the seats unrolled inside (``players``
    # a constant: a run-time count measured ~10 ns a hand slower; one function per
    # player count, so a run compiles only its own). LLVM does not vectorise these (too
    # many arrays to check apart); one loop per column, which it does, measured no
    # faster: the cost is the stores of ~200 bytes a deal into 26 columns.
    for b in range(n):
        row = np.uint64(row0 + b * players)  # unsigned: no wraparound test
        for s in range(players):
            out_hand[row + np.uint64(s)] = np.uint64(lanes[(DealLane.hands + s) * LANES + b])
            out_i8[OutI8.dealer, row + np.uint64(s)] = (first_deal + b) % players
            out_i8[OutI8.bid, row + np.uint64(s)] = lanes[(DealLane.bids + s) * LANES + b]
            out_i8[OutI8.nil_kind, row + np.uint64(s)] = lanes[(DealLane.nils + s) * LANES + b]
            out_i8[OutI8.tricks, row + np.uint64(s)] = lanes[(DealLane.tricks + s) * LANES + b]
    for b in range(n):
        row = np.uint64(row0 + b * players)  # unsigned: no wraparound test
        for s in range(players):
            hand = np.uint64(lanes[(DealLane.hands + s) * LANES + b])
            spades, high, aces, kings, queens, shortest, voids, points = hand_features_nb(hand)
            out_i8[OutI8.spades, row + np.uint64(s)] = spades
            out_i8[OutI8.high_spades, row + np.uint64(s)] = high
            out_i8[OutI8.aces, row + np.uint64(s)] = aces
            out_i8[OutI8.kings, row + np.uint64(s)] = kings
            out_i8[OutI8.queens, row + np.uint64(s)] = queens
            out_i8[OutI8.shortest_suit, row + np.uint64(s)] = shortest
            out_i8[OutI8.voids, row + np.uint64(s)] = voids
            out_i8[OutI8.points, row + np.uint64(s)] = points
    for b in range(n):
        row = np.uint64(row0 + b * players)  # unsigned: no wraparound test
        for s in range(players):
            score = DealLane.score + (s & 1) * N_SCORE_SLOTS  # the seat's side
            nil_made = score + ScoreSlot.nil_made_a + (s >> 1)
            out_i8[OutI8.nil_made, row + np.uint64(s)] = lanes[nil_made * LANES + b]
            out_i8[OutI8.side_contract, row + np.uint64(s)] = lanes[
                (score + ScoreSlot.contract) * LANES + b
            ]
            out_i8[OutI8.side_tricks, row + np.uint64(s)] = lanes[
                (score + ScoreSlot.side_tricks) * LANES + b
            ]
            out_i8[OutI8.made, row + np.uint64(s)] = lanes[(score + ScoreSlot.made) * LANES + b]
            out_i8[OutI8.bags_change, row + np.uint64(s)] = lanes[
                (score + ScoreSlot.bags_change) * LANES + b
            ]
            out_i8[OutI8.boston, row + np.uint64(s)] = lanes[(score + ScoreSlot.boston) * LANES + b]
    for b in range(n):
        row = np.uint64(row0 + b * players)  # unsigned: no wraparound test
        for s in range(players):
            score = DealLane.score + (s & 1) * N_SCORE_SLOTS
            change = lanes[(score + ScoreSlot.score_change) * LANES + b]
            out_i32[OutI32.score_change, row + np.uint64(s)] = change
            penalty = lanes[(score + ScoreSlot.bag_penalty) * LANES + b]
            out_i32[OutI32.bag_penalty, row + np.uint64(s)] = penalty
