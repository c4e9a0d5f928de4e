"""Scoring a batch of ``LANES`` finished hands in lock-step, written so LLVM can vectorise it.

``score_lanes_nb`` scores both sides of every deal of a lock-step batch at once with the
scalar path's own ``score.side_score_nb`` (the same operations, so the same scores),
from the bids, nil kinds and tricks in the batch's ``DealLane`` fields, at a fresh table
(independent hands: no bags before). The rules go in as a tuple of scalars, not as the
array: loads from an array inside the deal loop would keep LLVM from vectorising it (it
cannot tell they never alias the stores). Numpy's error model leaves the bag division
(``bag_limit`` >= 1 by the rules' validation) without Python's zero-division branch,
which would also stop the vectoriser.
"""

from numba import njit

from spades_sim._nb.enums import LANES, N_RULE_FIELDS, N_SCORE_SLOTS, DealLane, RuleField
from spades_sim._nb.lockstep import prefer_wide_vectors_nb
from spades_sim._nb.score import side_score_nb


@njit(inline="always", cache=True)
def _at(field, lane):
    return field * LANES + lane


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
