"""Hand-worked hands for every preset, through both engines' replay_hand and score_hand.

Each expected figure is worked out in the comments from docs/rules.md; the same numbers must
come out of the kernel-backed API (``spades_sim.hand``) and of the reference engine.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

from spades_sim import hand as kernel_api
from spades_sim import reference
from spades_sim._nb.enums import RuleField
from spades_sim._nb.play import legal_cards_nb
from spades_sim.cards import card_suit, format_hand, parse_card, parse_hand
from spades_sim.errors import IllegalPlay
from spades_sim.rules import Rules

ENGINES = [kernel_api, reference]
RANKS = "AKQJT98765432"
FOUR_PLAYER = ("standard", "no-bags", "blind-nil-exchange", "mercy", "openspiel")

# Deal A: N all spades, E all hearts, S all diamonds, W all clubs. West deals, so North
# leads (it holds only spades, so a spade lead is allowed at once) and wins every trick:
# nobody else can follow or trump.
DEAL_A = ["AKQJT98765432...", ".AKQJT98765432..", "..AKQJT98765432.", "...AKQJT98765432"]
PLAYS_A = [rank + suit for rank in RANKS for suit in "SHDC"]

# Deal B: N holds KS..2S and the AD; S holds the AS and KD..2D (E hearts, W clubs).
# Trick 1: N may not lead a spade while it holds the AD: AD, AH, 2D, AC; N wins.
# Trick 2: N now holds only spades and leads KS; E KH; S must follow with the AS, wins; W KC.
# Trick 3: S leads KD; W QC; N (no diamonds) trumps with QS and wins; E QH.
# Tricks 4-13: N leads JS..2S and the others discard; N wins. N 12 tricks, S 1.
DEAL_B = ["KQJT98765432..A.", ".AKQJT98765432..", "A..KQJT98765432.", "...AKQJT98765432"]
PLAYS_B = ["AD", "AH", "2D", "AC", "KS", "KH", "AS", "KC", "KD", "QC", "QS", "QH"] + [
    card
    for s, h, d, c in zip("JT98765432", "JT98765432", "QJT9876543", "JT98765432", strict=True)
    for card in (s + "S", h + "H", d + "D", c + "C")
]

# Deal J (jokers): N holds BJ LJ AS..4S; E the 3S and AH..3H (no 2H in this deck); S the
# 2S and AD..3D (no 2D); W all clubs. N leads BJ (only spades): E and S must follow with
# their spade, W discards AC; then N leads LJ, AS ... 4S and wins every trick.
DEAL_J = ["BJLJAKQJT987654...", "3.AKQJT9876543..", "2..AKQJT9876543.", "...AKQJT98765432"]
PLAYS_J = ["BJ", "3S", "2S", "AC"] + [
    card
    for s, h, d, c in zip(
        ["LJ"] + [r + "S" for r in "AKQJT987654"],
        "AKQJT9876543",
        "AKQJT9876543",
        "KQJT98765432",
        strict=True,
    )
    for card in (s, h + "H", d + "D", c + "C")
]

# Deal D (jokers, deuces high): the 2D is a spade ranking just below the Little Joker, the 2S
# just below it; no 2C or 2H. N holds BJ, 2D and AS..4S (13 spades); E the LJ and AH..3H; S
# the 2S and AD..3D; W the 3S and AC..3C. West deals; N holds only spades, so it may lead
# one. Trick 1: N leads the 2D, a spade, so E, S and W must follow with their one spade:
# LJ, 2S, 3S; the LJ beats the 2D, which beats the 2S: E wins. Trick 2: E leads AH; S and W
# cannot follow and discard AD, AC; N trumps with the 4S and wins. Trick 3: N leads BJ,
# the others discard kings. Tricks 4-13: N leads AS..5S and wins them. N 12, E 1.
DEAL_D = ["BJAKQJT987654..2.", "LJ.AKQJT9876543..", "2..AKQJT9876543.", "3...AKQJT9876543"]
PLAYS_D = ["2D", "LJ", "2S", "3S", "AH", "AD", "AC", "4S", "BJ", "KH", "KD", "KC"] + [
    card
    for s, h, d, c in zip("AKQJT98765", "QJT9876543", "QJT9876543", "QJT9876543", strict=True)
    for card in (s + "S", h + "H", d + "D", c + "C")
]

# Deal T (two players): P0 all spades, P1 all hearts, the rest unused. P0 drew first, so
# P1 leads: AH; P0 cannot follow and trumps with the 2S. P0 then leads AS..3S while P1
# follows with KH..2H: P0 wins all 13 tricks.
DEAL_T = ["AKQJT98765432...", ".AKQJT98765432.."]
PLAYS_T = ["AH", "2S"] + [
    card for s, h in zip("AKQJT9876543", "KQJT98765432", strict=True) for card in (s + "S", h + "H")
]


def replay(engine: ModuleType, deal, plays, bids, rules, **kw):
    dealer = 0 if rules.players == 2 else "W"
    return engine.replay_hand(deal, dealer, bids, plays, rules, **kw)


@pytest.mark.parametrize("engine", ENGINES, ids=["kernel", "reference"])
@pytest.mark.parametrize("preset", FOUR_PLAYER)
def test_north_takes_all_13(engine: ModuleType, preset: str) -> None:
    rules = Rules.preset(preset)
    # Bids N 5, E nil, S nil, W 2; N wins all 13 tricks.
    # N-S: contract 5 made with 13 tricks: 50 + 8 bags; S's nil made +100 -> 158.
    # E-W: W's 2 is set -20; E's nil made +100 -> 80.
    r = replay(engine, DEAL_A, PLAYS_A, (5, 0, 0, 2), rules)
    assert r.trick_winners == (0,) * 13 and r.tricks == (13, 0, 0, 0)
    assert r.contracts == (5, 2) and r.made == (True, False)
    assert r.score_change == (158, 80) and r.bags_change == (8, 0)
    assert r.nil_made == (None, True, True, None) and r.boston == (True, False)
    # Carrying 7 bags (scores 300 and 100): 7 + 8 = 15 bags reach the limit once:
    # -100 and 5 bags left, so N-S gain 58 (no-bags: no penalty, 15 bags kept, +158).
    before = {"scores_before": (300, 100), "bags_before": (7, 0)}
    r = replay(engine, DEAL_A, PLAYS_A, (5, 0, 0, 2), rules, **before)
    if rules.bag_penalty:
        assert r.score_change == (58, 80) and r.bags_after == (5, 0)
        assert r.bag_penalties == (100, 0) and r.scores_after == (358, 180)
    else:
        assert r.score_change == (158, 80) and r.bags_after == (15, 0)
        assert r.bag_penalties == (0, 0) and r.scores_after == (458, 180)


@pytest.mark.parametrize("engine", ENGINES, ids=["kernel", "reference"])
@pytest.mark.parametrize("preset", FOUR_PLAYER)
def test_south_nil_fails_by_one_trick(engine: ModuleType, preset: str) -> None:
    rules = Rules.preset(preset)
    r = replay(engine, DEAL_B, PLAYS_B, (5, 0, 0, 2), rules)
    assert r.trick_winners == (0, 2) + (0,) * 11 and r.tricks == (12, 0, 1, 0)
    if rules.nil_tricks_count_for_partner:
        # OpenSpiel: S's trick counts for N: 13 on a contract of 5, 50 + 8 bags; the
        # nil fails -100: -42, 8 bags.
        assert r.side_tricks == (13, 0)
    else:
        # N's 12 tricks make the 5: 50 + 7 bags; the nil fails -100; S's trick is a
        # bag and a point: 57 - 100 + 1 = -42, 8 bags.
        assert r.side_tricks == (12, 0)
    assert r.score_change == (-42, 80) and r.bags_change == (8, 0)
    assert r.nil_made == (None, True, False, None)


@pytest.mark.parametrize("engine", ENGINES, ids=["kernel", "reference"])
@pytest.mark.parametrize("preset", FOUR_PLAYER)
def test_blind_nil(engine: ModuleType, preset: str) -> None:
    rules = Rules.preset(preset)
    if not rules.blind_nil:  # openspiel: no blind nil at all
        with pytest.raises(ValueError, match="blind_nil"):
            replay(engine, DEAL_A, PLAYS_A, (5, 0, 0, 2), rules, blind_nil=("E",))
        return
    # E's nil is blind: made, +200; W set -20: E-W +180.
    r = replay(engine, DEAL_A, PLAYS_A, (5, 0, 0, 2), rules, blind_nil=("E",))
    assert r.score_change == (158, 180)


@pytest.mark.parametrize("engine", ENGINES, ids=["kernel", "reference"])
def test_jokers_big_joker_leads_and_wins(engine: ModuleType) -> None:
    rules = Rules.preset("jokers")
    r = replay(engine, DEAL_J, PLAYS_J, (5, 0, 0, 2), rules)
    # BJ beats the 3S and 2S; N wins all 13 tricks: the same score as deal A.
    assert r.tricks == (13, 0, 0, 0) and r.score_change == (158, 80)
    # The 2H is not in the jokers deck: a deal holding it is a misdeal.
    with pytest.raises(ValueError, match="2H"):
        replay(engine, DEAL_A, PLAYS_A, (5, 0, 0, 2), rules)


@pytest.mark.parametrize("engine", ENGINES, ids=["kernel", "reference"])
def test_deuces_high_the_2d_is_a_spade_below_the_jokers(engine: ModuleType) -> None:
    rules = Rules.preset("jokers-deuces")
    r = replay(engine, DEAL_D, PLAYS_D, (4, 1, 0, 2), rules)
    assert r.trick_winners[:3] == (1, 0, 0) and r.tricks == (12, 1, 0, 0)
    # N-S bid 4 (S nil) and took 12: 40 + 8 bags, and the nil made: 100. E-W bid 3, took
    # 1: set, -30.
    assert r.score_change == (148, -30) and r.nil_made == (None, None, True, None)
    # E may not answer the 2D lead with a heart while holding the LJ: the 2D is a spade.
    revoke = ["2D", "AH", *PLAYS_D[2:]]
    with pytest.raises(IllegalPlay, match=r"AH does not follow spades \(E holds LJ\)"):
        replay(engine, DEAL_D, revoke, (4, 1, 0, 2), rules)
    # The 2C and 2H are not in this pack.
    with pytest.raises(ValueError, match="2C is not in the jokers-and-deuces deck"):
        replay(engine, DEAL_J, PLAYS_J, (4, 1, 0, 2), rules)


def test_deuces_high_trump_order_and_pack() -> None:
    rules = Rules.preset("jokers-deuces")
    # BJ > LJ > 2D > 2S > AS > ... > 3S; the 2D is a spade, so it trumps a diamond lead.
    assert reference.trick_winner(["AS", "2S", "KS", "QS"], rules) == 1
    assert reference.trick_winner(["2S", "2D", "AS", "3S"], rules) == 1
    assert reference.trick_winner(["2D", "LJ", "BJ", "AS"], rules) == 2
    assert reference.trick_winner(["AD", "KD", "2D", "QD"], rules) == 2
    assert reference.trick_winner(["AD", "KD", "2D", "QD"]) == 0  # the 2D is a diamond
    # the kernels' legal cards: a void in diamonds with the 2D holds a spade
    hand = parse_hand("2D AS 5H", deuces_high=True)
    assert format_hand(hand, deuces_high=True) == "A.5.2."
    assert card_suit(parse_card("2D", deuces_high=True)) == 3
    deck = Rules.preset("jokers-deuces")
    assert deck.lower()[RuleField.jokers] == 2


def test_deuces_high_fields_are_checked() -> None:
    with pytest.raises(ValueError, match=r"^deuces_high: needs jokers"):
        Rules(deuces_high=True)
    with pytest.raises(
        ValueError, match=r"^first_lead: 'two_of_clubs' is refused with deuces_high"
    ):
        Rules(jokers=True, deuces_high=True, first_lead="two_of_clubs")


@pytest.mark.parametrize("engine", ENGINES, ids=["kernel", "reference"])
def test_two_players_lone_scores(engine: ModuleType) -> None:
    rules = Rules.preset("two-player")
    # P0 bid 10 and took all 13: 100 + 3 bags; P1's nil made +100.
    r = replay(engine, DEAL_T, PLAYS_T, (10, 0), rules)
    assert r.tricks == (13, 0) and r.trick_winners == (0,) * 13
    assert r.score_change == (103, 100) and r.bags_change == (3, 0)
    assert r.nil_made == (None, True) and r.boston == (True, False)
    score = engine.score_hand((10, 0), (13, 0), rules, blind_nil=(1,))
    assert score.score_change == (103, 200)  # the nil was blind: +200


@pytest.mark.parametrize("engine", ENGINES, ids=["kernel", "reference"])
def test_mercy_rule_ends_the_game(engine: ModuleType) -> None:
    # A hand that takes E-W from -150 to -230: at or below -200, E-W lose at once.
    rules = Rules.preset("mercy")
    score = engine.score_hand((5, 4, 3, 4), (6, 2, 3, 2), rules, scores_before=(0, -150))
    # N-S: 9 tricks on 8, made: 80 + 1 bag = 81. E-W: 4 on 8, set: -80 -> -230.
    assert score.scores_after == (81, -230)
    assert reference.game_result(score.scores_after, 1, rules) == (0, "loss_threshold")


@pytest.mark.parametrize("engine", ENGINES, ids=["kernel", "reference"])
def test_ten_for_two_hundred(engine: ModuleType) -> None:
    rules = Rules.preset("ten-for-200")
    # Deal A: N bids 10, S 1 (contract 11, at least 10: doubled); E nil, W 2. N takes all
    # 13: 11 x 20 = 220 + 2 bags = 222, a Boston. E-W: W's 2 set -20, E's nil +100: 80.
    r = replay(engine, DEAL_A, PLAYS_A, (10, 0, 1, 2), rules)
    assert r.contracts == (11, 2) and r.made == (True, False)
    assert r.score_change == (222, 80) and r.bags_change == (2, 0)
    # The same bids set: N-S bid 10 + 1 and take 9 (10 x 11 doubled: -220); E-W bid 2 + 2
    # and take 4: 40, no bags. A contract of 9 is not big: 90 + 0 bags on 9 tricks.
    s = engine.score_hand((10, 2, 1, 2), (5, 2, 4, 2), rules)
    assert s.score_change == (-220, 40) and s.bags_change == (0, 0)
    s = engine.score_hand((5, 2, 4, 2), (5, 2, 4, 2), rules)
    assert s.score_change == (90, 40)
    # A nil beside a big bid is scored as usual: N 10 made with 11 tricks (200 + 1 bag),
    # S's nil fails with 1 trick (-100, and its trick a bag and a point): 102, 2 bags.
    # E-W: E's 1 made exactly, 10; W's nil made, 100: 110.
    s = engine.score_hand((10, 1, 0, 0), (11, 1, 1, 0), rules)
    assert s.score_change == (102, 110) and s.bags_change == (2, 0)
    # A triple multiplier from 8 tricks: N-S 4 + 4 made exactly, 8 x 30 = 240; E-W's
    # contract of 2 is not big: 20 + 3 bags on 5 tricks.
    triple = Rules(big_bid_threshold=8, big_bid_multiplier=3)
    assert engine.score_hand((4, 1, 4, 1), (4, 2, 4, 3), triple).score_change == (240, 23)


def test_big_bid_fields_are_checked() -> None:
    with pytest.raises(ValueError, match=r"^big_bid_multiplier: must stay 2 while"):
        Rules(big_bid_multiplier=3)
    with pytest.raises(ValueError, match=r"^big_bid_threshold: must be 1..26"):
        Rules(big_bid_threshold=27)
    with pytest.raises(ValueError, match=r"^big_bid_multiplier: must be 1..10"):
        Rules(big_bid_threshold=10, big_bid_multiplier=0)


@pytest.mark.parametrize("engine", ENGINES, ids=["kernel", "reference"])
def test_mirror_bids_are_the_spades_held(engine: ModuleType) -> None:
    rules = Rules.preset("mirror")
    # Deal A: N holds all 13 spades and must bid 13, the others (no spades) nil. N takes
    # every trick: N-S 13 made, 130, and S's nil +100: 230. E-W: two nils made, 200.
    r = replay(engine, DEAL_A, PLAYS_A, (13, 0, 0, 0), rules)
    assert r.score_change == (230, 200) and r.contracts == (13, 0)
    assert r.nil_made == (None, True, True, True) and r.made == (True, None)
    # Deal B: N holds 12 spades, S the AS: bids 12 and 1, E and W nil. N 12 tricks and S
    # 1: N-S 13 on 13, 130; E-W's nils made, 200.
    r = replay(engine, DEAL_B, PLAYS_B, (12, 0, 1, 0), rules)
    assert r.tricks == (12, 0, 1, 0) and r.score_change == (130, 200)
    # Any other bid is refused, naming the seat and its spades.
    with pytest.raises(ValueError, match=r"^bids: seat N bid 5 but holds 13 spades; under "):
        replay(engine, DEAL_A, PLAYS_A, (5, 0, 0, 2), rules)
    with pytest.raises(ValueError, match=r"^bids: seat S bid 0 but holds 1 spades; "):
        replay(engine, DEAL_B, PLAYS_B, (12, 0, 0, 1), rules)
    # Without the hands (score_hand) the four bids must add up to the pack's spades.
    assert engine.score_hand((3, 4, 2, 4), (4, 4, 2, 3), rules).score_change == (51, -80)
    with pytest.raises(ValueError, match=r"add up to the pack's 13 spades, not 12$"):
        engine.score_hand((3, 4, 2, 3), (4, 4, 2, 3), rules)
    jokers = rules.replace(jokers=True)  # 15 spades with the jokers
    with pytest.raises(ValueError, match=r"add up to the pack's 15 spades, not 13$"):
        engine.score_hand((3, 4, 2, 4), (4, 4, 2, 3), jokers)
    assert engine.score_hand((4, 4, 3, 4), (4, 5, 3, 1), jokers).made == (True, False)
    two = rules.replace(players=2)  # two players hold some of the spades
    assert engine.score_hand((4, 5), (6, 7), two).score_change == (42, 52)
    with pytest.raises(ValueError, match=r"add up to at most the pack's 13 spades, not 14$"):
        engine.score_hand((9, 5), (6, 7), two)


def test_mirror_refuses_blind_nil() -> None:
    with pytest.raises(ValueError, match=r"^bid_rule: 'mirror' is refused with blind_nil"):
        Rules(bid_rule="mirror")
    with pytest.raises(ValueError, match=r"^bid_rule: must be one of \('free', 'mirror', 'whiz'"):
        Rules(bid_rule="bridge", blind_nil=False)


@pytest.mark.parametrize("engine", ENGINES, ids=["kernel", "reference"])
def test_whiz_bids_are_nil_or_the_spades_held(engine: ModuleType) -> None:
    rules = Rules.preset("whiz")
    # Deal A: N (13 spades) bids 13, the others hold no spades and can only bid nil: the
    # mirror figures, 230 and 200.
    assert replay(engine, DEAL_A, PLAYS_A, (13, 0, 0, 0), rules).score_change == (230, 200)
    # N may bid nil instead, and takes all 13 tricks: N's nil -100, S's +100, the 13
    # tricks 13 bags and 13 points: 13; the bags reach the limit once, -100, 3 left: -87.
    r = replay(engine, DEAL_A, PLAYS_A, (0, 0, 0, 0), rules)
    assert r.score_change == (-87, 200) and r.bags_after == (3, 0) and r.made == (None, None)
    # Deal B: N bids its 12 spades, S (the AS) nil, and the AS takes trick 2: N 12 on 12,
    # 120; S's nil -100 and its trick a bag and a point: 21, 1 bag. E-W: 200.
    r = replay(engine, DEAL_B, PLAYS_B, (12, 0, 0, 0), rules)
    assert r.score_change == (21, 200) and r.bags_change == (1, 0)
    with pytest.raises(ValueError, match=r"^bids: seat N bid 5 but holds 13 spades; under "
                       r"bid_rule 'whiz' each seat bids nil or exactly its spades$"):  # fmt: skip
        replay(engine, DEAL_A, PLAYS_A, (5, 0, 0, 0), rules)
    # Without the hands, the number bids are spades of different players: at most 13.
    # N-S 5 on 6 tricks: 51. E-W: W's 4 on 6, 42; E's nil fails, -100, its trick +1: -57.
    assert engine.score_hand((3, 0, 2, 4), (4, 1, 2, 6), rules).score_change == (51, -57)
    with pytest.raises(ValueError, match=r"at most the pack's 13 spades, not 14$"):
        engine.score_hand((13, 0, 1, 0), (4, 4, 2, 3), rules)


@pytest.mark.parametrize("engine", ENGINES, ids=["kernel", "reference"])
def test_suicide_one_nil_in_each_partnership(engine: ModuleType) -> None:
    rules = Rules.preset("suicide")
    # Deal A: N bids 13 and S nil; E nil and W 4. N takes every trick: N-S 130 + 100 =
    # 230; E-W: W's 4 set, -40, E's nil +100: 60.
    r = replay(engine, DEAL_A, PLAYS_A, (13, 0, 0, 4), rules)
    assert r.score_change == (230, 60) and r.nil_made == (None, True, True, None)
    # The nil may be either partner's: N nil and S 5, E 4 and W nil. N takes all 13: S's
    # 5 is set (no counted trick), -50; N's nil -100; its 13 tricks are bags, +13,
    # reaching the limit once, -100: -237, 3 bags. E-W: E's 4 set -40, W's nil +100: 60.
    r = replay(engine, DEAL_A, PLAYS_A, (0, 4, 5, 0), rules)
    assert r.score_change == (-237, 60) and r.bags_after == (3, 0)
    refused = [
        ((5, 0, 0, 2), "E-W bid 0 and 2"),
        ((5, 0, 2, 4), "N-S bid 5 and 2"),
        ((0, 0, 0, 4), "N-S bid 0 and 0"),
        ((5, 4, 4, 0), "N-S bid 5 and 4"),
    ]
    for bids, side in refused:
        with pytest.raises(ValueError, match=f"^bids: side {side}; under bid_rule 'suicide' one "):
            replay(engine, DEAL_A, PLAYS_A, bids, rules)
        with pytest.raises(ValueError, match=f"^bids: side {side}; "):
            engine.score_hand(bids, (13, 0, 0, 0), rules)


def test_suicide_needs_four_players() -> None:
    with pytest.raises(ValueError, match=r"^bid_rule: 'suicide' needs four players"):
        Rules(bid_rule="suicide", blind_nil=False, players=2)


@pytest.mark.parametrize("engine", ENGINES, ids=["kernel", "reference"])
def test_minimum_bids(engine: ModuleType) -> None:
    rules = Rules.preset("minimum-bids")  # 4 a side, the last bidder raised
    # Deal A: N 3 and S 1 (4), E nil and W 4. N takes every trick: N-S 4 made with 13,
    # 40 + 9 bags = 49. E-W: W's 4 set, -40; E's nil +100: 60.
    r = replay(engine, DEAL_A, PLAYS_A, (3, 0, 1, 4), rules)
    assert r.score_change == (49, 60) and r.bags_change == (9, 0)
    for bids, side in (((5, 0, 0, 2), "E-W bid 0 and 2"), ((2, 4, 1, 0), "N-S bid 2 and 1")):
        with pytest.raises(ValueError, match=f"^bids: side {side}; a side bids at least 4 "
                           r"between its partners \(min_side_bid\)$"):  # fmt: skip
            replay(engine, DEAL_A, PLAYS_A, bids, rules)
        with pytest.raises(ValueError, match=f"^bids: side {side}; "):
            engine.score_hand(bids, (13, 0, 0, 0), rules)
    # With the nil exemption a side with a nil needs no minimum: E nil and W 2 stand. N-S
    # 5 made with 13, 58, S's nil +100: 158. E-W: W's 2 set -20, E's nil +100: 80.
    exempt = rules.replace(min_side_bid_shortfall="nil_exempt", blind_nil=True)
    assert replay(engine, DEAL_A, PLAYS_A, (5, 0, 0, 2), exempt).score_change == (158, 80)
    with pytest.raises(ValueError, match=r"^bids: side N-S bid 2 and 1; .*, unless one of "):
        replay(engine, DEAL_A, PLAYS_A, (2, 4, 1, 0), exempt)
    # A least number bid of 2: a 1 is refused, a nil is not (N's nil fails with 1 trick,
    # -100 + 1, S's 4 made, 40: -59; E-W 8 made: 80).
    two = Rules(min_number_bid=2)
    with pytest.raises(ValueError, match=r"^bids: seat N bid 1; a number bid is at least 2 "):
        engine.score_hand((1, 3, 4, 5), (1, 3, 4, 5), two)
    assert engine.score_hand((0, 3, 4, 5), (1, 3, 4, 5), two).score_change == (-59, 80)


def test_minimum_bid_fields_are_checked() -> None:
    refused = [
        ({"min_side_bid": 4}, r"^min_side_bid: with min_side_bid_shortfall 'raise' a side's "),
        ({"min_side_bid": 4, "blind_nil": False, "players": 2}, r"^min_side_bid: needs four "),
        ({"bid_rule": "whiz", "blind_nil": False, "min_number_bid": 2}, r"^min_number_bid: must "),
        ({"min_side_bid_shortfall": "nil_exempt"}, r"^min_side_bid_shortfall: must stay 'raise'"),
        ({"min_side_bid": 14}, r"^min_side_bid: must be 0..13"),
        ({"min_number_bid": 0}, r"^min_number_bid: must be 1..13"),
    ]
    for fields, message in refused:
        with pytest.raises(ValueError, match=message):
            Rules(**fields)


def test_nil_passing_exchange_is_checked() -> None:
    rules = Rules.preset("nil-passing")  # 2 cards each way after a seen nil
    # Deal A: N bids nil and S 4. N passes its AS KS, S its two lowest, 3D 2D.
    held = ["QJT98765432..32.", DEAL_A[1], "AK..AKQJT987654.", DEAL_A[3]]
    reference.check_blind_nil_exchange(DEAL_A, held, (0, 3, 4, 3), [], rules)
    # Only a seen nil beside a partner's number passes: not two nils, not a blind nil.
    for bids, blind in (((0, 3, 0, 3), []), ((0, 3, 4, 3), [0])):
        with pytest.raises(ValueError, match=r"^seat N: hand changed, but no nil or blind nil "):
            reference.check_blind_nil_exchange(DEAL_A, held, bids, blind, rules)
    three = ["JT98765432..432.", DEAL_A[1], "AKQ..AKQJT98765.", DEAL_A[3]]
    with pytest.raises(ValueError, match=r"^seat N: passed 3 cards to S in the nil exchange, "):
        reference.check_blind_nil_exchange(DEAL_A, three, (0, 3, 4, 3), [], rules)


def test_nil_exchange_fields_are_checked() -> None:
    with pytest.raises(ValueError, match=r"^nil_exchange: must be 0..3 cards"):
        Rules(nil_exchange=4)
    with pytest.raises(ValueError, match=r"^nil_exchange: needs four players"):
        Rules(nil_exchange=2, players=2)
    with pytest.raises(ValueError, match=r"^nil_exchange: must be 0 under bid_rule 'mirror'"):
        Rules(nil_exchange=2, bid_rule="mirror", blind_nil=False)


# Deal X (the trump rules): N all hearts; E 9S 5S 3S and AC..5C; S QS 2S and AD..4D;
# W AS KS JS TS 8S 7S 6S 4S, 3D 2D, 4C 3C 2C. West deals, North leads the AH: every
# other seat is void in hearts and holds spades, so each must trump (must_trump).
DEAL_X = [".AKQJT98765432..", "953...AKQJT98765", "Q2..AKQJT987654.", "AKJT8764..32.432"]
# Under must_overtrump (so also under must_trump alone):
# T1: AH; E trumps 3S (no spade to beat yet); S must beat it: QS (not 2S); W must beat
#     the QS: AS. W wins and spades are broken.
# T2: W leads KS; N KH; E cannot beat the KS: any spade, 5S; S 2S. W wins.
# T3: W leads JS; N QH; E 9S (still cannot beat); S has no spade left: AD. W wins.
# T4-T8: W leads TS 8S 7S 6S 4S; N discards hearts, E clubs, S diamonds. W wins.
# T9: W leads 4C; N 6H; E 9C wins. T10-T13: E leads 8C 7C 6C 5C and wins each.
PLAYS_X = (
    ["AH", "3S", "QS", "AS", "KS", "KH", "5S", "2S", "JS", "QH", "9S", "AD"]
    + [
        card
        for w, n, e, s in zip(
            ["TS", "8S", "7S", "6S", "4S", "4C"],
            "JT9876",
            ["AC", "KC", "QC", "JC", "TC", "9C"],
            "KQJT98",
            strict=True,
        )
        for card in (w, n + "H", e, s + "D")
    ]
    + [
        "8C",
        "7D",
        "3C",
        "5H",
        "7C",
        "6D",
        "2C",
        "4H",
        "6C",
        "5D",
        "3D",
        "3H",
        "5C",
        "4D",
        "2D",
        "2H",
    ]
)


def _replaced(plays: list[str], changes: dict[int, str]) -> list[str]:
    """``plays`` with the cards at some positions replaced (the first illegal one stops the
    replay, so what follows it need not be legal)."""
    return [changes.get(i, card) for i, card in enumerate(plays)]


@pytest.mark.parametrize("engine", ENGINES, ids=["kernel", "reference"])
@pytest.mark.parametrize("preset", ["must-trump", "must-overtrump"])
def test_trump_rules_deal_x(engine: ModuleType, preset: str) -> None:
    rules = Rules.preset(preset)
    # Bids N nil, E 4, S nil, W 8: W takes T1-T8, E T9-T13. E-W 12 made with 13: 120 + 1
    # bag = 121; both nils made: N-S +200.
    r = replay(engine, DEAL_X, PLAYS_X, (0, 4, 0, 8), rules)
    assert r.trick_winners == (3,) * 8 + (1,) * 5 and r.tricks == (0, 5, 0, 8)
    assert r.score_change == (200, 121) and r.bags_change == (0, 1)
    # E discards the 5C on the AH while holding spades: refused (the standard game allows it).
    with pytest.raises(IllegalPlay) as refused:
        replay(engine, DEAL_X, _replaced(PLAYS_X, {1: "5C"}), (0, 4, 0, 8), rules)
    assert str(refused.value) == (
        "trick 1, seat E: E must trump: holds spades and cannot follow hearts "
        "(5C played, E holds 3S)"
    )
    with pytest.raises(IllegalPlay, match=r"^trick (?!1,)"):  # E's 3S must follow later
        replay(engine, DEAL_X, _replaced(PLAYS_X, {1: "5C"}), (0, 4, 0, 8), Rules())
    # S plays the 2S under E's 3S while holding the QS; W the 4S under the QS.
    underruffs = {
        2: "trick 1, seat S: S must overtrump the 3S: holds a higher spade (2S played, S holds QS)",
        3: "trick 1, seat W: W must overtrump the QS: holds a higher spade (4S played, W holds KS)",
    }
    for position, message in underruffs.items():
        plays = _replaced(PLAYS_X, {position: "2S" if position == 2 else "4S"})
        if rules.must_overtrump:
            with pytest.raises(IllegalPlay) as refused:
                replay(engine, DEAL_X, plays, (0, 4, 0, 8), rules)
            assert str(refused.value) == message
        else:  # must_trump alone: any spade will do; the replay fails later, not here
            with pytest.raises(IllegalPlay, match=r"^trick (?!1,)"):
                replay(engine, DEAL_X, plays, (0, 4, 0, 8), rules)
    # Spades led: E trumps T1 with the 9S (S QS, W AS); W leads the 4S at T2 and E, holding
    # the 5S and 3S, must beat it: the 3S is refused under must_overtrump.
    plays = _replaced(PLAYS_X, {1: "9S", 4: "4S", 6: "3S"})
    if rules.must_overtrump:
        with pytest.raises(IllegalPlay) as refused:
            replay(engine, DEAL_X, plays, (0, 4, 0, 8), rules)
        assert str(refused.value) == (
            "trick 2, seat E: E must overtrump the 4S: holds a higher spade (3S played, E holds 5S)"
        )
    else:
        with pytest.raises(IllegalPlay, match=r"^trick (?![12],)"):
            replay(engine, DEAL_X, plays, (0, 4, 0, 8), rules)


def _kernel_legal(hand: str, trick: list[str], rules: Rules, broken: bool) -> str:
    """The kernels' legal cards (``_nb.play.legal_cards_nb``) for a later trick."""
    ids = [parse_card(card) for card in trick]
    led = card_suit(ids[0]) if ids else -1
    win = ids[reference.trick_winner(ids)] if ids else -1
    lowered = rules.lower()
    legal = legal_cards_nb(
        np.uint64(parse_hand(hand)), np.int64(led), broken, np.int64(4),
        bool(lowered[RuleField.first_lead_two_clubs]), bool(lowered[RuleField.spades_any_time]),
        bool(lowered[RuleField.must_trump]), bool(lowered[RuleField.must_overtrump]),
        np.int64(win),
    )  # fmt: skip
    return format_hand(int(legal))


# (hand, trick so far, legal cards) under must_trump, must_overtrump, each with jokers
TRUMP_CASES = {
    "must-trump": [
        ("AK.Q9..2", ["3D"], "AK..."),  # void in diamonds: a spade
        (".Q9..2", ["3D"], ".Q9..2"),  # no spade: anything
        ("AK.Q9..2", ["3H"], ".Q9.."),  # can follow: follows
        ("Q3.K..2", ["3D", "9S"], "Q3..."),  # any spade, under the 9S too
        ("Q3.K..2", ["9S"], "Q3..."),  # spades led: any spade
        ("AK.Q9..2", [], "AK.Q9..2"),  # leading is unchanged (spades broken)
    ],
    "must-overtrump": [
        ("Q3.K..2", ["3D", "9S"], "Q..."),  # the QS beats the 9S: it must be played
        ("83.K..2", ["3D", "9S"], "83..."),  # cannot beat it: any spade (still must trump)
        (".K..2", ["3D", "9S"], ".K..2"),  # no spade: anything
        ("Q3.K..2", ["3D"], "Q3..."),  # no spade in the trick yet: any spade
        ("Q3.K..", ["3H", "9S"], ".K.."),  # can follow hearts: follows, spade or no spade
        ("Q3.K..", ["9S", "JS"], "Q..."),  # spades led: beat the highest spade, the JS
        ("Q3.K..", ["4S", "KS"], "Q3..."),  # cannot beat the KS: any spade
        ("Q3.K..", ["KS", "4S"], "Q3..."),  # the KS is the highest, wherever it lies
    ],
    "must-trump-jokers": [
        ("LJ.K..2", ["3D"], "LJ..."),  # a joker is a trump
        ("BJ3.K..2", ["3D", "AS"], "BJ3..."),
    ],
    "must-overtrump-jokers": [
        ("BJ3.K..2", ["3D", "AS"], "BJ..."),  # the Big Joker beats the AS
        ("LJ3.K..2", ["3D", "BJ"], "LJ3..."),  # nothing beats the Big Joker
        ("BJ3...", ["LJ"], "BJ..."),  # a joker lead is a spade lead
        ("LJA...", ["3D", "KS"], "LJA..."),  # both beat the KS
    ],
}


@pytest.mark.parametrize("case", TRUMP_CASES)
def test_trump_rules_legal_cards(case: str) -> None:
    rules = Rules.preset(case.removesuffix("-jokers"), jokers=case.endswith("-jokers"))
    for hand, trick, want in TRUMP_CASES[case]:
        ids = [parse_card(card) for card in trick]
        got = format_hand(reference.legal_cards(parse_hand(hand), ids, True, False, rules))
        assert got == want, (hand, trick)
        assert _kernel_legal(hand, trick, rules, True) == want, (hand, trick)


def test_trump_rule_fields_are_checked() -> None:
    with pytest.raises(ValueError, match=r"^must_overtrump: needs must_trump \(.*\); set "):
        Rules(must_overtrump=True)
    with pytest.raises(ValueError, match=r"^must_trump: expected true or false, got 1$"):
        Rules(must_trump=1)
    assert Rules.preset("must-overtrump").to_dict()["must_overtrump"] is True
    assert Rules(**Rules.preset("must-trump").to_dict()) == Rules.preset("must-trump")


@pytest.mark.parametrize("engine", ENGINES, ids=["kernel", "reference"])
def test_cutthroat_every_seat_scores_alone(engine: ModuleType) -> None:
    rules = Rules.preset("cutthroat-4")
    # Deal A: N wins all 13 tricks. N bid 10: 100 + 3 bags = 103 (and a Boston, worth
    # the default 0). E's nil made: +100. S bid 2, W bid 3, no tricks: set, -20 and -30.
    # With partnerships N-S would have made 12 on 13 (121) and E-W 100 - 30 = 70.
    r = replay(engine, DEAL_A, PLAYS_A, (10, 0, 2, 3), rules)
    assert r.tricks == (13, 0, 0, 0)
    assert r.score_change == (103, 100, -20, -30)
    assert r.contracts == (10, 0, 2, 3) and r.made == (True, None, False, False)
    assert r.bags_change == (3, 0, 0, 0) and r.boston == (True, False, False, False)
    assert r.nil_made == (None, True, None, None)


@pytest.mark.parametrize("engine", ENGINES, ids=["kernel", "reference"])
def test_cutthroat_bags_and_blind_nil_per_player(engine: ModuleType) -> None:
    rules = Rules.preset("cutthroat-4")
    # N bids 4 and takes 5: 40 + 1 bag = 41; its 9 bags carried in reach 10: -100, so
    # -59, bags back to 0. E's blind nil takes a trick: -200, and the trick is a bag
    # (+1): -199. S bids 3, takes 4: 31, bags 8 -> 9, no penalty (S's own count).
    # W bids 2, takes 3: 21, 1 bag.
    score = engine.score_hand(
        (4, 0, 3, 2),
        (5, 1, 4, 3),
        rules,
        blind_nil=("E",),
        scores_before=(10, 20, 30, 40),
        bags_before=(9, 0, 8, 0),
    )
    assert score.score_change == (-59, -199, 31, 21)
    assert score.scores_after == (-49, -179, 61, 61)
    assert score.bags_change == (1, 1, 1, 1) and score.bags_after == (0, 1, 9, 1)
    assert score.bag_penalties == (100, 0, 0, 0)
    assert score.nil_made == (None, False, None, None)
    # one score and one bag count per seat
    with pytest.raises(ValueError, match=r"^scores_before: expected 4 whole numbers"):
        engine.score_hand((4, 0, 3, 2), (5, 1, 4, 3), rules, scores_before=(0, 0))


@pytest.mark.parametrize("engine", ENGINES, ids=["kernel", "reference"])
def test_cutthroat_blind_nil_deficit_is_behind_the_leader(engine: ModuleType) -> None:
    rules = Rules.preset("cutthroat-4", blind_nil_min_deficit=100)
    bids, tricks = (4, 0, 3, 2), (5, 0, 4, 4)
    # E on 0 is 150 behind N, the leader: blind nil allowed (made: +200).
    ok = engine.score_hand(bids, tricks, rules, blind_nil=("E",), scores_before=(150, 0, 20, 30))
    assert ok.score_change[1] == 200
    # 50 behind the leader only: refused, naming the seat's own side.
    with pytest.raises(ValueError, match=r"side E is behind by 50 points, it must be behind by"):
        engine.score_hand(bids, tricks, rules, blind_nil=("E",), scores_before=(50, 0, 20, 30))


def test_cutthroat_game_ends_with_one_leader() -> None:
    rules = Rules.preset("cutthroat-4")
    assert reference.game_result((320, 510, 505, 90), 9, rules) == (1, "target")
    # a tie for the top at or over the target plays on, whoever else trails
    assert reference.game_result((320, 505, 505, 90), 9, rules) == (None, "")
    mercy = Rules.preset("cutthroat-4", loss_threshold=-200)
    # one seat at the threshold ends the game; the leader among all four wins
    assert reference.game_result((-210, 40, 90, 60), 5, mercy) == (2, "loss_threshold")
    assert reference.game_result((-210, 90, 90, 60), 5, mercy) == (None, "")


def test_cutthroat_fields_are_checked() -> None:
    with pytest.raises(ValueError, match=r"^partnerships: false needs four or three players"):
        Rules(players=2, partnerships=False)
    for field, value in (
        ("blind_nil_exchange", 3),
        ("nil_exchange", 2),
        ("min_side_bid", 4),
        ("nil_tricks_count_for_partner", True),
    ):
        extra = {"nil_tricks_count_as_bags": False} if field.startswith("nil_tricks") else {}
        with pytest.raises(ValueError, match=rf"^{field}: must stay .* partnerships false"):
            Rules(partnerships=False, **{field: value}, **extra)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^bid_rule: 'suicide' needs partnerships"):
        Rules(partnerships=False, bid_rule="suicide", blind_nil=False)
    assert Rules.preset("cutthroat-4").sides == 4 and Rules().sides == 2


@pytest.mark.parametrize("sides", [2, 4])
def test_cutthroat_heuristic_overtakes_the_seat_opposite(sides: int) -> None:
    # N plays last to a heart trick S is winning with the KH, holding AH and 2H. A
    # partner lets S's trick stand (2H); in cutthroat S is an opponent: N takes it (AH).
    from spades_sim._nb.enums import HEURISTIC_DEFAULTS, N_INFO, InfoSlot
    from spades_sim._nb.heuristic import heuristic_play_nb

    rules = Rules.preset("standard" if sides == 2 else "cutthroat-4").lower()
    ah, kh, two_h = parse_card("AH"), parse_card("KH"), parse_card("2H")
    info = np.zeros(N_INFO, dtype=np.int64)
    info[InfoSlot.players], info[InfoSlot.sides] = 4, sides
    info[InfoSlot.leader], info[InfoSlot.n_in_trick] = 1, 3
    info[InfoSlot.led_suit], info[InfoSlot.winning_seat], info[InfoSlot.winning_card] = 2, 2, kh
    trick = (parse_card("5H"), kh, parse_card("3H"))
    info[InfoSlot.trick_cards : InfoSlot.trick_cards + 3] = trick
    info[InfoSlot.played] = sum(1 << c for c in trick)
    info[InfoSlot.bids : InfoSlot.bids + 4] = 3
    hand = np.uint64((1 << ah) | (1 << two_h) | (1 << parse_card("9C")))
    legal = np.uint64((1 << ah) | (1 << two_h))
    card = heuristic_play_nb(hand, legal, np.int64(0), info, rules, HEURISTIC_DEFAULTS)
    assert card == (two_h if sides == 2 else ah)


@pytest.mark.parametrize("sides", [2, 4])
def test_cutthroat_heuristic_attacks_the_nil_opposite(sides: int) -> None:
    # N leads; S bid nil and has taken nothing. A partner covers it (leads high); in
    # cutthroat S is an opponent whose nil N sets: it leads low in a suit S holds (2H).
    from spades_sim._nb.enums import HEURISTIC_DEFAULTS, N_INFO, InfoSlot
    from spades_sim._nb.heuristic import heuristic_play_nb

    rules = Rules.preset("standard" if sides == 2 else "cutthroat-4").lower()
    info = np.zeros(N_INFO, dtype=np.int64)
    info[InfoSlot.players], info[InfoSlot.sides], info[InfoSlot.leader] = 4, sides, 0
    info[InfoSlot.led_suit] = info[InfoSlot.winning_seat] = info[InfoSlot.winning_card] = -1
    info[InfoSlot.bids : InfoSlot.bids + 4] = (3, 4, 0, 3)
    info[InfoSlot.nil + 2] = 1
    cards = [parse_card(c) for c in ("AH", "2H", "KC")]
    hand = np.uint64(sum(1 << c for c in cards))
    card = heuristic_play_nb(hand, hand, np.int64(0), info, rules, HEURISTIC_DEFAULTS)
    if sides == 4:
        assert card == parse_card("2H")
    else:
        assert card in (parse_card("AH"), parse_card("KC"))


# --- Three-player cutthroat -------------------------------------------------------------

# Deal C (three players, the 51 cards without the 2C, 17 each): P0 the AS..3S and AH..TH;
# P1 the 9H..2H and AD..6D; P2 the 2S, 5D..2D and AC..3C. P2 deals, so P0 (its left) bids
# and leads first. Trick 1: P0 may not lead a spade while it holds hearts: AH, P1 follows
# 9H, P2 (no hearts) trumps with the 2S and wins a trick of three cards. Trick 2: P2 leads
# AC; P0 (no clubs) trumps with the 3S, P1 discards the 2H: P0 wins. Tricks 3-6: P0 leads
# KH..TH, P1 follows 8H..5H, P2 discards KC..TC. Tricks 7-17: P0 leads AS..4S and the
# others discard. P0 16 tricks, P1 none, P2 one.
DEAL_C = ["AKQJT9876543.AKQJT..", ".98765432.AKQJT9876.", "2..5432.AKQJT9876543"]
PLAYS_C = (
    ["AH", "9H", "2S", "AC", "3S", "2H"]
    + [
        card
        for h, p1, c in zip("KQJT", "8765", "KQJT", strict=True)
        for card in (h + "H", p1 + "H", c + "C")
    ]
    + [
        card
        for s, p1, p2 in zip(
            "AKQJT987654",
            ["4H", "3H"] + [r + "D" for r in "AKQJT9876"],
            [r + "D" for r in "5432"] + [r + "C" for r in "9876543"],
            strict=True,
        )
        for card in (s + "S", p1, p2)
    ]
)

# Deal K (three players with the jokers: the whole 52 and both jokers, 18 each, the 2C
# in the pack, so the 2C may lead): P0 the BJ, LJ, AS..2S and AH..QH; P1 the JH..2H and
# AD..7D; P2 the 6D..2D and all the clubs. Under first_lead two_of_clubs P2 leads the 2C;
# P0 (no clubs) plays the BJ, P1 the JH: P0 wins. P0 then leads the LJ and AS..2S (P1 and
# P2 hold no spade and discard) and AH..QH (P1 has no heart left): all 18 tricks to P0.
DEAL_K = ["BJLJAKQJT98765432.AKQ..", ".JT98765432.AKQJT987.", "..65432.AKQJT98765432"]
PLAYS_K = (
    ["2C", "BJ", "JH", "LJ", "TH", "AC"]
    + [
        card
        for s, p1, p2 in zip(
            "AKQJT98765432",
            [r + "H" for r in "98765432"] + [r + "D" for r in "AKQJT"],
            [*[r + "C" for r in "KQJT98765432"][:11], "6D", "5D"],
            strict=True,
        )
        for card in (s + "S", p1, p2)
    ]
    + [
        card
        for h, p1, p2 in zip("AKQ", "987", "432", strict=True)
        for card in (h + "H", p1 + "D", p2 + "D")
    ]
)


def test_three_player_pack_and_seats() -> None:
    rules = Rules.preset("cutthroat")
    assert (rules.players, rules.sides, rules.tricks, rules.partnerships) == (3, 3, 17, False)
    assert Rules.preset("cutthroat", jokers=True).tricks == 18
    assert [rules.side_name(s) for s in range(3)] == ["P0", "P1", "P2"]
    assert [rules.side_of(s) for s in range(3)] == [0, 1, 2]


@pytest.mark.parametrize("engine", ENGINES, ids=["kernel", "reference"])
def test_three_player_hand_of_17_tricks(engine: ModuleType) -> None:
    rules = Rules.preset("cutthroat")
    # P0 bids 12, P1 nil, P2 1. P0 takes 16: 120 + 4 bags = 124. P1's nil made: +100.
    # P2 takes its one trick (the 2S over the AH and 9H): 10 for the contract.
    r = engine.replay_hand(DEAL_C, "P2", (12, 0, 1), PLAYS_C, rules)
    assert r.tricks == (16, 0, 1)
    assert r.trick_winners[:3] == (2, 0, 0) and len(r.trick_winners) == 17
    assert r.score_change == (124, 100, 10)
    assert r.contracts == (12, 0, 1) and r.made == (True, None, True)
    assert r.bags_change == (4, 0, 0) and r.nil_made == (None, True, None)
    assert r.boston == (False, False, False)
    # a trick of three cards: the 2S trumps the AH
    assert reference.trick_winner(["AH", "9H", "2S"]) == 2
    # 13 tricks of three cards are not a hand
    with pytest.raises(IllegalPlay, match=r"^expected 51 plays \(17 tricks of 3 cards\), got 39"):
        engine.replay_hand(DEAL_C, "P2", (12, 0, 1), PLAYS_C[:39], rules)


@pytest.mark.parametrize("engine", ENGINES, ids=["kernel", "reference"])
def test_three_player_jokers_boston_of_18(engine: ModuleType) -> None:
    rules = Rules.preset("cutthroat", jokers=True, first_lead="two_of_clubs", boston_bonus=200)
    # P2 leads the 2C (first_lead two_of_clubs); P0 takes all 18 tricks: bid 10, 100 + 8
    # bags, and the Boston (all the tricks of the hand) +200 = 308. P1 bid 3, P2 bid 4:
    # set, -30 and -40.
    r = engine.replay_hand(DEAL_K, "P0", (10, 3, 4), PLAYS_K, rules)
    assert r.tricks == (18, 0, 0)
    assert r.score_change == (308, -30, -40) and r.boston == (True, False, False)
    # 17 tricks is not all of them: no Boston
    score = engine.score_hand((10, 3, 4), (17, 1, 0), rules)
    assert score.score_change == (107, -30, -40) and score.boston == (False, False, False)


@pytest.mark.parametrize("engine", ENGINES, ids=["kernel", "reference"])
def test_three_player_bags_and_blind_nil_per_player(engine: ModuleType) -> None:
    rules = Rules.preset("cutthroat")
    # P0 bids 4 and takes 6: 40 + 2 bags = 42; its 9 bags carried in reach 11: -100, so
    # -58, bags back to 1. P1's blind nil takes a trick: -200, and the trick is a bag:
    # -199. P2 bids 5 and takes 10: 50 + 5 bags = 55.
    score = engine.score_hand(
        (4, 0, 5), (6, 1, 10), rules, blind_nil=("P1",),
        scores_before=(10, 20, 30), bags_before=(9, 0, 0),
    )  # fmt: skip
    assert score.score_change == (-58, -199, 55)
    assert score.scores_after == (-48, -179, 85)
    assert score.bags_change == (2, 1, 5) and score.bags_after == (1, 1, 5)
    assert score.bag_penalties == (100, 0, 0) and score.nil_made == (None, False, None)
    with pytest.raises(ValueError, match=r"^scores_before: expected 3 whole numbers"):
        engine.score_hand((4, 0, 5), (6, 1, 10), rules, scores_before=(0, 0))
    with pytest.raises(ValueError, match=r"^tricks: must sum to 17, got 13"):
        engine.score_hand((4, 0, 5), (6, 1, 6), rules)
    # bids run to all the tricks of the hand
    assert engine.score_hand((17, 0, 0), (17, 0, 0), rules).made == (True, None, None)
    with pytest.raises(ValueError, match=r"^bids: seat P0 has 18, outside 0..17"):
        engine.score_hand((18, 0, 0), (17, 0, 0), rules)


def test_three_player_game_ends_with_one_leader() -> None:
    rules = Rules.preset("cutthroat")
    assert reference.game_result((320, 510, 505), 9, rules) == (1, "target")
    assert reference.game_result((510, 510, 90), 9, rules) == (None, "")


def test_three_player_fields_are_checked() -> None:
    with pytest.raises(ValueError, match=r"^partnerships: three players \(cutthroat\) need "):
        Rules(players=3)
    with pytest.raises(ValueError, match=r"^deuces_high: is refused with three players"):
        Rules.preset("cutthroat", jokers=True, deuces_high=True)
    with pytest.raises(ValueError, match=r"^first_lead: 'two_of_clubs' is refused with three "):
        Rules.preset("cutthroat", first_lead="two_of_clubs")
    for field, value in (("blind_nil_exchange", 3), ("nil_exchange", 2), ("min_side_bid", 4)):
        with pytest.raises(ValueError, match=rf"^{field}: must stay .* partnerships false"):
            Rules.preset("cutthroat", **{field: value})
    with pytest.raises(ValueError, match=r"^players: must be 4, 3 or 2, got 5"):
        Rules(players=5)
