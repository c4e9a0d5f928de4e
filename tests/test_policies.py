"""The built-in policies: what they may see, that they play legally, that parameters steer
them without recompiling, the behaviours their documentation promises, blind nil and the
two-player draw, the registry and README (user-written policies: ``test_user_policies.py``).

Decisions are checked by calling the kernels' policy functions directly on table states
built here in plain Python (``table_info`` mirrors ``_nb.play``), and by simulating small
runs (every card the kernel plays is checked for legality there; an illegal one raises
``PolicyError``). The whole file stays well under a minute, compile included, except the
tests marked slow.
"""

from __future__ import annotations

import re
from pathlib import Path

import naive
import numpy as np
import pandas as pd
import pytest
from numba import njit, typeof
from numba import types as nbtypes

from spades_sim import reference
from spades_sim._nb import exchange, loop, rollout
from spades_sim._nb import policies as nbp
from spades_sim._nb.bidding import OWN_SLOT
from spades_sim._nb.bitboard import SUIT_MASKS
from spades_sim._nb.enums import (
    COUNT_DEFAULTS,
    HEURISTIC_DEFAULT_SETTINGS,
    HEURISTIC_DEFAULTS,
    LANES,
    LOOKAHEAD_DEFAULTS,
    N_HEURISTIC_FIELDS,
    N_INFO,
    PAGAT_DEFAULTS,
    PARAM_SLOTS,
    PARAMS_BY_POLICY,
    PARTNER_DEFAULTS,
    THRESHOLD_DEFAULTS,
    BidParam,
    BidPolicy,
    CountParam,
    DrawPolicy,
    HeuristicField,
    HeuristicFlag,
    HeuristicParam,
    HeuristicSettings,
    InfoSlot,
    LockstepField,
    LookaheadParam,
    PagatParam,
    PlayPolicy,
    heuristic_settings,
)
from spades_sim._nb.heuristic import (
    heuristic_core_nb,
    heuristic_settings_nb,
    read_play_nb,
    read_plays_nb,
)
from spades_sim._nb.lockstep_heuristic import (
    NIL_LONG_BY_DEFAULT,
    NIL_PULL_BY_DEFAULT,
    NIL_READ_BY_DEFAULT,
    heuristic_lane_nb,
    play_heuristic_lockstep_nb,
)
from spades_sim.analysis import (
    bid_accuracy,
    duplicate,
    estimate_of,
    mean_ci,
    nil_success,
    proportion_ci,
)
from spades_sim.cards import parse_card, parse_hand
from spades_sim.policies import Policy, describe, markdown, parse_policy
from spades_sim.policy_table import PLAY_COMMON
from spades_sim.rules import Rules
from spades_sim.simulate import record_hands, simulate_games, simulate_hands

ROOT = Path(__file__).resolve().parents[1]
RULES = Rules().lower()
PLAY_POLICIES = ("random", "heuristic", "lookahead:samples=2")
BID_POLICIES = ("count", "pagat", "partner-aware", "monte-carlo:samples=2", "advise:n=2", "random")


def table_info(
    plays: list[int],
    first: int,
    bids: tuple[int, ...] = (3, 3, 3, 3),
    nils: tuple[int, ...] = (0, 0, 0, 0),
    players: int = 4,
    scores: tuple[int, int] = (0, 0),
    bags: tuple[int, int] = (0, 0),
) -> tuple[np.ndarray, int]:
    """The public table state after ``plays`` (cards in play order, ``first`` leading the
    first trick), built in plain Python as the kernel keeps it; and the seat to play."""
    info = np.zeros(N_INFO, dtype=np.int64)
    info[InfoSlot.players] = players
    info[InfoSlot.first_to_act] = first
    info[InfoSlot.dealer] = (first - 1) % players
    for s in range(4):
        info[InfoSlot.bids + s] = bids[s] if s < players else -1
        info[InfoSlot.nil + s] = nils[s] if s < players else 0
    info[InfoSlot.scores : InfoSlot.scores + 2] = scores
    info[InfoSlot.bags : InfoSlot.bags + 2] = bags
    leader, trick, played, broken = first, 0, 0, 0
    cards: list[int] = []
    info[InfoSlot.history :] = -1

    def reset() -> None:
        info[InfoSlot.trick], info[InfoSlot.leader], info[InfoSlot.n_in_trick] = trick, leader, 0
        info[InfoSlot.led_suit] = info[InfoSlot.winning_seat] = info[InfoSlot.winning_card] = -1
        info[InfoSlot.trick_cards : InfoSlot.trick_cards + 4] = -1

    reset()
    for card in plays:
        j = len(cards)
        seat = (leader + j) % players
        suit = min(card // 13, 3)
        if j == 0:
            info[InfoSlot.led_suit] = suit
            info[InfoSlot.winning_seat], info[InfoSlot.winning_card] = seat, card
        else:
            led = int(info[InfoSlot.led_suit])
            if suit != led:
                info[InfoSlot.voids + seat] |= 1 << led
            win = int(info[InfoSlot.winning_card])
            if card > win and (suit == led or card >= 39):
                info[InfoSlot.winning_seat], info[InfoSlot.winning_card] = seat, card
        broken |= card >= 39
        info[InfoSlot.history + int(np.sum(info[InfoSlot.history :] >= 0))] = card
        info[InfoSlot.played_by + seat] |= 1 << card
        played |= 1 << card
        cards.append(card)
        info[InfoSlot.trick_cards + j] = card
        info[InfoSlot.n_in_trick] = j + 1
        info[InfoSlot.played], info[InfoSlot.broken] = played, broken
        if len(cards) == players:
            info[InfoSlot.tricks_won + info[InfoSlot.winning_seat]] += 1
            leader, trick, cards = int(info[InfoSlot.winning_seat]), trick + 1, []
            reset()
    return info, (leader + len(cards)) % players


def cards(text: str) -> list[int]:
    return [parse_card(c) for c in text.split()]


def legal_of(hand: int, info: np.ndarray) -> int:
    led = int(info[InfoSlot.led_suit])
    if led >= 0:
        suit = int(SUIT_MASKS[led])
        return hand & suit or hand
    side = hand & ((1 << 39) - 1)
    if info[InfoSlot.trick] == 0 or not info[InfoSlot.broken]:
        return side or hand
    return hand


def play(policy: str, hand: str, info: np.ndarray, seat: int, rand: int = 1) -> str:
    """The card a built-in play policy picks, as text."""
    mask = parse_hand(hand)
    vector = parse_policy(policy, "play").lower()
    card = nbp.builtin_play_nb(
        np.uint64(mask), np.uint64(legal_of(mask, info)), seat, info, RULES, vector,
        np.uint64(rand),
    )  # fmt: skip
    return "23456789TJQKA"[card % 13] + "CDHS"[card // 13]


def bid(policy: str, hand: str, info: np.ndarray, seat: int, rules: np.ndarray = RULES) -> int:
    vector = parse_policy(policy, "bid").lower()
    return int(
        nbp.builtin_bid_nb(np.uint64(parse_hand(hand)), seat, info, rules, vector, np.uint64(5))
    )


# --- What a policy may see ------------------------------------------------------------


def test_no_policy_reads_hidden_cards() -> None:
    """Two deals that differ only in cards other seats still hold give the same table
    state, so every policy decides the same: the policies get nothing else."""
    chunk = record_hands(4, seed=3, play="heuristic")
    dealt = [int(x) for x in chunk.plays["dealt"][0]]
    plays = [int(c) for c in chunk.plays["plays"][0]]
    first = (int(chunk.hands["dealer"][0]) + 1) % 4
    history = plays[:21]  # trick 5, first card played
    info_a, seat = table_info(history, first)
    held = [h & ~sum(1 << c for c in history) for h in dealt]
    # deal B: swap two unplayed cards of one suit between the two seats after `seat`
    x, y = (seat + 1) % 4, (seat + 2) % 4
    suit = next(
        s for s in range(4) if held[x] >> (13 * s) & 0x1FFF and held[y] >> (13 * s) & 0x1FFF
    )
    cx = next(c for c in range(13 * suit, 13 * suit + 13) if held[x] >> c & 1)
    cy = next(c for c in range(13 * suit, 13 * suit + 13) if held[y] >> c & 1)
    deal_b = list(dealt)
    deal_b[x] = deal_b[x] ^ (1 << cx) ^ (1 << cy)
    deal_b[y] = deal_b[y] ^ (1 << cx) ^ (1 << cy)
    assert deal_b != dealt
    info_b, seat_b = table_info(history, first)  # the plays are the same: nothing else enters
    assert seat_b == seat and np.array_equal(info_a, info_b)
    hand = held[seat]
    legal = legal_of(hand, info_a)
    for name in PLAY_POLICIES:
        vector = parse_policy(name, "play").lower()
        picks = {
            int(nbp.builtin_play_nb(np.uint64(hand), np.uint64(legal), seat, info, RULES,
                                    vector, np.uint64(9)))
            for info in (info_a, info_b)
        }  # fmt: skip
        assert len(picks) == 1 and legal >> picks.pop() & 1, name
    info0, _ = table_info([], first, bids=(-1, -1, -1, -1))
    for name in BID_POLICIES:
        vector = parse_policy(name, "bid").lower()
        decide = nbp.builtin_bid_nb
        picks = {
            int(decide(np.uint64(dealt[0]), 0, info0, RULES, vector, np.uint64(9))) for _ in "ab"
        }
        assert len(picks) == 1


def test_sampled_deals_respect_what_the_seat_knows() -> None:
    """The sampling policies deal the unseen cards: the other seats get as many cards as
    they hold, none the seat holds or has seen played, none of a suit they showed out of."""
    chunk = record_hands(6, seed=5, play="heuristic")
    checked_voids = 0
    fallbacks = 0
    for i in range(6):
        dealt = [int(x) for x in chunk.plays["dealt"][i]]
        plays = [int(c) for c in chunk.plays["plays"][i]]
        first = (int(chunk.hands["dealer"][i * 4]) + 1) % 4
        for d in (9, 22, 30, 41):
            info, seat = table_info(plays[:d], first)
            hand = dealt[seat] & ~sum(1 << c for c in plays[:d])
            out = np.zeros(4, dtype=np.uint64)
            for key in range(20):
                strict = rollout.sample_hands_nb(
                    np.uint64(hand), seat, info, RULES, np.uint64(key), out
                )
                fallbacks += not strict
                seen = hand | int(info[InfoSlot.played])
                total = hand
                for s in range(4):
                    if s == seat:
                        continue
                    h = int(out[s])
                    assert not h & seen and not h & total
                    total |= h
                    assert bin(h).count("1") == bin(dealt[s] & ~int(info[InfoSlot.played])).count(
                        "1"
                    )
                    for suit in range(4 if strict else 0):
                        if info[InfoSlot.voids + s] >> suit & 1:
                            checked_voids += 1
                            assert not h & int(SUIT_MASKS[suit])
                assert total | int(info[InfoSlot.played]) == (1 << 52) - 1
    assert checked_voids > 0
    assert fallbacks <= 5  # of 480 deals: voids are almost always honoured


def test_a_two_player_opponent_is_sampled_as_drawn() -> None:
    """Before any card is played, a two-player opponent's sampled hand is 13 unseen cards
    kept from the stock as the default draw keeps them (the top card when high enough,
    else the next): on average stronger than 13 cards at random, which is what made the
    sampling bidder overbid with two players."""
    rules = Rules.preset("two-player").lower()
    info, _ = table_info([], 1, bids=(-1, -1, -1, -1), players=2)
    hand = sum(1 << c for c in range(0, 52, 4))  # 13 cards, one of every rank
    out = np.zeros(4, dtype=np.uint64)
    high = 0
    for key in range(400):
        assert rollout.sample_hands_nb(np.uint64(hand), 0, info, rules, np.uint64(key), out)
        theirs = int(out[1])
        assert int(out[0]) == hand and not theirs & hand and bin(theirs).count("1") == 13
        assert not int(out[2]) and not int(out[3])
        high += sum(1 for c in range(52) if theirs >> c & 1 and (c >= 39 or c % 13 >= 9))
    # at random, 13 of the 39 unseen cards hold 13 * 19 / 39 = 6.3 spades and honours
    assert high / 400 > 7.5


# --- Legal decisions ------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["standard", "two-player", "jokers", "blind-nil-exchange"])
@pytest.mark.parametrize("policy", PLAY_POLICIES)
def test_every_play_is_legal(preset: str, policy: str) -> None:
    """The kernel checks every card a policy returns (an illegal one raises); the recorded
    plays also replay cleanly through the reference engine."""
    rules = Rules.preset(preset)
    n = 30 if policy.startswith("lookahead") else 150
    chunk = record_hands(n, seed=11, rules=rules, bidding="count", play=policy)
    players = rules.players
    for i in range(5):
        rows = slice(i * players, (i + 1) * players)
        held = [int(h) for h in chunk.hands["hand"][rows]]
        bids = [int(b) for b in chunk.hands["bid"][rows]]
        blind = [s for s in range(players) if chunk.hands["blind_nil"][rows][s]]
        plays = [int(c) for c in chunk.plays["plays"][i]]
        dealer = int(chunk.hands["dealer"][rows][0])
        result = reference.replay_hand(held, dealer, bids, plays, rules, blind_nil=blind)
        assert result.tricks == tuple(int(t) for t in chunk.hands["tricks"][rows])


@pytest.mark.parametrize("policy", BID_POLICIES)
def test_every_bid_is_in_range(policy: str) -> None:
    df = simulate_hands(100, seed=4, bidding=policy, play="heuristic")
    assert df.bid.between(0, 13).all()
    assert (df.nil == (df.bid == 0) & ~df.blind_nil).all()


# --- Parameters steer without recompiling ---------------------------------------------


def _signatures() -> tuple[int, ...]:
    return tuple(
        len(f.signatures)
        for f in (loop.hands_nb, rollout.lookahead_play_nb, rollout.monte_carlo_bid_nb)
    )


def test_parameters_change_behaviour_without_recompiling() -> None:
    simulate_hands(8, seed=1, bidding="monte-carlo:samples=1", play="lookahead:samples=1")
    before = _signatures()
    bids = [
        simulate_hands(300, seed=2, bidding=f"count:bias={b}", play="heuristic").bid.mean()
        for b in (-1, 0, 1)
    ]
    assert bids[0] < bids[1] < bids[2]
    tricks = [
        simulate_hands(300, seed=2, play=f"heuristic:bag_avoid={a}").tricks.to_numpy()
        for a in (0, 1)
    ]
    assert not np.array_equal(tricks[0], tricks[1])
    mc = [
        simulate_hands(40, seed=2, bidding=f"monte-carlo:samples=2,bag_cost={c}").bid.mean()
        for c in (0, 60)
    ]
    assert mc[0] < mc[1]  # a bag that costs more makes overtricks dearer: bid higher
    looks = [
        simulate_hands(20, seed=2, play=f"lookahead:samples={k}").score_change.to_numpy()
        for k in (1, 3)
    ]
    assert not np.array_equal(looks[0], looks[1])
    assert _signatures() == before


# --- Behaviours the documentation promises --------------------------------------------


def test_heuristic_follows_suit_by_position() -> None:
    # trick 1 (North led the AD and won); North leads the 5H, East is second hand
    opening = cards("AD 3D 4D 6D")
    info, seat = table_info([*opening, parse_card("5H")], first=0)
    assert seat == 1
    assert play("heuristic", "KH 9H 3H 2C 7S", info, 1) == "3H"  # second hand low
    assert play("heuristic", "AH 9H 3H 2C 7S", info, 1) == "AH"  # ... unless a sure winner
    # third hand high, but as cheaply as an equal card allows (K and Q are equals)
    info, seat = table_info([*opening, *cards("4H 6H")], first=0)
    assert seat == 2
    assert play("heuristic", "KH QH 8H 2H 3C", info, 2) == "QH"
    # fourth hand: win as cheaply as possible over an opponent, never over the partner
    info, seat = table_info([*opening, *cards("4H 9H 7H")], first=0)  # East (9H) winning
    assert seat == 3 and play("heuristic", "QH TH 2H 3C", info, 3) == "2H"  # West: partner
    info, seat = table_info([*opening, *cards("9H 4H 7H")], first=0)  # North winning
    assert play("heuristic", "QH TH 2H 3C", info, 3) == "TH"


def test_heuristic_ruffs_discards_and_ducks() -> None:
    opening = cards("AD 3D 4D 6D")
    info, _ = table_info([*opening, *cards("9H AH 7H")], first=0)  # East's AH wins; West void
    # the partner wins: discard from the weakest suit (diamonds, whose top card is the 5)
    assert play("heuristic", "KS 3S 5D 3D KC QC", info, 3) == "3D"
    info, _ = table_info([*opening, *cards("AH 4H 7H")], first=0)  # North (opponent) wins
    assert play("heuristic", "KS 3S 5D 3D KC QC", info, 3) == "3S"  # trump in cheaply
    # bag avoidance: E-W bid 1 + 1 and have two tricks: West ducks with its highest loser
    made = cards("AC 2C 3C 4C  5C KC 6C 7C")  # N wins trick 1, E wins trick 2 with the KC
    info, _ = table_info([*made, *cards("9H 4H TH")], first=0, bids=(4, 1, 4, 1))
    info[InfoSlot.tricks_won + 3] = 1  # West has one too: the side has made its two
    assert play("heuristic", "KH JH 8H 2H", info, 3) == "8H"
    assert play("heuristic:bag_avoid=0", "KH JH 8H 2H", info, 3) == "JH"


def test_heuristic_trumps_as_cheaply_as_the_trump_rules_let_it() -> None:
    # North won trick 1 and leads the 9H; West, void in hearts, holds KS 3S 5D 3D KC
    opening = cards("AD 3D 4D 6D")
    hand = "KS 3S 5D 3D KC"
    cases = [
        ("standard", "9H AH 7H", "3D"),  # East (partner) wins: discard
        ("must-trump", "9H AH 7H", "3S"),  # ... obliged to trump: the lowest spade
        ("must-trump", "9H 4H 9S", "KS"),  # South (opponent) ruffed: overruff to win
        ("must-trump", "9H 9S 4H", "3S"),  # East ruffed: a low spade under the partner's
        ("must-overtrump", "9H 9S 4H", "KS"),  # ... unless it must beat it
    ]
    for preset, trick, want in cases:
        rules = Rules.preset(preset)
        info, seat = table_info([*opening, *cards(trick)], first=0)
        mask = parse_hand(hand)
        legal = reference.legal_cards(mask, cards(trick), True, False, rules)
        card = nbp.builtin_play_nb(
            np.uint64(mask), np.uint64(legal), seat, info, rules.lower(),
            parse_policy("heuristic", "play").lower(), np.uint64(1),
        )  # fmt: skip
        assert seat == 3 and "23456789TJQKA"[card % 13] + "CDHS"[card // 13] == want, preset


def test_heuristic_nil_play() -> None:
    opening = cards("AD 3D 4D 6D")
    nil_east = (3, 0, 3, 3), (0, 1, 0, 0)
    # the nil bidder plays its highest card that still loses, and sheds danger when void
    info, seat = table_info(
        [*opening, parse_card("JH")], first=0, bids=nil_east[0], nils=nil_east[1]
    )
    assert seat == 1 and play("heuristic", "QH TH 3H AC", info, 1) == "TH"
    assert play("heuristic", "AC 2C KD 5S", info, 1) == "AC"
    # its partner (West) overtakes it as cheaply as possible once it has played
    info, seat = table_info([*opening, *cards("2H 5H 4H")], first=0, bids=nil_east[0],
                            nils=nil_east[1])  # fmt: skip
    assert seat == 3 and play("heuristic", "KH 7H 6H", info, 3) == "6H"
    # the opponents lead low into the nil, in a suit it still holds (it showed out of D)
    info, seat = table_info(cards("AD 3C 4D 6D"), first=0, bids=nil_east[0], nils=nil_east[1])
    assert seat == 0 and play("heuristic", "AH 9H 4H KC 7C 5D", info, 0) == "4H"
    # ...and play low in front of it
    info2, _ = table_info([*opening, *cards("KH 2H")], first=0, bids=(3, 3, 3, 0),
                          nils=(0, 0, 0, 1))  # fmt: skip
    assert play("heuristic", "AH QH 5H", info2, 2) == "5H"


def test_partner_cover_sets_the_bar_high() -> None:
    # North bid nil; South leads: high, to let North play under
    info, seat = table_info(cards("AD 3D 4D 6D  5C 7C KC 9C"), first=0, bids=(0, 3, 3, 3),
                            nils=(1, 0, 0, 0))  # fmt: skip
    assert seat == 2 and play("heuristic", "AH 4H 9C 3D", info, 2) == "AH"


def nil_position(
    policy: str,
    hand: str,
    seat: int,
    trick: str,
    leader: int,
    played: str = "",
    voids: str = "",
    need: int = -99,
    remaining: int = 8,
    nil_seat: int = 1,
    nil_out: int = 0,
) -> tuple[str, str]:
    """The card the scalar heuristic (``heuristic_core_nb``) and its lock-step twin
    (``heuristic_lane_nb``) pick, as text, for ``seat`` holding ``hand`` (every card
    legal) in a four-player partnership hand where ``nil_seat`` has a live nil: ``trick``
    the cards of the current trick so far (``leader`` led it), ``played`` the cards of
    earlier tricks, ``voids`` the known voids as "seat:suits" words ("3:H"), ``need`` the
    tricks the seat's side still needs (-99: no contract) with ``remaining`` tricks left,
    ``nil_out`` the cards the nil bidder's plays show it lacks (``read_play_nb``). Each
    maxim is checked on both copies: they could share one mistake."""
    params = parse_policy(policy, "play").lower()
    mask = np.uint64(parse_hand(hand))
    now = cards(trick) if trick else []
    gone = (parse_hand(played) if played else 0) | sum(1 << c for c in now)
    unseen = np.uint64(((1 << 52) - 1) & ~int(mask) & ~gone)
    win_card, win_seat = -1, -1
    for j, c in enumerate(now):
        trumps = c >= 39 and win_card < 39
        if win_card < 0 or trumps or (c // 13 == win_card // 13 and c > win_card):
            win_card, win_seat = c, (leader + j) % 4
    void_bits = 0
    for word in voids.split():
        who, suits = word.split(":")
        for suit in suits:
            void_bits |= 1 << (4 * int(who) + "CDHS".index(suit))
    n_in = len(now)
    led = now[0] // 13 if now else -1
    table = (
        leader, led, win_card, win_seat, unseen, 1 << nil_seat, void_bits, need, -99,
        remaining, heuristic_settings_nb(params),
        tuple(np.uint64(nil_out if s == nil_seat else 0) for s in range(4)),
    )  # fmt: skip
    scalar = heuristic_core_nb(mask, mask, seat, 4, True, n_in, *table)
    lane = heuristic_lane_nb(mask, mask, seat, 4, n_in, n_in == 0, True, *table)
    return tuple("23456789TJQKA"[c % 13] + "CDHS"[c // 13] for c in (scalar, lane))


def test_nil_defence_maxims_decide_the_card() -> None:
    """East (seat 1) bid nil; North and South defend, West covers."""
    base = {"nil_shed": 1, "nil_pull": 8, "nil_lead": 1, "nil_spare": 1}

    def row(**changes: int) -> str:
        # a parameter is given once: the changes replace the base's values
        return "heuristic:" + ",".join(f"{k}={v}" for k, v in {**base, **changes}.items())

    on = row()
    # never over the nil: South, last, plays the highest heart under East's 9H
    assert nil_position(on, "KH 8H 2H 5C", 2, "3H 9H", 0, need=3) == ("8H", "8H")
    # shed: North, void in hearts before the nil plays, throws its highest side card
    # that is not a sure trick (the KC, the AC being out) and keeps the low ones
    hand, trick = "KC 9C 3C 8D 2D 4S", "5H"
    assert nil_position(on, hand, 0, trick, 3, need=3) == ("KC", "KC")
    assert nil_position(row(nil_shed=0), hand, 0, trick, 3, need=3) == ("2D", "2D")
    # ...and once the nil has played under West's ace, South follows with its highest
    # heart that is not a sure trick (the KH is out), keeping the 2H as ammunition
    hand, trick = "QH 8H 2H 5C", "AH 3H 9H"
    assert nil_position(on, hand, 2, trick, 3, need=3) == ("QH", "QH")
    assert nil_position(row(nil_shed=0), hand, 2, trick, 3, need=3) == ("2H", "2H")
    # pull: once spades are out, North leads its low spade into the nil
    played = "AD 3D 4D 6D  2S 5S 6S KD"
    hand = "2H 3S 9S KC"
    assert nil_position(on, hand, 0, "", 0, played, need=3) == ("3S", "3S")
    assert nil_position(row(nil_pull=0), hand, 0, "", 0, played, need=3) == ("2H", "2H")
    # ...but never a high spade the nil bidder could shed its own under (it is void in
    # hearts and clubs, so the QS is North's only card of a suit it holds)
    hand, voids = "QS 2H 3C", "1:HC"
    assert nil_position(on, hand, 0, "", 0, played, voids, need=3) == ("2H", "2H")
    assert nil_position(row(nil_pull=0), hand, 0, "", 0, played, voids, 3) == ("QS", "QS")
    # lead: not a suit the nil's partner (West) has shown out of: it would ruff
    hand, voids = "2H 5C 9D", "3:H"
    assert nil_position(on, hand, 0, "", 0, played, voids, need=3) == ("5C", "5C")
    assert nil_position(row(nil_lead=0), hand, 0, "", 0, played, voids, 3) == ("2H", "2H")
    # spare: with every remaining trick needed, North cashes for its bid instead of
    # leading low into the nil
    hand = "2H AC KC"
    assert nil_position(on, hand, 0, "", 0, played, need=3, remaining=3) == ("KC", "KC")
    assert nil_position(on, hand, 0, "", 0, played, need=2, remaining=3) == ("2H", "2H")
    off = row(nil_spare=0)
    assert nil_position(off, hand, 0, "", 0, played, need=3, remaining=3) == ("2H", "2H")
    # under: West led the KH; North, before the nil, throws its highest heart under the
    # king that is not a sure trick (the AH is out) and keeps the 2H for a later lead
    hand, trick = "QH 8H 2H 5C", "KH"
    assert nil_position(row(nil_under=1), hand, 0, trick, 3, need=3) == ("QH", "QH")
    assert nil_position(row(nil_under=0), hand, 0, trick, 3, need=3) == ("2H", "2H")
    # long: North leads low from its longest suit the nil holds, not its lowest card
    hand = "2H 5D 7D 9D 3C"
    assert nil_position(row(nil_long=1), hand, 0, "", 0, played, need=3) == ("5D", "5D")
    assert nil_position(row(nil_long=0), hand, 0, "", 0, played, need=3) == ("2H", "2H")
    # escape: with the 2H-5H played, North's 6H is the lowest heart left and the nil
    # bidder cannot duck under it; under the 4D it could duck with the 2D or the 3D
    hand, gone = "6H 4D 9C", "2H 3H 4H 5H"
    assert nil_position(row(nil_escape=1), hand, 0, "", 0, gone, need=3) == ("6H", "6H")
    assert nil_position(row(nil_escape=0), hand, 0, "", 0, gone, need=3) == ("4D", "4D")
    # read: the nil bidder ducked the 3D under North's 9D, so it holds none of the 4D-8D
    # (a nil ducks with the highest card that still loses); of the unseen diamonds below
    # North's 7D only the 2D can be its, against the 2H and 3H below the 4H
    out = read_play_nb(parse_card("3D"), 1, parse_card("9D"), False, False, False)
    assert int(out) == parse_hand("4D 5D 6D 7D 8D")
    hand, gone = "7D 4H KC", "9D 3D 5D 6D"
    read = row(nil_escape=1, nil_read=1)
    unread = row(nil_escape=1, nil_read=0)
    assert nil_position(read, hand, 0, "", 0, gone, need=3, nil_out=int(out)) == ("7D", "7D")
    assert nil_position(unread, hand, 0, "", 0, gone, need=3, nil_out=int(out)) == ("4H", "4H")
    # ducked under the AD instead, with the 2D gone, it has no diamond left: a void, not
    # a suit to lead
    out = read_play_nb(parse_card("3D"), 1, parse_card("AD"), False, False, False)
    assert int(out) == parse_hand("4D 5D 6D 7D 8D 9D TD JD QD KD")
    hand, gone = "7D 5H KC", "AD 3D 5D 6D 2D"
    assert nil_position(read, hand, 0, "", 0, gone, need=3, nil_out=int(out)) == ("5H", "5H")
    assert nil_position(unread, hand, 0, "", 0, gone, need=3, nil_out=int(out)) == ("7D", "7D")
    # a suit where it can hold nothing above the lead comes last: it ducked the 9H under
    # the AH, so its hearts are all below North's TH, which it would duck
    out = read_play_nb(parse_card("9H"), 2, parse_card("AH"), False, False, False)
    assert int(out) == parse_hand("TH JH QH KH")
    hand, gone = "TH 4D KC", "AH 9H 4H 5H 2H 3H 6H 7H"
    assert nil_position(read, hand, 0, "", 0, gone, need=3, nil_out=int(out)) == ("4D", "4D")
    assert nil_position(unread, hand, 0, "", 0, gone, need=3, nil_out=int(out)) == ("TH", "TH")
    # the same read from the table's history, on the scalar path: North led the 9D, East
    # (nil) ducked the 3D
    plays = cards("9D 3D 5D 6D")
    info, seat = table_info(plays, 0, bids=(3, 0, 3, 3), nils=(0, 1, 0, 0))
    assert seat == 0
    assert play("heuristic:nil_read=1", "7D 4H KC", info, 0) == "7D"
    assert play("heuristic:nil_read=0", "7D 4H KC", info, 0) == "4H"


def naive_duck(legal: int, last: bool, led: int, win_card: int) -> int:
    """Plain Python of the nil bidder's follow (``duck_nb``, not leading): the card of
    highest rank that still loses; every card winning, the highest when last, else the
    lowest (a later card may still overtake)."""
    beats = legal & naive.above(win_card) & (naive.suit_mask(led) | naive.suit_mask(3))
    loses = legal & ~beats
    if loses:
        return naive.high_rank_card(loses)
    return naive.highest_card(legal) if last else naive.lowest_card(legal)


@pytest.mark.parametrize("preset", ["standard", "must-trump", "must-overtrump"])
def test_a_nil_read_rules_out_no_card_a_ducking_nil_could_hold(preset: str) -> None:
    """Brute force over the tricks a nil bidder follows to, last and not last, under and
    over the winner, following, ruffing and discarding: whenever ``read_play_nb`` says
    playing card c shows the bidder does not hold X, the plain-Python duck holding just
    c and X does not play c. Two cards are enough: adding cards to a hand never makes the
    duck choose c over X (it takes the top of one order among the cards that lose, or of
    the cards that win). A nil that plays over the winner last takes the trick with its
    highest card, so it shows nothing between the winner and it."""
    rules = Rules.preset(preset)
    must_trump, must_over = rules.must_trump, rules.must_overtrump
    tricks = ["9D", "9D 4D 2D", "9D 5S", "9D 5S 3D", "7S", "7S 2S 3S", "9D 2C 5D", "QS 4S"]
    for trick in tricks:
        now = cards(trick)
        led, last = now[0] // 13, len(now) == 3
        win = max(now, key=lambda c: (c >= 39, c // 13 == led, c))
        gone = sum(1 << c for c in now)
        free = [c for c in range(52) if not gone >> c & 1]
        for c in free:
            out = int(read_play_nb(c, led, win, last, must_trump, must_over))
            assert not out & (1 << c)
            for x in free:
                if x == c or not out >> x & 1:
                    continue
                hand = (1 << c) | (1 << x)
                legal = naive.legal_cards(hand, led, True, 1, False, False, must_trump,
                                          must_over, win)  # fmt: skip
                where = (preset, trick, c, x)
                assert not legal >> c & 1 or naive_duck(legal, last, led, win) != c, where


def test_a_nil_bidder_over_the_winner_shows_what_it_lacks_only_when_not_last() -> None:
    """Not last, a nil that goes over the winner plays its lowest winner (a later card may
    still overtake it): none of the suit below the winner, none between the winner and
    it. Last, it takes the trick with its highest card: only the cards below the winner
    are ruled out. Ruffing, the same with every side card ruled out (it had none to lose
    with)."""

    def out(card: str, trick: str) -> int:
        now = cards(trick)
        led = now[0] // 13
        win = max(now, key=lambda c: (c >= 39, c // 13 == led, c))
        last = len(now) == 3
        return int(read_play_nb(parse_card(card), led, win, last, False, False))

    diamonds_below_nine = parse_hand("2D 3D 4D 5D 6D 7D 8D")
    assert out("KD", "9D") == diamonds_below_nine | parse_hand("TD JD QD")
    assert out("KD", "9D 4D 2D") == diamonds_below_nine
    side = sum(1 << c for c in range(39))
    spades_below_five = parse_hand("2S 3S 4S")
    assert out("8S", "9D 5S") == side | spades_below_five | parse_hand("6S 7S")
    assert out("8S", "9D 5S 3D") == side | spades_below_five


def naive_reads(plays: list[int], first: int, rules: Rules) -> list[int]:
    """Per seat, what its plays show it lacks (``read_play_nb`` on each card it followed
    with), the trick's winning card so far found by ``naive.trick_winner``."""
    outs, leader = [0, 0, 0, 0], first
    for t in range(0, len(plays), 4):
        seq = [(leader, plays[t])]
        for j, card in enumerate(plays[t + 1 : t + 4], start=1):
            seat, win = (leader + j) % 4, dict(seq)[naive.trick_winner(seq)]
            read = read_play_nb(card, plays[t] // 13, win, j == 3, rules.must_trump,
                                rules.must_overtrump)  # fmt: skip
            outs[seat] |= int(read)
            seq.append((seat, card))
        if len(seq) == 4:
            leader = naive.trick_winner(seq)
    return outs


@pytest.mark.parametrize("preset", ["standard", "must-trump", "must-overtrump"])
def test_the_nil_reads_of_a_hand_replayed_follow_every_ruff(preset: str) -> None:
    """``read_plays_nb`` replays the table's history and reads each play against the
    trick's winning card so far: on random hands of random legal play (many tricks
    ruffed, overruffed and discarded on), its masks are the plain replay's at every
    point of the hand."""
    rules = Rules.preset(preset)
    lowered = rules.lower()
    rng = np.random.default_rng(47)
    ruffs = 0
    for _ in range(40):
        order = rng.permutation(52)
        hands = [sum(1 << int(c) for c in order[13 * s : 13 * s + 13]) for s in range(4)]
        first = int(rng.integers(4))
        plays: list[int] = []
        leader, broken = first, False
        for trick in range(13):
            seq: list[tuple[int, int]] = []
            for j in range(4):
                seat = (leader + j) % 4
                led = seq[0][1] // 13 if seq else -1
                win = dict(seq)[naive.trick_winner(seq)] if seq else -1
                legal = naive.legal_cards(hands[seat], led, broken, trick, False, False,
                                          rules.must_trump, rules.must_overtrump, win)  # fmt: skip
                card = int(rng.choice(naive.cards(legal)))
                ruffs += led not in (-1, 3) and card >= 39
                hands[seat] &= ~(1 << card)
                broken |= card >= 39
                seq.append((seat, card))
                plays.append(card)
                info, _ = table_info(plays, first)
                got = [int(m) for m in read_plays_nb(info, lowered, 4)]
                assert got == naive_reads(plays, first, rules), (preset, plays)
            leader = naive.trick_winner(seq)
    assert ruffs > 40


def test_a_nil_read_after_a_ruff_decides_the_lead() -> None:
    """East (seat 1) bid nil. West led the 9D, North ruffed, East followed with the KD:
    under the ruff every diamond loses, so East ducked with its highest and shows only
    that it lacks the AD. South, on lead after winning the hearts, leads its 2D into the
    nil. Read against the 9D instead (the ruff not taken as the winner), the KD would be
    over the winner, played low: East would hold no diamond but the AD, which South
    holds, a void to avoid, and South would lead a heart."""
    plays = cards("9D 5S KD 3D  4H QH AH 3H")
    info, seat = table_info(plays, 3, bids=(3, 0, 3, 3), nils=(0, 1, 0, 0))
    assert seat == 2
    outs = [int(m) for m in read_plays_nb(info, RULES, 4)]
    assert outs == naive_reads(plays, 3, Rules())
    assert outs[1] & parse_hand("2D 4D 5D 6D 7D 8D TD JD QD AD") == parse_hand("AD")
    on = "heuristic:nil_shed=1,nil_pull=8,nil_lead=1,nil_spare=1,nil_escape=1,nil_read=1"
    assert play(on, "6D 7H TD QS 9H 6C 2D JS AD JD 8C", info, 2) == "2D"


def test_nil_cover_decides_the_card() -> None:
    """East (seat 1) bid nil; West (seat 3) covers it."""
    played = "AD 3D 4D 6D  2S 5S 6S KD"
    # draw the nil's spades with a spade no one beats, the cheapest of equals (the KS)
    assert nil_position("heuristic", "AS KS 4S 8H 9C", 3, "", 3, played) == ("KS", "KS")
    # ...not once the nil bidder has shown out of spades: then the highest card
    got = nil_position("heuristic", "AS KS 4S 8H 9C", 3, "", 3, played, "1:S")
    assert got == ("AS", "AS")
    # no spade to lead: a side card no one beats, again the cheapest of equals
    assert nil_position("heuristic", "AH QH 4C 7D", 3, "", 3, f"{played} KH") == ("QH", "QH")
    # before the nil bidder plays, set the bar high but cheaply: the KD is as good as the AD
    assert nil_position("heuristic", "AD KD 3D 2C", 3, "5D", 2, "QD") == ("KD", "KD")


def test_lookahead_is_deterministic_and_keeps_clear_choices() -> None:
    """The same decision with the same ``rand`` gives the same card; a choice the
    play-outs cannot improve on by ``margin`` stays the heuristic's."""
    info, _ = table_info([*cards("AD 3D 4D 6D"), parse_card("5H")], first=0)
    picks = {play("lookahead:samples=4", "KH 9H 3H 2C 7S", info, 1, rand=7) for _ in range(2)}
    assert len(picks) == 1
    info, _ = table_info([*cards("AD 3D 4D 6D"), *cards("9H 4H 7H")], first=0)
    assert play("lookahead:samples=4,margin=100", "QH TH 2H 3C", info, 3) == "TH"


def test_bidding_reads_the_table() -> None:
    strong = "AKQ4.AK3.A52.K76"
    info, _ = table_info([], 0, bids=(-1, -1, -1, -1))
    assert bid("count", strong, info, 0) >= 7 and bid("pagat", strong, info, 0) >= 7
    low = "2.8532.7642.5432"
    assert bid("count", low, info, 0) == 0  # nil with partner yet to bid
    info_p, _ = table_info([], 0, bids=(-1, 3, 1, -1))  # South (partner) bid 1
    assert bid("count", low, info_p, 0) >= 1  # partner too weak to cover
    assert bid("count:nil_partner_min=1", low, info_p, 0) == 0
    middling = "KJ75.Q73.K85.J64"
    base, _ = table_info([], 0, bids=(-1, -1, -1, -1))
    covered, _ = table_info([], 0, bids=(-1, -1, 0, -1), nils=(0, 0, 1, 0))
    aware = "partner-aware:nil_cover_bonus=2"
    assert bid(aware, middling, covered, 0) > bid(aware, middling, base, 0)
    near, _ = table_info([], 0, bids=(-1, -1, -1, -1), scores=(450, 200))
    assert bid("partner-aware", middling, near, 0) <= bid("partner-aware", middling, base, 0)


def test_two_player_bidding_has_no_partner() -> None:
    two = Rules.preset("two-player")
    four_bids = simulate_hands(300, seed=5, bidding="count", play="heuristic").bid
    two_df = simulate_hands(300, seed=5, rules=two, bidding="count", play="heuristic")
    assert two_df.bid.mean() > 1.6 * four_bids.mean()  # 13 two-card tricks, no partner
    assert (two_df.side_contract == two_df.bid).all()
    info, _ = table_info([], 0, bids=(-1, -1, -1, -1), players=2)
    assert bid("count", "AKQ4.AK3.A52.K76", info, 0, two.lower()) >= 6


def test_two_player_draw_plans_for_strength_or_nil() -> None:
    keep = exchange.keep_drawn_card_nb
    plan = Policy.of("plan", "draw").lower()
    held = np.uint64(parse_hand("2C 3C 2D"))
    assert keep(np.uint64(0), parse_card("AS"), 0, False, plan)  # strong: a top spade
    assert not keep(np.uint64(0), parse_card("4C"), 0, False, plan)
    assert keep(held, parse_card("3D"), 4, False, plan)  # low so far: now drawing for nil
    assert not keep(held, parse_card("KH"), 4, False, plan)
    assert keep(held, parse_card("KH"), 2, False, plan)  # before commit_after: strength
    assert not keep(np.uint64(0), parse_card("QH"), 0, True, plan)  # blind nil: low only
    two = Rules.preset("two-player")
    spades = {
        d: simulate_hands(300, seed=6, rules=two, draw=d).spades.mean()
        for d in ("threshold:spade_rank=0", "threshold:spade_rank=15")
    }
    assert spades["threshold:spade_rank=0"] > spades["threshold:spade_rank=15"] + 1


def test_blind_nil_only_when_rules_and_score_allow() -> None:
    """Blind nil needs the rule on and, with ``blind_nil_min_deficit``, the side behind by
    that much; the counting bidders add their own deficit and bag conditions."""
    policy = "count:blind_nil_deficit=60,blind_nil_max_bags=9,blind_nil_partner_min=0"
    rules = Rules(blind_nil_min_deficit=120, target=300)
    hands, _ = simulate_games(60, seed=8, rules=rules, bidding=policy, play="heuristic")
    sides = hands[hands.seat < 2].pivot_table(
        index=["game", "hand_no"], columns="side", values="score_before"
    )
    blind = hands[hands.blind_nil]
    assert len(blind) > 0
    for row in blind.itertuples():
        mine = sides.loc[(row.game, row.hand_no), row.side]
        theirs = sides.loc[(row.game, row.hand_no), 1 - row.side]
        assert theirs - mine >= 120
        assert row.bags_before <= 9
    off, _ = simulate_games(30, seed=8, rules=Rules(blind_nil=False, target=300), bidding=policy)
    assert not off.blind_nil.any()
    assert not simulate_hands(300, seed=8, bidding=policy).blind_nil.any()  # never behind


def test_exchange_passes_danger_and_low_cards() -> None:
    hand = np.uint64(parse_hand("AS KS 4S AH 9H 2H 3D 2C"))
    give = exchange.pass_cards_nb(hand, 3, True)
    assert int(give) == parse_hand("AS KS 4S")  # any spade is a danger to a nil
    take = exchange.pass_cards_nb(hand, 3, False)
    assert int(take) == parse_hand("2C 3D 2H")


# --- The lock-step heuristic -----------------------------------------------------------


@pytest.mark.parametrize(
    "rules",
    [Rules.preset(name) for name in ("standard", "two-player", "jokers", "openspiel")]
    + [Rules(first_lead="two_of_clubs"), Rules(spades_lead="any_time")]
    + [Rules.preset("must-trump", players=2), Rules.preset("must-overtrump", jokers=True)],
    ids=[
        "standard", "two-player", "jokers", "openspiel", "two-of-clubs", "spades-any-time",
        "must-trump-two-player", "must-overtrump-jokers",
    ],
)  # fmt: skip
@pytest.mark.parametrize(
    "play",
    [
        ("heuristic", "heuristic"),
        ("heuristic", "heuristic:bag_avoid=0,second_hand_trump=1,cash_masters=0"),
        ("heuristic:nil_escape=1,nil_pull=6", "heuristic:nil_escape=1,nil_long=1,nil_under=0"),
        ("heuristic:nil_read=1", "heuristic:nil_read=1,nil_pull=6,nil_long=1"),
    ],
    ids=["defaults", "one-side-changed", "nil-maxims", "nil-read"],
)
def test_lockstep_heuristic_plays_like_the_scalar_path(rules: Rules, play: tuple[str, str]) -> None:
    """``play_heuristic_lockstep_nb`` (branch-free, for SIMD kernels) takes exactly the
    tricks the scalar kernel's ``heuristic`` takes, per side parameters and nils included;
    both sides at the defaults run its copy with the defaults as constants."""
    bidding = "random:nil_rate=0.2,blind_nil_rate=0.05,max_bid=5"
    players = rules.players
    chunk = record_hands(LANES, seed=41, rules=rules, bidding=bidding, play=play)
    h = chunk.hands
    st = np.zeros(N_HEURISTIC_FIELDS * LANES, dtype=np.uint64)
    for b in range(LANES):
        rows = slice(b * players, (b + 1) * players)
        for s in range(players):
            st[(LockstepField.hand + s) * LANES + b] = h["hand"][rows][s]
            st[(HeuristicField.bids + s) * LANES + b] = h["bid"][rows][s]
            st[(HeuristicField.nils + s) * LANES + b] = h["nil"][rows][s] or h["blind_nil"][rows][s]
        dealer = int(h["dealer"][rows][0])
        leader = (dealer + 1) % 4 if players == 4 else 1 - dealer
        if rules.first_lead == "two_of_clubs":
            leader = next(s for s in range(players) if int(h["hand"][rows][s]) & 1)
        st[LockstepField.leader * LANES + b] = leader
    play_heuristic_lockstep_nb(
        st, players, rules.first_lead == "two_of_clubs", rules.spades_lead == "any_time",
        rules.must_trump, rules.must_overtrump, rules.jokers, rules.nil_tricks_count_for_partner,
        parse_policy(play[0], "play").lower(), parse_policy(play[1], "play").lower(),
    )  # fmt: skip
    tricks = np.array(
        [
            st[(LockstepField.tricks + s) * LANES : (LockstepField.tricks + s + 1) * LANES]
            for s in range(players)
        ]
    )
    assert np.array_equal(tricks.T.ravel(), h["tricks"])


def test_the_defaults_lane_body_types_no_maxim_the_defaults_switch_off() -> None:
    """With the settings None (the defaults' copy of the loops) Numba drops the guarded
    maxims the registry defaults leave off before typing them (a first run's compile),
    and keeps every one that is on; given settings, the lane body types them all."""
    lane = njit(heuristic_lane_nb.py_func)  # uncached: its typed IR is kept
    u, i, b = nbtypes.uint64, nbtypes.int64, nbtypes.boolean
    head = (u, u, i, i, i, b, b, i, i, i, i, u, i, i, i, i, i)
    typed = {}
    for given in (nbtypes.none, typeof(HEURISTIC_DEFAULT_SETTINGS)):
        sig = (*head, given, nbtypes.UniTuple(u, 4))
        lane.compile(sig)
        typemap = lane.overloads[sig].type_annotation.typemap
        typed[given] = {name.split(".")[0] for name in typemap}
    # a variable only each guarded maxim computes, and whether the defaults switch it on
    guarded = {
        "long_rank": NIL_LONG_BY_DEFAULT,
        "pulling": NIL_PULL_BY_DEFAULT,
        "read_voids": NIL_READ_BY_DEFAULT,
    }
    on = heuristic_settings(HEURISTIC_DEFAULTS)
    assert guarded == {
        "long_rank": bool(on.flags & HeuristicFlag.nil_long),
        "pulling": on.nil_pull > 0,
        "read_voids": bool(on.flags & HeuristicFlag.nil_read),
    }
    for name, at_defaults in guarded.items():
        assert name in typed[typeof(HEURISTIC_DEFAULT_SETTINGS)], name
        assert (name in typed[nbtypes.none]) == at_defaults, name


# --- Registry, parameters, README -----------------------------------------------------


def test_registry_lists_every_policy_with_source() -> None:
    names = {(s.kind, s.name) for s in describe()}
    for kind, name in [("bid", "count"), ("bid", "pagat"), ("bid", "partner-aware"),
                       ("bid", "monte-carlo"), ("play", "random"), ("play", "heuristic"),
                       ("play", "lookahead"), ("draw", "plan")]:  # fmt: skip
        assert (kind, name) in names
    for spec in describe():
        assert spec.summary and spec.source
        assert len(spec.params) <= PARAM_SLOTS - 1  # slot 0 holds the id
        for p in spec.params:
            assert p.low <= p.default <= p.high and p.help


def test_kernel_slots_match_the_registry() -> None:
    # name for name, both ways: every registered policy's parameters are its kernel slots
    # in order, and every kernel slot table belongs to a registered policy
    registered = {(s.kind, s.name): s for s in describe()}
    assert set(registered) == set(PARAMS_BY_POLICY)
    for key, spec in registered.items():
        slots = PARAMS_BY_POLICY[key]
        for k, param in enumerate(spec.params):
            assert getattr(slots, param.name) == k + 1, (key, param.name)
        assert len(slots) == len(spec.params)
    shared = ("count", "pagat", "partner-aware", "monte-carlo", "advise")
    for name in shared:  # the slots the bidders share (BidParam) are the same in each
        slots = PARAMS_BY_POLICY[("bid", name)]
        assert all(getattr(slots, f) == getattr(BidParam, f) for f in BidParam._fields)
    assert CountParam.king_value == PagatParam.queen_value == OWN_SLOT
    assert HeuristicParam._fields == LookaheadParam._fields[: len(HeuristicParam)]
    assert np.array_equal(Policy.of("count", "bid").lower(), COUNT_DEFAULTS)
    assert np.array_equal(Policy.of("pagat", "bid").lower(), PAGAT_DEFAULTS)
    assert np.array_equal(Policy.of("partner-aware", "bid").lower(), PARTNER_DEFAULTS)
    assert np.array_equal(Policy.of("heuristic", "play").lower(), HEURISTIC_DEFAULTS)
    assert np.array_equal(Policy.of("lookahead", "play").lower(), LOOKAHEAD_DEFAULTS)
    assert np.array_equal(Policy.of("threshold", "draw").lower(), THRESHOLD_DEFAULTS)


def test_heuristic_settings_are_the_table_s_numbers_and_switches() -> None:
    """One side's ``HeuristicSettings`` as the kernels build them from a parameter row
    (``heuristic_settings_nb``): a field per numeric setting of the table, each read from
    its own slot, and the switches' bits; the same as the plain-Python builder, whose
    value at the registry defaults is the lock-step heuristic's folded constant."""
    numbers = [p.name for p in PLAY_COMMON if p.values != "switch"]
    switches = [p.name for p in PLAY_COMMON if p.values == "switch"]
    assert HeuristicSettings._fields == ("flags", *numbers)
    rng = np.random.default_rng(7)
    n = len(PLAY_COMMON)
    for _ in range(30):
        row = HEURISTIC_DEFAULTS.copy()
        row[1 : n + 1] = rng.choice([0.0, 1.0, 2.5, 7.0, 13.0], size=n)
        # as a run passes it (a row of its parameter matrix) and as a strided view
        for view in (np.stack([row, row * 0])[0], np.repeat(row, 2)[::2]):
            got = heuristic_settings_nb(view)
            assert got == heuristic_settings(row)
            for name in numbers:
                assert getattr(got, name) == row[getattr(HeuristicParam, name)], name
            for name in switches:
                on = row[getattr(HeuristicParam, name)] > 0
                assert bool(got.flags & getattr(HeuristicFlag, name)) == on, name
    assert heuristic_settings_nb(HEURISTIC_DEFAULTS) == HEURISTIC_DEFAULT_SETTINGS


def test_named_ids_match_the_registry() -> None:
    ids = {"bid": BidPolicy, "play": PlayPolicy, "draw": DrawPolicy}
    for spec in describe():
        assert getattr(ids[spec.kind], spec.name.replace("-", "_")) == spec.policy_id


def test_switches_and_settings_take_only_their_values() -> None:
    # a switch read as "non-zero is on", a setting or a count read as a whole number:
    # another value would silently act as one of theirs
    for kind, text, message in [
        ("play", "heuristic:nil_read=0.0001", "nil_read=0.0001 is a switch: 0 or 1"),
        ("play", "lookahead:read_bids=0.5", "read_bids=0.5 is a switch: 0 or 1"),
        ("play", "pimc:read_bids=0.5", "read_bids=0.5 is a switch: 0 or 1"),
        ("play", "lookahead:assume=1.5", "assume=1.5 is one of 0, 1, 2, 3"),
        ("play", "heuristic:set_push=2.9", "set_push=2.9 is a whole number, 0..13"),
        ("bid", "monte-carlo:objective=0.5", "objective=0.5 is one of 0, 1"),
        ("play", "heuristic:nil_read=1,nil_read=0", "parameter nil_read is given twice"),
    ]:
        with pytest.raises(ValueError, match=re.escape(message)):
            parse_policy(text, kind)  # type: ignore[arg-type]
    assert parse_policy("lookahead:assume=2,read_bids=0", "play").params["assume"] == 2
    # every on/off parameter is marked a switch (its meaning says what 1 does)
    for spec in describe():
        for p in spec.params:
            if p.help.startswith("1:") and (p.low, p.high) == (0, 1):
                assert p.values == "switch", (spec.name, p.name)


def test_the_policies_page_shows_the_registry() -> None:
    text = (ROOT / "docs" / "policies.md").read_text()
    match = re.search(r"<!-- policies:start -->\n(.*)<!-- policies:end -->", text, re.S)
    assert match and match.group(1).strip() == markdown().strip()


# --- Strength, briefly (the benchmark measures it properly) ----------------------------


def test_duplicate_pairs_the_same_deals() -> None:
    same = duplicate("heuristic", "heuristic", 200, seed=3)
    assert np.all(same.paired == 0)  # identical play on identical deals, sides swapped
    strong = duplicate("heuristic", "random", 300, seed=3)
    assert strong.margin.low > 20
    # the nil figures, counted by hand from the two seatings' rows
    made = nils = failed = against = 0
    for a_side, play in ((0, ("heuristic", "random")), (1, ("random", "heuristic"))):
        rows = simulate_hands(300, seed=3, bidding="count", play=play)
        for side, nil, blind, nil_made in zip(
            rows.side, rows.nil, rows.blind_nil, rows.nil_made, strict=True
        ):
            if not (nil or blind):
                continue
            if side == a_side:
                made, nils = made + bool(nil_made), nils + 1
            else:
                failed, against = failed + (not nil_made), against + 1
    assert strong.nils_made is not None and strong.nils_set is not None
    assert (strong.nils_made.n, strong.nils_set.n) == (nils, against) and nils > 50
    assert strong.nils_made.value == pytest.approx(made / nils)
    assert strong.nils_set.value == pytest.approx(failed / against)
    assert strong.nils_made.value > 0.5 and strong.nils_set.value > 0.5  # random plays badly


def test_nils_mostly_succeed_and_bids_are_near_the_tricks() -> None:
    df = simulate_hands(3000, seed=9, bidding="count", play="heuristic")
    assert estimate_of(nil_success(df), "success_rate").low > 0.5
    assert estimate_of(bid_accuracy(df), "abs_difference").high < 2.0


def test_interval_helpers() -> None:
    e = proportion_ci(50, 100)
    assert e.low == pytest.approx(0.4038, abs=1e-4) and e.high == pytest.approx(0.5962, abs=1e-4)
    x = np.random.default_rng(0).normal(3.0, 2.0, 10_000)
    assert mean_ci(x).contains(3.0)
    assert mean_ci(pd.Series(x)).n == 10_000
