"""The built-in policies, dispatched by integer id with a float64 parameter vector.

Every policy sees only what its seat may know: its own ``hand`` mask, the public table
state ``info`` (``enums.InfoSlot``: bids, cards played, tricks, scores, known voids),
the rule array and its parameters. ``rand`` is a 64-bit value unique to the decision; a
policy that wants randomness draws from it with ``rng.mix64_nb(rand + j * GOLDEN)``. No
function is ever given another seat's cards; the sampling policies (``rollout.py``)
deal the unseen cards at random from what the seat can see.

Signatures (user-written policies have the same, see ``spades_sim.policies``)::

    bid(hand: uint64, seat: int64, info: int64[:], rules: int64[:],
        params: float64[:], rand: uint64) -> int64          # 0..13, 0 = nil
    play(hand: uint64, legal: uint64, seat: int64, info: int64[:], rules: int64[:],
         params: float64[:], rand: uint64) -> int64         # a card id in ``legal``

For the built-ins, ``params[0]`` holds the policy id and the named parameters follow in
the registry's order (the ``*Param`` slots of ``enums.py``).

This module is the top of the policy layer: bidding (``bidding.py``), scalar heuristic
play (``heuristic.py``) and the sampling policies (``rollout.py``, which plays with the
heuristic) sit below it, and nothing imports it but the kernels' loops. The per-card
path is inlined (``heuristic.py`` explains why arrays stay out of it); the sampling
policies and the partner-aware bidder are separate cached functions, called with
borrowed array views (``borrow_nb``) only when chosen.
"""

import numpy as np
from numba import njit
from numba.extending import intrinsic

from spades_sim._nb.advise_bid import advise_bid_nb
from spades_sim._nb.bidding import (
    counting_bid_nb,
    partner_aware_bid_nb,
)
from spades_sim._nb.bitboard import (
    popcount_nb,
    select_bit_nb,
)
from spades_sim._nb.enums import SEARCH_CELL, STOP_SLOT, BidPolicy, PlayPolicy, RandomBidParam
from spades_sim._nb.heuristic import (
    heuristic_play_nb,
)
from spades_sim._nb.rng import (
    GOLDEN,
    LOW32,
    below_nb,
    mix64_nb,
    unit_nb,
)
from spades_sim._nb.rollout import (
    lookahead_play_nb,
    monte_carlo_bid_nb,
)


@intrinsic
def borrow_nb(typingctx, arr):
    """The same array without its reference count (a null meminfo), for passing to a
    non-inlined function that only reads it during the call. A call that takes the
    kernel's own arrays makes Numba keep atomic reference counting on them around every
    decision (~20 ns); borrowed views cost nothing."""

    def codegen(context, builder, sig, args):
        src = context.make_array(sig.args[0])(context, builder, args[0])
        out = context.make_array(sig.return_type)(context, builder)
        context.populate_array(
            out, data=src.data, shape=src.shape, strides=src.strides, itemsize=src.itemsize,
            meminfo=None,
        )  # fmt: skip
        return out._getvalue()

    return arr(arr), codegen


@njit(inline="always", cache=True)
def stop_requested_nb(rules):
    """Whether the run is stopping: ``rules`` carries a stop cell (``enums.SEARCH_CELL``)
    whose flag the run layer has set. Its kernels then skip what is left of their work
    (the chunk is dropped); a rule array without a cell never stops."""
    return rules.shape[0] > SEARCH_CELL + STOP_SLOT and rules[SEARCH_CELL + STOP_SLOT] != 0


@njit(inline="always", cache=True)
def builtin_bid_nb(hand, seat, info, rules, params, rand):
    """Bid 0..13 (0 = nil) with the built-in bidding policy ``params[0]``."""
    policy = np.int64(params[0])
    if policy == BidPolicy.monte_carlo:
        return monte_carlo_bid_nb(
            hand, seat, borrow_nb(info), borrow_nb(rules), borrow_nb(params), rand
        )
    if policy == BidPolicy.advise:
        return advise_bid_nb(hand, seat, borrow_nb(info), borrow_nb(rules), borrow_nb(params), rand)
    return plain_bid_nb(hand, seat, info, rules, params, rand)


@njit(inline="always", cache=True)
def plain_bid_nb(hand, seat, info, rules, params, rand):
    """``builtin_bid_nb`` without the sampling bidders (``monte-carlo``, ``advise``): the
    same bids for every other policy, and a kernel that bids through it never compiles the rollouts
    (``prepare.prepare_plain_two_nb``). A real call with borrowed arrays: inlined, each
    call site of a kernel would compile a copy of every bidder."""
    return plain_bid_call_nb(hand, seat, borrow_nb(info), borrow_nb(rules), borrow_nb(params), rand)


@njit(cache=True)
def plain_bid_call_nb(hand, seat, info, rules, params, rand):
    """``plain_bid_nb``'s dispatch (its arrays borrowed by the caller)."""
    policy = np.int64(params[0])
    if policy == BidPolicy.random:
        bits = mix64_nb(rand)
        if unit_nb(bits) < params[RandomBidParam.nil_rate]:
            return 0
        max_bid = np.int64(params[RandomBidParam.max_bid])
        return 1 + below_nb(mix64_nb(rand + GOLDEN) & LOW32, max_bid)
    if policy == BidPolicy.partner_aware:
        return partner_aware_bid_nb(hand, seat, info, rules, params)
    return counting_bid_nb(hand, seat, info, params, policy)


@njit(inline="always", cache=True)
def plain_play_nb(hand, legal, seat, info, rules, params, rand):
    """``builtin_play_nb`` without the sampling player (``lookahead``): the same cards for
    ``random`` and ``heuristic``, and a kernel that plays through it never compiles the
    rollouts."""
    if np.int64(params[0]) == PlayPolicy.heuristic:
        return heuristic_play_nb(hand, legal, seat, info, rules, params)
    n = popcount_nb(legal)
    k = below_nb(mix64_nb(rand) & LOW32, n)
    return select_bit_nb(legal, k)


@njit(inline="always", cache=True)
def builtin_play_nb(hand, legal, seat, info, rules, params, rand):
    """Play a card of ``legal`` with the built-in play policy ``params[0]``."""
    policy = np.int64(params[0])
    if policy == PlayPolicy.heuristic:
        return heuristic_play_nb(hand, legal, seat, info, rules, params)
    if policy == PlayPolicy.lookahead:
        return lookahead_play_nb(
            hand, legal, seat, borrow_nb(info), borrow_nb(rules), borrow_nb(params), rand
        )
    n = popcount_nb(legal)
    k = below_nb(mix64_nb(rand) & LOW32, n)
    return select_bit_nb(legal, k)
