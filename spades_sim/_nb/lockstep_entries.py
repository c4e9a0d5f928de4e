"""The lock-step entry points of the play policies with lock-step lanes: generated.

Do not edit: ``python -m spades_sim.lockstep_source`` writes this file from the table of
policies (``spades_sim.lockstep_source`` says what it holds and why it is a module);
``tests/test_lockstep_entries.py`` fails when it differs from what the generator writes.
Each rows entry point runs a range of blocks of ``LANES`` deals serially and without the
GIL (``loop.lockstep_blocks_nb``: deal and bids, the lane play of both sides, scoring and
rows; the same rows as ``loop.hands_nb``), each counts entry point a range of deals into
count tables (``aggregate.aggregate_hands_with_nb``).
"""

from numba import njit

from spades_sim._nb.aggregate import aggregate_hands_with_nb
from spades_sim._nb.loop import (
    finish_lanes_four_nb,
    finish_lanes_two_nb,
    lockstep_blocks_nb,
    play_heuristic_defaults_lanes_nb,
    play_heuristic_general_lanes_nb,
    play_heuristic_lanes_nb,
    play_random_lanes_nb,
)
from spades_sim._nb.prepare import (
    prepare_lanes_count_four_nb,
    prepare_lanes_four_nb,
    prepare_lanes_two_nb,
)

LANE_PLAYERS = (
    "random",
    "heuristic",
)
"""The play policies with lock-step lanes, in id order: the k-th plays for code k + 1
(``play_lanes_code_nb``; ``odds.play_deals_nb``'s ``mode``)."""


@njit(cache=True, nogil=True)
def hands_random_lockstep_nb(
    first, end, rules, seed, deal_start, n, params, out_hand, out_i8, out_i32, out_errors,
    rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """Rows: both sides play ``random``, four players."""
    lockstep_blocks_nb(
        first, end, rules, seed, deal_start, n, params, prepare_lanes_four_nb, play_random_lanes_nb,
        finish_lanes_four_nb, out_hand, out_i8, out_i32, out_errors,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def aggregate_hands_random_nb(
    rules, seed, deal_start, n, params, keys, seat_t, side_t, status,
):  # fmt: skip
    """Counts: through ``hands_random_lockstep_nb``."""
    aggregate_hands_with_nb(
        hands_random_lockstep_nb, rules, seed, deal_start, n, params, keys, seat_t, side_t, status,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def hands_random_lockstep_count_nb(
    first, end, rules, seed, deal_start, n, params, out_hand, out_i8, out_i32, out_errors,
    rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """Rows: both sides play ``random``, four players whose sides bid only ``count`` or ``random``
    (fewer bidders compile)."""
    lockstep_blocks_nb(
        first, end, rules, seed, deal_start, n, params, prepare_lanes_count_four_nb,
        play_random_lanes_nb, finish_lanes_four_nb, out_hand, out_i8, out_i32, out_errors,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def aggregate_hands_random_count_nb(
    rules, seed, deal_start, n, params, keys, seat_t, side_t, status,
):  # fmt: skip
    """Counts: through ``hands_random_lockstep_count_nb``."""
    aggregate_hands_with_nb(
        hands_random_lockstep_count_nb, rules, seed, deal_start, n, params, keys, seat_t, side_t,
        status,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def hands_random_lockstep_two_nb(
    first, end, rules, seed, deal_start, n, params, out_hand, out_i8, out_i32, out_errors,
    rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """Rows: both sides play ``random``, two players."""
    lockstep_blocks_nb(
        first, end, rules, seed, deal_start, n, params, prepare_lanes_two_nb, play_random_lanes_nb,
        finish_lanes_two_nb, out_hand, out_i8, out_i32, out_errors,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def aggregate_hands_random_two_nb(
    rules, seed, deal_start, n, params, keys, seat_t, side_t, status,
):  # fmt: skip
    """Counts: through ``hands_random_lockstep_two_nb``."""
    aggregate_hands_with_nb(
        hands_random_lockstep_two_nb, rules, seed, deal_start, n, params, keys, seat_t, side_t,
        status,
    )  # fmt: skip


@njit(inline="always", cache=True)
def random_lanes_nb(st, rules, params, infos, masks, lo, hi, out_errors):
    """``loop.play_random_lanes_nb`` as the play of ``loop.lane_blocks_with_nb``."""
    play_random_lanes_nb(st, rules, params)


@njit(cache=True, nogil=True)
def hands_heuristic_lockstep_nb(
    first, end, rules, seed, deal_start, n, params, out_hand, out_i8, out_i32, out_errors,
    rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """Rows: both sides play ``heuristic``, four players."""
    lockstep_blocks_nb(
        first, end, rules, seed, deal_start, n, params, prepare_lanes_four_nb,
        play_heuristic_general_lanes_nb, finish_lanes_four_nb, out_hand, out_i8, out_i32,
        out_errors,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def aggregate_hands_heuristic_nb(
    rules, seed, deal_start, n, params, keys, seat_t, side_t, status,
):  # fmt: skip
    """Counts: through ``hands_heuristic_lockstep_nb``."""
    aggregate_hands_with_nb(
        hands_heuristic_lockstep_nb, rules, seed, deal_start, n, params, keys, seat_t, side_t,
        status,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def hands_heuristic_lockstep_count_nb(
    first, end, rules, seed, deal_start, n, params, out_hand, out_i8, out_i32, out_errors,
    rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """Rows: both sides play ``heuristic``, four players whose sides bid only ``count`` or
    ``random`` (fewer bidders compile)."""
    lockstep_blocks_nb(
        first, end, rules, seed, deal_start, n, params, prepare_lanes_count_four_nb,
        play_heuristic_general_lanes_nb, finish_lanes_four_nb, out_hand, out_i8, out_i32,
        out_errors,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def aggregate_hands_heuristic_count_nb(
    rules, seed, deal_start, n, params, keys, seat_t, side_t, status,
):  # fmt: skip
    """Counts: through ``hands_heuristic_lockstep_count_nb``."""
    aggregate_hands_with_nb(
        hands_heuristic_lockstep_count_nb, rules, seed, deal_start, n, params, keys, seat_t, side_t,
        status,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def hands_heuristic_lockstep_two_nb(
    first, end, rules, seed, deal_start, n, params, out_hand, out_i8, out_i32, out_errors,
    rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """Rows: both sides play ``heuristic``, two players."""
    lockstep_blocks_nb(
        first, end, rules, seed, deal_start, n, params, prepare_lanes_two_nb,
        play_heuristic_general_lanes_nb, finish_lanes_two_nb, out_hand, out_i8, out_i32, out_errors,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def aggregate_hands_heuristic_two_nb(
    rules, seed, deal_start, n, params, keys, seat_t, side_t, status,
):  # fmt: skip
    """Counts: through ``hands_heuristic_lockstep_two_nb``."""
    aggregate_hands_with_nb(
        hands_heuristic_lockstep_two_nb, rules, seed, deal_start, n, params, keys, seat_t, side_t,
        status,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def hands_heuristic_defaults_lockstep_nb(
    first, end, rules, seed, deal_start, n, params, out_hand, out_i8, out_i32, out_errors,
    rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """Rows: both sides play ``heuristic``, four players, both sides at the registry defaults (the
    copy with them as constants)."""
    lockstep_blocks_nb(
        first, end, rules, seed, deal_start, n, params, prepare_lanes_four_nb,
        play_heuristic_defaults_lanes_nb, finish_lanes_four_nb, out_hand, out_i8, out_i32,
        out_errors,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def aggregate_hands_heuristic_defaults_nb(
    rules, seed, deal_start, n, params, keys, seat_t, side_t, status,
):  # fmt: skip
    """Counts: through ``hands_heuristic_defaults_lockstep_nb``."""
    aggregate_hands_with_nb(
        hands_heuristic_defaults_lockstep_nb, rules, seed, deal_start, n, params, keys, seat_t,
        side_t, status,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def hands_heuristic_defaults_lockstep_count_nb(
    first, end, rules, seed, deal_start, n, params, out_hand, out_i8, out_i32, out_errors,
    rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """Rows: both sides play ``heuristic``, four players whose sides bid only ``count`` or
    ``random`` (fewer bidders compile), both sides at the registry defaults (the copy with them as
    constants)."""
    lockstep_blocks_nb(
        first, end, rules, seed, deal_start, n, params, prepare_lanes_count_four_nb,
        play_heuristic_defaults_lanes_nb, finish_lanes_four_nb, out_hand, out_i8, out_i32,
        out_errors,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def aggregate_hands_heuristic_defaults_count_nb(
    rules, seed, deal_start, n, params, keys, seat_t, side_t, status,
):  # fmt: skip
    """Counts: through ``hands_heuristic_defaults_lockstep_count_nb``."""
    aggregate_hands_with_nb(
        hands_heuristic_defaults_lockstep_count_nb, rules, seed, deal_start, n, params, keys,
        seat_t, side_t, status,
    )  # fmt: skip


@njit(inline="always", cache=True)
def heuristic_lanes_nb(st, rules, params, infos, masks, lo, hi, out_errors):
    """``loop.play_heuristic_lanes_nb`` as the play of ``loop.lane_blocks_with_nb``."""
    play_heuristic_lanes_nb(st, rules, params)


@njit(inline="always", cache=True)
def play_lanes_code_nb(st, rules, params, code):
    """The 13 tricks of every lane, both sides the lane player of ``code``."""
    if code == 1:
        play_random_lanes_nb(st, rules, params)
    elif code == 2:
        play_heuristic_lanes_nb(st, rules, params)


ENTRIES = {
    ("random", "four"): (
        hands_random_lockstep_nb,
        aggregate_hands_random_nb,
    ),
    ("random", "count"): (
        hands_random_lockstep_count_nb,
        aggregate_hands_random_count_nb,
    ),
    ("random", "two"): (
        hands_random_lockstep_two_nb,
        aggregate_hands_random_two_nb,
    ),
    ("heuristic", "four"): (
        hands_heuristic_lockstep_nb,
        aggregate_hands_heuristic_nb,
    ),
    ("heuristic", "count"): (
        hands_heuristic_lockstep_count_nb,
        aggregate_hands_heuristic_count_nb,
    ),
    ("heuristic", "two"): (
        hands_heuristic_lockstep_two_nb,
        aggregate_hands_heuristic_two_nb,
    ),
    ("heuristic", "defaults"): (
        hands_heuristic_defaults_lockstep_nb,
        aggregate_hands_heuristic_defaults_nb,
    ),
    ("heuristic", "defaults_count"): (
        hands_heuristic_defaults_lockstep_count_nb,
        aggregate_hands_heuristic_defaults_count_nb,
    ),
}
"""The (rows, counts) entry points by (policy, variant): ``four``, ``count``, ``two``
and, for a policy with a copy at its defaults, ``defaults`` and ``defaults_count``."""
