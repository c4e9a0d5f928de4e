"""Worlds that fit the bids: the samplers of ``lookahead`` and ``pimc`` reading the bids.

The states come from recorded hands (``record_hands``: count bidding, heuristic play);
the table state at each point and the table each seat saw when it bid are rebuilt here
in plain Python from the recorded deal and plays, and every kept world is checked with
the dispatch kernel ``builtin_bid_nb`` (the bidder the kernels bid with) and the count's
nil rule (``bidding.nil_risk_nb`` against the registry's ``nil_threshold``), not with
the sampler's own fit test.
"""

from __future__ import annotations

import naive
import numpy as np
import pytest

from spades_sim import Rules, simulate_hands
from spades_sim._nb import pimc, rollout
from spades_sim._nb import policies as nbp
from spades_sim._nb.bidding import NIL_PARTNER_MID, NIL_PARTNER_SLOPE, nil_risk_nb
from spades_sim._nb.enums import (
    HEURISTIC_DEFAULTS,
    MAX_PLAYS,
    N_INFO,
    PARAM_SLOTS,
    SEATED_BIDS,
    InfoSlot,
    ParamRow,
)
from spades_sim.policies import assumed_bidder, parse_policy, seated_bidders
from spades_sim.run.spec import RunSpec
from spades_sim.simulate import record_hands

RULES = Rules()
LOWERED = RULES.lower()
COUNT = parse_policy("count", "bid")
COUNT_ROW = COUNT.lower()
POINTS = (0, 1, 4, 9, 17, 22, 30, 37, 45)  # cards played before the decision
N_HANDS = 24
N_WORLDS = 12
TRIES = 64


def suit(card: int) -> int:
    return 3 if card >= 52 else card // 13


def state_at(dealt: list[int], plays: list[int], bids, nils, dealer: int, d: int):
    """The public table after ``plays[:d]`` (``info``, ``played_by`` and ``history``), the seat
    to play and every seat's cards then (the truth)."""
    info = np.zeros(N_INFO, dtype=np.int64)
    info[InfoSlot.players] = 4
    info[InfoSlot.sides] = 2
    info[InfoSlot.dealer] = dealer
    info[InfoSlot.first_to_act] = (dealer + 1) % 4
    for s in range(4):
        info[InfoSlot.bids + s] = bids[s]
        info[InfoSlot.nil + s] = nils[s]
    leader = next(s for s in range(4) if dealt[s] >> plays[0] & 1)
    held = list(dealt)
    trick, win_seat, win_card, led = [], -1, -1, -1
    played = broken = 0
    for card in plays[:d]:
        seat = (leader + len(trick)) % 4
        if not trick:
            led, win_seat, win_card = suit(card), seat, card
        else:
            if suit(card) != led:
                info[InfoSlot.voids + seat] |= 1 << led
            if card > win_card and (suit(card) == led or card >= 39):
                win_seat, win_card = seat, card
        held[seat] &= ~(1 << card)
        info[InfoSlot.played_by + seat] |= 1 << card
        played |= 1 << card
        broken |= card >= 39
        trick.append(card)
        if len(trick) == 4:
            info[InfoSlot.tricks_won + win_seat] += 1
            leader, trick, win_seat, win_card, led = win_seat, [], -1, -1, -1
    info[InfoSlot.trick] = sum(int(x) for x in info[InfoSlot.tricks_won : InfoSlot.tricks_won + 4])
    info[InfoSlot.leader] = leader
    info[InfoSlot.n_in_trick] = len(trick)
    info[InfoSlot.trick_cards : InfoSlot.trick_cards + 4] = -1
    for j, c in enumerate(trick):
        info[InfoSlot.trick_cards + j] = c
    info[InfoSlot.led_suit], info[InfoSlot.winning_seat] = led, win_seat
    info[InfoSlot.winning_card] = win_card
    info[InfoSlot.played], info[InfoSlot.broken] = played, broken
    info[InfoSlot.history : InfoSlot.history + MAX_PLAYS] = -1
    info[InfoSlot.history : InfoSlot.history + d] = plays[:d]
    return info, (leader + len(trick)) % 4, held


def bid_table(info: np.ndarray, s: int) -> np.ndarray:
    """The table seat ``s`` saw when it bid: the bids before it, clockwise from the first
    to act (the loop's ``start_hand_nb`` and ``bid_round_nb``, written out)."""
    table = np.zeros(N_INFO, dtype=np.int64)
    for slot in ("players", "dealer", "first_to_act", "sides"):
        table[getattr(InfoSlot, slot)] = info[getattr(InfoSlot, slot)]
    table[InfoSlot.bids : InfoSlot.bids + 4] = -1
    seat = int(info[InfoSlot.first_to_act])
    while seat != s:
        table[InfoSlot.bids + seat] = info[InfoSlot.bids + seat]
        table[InfoSlot.nil + seat] = info[InfoSlot.nil + seat]
        seat = (seat + 1) % 4
    return table


def nil_bound(info: np.ndarray, s: int, threshold: float) -> float:
    """The highest nil risk count's nil region admits for seat ``s``: the threshold, moved
    by a partner's number bid when the partner bid first (a strong partner covers better,
    ``bidding.nil_ok_nb``)."""
    table = bid_table(info, s)
    partner = table[InfoSlot.bids + (s ^ 2)]
    if partner > 0 and table[InfoSlot.nil + (s ^ 2)] == 0:
        return threshold + NIL_PARTNER_SLOPE * (partner - NIL_PARTNER_MID)
    return threshold


def count_bid(hand: int, s: int, info: np.ndarray, row: np.ndarray = COUNT_ROW) -> int:
    """The bid of the bidder ``row`` (count by default) from ``hand`` at seat ``s``'s
    bid-time table, through the kernels' own bid dispatch."""
    table = bid_table(info, s)
    return int(nbp.builtin_bid_nb(np.uint64(hand), s, table, LOWERED, row, np.uint64(1)))


def recorded_hands(n: int, seed: int, bidding) -> list:
    """(dealt, plays, bids, nils, dealer) of ``n`` recorded hands, heuristic play."""
    chunk = record_hands(n, seed=seed, bidding=bidding, play="heuristic")
    out = []
    for i in range(n):
        dealt = [int(x) for x in chunk.plays["dealt"][i]]
        plays = [int(c) for c in chunk.plays["plays"][i]]
        bids = [int(b) for b in chunk.hands["bid"][4 * i : 4 * i + 4]]
        nils = [int(n) for n in chunk.hands["nil"][4 * i : 4 * i + 4]]
        out.append((dealt, plays, bids, nils, int(chunk.hands["dealer"][4 * i])))
    return out


@pytest.fixture(scope="module")
def recorded():
    return recorded_hands(N_HANDS, seed=40, bidding="count")


def test_the_true_deal_fits_its_own_bids(recorded) -> None:
    """The hands as dealt fit the bids they made (the count bid them): the fit test reads
    the bid-time hands and tables as the loop made them, at every point of the hand."""
    table = np.zeros(N_INFO, dtype=np.int64)
    for dealt, plays, bids, nils, dealer in recorded:
        for s in range(4):
            assert (
                count_bid(dealt[s], s, state_at(dealt, plays, bids, nils, dealer, 0)[0]) == bids[s]
            )
        for d in POINTS:
            info, seat, held = state_at(dealt, plays, bids, nils, dealer, d)
            truth = np.array(held, dtype=np.uint64)
            assert (
                rollout.bid_misfit_nb(truth, seat, info, LOWERED, rollout.COUNT_DEFAULTS, table)
                == 0
            )


def plain_misfit(world: list[int], seat: int, info: np.ndarray, bids: list[int]) -> int:
    """The misfit of ``world`` written out: over the other seats, the count's bid from the
    bid-time hand (through the kernels' bid dispatch) against the bid, and
    ``BID_MISFIT_NIL`` more where one of the two is a nil and the other a number."""
    misfit = 0
    for s in range(4):
        if s == seat:
            continue
        guess = count_bid(world[s] | int(info[InfoSlot.played_by + s]), s, info)
        misfit += abs(guess - bids[s]) + rollout.BID_MISFIT_NIL * ((guess == 0) != (bids[s] == 0))
    return misfit


def test_a_nil_read_as_a_number_ranks_below_a_number_a_trick_off(recorded) -> None:
    """From the true deals of recorded hands with a nil, one card swapped between two
    other seats: a world in which the nil bidder's hand would bid a number (every other
    seat's bid fitting) fits worse than one in which a number bid is a trick off (the
    nil fitting): a nil says more of a hand than a trick of count. Every swapped world's
    misfit is the plain computation's."""
    table = np.zeros(N_INFO, dtype=np.int64)
    pairs = 0
    for dealt, plays, bids, nils, dealer in recorded:
        if 1 not in nils:
            continue
        info, seat, held = state_at(dealt, plays, bids, nils, dealer, 0)
        nil_seat = nils.index(1)
        if nil_seat == seat:
            continue
        number_read: list[int] = []  # misfits of worlds reading the nil as a number
        trick_off: list[int] = []  # ... of worlds with the nil read and one bid a trick off
        for other in range(4):
            if other in (seat, nil_seat):
                continue
            for x in naive.cards(held[nil_seat]):
                for y in naive.cards(held[other])[::3]:
                    world = list(held)
                    world[nil_seat] ^= (1 << x) | (1 << y)
                    world[other] ^= (1 << x) | (1 << y)
                    got = int(rollout.bid_misfit_nb(np.array(world, dtype=np.uint64), seat,
                                                    info, LOWERED, rollout.COUNT_DEFAULTS,
                                                    table))  # fmt: skip
                    assert got == plain_misfit(world, seat, info, bids)
                    guesses = [
                        count_bid(world[s], s, info) if s != seat else bids[s] for s in range(4)
                    ]
                    off = [abs(g - b) for g, b in zip(guesses, bids, strict=True)]
                    if guesses[nil_seat] > 0 and sum(off) == off[nil_seat]:
                        number_read.append(got)
                    elif guesses[nil_seat] == 0 and sorted(off) == [0, 0, 0, 1]:
                        trick_off.append(got)
        for worse in number_read:
            for better in trick_off:
                assert worse > better
                pairs += 1
    assert pairs > 0


def assert_a_deal_of_what_it_saw(world, seat, held, info, voids) -> None:
    """A world drawn for ``seat`` keeps what it saw: its own hand, as many cards for every
    seat as it holds, no card twice, none the seat holds or saw played, and (``voids``)
    none of a suit a seat showed out of."""
    seen = held[seat] | int(info[InfoSlot.played])
    assert world[seat] == held[seat]
    union = 0
    for s in range(4):
        assert world[s].bit_count() == held[s].bit_count(), "as many cards as it holds"
        assert not union & world[s]
        union |= world[s]
        if s != seat:
            assert not world[s] & seen, "a card the seat holds or saw played"
            for c in range(54):
                if voids and world[s] >> c & 1:
                    assert not info[InfoSlot.voids + s] >> suit(c) & 1, "a shown void"


@pytest.mark.parametrize("sampler", ["pimc", "lookahead"])
def test_kept_worlds_break_no_void_hold_no_played_card_and_fit_the_bids(recorded, sampler) -> None:
    """Many worlds for the seat to play at many points of recorded hands: each gives
    every seat as many cards as it holds, none the seat holds or has seen played, none
    of a suit it showed out of; in each world that fits, every other seat's count bid
    from its bid-time hand (its world cards plus the cards it played) is its bid, and a
    nil bidder's bid-time hand is in the count's nil region. Relaxed worlds (none of
    ``TRIES`` draws fit) are counted, and most worlds fit."""
    threshold = COUNT.params["nil_threshold"]
    kept = relaxed = nil_hands = 0
    worlds = np.zeros((N_WORLDS, 4), dtype=np.uint64)
    misfits = np.zeros(N_WORLDS, dtype=np.int64)
    draw = pimc.pimc_worlds_nb if sampler == "pimc" else rollout.lookahead_worlds_nb
    for n, (dealt, plays, bids, nils, dealer) in enumerate(recorded):
        for d in POINTS:
            info, seat, held = state_at(dealt, plays, bids, nils, dealer, d)
            hand = held[seat]
            key = np.uint64(1000 * n + d + 1)
            got = draw(np.uint64(hand), seat, info, LOWERED, TRIES, key, worlds, misfits)
            assert got == int((misfits > 0).sum())
            relaxed += got
            for w in range(N_WORLDS):
                world = [int(x) for x in worlds[w]]
                assert_a_deal_of_what_it_saw(world, seat, held, info, voids=True)
                kept += 1
                if misfits[w]:
                    continue
                for s in range(4):
                    if s == seat:
                        continue
                    at_bid = world[s] | int(info[InfoSlot.played_by + s])
                    assert count_bid(at_bid, s, info) == bids[s]
                    if nils[s] == 1:
                        nil_hands += 1
                        assert nil_risk_nb(np.uint64(at_bid)) <= nil_bound(info, s, threshold)
    assert nil_hands > 0
    print(f"{sampler}: {relaxed} of {kept} worlds relaxed ({relaxed / kept:.1%})")
    assert relaxed < kept / 2


@pytest.mark.parametrize("sampler", [rollout.SAMPLE_WORLD, rollout.SAMPLE_HANDS])
def test_a_world_that_fits_only_on_the_last_try_is_kept(recorded, sampler) -> None:
    """``fit_tries`` k means k draws: where the first draw that fits the bids is the k-th
    (draw a from ``mix64(key + a * GOLDEN)``, written out here with the fit tested by
    the count's own bids), ``fitted_worlds_nb`` with ``tries`` k keeps that very draw, and
    with k - 1 tries keeps one that does not fit."""
    worlds = np.zeros((1, 4), dtype=np.uint64)
    misfits = np.zeros(1, dtype=np.int64)
    one = np.zeros(4, dtype=np.uint64)
    checked = 0
    for n, (dealt, plays, bids, nils, dealer) in enumerate(recorded[:8]):
        for d in POINTS:
            info, seat, held = state_at(dealt, plays, bids, nils, dealer, d)
            hand = np.uint64(held[seat])
            rand = 1000 * n + d + 1
            # world 0's key: the decision's own (pimc), or mixed with world 1 (lookahead)
            key = rand if sampler == rollout.SAMPLE_WORLD else naive.mix64(rand + naive.GOLDEN)
            first = -1
            for a in range(TRIES):
                sub = key if a == 0 else naive.mix64((key + a * naive.GOLDEN) % 2**64)
                if sampler == rollout.SAMPLE_WORLD:
                    kept = rollout.sample_world_nb(hand, seat, info, LOWERED, np.uint64(sub),
                                                   0, one)  # fmt: skip
                else:
                    kept = rollout.sample_hands_nb(hand, seat, info, LOWERED, np.uint64(sub), one)
                world = [int(x) for x in one]
                if kept and plain_misfit(world, seat, info, bids) == 0:
                    first = a
                    break
            if first < 1:
                continue  # the first draw fits, or none of them does
            for tries, fits in ((first + 1, True), (first, False)):
                rollout.fitted_worlds_nb(
                    sampler, hand, seat, info, LOWERED, rollout.COUNT_DEFAULTS, tries,
                    np.uint64(rand), worlds, misfits,
                )  # fmt: skip
                assert (misfits[0] == 0) == fits, (n, d, first, tries)
                if fits:
                    assert [int(x) for x in worlds[0]] == world
            checked += 1
    assert checked >= 5


def test_bid_blind_worlds_are_the_bid_blind_samplers(recorded) -> None:
    """Without reading (tries 0) the world samplers give exactly the draws of the
    bid-blind samplers, so ``read_bids=0`` plays as before."""
    worlds = np.zeros((5, 4), dtype=np.uint64)
    misfits = np.zeros(5, dtype=np.int64)
    one = np.zeros(4, dtype=np.uint64)
    dealt, plays, bids, nils, dealer = recorded[0]
    info, seat, held = state_at(dealt, plays, bids, nils, dealer, 22)
    hand = np.uint64(held[seat])
    assert pimc.pimc_worlds_nb(hand, seat, info, LOWERED, 0, np.uint64(9), worlds, misfits) == 0
    for w in range(5):
        rollout.sample_world_nb(hand, seat, info, LOWERED, np.uint64(9), w, one)
        assert list(one) == list(worlds[w])
    rollout.lookahead_worlds_nb(hand, seat, info, LOWERED, 0, np.uint64(9), worlds, misfits)
    for k in range(5):
        key = rollout.mix64_nb(np.uint64((9 + (k + 1) * int(rollout.GOLDEN)) % 2**64))
        rollout.sample_hands_nb(hand, seat, info, LOWERED, np.uint64(key), one)
        assert list(one) == list(worlds[k])


def test_bid_reading_runs_are_the_same_at_any_thread_count() -> None:
    """The worlds come from each decision's random bits alone: one thread or two, chunks
    of any size, the same hands."""
    play = "lookahead:read_bids=1,samples=4,fit_tries=32"
    one = simulate_hands(24, seed=7, play=play, threads=1, chunk_size=5)
    two = simulate_hands(24, seed=7, play=play, threads=2, chunk_size=7)
    assert one.equals(two)
    blind = simulate_hands(24, seed=7, play="lookahead:samples=4,read_bids=0", threads=1)
    assert not one.equals(blind)  # the reading changes the play


@pytest.mark.xdist_group("pimc_module")  # one generated module for all: one worker
@pytest.mark.slow  # a cold cache compiles the pimc kernels: minutes
def test_bid_reading_pimc_is_the_same_at_any_thread_count() -> None:
    """Every seat on bid-reading pimc: two deals, one a thread, as on one thread."""
    play = "pimc:worlds=2,early_worlds=1,read_bids=1,fit_tries=64"
    one = simulate_hands(2, seed=21, play=play, threads=1)
    assert one.equals(simulate_hands(2, seed=21, play=play, threads=2))
    assert (one.groupby("deal").tricks.sum() == 13).all()


@pytest.mark.parametrize("assume", [1, 2])
def test_worlds_fit_the_bidder_assumed(recorded, assume) -> None:
    """With ``assume`` naming another bidder (pagat, partner-aware), each world that fits
    is one in which that bidder, from every other seat's bid-time hand, bids its bid (the
    count's bids read as that bidder's: fewer worlds fit, more are relaxed)."""
    row = parse_policy(("count", "pagat", "partner-aware")[assume], "bid").lower()
    worlds = np.zeros((N_WORLDS, 4), dtype=np.uint64)
    misfits = np.zeros(N_WORLDS, dtype=np.int64)
    table = np.zeros(N_INFO, dtype=np.int64)
    fits = 0
    for n, (dealt, plays, bids, nils, dealer) in enumerate(recorded[:10]):
        for d in POINTS:
            info, seat, held = state_at(dealt, plays, bids, nils, dealer, d)
            for draw in (pimc.pimc_worlds_nb, rollout.lookahead_worlds_nb):
                key = np.uint64(1000 * n + d + 1)
                hand = np.uint64(held[seat])
                draw(hand, seat, info, LOWERED, TRIES, key, worlds, misfits, assume)
                for w in range(N_WORLDS):
                    got = rollout.bid_misfit_nb(worlds[w], seat, info, LOWERED, row, table)
                    assert got == misfits[w] % rollout.VOID_MISFIT
                    fits += got == 0
    assert fits > 0


# The bidders seated at the table (``assume=3``, the default): N-S bid by pagat, E-W by
# a count that bids nil more readily; neither is count's defaults.
SEATED = ("pagat", "count:nil_threshold=4,bias=0.5")


@pytest.mark.parametrize("sampler", [rollout.SAMPLE_WORLD, rollout.SAMPLE_HANDS])
def test_worlds_fit_the_bidders_seated_at_the_table(sampler) -> None:
    """With non-default bidders seated (pagat for N-S, a count with its own parameters for
    E-W), the rows the run's play row carries (``RunSpec.params``, read by
    ``assumed_rows_nb`` as the sampling players read them) give the worlds of every point
    of recorded hands in which each other seat's *own* bidder, through the kernels' bid
    dispatch from its bid-time hand, bids its bid: no fitted world gives a seat a hand its
    bidder would not have bid so. Each world also keeps the sampler's guarantees (voids,
    played cards); most worlds fit."""
    hands = recorded_hands(16, seed=41, bidding=SEATED)
    bidders = [parse_policy(p, "bid") for p in SEATED]
    spec = RunSpec.build(seed=41, bidding=SEATED, play="lookahead")
    play_row = spec.params()[ParamRow.play]
    assumed = rollout.assumed_rows_nb(play_row, np.int64(rollout.ASSUME_SEATED))
    assert assumed.shape == (4 * PARAM_SLOTS,)
    for s in range(4):
        assert np.array_equal(assumed[s * PARAM_SLOTS : (s + 1) * PARAM_SLOTS],
                              bidders[s & 1].lower())  # fmt: skip
    worlds = np.zeros((N_WORLDS, 4), dtype=np.uint64)
    misfits = np.zeros(N_WORLDS, dtype=np.int64)
    kept = relaxed = nils_read = 0
    for n, (dealt, plays, bids, nils, dealer) in enumerate(hands):
        for s in range(4):  # the recorded bids are the seated bidders' (the truth fits)
            info0 = state_at(dealt, plays, bids, nils, dealer, 0)[0]
            assert count_bid(dealt[s], s, info0, bidders[s & 1].lower()) == bids[s]
        for d in POINTS:
            info, seat, held = state_at(dealt, plays, bids, nils, dealer, d)
            hand = held[seat]
            key = np.uint64(1000 * n + d + 1)
            relaxed += rollout.fitted_worlds_nb(
                sampler, np.uint64(hand), seat, info, LOWERED, assumed, TRIES, key, worlds,
                misfits,
            )  # fmt: skip
            for w in range(N_WORLDS):
                world = [int(x) for x in worlds[w]]
                voids = sampler == rollout.SAMPLE_WORLD
                assert_a_deal_of_what_it_saw(world, seat, held, info, voids=voids)
                kept += 1
                if misfits[w]:
                    continue
                for s in range(4):
                    if s == seat:
                        continue
                    at_bid = world[s] | int(info[InfoSlot.played_by + s])
                    assert count_bid(at_bid, s, info, bidders[s & 1].lower()) == bids[s]
                    nils_read += nils[s] == 1
    assert nils_read > 0
    print(f"seated: {relaxed} of {kept} worlds relaxed ({relaxed / kept:.1%})")
    assert relaxed < kept / 2


def test_seated_rows_read_only_the_bidders_a_kernel_evaluates() -> None:
    """Each seat's row is its own bidder's vector when a kernel evaluates it (count,
    pagat, partner-aware with their parameters; random, whose seat is not read), else
    count's defaults (monte-carlo); a row without them reads every seat as count, and
    assume 0..2 read every seat by that bidder's defaults whatever is seated."""
    mc = parse_policy("monte-carlo", "bid")
    rnd = parse_policy("random", "bid")
    pa = parse_policy("partner-aware:overbid_cut=0.25", "bid")
    assert np.array_equal(assumed_bidder(mc), rollout.COUNT_DEFAULTS)
    assert np.array_equal(assumed_bidder(pa), pa.lower())
    rows = seated_bidders(np.zeros((2, PARAM_SLOTS)), [mc, rnd, pa, COUNT])
    tail = rows[1, SEATED_BIDS:]
    assert np.array_equal(tail[:PARAM_SLOTS], rollout.COUNT_DEFAULTS)
    assert tail[PARAM_SLOTS] == rnd.lower()[0]
    assert np.array_equal(tail[2 * PARAM_SLOTS : 3 * PARAM_SLOTS], pa.lower())
    assumed = rollout.assumed_rows_nb(rows[1], np.int64(rollout.ASSUME_SEATED))
    assert np.array_equal(assumed, tail)
    narrow = rollout.assumed_rows_nb(rows[1, :PARAM_SLOTS], np.int64(rollout.ASSUME_SEATED))
    assert np.array_equal(narrow, rollout.COUNT_DEFAULTS)
    for assume in (0, 1, 2):
        got = rollout.assumed_rows_nb(rows[1], np.int64(assume))
        assert np.array_equal(got, rollout.ASSUMED_BIDDERS[assume])


def test_a_random_bidders_seat_is_not_read(recorded) -> None:
    """A seat whose seated bidder is random (its bids say nothing of its hand) adds no
    misfit: with every other seat random, every world fits."""
    rows = seated_bidders(np.zeros((1, PARAM_SLOTS)), [parse_policy("random", "bid")])[0]
    assumed = rollout.assumed_rows_nb(rows, np.int64(rollout.ASSUME_SEATED))
    worlds = np.zeros((N_WORLDS, 4), dtype=np.uint64)
    misfits = np.zeros(N_WORLDS, dtype=np.int64)
    dealt, plays, bids, nils, dealer = recorded[0]
    info, seat, held = state_at(dealt, plays, bids, nils, dealer, 9)
    got = rollout.fitted_worlds_nb(
        rollout.SAMPLE_WORLD, np.uint64(held[seat]), seat, info, LOWERED, assumed, TRIES,
        np.uint64(5), worlds, misfits,
    )  # fmt: skip
    assert got == 0 and not misfits.any()


def test_seated_count_at_its_defaults_plays_as_assuming_count() -> None:
    """``count`` seated at its defaults: assuming the seated bidders is assuming count (the
    same hands, same seed); seated pagat is read as pagat (``assume=1``), not as count."""
    play = "lookahead:samples=4,fit_tries=32"
    seated = simulate_hands(12, seed=5, play=play)
    assert seated.equals(simulate_hands(12, seed=5, play=play + ",assume=0"))
    pagat = simulate_hands(12, seed=5, bidding="pagat", play=play)
    assert pagat.equals(simulate_hands(12, seed=5, bidding="pagat", play=play + ",assume=1"))
    assert not pagat.equals(simulate_hands(12, seed=5, bidding="pagat", play=play + ",assume=0"))


@pytest.mark.xdist_group("pimc_module")  # one generated module for all: one worker
@pytest.mark.slow  # a cold cache compiles the pimc kernels: minutes
def test_seated_count_at_its_defaults_plays_pimc_as_assuming_count() -> None:
    """The same for ``pimc`` (its lookahead tricks and its solved ones): count seated at
    its defaults gives the run of ``assume=0``."""
    play = "pimc:worlds=2,early_worlds=1,solve_from=4,nil_rollouts=4"
    one = simulate_hands(2, seed=21, play=play)
    assert one.equals(simulate_hands(2, seed=21, play=play + ",assume=0"))


# --- Worlds weighted by the play ------------------------------------------------------


@pytest.mark.xdist_group("pimc_kernels")  # pimc's kernels: compiled on one worker
def test_the_true_deal_explains_every_heuristic_card_and_sampled_worlds_do_not(recorded) -> None:
    """The recorded hands were played by the heuristic (its defaults), so replayed in the
    true deal from the plain-Python table every other seat's card is the heuristic's
    (no disagreement): the replay rebuilds the tables the seats saw. Worlds drawn blind
    to the play disagree somewhere, more of them the later the point."""
    table = np.zeros(N_INFO, dtype=np.int64)
    hands = np.zeros(4, dtype=np.uint64)
    worlds = np.zeros((N_WORLDS, 4), dtype=np.uint64)
    misfits = np.zeros(N_WORLDS, dtype=np.int64)
    agreed = contradicted = drawn = 0
    for n, (dealt, plays, bids, nils, dealer) in enumerate(recorded):
        for d in POINTS[1:]:
            info, seat, held = state_at(dealt, plays, bids, nils, dealer, d)
            assert pimc.readable_plays_nb(info)
            hand = np.uint64(held[seat])
            truth = np.array(held, dtype=np.uint64)
            agree, disagree = pimc.play_fit_nb(
                truth, hand, seat, info, LOWERED, HEURISTIC_DEFAULTS, table, hands
            )
            assert disagree == 0
            agreed += agree
            pimc.pimc_worlds_nb(hand, seat, info, LOWERED, 0, np.uint64(n + d), worlds, misfits)
            for w in range(N_WORLDS):
                _, disagree = pimc.play_fit_nb(
                    worlds[w], hand, seat, info, LOWERED, HEURISTIC_DEFAULTS, table, hands
                )
                contradicted += disagree > 0
                drawn += 1
    assert agreed > 0
    print(f"{contradicted} of {drawn} blind worlds contradict a heuristic card")
    assert contradicted > drawn / 2


@pytest.mark.xdist_group("pimc_kernels")  # pimc's kernels: compiled on one worker
def test_the_resampling_keeps_the_worlds_that_explain_the_play(recorded) -> None:
    """Among candidates that contradict the heuristic's cards and the true deal, which
    explains all of them, the solved worlds go to the truth (eps 0.1: a disagreement
    weighs 9 agreements' odds), and each point places exactly the worlds asked for."""
    table = np.zeros(N_INFO, dtype=np.int64)
    hands = np.zeros(4, dtype=np.uint64)
    worlds = np.zeros((N_WORLDS + 1, 4), dtype=np.uint64)
    misfits = np.zeros(N_WORLDS + 1, dtype=np.int64)
    counts = np.zeros(N_WORLDS + 1, dtype=np.int64)
    checked = 0
    for n, (dealt, plays, bids, nils, dealer) in enumerate(recorded[:8]):
        for d in (22, 30, 41):
            info, seat, held = state_at(dealt, plays, bids, nils, dealer, d)
            hand = np.uint64(held[seat])
            pimc.pimc_worlds_nb(hand, seat, info, LOWERED, 0, np.uint64(n), worlds, misfits)
            worlds[N_WORLDS] = np.array(held, dtype=np.uint64)
            worst = min(
                pimc.play_fit_nb(w, hand, seat, info, LOWERED, HEURISTIC_DEFAULTS, table, hands)[1]
                for w in worlds[:N_WORLDS]
            )
            pimc.play_counts_nb(
                worlds, hand, seat, info, LOWERED, HEURISTIC_DEFAULTS, 0.1, 8, np.uint64(d), counts
            )
            assert counts.sum() == 8 and counts.min() >= 0
            if worst >= 2:  # every blind world contradicts two cards: the truth takes them
                checked += 1
                assert counts[N_WORLDS] >= 7
    assert checked > 0


@pytest.mark.xdist_group("pimc_module")  # one generated module for all: one worker
@pytest.mark.slow  # a cold cache compiles the pimc kernels: minutes
def test_play_reading_pimc_is_the_same_at_any_thread_count() -> None:
    """Every seat on play-reading pimc from trick 4: as on one thread with two."""
    play = "pimc:worlds=2,early_worlds=1,solve_from=4,read_plays=0.1"
    one = simulate_hands(2, seed=21, play=play, threads=1)
    assert one.equals(simulate_hands(2, seed=21, play=play, threads=2))
    assert (one.groupby("deal").tricks.sum() == 13).all()
