"""Double-dummy search for Spades: the tricks a side takes, and whether a nil survives,
when every seat sees every card and plays perfectly.

Contract
--------
Pure kernels: arrays and scalars in, no I/O, no validation (``spades_sim.solve``
checks positions at the boundary). A position is the four hand masks ``hands[0..3]``
(two players: seats 0 and 1, three: seats 0 to 2, the others 0), the seat to play, how
many cards the current trick holds (``pos``), the suit led (-1 when leading), the
winning card and seat so far, the mask of the trick's cards, whether spades are
broken, whether this is the first trick, and the rules of play as the ``PLAY_*`` bits
of ``play_rules`` (``spades_lead`` any_time, ``first_lead`` two_of_clubs,
``must_trump``, ``must_overtrump``). The side of a seat is ``seat & 1`` (N-S 0, E-W 1;
with two players each seat is its own side; in cutthroat's nil search, ``NIL_ALONE``).
Legal cards are those of ``_nb.play.legal_cards_nb`` (docs/rules.md "Play"); any spade
played breaks spades.

- :func:`dd_value_nb` gives side 0's tricks from a node to the end, the current trick
  included.
- :func:`nil_safe_nb` says whether the side holding the nil seats (``nil_mask``, a bit per
  seat) can keep every one of them from winning a trick, whatever the others do.
- :func:`card_values_nb` gives, for each legal card of the mover, its side's tricks
  after it (trick mode) or whether the nil survives it (nil mode).
- :func:`dd_table_nb` solves opening positions of many deals (a thread's stripe of them,
  ``nogil``) for ``spades_sim.threads.run_blocks``; :func:`nil_table_nb` gives one
  nil verdict a deal the same way.

The transposition table is two preallocated arrays the caller owns, ``tt_keys``
(``KEY_WORDS x size`` uint64: word ``j`` of every slot in one row, so a bucket's shapes
are contiguous) and ``tt_data`` (``size`` int64), ``size`` a power of two
(``new_table``), in buckets of ``WAYS`` slots; it never grows. Its entries are facts
about positions (bounds on a side's tricks, or a nil verdict), true whatever deal or
solve they came from, so a table may be reused across solves and deals without clearing.
A new entry takes an empty slot of its bucket, else a slot of an older solve (each entry
records the solve count, ``stats[S_GEN]``, of its last store), else one in turn: the
entries of the solve under way are the ones it comes back to (measured on random deals:
a table kept across deals and replaced in turn alone made a solve take a quarter longer
than a cleared one; preferring older solves' slots closes the gap, while preferring
entries with more cards left made the search visit half as many nodes again).

Algorithm (after Haglund and Hein's DDS, ``dds-bridge/dds`` ``doc/Alg-dds_x`` and
``doc/heuristic-sorting.md``, and Ginsberg's partition search; the code is written for
this package)
-----------------------------------------------------------------------------------
- **Zero-window searches around an iterative target.** :func:`dd_value_nb` never asks
  "how many tricks"; it asks the boolean "does side 0 take at least ``t`` more tricks"
  (:func:`search_nb`), starting from a guess and moving ``t`` one trick at a time until the
  answer flips. A boolean search cuts off at the first move that settles it. Each target
  between the guess and the answer costs a whole search, so the first guess is
  :func:`estimate_nb`, a points count fitted to DDS's answers (off by 1.2 tricks on
  average, against 2.1 for half the tricks).
- **Transposition table at trick starts: partition search on relative ranks.** Only
  the order of the cards still out matters: each hand is put in relative-rank layout
  (``pext`` of the hand over the union of all hands). A search also returns the cards its
  result rests on (those that won a trick over a card of their own suit, those a bound
  counted, those of the entries it used: DDS's winning ranks); below the lowest of them in
  a suit, cards are interchangeable small cards. An entry keeps the shape (every hand's
  suit lengths), the leader, whether a spade may be led, the mask of the cards that
  matter, each hand's cards under that mask, a lower and an upper bound on side 0's
  tricks and the cut-off move; it answers every position that agrees on those. Buckets
  of ``WAYS`` slots are hashed on the shape, the flags and who holds the top spade (nine
  entries in ten fix that card; the others go to a bucket of their own, and a probe
  looks in both). Measured on random deals: an entry that had to fix the top card of
  every suit, so that it could be hashed on their owners, answered so few positions that
  the search visited four times the nodes; buckets of 16 slots instead of 64 a sixth
  more. Nil entries are the exception: few of them fix the top spade, and in one bucket
  they evicted each other (the nil search took 1.7 times as long), so a nil entry fixes
  the top card of every suit and is filed under who holds the top ``k`` cards of each
  suit, ``k`` (1 to ``NIL_LEVELS``) the most its mask covers. A node where
  every move failed and whose mover has a run of equal cards cut by the threshold takes
  the whole run, so that the equivalent-card pruning below stays sound for the positions
  an entry answers.
- **Quick tricks and later tricks** (DDS's QuickTricks and LaterTricks). At a trick start,
  before any move: the leader's side takes at least the top spades the leader (or,
  through a spade to the partner's top spade or a side-suit lead no one can ruff, the
  partner) can cash, then the side-suit winners that no opponent holding a spade can
  ruff (opponents must follow while they hold the suit), no more side-suit rounds than
  the partner can follow or discard in without being forced to ruff a winner; each
  side takes at least, for one of its players, ``j - k`` tricks with its ``j`` highest
  spades when ``k`` opponents' spades lie above the lowest of them (a spade wins its
  trick unless a higher spade of an opponent falls in it, each of those in one trick);
  the side not on lead takes a trick with the second-highest spade guarded in a hand
  that plays after the highest; when the opponents have no spade, the leader's side
  takes the leader's spades and a ruff by the partner, and else a trick by a ruff of the
  partner that no opponent can beat (:func:`trick_bounds_nb`). Only the bounds that can
  reach the tricks settling the search are worked out (a side's spade bounds when it
  holds that many spades, the quick tricks when its top cards reach it): a third less
  time at each trick start.
  After the lead, the side second to play settles a target of one trick, or the last
  trick the other side needs, when it can take this trick whatever the third hand does
  (:func:`second_hand_wins_nb`: a ruff the third hand cannot beat, or the top card over
  the third hand's). These bounds settle many searches with no move tried (measured on
  random deals: a fifth fewer nodes than the top spades and quick tricks alone). They
  are tried before the table: they are cheaper than a probe, and the cards they rest on
  are fewer than an entry's, so the entries stored above them answer more positions
  (measured: a tenth fewer nodes and a tenth less time). The last trick, every card
  forced, is scored rather than searched.
- **Equivalent cards and small cards.** Cards of one hand and suit with no card of
  another hand (or the card winning the current trick: the trick's other cards decide
  nothing more, :func:`breakers_nb`) between them are one move: only the highest of
  each run is tried (the value of the others is the same; ``card_values_nb`` copies it to
  them). And once a card below every card of its suit that the moves tried so far rest
  on has been tried, no other such card of that suit is (Kuijf's rule, DDS's NextMove):
  it cannot win by rank, so it plays as the one tried.
- **Move ordering** (after DDS's weights, not its numbers). The table's cut-off move
  first. Leading: suits where the opponents have few cards, weighed as DDS weighs them
  (each opponent's card in the suit about 8.5 points, a void opponent as many as the
  cards left plus four, 10 more when it can ruff: measured, less than half the nodes of
  a weight of 2 a card), not through the right-hand opponent's top cards; winners, then
  low to the partner's winners. Following: the cheapest card that holds the trick
  against every opponent still to play; low when the partner holds it; a winner an
  opponent to come can beat counts as none, except a ruff, tried before a discard.
  Leading or discarding, each suit's best card comes before any second card of a suit
  (DDS's mixture of suits); discards come from long suits, a spade that loses the trick
  last. In the trick search, the lead that last cut off at the same depth gets a bonus
  (DDS's best move of a depth; measured: a sixth fewer nodes on deals with spades
  broken, a tenth more from opening positions). A history count of cut-offs breaks ties.

Under ``must_trump`` and ``must_overtrump`` the quick tricks and the two partners' shared
top spades are not counted (both assume a player free to discard or to play any spade);
under ``must_overtrump`` every live spade is among the cards a result rests on, since who
may play which spade depends on each spade's rank.

The nil search is the same machinery with a boolean objective: the nil side (OR nodes)
against the others (AND nodes); a trick won by a nil seat ends the line as lost. Two
bounds settle it at a trick start (:func:`_nil_bound_nb`): lost when a nil seat's ``j``
highest spades outnumber the higher spades elsewhere (each of them must fall in a trick
of its own, and each needs a higher spade there), safe when a lone nil seat not on lead
holds in each suit only cards below every other card of it and cards its partner covers
(as many cards, the partner's j-th highest above the nil seat's j-th highest; or, for a
nil seat without spades, a side suit's remaining top cards one partner's spade each once
the partner is void there). With
``NIL_ALONE`` in ``nil_mask`` (cutthroat) the nil seat alone is the OR side and the
other seats (with four players the one opposite included) play against it; the
partner's bound and move ordering are off. That is the nil's verdict in cutthroat: safe
when no coalition of the others can make it win a trick (each of them gains when it is
set). Three players (cutthroat only) are solved for a nil the same way, with tricks of
three cards. Tricks have no such two-sided value in cutthroat, so the trick search
plays partnerships (and two players) only.
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from spades_sim._nb.bitboard import (
    HAS_PDEP,
    NON_SPADE_MASK,
    ONE,
    SPADE_MASK,
    SUIT_MASKS,
    ZERO,
    above_nb,
    highest_card_nb,
    lowest_card_nb,
    popcount_nb,
    suit_of_nb,
)
from spades_sim._nb.enums import RuleField

PLAY_ANY_TIME = 1
"""``play_rules`` bit: spades may be led at any time (``spades_lead`` any_time)."""
PLAY_TWO_CLUBS = 2
"""``play_rules`` bit: the first trick is led with the 2C (``first_lead`` two_of_clubs)."""
PLAY_MUST_TRUMP = 4
"""``play_rules`` bit: a player who cannot follow trumps when able (``must_trump``)."""
PLAY_MUST_OVERTRUMP = 8
"""``play_rules`` bit: a spade played to a trick beats its spade when able
(``must_overtrump``)."""
PLAY_FORCED = PLAY_MUST_TRUMP | PLAY_MUST_OVERTRUMP

NIL_ALONE = 16
"""``nil_mask`` bit: the nil seat plays alone, every other seat against it (cutthroat,
four players without partnerships); the low four bits are the nil seats."""


@njit(inline="always", cache=True)
def play_rules_nb(rules):
    """The ``PLAY_*`` bits of a rule array (``Rules.lower()``): the one place the rules
    become the solver's play bits, for ``solve.solver.play_rules`` and ``pimc`` alike."""
    bits = 0
    if rules[RuleField.spades_any_time]:
        bits |= PLAY_ANY_TIME
    if rules[RuleField.first_lead_two_clubs]:
        bits |= PLAY_TWO_CLUBS
    if rules[RuleField.must_trump]:
        bits |= PLAY_MUST_TRUMP
    if rules[RuleField.must_overtrump]:
        bits |= PLAY_MUST_OVERTRUMP
    return np.int64(bits)


MAX_DEPTH = 56
"""Plies a search can go down (52 cards, and a margin); the rows of the move scratch."""
MAX_MOVES = 18
"""Moves at one node at most (a hand's cards: 13, or with three players 17 or 18)."""
KIND_TRICKS = 0
"""The table's key kind of trick bounds; a nil search uses ``1 + nil_mask``."""
_NOT_FOUND = -1
STATS = 8
"""Counters of a search (``stats``): nodes, evictions, table probes, table cut-offs,
trick starts a bound settled, stores, the solve count (which tells a table's entries of the current
solve from older ones), and the abort flag (:data:`S_ABORT`)."""
S_NODES, S_EVICT, S_PROBES, S_HITS, S_BOUNDS, S_STORES, S_GEN = 0, 1, 2, 3, 4, 5, 6
S_ABORT = 7
"""``stats[S_ABORT]``: set nonzero by another thread to stop the search. It is read on
entry and every :data:`POLL_NODES` nodes; an aborted search returns at once, stores
nothing, and its result means nothing (every caller checks the flag after a search)."""
POLL_NODES = 4096
"""Nodes between two reads of the abort flag (a power of two): a few hundred
microseconds of search."""

_H0 = np.uint64(0x9E3779B97F4A7C15)
_H1 = np.uint64(0xC2B2AE3D27D4EB4F)
_H2 = np.uint64(0x165667B19E3779F9)
_H3 = np.uint64(0xD6E8FEB86659FD93)
_VALID = np.int64(1 << 24)
_GEN_MASK = np.int64(0xFFFF)


@intrinsic
def _pext_hw_nb(typingctx, source, mask):
    if not (isinstance(source, types.Integer) and isinstance(mask, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fnty = ir.FunctionType(i64, [i64, i64])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.bmi.pext.64")
        return builder.call(fn, args)

    return types.uint64(types.uint64, types.uint64), codegen


@njit(inline="always", cache=True)
def _pext_sw_nb(source, mask):
    out = ZERO
    bit = ONE
    m = mask
    while m:
        low = m & (~m + ONE)
        if source & low:
            out |= bit
        bit <<= ONE
        m ^= low
    return out


pext_nb = _pext_hw_nb if HAS_PDEP else _pext_sw_nb
"""``pext_nb(x, mask)``: the bits of ``x`` at the set bits of ``mask``, packed low."""


@njit(inline="always", cache=True)
def legal_nb(hand, led, win_card, broken, first, play_rules):
    """The cards of ``hand`` that may be played (``led`` -1 when leading, ``win_card``
    the card winning the trick so far); ``play_rules`` the ``PLAY_*`` bits."""
    if led >= 0:
        follow = hand & SUIT_MASKS[led]
        legal = follow if follow else hand
        if not follow and play_rules & PLAY_MUST_TRUMP and hand & SPADE_MASK:
            legal = hand & SPADE_MASK
        if play_rules & PLAY_MUST_OVERTRUMP:
            # a spade played to a trick beats its highest spade when it can (every
            # spade beats a winning card of another suit)
            over = legal & SPADE_MASK & above_nb(win_card)
            if over:
                legal = over
        return legal
    if first:
        if play_rules & PLAY_TWO_CLUBS and hand & ONE:
            return ONE
    elif broken or play_rules & PLAY_ANY_TIME:
        return hand
    side = hand & NON_SPADE_MASK
    return side if side else hand


@njit(inline="always", cache=True)
def representatives_nb(legal, hand, live):
    """One card of each run of ``legal``: the highest of each group of cards of ``hand``
    with no other live card (held elsewhere, or in the trick) between them."""
    out = ZERO
    others = live & ~hand
    for s in range(4):
        x = legal & SUIT_MASKS[s]
        while x:
            c = highest_card_nb(x)
            out |= ONE << np.uint64(c)
            # drop c and the run below it: every card of x above the next other card below c
            below_others = others & SUIT_MASKS[s] & ((ONE << np.uint64(c)) - ONE)
            if below_others:
                x &= (ONE << np.uint64(highest_card_nb(below_others))) - ONE
            else:
                x = ZERO
    return out


@njit(inline="always", cache=True)
def breakers_nb(hands, win_card):
    """The cards that split a hand's runs (the ``live`` of :func:`representatives_nb`):
    every card still in a hand, and the card winning the current trick (``win_card``, -1
    on lead). The trick's other cards do not: the trick goes to its winning card or to
    a card played after, and every card played after is in a hand, so two cards with
    only a beaten card of the trick between them compare alike with every card that
    decides this trick or a later one."""
    live = hands[0] | hands[1] | hands[2] | hands[3]
    if win_card >= 0:
        live |= ONE << np.uint64(win_card)
    return live


@njit(inline="always", cache=True)
def _run_of_nb(card, hand, live):
    """The cards of ``hand`` in the run of ``card`` (``card`` its highest)."""
    s = suit_of_nb(card)
    others = live & ~hand & SUIT_MASKS[s] & ((ONE << np.uint64(card)) - ONE)
    low = (ONE << np.uint64(highest_card_nb(others) + 1)) if others else ONE
    return hand & SUIT_MASKS[s] & ((ONE << np.uint64(card + 1)) - low)


# --- the transposition table ----------------------------------------------------------
# A bucket of WAYS slots per hash of (shape, flags, top spade's owner). A slot holds the
# shape (each hand's length in each suit, 4 bits each), the flags (leader, whether a
# spade may be led, the kind, the trump rules), the mask M of the cards that matter in
# relative-rank layout (the top cards of each suit down to the lowest that mattered),
# and each hand's cards under M: a position matches when it has the same shape and flags
# and each hand holds the same cards under M.

WAYS = 64
"""Slots a bucket of the table holds."""
NO_OWNER = np.uint64(7)
"""The bucket code of an entry that leaves the top spade's owner open (or has no spade
left): every entry is filed under the owner of the highest live spade when it fixes that
card, else under this code, and a probe looks in both buckets."""
NIL_LEVELS = 2
"""Bucket levels of nil entries: a nil entry fixes the top card of every suit and is filed
under who holds the top ``k`` cards of each suit, ``k`` the most (up to ``NIL_LEVELS``)
that its cards cover; a probe looks at every level. Measured on bid nils: two levels
took 13% less time a nil than three (4% more nodes, fewer buckets probed), four 25% more,
one twice the nodes in the tail."""
KEY_WORDS = 8
"""Words of a slot's key: shape, flags, M, four hands' cards under M, one spare."""


@intrinsic
def _pdep_hw_nb(typingctx, source, mask):
    if not (isinstance(source, types.Integer) and isinstance(mask, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fnty = ir.FunctionType(i64, [i64, i64])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.bmi.pdep.64")
        return builder.call(fn, args)

    return types.uint64(types.uint64, types.uint64), codegen


@njit(inline="always", cache=True)
def _pdep_sw_nb(source, mask):
    out = ZERO
    bit = ONE
    m = mask
    while m:
        low = m & (~m + ONE)
        if source & bit:
            out |= low
        bit <<= ONE
        m ^= low
    return out


pdep_nb = _pdep_hw_nb if HAS_PDEP else _pdep_sw_nb
"""``pdep_nb(x, mask)``: the low bits of ``x`` placed at the set bits of ``mask``."""


@njit(inline="always", cache=True)
def _shape_nb(hands):
    shape = ZERO
    for h in range(4):
        for s in range(4):
            n = np.uint64(popcount_nb(hands[h] & SUIT_MASKS[s]))
            shape |= n << np.uint64(16 * h + 4 * s)
    return shape


@njit(inline="always", cache=True)
def _flags_nb(leader, lead_spades, kind, play_rules):
    """The exact part of an entry's key besides the shape: the leader, whether a spade
    may be led, the kind (tricks, or which seats are nil) and the trump rules, under
    which the same cards play out differently."""
    return (
        np.uint64(leader)
        | (np.uint64(lead_spades) << np.uint64(2))
        | (np.uint64(kind) << np.uint64(3))
        | (np.uint64(play_rules & PLAY_FORCED) << np.uint64(12))
    )


@njit(inline="always", cache=True)
def _top_spade_owner_nb(hands, live):
    """The seat holding the highest live spade, :data:`NO_OWNER` when none is left."""
    spades = live & SPADE_MASK
    if spades:
        bit = ONE << np.uint64(highest_card_nb(spades))
        for h in range(4):
            if hands[h] & bit:
                return np.uint64(h)
    return NO_OWNER


@njit(inline="always", cache=True)
def _tops_nb(hands, live, k):
    """The ``k`` highest live cards of each suit, and a code of who holds each of them."""
    tops = ZERO
    owners = ZERO
    shift = np.uint64(0)
    for s in range(4):
        x = live & SUIT_MASKS[s]
        for _ in range(k):
            if not x:
                break
            c = highest_card_nb(x)
            bit = ONE << np.uint64(c)
            x ^= bit
            tops |= bit
            for h in range(4):
                if hands[h] & bit:
                    owners |= np.uint64(h) << shift
            shift += np.uint64(2)
    return tops, owners | (np.uint64(k) << np.uint64(48))


@njit(inline="always", cache=True)
def _bucket_nb(shape, flags, n_buckets):
    h = (shape * _H0) ^ (flags * _H1)
    h ^= h >> np.uint64(29)
    h *= _H2
    return np.int64((h >> np.uint64(32)) & np.uint64(n_buckets - 1)) * WAYS


@njit(inline="always", cache=True)
def _top_nb(rel, live):
    """The live cards at or above the lowest card of ``rel`` in each suit."""
    top = ZERO
    for s in range(4):
        r = rel & live & SUIT_MASKS[s]
        if r:
            top |= live & SUIT_MASKS[s] & ~((ONE << np.uint64(lowest_card_nb(r))) - ONE)
    return top


@njit(inline="always", cache=True)
def _pack_nb(lb, ub, best, gen):
    return (
        _VALID | np.int64(lb) | (np.int64(ub) << 8) | (np.int64(best + 1) << 16)
        | ((gen & _GEN_MASK) << 32)
    )  # fmt: skip


@njit(inline="always", cache=True)
def _store_nb(tt_keys, tt_data, base, shape, flags, rel_hands, live, rel, lb, ub, best, stats):
    """Keep a result whose proof rests on the cards ``rel`` (absolute ids). A full bucket
    gives up a slot of an older solve if it has one, else one in turn: entries of the
    solve under way are the ones its search comes back to."""
    stats[S_STORES] += 1
    gen = stats[S_GEN] & _GEN_MASK
    m = pext_nb(_top_nb(rel, live), live)
    o0 = rel_hands[0] & m
    o1 = rel_hands[1] & m
    o2 = rel_hands[2] & m
    o3 = rel_hands[3] & m
    victim = -1
    stale = -1
    for w in range(WAYS):
        i = base + w
        data = tt_data[i]
        if data == 0:
            # slots fill from the first and are never emptied: no entry lies beyond
            victim = i
            break
        if (
            tt_keys[0, i] == shape and tt_keys[1, i] == flags and tt_keys[2, i] == m
            and tt_keys[3, i] == o0 and tt_keys[4, i] == o1 and tt_keys[5, i] == o2
            and tt_keys[6, i] == o3
        ):  # fmt: skip
            lb = max(lb, np.int64(data & 0xFF))
            ub = min(ub, np.int64((data >> 8) & 0xFF))
            tt_data[i] = _pack_nb(lb, ub, best, gen)
            return
        if stale < 0 and (data >> 32) != gen:
            stale = i
    if victim < 0:
        stats[S_EVICT] += 1
        victim = stale if stale >= 0 else base + (stats[S_EVICT] & (WAYS - 1))
    tt_keys[0, victim] = shape
    tt_keys[1, victim] = flags
    tt_keys[2, victim] = m
    tt_keys[3, victim] = o0
    tt_keys[4, victim] = o1
    tt_keys[5, victim] = o2
    tt_keys[6, victim] = o3
    tt_data[victim] = _pack_nb(lb, ub, best, gen)


# --- bounds at a trick start -----------------------------------------------------------


@njit(inline="always", cache=True)
def _sure_spades_nb(hands, side, players, paired):
    """Tricks ``side`` takes for sure with its spades, whoever plays what. A spade wins
    the trick it falls in unless a higher spade of an opponent falls in the same trick
    (a higher spade of the partner wins it for the side too), and each opponent's spade
    falls in one trick only. So a player of the side whose ``j`` highest spades have
    ``k`` opponents' spades above the lowest of them takes at least ``j - k`` tricks
    with them (``k = 0``: the side's top spades; the counts are those of Hall's
    condition in the nil search's lost bound). With four players the two partners'
    top spades fall in different tricks except when both have only top spades left and
    must play one (a spade led, or both void in the suit led), so the side takes at
    least the smaller of its top spades and the longer partner's spade holding (``paired``;
    not under must_trump or must_overtrump, which force spades into a trick more often).
    Returns (tricks, the cards it rests on: the lowest spade counted, every card above
    it being fixed with it by an entry)."""
    opp = ZERO
    for p in range(players):
        if (p & 1) != side:
            opp |= hands[p]
    opp &= SPADE_MASK
    best = 0
    rel = ZERO
    tops = ZERO
    longest = 0
    for p in range(players):
        if (p & 1) == side:
            mine = hands[p] & SPADE_MASK
            longest = max(longest, popcount_nb(mine))
            if opp:
                tops |= mine & above_nb(highest_card_nb(opp))
            else:
                tops |= mine
            j = 0
            while mine:
                x = highest_card_nb(mine)
                mine ^= ONE << np.uint64(x)
                j += 1
                k = j - popcount_nb(opp & above_nb(x))
                if k > best:
                    best = k
                    rel = ONE << np.uint64(x)
    if players == 4 and paired:
        both = min(popcount_nb(tops), longest)
        if both > best:
            best = both
            rel = tops
    return best, rel


@njit(inline="always", cache=True)
def _guarded_second_nb(hands, leader, players):
    """1 when the side not on lead holds the second-highest live spade in a hand with
    another spade, the highest being held by the player just before that hand (its
    right), else 0; the cards it rests on (the two highest spades). Until that side wins
    a trick the other side leads, and the holder plays after the highest spade's holder
    in every trick: the first time it plays a spade, it plays the second-highest where
    the highest has not been played in the trick (it wins: nothing else beats it), else
    a lower one, and the second-highest is then the top spade and wins when it falls
    (DDS's LaterTricks; whatever the trump rules: a hand that cannot beat the highest
    spade may play any of its spades)."""
    live = hands[0] | hands[1] | hands[2] | hands[3]
    spades = live & SPADE_MASK
    if popcount_nb(spades) < 3:
        return 0, ZERO
    top = highest_card_nb(spades)
    second = highest_card_nb(spades ^ (ONE << np.uint64(top)))
    for hh in range(players):
        if (hands[hh] >> np.uint64(second)) & ONE:
            rho = hh - 1 if hh > 0 else players - 1
            if (
                (hh & 1) != (leader & 1)
                and popcount_nb(hands[hh] & SPADE_MASK) >= 2
                and (hands[rho] >> np.uint64(top)) & ONE
            ):
                return 1, (ONE << np.uint64(top)) | (ONE << np.uint64(second))
            return 0, ZERO
    return 0, ZERO


@njit(inline="always", cache=True)
def trick_bounds_nb(hands, players, leader, lead_spades, play_rules, need0, need1):
    """Sure tricks of each side from a trick start (``leader`` to lead, not the first
    trick), with no move tried: (side 0's, the cards it rests on, side 1's, the cards it
    rests on). The leader's side takes at least its quick tricks
    (:func:`_quick_tricks_nb`; only when players are free to discard, not under
    ``must_trump`` or ``must_overtrump``), its spades and a ruff by the partner
    when the opponents have no spade (:func:`_partner_ruff_nb`), and a trick by a ruff
    of the partner that no opponent can beat (:func:`_ruff_trick_nb`); each side takes
    at least its sure spades (:func:`_sure_spades_nb`), and the side not on lead at least
    one trick with a guarded second-highest spade over the highest
    (:func:`_guarded_second_nb`).

    ``need0``, ``need1``: the tricks of side 0, of side 1, that would settle the search
    (0: every bound is wanted). A bound is only worked out where it can reach them: the
    spade bounds of a side holding fewer spades than its need (each counts tricks won by
    the side's spades), the one-trick bounds past a need of one, and the quick tricks
    where the side's cards above every opponent's card of their suit (an upper bound on
    them, :func:`_side_tops_nb`) fall short; a bound left out leaves a lower count that
    settles nothing."""
    free = (play_rules & PLAY_FORCED) == 0
    sp0 = ZERO
    sp1 = ZERO
    for p in range(players):
        if p & 1:
            sp1 |= hands[p] & SPADE_MASK
        else:
            sp0 |= hands[p] & SPADE_MASK
    s0, r0, s1, r1 = 0, ZERO, 0, ZERO
    if popcount_nb(sp0) >= need0:
        s0, r0 = _sure_spades_nb(hands, 0, players, free)
    if popcount_nb(sp1) >= need1:
        s1, r1 = _sure_spades_nb(hands, 1, players, free)
    need_l = need1 if leader & 1 else need0
    need_o = need0 if leader & 1 else need1
    if need_o <= 1:
        g, rg = _guarded_second_nb(hands, leader, players)
        if g > 0:
            if leader & 1:
                if s0 < 1:
                    s0, r0 = 1, rg
            elif s1 < 1:
                s1, r1 = 1, rg
    q, rq = _partner_ruff_nb(hands, leader, players)
    if q < 1 and need_l <= 1:
        q, rq = _ruff_trick_nb(hands, leader, players)
    if free and _side_tops_nb(hands, leader, players) >= need_l:
        q2, rq2 = _quick_tricks_nb(hands, leader, lead_spades, players)
        if q2 > q:
            q, rq = q2, rq2
    if leader & 1:
        if q > s1:
            s1, r1 = q, rq
    elif q > s0:
        s0, r0 = q, rq
    return s0, r0, s1, r1


@njit(inline="always", cache=True)
def _side_tops_nb(hands, leader, players):
    """An upper bound on :func:`_quick_tricks_nb`, cheaper than it: the leader's side's
    cards above every opponent's card of their suit. Every trick the quick tricks count
    is won by such a card (a winner above every other card of its suit, the partner's
    included; the partner's after crossing, likewise)."""
    ours = ZERO
    theirs = ZERO
    for p in range(players):
        if (p & 1) == (leader & 1):
            ours |= hands[p]
        else:
            theirs |= hands[p]
    tops = 0
    for s in range(4):
        o = theirs & SUIT_MASKS[s]
        m = ours & SUIT_MASKS[s]
        tops += popcount_nb(m & above_nb(highest_card_nb(o))) if o else popcount_nb(m)
    return tops


@njit(inline="always", cache=True)
def _partner_ruff_nb(hands, leader, players):
    """When the opponents hold no spade: the leader's spades each win the trick they fall
    in, and a lead of a side suit the partner lacks, ruffed by the partner, is one trick
    more (DDS's QuickTricks); (tricks, the cards it rests on: none, the lengths say it).
    Whatever the trump rules: the partner may always ruff, and a side suit may be led
    after the first trick."""
    if players != 4:
        return 0, ZERO
    if (hands[leader ^ 1] | hands[leader ^ 3]) & SPADE_MASK:
        return 0, ZERO
    mine = hands[leader]
    partner = hands[leader ^ 2]
    if not partner & SPADE_MASK:
        return 0, ZERO
    for s in range(3):
        if mine & SUIT_MASKS[s] and not partner & SUIT_MASKS[s]:
            return popcount_nb(mine & SPADE_MASK) + 1, ZERO
    return 0, ZERO


@njit(inline="always", cache=True)
def _ruff_trick_nb(hands, leader, players):
    """1 when the leader's side takes a trick by a ruff of the partner (DDS's lowest
    quick trick): the leader holds a side suit the partner is void in, the partner holds
    a spade, and each opponent either holds that suit (it must follow) or holds no spade
    above the partner's highest. The leader leads the suit; the partner ruffs with its
    highest spade (free to, and under ``must_trump`` or ``must_overtrump`` made to: it
    is void, and that spade beats any spade before it), which no opponent beats: one
    following suit plays no spade, one void has none above it. Else 0. Returns (tricks,
    the cards it rests on: the partner's highest spade, when a void opponent holds a
    spade; the lengths say the rest)."""
    if players != 4:
        return 0, ZERO
    mine = hands[leader]
    mate = hands[leader ^ 2]
    mate_sp = mate & SPADE_MASK
    if not mate_sp:
        return 0, ZERO
    top = highest_card_nb(mate_sp)
    for s in range(3):
        suit = SUIT_MASKS[s]
        if not (mine & suit) or mate & suit:
            continue
        rel = ZERO
        ok = True
        for o in (leader ^ 1, leader ^ 3):
            if hands[o] & suit:
                continue
            if hands[o] & SPADE_MASK & above_nb(top):
                ok = False
            elif hands[o] & SPADE_MASK:
                rel = ONE << np.uint64(top)
        if ok:
            return 1, rel
    return 0, ZERO


@njit(inline="always", cache=True)
def _cash_nb(hands, leader, lead_spades, players):
    """Tricks the leader's side takes for sure by the leader cashing winners: top spades
    (above every other spade) first, then in each side suit the cards above every other
    card of it, as many rounds as every opponent who still holds a spade must follow and
    the partner can follow or discard without a spade. Returns (tricks, the cards it
    rests on)."""
    mine = hands[leader]
    others = ZERO
    for p in range(players):
        if p != leader:
            others |= hands[p]
    cashed = 0
    rel = ZERO
    my_sp = mine & SPADE_MASK
    if my_sp and (lead_spades or not (mine & NON_SPADE_MASK)):
        other_sp = others & SPADE_MASK
        top = my_sp & above_nb(highest_card_nb(other_sp)) if other_sp else my_sp
        cashed = popcount_nb(top)
        rel = top
    q = cashed
    room = 99
    if players == 4:
        # the partner plays a card to every round: spades to the spade rounds while it
        # has them, else a card of another suit; once it holds only spades it must ruff
        # a winner and take the lead away, so the side-suit rounds stop before that
        partner = hands[leader ^ 2]
        room = popcount_nb(partner & NON_SPADE_MASK)
        room -= max(0, cashed - popcount_nb(partner & SPADE_MASK))
        if room <= 0:
            return q, rel
    for s in range(3):
        mine_s = mine & SUIT_MASKS[s]
        if not mine_s:
            continue
        others_s = others & SUIT_MASKS[s]
        tops = mine_s & above_nb(highest_card_nb(others_s)) if others_s else mine_s
        k = popcount_nb(tops)
        if k == 0:
            continue
        limit = 99
        for o in range(players):
            if (o & 1) != (leader & 1) and popcount_nb(hands[o] & SPADE_MASK) > cashed:
                limit = min(limit, popcount_nb(hands[o] & SUIT_MASKS[s]))
        take = min(k, limit, room)
        room -= take
        for _ in range(take):
            c = highest_card_nb(tops)
            rel |= ONE << np.uint64(c)
            tops ^= ONE << np.uint64(c)
        q += take
    return q, rel


@njit(inline="always", cache=True)
def _quick_tricks_nb(hands, leader, lead_spades, players):
    """:func:`_cash_nb` for the leader, or for the partner reached first by a spade to
    its top spade, or by a lead of a side suit whose highest card the partner holds,
    every opponent holding a spade also holding that suit (so no one can ruff the way
    in). The partner's count includes the way in, the first round of its suit; the card
    the leader leads to it is one of those the leader's count of discards holds.
    Returns (tricks, the cards it rests on)."""
    q, rel = _cash_nb(hands, leader, lead_spades, players)
    if players != 4:
        return q, rel
    partner = leader ^ 2
    mine = hands[leader]
    live = hands[0] | hands[1] | hands[2] | hands[3]
    # a spade to the partner's top spade, which nothing beats; spades are broken after
    top_spade = highest_card_nb(live & SPADE_MASK) if mine & SPADE_MASK else 0
    if (
        mine & SPADE_MASK
        and (lead_spades or not (mine & NON_SPADE_MASK))
        and (hands[partner] >> np.uint64(top_spade)) & ONE
    ):
        qp, relp = _cash_nb(hands, partner, 1, players)
        if qp > q:
            q, rel = qp, relp
    for s in range(3):
        suit = SUIT_MASKS[s]
        if not (mine & suit) or not (hands[partner] & suit):
            continue
        if not (hands[partner] >> np.uint64(highest_card_nb(live & suit))) & ONE:
            continue
        ruff = False
        for o in (leader ^ 1, leader ^ 3):
            if hands[o] & SPADE_MASK and not (hands[o] & suit):
                ruff = True
        if ruff:
            continue
        qp, relp = _cash_nb(hands, partner, lead_spades, players)
        if qp > q:
            q, rel = qp, relp
        break
    return q, rel


@njit(inline="always", cache=True)
def second_hand_wins_nb(hands, seat, led, lead_card):
    """Whether the side of ``seat``, second to play to a trick of four players whose lead
    is ``lead_card`` (of suit ``led``), can take that trick whatever the third hand plays,
    and the cards that rests on (DDS's quick trick after the lead). The third hand (the leader's
    partner) can take it only with a spade played on a side suit it lacks or with a card
    above every card of the side of ``seat``. So the side wins when the third hand
    cannot ruff and either the second or the fourth hand can (void in a side suit led,
    holding a spade), or the side holds a card of the suit led above the lead and above
    every card of the third hand in it: that card wins unless someone ruffs, and only
    the third hand could beat it. Rules that force a spade (``must_trump``,
    ``must_overtrump``) change nothing: the third hand has no spade to play or must
    follow, and any card of the side that wins is the side's."""
    lho = (seat + 1) & 3
    mate = (seat + 2) & 3
    suit = SUIT_MASKS[led]
    if led != 3:
        if not (hands[lho] & suit) and hands[lho] & SPADE_MASK:
            return False, ZERO
        for p in (seat, mate):
            if not (hands[p] & suit) and hands[p] & SPADE_MASK:
                # a ruff no one can beat: it rests on lengths alone (the entry's shape)
                return True, ZERO
    ours = (hands[seat] | hands[mate]) & suit
    if ours:
        h = highest_card_nb(ours)
        if h > lead_card and not (hands[lho] & suit & above_nb(h)):
            return True, ONE << np.uint64(h)
    return False, ZERO


@njit(inline="always", cache=True)
def _nil_bound_nb(hands, live, nil_mask, players, leader, play_rules):
    """A nil verdict at a trick start with no move tried: (1 safe, 0 lost, -1 unknown,
    the cards it rests on).

    Lost: a nil seat's ``j`` highest spades each fall in a trick of their own (it plays
    one card a trick, and every card is played), and each wins unless a higher spade of
    another hand is in that trick, each such spade serving one trick: fewer than ``j``
    higher spades elsewhere and one of them wins. Safe, when no nil seat leads: every nil
    seat without a spade holds, in each suit, only cards below every card of that suit
    in the other hands. A nil seat leads no later trick (it would have won the one
    before), so each trick is led by another hand; a lead of a suit the nil seat holds
    is a card above all of its own, and in any other suit it discards. Safe: a lone nil
    seat (four players) with no spade whose partner has, in every suit, at least as many
    cards and all of them higher: whenever the nil seat follows a suit the partner
    follows above it; when both are void in the suit led (the partner void means the nil
    seat is too) they discard from the same suit, so the counts and the order hold to the
    end. The two mix, suit by suit and within a suit, when the nil seat does not lead:
    in each side suit, its cards below every other card of the suit are safe (whoever
    leads the suit leads over them), and the partner covers the others (at least as
    many cards, all above the nil seat's): while the nil seat holds such a top card it
    plays it to the suit under the partner's, then the low ones. The partner keeps its
    covering counts by discarding any other card (a spade, a suit the nil seat lacks, a
    card over the count); when it has none, its cards are the nil seat's top cards'
    count in each suit, so the nil seat holds nothing else, is void in the suit led too,
    and they discard from the same suit.
    Spades may be such a covered suit too (not below every other spade: a nil seat left
    with spades alone must ruff), unless the trump rules force the partner's spades: the
    nil seat left with spades alone has a partner with spades alone, above its own.
    The partner's cards need not all be above the nil seat's: its j-th highest card of
    the suit above the nil seat's j-th highest top card is enough. In every round of the
    suit (led by anyone, ruffed, or discarded from when both are void) each plays its
    highest card of it, the partner's above the nil seat's, and the rest stay matched;
    a surplus card the partner discards is its lowest of the suit.
    A nil seat without spades (and no trump rule forcing a spade) may also have its top
    cards of a side suit covered by the partner's spades when the partner is void in
    that suit: one spade a top card, the partner holding at least as many spades as the
    nil seat has such top cards in all. In a round of such a suit the partner ruffs while
    the nil seat has a top card there (before it plays or after, when it is winning) and
    the nil seat sheds its highest one under the spade, so need and spades fall together;
    a spade lead, or a spade the partner must play otherwise (all its other cards being
    covers, in which case the nil seat holds top cards only and is void in the suit led
    too), the nil seat answers by discarding one of those top cards (it has no spade to
    follow with), so the count holds to the end. The two mix within a suit: a partner
    with fewer cards of it than the nil seat's top cards covers the highest of them card
    by card and ruffs the rest once void (each round it follows with its highest card,
    above the nil seat's highest top card, until it has none). ``tests/test_solve.py``
    holds both to brute force on positions built to fire them."""
    spades = live & SPADE_MASK
    for p in range(players):
        if not (nil_mask >> p) & 1:
            continue
        mine = hands[p] & SPADE_MASK
        others = spades & ~mine
        j = 0
        while mine:
            x = highest_card_nb(mine)
            mine ^= ONE << np.uint64(x)
            j += 1
            if popcount_nb(others & above_nb(x)) < j:
                return 0, spades & ~((ONE << np.uint64(x)) - ONE)
    if not (nil_mask >> leader) & 1:
        rel = ZERO
        ducks = True
        for p in range(players):
            if not (nil_mask >> p) & 1:
                continue
            mine = hands[p]
            if mine & SPADE_MASK:
                ducks = False
                break
            others = live & ~mine
            for s in range(3):
                mine_s = mine & SUIT_MASKS[s]
                theirs = others & SUIT_MASKS[s]
                if not mine_s or not theirs:
                    continue
                low = lowest_card_nb(theirs)
                if highest_card_nb(mine_s) > low:
                    ducks = False
                    break
                rel |= ONE << np.uint64(low)
            if not ducks:
                break
        if ducks:
            return 1, rel
    if players != 4 or nil_mask & NIL_ALONE or popcount_nb(np.uint64(nil_mask)) != 1:
        return -1, ZERO
    x = lowest_card_nb(np.uint64(nil_mask))
    nil = hands[x]
    mate = hands[x ^ 2]
    if nil & SPADE_MASK and play_rules & PLAY_FORCED:
        # a partner void in the suit led must trump there, so it cannot keep its counts
        return -1, ZERO
    leads = x == leader
    # the partner may ruff a side suit it is void in, for a nil seat without spades
    can_ruff = not (nil & SPADE_MASK) and not (play_rules & PLAY_FORCED)
    ruffs = 0
    rel = ZERO
    for s in range(4):
        mine = nil & SUIT_MASKS[s]
        if not mine:
            continue
        others = live & ~nil & SUIT_MASKS[s]
        # the nil seat's cards below every other card of the suit (low), and the rest (top)
        top = mine
        if s < 3 and not leads:
            top = mine & above_nb(lowest_card_nb(others)) if others else ZERO
        if top and can_ruff and not (mate & SUIT_MASKS[s]):
            # covered by the partner's spades, one a top card: the count is the shape's
            ruffs += popcount_nb(top)
        elif top:
            # covered by the partner: as many cards, its j-th highest above the nil
            # seat's j-th highest top card; fewer, and its spades ruff the rest
            h = highest_card_nb(mine)
            theirs = mate & SUIT_MASKS[s]
            short = popcount_nb(top) - popcount_nb(theirs)
            if short > 0:
                if not can_ruff:
                    return -1, ZERO
                ruffs += short
            tn, tp = top, theirs
            while tn and tp:
                a = highest_card_nb(tn)
                b = highest_card_nb(tp)
                if b < a:
                    return -1, ZERO
                tn ^= ONE << np.uint64(a)
                tp ^= ONE << np.uint64(b)
            # the proof compares the nil seat's top cards with the partner's: every
            # card from its lowest top card up keeps its owner (from its highest when
            # all the partner's cards are above it)
            lo = h if lowest_card_nb(theirs) > h else lowest_card_nb(top)
            rel |= live & SUIT_MASKS[s] & ~((ONE << np.uint64(lo)) - ONE)
        if top != mine and others:
            rel |= ONE << np.uint64(lowest_card_nb(others))
    if ruffs > popcount_nb(mate & SPADE_MASK):
        return -1, ZERO
    return 1, rel


@njit(inline="always", cache=True)
def nil_beaten_nb(card, win_card):
    """The cards of ``card``'s suit that the trick's winning card ``win_card`` beats
    whoever plays after: below it in its own suit, every card of another side suit, no
    spade of a trick a side suit wins (a spade played there may win it). A nil seat
    holding two of these cards is never worse off playing the higher now and keeping the
    lower (it wins a later trick with the lower only where it would have with the
    higher), so the search does not try the lower after the higher failed;
    ``tests/test_solve.py`` holds that claim to brute force."""
    s = suit_of_nb(card)
    if s == suit_of_nb(win_card):
        return SUIT_MASKS[s] & ((ONE << np.uint64(win_card)) - ONE)
    return ZERO if s == 3 else SUIT_MASKS[s]


# --- move ordering -------------------------------------------------------------------


@njit(inline="always", cache=True)
def _rank_nb(card):
    return card - 13 * suit_of_nb(card)


@njit(inline="always", cache=True)
def _order_nb(moves, scores, n):
    for i in range(1, n):
        m = moves[i]
        sc = scores[i]
        j = i - 1
        while j >= 0 and scores[j] < sc:
            moves[j + 1] = moves[j]
            scores[j + 1] = scores[j]
            j -= 1
        moves[j + 1] = m
        scores[j + 1] = sc


@njit(inline="always", cache=True)
def _beatable_nb(card, hands, seat, pos, led, players):
    """Whether an opponent of ``seat`` still to play to this trick can beat ``card``
    (the trick's winner): over it in the suit led, or void in it with a spade (above
    ``card`` if that is a spade)."""
    for k in range(1, players - pos):
        o = (seat + k) % players
        if (o & 1) == (seat & 1):
            continue
        follow = hands[o] & SUIT_MASKS[led]
        if follow:
            if suit_of_nb(card) == led and follow & above_nb(card):
                return True
        else:
            over = hands[o] & SPADE_MASK
            if card >= 39:
                over &= above_nb(card)
            if over:
                return True
    return False


@njit(inline="always", cache=True)
def _trick_score_nb(
    card, hands, seat, pos, led, win_card, win_seat, players, hist, best, win_beatable
):  # fmt: skip
    """How promising ``card`` looks for the mover's side (higher first);
    ``win_beatable``: :func:`_beatable_nb` of the trick's winning card (following)."""
    if card == best:
        return np.int64(1 << 40)
    r = _rank_nb(card)
    s = suit_of_nb(card)
    if pos == 0:
        live = hands[0] | hands[1] | hands[2] | hands[3]
        suit = SUIT_MASKS[s]
        top = highest_card_nb(live & suit)
        rest = live & suit & ~(ONE << np.uint64(top))
        second = highest_card_nb(rest) if rest else -1
        mine = hands[seat]
        partner = hands[seat ^ 2] if players == 4 else ZERO
        # the suit: opponents with few cards in it have few choices, but a void one
        # with a spade ruffs; and a right-hand opponent over the top cards plays last
        base = 0
        count = 0
        depth = popcount_nb(live)
        for o in range(players):
            if (o & 1) == (seat & 1):
                continue
            n_o = popcount_nb(hands[o] & suit)
            if n_o:
                count += 4 * n_o
            else:
                count += depth + 4
                if s != 3 and hands[o] & SPADE_MASK:
                    base -= 10
        base -= (count * 32) // 15
        rho = seat - 1 if seat > 0 else players - 1
        if (hands[rho] >> np.uint64(top)) & ONE or (
            second >= 0 and (hands[rho] >> np.uint64(second)) & ONE
        ):
            base -= 18
        if (mine >> np.uint64(top)) & ONE:
            if second >= 0 and (partner >> np.uint64(second)) & ONE:
                base += 50 - r
            elif card == top:
                base += 60
            else:
                base += 19 - r
        elif (partner >> np.uint64(top)) & ONE:
            base += 50 - r if second >= 0 and (mine >> np.uint64(second)) & ONE else 45 - r
        else:
            base += 20 - r
    else:
        beats = card > win_card and (s == led or card >= 39)
        mate_wins = (win_seat & 1) == (seat & 1)
        # a winner an opponent still to play can beat wins nothing for sure
        if mate_wins:
            if not beats:
                base = 35 - r if win_beatable else 50 - r
            elif win_beatable and not _beatable_nb(card, hands, seat, pos, led, players):
                base = 60 - r  # over the partner, where it alone holds the trick
            else:
                base = 10 - r
        elif beats:
            if not _beatable_nb(card, hands, seat, pos, led, players):
                base = 70 - r
            elif s != led:
                # a ruff an opponent can overruff still draws a spade of its (DDS tries a
                # losing ruff before a discard): measured, fewer nodes than ranking it
                # under a discard
                base = 65 - r
            else:
                base = 30 - r
        else:
            base = 35 - r
        if s != led and not beats:
            # a discard: from a long suit, keeping the short suits' guards
            base += 2 * popcount_nb(hands[seat] & SUIT_MASKS[s])
            if s == 3:
                # a spade that does not take the trick (an underruff) spends a trump for
                # nothing: after the side suits' discards (DDS ranks it low too)
                base -= 20
    return (np.int64(base) << 20) + min(hist[card], (1 << 20) - 1)


@njit(inline="always", cache=True)
def _nil_score_nb(card, hands, seat, pos, led, win_card, win_seat, nil_mask, nil_side, hist, best):
    """How promising ``card`` looks for the mover in the nil fight (higher first)."""
    if card == best:
        return np.int64(1 << 40)
    r = _rank_nb(card)
    s = suit_of_nb(card)
    beats = pos > 0 and card > win_card and (s == led or card >= 39)
    if (nil_mask >> seat) & 1:
        # the nil seat: the highest card that stays under, else the lowest
        base = 60 + r if (pos > 0 and not beats) else 30 - r
    elif (seat & 1) == nil_side and not nil_mask & NIL_ALONE:
        # its partner: cover high, above all over a nil seat that is winning
        base = 40 + r if (pos == 0 or beats) else 20 - r
    elif pos == 0:
        # an opponent leading: a suit a nil seat must follow, low; first a card under
        # every card the nil seat holds in it, when its partner cannot take the trick
        # over the nil seat's card (following below it, or void with no spade to ruff)
        base = 20 - r
        for p in range(4):
            mine = hands[p] & SUIT_MASKS[s]
            if not (nil_mask >> p) & 1 or not mine:
                continue
            base = max(base, 50 - r)
            low = lowest_card_nb(mine)
            if card < low:
                mate = hands[p ^ 2] & SUIT_MASKS[s]
                stuck = (
                    (nil_mask & NIL_ALONE) != 0  # no partner to take the trick over it
                    or (mate and highest_card_nb(mate) < low)
                    or (not mate and not (hands[p ^ 2] & SPADE_MASK))
                )
                base = max(base, (90 if stuck else 60) - r)
    else:
        # an opponent: stay low so that a nil seat is left winning
        base = 40 - r if not beats else 10 - r
    return (np.int64(base) << 20) + min(hist[card], (1 << 20) - 1)


# --- the search ----------------------------------------------------------------------
# One loop with an explicit stack rather than recursion: Numba cannot load a recursive
# function from its on-disk cache, and every recursive call would count references to
# the scratch arrays. Row ``d`` of ``st``/``ust`` is the node ``d`` plies below the root.
#
# Each node also returns the cards its result rests on (``rel``, absolute ids): the cards
# that won a trick by rank (over a card of their own suit) somewhere in its proof, those
# a bound counted, those of the table entries it used. Any position with the same shape,
# the same trick and the same owners of every live card at or above the lowest such card
# of each suit has the same result (the cards below are interchangeable small cards, the
# rules of following depend only on lengths); a node whose mover had a run of equal
# cards cut by that threshold takes the whole run, so that equal cards stay equal.

MODE_TRICKS = 0
"""Search mode: does side 0 take at least ``target`` tricks."""
MODE_NIL = 1
"""Search mode: do the seats of ``nil_mask`` win no trick."""

_SEAT, _POS, _LED, _WCARD, _WSEAT, _BROKEN, _FIRST, _TARGET = 0, 1, 2, 3, 4, 5, 6, 7
_NM, _IDX, _MAX, _BASE, _KILL, _UB, _BEST, _N = 8, 9, 10, 11, 12, 13, 14, 15
_HAND, _TRICK, _REL, _WREL, _SHAPE, _FLAGS, _R0, _TRIED = 0, 1, 2, 3, 4, 5, 6, 10
ST_FIELDS = 16
"""Columns of the integer stack rows (``st``)."""
UST_FIELDS = 11
"""Columns of the unsigned stack rows (``ust``): hand, trick, rel, trick winner's rel,
shape, flags, the four hands in relative-rank layout, and the cards tried."""


@njit(cache=True)
def scratch_nb():
    """The stacks one search uses: (st, ust, moves, scores, hist)."""
    st = np.zeros((MAX_DEPTH, ST_FIELDS), dtype=np.int64)
    st[:, _KILL] = -1
    return (
        st,
        np.zeros((MAX_DEPTH, UST_FIELDS), dtype=np.uint64),
        np.zeros((MAX_DEPTH, MAX_MOVES), dtype=np.int64),
        np.zeros((MAX_DEPTH, MAX_MOVES), dtype=np.int64),
        np.zeros(64, dtype=np.int64),
    )


@njit(inline="always", cache=True)
def _extend_nb(rel, hand, live):
    """``rel`` with, in each suit, the rest of ``hand``'s run at its lowest card."""
    for s in range(4):
        r = rel & SUIT_MASKS[s]
        if not r:
            continue
        t = lowest_card_nb(r)
        if not (hand >> np.uint64(t)) & ONE:
            continue
        below = live & SUIT_MASKS[s] & ((ONE << np.uint64(t)) - ONE)
        others = below & ~hand
        floor = (ONE << np.uint64(highest_card_nb(others) + 1)) if others else ONE
        rel |= below & hand & ~(floor - ONE)
    return rel


@njit(inline="always", cache=True)
def _finish_nb(mode, st, ust, d, result, cut, rel, hands, tt_keys, tt_data, stats):
    """Close node ``d``: widen ``rel`` over the mover's runs, store a trick start's
    result in the table. Returns the node's ``rel``."""
    live = hands[0] | hands[1] | hands[2] | hands[3] | ust[d, _TRICK]
    hand = ust[d, _HAND]
    live |= hand  # the mover's card is back in its hand by now; be explicit
    rel &= live
    if cut < 0:
        # every move failed, but only the top card of each run was tried: the proof
        # covers the rest of a run only while the run stays one (see _extend_nb), runs
        # as the moves were chosen (breakers_nb)
        sep = breakers_nb(hands, st[d, _WCARD]) | hand
        rel = _extend_nb(rel, hand, sep)
    if st[d, _BASE] < 0:
        return rel
    # the result as a typed int: a literal False at one call site would compile a second copy
    _store_node_nb(
        mode, np.int64(1 if result else 0), st[d, _TARGET], st[d, _N],
        cut if cut >= 0 else st[d, _BEST],
        ust[d, _SHAPE], ust[d, _FLAGS], ust[d, _R0], ust[d, _R0 + 1], ust[d, _R0 + 2],
        ust[d, _R0 + 3], hands[0], hands[1], hands[2], hands[3], live, rel, tt_keys, tt_data,
        stats,
    )  # fmt: skip
    return rel


@njit(cache=True)
def _store_node_nb(
    mode, result, target, n, best, shape, flags, r0, r1, r2, r3, h0, h1, h2, h3, live, rel,
    tt_keys, tt_data, stats,
):  # fmt: skip
    """Store a trick start's result (``_finish_nb``): a real call, made at one node in
    twenty, so that the store's code is compiled once, not at each of its two call sites
    in the search (measured: 10 s of the search's 24 s compile)."""
    if mode == MODE_TRICKS:
        if result:
            lb, ub = target, n
        else:
            lb, ub = 0, target - 1
    else:
        lb = ub = 1 if result else 0
    hands = (h0, h1, h2, h3)
    if mode == MODE_TRICKS:
        # the bucket: the top spade's owner when the entry fixes it, else "any owner"
        fixed = _top_nb(rel, live)
        owner = _top_spade_owner_nb(hands, live)
        if owner != NO_OWNER and not (fixed >> np.uint64(highest_card_nb(live & SPADE_MASK))) & ONE:
            owner = NO_OWNER
    else:
        # nil entries fix every suit's top card and go to the deepest level they cover
        tops, owner = _tops_nb(hands, live, 1)
        fixed = _top_nb(rel | tops, live)
        for k in range(2, NIL_LEVELS + 1):
            tops_k, owners_k = _tops_nb(hands, live, k)
            if tops_k & ~fixed:
                break
            owner = owners_k
    base = _bucket_nb(shape, flags ^ (owner << np.uint64(8)), tt_data.shape[0] // WAYS)
    _store_nb(
        tt_keys, tt_data, base, shape, flags, (r0, r1, r2, r3), live, fixed, lb, ub, best,
        stats,
    )  # fmt: skip


@njit(cache=True)
def search_nb(
    mode, hands, players, seat, pos, led, win_card, win_seat, trick, broken, first, target,
    nil_mask, play_rules, tt_keys, tt_data, st, ust, moves, scores, hist, stats,
):  # fmt: skip
    """The boolean search from a node (``hands`` is changed during it and restored).

    ``MODE_TRICKS``: whether side 0 takes at least ``target`` of the tricks left, the
    current one included. ``MODE_NIL``: whether the side of the seats in ``nil_mask``
    keeps all of them from winning a trick (``target`` unused)."""
    n_buckets = tt_data.shape[0] // WAYS
    nil_side = 0
    for p in range(players):
        if (nil_mask >> p) & 1:
            nil_side = p & 1
    st[0, _SEAT] = seat
    st[0, _POS] = pos
    st[0, _LED] = led
    st[0, _WCARD] = win_card
    st[0, _WSEAT] = win_seat
    st[0, _BROKEN] = broken
    st[0, _FIRST] = first
    st[0, _TARGET] = target
    ust[0, _TRICK] = trick
    if stats[S_ABORT]:
        return False
    d = 0
    phase = 0  # 0 enter node d, 1 try its next move, 2 node d is done (v), 3 child done (v)
    v = False
    vrel = ZERO
    while True:
        if phase == 0:
            stats[S_NODES] += 1
            if (stats[S_NODES] & (POLL_NODES - 1)) == 0 and stats[S_ABORT]:
                # stopped from outside: unwind without storing (nothing below is proved)
                return False
            seat = st[d, _SEAT]
            pos = st[d, _POS]
            target = st[d, _TARGET]
            hand = hands[seat]
            n = popcount_nb(hand)
            st[d, _N] = n
            st[d, _BASE] = -1
            st[d, _BEST] = -1
            ust[d, _HAND] = hand
            ust[d, _REL] = ZERO
            ust[d, _TRIED] = ZERO
            vrel = ZERO
            phase = 1
            if mode == MODE_TRICKS:
                if target <= 0:
                    v = True
                    phase = 2
                elif target > n:
                    v = False
                    phase = 2
            elif n == 0:
                v = True
                phase = 2
            if (
                phase == 1 and mode == MODE_TRICKS and pos == 1 and players == 4
                and (target <= 1 or target >= n)
            ):  # fmt: skip
                # the side second to play wins this trick for sure: side 0 reaches a
                # target of one trick, or side 1 keeps side 0 from taking every trick
                wins, rw = second_hand_wins_nb(hands, seat, st[d, _LED], st[d, _WCARD])
                if wins and ((seat & 1) == 0) == (target <= 1):
                    # not counted in stats[S_BOUNDS], the trick starts a bound settled
                    v = (seat & 1) == 0
                    vrel = rw
                    phase = 2
            if phase == 1 and pos == 0 and n == 1:
                # the last trick: every card is forced, so it is scored, not searched;
                # the winner's rank counts when it beat a card of its own suit
                wc1 = highest_card_nb(hand)
                led1 = suit_of_nb(wc1)
                ws1 = seat
                trick_cards = hand
                for k in range(1, players):
                    o = seat + k if seat + k < players else seat + k - players
                    oc = highest_card_nb(hands[o])
                    trick_cards |= hands[o]
                    if oc > wc1 and (suit_of_nb(oc) == led1 or oc >= 39):
                        wc1, ws1 = oc, o
                wbit = ONE << np.uint64(wc1)
                by_rank = trick_cards & SUIT_MASKS[suit_of_nb(wc1)] & ~wbit
                vrel = wbit if by_rank else ZERO
                won0 = 1 - (ws1 & 1)
                v = target <= won0 if mode == MODE_TRICKS else ((nil_mask >> ws1) & 1) == 0
                phase = 2
            if phase == 1 and pos == 0 and not st[d, _FIRST]:
                lead_spades = 1 if (st[d, _BROKEN] or play_rules & PLAY_ANY_TIME) else 0
                kind = KIND_TRICKS if mode == MODE_TRICKS else 1 + nil_mask
                live = hands[0] | hands[1] | hands[2] | hands[3]
                if mode == MODE_TRICKS:
                    # side 0 settles the search with target tricks, side 1 with the rest
                    s0, r0, s1, r1 = trick_bounds_nb(
                        hands, players, seat, lead_spades, play_rules, target, n - target + 1
                    )
                    if s0 >= target:
                        v = True
                        vrel = r0
                        phase = 2
                        stats[S_BOUNDS] += 1
                    elif n - s1 < target:
                        v = False
                        vrel = r1
                        phase = 2
                        stats[S_BOUNDS] += 1
                elif phase == 1:
                    verdict, rn = _nil_bound_nb(hands, live, nil_mask, players, seat, play_rules)
                    if verdict >= 0:
                        v = verdict == 1
                        vrel = rn
                        phase = 2
                        stats[S_BOUNDS] += 1
                if phase == 1:
                    shape = _shape_nb(hands)
                    flags = _flags_nb(seat, lead_spades, kind, play_rules)
                    st[d, _BASE] = 0
                    ust[d, _SHAPE] = shape
                    ust[d, _FLAGS] = flags
                    for h in range(4):
                        ust[d, _R0 + h] = pext_nb(hands[h], live)
                    stats[S_PROBES] += 1
                    top_owner = _top_spade_owner_nb(hands, live)
                    for k in range(2 if mode == MODE_TRICKS else NIL_LEVELS):
                        if mode == MODE_TRICKS:
                            owner = top_owner if k == 0 else NO_OWNER
                            if k == 1 and top_owner == NO_OWNER:
                                break
                        else:
                            _, owner = _tops_nb(hands, live, k + 1)
                        base = _bucket_nb(shape, flags ^ (owner << np.uint64(8)), n_buckets)
                        for w in range(WAYS):
                            i = base + w
                            data = tt_data[i]
                            if data == 0:
                                break  # a bucket's entries fill its slots from the first
                            if tt_keys[0, i] != shape or tt_keys[1, i] != flags:
                                continue
                            m = tt_keys[2, i]
                            if (
                                (ust[d, _R0] & m) != tt_keys[3, i]
                                or (ust[d, _R0 + 1] & m) != tt_keys[4, i]
                                or (ust[d, _R0 + 2] & m) != tt_keys[5, i]
                                or (ust[d, _R0 + 3] & m) != tt_keys[6, i]
                            ):
                                continue
                            lb = np.int64(data & 0xFF)
                            ub = np.int64((data >> 8) & 0xFF)
                            st[d, _BEST] = np.int64((data >> 16) & 0xFF) - 1
                            if mode == MODE_TRICKS:
                                if lb >= target:
                                    v = True
                                elif ub < target:
                                    v = False
                                else:
                                    continue
                            else:
                                v = lb == 1
                            vrel = pdep_nb(m, live)
                            phase = 2
                            stats[S_HITS] += 1
                            break
                        if phase == 2:
                            break
            if phase == 1:
                led = st[d, _LED]
                legal = legal_nb(
                    hand, led, st[d, _WCARD], st[d, _BROKEN], st[d, _FIRST], play_rules
                )
                reps = representatives_nb(legal, hand, breakers_nb(hands, st[d, _WCARD]))
                best = st[d, _BEST]
                wc = st[d, _WCARD]
                ws = st[d, _WSEAT]
                win_beatable = (
                    mode == MODE_TRICKS
                    and pos > 0
                    and _beatable_nb(wc, hands, seat, pos, led, players)
                )
                nm = 0
                if not (reps & (reps - ONE)):
                    # one move (one card, or one run): nothing to order
                    moves[d, 0] = highest_card_nb(reps)
                    nm = 1
                    reps = ZERO
                while reps:
                    c = highest_card_nb(reps)
                    reps ^= ONE << np.uint64(c)
                    moves[d, nm] = c
                    if mode == MODE_TRICKS:
                        scores[d, nm] = _trick_score_nb(
                            c, hands, seat, pos, led, wc, ws, players, hist, best, win_beatable
                        )

                    else:
                        scores[d, nm] = _nil_score_nb(
                            c, hands, seat, pos, led, wc, ws, nil_mask, nil_side, hist, best
                        )
                    if mode == MODE_TRICKS and pos == 0 and c == st[d, _KILL] and c != best:
                        # the lead that last cut off at this depth (DDS's best move of
                        # a depth), after the table's
                        scores[d, nm] += np.int64(40 << 20)
                    nm += 1
                if nm > 1 and (led < 0 or not (hand & SUIT_MASKS[led])):
                    # leading or discarding: try each suit's best card before a second
                    # card of any suit (DDS's mixture of suits)
                    for su in range(4):
                        top_i = -1
                        for j in range(nm):
                            if suit_of_nb(moves[d, j]) == su and (
                                top_i < 0 or scores[d, j] > scores[d, top_i]
                            ):
                                top_i = j
                        if top_i >= 0:
                            scores[d, top_i] += np.int64(256 << 20)
                _order_nb(moves[d], scores[d], nm)
                st[d, _NM] = nm
                st[d, _IDX] = 0
                if mode == MODE_TRICKS:
                    st[d, _MAX] = 1 if (seat & 1) == 0 else 0
                elif nil_mask & NIL_ALONE:
                    st[d, _MAX] = (nil_mask >> seat) & 1
                else:
                    st[d, _MAX] = 1 if (seat & 1) == nil_side else 0
        elif phase == 1:
            i = st[d, _IDX]
            if i == st[d, _NM]:
                v = st[d, _MAX] == 0
                vrel = _finish_nb(
                    mode, st, ust, d, v, -1, ust[d, _REL], hands, tt_keys, tt_data, stats
                )
                phase = 2
                continue
            st[d, _IDX] = i + 1
            c = moves[d, i]
            bit = ONE << np.uint64(c)
            # a small card (below every card of its suit that the moves tried so far
            # rest on) plays as a small card of that suit already tried (Kuijf's rule)
            suit = SUIT_MASKS[suit_of_nb(c)]
            rs = ust[d, _REL] & suit
            small = suit & ((ONE << np.uint64(lowest_card_nb(rs))) - ONE) if rs else suit
            if bit & small and ust[d, _TRIED] & small:
                continue
            if mode == MODE_NIL and st[d, _POS] > 0 and (nil_mask >> st[d, _SEAT]) & 1:
                # a nil seat's card that the trick's winner already beats, below a card of
                # its suit that it beats too and that was tried: that card played and this
                # one kept is at least as good (a nil holding a lower card in place of a
                # higher one wins a trick only where it would have with the higher, and
                # every other play is the same: the rules of following go by suits), so
                # this one fails as that one did. The proof rests on the tried card and
                # the winner above both.
                wc = st[d, _WCARD]
                beaten = nil_beaten_nb(c, wc)
                higher = ust[d, _TRIED] & beaten & ~((bit << ONE) - ONE)
                if bit & beaten and higher:
                    ust[d, _REL] |= ONE << np.uint64(lowest_card_nb(higher))
                    if suit_of_nb(c) == suit_of_nb(wc):
                        ust[d, _REL] |= ONE << np.uint64(wc)
                    continue
            ust[d, _TRIED] |= bit
            seat = st[d, _SEAT]
            pos = st[d, _POS]
            led = st[d, _LED]
            wc = st[d, _WCARD]
            ws = st[d, _WSEAT]
            hands[seat] = ust[d, _HAND] & ~bit
            s = suit_of_nb(c)
            if pos == 0:
                led, wc, ws = s, c, seat
            elif c > wc and (s == led or c >= 39):
                wc, ws = c, seat
            broken_after = 1 if (st[d, _BROKEN] or c >= 39) else 0
            e = d + 1
            st[e, _BROKEN] = broken_after
            if pos + 1 == players:
                cards = ust[d, _TRICK] | bit
                wbit = ONE << np.uint64(wc)
                by_rank = cards & SUIT_MASKS[suit_of_nb(wc)] & ~wbit
                ust[d, _WREL] = wbit if by_rank else ZERO
                if mode == MODE_NIL and (nil_mask >> ws) & 1:
                    v = False
                    vrel = ZERO
                    phase = 3
                    continue
                st[e, _SEAT] = ws
                st[e, _POS] = 0
                st[e, _LED] = -1
                st[e, _WCARD] = -1
                st[e, _WSEAT] = -1
                st[e, _FIRST] = 0
                st[e, _TARGET] = st[d, _TARGET] - (1 - (ws & 1))
                ust[e, _TRICK] = ZERO
            else:
                ust[d, _WREL] = ZERO
                st[e, _SEAT] = seat + 1 if seat + 1 < players else 0
                st[e, _POS] = pos + 1
                st[e, _LED] = led
                st[e, _WCARD] = wc
                st[e, _WSEAT] = ws
                st[e, _FIRST] = st[d, _FIRST]
                st[e, _TARGET] = st[d, _TARGET]
                ust[e, _TRICK] = ust[d, _TRICK] | bit
            d = e
            phase = 0
        elif phase == 2:
            if d == 0:
                return v
            d -= 1
            phase = 3
        else:
            hands[st[d, _SEAT]] = ust[d, _HAND]
            r_move = vrel | ust[d, _WREL]
            if play_rules & PLAY_MUST_OVERTRUMP:
                # who may play which spade depends on every spade's rank
                r_move |= SPADE_MASK & (hands[0] | hands[1] | hands[2] | hands[3] | ust[d, _TRICK])
            if v == (st[d, _MAX] == 1):
                c = moves[d, st[d, _IDX] - 1]
                st[d, _KILL] = c
                hist[c] += st[d, _N] * st[d, _N]
                vrel = _finish_nb(mode, st, ust, d, v, c, r_move, hands, tt_keys, tt_data, stats)
                phase = 2
            else:
                ust[d, _REL] |= r_move
                phase = 1


@njit(inline="always", cache=True)
def estimate_nb(hands, players, seat):
    """A first guess at side 0's tricks from here (no search): the tricks left shared
    in proportion to points, with half a trick to the side on play. A card scores by
    its place among the live cards of its suit (4, 3, 2, 1 for the top four), doubled,
    and a spade 13 more plus four times its place score: weights fitted to DDS's results
    on random deals and endings, where the guess is off by 1.2 tricks on average
    against 2.1 for half the tricks."""
    live = hands[0] | hands[1] | hands[2] | hands[3]
    pts = np.zeros(2, dtype=np.int64)
    for s in range(4):
        x = live & SUIT_MASKS[s]
        for place in range(4):
            if not x:
                break
            c = highest_card_nb(x)
            bit = ONE << np.uint64(c)
            x ^= bit
            for p in range(players):
                if hands[p] & bit:
                    pts[p & 1] += 2 * (4 - place) * (5 if s == 3 else 1)
        if s == 3:
            for p in range(players):
                pts[p & 1] += 13 * popcount_nb(hands[p] & SPADE_MASK)
    n = popcount_nb(hands[seat])
    total = pts[0] + pts[1]
    if total == 0:
        return (n + 1) // 2
    # tenths of a trick, rounded
    tenths = (10 * n * pts[0] + total // 2) // total + (4 if (seat & 1) == 0 else -4)
    return max(0, min(n, (tenths + 5) // 10))


@njit(cache=True, nogil=True)
def dd_value_nb(
    hands, players, seat, pos, led, win_card, win_seat, trick, broken, first, play_rules,
    tt_keys, tt_data, guess, stats,
):  # fmt: skip
    """Side 0's tricks from this node to the end, the current trick included, under
    perfect play: zero-window searches from ``guess`` (clipped to the possible range;
    :func:`estimate_nb` when negative),
    one trick up or down at a time until the answer flips. -1 when aborted
    (``stats[S_ABORT]``)."""
    st, ust, moves, scores, hist = scratch_nb()
    stats[S_GEN] += 1
    work = hands.copy()
    lo = 0
    hi = popcount_nb(hands[seat])
    g = guess if guess >= 0 else estimate_nb(hands, players, seat)
    while lo < hi:
        g = min(max(g, lo + 1), hi)
        # the mode typed, not literal: one compiled search serves both modes (literals
        # would compile it once a mode, 25 s more on a cold cache, for 4% less time)
        if search_nb(
            np.int64(MODE_TRICKS), work, players, seat, pos, led, win_card, win_seat, trick,
            broken, first, g, np.int64(0), play_rules, tt_keys, tt_data, st, ust, moves,
            scores, hist, stats,
        ):  # fmt: skip
            lo = g
            g += 1
        else:
            if stats[S_ABORT]:
                return np.int64(-1)
            hi = g - 1
            g -= 1
    return lo


@njit(cache=True, nogil=True)
def nil_safe_nb(
    hands, players, seat, pos, led, win_card, win_seat, trick, broken, first, nil_mask,
    play_rules, tt_keys, tt_data, stats,
):  # fmt: skip
    """Whether the nil side keeps the seats of ``nil_mask`` (a bit per seat) from winning
    any trick from this node on, the current one included. Meaningless (False) when
    aborted: the caller reads ``stats[S_ABORT]``."""
    st, ust, moves, scores, hist = scratch_nb()
    stats[S_GEN] += 1
    work = hands.copy()
    return search_nb(
        np.int64(MODE_NIL), work, players, seat, pos, led, win_card, win_seat, trick, broken,
        first, np.int64(0), nil_mask, play_rules, tt_keys, tt_data, st, ust, moves, scores,
        hist, stats,
    )  # fmt: skip


@njit(inline="always", cache=True)
def _child_nb(players, seat, pos, led, win_card, win_seat, card):
    """The node after ``seat`` plays ``card``: (seat, pos, led, win card, win seat,
    winner), ``winner`` the trick's winner (then on lead) when the card ends it, else -1."""
    s = suit_of_nb(card)
    if pos == 0:
        n_led, n_card, n_seat = s, card, seat
    elif card > win_card and (s == led or card >= 39):
        n_led, n_card, n_seat = led, card, seat
    else:
        n_led, n_card, n_seat = led, win_card, win_seat
    if pos + 1 == players:
        return n_seat, 0, -1, -1, -1, n_seat
    nxt = seat + 1 if seat + 1 < players else 0
    return nxt, pos + 1, n_led, n_card, n_seat, -1


@njit(cache=True, nogil=True)
def card_values_nb(
    mode, hands, players, seat, pos, led, win_card, win_seat, trick, broken, first,
    nil_mask, play_rules, tt_keys, tt_data, out, stats,
):  # fmt: skip
    """For every legal card of the seat to play, ``out[card]``: ``MODE_TRICKS``, the
    tricks of the mover's side from here after it; ``MODE_NIL``, 1 if the nil of
    ``nil_mask`` is still safe after it, else 0. Other entries -1. Returns the best.
    When aborted (``stats[S_ABORT]``) it returns at once and ``out`` means nothing."""
    for c in range(out.shape[0]):
        out[c] = -1
    hand = hands[seat]
    legal = legal_nb(hand, led, win_card, broken, first, play_rules)
    live = breakers_nb(hands, win_card if pos > 0 else -1)
    reps = representatives_nb(legal, hand, live)
    work = hands.copy()
    n = popcount_nb(hand)
    guess = np.int64(-1)  # typed: a literal would compile dd_value_nb once more
    best = -1
    while reps:
        c = highest_card_nb(reps)
        bit = ONE << np.uint64(c)
        reps ^= bit
        work[seat] = hand & ~bit
        n_seat, n_pos, n_led, n_card, n_win, winner = _child_nb(
            players, seat, pos, led, win_card, win_seat, c
        )
        n_broken = broken or c >= 39
        n_trick = ZERO if winner >= 0 else trick | bit
        n_first = first and winner < 0
        if mode == MODE_TRICKS:
            won = 1 if (winner >= 0 and (winner & 1) == 0) else 0
            v0 = won + dd_value_nb(
                work, players, n_seat, n_pos, n_led, n_card, n_win, n_trick, n_broken,
                n_first, play_rules, tt_keys, tt_data, guess, stats,
            )  # fmt: skip
            guess = v0 - won
            v = v0 if (seat & 1) == 0 else n - v0
        else:
            lost = winner >= 0 and (nil_mask >> winner) & 1
            v = 0
            if not lost and nil_safe_nb(
                work, players, n_seat, n_pos, n_led, n_card, n_win, n_trick, n_broken,
                n_first, nil_mask, play_rules, tt_keys, tt_data, stats,
            ):  # fmt: skip
                v = 1
        if stats[S_ABORT]:
            return best
        run = _run_of_nb(c, hand, live)
        while run:
            out[lowest_card_nb(run)] = v
            run &= run - ONE
        best = max(best, v)
        work[seat] = hand
    return best


# --- many deals ----------------------------------------------------------------------


@njit(cache=True, nogil=True)
def dd_table_nb(
    first_block, end_block, n_stripes, hands, leaders, players, play_rules,
    tt_keys, tt_data, tricks, nil, stats,
):  # fmt: skip
    """Opening positions of deals ``k, k + n_stripes, ...`` for each block ``k`` in
    ``first_block .. end_block - 1``, with the table ``tt_keys[k]``, ``tt_data[k]`` (one
    per stripe, so no two threads share one). ``hands[d]``: the four masks of deal ``d``;
    ``leaders[d]``: its opening leader. Writes ``tricks[d, side]`` (each side's tricks)
    and ``nil[d, seat]`` (1 when a nil of that seat alone is safe, else 0). When aborted
    (``stats[k, S_ABORT]``) it returns at once; the deal in flight is then unsolved."""
    n_deals = hands.shape[0]
    # typed, not literal, so that the solves reuse the compiled searches of single
    # positions instead of specialising (and compiling) them again for the constants
    start, none = np.int64(0), np.int64(-1)
    unbroken, opening = np.bool_(False), np.bool_(True)
    for k in range(first_block, end_block):
        keys_k = tt_keys[k]
        data_k = tt_data[k]
        for d in range(k, n_deals, n_stripes):
            h = hands[d].copy()
            leader = leaders[d]
            n = popcount_nb(h[leader])
            v0 = dd_value_nb(
                h, players, leader, start, none, none, none, ZERO, unbroken, opening,
                play_rules, keys_k, data_k, none, stats[k],
            )  # fmt: skip
            tricks[d, 0] = v0
            tricks[d, 1] = n - v0
            for s in range(players):
                safe = nil_safe_nb(
                    h, players, leader, start, none, none, none, ZERO, unbroken, opening,
                    np.int64(1 << s), play_rules, keys_k, data_k, stats[k],
                )  # fmt: skip
                nil[d, s] = 1 if safe else 0
            if stats[k, S_ABORT]:
                return


@njit(cache=True, nogil=True)
def nil_table_nb(
    first_block, end_block, n_stripes, hands, leaders, nil_masks, players, play_rules,
    tt_keys, tt_data, safe, stats,
):  # fmt: skip
    """The nil verdict of one seat (or pair, ``nil_masks[d]``) per deal from its opening
    position, for the stripes of :func:`dd_table_nb`: ``safe[d]`` 1 when safe, else 0.
    When aborted (``stats[k, S_ABORT]``) it returns at once, leaving the unsolved deals'
    ``safe`` as they were."""
    n_deals = hands.shape[0]
    # typed, not literal, so that the solves reuse the compiled searches of single
    # positions instead of specialising (and compiling) them again for the constants
    start, none = np.int64(0), np.int64(-1)
    unbroken, opening = np.bool_(False), np.bool_(True)
    for k in range(first_block, end_block):
        keys_k = tt_keys[k]
        data_k = tt_data[k]
        for d in range(k, n_deals, n_stripes):
            h = hands[d].copy()
            ok = nil_safe_nb(
                h, players, leaders[d], start, none, none, none, ZERO, unbroken, opening,
                nil_masks[d], play_rules, keys_k, data_k, stats[k],
            )  # fmt: skip
            if stats[k, S_ABORT]:
                return
            safe[d] = 1 if ok else 0


def new_table(bits):
    """A fresh transposition table of ``2**bits`` slots: (keys, data) (plain NumPy)."""
    size = 1 << bits
    return np.zeros((KEY_WORDS, size), dtype=np.uint64), np.zeros(size, dtype=np.int64)
