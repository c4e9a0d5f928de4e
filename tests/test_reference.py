"""Both engines against hand-worked examples from docs/rules.md, and the reference's invariants.

Every expected number below is worked out by hand in the comments, from docs/rules.md and the
interpretations listed in ``spades_sim.reference``; none is copied from an engine. The
``engine`` fixture runs every test twice: with the reference engine's ``score_hand`` and
``replay_hand``, and with the kernel-backed ones of ``spades_sim.hand``, so the two must
agree on every worked example and every error message.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable

import pytest

from spades_sim import hand as kernel_api
from spades_sim.cards import (
    SPADE_MASK,
    cards_of,
    deck_mask,
    format_hand,
    parse_card,
    parse_hand,
)
from spades_sim.errors import IllegalPlay, Misdeal
from spades_sim.reference import (
    GameReplay,
    check_blind_nil_exchange,
    game_result,
    legal_cards,
    play_out,
    replay_game,
    replay_hand,
    score_hand,
    trick_winner,
)
from spades_sim.rules import Rules

STANDARD = Rules()


@pytest.fixture(autouse=True, params=["reference", "kernel"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Swap this module's score_hand/replay_hand for the kernel-backed ones."""
    if request.param == "kernel":
        module = sys.modules[__name__]
        monkeypatch.setattr(module, "score_hand", kernel_api.score_hand)
        monkeypatch.setattr(module, "replay_hand", kernel_api.replay_hand)
    return str(request.param)


# N all spades, E all hearts, S all diamonds, W all clubs.
ONE_SUIT_EACH = ["AKQJT98765432...", ".AKQJT98765432..", "..AKQJT98765432.", "...AKQJT98765432"]


def card_set(*texts: str) -> int:
    return parse_hand(" ".join(texts))


def lowest(seat: int, hand: int, legal: int, trick: tuple[int, ...]) -> int:
    return (legal & -legal).bit_length() - 1


# ======================================================================================
# Scoring
# ======================================================================================


class TestPagatExample:
    """N-S on 337 points carrying 7 bags bid 3 + 2 = 5 (E-W bid 4 + 4 and are set)."""

    bids = (3, 4, 2, 4)

    def score(self, ns_tricks: tuple[int, int]):
        north, south = ns_tricks
        rest = 13 - north - south  # E-W share the rest: E gets 1, W the remainder
        return score_hand(
            self.bids,
            (north, 1, south, rest - 1),
            scores_before=(337, 0),
            bags_before=(7, 0),
        )

    def test_seven_tricks(self):
        # 7 tricks on a 5 bid: 10*5 + 2 = 52; 337 + 52 = 389; bags 7 + 2 = 9 (< 10).
        score = self.score((4, 3))
        assert score.score_change[0] == 52
        assert score.scores_after[0] == 389
        assert score.bags_change[0] == 2
        assert score.bags_after[0] == 9
        assert score.bag_penalties[0] == 0
        assert score.made[0] is True

    def test_eight_tricks_reach_ten_bags(self):
        # 8 tricks: 50 + 3 = 53; bags 7 + 3 = 10 -> one penalty of 100, 0 bags left.
        # 337 + 53 - 100 = 290, so the change is 53 - 100 = -47.
        score = self.score((5, 3))
        assert score.score_change[0] == -47
        assert score.scores_after[0] == 290
        assert score.bags_change[0] == 3
        assert score.bags_after[0] == 0
        assert score.bag_penalties[0] == 100

    def test_nine_tricks(self):
        # 9 tricks: 50 + 4 = 54; bags 7 + 4 = 11 -> penalty 100, 1 bag left.
        # 337 + 54 - 100 = 291.
        score = self.score((5, 4))
        assert score.score_change[0] == -46
        assert score.scores_after[0] == 291
        assert score.bags_after[0] == 1
        assert score.bag_penalties[0] == 100


def test_made_contract_with_bags_and_set_contract():
    # N-S bid 4 + 3 = 7 and take 5 + 4 = 9: 10*7 + 2 = 72, 2 bags.
    # E-W bid 3 + 2 = 5 and take 2 + 2 = 4: set, -10*5 = -50, no bags (9 carried stay 9).
    score = score_hand((4, 3, 3, 2), (5, 2, 4, 2), bags_before=(0, 9))
    assert score.contracts == (7, 5)
    assert score.side_tricks == (9, 4)
    assert score.made == (True, False)
    assert score.score_change == (72, -50)
    assert score.scores_after == (72, -50)
    assert score.bags_change == (2, 0)
    assert score.bags_after == (2, 9)
    assert score.bag_penalties == (0, 0)
    assert score.boston == (False, False)
    assert score.nil_made == (None, None, None, None)


def test_exact_contract_scores_no_bags():
    # N-S bid 5 + 3 = 8, take 8 exactly: 80, 0 bags. E-W bid 5, take 5: 50.
    score = score_hand((5, 2, 3, 3), (4, 2, 4, 3))
    assert score.score_change == (80, 50)
    assert score.bags_change == (0, 0)


def test_nil_made():
    # N nil, takes 0: +100. S bid 5, takes 6: 50 + 1 = 51, 1 bag. N-S: 151.
    # E-W bid 4 + 3 = 7, take 4 + 3 = 7: 70.
    score = score_hand((0, 4, 5, 3), (0, 4, 6, 3))
    assert score.contracts == (5, 7)
    assert score.nil_made == (True, None, None, None)
    assert score.score_change == (151, 70)
    assert score.bags_change == (1, 0)


def test_nil_failed_tricks_are_bags():
    # N nil, takes 2: -100, and 2 bags worth 1 point each (nil_tricks_count_as_bags).
    # S bid 5, takes 5: +50. N-S: 50 - 100 + 2 = -48, bags 2.
    # E-W bid 7, take 4 + 2 = 6: -70.
    score = score_hand((0, 4, 5, 3), (2, 4, 5, 2))
    assert score.nil_made == (False, None, None, None)
    assert score.side_tricks == (5, 6)  # N's tricks do not count for S
    assert score.made == (True, False)
    assert score.score_change == (-48, -70)
    assert score.bags_change == (2, 0)
    assert score.bags_after == (2, 0)


def test_nil_tricks_are_bags_even_when_partner_is_set():
    # N nil takes 2, S bid 6 takes 5: set -60, nil -100, 2 bags +2: -158, bags 2.
    score = score_hand((0, 4, 6, 3), (2, 4, 5, 2))
    assert score.made[0] is False
    assert score.score_change[0] == -158
    assert score.bags_change[0] == 2


def test_nil_tricks_count_for_nothing_with_both_flags_false():
    rules = Rules(nil_tricks_count_as_bags=False)
    # As above but the 2 nil tricks count for nothing: -60 - 100 = -160, 0 bags.
    score = score_hand((0, 4, 6, 3), (2, 4, 5, 2), rules)
    assert score.score_change[0] == -160
    assert score.bags_change[0] == 0
    assert score.side_tricks[0] == 5


def test_blind_nil_made_and_failed():
    # E blind nil, takes 0: +200. W bid 5 takes 4: -50. E-W: 150.
    # N-S bid 4 + 4 = 8 take 4 + 5 = 9: 81, 1 bag.
    score = score_hand((4, 0, 4, 5), (4, 0, 5, 4), blind_nil=[1])
    assert score.nil_made == (None, True, None, None)
    assert score.score_change == (81, 150)
    # E takes 1 (W 3): -200, W set -50, 1 nil bag +1: -249, 1 bag.
    score = score_hand((4, 0, 4, 5), (4, 1, 5, 3), blind_nil=["E"])
    assert score.nil_made == (None, False, None, None)
    assert score.score_change == (81, -249)
    assert score.bags_change == (1, 1)


def test_blind_nil_value_is_separate_from_nil_value():
    rules = Rules(nil_value=50, blind_nil_value=300)
    # N nil (0 tricks) +50, S blind nil (0 tricks) +300; contract 0 -> made None.
    # E-W bid 6 + 7 = 13 and take all 13: 130, Boston (no bonus by default).
    score = score_hand((0, 6, 0, 7), (0, 6, 0, 7), rules, blind_nil=[2])
    assert score.made == (None, True)
    assert score.score_change == (350, 130)
    assert score.boston == (False, True)


def test_both_partners_nil_one_made_one_failed():
    # N nil takes 0: +100; S nil takes 1: -100, 1 bag +1. Contract 0: made None.
    # Nils net 0, N-S total +1, bags 1. E-W bid 9 take 12: 90 + 3 = 93, 3 bags.
    score = score_hand((0, 4, 0, 5), (0, 6, 1, 6))
    assert score.contracts == (0, 9)
    assert score.side_tricks == (0, 12)
    assert score.made == (None, True)
    assert score.nil_made == (True, None, False, None)
    assert score.score_change == (1, 93)
    assert score.bags_change == (1, 3)


def test_both_partners_nil_both_made():
    # +100 +100 = 200. E-W bid 9 take 13: 90 + 4 = 94, and a Boston.
    score = score_hand((0, 4, 0, 5), (0, 6, 0, 7))
    assert score.score_change == (200, 94)
    assert score.boston == (False, True)


def test_openspiel_nil_tricks_save_the_partner():
    rules = Rules.preset("openspiel")
    # N nil takes 2, S bid 6 takes 5: counted 5 + 2 = 7 >= 6 -> made: 60 + 1 = 61,
    # 1 bag; nil failed -100; no separate nil bags. N-S: -39, bags 1.
    # (Standard rules: -60 - 100 + 2 = -158.)
    score = score_hand((0, 4, 6, 3), (2, 4, 5, 2), rules)
    assert score.side_tricks == (7, 6)
    assert score.made == (True, False)
    assert score.score_change == (-39, -70)
    assert score.bags_change == (1, 0)


def test_openspiel_set_gives_no_bags():
    rules = Rules.preset("openspiel")
    # N nil takes 2, S bid 7 takes 4: counted 6 < 7 -> -70, nil -100: -170, no bags.
    score = score_hand((0, 4, 7, 3), (2, 4, 4, 3), rules)
    assert score.made[0] is False
    assert score.score_change[0] == -170
    assert score.bags_change[0] == 0


def test_openspiel_both_nil_tricks_are_bags():
    rules = Rules.preset("openspiel")
    # Both nil, N 0 S 1: contract 0, the 1 counted trick is all excess: 1 bag, 1 point.
    # Nils +100 - 100. N-S: +1, 1 bag, side_tricks 1.
    score = score_hand((0, 4, 0, 5), (0, 6, 1, 6), rules)
    assert score.side_tricks == (1, 12)
    assert score.made == (None, True)
    assert score.score_change == (1, 93)
    assert score.bags_change == (1, 3)


def test_openspiel_refuses_blind_nil():
    with pytest.raises(ValueError, match="blind_nil: seat N"):
        score_hand((0, 4, 6, 3), (0, 4, 6, 3), Rules.preset("openspiel"), blind_nil=[0])


def test_no_bag_penalty_never_reduces_bags():
    rules = Rules(bag_penalty=0)
    # 15 bags carried (allowed without a penalty) + 2 overtricks = 17, nothing lost.
    # N-S bid 5, take 7: 50 + 2 = 52.
    score = score_hand((3, 3, 2, 3), (4, 3, 3, 3), rules, bags_before=(15, 0))
    assert score.score_change[0] == 52
    assert score.bags_after == (17, 0)
    assert score.bag_penalties == (0, 0)


def test_twenty_bags_at_once_cost_twice():
    # N-S carry 9 bags, bid 1 + 1 = 2 and take all 13: 20 + 11 = 31, 11 bags.
    # 9 + 11 = 20 bags = 2 * bag_limit -> 2 penalties: 31 - 200 = -169, 0 bags.
    # A Boston too (no bonus by default). E-W bid 1 + 1 = 2, take 0: -20.
    score = score_hand((1, 1, 1, 1), (7, 0, 6, 0), scores_before=(400, 0), bags_before=(9, 0))
    assert score.bags_change == (11, 0)
    assert score.bags_after == (0, 0)
    assert score.bag_penalties == (200, 0)
    assert score.score_change == (-169, -20)
    assert score.scores_after == (231, -20)
    assert score.boston == (True, False)


def test_small_bag_limit_reached_twice():
    rules = Rules(bag_limit=3, bag_penalty=50)
    # N-S carry 2 bags, bid 4, take 9: 40 + 5 = 45, 5 bags. 2 + 5 = 7 = 2 * 3 + 1:
    # two penalties (100 points), 1 bag left. Change 45 - 100 = -55.
    score = score_hand((2, 2, 2, 2), (5, 2, 4, 2), rules, bags_before=(2, 0))
    assert score.score_change[0] == -55
    assert score.bags_after[0] == 1
    assert score.bag_penalties[0] == 100
    # E-W bid 4 take 4: 40; 0 bags.
    assert score.score_change[1] == 40


def test_boston_bonus():
    rules = Rules(boston_bonus=200)
    # N-S bid 6 + 5 = 11 and take all 13: 110 + 2 + 200 = 312, 2 bags.
    # E-W bid 2 + 2 = 4, take 0: -40.
    score = score_hand((6, 2, 5, 2), (7, 0, 6, 0), rules)
    assert score.boston == (True, False)
    assert score.score_change == (312, -40)
    assert score.bags_change == (2, 0)


def test_boston_with_a_nil_partner():
    rules = Rules(boston_bonus=100)
    # N nil takes 0 (+100), S bid 8 takes 13: 80 + 5 = 85, Boston +100. Total 285.
    score = score_hand((0, 3, 8, 2), (0, 0, 13, 0), rules)
    assert score.boston == (True, False)
    assert score.score_change == (285, -50)


def test_two_player_scoring():
    rules = Rules.preset("two-player")
    # P0 bid 4 take 5: 41, 1 bag. P1 bid 6 take 8: 62, 2 bags.
    score = score_hand((4, 6), (5, 8), rules)
    assert score.contracts == (4, 6)
    assert score.score_change == (41, 62)
    assert score.bags_change == (1, 2)
    assert score.nil_made == (None, None)
    # P0 nil takes 1: contract 0 (made None), -100 + 1 bag = -99. P1 bid 5 take 12: 57.
    score = score_hand((0, 5), (1, 12), rules)
    assert score.made == (None, True)
    assert score.nil_made == (False, None)
    assert score.score_change == (-99, 57)
    assert score.bags_change == (1, 7)
    # P0 blind nil takes 0: +200. P1 bid 5 takes all 13: 58 and a Boston.
    score = score_hand((0, 5), (0, 13), rules, blind_nil=[0])
    assert score.nil_made == (True, None)
    assert score.score_change == (200, 58)
    assert score.boston == (False, True)


def test_blind_nil_min_deficit():
    rules = Rules(blind_nil_min_deficit=100)
    # E-W behind by 300 - 150 = 150 >= 100: allowed.
    score = score_hand((4, 0, 4, 5), (4, 0, 5, 4), rules, blind_nil=[1], scores_before=(300, 150))
    assert score.scores_after == (381, 300)
    # Behind by only 50: refused.
    with pytest.raises(ValueError, match=r"blind_nil: seat E .* behind by 50"):
        score_hand((4, 0, 4, 5), (4, 0, 5, 4), rules, blind_nil=[1], scores_before=(300, 250))
    # Ahead: refused.
    with pytest.raises(
        ValueError,
        match=r"blind_nil: seat N .* side N-S is ahead by 100 points, it must be behind by",
    ):
        score_hand((0, 4, 4, 5), (0, 4, 5, 4), rules, blind_nil=[0], scores_before=(100, 0))


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"bids": (3, 3, 3)}, "bids: expected 4 entries"),
        ({"bids": (3, 3, 3, 14)}, "bids: seat W has 14, outside 0..13"),
        ({"bids": (3, -1, 3, 3)}, "bids: seat E has -1"),
        ({"bids": (3, "3", 3, 3)}, "bids: seat E has '3', not a whole number"),
        ({"bids": (3, 3, True, 3)}, "bids: seat S has True"),
        ({"bids": (3, 3, 2.0, 3)}, "bids: seat S has 2.0"),
        ({"tricks": (3, 3, 3, 3)}, "tricks: must sum to 13, got 12"),
        ({"tricks": (3, 3, 3)}, "tricks: expected 4 entries"),
        ({"tricks": (14, -1, 0, 0)}, "tricks: seat N has 14"),
        ({"blind_nil": [4]}, "blind_nil: seat 4 is out of range"),
        ({"blind_nil": ["X"]}, "blind_nil: unknown seat 'X'"),
        ({"blind_nil": [2]}, "blind_nil: seat S bid 3"),
        ({"blind_nil": [0], "rules": Rules(blind_nil=False)}, "blind_nil: seat N .* forbid"),
        ({"bags_before": (-1, 0)}, "bags_before: N-S has -1 bags, a negative count"),
        ({"bags_before": (0, 10)}, "bags_before: E-W carries 10 bags; with a bag penalty"),
        ({"bags_before": (0,)}, "bags_before: expected 2"),
        ({"scores_before": (0, 0, 0)}, "scores_before: expected 2"),
    ],
)
def test_score_hand_refuses_bad_input(kwargs, pattern):
    args = {"bids": (0, 3, 3, 3), "tricks": (0, 4, 4, 5)} | kwargs
    with pytest.raises(ValueError, match=pattern):
        score_hand(**args)


def test_two_player_needs_two_bids():
    with pytest.raises(ValueError, match="bids: expected 2 entries"):
        score_hand((3, 3, 3, 4), (3, 3, 3, 4), Rules.preset("two-player"))
    with pytest.raises(ValueError, match="blind_nil: seat 2 is out of range"):
        score_hand((0, 3), (3, 10), Rules.preset("two-player"), blind_nil=[2])


# ======================================================================================
# Tricks and legal cards
# ======================================================================================


@pytest.mark.parametrize(
    ("trick", "winner"),
    [
        (["KH", "2S", "AH", "3S"], 3),  # the highest spade trumps
        (["KH", "AH", "2S", "QH"], 2),  # one small spade beats the aces
        (["5D", "AC", "KH", "7D"], 3),  # off-suit discards lose: 7D beats 5D
        (["5D", "AC", "KH", "4D"], 0),  # the leader wins if nobody beats the suit led
        (["AS", "LJ", "BJ", "KS"], 2),  # Big Joker > Little Joker > AS
        (["2C", "LJ", "AS", "3C"], 1),  # a joker is a spade
        (["KS", "AS"], 1),  # two-player trick
        ([parse_card("2H"), parse_card("3H")], 1),  # ids work too
    ],
)
def test_trick_winner(trick, winner):
    assert trick_winner(trick) == winner


def test_trick_winner_refuses_empty_and_repeated():
    with pytest.raises(ValueError, match="empty"):
        trick_winner([])
    with pytest.raises(ValueError, match="twice"):
        trick_winner(["AS", "AS"])


def legal(hand: str, trick=(), broken=False, first=False, rules=STANDARD) -> str:
    trick_ids = [parse_card(card) for card in trick]
    return format_hand(legal_cards(parse_hand(hand), trick_ids, broken, first, rules))


class TestLegalCards:
    def test_first_lead_any_but_spades(self):
        assert legal("AK.Q..2", first=True) == ".Q..2"
        assert legal("AK.Q..2", first=True, broken=True) == ".Q..2"
        assert legal("AKQJT98765432...", first=True) == "AKQJT98765432..."  # only spades

    def test_first_lead_two_of_clubs(self):
        rules = Rules(first_lead="two_of_clubs")
        assert legal("AK.Q..A2", first=True, rules=rules) == "...2"
        # Later leads follow spades_lead.
        assert legal("AK.Q..A2", rules=rules) == ".Q..A2"
        # Following on the first trick is ordinary.
        assert legal("AK.Q..A2", ["2C"], first=True, rules=rules) == "...A2"
        with pytest.raises(ValueError, match="holder of the 2C"):
            legal("AK.Q..A3", first=True, rules=rules)

    def test_later_leads_after_broken(self):
        assert legal("AK.Q..2") == ".Q..2"
        assert legal("AK.Q..2", broken=True) == "AK.Q..2"
        assert legal("AK...", broken=False) == "AK..."  # only spades: may lead them

    def test_later_leads_any_time(self):
        rules = Rules(spades_lead="any_time")
        assert legal("AK.Q..2", rules=rules) == "AK.Q..2"
        # The first trick still follows first_lead.
        assert legal("AK.Q..2", first=True, rules=rules) == ".Q..2"

    def test_following(self):
        assert legal("AK.Q9..2", ["3H"]) == ".Q9.."
        assert legal("AK.Q9..2", ["3D"]) == "AK.Q9..2"  # void: anything
        assert legal("AK.Q9..2", ["3S", "4S"]) == "AK..."
        assert legal("AK.Q9..2", ["3C", "AS", "4H"]) == "...2"  # the suit LED counts

    def test_jokers_follow_spades(self):
        rules = Rules(jokers=True)
        assert legal("BJK.Q..3", ["3S"], rules=rules) == "BJK..."
        assert legal("LJ.Q..3", ["3S"], rules=rules) == "LJ..."
        assert legal("A.K..3", ["BJ"], rules=rules) == "A..."  # a joker lead is spades
        assert legal("BJLJ.K..3", rules=rules) == ".K..3"  # jokers are spades: not led yet
        assert legal("BJLJ...", rules=rules) == "BJLJ..."  # only spades

    def test_refuses_complete_trick(self):
        with pytest.raises(ValueError, match="complete"):
            legal("AK.Q..2", ["3H", "4H", "5H", "6H"])


# ======================================================================================
# Replaying a hand
# ======================================================================================

# A structured deal: ranks 2 6 T go to N, 3 7 J to E, 4 8 Q to S, 5 9 K to W, in every
# suit; the aces go to N (clubs), E (diamonds), S (hearts) and W (spades).
STRUCTURED = ["T62.T62.T62.AT62", "J73.J73.AJ73.J73", "Q84.AQ84.Q84.Q84", "AK95.K95.K95.K95"]

# Dealer W, so N leads. Each line: the trick's plays in order, the leader, the winner.
STRUCTURED_PLAY = [
    ("AC 3C 4C 5C", "N", "N"),  # AC wins
    ("2C JC QC KC", "N", "W"),  # KC wins
    ("KD 2D AD 4D", "W", "E"),  # W may not lead spades yet; AD wins
    ("7C 8C 9C TC", "E", "N"),  # TC beats 9C
    ("6C 3S 8D 5S", "N", "W"),  # E ruffs (spades broken), S discards, W over-ruffs
    ("AS 2S 7S 4S", "W", "W"),  # now W may lead spades
    ("5D 6D JD QD", "W", "S"),
    ("AH 5H 2H 3H", "S", "S"),
    ("8S 9S TS JS", "S", "E"),
    ("7H QH KH TH", "E", "W"),
    ("KS 6S 3D QS", "W", "W"),  # E, out of spades, discards
    ("9H 6H JH 8H", "W", "E"),
    ("7D 4H 9D TD", "E", "N"),
]
STRUCTURED_PLAYS = " ".join(line for line, _, _ in STRUCTURED_PLAY).split()
SEAT = {"N": 0, "E": 1, "S": 2, "W": 3}


class TestReplayStructuredHand:
    def test_trick_winners_and_score(self):
        # N nil, E 3, S 3, W 4.
        result = replay_hand(STRUCTURED, "W", (0, 3, 3, 4), STRUCTURED_PLAYS)
        assert result.trick_winners == tuple(SEAT[winner] for _, _, winner in STRUCTURED_PLAY)
        # N won tricks 1, 4, 13; E 3, 9, 12; S 7, 8; W 2, 5, 6, 10, 11.
        assert result.tricks == (3, 3, 2, 5)
        # N-S: N's nil fails (-100, 3 bags +3); S bid 3 took 2: set -30. Total -127.
        # E-W: bid 7 took 8: 70 + 1 = 71, 1 bag.
        assert result.nil_made == (False, None, None, None)
        assert result.made == (False, True)
        assert result.score_change == (-127, 71)
        assert result.bags_change == (3, 1)

    def test_ids_and_masks_are_accepted(self):
        masks = [parse_hand(hand) for hand in STRUCTURED]
        ids = [parse_card(card) for card in STRUCTURED_PLAYS]
        by_text = replay_hand(STRUCTURED, "W", (0, 3, 3, 4), STRUCTURED_PLAYS)
        assert replay_hand(masks, 3, (0, 3, 3, 4), ids) == by_text

    def test_scores_carry_in(self):
        result = replay_hand(
            STRUCTURED, "W", (0, 3, 3, 4), STRUCTURED_PLAYS,
            scores_before=(100, 200), bags_before=(8, 9),
        )  # fmt: skip
        # N-S: 8 + 3 = 11 bags -> -100, 1 left: 100 - 127 - 100 = -127.
        # E-W: 9 + 1 = 10 -> -100, 0 left: 200 + 71 - 100 = 171.
        assert result.scores_after == (-127, 171)
        assert result.bags_after == (1, 0)
        assert result.bag_penalties == (100, 100)


def test_replay_one_suit_each_led_by_west():
    # Dealer S, so W leads: AC. N holds only spades and ruffs with the 2S (spades broken);
    # E and S discard their aces. N then leads its spades high to low (all it holds) and
    # E, S, W discard from the top of their suits: N wins all 13 tricks.
    plays = ["AC", "2S", "AH", "AD"]
    for spade, other in zip("AKQJT9876543", "KQJT98765432", strict=True):
        plays += [spade + "S", other + "H", other + "D", other + "C"]
    result = replay_hand(ONE_SUIT_EACH, "S", (13, 0, 0, 0), plays)
    assert result.trick_winners == (0,) * 13
    assert result.tricks == (13, 0, 0, 0)
    # N-S: bid 13 made, 130; S nil made, +100: 230; a Boston (no bonus by default).
    # E-W: two nils made, +200.
    assert result.score_change == (230, 200)
    assert result.boston == (True, False)
    assert result.nil_made == (None, True, True, True)


class TestIllegalPlays:
    def replay(self, changes: dict[int, str], rules: Rules = STANDARD, dealer="W") -> None:
        plays = list(STRUCTURED_PLAYS)
        for index, card in changes.items():
            plays[index] = card
        replay_hand(STRUCTURED, dealer, (0, 3, 3, 4), plays, rules)

    def test_revoke(self):
        # Trick 3: W leads KD, N (holding 6D TD 2D) plays 2H.
        with pytest.raises(IllegalPlay, match=r"^trick 3, seat N: 2H does not follow diamonds"):
            self.replay({9: "2H"})
        with pytest.raises(IllegalPlay, match=r"\(N holds 2D\)$"):
            self.replay({9: "2H"})

    def test_revoke_on_spades(self):
        # Trick 6: W leads AS, N (holding 2S 6S TS) discards 6D.
        with pytest.raises(IllegalPlay, match=r"^trick 6, seat N: 6D does not follow spades"):
            self.replay({21: "6D"})

    def test_spade_lead_before_broken(self):
        with pytest.raises(
            IllegalPlay,
            match=r"^trick 1, seat N: cannot lead spades before they are broken \(2S\)$",
        ):
            self.replay({0: "2S"})
        # Trick 3: W leads AS, nothing broken yet.
        with pytest.raises(IllegalPlay, match=r"^trick 3, seat W: cannot lead spades .*\(AS\)$"):
            self.replay({8: "AS"})

    def test_spade_lead_any_time(self):
        # With spades_lead any_time, W may lead AS to trick 3; the replay then fails on
        # N's 2D, which no longer follows the suit led.
        with pytest.raises(IllegalPlay, match=r"^trick 3, seat N: 2D does not follow spades"):
            self.replay({8: "AS"}, Rules(spades_lead="any_time"))

    def test_not_held(self):
        with pytest.raises(IllegalPlay, match=r"^trick 1, seat E: does not hold 4C$"):
            self.replay({1: "4C"})

    def test_played_twice(self):
        with pytest.raises(
            IllegalPlay, match=r"^trick 2, seat N: AC was already played \(trick 1\)$"
        ):
            self.replay({4: "AC"})
        with pytest.raises(
            IllegalPlay, match=r"^trick 2, seat S: 4C was already played \(trick 1\)$"
        ):
            self.replay({6: "4C"})

    def test_unknown_card(self):
        with pytest.raises(IllegalPlay, match=r"^trick 1, seat S: unknown card 'ZZ'"):
            self.replay({2: "ZZ"})

    def test_two_of_clubs_first_lead(self):
        # N holds the 2C, so N leads whoever dealt; AC is refused.
        with pytest.raises(
            IllegalPlay, match=r"^trick 1, seat N: must lead the 2C to the first trick, not AC$"
        ):
            self.replay({}, Rules(first_lead="two_of_clubs"), dealer="N")

    def test_wrong_number_of_plays(self):
        with pytest.raises(
            IllegalPlay, match=r"^expected 52 plays \(13 tricks of 4 cards\), got 51$"
        ):
            replay_hand(STRUCTURED, "W", (0, 3, 3, 4), STRUCTURED_PLAYS[:-1])
        with pytest.raises(IllegalPlay, match=r"expected 52 plays .* got 53"):
            replay_hand(STRUCTURED, "W", (0, 3, 3, 4), [*STRUCTURED_PLAYS, "AS"])

    def test_two_player_names(self):
        rules = Rules.preset("two-player")
        hands = ["AKQJT98765432...", ".AKQJT98765432.."]
        # Dealer P0 drew first, so P1 leads (2H); P0, who holds only spades, plays 3H.
        plays = ["2H", "3H", *STRUCTURED_PLAYS[:24]]  # 26 plays; the rest never reached
        with pytest.raises(IllegalPlay, match=r"^trick 1, seat P0: does not hold 3H$"):
            replay_hand(hands, 0, (13, 0), plays, rules)
        with pytest.raises(IllegalPlay, match=r"^expected 26 plays \(13 tricks of 2 cards\)"):
            replay_hand(hands, 0, (13, 0), plays[:25], rules)


class TestMisdeals:
    def deal(self, hands, rules: Rules = STANDARD):
        return replay_hand(hands, "W", (0, 3, 3, 4), STRUCTURED_PLAYS, rules)

    def test_missing_card(self):
        hands = list(STRUCTURED)
        hands[0] = "T62.T62.T62.AT6"  # 2C left out
        with pytest.raises(Misdeal, match=r"card 2C is missing from the deal \(N holds 12\)"):
            self.deal(hands)

    def test_duplicated_across_seats(self):
        hands = list(STRUCTURED)
        hands[1] = "J73.J73.AJ73.J72"  # E has N's 2C instead of 3C
        with pytest.raises(Misdeal, match="seat E: card 2C is also held by seat N"):
            self.deal(hands)

    def test_unknown_card_text(self):
        hands = list(STRUCTURED)
        hands[2] = "Q84.AQ84.Q84.Q8X"
        with pytest.raises(Misdeal, match="seat S: unknown rank 'X'"):
            self.deal(hands)
        hands[2] = "QS 8S 4S AH QH 8H 4H QD 8D 4D QC 8C 1C"
        with pytest.raises(Misdeal, match="seat S: unknown card '1C'"):
            self.deal(hands)

    def test_wrong_count(self):
        hands = list(STRUCTURED)
        hands[0] = "T62.T62.T62.AT632"  # N takes E's 3C
        hands[1] = "J73.J73.AJ73.J7"
        with pytest.raises(Misdeal, match="every seat must hold 13 cards: N holds 14, E holds 12"):
            self.deal(hands)

    def test_wrong_number_of_hands(self):
        with pytest.raises(Misdeal, match="needs 4 hands, got 3"):
            self.deal(STRUCTURED[:3])

    def test_joker_without_jokers_rule(self):
        hands = list(STRUCTURED)
        hands[3] = "BJK95.K95.K95.K95"
        with pytest.raises(Misdeal, match="seat W: card BJ is not in the standard deck"):
            self.deal(hands)

    def test_removed_two_with_jokers_rule(self):
        with pytest.raises(Misdeal, match="seat N: card 2H is not in the jokers deck"):
            self.deal(STRUCTURED, Rules(jokers=True))


def test_replay_hand_refuses_bad_arguments():
    with pytest.raises(ValueError, match="dealer: unknown seat 'Q'"):
        replay_hand(STRUCTURED, "Q", (0, 3, 3, 4), STRUCTURED_PLAYS)
    with pytest.raises(ValueError, match="bids: expected 4 entries"):
        replay_hand(STRUCTURED, "W", (0, 3, 3), STRUCTURED_PLAYS)
    with pytest.raises(ValueError, match="blind_nil: seat E bid 3"):
        replay_hand(STRUCTURED, "W", (0, 3, 3, 4), STRUCTURED_PLAYS, blind_nil=["E"])
    with pytest.raises(
        ValueError, match=r"blind_nil: seat N .* side N-S is level, it must be behind by at least"
    ):
        replay_hand(
            STRUCTURED, "W", (0, 3, 3, 4), STRUCTURED_PLAYS,
            Rules(blind_nil_min_deficit=50), blind_nil=["N"],
        )  # fmt: skip


def test_replay_blind_nil_hand():
    # N blind nil (took 3 tricks): -200, 3 bags; S bid 3 took 2: -30. -227.
    result = replay_hand(STRUCTURED, "W", (0, 3, 3, 4), STRUCTURED_PLAYS, blind_nil=[0])
    assert result.score_change == (-227, 71)


def test_two_player_hand():
    rules = Rules.preset("two-player")
    # P0 all spades, P1 all hearts. P0 drew first (dealer 0), so P1 leads hearts; P0 can
    # only ruff, wins, and then leads spades (all it holds): P0 wins all 13.
    hands = ["AKQJT98765432...", ".AKQJT98765432.."]
    plays = ["AH", "2S"]
    for spade, heart in zip("AKQJT9876543", "KQJT98765432", strict=True):
        plays += [spade + "S", heart + "H"]
    result = replay_hand(hands, 0, (13, 0), plays, rules)
    assert result.trick_winners == (0,) * 13
    assert result.tricks == (13, 0)
    # P0: bid 13 made, 130, and a Boston; P1: nil made (0 tricks), +100.
    assert result.score_change == (130, 100)
    assert result.nil_made == (None, True)
    # If P1 drew first (dealer 1), P0 leads: a spade (it holds only spades).
    result = replay_hand(hands, 1, (13, 0), ["2S", "AH", *plays[2:]], rules)
    assert result.tricks == (13, 0)


# ======================================================================================
# Games
# ======================================================================================


class TestGameResult:
    def test_play_goes_on(self):
        assert game_result((100, 200), 3, STANDARD) == (None, "")
        assert game_result((499, -1000), 3, STANDARD) == (None, "")  # no threshold

    def test_target(self):
        assert game_result((500, 200), 3, STANDARD) == (0, "target")
        assert game_result((20, 530), 3, STANDARD) == (1, "target")

    def test_both_over_target(self):
        assert game_result((520, 560), 3, STANDARD) == (1, "target")
        assert game_result((600, 510), 3, STANDARD) == (0, "target")
        assert game_result((520, 520), 3, STANDARD) == (None, "")  # tie: play on

    def test_loss_threshold(self):
        rules = Rules.preset("mercy")  # loss_threshold -200
        assert game_result((-200, 50), 3, rules) == (1, "loss_threshold")  # "at" counts
        assert game_result((40, -350), 3, rules) == (0, "loss_threshold")
        assert game_result((-199, 50), 3, rules) == (None, "")
        # Both at or below: the higher wins; a tie plays on.
        assert game_result((-250, -300), 3, rules) == (0, "loss_threshold")
        assert game_result((-300, -210), 3, rules) == (1, "loss_threshold")
        assert game_result((-300, -300), 3, rules) == (None, "")
        # Reaching the target beats the threshold.
        assert game_result((-300, 500), 3, rules) == (1, "target")

    def test_max_hands(self):
        rules = Rules(max_hands=10)
        assert game_result((100, 200), 9, rules) == (None, "")
        assert game_result((100, 200), 10, rules) == (None, "unfinished")
        assert game_result((510, 510), 10, rules) == (None, "unfinished")
        assert game_result((510, 200), 10, rules) == (0, "target")  # a result comes first


def _random_deal(rng: random.Random, rules: Rules) -> list[int]:
    deck = cards_of(deck_mask(rules.jokers))
    rng.shuffle(deck)
    hands = [0] * rules.players
    for index, card in enumerate(deck[: 13 * rules.players]):
        hands[index % rules.players] |= 1 << card
    return hands


def _random_chooser(rng: random.Random) -> Callable[[int, int, int, tuple[int, ...]], int]:
    def choose(seat: int, hand: int, legal: int, trick: tuple[int, ...]) -> int:
        return rng.choice(cards_of(legal))

    return choose


def _play_game(rules: Rules, seed: int, first_dealer: int = 2) -> list[dict]:
    """Play a game with random deals, bids and plays until game_result ends it."""
    rng = random.Random(seed)
    records: list[dict] = []
    scores: tuple[int, ...] = (0, 0)
    bags: tuple[int, ...] = (0, 0)
    while True:
        hands = _random_deal(rng, rules)
        dealer = (first_dealer + len(records)) % rules.players
        bids = [rng.randint(0, 6) for _ in range(rules.players)]
        plays, result = play_out(hands, dealer, bids, rules, _random_chooser(rng))
        # play_out starts from 0-0; rescore from the running totals.
        scored = replay_hand(hands, dealer, bids, plays, rules, (), scores, bags)
        assert scored.tricks == result.tricks
        records.append({"hands": hands, "dealer": dealer, "bids": bids, "plays": plays})
        scores, bags = scored.scores_after, scored.bags_after
        if game_result((scores[0], scores[1]), len(records), rules)[1]:
            return records


class TestReplayGame:
    rules = Rules(target=200, max_hands=40)

    def test_a_whole_game(self):
        records = _play_game(self.rules, seed=7)
        game = replay_game(records, self.rules)
        assert isinstance(game, GameReplay)
        assert game.hands_played == len(records) == len(game.results)
        # The running totals are the sums of the per-hand changes.
        for side in (0, 1):
            assert game.scores[side] == sum(r.score_change[side] for r in game.results)
            assert game.bag_penalties[side] == sum(r.bag_penalties[side] for r in game.results)
        assert game.bags == game.results[-1].bags_after
        assert (game.winner, game.reason) == game_result(game.scores, len(records), self.rules)
        assert game.reason in ("target", "loss_threshold", "unfinished")
        # Each hand started from the previous one's scores.
        for before, after in zip(game.results, game.results[1:], strict=False):
            assert after.scores_after[0] == before.scores_after[0] + after.score_change[0]

    def test_hands_after_the_end_are_refused(self):
        records = _play_game(self.rules, seed=7)
        extra = dict(records[0], dealer=(2 + len(records)) % 4)
        with pytest.raises(ValueError, match=f"hand {len(records) + 1} follows the end"):
            replay_game([*records, extra], self.rules)

    def test_records_stopping_early_are_refused(self):
        records = _play_game(self.rules, seed=7)
        with pytest.raises(ValueError, match="before the game ended"):
            replay_game(records[:-1], self.rules)
        with pytest.raises(ValueError, match="at least one hand"):
            replay_game([], self.rules)

    def test_dealer_must_rotate(self):
        records = _play_game(self.rules, seed=7)
        wrong = [dict(record) for record in records]
        wrong[1]["dealer"] = (wrong[1]["dealer"] + 1) % 4
        with pytest.raises(ValueError, match="hand 2: dealer is"):
            replay_game(wrong, self.rules)

    def test_errors_name_the_hand(self):
        records = _play_game(self.rules, seed=7)
        wrong = [dict(record) for record in records]
        wrong[1]["plays"] = wrong[1]["plays"][:-1]
        with pytest.raises(IllegalPlay, match=r"^hand 2: expected 52 plays"):
            replay_game(wrong, self.rules)

    def test_dealt_hands_are_checked_against_the_exchange(self):
        rules = Rules.preset("blind-nil-exchange", target=200, max_hands=40)
        records = _play_game(rules, seed=7)
        # No blind nil was bid, so the dealt hands must be the hands held.
        same = [dict(record, dealt=record["hands"]) for record in records]
        assert replay_game(same, rules) == replay_game(records, rules)
        moved = [dict(record) for record in records]
        moved[0]["dealt"] = list(reversed(records[0]["hands"]))
        with pytest.raises(ValueError, match=r"^hand 1: seat N: hand changed"):
            replay_game(moved, rules)

    def test_unfinished_at_max_hands(self):
        rules = Rules(target=100_000, max_hands=3)
        records = _play_game(rules, seed=3)
        assert len(records) == 3
        game = replay_game(records, rules)
        assert (game.winner, game.reason, game.hands_played) == (None, "unfinished", 3)

    def test_two_player_game(self):
        rules = Rules.preset("two-player", target=150)
        records = _play_game(rules, seed=11, first_dealer=1)
        game = replay_game(records, rules)
        assert game.reason in ("target", "unfinished")

    def test_mercy_game(self):
        rules = Rules.preset("mercy", target=2000, max_hands=60)
        records = _play_game(rules, seed=5)
        game = replay_game(records, rules)
        assert game.reason in ("loss_threshold", "target", "unfinished")


# ======================================================================================
# Blind nil exchange
# ======================================================================================


class TestBlindNilExchange:
    rules = Rules.preset("blind-nil-exchange")  # 3 cards each way

    # N blind nil passes AKQ of spades to S, and gets S's AKQ of diamonds.
    held = ("JT98765432..AKQ.", ONE_SUIT_EACH[1], "AKQ..JT98765432.", ONE_SUIT_EACH[3])

    def test_valid_exchange(self):
        check_blind_nil_exchange(ONE_SUIT_EACH, self.held, (0, 3, 4, 3), [0], self.rules)

    def test_partner_of_blind_nil_may_be_the_one_listed_second(self):
        # W blind nil exchanges with E: E gives AKQ hearts, W gives AKQ clubs.
        held = [
            ONE_SUIT_EACH[0], ".JT98765432..AKQ", ONE_SUIT_EACH[2], ".AKQ..JT98765432"
        ]  # fmt: skip
        check_blind_nil_exchange(ONE_SUIT_EACH, held, (4, 3, 4, 0), ["W"], self.rules)

    def test_wrong_number_passed(self):
        # Only AK pass each way.
        held = ["QJT98765432..AK.", ONE_SUIT_EACH[1], "AK..QJT98765432.", ONE_SUIT_EACH[3]]
        with pytest.raises(ValueError, match=r"seat N: passed 2 cards to S .* exactly 3"):
            check_blind_nil_exchange(ONE_SUIT_EACH, held, (0, 3, 4, 3), [0], self.rules)

    def test_no_exchange_without_blind_nil(self):
        with pytest.raises(ValueError, match="seat N: hand changed, but no blind nil exchange"):
            check_blind_nil_exchange(ONE_SUIT_EACH, self.held, (0, 3, 4, 3), [], self.rules)

    def test_other_hands_must_not_change(self):
        held = ["JT98765432..AKQ.", "AKQ.JT98765432..", ".AKQ.JT98765432.", ONE_SUIT_EACH[3]]
        with pytest.raises(ValueError, match="seat E: hand changed"):
            check_blind_nil_exchange(ONE_SUIT_EACH, held, (0, 3, 4, 3), [0], self.rules)

    def test_exchange_outside_the_pair(self):
        # N swaps with E instead of its partner S.
        held = ["JT98765432.AKQ..", "AKQ.JT98765432..", *ONE_SUIT_EACH[2:]]
        with pytest.raises(ValueError, match="seat E: hand changed"):
            check_blind_nil_exchange(ONE_SUIT_EACH, held, (0, 3, 4, 3), [0], self.rules)

    def test_both_partners_blind_nil_move_nothing(self):
        check_blind_nil_exchange(ONE_SUIT_EACH, ONE_SUIT_EACH, (0, 3, 0, 3), [0, 2], self.rules)
        with pytest.raises(ValueError, match="seat N: hand changed"):
            check_blind_nil_exchange(ONE_SUIT_EACH, self.held, (0, 3, 0, 3), [0, 2], self.rules)

    def test_no_exchange_rule(self):
        check_blind_nil_exchange(ONE_SUIT_EACH, ONE_SUIT_EACH, (0, 3, 4, 3), [0], STANDARD)
        with pytest.raises(ValueError, match="seat N: hand changed"):
            check_blind_nil_exchange(ONE_SUIT_EACH, self.held, (0, 3, 4, 3), [0], STANDARD)

    def test_held_must_be_a_deal(self):
        held = ["JT98765432..AKQ.", ONE_SUIT_EACH[1], "AK..JT98765432.", ONE_SUIT_EACH[3]]
        with pytest.raises(Misdeal):
            check_blind_nil_exchange(ONE_SUIT_EACH, held, (0, 3, 4, 3), [0], self.rules)

    def test_blind_nil_seat_must_bid_zero(self):
        with pytest.raises(ValueError, match="blind_nil: seat N bid 2"):
            check_blind_nil_exchange(ONE_SUIT_EACH, self.held, (2, 3, 4, 3), [0], self.rules)


class TestTwoPlayerExchange:
    rules = Rules.preset("two-player")  # up to 3 cards replaced from the unused pile
    dealt = ("AKQJT98765432...", ".AKQJT98765432..")  # diamonds and clubs unused

    def test_valid_replacements(self):
        for held0 in (
            "JT98765432...432",  # AKQ of spades for 2C 3C 4C
            "KQJT98765432..2.",  # one card
            self.dealt[0],  # none
        ):
            check_blind_nil_exchange(self.dealt, [held0, self.dealt[1]], (0, 5), [0], self.rules)

    def test_too_many(self):
        held = ["T98765432...5432", self.dealt[1]]
        with pytest.raises(ValueError, match=r"seat P0: replaced 4 cards .* at most 3"):
            check_blind_nil_exchange(self.dealt, held, (0, 5), [0], self.rules)

    def test_other_player_unchanged(self):
        held = [self.dealt[0], ".KQJT98765432..2"]
        with pytest.raises(ValueError, match="seat P1: hand changed"):
            check_blind_nil_exchange(self.dealt, held, (0, 5), [0], self.rules)

    def test_new_cards_come_from_the_unused_pile(self):
        # Both declared blind nil and swapped AS for AH: neither came from the pile.
        held = ["KQJT98765432.A..", "A.KQJT98765432.."]
        with pytest.raises(ValueError, match=r"seat P0: drew AH .* not in the unused pile"):
            check_blind_nil_exchange(self.dealt, held, (0, 0), [0, 1], self.rules)


# ======================================================================================
# play_out, and replay agreeing with it on random deals
# ======================================================================================


def test_play_out_lowest_card_on_structured_deal():
    plays, result = play_out(STRUCTURED, "W", (0, 3, 3, 4), STANDARD, lowest)
    assert len(plays) == 52
    assert sorted(plays) == list(range(52))
    # Trick 1: N leads its lowest non-spade, the 2C; E 3C, S 4C, W 5C -> W wins.
    assert plays[:4] == [parse_card(card) for card in ("2C", "3C", "4C", "5C")]
    assert result.trick_winners[0] == 3
    assert replay_hand(STRUCTURED, "W", (0, 3, 3, 4), plays) == result


def test_play_out_two_of_clubs_leader():
    rules = Rules(first_lead="two_of_clubs")
    # E holds the 2C (dealer S would otherwise make W the leader).
    hands = [STRUCTURED[1], STRUCTURED[0], STRUCTURED[3], STRUCTURED[2]]
    seen: list[int] = []

    def choose(seat: int, hand: int, legal: int, trick: tuple[int, ...]) -> int:
        seen.append(seat)
        return lowest(seat, hand, legal, trick)

    plays, result = play_out(hands, "S", (3, 3, 3, 3), rules, choose)
    assert seen[:4] == [1, 2, 3, 0]
    assert plays[0] == parse_card("2C")
    assert replay_hand(hands, "S", (3, 3, 3, 3), plays, rules) == result


def test_play_out_refuses_an_illegal_choice():
    def highest(seat: int, hand: int, legal: int, trick: tuple[int, ...]) -> int:
        return hand.bit_length() - 1  # the highest card held, legal or not

    with pytest.raises(IllegalPlay, match=r"^trick 1, seat N: cannot lead spades .*\(TS\)$"):
        play_out(STRUCTURED, "W", (0, 3, 3, 4), STANDARD, highest)


RANDOM_RULES = [
    Rules(),
    Rules.preset("jokers"),
    Rules.preset("two-player"),
    Rules(first_lead="two_of_clubs"),
    Rules(spades_lead="any_time", boston_bonus=100),
    Rules.preset("openspiel"),
    Rules.preset("no-bags"),
    Rules(nil_value=50, bag_limit=5, bag_penalty=50),
]


@pytest.mark.parametrize("seed", range(200))
def test_random_play_replays_to_the_same_result(seed):
    rng = random.Random(seed)
    rules = RANDOM_RULES[seed % len(RANDOM_RULES)]
    hands = _random_deal(rng, rules)
    dealer = rng.randrange(rules.players)
    bids = [rng.randint(0, 7) for _ in range(rules.players)]
    blind = [seat for seat in range(rules.players) if bids[seat] == 0 and rng.random() < 0.3]
    if not rules.blind_nil:
        blind = []
    seen_tricks: list[tuple[int, ...]] = []

    def choose(seat: int, hand: int, legal: int, trick: tuple[int, ...]) -> int:
        assert legal and legal & ~hand == 0
        if trick:
            seen_tricks.append(trick)
        return rng.choice(cards_of(legal))

    plays, result = play_out(hands, dealer, bids, rules, choose, blind)

    # Every card dealt is played exactly once; 13 tricks; the tricks add up.
    assert len(plays) == 13 * rules.players
    assert sorted(plays) == sorted(card for hand in hands for card in cards_of(hand))
    assert len(result.trick_winners) == 13
    assert sum(result.tricks) == 13
    for seat in range(rules.players):
        assert result.trick_winners.count(seat) == result.tricks[seat]
    # Follow suit: a card off the suit led means the player had none of it left.
    for index, card in enumerate(plays):
        lead = plays[index - index % rules.players]
        if _suit(card) != _suit(lead):
            assert _hand_before(hands, plays, index) & _suit_mask(_suit(lead)) == 0
    # The score identity per side.
    for side in (0, 1):
        assert result.scores_after[side] == result.score_change[side]
        assert result.bag_penalties[side] % max(rules.bag_penalty, 1) == 0
    # The replay agrees.
    assert replay_hand(hands, dealer, bids, plays, rules, blind) == result
    texts = [format_hand(hand) for hand in hands]
    assert replay_hand(texts, dealer, bids, plays, rules, blind) == result


def _suit(card: int) -> int:
    return 3 if card >= 52 else card // 13


def _suit_mask(suit: int) -> int:
    return SPADE_MASK if suit == 3 else 0x1FFF << (13 * suit)


def _hand_before(hands: list[int], plays: list[int], index: int) -> int:
    """The hand of the player of ``plays[index]`` just before that play."""
    owner = next(seat for seat, hand in enumerate(hands) if hand >> plays[index] & 1)
    played_before = 0
    for card in plays[:index]:
        played_before |= 1 << card
    return hands[owner] & ~played_before
