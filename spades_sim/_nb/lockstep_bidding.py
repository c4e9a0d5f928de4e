"""Bidding for a batch of four-player deals in lock-step, written so LLVM can vectorise it.

``bid_lanes_four_nb`` takes the blind nil decisions and the bids of ``LANES`` freshly
dealt hands at once: the k-th bidder of every deal bids before the (k+1)-th, all
per-deal state lives in flat arrays (seat s of deal b at ``s * LANES + b``) and the
per-deal loop has no branch, so it compiles to SIMD code (see ``lockstep.py`` on vector
width). It covers every built-in bidder but the sampling one (``random``, ``count``,
``pagat``, ``partner-aware``, either side any of them) on a fresh table (independent
hands: scores and bags 0), and calls the very scalar evaluations ``prepare.py`` does
(``bidding.py``'s ``*_core_nb`` and value functions, same operations in the same order,
no fast-math), with the same random counters: the bids equal the one-deal-at-a-time
path's, which the tests check. Every lane evaluates each bidder its two sides use and
keeps its own side's answer; that is cheaper than a branch per deal.
"""

import numpy as np
from numba import njit

from spades_sim._nb.bidding import (
    OWN_SLOT,
    bid_rules_nb,
    blind_nil_core_nb,
    counting_bid_core_nb,
    legal_bid_core_nb,
    partner_aware_core_nb,
)
from spades_sim._nb.bitboard import SPADE_MASK, popcount_nb
from spades_sim._nb.deal import DECISION_COUNTER_BASE
from spades_sim._nb.enums import (
    LANES,
    BidParam,
    BidPolicy,
    DealLane,
    ParamRow,
    PartnerParam,
    RandomBidParam,
    RuleField,
)
from spades_sim._nb.lockstep import lane_at_nb, prefer_wide_vectors_nb
from spades_sim._nb.rng import GOLDEN, LOW32, below_nb, mix64_nb, unit_nb
from spades_sim.policy_table import names_with

LANE_BIDDERS = tuple(getattr(BidPolicy, n.replace("-", "_")) for n in names_with("bid", "lanes"))
"""The bidders ``bid_lanes_four_nb`` runs (the kernels choose it only for these)."""
COUNT_LANE_BIDDERS = (BidPolicy.random, BidPolicy.count)
"""The bidders ``bid_lanes_count_four_nb`` runs (a subset that compiles in a third of
the time: the default bidder and the random one)."""


@njit(inline="always", cache=True)
def _pick(side, ns, ew):
    return ew if side else ns


@njit(inline="always", cache=True)
def _seat_value(seat, v0, v1, v2, v3):
    # two selects on the seat's bits: a chain of ``seat == s`` tests becomes a switch,
    # which the vectoriser refuses
    odd = seat & 1
    low = v1 if odd else v0
    high = v3 if odd else v2
    return high if seat & 2 else low


@njit(inline="always", cache=True)
def _table_seat_nb(s, seat, partner, bid, nil):
    """What seat ``s`` adds to the table ``seat`` sees: (its bid if a number, 1 if still
    to bid, 1 if an opponent's nil)."""
    other = s != seat
    number = other & (bid >= 0) & (nil == 0)
    return (
        bid if number else 0,
        np.int64(other & (bid < 0)),
        np.int64(other & (bid >= 0) & (nil != 0) & (s != partner)),
    )


@njit(cache=True)
def bid_lanes_four_nb(rules, params, lanes, forced_seat):
    """Blind nil decisions and bids for the ``LANES`` deals of a batch.

    ``lanes`` (``enums.DealLane``, field f of deal b at ``f * LANES + b``) holds on entry
    each deal's hands (as int64 bit patterns), stream key and first bidder; on return
    its bids (0..13, 0 for nil and blind nil), nil kinds (0 number, 1 nil, 2 blind nil)
    and the number of out-of-range bids (clamped, as ``prepare.ask_bid_nb`` does; the
    built-ins make none). ``params`` is the run's parameter matrix (rows ``ParamRow``).
    Seat ``forced_seat`` (-1: none) does not ask its policy: in deal b it bids
    ``DealLane.forced_bid`` with nil kind ``DealLane.forced_kind`` (2: blind nil, declared at
    its blind nil turn), as ``prepare.prepare_four_nb`` does for a forced seat.

    Each bidder in turn: one pass finds every deal's bidder, its hand, its partner's bid,
    its blind nil decision and the ``random`` bid; one pass per other bidder some side
    runs (count, pagat, partner-aware) evaluates it in every deal; a last pass keeps each
    deal's own side's answer. A bidder no side runs costs nothing at run time; at compile
    time every pass costs, so runs whose sides bid only ``count`` or ``random`` (the
    default) take :func:`bid_lanes_count_four_nb`, which compiles one pass in three."""
    prefer_wide_vectors_nb()
    ns, ew = _start_nb(params, lanes)
    count = _uses(ns, ew, BidPolicy.count)
    pagat = _uses(ns, ew, BidPolicy.pagat)
    aware = _uses(ns, ew, BidPolicy.partner_aware)
    for k in range(4):
        _bidder_nb(rules, ns, ew, lanes, k)
        if count:
            _counting_nb(ns, ew, lanes, BidPolicy.count)
        if pagat:
            _counting_nb(ns, ew, lanes, BidPolicy.pagat)
        if aware:
            _aware_nb(rules, ns, ew, lanes)
        _settle_nb(rules, ns, ew, lanes, forced_seat)


@njit(cache=True)
def bid_lanes_count_four_nb(rules, params, lanes, forced_seat):
    """:func:`bid_lanes_four_nb` for runs whose sides bid only ``count`` or ``random``
    (``COUNT_LANE_BIDDERS``): the same bids, with the other bidders' passes not compiled."""
    prefer_wide_vectors_nb()
    ns, ew = _start_nb(params, lanes)
    count = _uses(ns, ew, BidPolicy.count)
    for k in range(4):
        _bidder_nb(rules, ns, ew, lanes, k)
        if count:
            _counting_nb(ns, ew, lanes, BidPolicy.count)
        _settle_nb(rules, ns, ew, lanes, forced_seat)


@njit(inline="always", cache=True)
def _start_nb(params, lanes):
    """Clear a batch's bids, nil kinds and error counts; the two sides' parameters."""
    for j in range(4 * LANES):
        lanes[DealLane.bids * LANES + j] = -1
        lanes[DealLane.nils * LANES + j] = 0
    for b in range(LANES):
        lanes[DealLane.errors * LANES + b] = 0
    # the parameters as scalars: loads from an array inside the lane loop would keep LLVM
    # from vectorising it (it cannot tell they never alias the stores to ``lanes``)
    return _slots_nb(params[ParamRow.bid]), _slots_nb(params[ParamRow.bid + 1])


@njit(inline="always", cache=True)
def _uses(ns, ew, policy):
    return ns[0] == policy or ew[0] == policy


@njit(inline="always", cache=True)
def _slots_nb(p):
    return (
        p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7],
        p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16],
    )  # fmt: skip


@njit(inline="always", cache=True)
def _bidder_nb(rules, ns, ew, lanes, k):
    """Every deal's k-th bidder: its seat, hand, partner's bid and nil kind, blind nil
    decision and ``random`` bid, into the ``DealLane`` working fields."""
    random_ns, random_ew = ns[0] == BidPolicy.random, ew[0] == BidPolicy.random
    # blind nil is open at a fresh table when the rules allow it with no deficit needed
    blind_open = rules[RuleField.blind_nil] != 0 and rules[RuleField.blind_nil_min_deficit] <= 0
    # bidder k's counters (``deal.DECISION_COUNTER_BASE``): blind nil, then the bid
    count_step = np.uint64(DECISION_COUNTER_BASE + 2 * k) * GOLDEN
    for b in range(LANES):
        seat = (lanes[lane_at_nb(DealLane.first, b)] + k) & 3
        side = seat & 1
        partner = seat ^ 2
        hand = _seat_value(
            seat, lanes[lane_at_nb(DealLane.hands, b)], lanes[lane_at_nb(DealLane.hands + 1, b)],
            lanes[lane_at_nb(DealLane.hands + 2, b)], lanes[lane_at_nb(DealLane.hands + 3, b)],
        )  # fmt: skip
        partner_bid = _seat_value(
            partner, lanes[lane_at_nb(DealLane.bids, b)], lanes[lane_at_nb(DealLane.bids + 1, b)],
            lanes[lane_at_nb(DealLane.bids + 2, b)], lanes[lane_at_nb(DealLane.bids + 3, b)],
        )  # fmt: skip
        partner_nil = _seat_value(
            partner, lanes[lane_at_nb(DealLane.nils, b)], lanes[lane_at_nb(DealLane.nils + 1, b)],
            lanes[lane_at_nb(DealLane.nils + 2, b)], lanes[lane_at_nb(DealLane.nils + 3, b)],
        )  # fmt: skip
        key = np.uint64(lanes[lane_at_nb(DealLane.key, b)])
        # blind nil (``bidding.blind_nil_wanted_nb`` at a fresh table: deficit and bags 0,
        # the opponents the whole target short)
        rand = key + count_step
        blind = blind_nil_core_nb(
            True, 0, rules[RuleField.target], 0, partner_bid, partner_nil,
            _pick(side, ns[BidParam.blind_nil_deficit], ew[BidParam.blind_nil_deficit]),
            _pick(side, ns[BidParam.blind_nil_opp_within], ew[BidParam.blind_nil_opp_within]),
            _pick(side, ns[BidParam.blind_nil_max_bags], ew[BidParam.blind_nil_max_bags]),
            _pick(side, ns[BidParam.blind_nil_partner_min], ew[BidParam.blind_nil_partner_min]),
            _pick(side, ns[BidParam.blind_nil_before_partner],
                  ew[BidParam.blind_nil_before_partner]) > 0,
        )  # fmt: skip
        random_blind = unit_nb(mix64_nb(rand + GOLDEN)) < _pick(
            side, ns[RandomBidParam.blind_nil_rate], ew[RandomBidParam.blind_nil_rate]
        )
        blind = random_blind if _pick(side, random_ns, random_ew) else blind
        # the random bid (``policies.plain_bid_call_nb``)
        rand = key + count_step + GOLDEN
        random_nil = unit_nb(mix64_nb(rand)) < _pick(
            side, ns[RandomBidParam.nil_rate], ew[RandomBidParam.nil_rate]
        )
        max_bid = np.int64(_pick(side, ns[RandomBidParam.max_bid], ew[RandomBidParam.max_bid]))
        random_bid = 0 if random_nil else 1 + below_nb(mix64_nb(rand + GOLDEN) & LOW32, max_bid)
        lanes[lane_at_nb(DealLane.seat, b)] = seat
        lanes[lane_at_nb(DealLane.hand, b)] = hand
        lanes[lane_at_nb(DealLane.partner_bid, b)] = partner_bid
        lanes[lane_at_nb(DealLane.partner_nil, b)] = partner_nil
        lanes[lane_at_nb(DealLane.blind, b)] = np.int64(blind_open & blind)
        lanes[lane_at_nb(DealLane.random_bid, b)] = random_bid


@njit(inline="always", cache=True)
def _counting_nb(ns, ew, lanes, policy):
    """The ``policy`` bid (``BidPolicy.count`` or ``pagat``, a constant at each call, so
    each pass evaluates only its own count; ``bidding.counting_bid_core_nb``) of every
    deal whose bidder's side runs it, with that side's parameters, into
    ``DealLane.counted``."""
    for b in range(LANES):
        side = lanes[lane_at_nb(DealLane.seat, b)] & 1
        mine = _pick(side, ns[0] == policy, ew[0] == policy)
        bid = counting_bid_core_nb(
            np.uint64(lanes[lane_at_nb(DealLane.hand, b)]), True, policy,
            lanes[lane_at_nb(DealLane.partner_bid, b)], lanes[lane_at_nb(DealLane.partner_nil, b)],
            _pick(side, ns[BidParam.bias], ew[BidParam.bias]),
            _pick(side, ns[BidParam.nil_threshold], ew[BidParam.nil_threshold]),
            _pick(side, ns[BidParam.nil_partner_min], ew[BidParam.nil_partner_min]),
            _pick(side, ns[BidParam.round_up], ew[BidParam.round_up]),
            _pick(side, ns[OWN_SLOT], ew[OWN_SLOT]),
            _pick(side, ns[OWN_SLOT + 1], ew[OWN_SLOT + 1]),
            _pick(side, ns[OWN_SLOT + 2], ew[OWN_SLOT + 2]),
        )  # fmt: skip
        lanes[lane_at_nb(DealLane.counted, b)] = (
            bid if mine else lanes[lane_at_nb(DealLane.counted, b)]
        )


@njit(inline="always", cache=True)
def _aware_nb(rules, ns, ew, lanes):
    """The partner-aware bid (``bidding.partner_aware_bid_nb``: the table as the bidder
    sees it, then ``partner_aware_core_nb``) of every deal's bidder, into
    ``DealLane.aware``."""
    bag_rule = rules[RuleField.bag_penalty] > 0
    bag_limit = rules[RuleField.bag_limit]
    target = rules[RuleField.target]
    for b in range(LANES):
        seat = lanes[lane_at_nb(DealLane.seat, b)]
        side = seat & 1
        partner = seat ^ 2
        partner_nil = lanes[lane_at_nb(DealLane.partner_nil, b)]
        b0, b1 = lanes[lane_at_nb(DealLane.bids, b)], lanes[lane_at_nb(DealLane.bids + 1, b)]
        b2, b3 = lanes[lane_at_nb(DealLane.bids + 2, b)], lanes[lane_at_nb(DealLane.bids + 3, b)]
        n0, n1 = lanes[lane_at_nb(DealLane.nils, b)], lanes[lane_at_nb(DealLane.nils + 1, b)]
        n2, n3 = lanes[lane_at_nb(DealLane.nils + 2, b)], lanes[lane_at_nb(DealLane.nils + 3, b)]
        known0, unbid0, opp0 = _table_seat_nb(0, seat, partner, b0, n0)
        known1, unbid1, opp1 = _table_seat_nb(1, seat, partner, b1, n1)
        known2, unbid2, opp2 = _table_seat_nb(2, seat, partner, b2, n2)
        known3, unbid3, opp3 = _table_seat_nb(3, seat, partner, b3, n3)
        lanes[lane_at_nb(DealLane.aware, b)] = partner_aware_core_nb(
            np.uint64(lanes[lane_at_nb(DealLane.hand, b)]), True, known0 + known1 + known2 + known3,
            unbid0 + unbid1 + unbid2 + unbid3, partner_nil != 0,
            (opp0 + opp1 + opp2 + opp3) > 0, lanes[lane_at_nb(DealLane.partner_bid, b)],
            partner_nil,
            0, 0, 0, bag_rule, bag_limit, target,
            _pick(side, ns[BidParam.bias], ew[BidParam.bias]),
            _pick(side, ns[BidParam.nil_threshold], ew[BidParam.nil_threshold]),
            _pick(side, ns[BidParam.nil_partner_min], ew[BidParam.nil_partner_min]),
            _pick(side, ns[BidParam.round_up], ew[BidParam.round_up]),
            _pick(side, ns[PartnerParam.overbid_cut], ew[PartnerParam.overbid_cut]),
            _pick(side, ns[PartnerParam.nil_cover_bonus], ew[PartnerParam.nil_cover_bonus]),
            _pick(side, ns[PartnerParam.opp_nil_bonus], ew[PartnerParam.opp_nil_bonus]),
            _pick(side, ns[PartnerParam.bag_push], ew[PartnerParam.bag_push]),
            _pick(side, ns[PartnerParam.bag_margin], ew[PartnerParam.bag_margin]),
            _pick(side, ns[PartnerParam.score_shade], ew[PartnerParam.score_shade]),
            _pick(side, ns[PartnerParam.score_margin], ew[PartnerParam.score_margin]),
        )  # fmt: skip


@njit(inline="always", cache=True)
def _settle_nb(rules, ns, ew, lanes, forced_seat):
    """Each deal's bid from its bidder's own policy (blind nil first), clamped to 0..13
    with out-of-range bids counted and made what the bid rule allows (as
    ``prepare.ask_bid_nb`` does), or the forced seat's given bid, stored under the
    bidder's seat."""
    bid_rules = bid_rules_nb(rules)  # scalars before the loop, which it vectorises
    # which bidder each side runs, as flags (tests of one policy id against several
    # values would become a switch, which the vectoriser refuses)
    random_ns, random_ew = ns[0] == BidPolicy.random, ew[0] == BidPolicy.random
    aware_ns, aware_ew = ns[0] == BidPolicy.partner_aware, ew[0] == BidPolicy.partner_aware
    for b in range(LANES):
        seat = lanes[lane_at_nb(DealLane.seat, b)]
        side = seat & 1
        forced = seat == forced_seat
        forced_kind = lanes[lane_at_nb(DealLane.forced_kind, b)]
        blind = lanes[lane_at_nb(DealLane.blind, b)] != 0
        blind = (forced_kind == 2) if forced else blind
        bid = lanes[lane_at_nb(DealLane.counted, b)]
        bid = (
            lanes[lane_at_nb(DealLane.random_bid, b)] if _pick(side, random_ns, random_ew) else bid
        )
        bid = lanes[lane_at_nb(DealLane.aware, b)] if _pick(side, aware_ns, aware_ew) else bid
        bid = lanes[lane_at_nb(DealLane.forced_bid, b)] if forced else bid
        bad = (bid < 0) | (bid > 13)
        asked = np.int64(blind | forced) ^ 1
        lanes[lane_at_nb(DealLane.errors, b)] += np.int64(bad) & asked
        bid = min(max(bid, 0), 13)
        spades = popcount_nb(np.uint64(lanes[lane_at_nb(DealLane.hand, b)]) & SPADE_MASK)
        allowed = legal_bid_core_nb(
            bid_rules, bid, spades, lanes[lane_at_nb(DealLane.partner_bid, b)]
        )
        bid = 0 if blind else (bid if forced else allowed)
        kind = 2 if blind else (forced_kind if forced else (1 if bid == 0 else 0))
        for s in range(4):
            # blended, not selected: ``seat == s`` for s = 0..3 would become a switch
            here = np.int64(seat == s)
            old_bid = lanes[lane_at_nb(DealLane.bids + s, b)]
            old_kind = lanes[lane_at_nb(DealLane.nils + s, b)]
            lanes[lane_at_nb(DealLane.bids + s, b)] = old_bid + (bid - old_bid) * here
            lanes[lane_at_nb(DealLane.nils + s, b)] = old_kind + (kind - old_kind) * here
