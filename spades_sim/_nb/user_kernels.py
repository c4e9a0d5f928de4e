"""The entry points of a generated kernel module for user-written policies, checked in.

Contract. ``spades_sim.custom.kernels`` writes, for a run's four policies, a module that
is the text of this file between the two marker lines below (the imports and the entry
points, with the signatures of the built-in ones: ``hands_nb``, ``games_nb``,
``hands_lanes_four_nb``, ``hands_lanes_two_nb``, ``play_deals_nb``, ``number_bid_*_nb``,
built on the generic bodies of ``loop.py``, ``prepare.py`` and ``odds.py``) followed by
the only generated part: the six adapters ``bid_ns_nb``, ``bid_ew_nb``, ``blind_ns_nb``,
``blind_ew_nb``, ``play_ns_nb``, ``play_ew_nb`` (each a built-in dispatcher, or the
user's function called on its context) and ``lane_play_nb`` (how the batch kernels play:
a built-in's lock-step play, ``lockstep_entries.NAME_lanes_nb``, or ``play_lanes_nb``).
Numba resolves a kernel's globals when it first compiles it, so the adapters may follow
the entry points.

Imported as itself, this module binds the adapters to the built-in dispatch on every
side (after the second marker), so every name the entry points and the generated
adapters use is resolved when the package is imported: a kernel renamed breaks the
import and the tests (``tests/test_user_policies.py`` checks every name a generated
module uses is bound), never a user's first run. Nothing imports its kernels directly.

A run that can be stopped hands the entry points a rule array carrying a stop cell
(``enums.SEARCH_CELL``, set by ``run.chunks`` on Ctrl-C or SIGTERM): once it is set,
``run_hand_nb`` plays no more hands (the entry points return within the hand in flight,
and the run drops their output).
"""

# --- copied into every generated module: from here ---
# ruff: noqa: F401 (some names are for the generated adapters, which follow in its copies)
from collections import namedtuple

from numba import njit

from spades_sim._nb import lockstep_entries
from spades_sim._nb.context import (
    bid_context_nb,
    blind_nil_context_nb,
    blind_nil_rule_nb,
    never_blind_nil_nb,
    play_context_nb,
)
from spades_sim._nb.enums import SEATING_SLOT
from spades_sim._nb.loop import (
    finish_lanes_four_nb,
    finish_lanes_two_nb,
    games_with_nb,
    hands_with_nb,
    lane_blocks_with_nb,
    play_lanes_with_nb,
    run_hand_with_nb,
)
from spades_sim._nb.odds import number_bid_with_nb, play_block_with_nb, play_deals_with_nb
from spades_sim._nb.policies import (
    borrow_nb,
    builtin_bid_nb,
    builtin_play_nb,
    plain_bid_nb,
    plain_play_nb,
    stop_requested_nb,
)
from spades_sim._nb.prepare import blind_nil_nb, prepare_with_nb


@njit(cache=True)
def prepare_hand_nb(
    rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid, forced_kind
):
    return prepare_with_nb(
        rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid,
        forced_kind, bid_ns_nb, bid_ew_nb, blind_ns_nb, blind_ew_nb,
    )  # fmt: skip


@njit(cache=True)
def run_hand_nb(rules, scratch, key, dealer, params, info, masks, plays, winners):
    # a run stopping (its stop cell, enums.SEARCH_CELL) drops this chunk: skip the hands left
    if stop_requested_nb(rules):
        return 0
    return run_hand_with_nb(
        rules, scratch, key, dealer, params, info, masks, plays, winners,
        prepare_hand_nb, play_ns_nb, play_ew_nb,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def hands_nb(
    first, end, rules, seed, deal_start, n, params, out_hand, out_i8, out_i32, out_errors,
    rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    hands_with_nb(
        first, end, rules, seed, deal_start, n, params, out_hand, out_i8, out_i32,
        out_errors, rec_dealt, rec_plays, rec_winners, run_hand_nb,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def games_nb(
    first, end, rules, seed, game_start, n, params, out_hand, out_i8, out_i32, out_game,
    rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    games_with_nb(
        first, end, rules, seed, game_start, n, params, out_hand, out_i8, out_i32,
        out_game, rec_dealt, rec_plays, rec_winners, run_hand_nb,
    )  # fmt: skip


@njit(inline="always", cache=True)
def play_lanes_nb(st, rules, params, infos, masks, lo, hi, out_errors):
    play_lanes_with_nb(
        st, rules, params, infos, masks, lo, hi, out_errors, play_ns_nb, play_ew_nb
    )  # fmt: skip


@njit(cache=True, nogil=True)
def hands_lanes_four_nb(
    first, end, rules, seed, deal_start, n, params, out_hand, out_i8, out_i32, out_errors,
    rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    lane_blocks_with_nb(
        first, end, rules, seed, deal_start, n, params, prepare_hand_nb,
        lane_play_nb, finish_lanes_four_nb, out_hand, out_i8, out_i32, out_errors,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def hands_lanes_two_nb(
    first, end, rules, seed, deal_start, n, params, out_hand, out_i8, out_i32, out_errors,
    rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    lane_blocks_with_nb(
        first, end, rules, seed, deal_start, n, params, prepare_hand_nb,
        lane_play_nb, finish_lanes_two_nb, out_hand, out_i8, out_i32, out_errors,
    )  # fmt: skip


@njit(cache=True)
def number_bid_ns_nb(rules, hand, seat, params):
    return number_bid_with_nb(rules, hand, seat, params, bid_ns_nb)


@njit(cache=True)
def number_bid_ew_nb(rules, hand, seat, params):
    return number_bid_with_nb(rules, hand, seat, params, bid_ew_nb)


@njit(cache=True)
def play_block_nb(
    block, rules, seed, start, deals, dealers, hero, bids, kinds, params, mode, out_score,
    out_tricks, out_nil_made, out_first_won, out_errors, rec_held, rec_moves, before,
    out_sides,
):  # fmt: skip
    play_block_with_nb(
        block, rules, seed, start, deals, dealers, hero, bids, kinds, params, mode,
        out_score, out_tricks, out_nil_made, out_first_won, out_errors, rec_held,
        rec_moves, before, out_sides, prepare_hand_nb, play_ns_nb, play_ew_nb,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def play_deals_nb(
    first, end, rules, seed, start, deals, dealers, hero, bids, kinds, params, mode,
    out_score, out_tricks, out_nil_made, out_first_won, out_errors, rec_held, rec_moves,
    before, out_sides,
):  # fmt: skip
    play_deals_with_nb(
        first, end, rules, seed, start, deals, dealers, hero, bids, kinds, params, mode,
        out_score, out_tricks, out_nil_made, out_first_won, out_errors, rec_held,
        rec_moves, before, out_sides, play_block_nb,
    )  # fmt: skip


# --- copied into every generated module: to here ---
# This module as imported: every side the built-in dispatch (a generated module binds
# these names to its policies' adapters instead).
bid_ns_nb = builtin_bid_nb
bid_ew_nb = builtin_bid_nb
blind_ns_nb = blind_nil_nb
blind_ew_nb = blind_nil_nb
play_ns_nb = builtin_play_nb
play_ew_nb = builtin_play_nb
lane_play_nb = play_lanes_nb
