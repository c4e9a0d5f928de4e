"""Comparing strategies: duplicate matches of two policies, hands or whole games.

A **duplicate** comparison plays the same deals twice with the sides swapped: once with
A North-South and B East-West, once the other way round. The random streams are
counter-based (a deal's cards depend only on the seed and the deal's index; in games,
hand ``h`` of game ``g`` depends only on the seed, ``g`` and ``h``), so one seed gives
the same deals in both runs and A holds each side's cards once. Pairing the two plays of
a deal cancels most of the luck of the cards, which is what makes small differences
between strategies measurable (the method of duplicate bridge).

A and B are two play policies (``kind="play"``, every seat bidding alike), two bidding
policies (``kind="bid"``), or two whole sides (``kind="side"``: each a ``(bidding,
play)`` pair, so a bidder and a player tuned together meet another pair).

A's score margin on a hand is its side's score change minus B's side's; the paired
margin of a deal is the average over the two seatings, and the reported figure its mean
per hand with a normal 95% interval (``stats.mean_ci``).

Games mode (``mode="games"``) plays ``n`` whole games with A as N-S and the same ``n``
games (same seed, so the same deals hand by hand) with A as E-W. It reports A's win rate
over the ``2 n`` games with a Wilson interval (an unfinished game, one that reached the
rules' ``max_hands``, counts as not won) and the share of unfinished games separately,
beside the per-hand margin. The games of the two seatings last different numbers of
hands, so the margin pairs the hands both played (game ``g``, hand ``h``: the same
cards); its interval treats those hands as independent, although hands of one game are
tied together by the score.

>>> r = duplicate("heuristic", "random", 200, seed=1)
>>> r.margin.value > 0
True
>>> g = duplicate("heuristic", "random", 20, seed=1, mode="games")
>>> g.wins.n, g.wins.value > 0.5
(40, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from spades_sim.analysis.stats import Estimate, mean_ci, proportion_ci
from spades_sim.policies import Kind, Policy
from spades_sim.rules import Rules
from spades_sim.run.spec import PolicyArg
from spades_sim.simulate import simulate_games, simulate_hands
from spades_sim.validate import check_count


@dataclass(frozen=True)
class Duplicate:
    """The result of a duplicate comparison of policy ``a`` against ``b``.

    In games mode ``wins`` is A's win rate over the ``2 n`` games and ``unfinished`` the
    share of them that reached ``max_hands`` (both None in hands mode). ``nils_made`` is
    the share of the nils (blind nils included) bid on A's side that were made, and
    ``nils_set`` the share of B's side's nils that failed, over both seatings, with
    Wilson intervals: how A plays a nil (covering its partner's, or its own) and how it
    defends against one (``kind="play"``; with ``kind="bid"`` they also reflect which
    nils each bidder bids).
    """

    kind: Kind | Literal["side"]
    a: str
    b: str
    margin: Estimate  # A's mean score margin per hand, paired over the two seatings
    a_as_ns: Estimate  # A's margin when seated North-South only
    a_as_ew: Estimate  # ... and East-West only
    paired: np.ndarray  # the paired margin of every deal (games: of every hand both played)
    mode: str = "hands"
    wins: Estimate | None = None
    unfinished: Estimate | None = None
    nils_made: Estimate | None = None  # A's side's nils (and blind nils) made, both seatings
    nils_set: Estimate | None = None  # B's side's nils that failed against A, both seatings

    def __str__(self) -> str:
        text = f"{self.a} vs {self.b} ({self.kind}, duplicate {self.mode}): "
        if self.wins is not None and self.unfinished is not None:
            text += f"A won {self.wins}, unfinished {self.unfinished.value:.3f}; "
        return text + f"A's margin per hand {self.margin}"

    def to_frame(self) -> pd.DataFrame:
        """The figures as a tidy table (``measure``, ``n``, ``estimate``, ``ci_low``,
        ``ci_high``), as the other analyses give them.

        >>> duplicate("heuristic", "random", 50, seed=2).to_frame().measure.tolist()
        ['margin', 'a_as_ns', 'a_as_ew', 'nils_made', 'nils_set']
        """
        rows = [("margin", self.margin), ("a_as_ns", self.a_as_ns), ("a_as_ew", self.a_as_ew)]
        if self.wins is not None and self.unfinished is not None:
            rows += [("win_rate", self.wins), ("unfinished", self.unfinished)]
        for name, value in (("nils_made", self.nils_made), ("nils_set", self.nils_set)):
            if value is not None:
                rows.append((name, value))
        return pd.DataFrame(
            [(name, e.n, e.value, e.low, e.high) for name, e in rows],
            columns=["measure", "n", "estimate", "ci_low", "ci_high"],
        )


def _hand_keys(hands: pd.DataFrame) -> list[str]:
    return ["game", "hand_no"] if "game" in hands.columns else ["deal"]


def hand_margins(hands: pd.DataFrame) -> pd.Series:
    """Side 0's score change minus side 1's, per hand, indexed by the deal (hands mode)
    or by game and hand number (games mode), in that order.

    >>> hands, _ = simulate_games(2, seed=1)
    >>> hand_margins(hands).index.names
    FrozenList(['game', 'hand_no'])
    """
    keys = _hand_keys(hands)
    first = hands[hands.seat == 0].set_index(keys).score_change.astype(np.float64)
    second = hands[hands.seat == 1].set_index(keys).score_change.astype(np.float64)
    return (first - second).sort_index()


def side_margins(hands: pd.DataFrame) -> np.ndarray:
    """Per deal (in deal order; games: per hand, by game and hand): side 0's score change
    minus side 1's.

    >>> df = simulate_hands(3, seed=1)
    >>> side_margins(df).shape
    (3,)
    """
    return hand_margins(hands).to_numpy()


def _label(policy: PolicyArg | tuple[PolicyArg, PolicyArg]) -> str:
    if isinstance(policy, tuple):  # a side: bidding/play, as the policy labels read
        return "/".join(_label(p) for p in policy)
    if isinstance(policy, Policy):
        return policy.to_text()
    if isinstance(policy, str):
        return policy
    return getattr(policy, "__name__", repr(policy))


def duplicate(
    a: PolicyArg | tuple[PolicyArg, PolicyArg],
    b: PolicyArg | tuple[PolicyArg, PolicyArg],
    n: int,
    *,
    seed: int,
    kind: Kind | Literal["side"] = "play",
    mode: str = "hands",
    rules: Rules | None = None,
    bidding: PolicyArg = "count",
    play: PolicyArg = "heuristic",
    draw: PolicyArg = "threshold",
    threads: int | None = None,
    level: float = 0.95,
) -> Duplicate:
    """Play ``n`` deals (``mode="games"``: ``n`` whole games under ``rules``) twice, A
    North-South then A East-West, and compare A with B.

    ``kind`` says which policies A and B are: ``"play"`` (both sides bid with
    ``bidding``), ``"bid"`` (both sides play with ``play``) or ``"side"`` (each a
    ``(bidding, play)`` pair; ``bidding`` and ``play`` are then unused).

    >>> r = duplicate("count", "random", 100, seed=3, kind="bid")
    >>> r.margin.n
    100
    """
    if kind not in ("play", "bid", "side"):
        raise ValueError(f"kind: must be 'play', 'bid' or 'side', got {kind!r}")
    if kind == "side" and not (
        isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) == 2
    ):
        raise ValueError("kind='side': A and B must each be a (bidding, play) pair")
    if mode not in ("hands", "games"):
        raise ValueError(f"mode: must be 'hands' or 'games', got {mode!r}")
    check_count(n, "n", 1, f"the number of {'games' if mode == 'games' else 'deals'}")
    if rules is not None and not rules.partnerships:
        # A's margin is one partnership's score against the other's; four lone seats have
        # no such pair of scores
        raise ValueError(
            "rules: duplicate compares two partnerships; cutthroat (partnerships=false, four "
            "or three players) is not compared"
        )
    common: dict[str, Any] = {"seed": seed, "rules": rules, "draw": draw, "threads": threads}
    if kind == "side":
        assert isinstance(a, tuple) and isinstance(b, tuple)
        seatings: list[dict[str, Any]] = [
            {"bidding": (a[0], b[0]), "play": (a[1], b[1])},
            {"bidding": (b[0], a[0]), "play": (b[1], a[1])},
        ]
    elif kind == "play":
        seatings = [
            {"bidding": bidding, "play": (a, b)},
            {"bidding": bidding, "play": (b, a)},
        ]
    else:
        seatings = [{"bidding": (a, b), "play": play}, {"bidding": (b, a), "play": play}]
    games: list[pd.DataFrame] = []
    if mode == "games":
        (first, first_games), (second, second_games) = (
            simulate_games(n, **common, **seating) for seating in seatings
        )
        games = [first_games, second_games]
    else:
        first, second = (simulate_hands(n, **common, **seating) for seating in seatings)
    ns = hand_margins(first)
    ew = -hand_margins(second)
    ns_paired, ew_paired = ns.align(ew, join="inner")  # games: the hands both seatings played
    paired = ((ns_paired + ew_paired) / 2).to_numpy()
    wins = unfinished = None
    if games:
        won = int((games[0].winner == 0).sum() + (games[1].winner == 1).sum())
        open_games = int((games[0].winner < 0).sum() + (games[1].winner < 0).sum())
        wins = proportion_ci(won, 2 * n, level)
        unfinished = proportion_ci(open_games, 2 * n, level)
    made = nils = set_ = against = 0
    for frame, a_side in ((first, 0), (second, 1)):
        bid_nil = frame[frame.nil | frame.blind_nil]
        mine = bid_nil[bid_nil.side == a_side]
        theirs = bid_nil[bid_nil.side != a_side]
        made, nils = made + int(mine.nil_made.sum()), nils + len(mine)
        set_, against = set_ + int((~theirs.nil_made).sum()), against + len(theirs)
    return Duplicate(
        kind=kind,
        a=_label(a),
        b=_label(b),
        margin=mean_ci(paired, level),
        a_as_ns=mean_ci(ns.to_numpy(), level),
        a_as_ew=mean_ci(ew.to_numpy(), level),
        paired=paired,
        mode=mode,
        wins=wins,
        unfinished=unfinished,
        nils_made=proportion_ci(made, nils, level) if nils else None,
        nils_set=proportion_ci(set_, against, level) if against else None,
    )


def side_rows(hands: pd.DataFrame) -> pd.DataFrame:
    """One row per side and hand (a side's own seat carries its figures: seats 0 and 1 in
    partnerships, every seat with two players and in cutthroat).

    >>> len(side_rows(simulate_hands(3, seed=1)))
    6
    """
    return hands[hands.seat == hands.side]


__all__ = ["Duplicate", "duplicate", "hand_margins", "side_margins", "side_rows"]
