"""The contexts a user-written policy is called with, and the building blocks on them.

A user-written policy is one function of one argument, its context (``spades_sim.nb``
documents the fields): a named tuple built inside the kernel from the table state the
kernel keeps anyway (``info``, the rule array, the decision's parameter row and random
bits). Every field is a scalar or a view into those arrays, so building a context costs
nothing a policy does not read: the policy is inlined into the kernel and LLVM drops
the loads of the fields it never uses. The array views are borrowed
(``policies.borrow_nb``), so a policy that is not inlined pays no reference counting.

``ctx.rules`` is :data:`RulesView`, the rule array by name (the ``Rules`` field names;
``first_lead_two_clubs`` and ``spades_any_time`` for the two choices, 0/1); ``ctx.params``
is the policy's own named tuple of parameters, generated with its kernels
(``spades_sim.custom``). Nothing here sees another seat's cards: the contexts are built
from the public table state and the deciding seat's own hand only.

The building blocks take a context: ``count_bid_nb(ctx)`` and ``heuristic_play_nb(ctx)``
are the built-in ``count`` bid and ``heuristic`` play with their registry defaults
(``*_with_nb(ctx, vector)`` with a parameter vector laid out as the built-in's slots),
``random_play_nb(ctx)`` the built-in ``random`` play (the same card for the same bits),
``blind_nil_rule_nb(ctx)`` the built-in bidders' blind nil rule with the ``count``
defaults. Random draws: ``uniform_nb(ctx, k)``, ``randint_nb(ctx, n, k)`` and
``random_card_nb(ctx, mask, k)``, the ``k``-th draw of the decision's stream.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from spades_sim._nb.bidding import bid_range_nb, blind_nil_wanted_nb, counting_bid_nb
from spades_sim._nb.bitboard import popcount_nb, select_bit_nb
from spades_sim._nb.enums import (
    COUNT_DEFAULTS,
    HEURISTIC_DEFAULTS,
    MAX_PLAYS,
    BidPolicy,
    InfoSlot,
    RuleField,
)
from spades_sim._nb.heuristic import heuristic_play_nb as heuristic_cards_nb
from spades_sim._nb.policies import borrow_nb
from spades_sim._nb.rng import LOW32, below_nb, draw_nb, mix64_nb, unit_nb
from spades_sim._nb.score import partner_bid_nb, side_of_nb

# ``Rules`` field names where the rule array stores the rule itself; the two choices
# keep the name of their encoding (0/1).
RULE_NAMES = tuple(
    {
        "nil_tricks_for_partner": "nil_tricks_count_for_partner",
        "nil_tricks_as_bags": "nil_tricks_count_as_bags",
    }.get(name, name)
    for name in RuleField._fields
)
RulesView = namedtuple("RulesView", RULE_NAMES)
if len(RULE_NAMES) != 28:  # pragma: no cover - a new rule field must be added below
    raise ImportError("rules_view_nb lists 28 rule fields; RuleField has another count")

BID_FIELDS = (
    "hand", "seat", "side", "players", "dealer", "first_to_act", "bids", "nils",
    "partner_bid", "nil_allowed", "min_bid", "max_bid", "scores", "bags", "rules", "params",
    "rand", "info", "rule_array",
)  # fmt: skip
BidContext = namedtuple("BidContext", BID_FIELDS)

BLIND_NIL_FIELDS = (
    "seat", "side", "players", "dealer", "first_to_act", "bids", "nils", "partner_bid",
    "scores", "bags", "rules", "params", "rand", "info", "rule_array",
)  # fmt: skip
BlindNilContext = namedtuple("BlindNilContext", BLIND_NIL_FIELDS)

PLAY_FIELDS = (
    "hand", "legal", "seat", "side", "players", "trick_no", "leader", "n_in_trick", "trick",
    "led_suit", "winning_card", "winning_seat", "played", "played_by", "history",
    "spades_broken", "tricks_won", "bids", "nils", "voids", "scores", "bags", "rules",
    "params", "rand", "info", "rule_array",
)  # fmt: skip
PlayContext = namedtuple("PlayContext", PLAY_FIELDS)


@njit(inline="always", cache=True)
def sides_nb(info):
    """How many entries the ``scores`` and ``bags`` views have: one per side (4 or 3 in
    cutthroat), else 2."""
    return max(info[InfoSlot.sides], 2)


@njit(inline="always", cache=True)
def rules_view_nb(rules):
    """The rule array as :data:`RulesView` (one field per ``RuleField``, in order)."""
    return RulesView(
        rules[0], rules[1], rules[2], rules[3], rules[4], rules[5], rules[6], rules[7],
        rules[8], rules[9], rules[10], rules[11], rules[12], rules[13], rules[14], rules[15],
        rules[16], rules[17], rules[18], rules[19], rules[20], rules[21], rules[22], rules[23],
        rules[24], rules[25], rules[26], rules[27],
    )  # fmt: skip


@njit(inline="always", cache=True)
def bid_context_nb(hand, seat, info, rules, params, rand):
    """The :data:`BidContext` of a bid (``params``: the policy's named parameters); the
    bids the bid rule allows it (``bidding.bid_range_nb``) as ``nil_allowed`` and the
    numbers ``min_bid`` .. ``max_bid`` (none when ``min_bid > max_bid``)."""
    table = borrow_nb(info)
    partner_bid = partner_bid_nb(info, seat)
    nil_ok, lo, hi = bid_range_nb(rules, hand, partner_bid)
    n = sides_nb(info)
    return BidContext(
        hand, seat, side_of_nb(info[InfoSlot.sides], seat), info[InfoSlot.players],
        info[InfoSlot.dealer],
        info[InfoSlot.first_to_act], table[InfoSlot.bids : InfoSlot.bids + 4],
        table[InfoSlot.nil : InfoSlot.nil + 4], partner_bid, nil_ok, lo, hi,
        table[InfoSlot.scores : InfoSlot.scores + n], table[InfoSlot.bags : InfoSlot.bags + n],
        rules_view_nb(rules), params, rand, table, borrow_nb(rules),
    )  # fmt: skip


@njit(inline="always", cache=True)
def blind_nil_context_nb(seat, info, rules, params, rand):
    """The :data:`BlindNilContext` of a blind nil decision: the table, not the hand."""
    table = borrow_nb(info)
    n = sides_nb(info)
    return BlindNilContext(
        seat, side_of_nb(info[InfoSlot.sides], seat), info[InfoSlot.players],
        info[InfoSlot.dealer], info[InfoSlot.first_to_act],
        table[InfoSlot.bids : InfoSlot.bids + 4], table[InfoSlot.nil : InfoSlot.nil + 4],
        partner_bid_nb(info, seat), table[InfoSlot.scores : InfoSlot.scores + n],
        table[InfoSlot.bags : InfoSlot.bags + n],
        rules_view_nb(rules), params, rand, table, borrow_nb(rules),
    )  # fmt: skip


@njit(inline="always", cache=True)
def play_context_nb(hand, legal, seat, info, rules, params, rand):
    """The :data:`PlayContext` of a play."""
    table = borrow_nb(info)
    n = sides_nb(info)
    return PlayContext(
        hand, legal, seat, side_of_nb(info[InfoSlot.sides], seat), info[InfoSlot.players],
        info[InfoSlot.trick],
        info[InfoSlot.leader], info[InfoSlot.n_in_trick],
        table[InfoSlot.trick_cards : InfoSlot.trick_cards + 4], info[InfoSlot.led_suit],
        info[InfoSlot.winning_card], info[InfoSlot.winning_seat],
        np.uint64(info[InfoSlot.played]),
        table[InfoSlot.played_by : InfoSlot.played_by + 4],
        table[InfoSlot.history : InfoSlot.history + MAX_PLAYS], info[InfoSlot.broken] != 0,
        table[InfoSlot.tricks_won : InfoSlot.tricks_won + 4],
        table[InfoSlot.bids : InfoSlot.bids + 4], table[InfoSlot.nil : InfoSlot.nil + 4],
        table[InfoSlot.voids : InfoSlot.voids + 4], table[InfoSlot.scores : InfoSlot.scores + n],
        table[InfoSlot.bags : InfoSlot.bags + n], rules_view_nb(rules), params, rand, table,
        borrow_nb(rules),
    )  # fmt: skip


# --- Building blocks on a context ------------------------------------------------------


@njit(inline="always", cache=True)
def count_bid_with_nb(ctx, vector):
    """The built-in ``count`` bid with ``vector`` laid out as its slots (``CountParam``;
    slot 0 unused)."""
    return counting_bid_nb(ctx.hand, ctx.seat, ctx.info, vector, BidPolicy.count)


@njit(inline="always", cache=True)
def count_bid_nb(ctx):
    """The built-in ``count`` bid with the registry's defaults (``COUNT_DEFAULTS``)."""
    return count_bid_with_nb(ctx, COUNT_DEFAULTS)


@njit(inline="always", cache=True)
def heuristic_play_with_nb(ctx, vector):
    """The built-in ``heuristic`` play with ``vector`` laid out as its slots
    (``HeuristicParam``; slot 0 unused)."""
    return heuristic_cards_nb(ctx.hand, ctx.legal, ctx.seat, ctx.info, ctx.rule_array, vector)


@njit(inline="always", cache=True)
def heuristic_play_nb(ctx):
    """The built-in ``heuristic`` play with the registry's defaults (``HEURISTIC_DEFAULTS``)."""
    return heuristic_play_with_nb(ctx, HEURISTIC_DEFAULTS)


@njit(inline="always", cache=True)
def random_play_nb(ctx):
    """The built-in ``random`` play: a legal card, uniformly, from the decision's bits."""
    k = below_nb(mix64_nb(ctx.rand) & LOW32, popcount_nb(ctx.legal))
    return select_bit_nb(ctx.legal, k)


@njit(inline="always", cache=True)
def blind_nil_rule_nb(ctx):
    """The built-in bidders' blind nil rule with the ``count`` defaults (by score
    deficit, bags and the partner's bid), for a bidder that names it explicitly."""
    return blind_nil_wanted_nb(ctx.seat, ctx.info, ctx.rule_array, COUNT_DEFAULTS, ctx.rand)


@njit(inline="always", cache=True)
def uniform_nb(ctx, k):
    """A float uniform on [0, 1): the ``k``-th draw of the decision's random stream."""
    return unit_nb(draw_nb(ctx.rand, k))


@njit(inline="always", cache=True)
def randint_nb(ctx, n, k):
    """An integer uniform on 0 .. n-1: the ``k``-th draw of the decision's stream."""
    return below_nb(draw_nb(ctx.rand, k) & LOW32, n)


@njit(inline="always", cache=True)
def random_card_nb(ctx, mask, k):
    """A card of the non-empty ``mask``, uniformly: the ``k``-th draw of the stream."""
    return select_bit_nb(mask, randint_nb(ctx, popcount_nb(mask), k))


@njit(inline="always", cache=True)
def never_blind_nil_nb(seat, info, rules, params, rand):
    """The blind nil decision of a user-written bidder that supplies none: never."""
    return False
