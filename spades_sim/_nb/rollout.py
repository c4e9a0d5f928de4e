"""Determinised rollouts: deal the unseen cards at random, play the hand out, score it.

The two sampling policies live here: ``lookahead_play_nb`` (for each distinct legal
card, the average hand score margin over sampled deals played out with the heuristic)
and ``monte_carlo_bid_nb`` (for its own hand, the bid with the best average margin over
sampled deals). The margin is a side's points minus the other side's, or in cutthroat a
seat's points minus the mean of the other seats' (``margin_nb``). Both see only what
their seat may know: ``sample_hands_nb`` deals the cards the seat has not seen (deck
minus its hand minus the cards played) to the other seats, each getting as many as it
still holds and, while possible, no card of a suit it has shown out of
(``info[InfoSlot.voids]``); with two players the rest stay in the unused pile, and
before any card is played the opponent's hand is drawn from the stock as the default
draw policy (``threshold``) keeps cards, since a drawn hand is stronger than 13 cards at
random. ``pimc``'s sampler is here too (``sample_world_nb``: it never relaxes a void,
checking before each card that the rest of the deal can be completed). With ``read_bids``
on, ``fitted_worlds_nb`` keeps, for either sampler, only the deals in which the other
seats' bids fit their hands ("Worlds that fit the bids" below).

Every random draw comes from the decision's ``rand`` (``mix64(rand + j * GOLDEN)``), so
the policies are deterministic given the run's seed. These functions are compiled once
(``cache=True``) and called, not inlined, from the dispatchers in ``policies.py``; they
play their rollouts with ``heuristic.py`` and bid the other seats with ``bidding.py``.
"""

import numpy as np
from numba import njit

from spades_sim._nb.bidding import (
    counting_bid_nb,
    legal_bid_nb,
    nil_allowed_nb,
    partner_aware_bid_nb,
    seat_nil_risk_nb,
)
from spades_sim._nb.bitboard import (
    ONE,
    SUIT_MASKS,
    ZERO,
    above_nb,
    below_mask_nb,
    bit_nb,
    deck_mask_nb,
    lowest_card_nb,
    popcount_nb,
    select_bit_nb,
    suit_of_nb,
)
from spades_sim._nb.enums import (
    COUNT_DEFAULTS,
    HEURISTIC_DEFAULTS,
    MAX_TRICKS,
    N_INFO,
    N_SCORE_SLOTS,
    PAGAT_DEFAULTS,
    PARAM_SLOTS,
    PARTNER_DEFAULTS,
    SEATED_BIDS,
    THRESHOLD_DEFAULTS,
    BidParam,
    BidPolicy,
    InfoSlot,
    LookaheadParam,
    MonteCarloParam,
    RuleField,
    ScoreSlot,
)
from spades_sim._nb.exchange import keep_drawn_card_nb
from spades_sim._nb.heuristic import heuristic_play_nb
from spades_sim._nb.play import (
    clear_history_nb,
    first_leader_nb,
    has_played_nb,
    legal_cards_nb,
    next_seat_nb,
    record_play_nb,
    reset_trick_info_nb,
    shown_out_nb,
)
from spades_sim._nb.rng import GOLDEN, LOW32, below_nb, draw_nb, mix64_nb
from spades_sim._nb.score import hand_tricks_nb, partner_bid_nb, score_side_nb, side_of_nb


@njit(cache=True)
def sample_hands_nb(hand, seat, info, rules, key, out):
    """Deal the cards ``seat`` has not seen to the other seats (``out[s]``; ``out[seat]``
    is ``hand``). Known voids are respected when a consistent deal is found within a few
    attempts; the last attempt ignores them. Returns True when voids were respected."""
    players = info[InfoSlot.players]
    key = np.uint64(key)
    deck = deck_mask_nb(rules[RuleField.jokers])
    pool0 = deck & ~hand & ~np.uint64(info[InfoSlot.played])
    n_pool = popcount_nb(pool0)
    total = hand_tricks_nb(rules)  # cards a hand: 13, or 17 or 18 with three players
    rooms = np.zeros(5, dtype=np.int64)  # slot 4: the unused pile (two players)
    counter = np.uint64(0)
    known_voids = 0
    for s in range(players):
        if s != seat:
            known_voids |= info[InfoSlot.voids + s]
    if players == 2 and known_voids == 0 and n_pool == 39:
        # the opponent's hand before any play: it kept its cards from the stock in the
        # two-player draw, seeing each top card and keeping it or the next, so it holds
        # better cards than 13 taken at random; draw it as the default draw policy does
        # (the bidder knows neither its policy nor the stock's order)
        other = 1 - seat
        pool = pool0
        left = n_pool
        held = ZERO
        for s in range(4):
            out[s] = ZERO
        for kept in range(13):
            bits = mix64_nb(key + counter * GOLDEN)
            counter += ONE
            top = select_bit_nb(pool, below_nb(bits & LOW32, left))
            pool &= ~bit_nb(top)
            left -= 1
            if keep_drawn_card_nb(held, top, kept, False, THRESHOLD_DEFAULTS):
                held |= bit_nb(top)
            else:
                nxt = select_bit_nb(pool, below_nb(bits >> np.uint64(32), left))
                pool &= ~bit_nb(nxt)
                left -= 1
                held |= bit_nb(nxt)
        out[other] = held
        out[seat] = hand
        return True
    if known_voids == 0:  # nothing constrains the deal: hand out random cards in turn
        pool = pool0
        left = n_pool
        bits = ZERO
        for s in range(4):
            out[s] = ZERO
            if s < players and s != seat:
                for _ in range(total - info[InfoSlot.trick] - has_played_nb(info, s, players)):
                    if left & 1 == n_pool & 1:
                        bits = mix64_nb(key + counter * GOLDEN)
                        counter += ONE
                    else:
                        bits >>= np.uint64(32)
                    card = select_bit_nb(pool, below_nb(bits & LOW32, left))
                    pool &= ~bit_nb(card)
                    out[s] |= bit_nb(card)
                    left -= 1
        out[seat] = hand
        return True
    voids = np.zeros(5, dtype=np.int64)
    constrained = ZERO
    for s in range(players):
        if s != seat:
            voids[s] = info[InfoSlot.voids + s]
            for suit in range(4):
                if (voids[s] >> suit) & 1:
                    constrained |= SUIT_MASKS[suit]
    for attempt in range(6):
        strict = attempt < 5
        used = 0
        for s in range(4):
            out[s] = ZERO
            rooms[s] = 0
            if s < players and s != seat:
                rooms[s] = total - info[InfoSlot.trick] - has_played_nb(info, s, players)
                used += rooms[s]
        rooms[4] = n_pool - used
        out[seat] = hand
        ok = True
        for phase in range(2):  # the cards of suits someone has shown out of go first
            pool = pool0 & (constrained if phase == 0 else ~constrained)
            n = popcount_nb(pool)
            for i in range(n):
                bits = mix64_nb(key + counter * GOLDEN)
                counter += ONE
                card = select_bit_nb(pool, below_nb(bits & LOW32, n - i))
                pool &= ~bit_nb(card)
                suit = suit_of_nb(card)
                # its own name: ``total`` (the cards of a hand) sizes the next attempt's rooms
                room = 0
                for s in range(5):
                    if rooms[s] > 0 and (s == 4 or not strict or not (voids[s] >> suit) & 1):
                        room += rooms[s]
                if room == 0:
                    ok = False
                    break
                pick = below_nb(bits >> np.uint64(32), room)
                for s in range(5):
                    if rooms[s] > 0 and (s == 4 or not strict or not (voids[s] >> suit) & 1):
                        if pick < rooms[s]:
                            if s < 4:
                                out[s] |= bit_nb(card)
                            rooms[s] -= 1
                            break
                        pick -= rooms[s]
            if not ok:
                break
        if ok:
            return strict
    return False


# --- Worlds that fit the bids ------------------------------------------------------------
# A bid is evidence about the bidder's hand: a seat that bid nil holds few high cards, a
# seat that bid 6 holds a strong hand. As GIB does for bridge (Ginsberg 2001: deal, then
# keep the deals in which its own bidder would have bid as the table did), a sampling
# player that reads the bids keeps a world only when every other seat's assumed bidder,
# given that seat's hand *at bidding time* in the world (its sampled cards plus the cards
# it has played, ``InfoSlot.played_by``) and the table it saw then (``bid_table_nb``),
# bids what the seat bid. The assumed bidder is the player's ``assume`` parameter
# (``ASSUMED_BIDDERS``): by default (``ASSUME_SEATED``) each seat's bidder seated at the
# table, with its parameters, which a run's parameter row carries after the policy's own
# slots (``enums.SEATED_BIDS``: the bidder row of each seat, as
# ``policies.seated_bidders`` lowers them); else ``count``, ``pagat`` or ``partner-aware``
# with its registry defaults for every seat. A bidder no kernel here evaluates is read as
# follows: a random bidder's bids do not depend on its hand, so every world explains them
# equally and its seat is not read (its row keeps the id ``BidPolicy.random``); a
# ``monte-carlo`` or user-written bidder is read as ``count`` with its defaults (the
# row ``seated_bidders`` writes for it); a row without the seated bidders (a policy's
# vector alone, ``Policy.lower()``, passed straight to a kernel) reads every seat as
# ``count``. Each evaluated bidder is deterministic, so a world fits or not; a
# randomised bidder would give each world the probability of the bids it saw instead,
# and the worlds would be weighted by it (the fit test is that weight for a bidder whose
# probabilities are 0 and 1, and the random bidder's is the same for every world).
#
# Few worlds fit by chance (three exact count bids, and a nil only from a hand in the
# count's nil region), so a world is redrawn up to ``fit_tries`` times; when none of the
# draws fits, the one that fits best (the least ``bid_misfit_nb``, the earliest on a
# tie) is kept, and the world counts as relaxed (the world samplers return the misfit of
# every world they keep, so a test or benchmark counts the relaxed ones). Every draw is
# a draw of the bid-blind sampler, so every guarantee of that sampler (voids, played
# cards, Hall's condition in ``pimc``) holds for every world kept, and the draws come
# from the decision's stream alone (the same worlds at any thread count).

BID_MISFIT_NIL = 3
"""What a nil read as a number bid (or a number read as a nil) adds to a world's misfit:
a nil says more about a hand than one trick of count does."""

ASSUME_SEATED = 3
"""``assume``: the bidders seated at the table (the section above)."""

ASSUMED_BIDDERS = np.stack((COUNT_DEFAULTS, PAGAT_DEFAULTS, PARTNER_DEFAULTS, COUNT_DEFAULTS))
"""The bidders a sampling player may assume for the other seats (its ``assume``
parameter: 0 ``count``, 1 ``pagat``, 2 ``partner-aware``), each with its registry
defaults; row ``ASSUME_SEATED`` is what a row without the seated bidders reads them as
(``count``)."""

VOID_MISFIT = 1000
"""What a lookahead draw that had to ignore a shown void adds: kept only when no draw
respects the voids (``sample_hands_nb``'s last resort)."""


@njit(cache=True)
def bid_table_nb(info, s, out):
    """The table seat ``s`` saw when it bid, into ``out`` (``N_INFO``): the players,
    dealer, first to act, sides, scores and bags of ``info``, the bids and nil kinds of
    the seats that bid before it (clockwise from ``first_to_act``; with two players both
    blind nils too, declared before either seat bids), nothing played."""
    for j in range(N_INFO):
        out[j] = 0
    clear_history_nb(out)
    players = info[InfoSlot.players]
    out[InfoSlot.players] = players
    out[InfoSlot.dealer] = info[InfoSlot.dealer]
    out[InfoSlot.first_to_act] = info[InfoSlot.first_to_act]
    out[InfoSlot.sides] = info[InfoSlot.sides]
    for j in range(4):
        out[InfoSlot.scores + j] = info[InfoSlot.scores + j]
        out[InfoSlot.bags + j] = info[InfoSlot.bags + j]
        out[InfoSlot.bids + j] = -1
        if players == 2 and info[InfoSlot.nil + j] == 2:
            out[InfoSlot.bids + j] = 0
            out[InfoSlot.nil + j] = 2
    seat = info[InfoSlot.first_to_act]
    for _ in range(players):
        if seat == s:
            break
        out[InfoSlot.bids + seat] = info[InfoSlot.bids + seat]
        out[InfoSlot.nil + seat] = info[InfoSlot.nil + seat]
        seat = next_seat_nb(seat, players)


@njit(inline="always", cache=True)
def exchanged_nb(info, rules, s):
    """Whether seat ``s`` swapped cards with its partner after the bids (the blind nil or
    nil exchange, as ``prepare.exchange_four_nb`` does it): its hand at bidding time is
    then not its cards plus its plays, and the exchanged cards are not in ``info``."""
    if info[InfoSlot.players] != 4 or info[InfoSlot.sides] > 2:
        return False
    ka = info[InfoSlot.nil + s]
    kb = info[InfoSlot.nil + (s ^ 2)]
    if rules[RuleField.blind_nil_exchange] > 0 and (ka == 2) != (kb == 2):
        return True
    return rules[RuleField.nil_exchange] > 0 and ((ka == 1 and kb == 0) or (kb == 1 and ka == 0))


@njit(cache=True)
def readable_bids_nb(info):
    """Whether ``info`` says who played each card played (``InfoSlot.played_by``), which
    rebuilding a bid-time hand needs; a table built without it is read bid-blind."""
    by = 0
    for s in range(4):
        by |= info[InfoSlot.played_by + s]
    return by == info[InfoSlot.played]


@njit(cache=True)
def assumed_rows_nb(params, assume):
    """The bidder rows a sampling player with parameter row ``params`` reads the bids by
    (``fitted_worlds_nb``'s ``assumed``): with ``assume`` = ``ASSUME_SEATED`` and a row that
    carries them, the seated bidders' rows (``enums.SEATED_BIDS``, one a seat); else
    ``ASSUMED_BIDDERS[assume]`` for every seat. A copy: the caller owns it."""
    if assume == ASSUME_SEATED and params.shape[0] >= SEATED_BIDS + 4 * PARAM_SLOTS:
        return params[SEATED_BIDS : SEATED_BIDS + 4 * PARAM_SLOTS].copy()
    return ASSUMED_BIDDERS[min(max(assume, 0), ASSUME_SEATED)].copy()


@njit(inline="always", cache=True)
def seat_bidder_nb(assumed, s):
    """Seat ``s``'s bidder row in ``assumed``: its own of four rows (``assumed_rows_nb``
    of a seated table), or the one row every seat shares."""
    if assumed.shape[0] >= 4 * PARAM_SLOTS:
        return assumed[s * PARAM_SLOTS : (s + 1) * PARAM_SLOTS]
    return assumed[:PARAM_SLOTS]


@njit(cache=True)
def assumed_bid_nb(hand, s, table, rules, assumed):
    """The bid the bidder ``assumed`` (a count, pagat or partner-aware parameter row)
    makes for seat ``s`` holding ``hand`` at the table ``table``, as the kernel records it
    (through ``bidding.legal_bid_nb``, the bid rule)."""
    policy = np.int64(assumed[0])
    if policy == BidPolicy.partner_aware:
        bid = partner_aware_bid_nb(hand, s, table, rules, assumed)
    else:
        bid = counting_bid_nb(hand, s, table, assumed, policy)
    return legal_bid_nb(rules, bid, hand, partner_bid_nb(table, s))


@njit(cache=True)
def bid_misfit_nb(sampled, seat, info, rules, assumed, table, bound=1 << 30):
    """How far the world ``sampled`` is from the bids: over the seats other than ``seat``
    that bid a number or nil (not blind nil: a blind bid says nothing of the cards; not a
    seat of an exchange: ``exchanged_nb``; not a seat whose assumed bidder is ``random``,
    whose bids say nothing of the cards either), the sum of |assumed bid - bid|, with
    seat s's bid by its row of ``assumed`` (``seat_bidder_nb``: one row for every seat, or
    four, one a seat), plus
    ``BID_MISFIT_NIL`` for each nil read as a number or the reverse. 0: every bid fits.
    Stops, returning a value of at least ``bound``, once the misfit reaches ``bound``
    (a draw no better than the best so far need not be read to the end). ``table`` is
    scratch (``N_INFO``)."""
    misfit = 0
    for s in range(info[InfoSlot.players]):
        bid = info[InfoSlot.bids + s]
        if s == seat or bid < 0 or info[InfoSlot.nil + s] == 2 or exchanged_nb(info, rules, s):
            continue
        row = seat_bidder_nb(assumed, s)
        if np.int64(row[0]) == BidPolicy.random:
            continue
        bid_table_nb(info, s, table)
        at_bid = sampled[s] | np.uint64(info[InfoSlot.played_by + s])
        guess = assumed_bid_nb(at_bid, s, table, rules, row)
        misfit += abs(guess - bid)
        if (guess == 0) != (bid == 0):
            misfit += BID_MISFIT_NIL
        if misfit >= bound:
            return misfit
    return misfit


DRAWS_PER_WORLD = 128
"""Stream positions reserved for one world (two draws a card, 39 cards at most)."""


@njit(inline="always", cache=True)
def completable_nb(counts, rooms, allowed, n_recv):
    """Hall's condition: the cards left (``counts`` per suit) can be dealt to the
    receivers (``rooms`` each; ``allowed[suit]`` a bit per receiver that may hold the
    suit) exactly when every set ``S`` of receivers has room for the cards that only
    ``S`` may hold. (A transportation problem: suits to receivers.)"""
    for subset in range(1, 1 << n_recv):
        need = 0
        for suit in range(4):
            if counts[suit] > 0 and (allowed[suit] & ~subset) == 0:
                need += counts[suit]
        room = 0
        for r in range(n_recv):
            if (subset >> r) & 1:
                room += rooms[r]
        if need > room:
            return False
    return True


@njit(cache=True)
def sample_world_nb(hand, seat, info, rules, key, world, out):
    """Deal the cards ``seat`` has not seen to the other seats (module docstring, step 1)
    into ``out`` (four masks; ``out[seat]`` is ``hand``, unused seats 0). Returns False
    only when no consistent deal exists (never for a state of a real hand)."""
    players = info[InfoSlot.players]
    deck = deck_mask_nb(rules[RuleField.jokers])
    pool = deck & ~hand & ~np.uint64(info[InfoSlot.played])
    # receivers 0 .. n_recv - 1: the other seats, then (two players) the discard pile
    recv_seat = np.full(4, -1, dtype=np.int64)
    rooms = np.zeros(4, dtype=np.int64)
    n_recv = 0
    used = 0
    for s in range(players):
        if s != seat:
            recv_seat[n_recv] = s
            rooms[n_recv] = 13 - info[InfoSlot.trick] - has_played_nb(info, s, players)
            used += rooms[n_recv]
            n_recv += 1
    left = popcount_nb(pool)
    if left > used:  # the discard pile takes the rest and may hold any suit
        rooms[n_recv] = left - used
        n_recv += 1
    allowed = np.zeros(4, dtype=np.int64)
    counts = np.zeros(4, dtype=np.int64)
    for suit in range(4):
        counts[suit] = popcount_nb(pool & SUIT_MASKS[suit])
        for r in range(n_recv):
            s = recv_seat[r]
            if s < 0 or not (info[InfoSlot.voids + s] >> suit) & 1:
                allowed[suit] |= 1 << r
    for s in range(4):
        out[s] = ZERO
    out[seat] = hand
    if not completable_nb(counts, rooms, allowed, n_recv):
        return False
    k = world * DRAWS_PER_WORLD
    while left > 0:
        bits = draw_nb(key, k)
        k += 1
        card = select_bit_nb(pool, below_nb(bits & LOW32, left))
        pool &= ~bit_nb(card)
        left -= 1
        suit = suit_of_nb(card)
        counts[suit] -= 1
        # the receivers that may take it and leave a completable rest, by their room
        total = 0
        ok = 0
        for r in range(n_recv):
            if rooms[r] > 0 and (allowed[suit] >> r) & 1:
                rooms[r] -= 1
                if completable_nb(counts, rooms, allowed, n_recv):
                    ok |= 1 << r
                    total += rooms[r] + 1
                rooms[r] += 1
        pick = below_nb(bits >> np.uint64(32), total)
        for r in range(n_recv):
            if (ok >> r) & 1:
                if pick < rooms[r]:
                    rooms[r] -= 1
                    if recv_seat[r] >= 0:
                        out[recv_seat[r]] |= bit_nb(card)
                    break
                pick -= rooms[r]
    return True


SAMPLE_HANDS = 0
"""``fitted_worlds_nb``'s sampler: ``sample_hands_nb`` (``lookahead``), world k from its own
key ``mix64(rand + (k + 1) * GOLDEN)``; a draw that had to ignore a void is kept only
when no draw keeps them (``VOID_MISFIT``)."""
SAMPLE_WORLD = 1
"""``fitted_worlds_nb``'s sampler: ``sample_world_nb`` (``pimc``), world k from the
decision's key at stream position ``k * DRAWS_PER_WORLD``; every draw keeps the voids."""


@njit(cache=True)
def fitted_worlds_nb(sampler, hand, seat, info, rules, assumed, tries, rand, worlds, misfits):
    """The worlds of a sampling player's decision: ``worlds[k]`` (four masks each) for each
    of ``worlds.shape[0]`` worlds, each a draw of ``sampler`` (``SAMPLE_HANDS`` or
    ``SAMPLE_WORLD``) as the bid-blind player draws it. With ``tries`` > 0 each world is
    redrawn (the a-th redraw from ``mix64(key + a * GOLDEN)``, ``key`` the world's key) up
    to ``tries`` draws in all until the other seats' bids fit the bidders ``assumed`` (a
    parameter row for every seat, or four rows, one a seat: ``bid_misfit_nb``; the section
    above), the best-fitting draw kept when none does (the
    earliest on a tie); ``misfits[k]`` is the misfit of the world kept (0 when it fits or
    bids are not read). Returns the number of relaxed worlds (misfit > 0)."""
    read = tries > 0 and readable_bids_nb(info)
    n_tries = max(tries, 1) if read else 1
    table = np.empty(N_INFO, dtype=np.int64)
    draw = np.zeros(4, dtype=np.uint64)
    relaxed = 0
    for k in range(worlds.shape[0]):
        key = np.uint64(rand)
        if sampler == SAMPLE_HANDS:
            key = mix64_nb(rand + np.uint64(k + 1) * GOLDEN)
        best = -1
        for a in range(n_tries):
            sub = key if a == 0 else mix64_nb(key + np.uint64(a) * GOLDEN)
            m = 0
            if sampler == SAMPLE_WORLD:
                sample_world_nb(hand, seat, info, rules, sub, k, draw)
            elif not sample_hands_nb(hand, seat, info, rules, sub, draw) and read:
                m = VOID_MISFIT
            if read:
                bound = best - m if best >= 0 else 1 << 30
                m += bid_misfit_nb(draw, seat, info, rules, assumed, table, bound)
            if best < 0 or m < best:
                best = m
                for s in range(4):
                    worlds[k, s] = draw[s]
                if m == 0:
                    break
        misfits[k] = best
        if best > 0:
            relaxed += 1
    return relaxed


@njit(cache=True)
def lookahead_worlds_nb(hand, seat, info, rules, tries, rand, worlds, misfits, assume=0):
    """The worlds of a ``lookahead`` decision: ``fitted_worlds_nb`` with ``sample_hands_nb``
    (world k drawn from ``mix64(rand + (k + 1) * GOLDEN)``) and the bidder
    ``ASSUMED_BIDDERS[assume]``. Returns the number of relaxed worlds."""
    return fitted_worlds_nb(
        np.int64(SAMPLE_HANDS), hand, seat, info, rules, ASSUMED_BIDDERS[assume], tries, rand,
        worlds, misfits,
    )  # fmt: skip


@njit(cache=True, forceinline=True)
def apply_card_nb(hands, info, seat, card, players, must_trump, last=12):
    """Play ``card`` for ``seat``: update hands and ``info`` as the kernel does (``must_trump``:
    the rule, for the suits a discard shows out of); a full trick goes to its winner, who
    leads the next (``info[InfoSlot.trick]`` is the hand's tricks at the end, ``last`` + 1)."""
    bit = bit_nb(card)
    hands[seat] &= ~bit
    j = info[InfoSlot.n_in_trick]
    suit = suit_of_nb(card)
    if j == 0:
        info[InfoSlot.led_suit] = suit
        win_card = card
        win_seat = seat
    else:
        led = info[InfoSlot.led_suit]
        win_card = info[InfoSlot.winning_card]
        win_seat = info[InfoSlot.winning_seat]
        if card > win_card and (suit == led or card >= 39):
            win_card = card
            win_seat = seat
        info[InfoSlot.voids + seat] |= shown_out_nb(suit, led, must_trump)
    if card >= 39:
        info[InfoSlot.broken] = 1
    record_play_nb(info, seat, card, bit)
    info[InfoSlot.trick_cards + j] = card
    info[InfoSlot.n_in_trick] = j + 1
    info[InfoSlot.winning_seat] = win_seat
    info[InfoSlot.winning_card] = win_card
    if j + 1 == players:
        info[InfoSlot.tricks_won + win_seat] += 1
        if info[InfoSlot.trick] < last:
            reset_trick_info_nb(info, info[InfoSlot.trick] + 1, win_seat)
        else:
            info[InfoSlot.trick] = last + 1


@njit(cache=True, forceinline=True)
def copy_state_nb(hands, info, hands_to, info_to):
    """Copy four hands and an info array into scratch arrays."""
    for s in range(4):
        hands_to[s] = hands[s]
    for j in range(N_INFO):
        info_to[j] = info[j]


@njit(cache=True)
def playout_nb(hands, info, rules, params):
    """Play the hand to its end from the state in ``info``, every seat with the heuristic
    (``params``: its parameter vector). ``hands`` are consumed; tricks land in ``info``."""
    players = info[InfoSlot.players]
    two_clubs = rules[RuleField.first_lead_two_clubs] != 0
    any_time = rules[RuleField.spades_any_time] != 0
    must_trump = rules[RuleField.must_trump] != 0
    must_over = rules[RuleField.must_overtrump] != 0
    total = hand_tricks_nb(rules)
    while info[InfoSlot.trick] < total:
        seat = (info[InfoSlot.leader] + info[InfoSlot.n_in_trick]) % players
        hand = hands[seat]
        legal = legal_cards_nb(
            hand,
            info[InfoSlot.led_suit],
            info[InfoSlot.broken] != 0,
            info[InfoSlot.trick],
            two_clubs,
            any_time,
            must_trump,
            must_over,
            info[InfoSlot.winning_card],
        )
        card = heuristic_play_nb(hand, legal, seat, info, rules, params)
        apply_card_nb(hands, info, seat, card, players, must_trump, total - 1)


@njit(cache=True, forceinline=True)
def bag_cost_nb(rules, value):
    """Points a bag costs in the long run: ``value``, or (negative) penalty / limit."""
    if value >= 0:
        return value
    if rules[RuleField.bag_penalty] <= 0:
        return 0.0
    return rules[RuleField.bag_penalty] / rules[RuleField.bag_limit]


@njit(cache=True)
def side_points_nb(rules, info, side, bag_cost, out):
    """One side's points for the finished hand in ``info``, bags charged at ``bag_cost``
    each instead of the penalty they trigger (in cutthroat a side is one seat)."""
    four = info[InfoSlot.players] == 4 and info[InfoSlot.sides] == 2
    b = side + 2 if four else side
    score_side_nb(
        rules, info[InfoSlot.bids + side], info[InfoSlot.nil + side],
        info[InfoSlot.tricks_won + side], info[InfoSlot.bids + b], info[InfoSlot.nil + b],
        info[InfoSlot.tricks_won + b], four, info[InfoSlot.bags + side], out,
    )  # fmt: skip
    return (
        out[ScoreSlot.score_change]
        + out[ScoreSlot.bag_penalty]
        - bag_cost * out[ScoreSlot.bags_change]
    )


@njit(inline="always", cache=True)
def margin_nb(rules, info, side, bag_cost, out):
    """A side's points minus its opponents': the other side's, or in cutthroat (more than
    two sides) the mean of the other seats', each playing for its own score."""
    mine = side_points_nb(rules, info, side, bag_cost, out)
    sides = info[InfoSlot.sides]
    if sides <= 2:
        return mine - side_points_nb(rules, info, 1 - side, bag_cost, out)
    others = 0.0
    for s in range(sides):
        if s != side:
            others += side_points_nb(rules, info, s, bag_cost, out)
    return mine - others / (sides - 1)


@njit(cache=True)
def distinct_cards_nb(legal, between, cands):
    """The distinct cards of ``legal`` into ``cands``: cards of one suit with no card of
    ``between`` between them play alike, so one (the lowest) stands for all; lowest first
    within each suit. Returns how many. ``between`` is every card that can separate two
    of them: the unseen cards, and the cards of the trick in progress (a queen on the
    table parts the ace from the four)."""
    n = 0
    for suit in range(4):
        m = legal & SUIT_MASKS[suit]
        prev = -1
        while m:
            c = lowest_card_nb(m)
            m &= m - ONE
            if prev < 0 or between & above_nb(prev) & below_mask_nb(c):
                cands[n] = c
                n += 1
            prev = c
    return n


@njit(cache=True)
def parting_cards_nb(hand, info, rules):
    """The cards that can part two of the seat's cards (``distinct_cards_nb``'s
    ``between``): every card the seat has not seen, and the cards of the trick in
    progress."""
    between = deck_mask_nb(rules[RuleField.jokers]) & ~hand & ~np.uint64(info[InfoSlot.played])
    for j in range(info[InfoSlot.n_in_trick]):
        between |= bit_nb(info[InfoSlot.trick_cards + j])
    return between


@njit(cache=True)
def rollout_pick_nb(cands, n, default, seat, info, rules, params, worlds, cost, margin, keep=-1):
    """The card of ``cands[:n]`` (distinct cards, ``distinct_cards_nb``) with the best
    total score margin (``margin_nb``, bags charged ``cost``) over the ``worlds`` (four
    masks each, ``worlds[k, seat]`` the seat's hand) when the seat plays it and every
    seat plays the rest of the hand with the heuristic (``params``' first slots), each
    card on the same worlds; ``default`` (the heuristic's card, of ``legal``) unless the
    best gains more than ``margin`` points per world over the candidate standing for it
    (the highest candidate of its suit not above it). With ``keep`` a seat (>= 0), only
    the cards after which that seat takes no trick in at least as many worlds as after
    the default's candidate may be chosen: a partner's live nil is never traded for
    points the worlds promise elsewhere."""
    home = 0
    for i in range(n):
        if cands[i] <= default and suit_of_nb(cands[i]) == suit_of_nb(default):
            home = i
    players = info[InfoSlot.players]
    must_trump = rules[RuleField.must_trump] != 0
    side = side_of_nb(info[InfoSlot.sides], seat)
    last = hand_tricks_nb(rules) - 1  # the hand's last trick
    samples = worlds.shape[0]
    totals = np.zeros(n, dtype=np.float64)
    kept = np.zeros(n, dtype=np.int64)  # worlds in which the seat ``keep`` takes no trick
    hands = np.empty(4, dtype=np.uint64)
    scratch = np.empty(N_INFO, dtype=np.int64)
    out = np.empty(N_SCORE_SLOTS, dtype=np.int64)
    for k in range(samples):
        sampled = worlds[k]
        for i in range(n):
            copy_state_nb(sampled, info, hands, scratch)
            apply_card_nb(hands, scratch, seat, cands[i], players, must_trump, last)
            playout_nb(hands, scratch, rules, params)
            totals[i] += margin_nb(rules, scratch, side, cost, out)
            if keep >= 0 and scratch[InfoSlot.tricks_won + keep] == 0:
                kept[i] += 1
    best = home
    for i in range(n):
        if totals[i] > totals[best] and kept[i] >= kept[home]:
            best = i
    if totals[best] - totals[home] <= margin * samples:
        return default
    return cands[best]


@njit(cache=True)
def lookahead_play_nb(hand, legal, seat, info, rules, params, rand, keep=-1):
    """For each distinct legal card (cards with no unseen card and no card of the trick in
    progress between them are one), the
    average score margin of the hand over ``samples`` deals of the unseen cards played out
    with the heuristic (bags charged ``bag_cost``); the heuristic's own card unless another
    gains ``margin`` points per deal (and, with ``keep`` a seat, keeps that seat trickless
    in as many deals: ``rollout_pick_nb``)."""
    if not legal & (legal - ONE):
        return lowest_card_nb(legal)
    rand = np.uint64(rand)
    cands = np.empty(MAX_TRICKS, dtype=np.int64)  # distinct legal cards, at most a hand
    n = distinct_cards_nb(legal, parting_cards_nb(hand, info, rules), cands)
    default = heuristic_play_nb(hand, legal, seat, info, rules, params)
    if n == 1:
        return default
    samples = max(np.int64(params[LookaheadParam.samples]), 1)
    cost = bag_cost_nb(rules, params[LookaheadParam.bag_cost])
    tries = np.int64(params[LookaheadParam.fit_tries]) if params[LookaheadParam.read_bids] else 0
    worlds = np.empty((samples, 4), dtype=np.uint64)
    misfits = np.empty(samples, dtype=np.int64)
    assumed = assumed_rows_nb(params, np.int64(params[LookaheadParam.assume]))
    fitted_worlds_nb(
        np.int64(SAMPLE_HANDS), hand, seat, info, rules, assumed, tries, rand, worlds, misfits
    )
    return rollout_pick_nb(
        cands, n, default, seat, info, rules, params, worlds, cost,
        params[LookaheadParam.margin], keep,
    )  # fmt: skip


MC_TRIES = 16  # deals tried per sample to match the bids made so far


@njit(cache=True)
def bids_fit_nb(sampled, seat, info, rules, tolerance, table):
    """Whether every seat that has bid would have bid within ``tolerance`` of its bid with
    its sampled hand, by the count at the table it saw when it bid (``bid_table_nb``: a
    seat bidding before its partner did not see the partner's bid; a nil: the count's
    nil). ``table`` is scratch (``N_INFO``)."""
    for s in range(info[InfoSlot.players]):
        bid = info[InfoSlot.bids + s]
        if s == seat or bid < 0 or info[InfoSlot.nil + s] == 2:
            continue
        bid_table_nb(info, s, table)
        guess = assumed_bid_nb(sampled[s], s, table, rules, COUNT_DEFAULTS)
        if (guess == 0) != (bid == 0) or abs(guess - bid) > tolerance:
            return False
    return True


@njit(cache=True)
def monte_carlo_bid_nb(hand, seat, info, rules, params, rand):
    """Deal the unseen cards ``samples`` times, give the seats still to bid the count's
    bid for their sampled hand, play each deal out with the heuristic (once with a number
    bid, once as nil when nil is allowed) and bid what maximises the average score margin
    (bags charged at ``bag_cost``; ``nil_bonus`` added to the nil option)."""
    players = info[InfoSlot.players]
    side = side_of_nb(info[InfoSlot.sides], seat)
    partnered = players == 4 and info[InfoSlot.sides] == 2
    rand = np.uint64(rand)
    samples = max(np.int64(params[MonteCarloParam.samples]), 1)
    cost = bag_cost_nb(rules, params[MonteCarloParam.bag_cost])
    try_nil = nil_allowed_nb(
        seat, info, params, params[BidParam.nil_threshold], seat_nil_risk_nb(hand, players > 2)
    )
    own = max(counting_bid_nb(hand, seat, info, COUNT_DEFAULTS, BidPolicy.count), 1)
    window = max(np.int64(params[MonteCarloParam.window]), 0)
    tolerance = params[MonteCarloParam.bid_tolerance]
    tries = 1 if tolerance < 0 else MC_TRIES
    lo = max(own - window, 1)
    top = hand_tricks_nb(rules)  # the highest bid: 13, or 17 or 18 with three players
    hi = min(own + window, top)
    ev = np.zeros(MAX_TRICKS + 1, dtype=np.float64)  # ev[0]: nil
    sampled = np.empty(4, dtype=np.uint64)
    hands = np.empty(4, dtype=np.uint64)
    base = np.empty(N_INFO, dtype=np.int64)
    scratch = np.empty(N_INFO, dtype=np.int64)
    table = np.empty(N_INFO, dtype=np.int64)
    out = np.empty(N_SCORE_SLOTS, dtype=np.int64)
    leader0 = info[InfoSlot.first_to_act]
    for k in range(samples):
        for attempt in range(tries):  # deals whose seats would have bid as they did
            sample_hands_nb(
                hand, seat, info, rules,
                mix64_nb(rand + np.uint64(k * tries + attempt + 1) * GOLDEN), sampled,
            )  # fmt: skip
            if bids_fit_nb(sampled, seat, info, rules, tolerance, table):
                break
        copy_state_nb(sampled, info, hands, base)
        for j in range(players):
            s = (leader0 + j) % players
            if s != seat and base[InfoSlot.bids + s] < 0:
                b = counting_bid_nb(sampled[s], s, base, COUNT_DEFAULTS, BidPolicy.count)
                base[InfoSlot.bids + s] = b
                base[InfoSlot.nil + s] = 1 if b == 0 else 0
        leader = first_leader_nb(sampled, 0, players, leader0, rules)
        for option in range(lo - 1 if try_nil else lo, hi + 1):  # lo - 1: the nil
            copy_state_nb(sampled, base, hands, scratch)
            nil = option == lo - 1
            scratch[InfoSlot.bids + seat] = 0 if nil else option
            scratch[InfoSlot.nil + seat] = 1 if nil else 0
            scratch[InfoSlot.played] = 0
            scratch[InfoSlot.broken] = 0
            for s in range(4):
                scratch[InfoSlot.tricks_won + s] = 0
                scratch[InfoSlot.voids + s] = 0
                scratch[InfoSlot.played_by + s] = 0
            clear_history_nb(scratch)
            reset_trick_info_nb(scratch, 0, leader)
            playout_nb(hands, scratch, rules, HEURISTIC_DEFAULTS)
            margin = margin_nb(rules, scratch, side, cost, out)
            if params[MonteCarloParam.objective] > 0 and not nil:
                tricks = scratch[InfoSlot.tricks_won + seat]
                pb = 0
                if partnered and scratch[InfoSlot.nil + (seat ^ 2)] == 0:
                    tricks += scratch[InfoSlot.tricks_won + (seat ^ 2)]
                    pb = scratch[InfoSlot.bids + (seat ^ 2)]
                margin = -abs(tricks - option - pb) * 1000.0
            ev[0 if nil else option] += margin
    best = lo
    for b in range(lo + 1, hi + 1):
        if ev[b] > ev[best]:
            best = b
    if try_nil and ev[0] + params[MonteCarloParam.nil_bonus] * samples >= ev[best]:
        return 0
    shifted = best + np.int64(np.floor(params[BidParam.bias] + 0.5))
    return min(max(shifted, 1), top)
