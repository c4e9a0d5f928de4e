"""What should I bid here? Every bid a seat may make, valued at this table and this score.

Contract
--------
:func:`advise` holds ``hand`` at ``seat`` with ``dealer`` dealing, after the bids made
before the seat's turn (``bids``), at the scores and bags before the hand (``scores``,
``bags``: **by side, N-S (side 0) first**; with two players P0 first; in cutthroat by
seat, N (P0) first). It draws ``n`` completions of the other hands as the seat knows the
table: its hand, the cards it knows elsewhere (``given``), feature ranges (``require``)
and the bids already made, read as the bid-reading samplers of ``lookahead`` and
``pimc`` read them (:class:`~.sampling.BidFit`: each earlier seat's bidder, seated at
the table, given its sampled hand, bids what it bid, as far as the fitting reaches).
Every completion is then played once per bid the seat may make (paired: the same
completion, dealer and random streams for every bid): the earlier seats bid what they
bid, the seats after it bid by their policies knowing its bid, then everyone plays
(:func:`~.nil.play_completions`, the kernels of ``nil_odds``). The nil row is therefore
``nil_odds``'s nil on the same completions and seed.

:class:`BidAdvice` holds the answer: ``table``, one row per bid (``"blind nil"`` while
the rules allow it, ``"nil"``, then the number bids the bid rule allows), with ``made``
(the side's contract made; for nil and blind nil, the nil), ``points`` (the side's mean
points this hand, bag penalty included), ``bags`` (the side's mean bags this hand),
``win`` (the side's chance to win the game from here: over the completions, 1 or 0 when
the hand ends the game, else the win-probability table of the rules and policies,
:func:`~.equity.win_table`, at the score and bags after the hand, the next dealer
dealing; NaN in cutthroat, which has no table) and ``gain`` (the paired difference to
the best bid, in win where it is known, else in points), each with
``*_low``/``*_high`` 95% intervals (Wilson for shares, normal for means), and ``n``.
``best`` names the best bid (by ``win`` when known, else by ``points``) among those a
seat that has seen its hand may make: the blind nil row values a blind nil with this
hand (what it would have been worth bid before looking), so its gain may be positive.
``fatal_cards`` gives, for the nil and blind nil rows, the cards that took the nil
bidder's first trick in the completions where the nil failed, each with its share of the
failures (as ``nil_odds``'s ``fatal_cards``, on these completions).

Bad input (a hand of the wrong size, a card twice, a bid by a seat after ``seat``, a
missing or forbidden bid, a score at or past the target, ``n`` of 0) raises one
``ValueError`` (a :class:`~spades_sim.errors.SpadesError` for cards) naming it.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from spades_sim._nb.bidding import bid_range_nb
from spades_sim._nb.enums import (
    GIVEN_KIND,
    GIVEN_SHIFT,
    N_INFO,
    SEATED_BIDS,
    InfoSlot,
)
from spades_sim._nb.odds import SideOut
from spades_sim.analysis.stats import mean_ci_of_moments, proportion_ci
from spades_sim.cards import N_CARD_IDS, Hand, format_hand, seat_name
from spades_sim.odds.conditions import Conditions, seat_of
from spades_sim.odds.equity import WinTable, win_table
from spades_sim.odds.nil import first_trick_cards, play_completions
from spades_sim.odds.sampling import BidFit, Sampler
from spades_sim.rules import BidRule, Rules
from spades_sim.run.spec import RunSpec, SidePolicies
from spades_sim.text import rules_text, side_policies_text
from spades_sim.threads import kernel_threads
from spades_sim.validate import check_bags_before, check_count, is_int

__all__ = [
    "COLUMNS",
    "FIT_TRIES",
    "BidAdvice",
    "advice_completions",
    "advise",
    "game_winner",
    "given_bids_code",
    "parse_bid",
]

FIT_TRIES = 4096
"""Draws per completion until the earlier bids fit (the most ``lookahead``'s and
``pimc``'s ``fit_tries`` allows: one table, not a decision per card, can afford it; a nil
before the seat's turn fits about 1 draw in 250); then the best-fitting draw is kept (a
relaxed completion)."""

COLUMNS = (
    "bid",
    *(f"{m}{s}" for m in ("made", "points", "bags", "win", "gain") for s in ("", "_low", "_high")),
    "n",
)
"""The columns of :attr:`BidAdvice.table`, in order."""

BYTES_A_ROW = 25
"""Memory :func:`advise` keeps for each completion and bid row: its points, win and bags
(8 bytes each) and whether it was made (1)."""
BYTES_A_COMPLETION = 48
"""Memory kept for each completion beside its rows: its misfit, and the float copies an
interval is computed from."""

MAX_TRIES = 200_000_000  # draws allowed for ``require`` ranges, as ``nil_odds``'s default
NIL, BLIND = "nil", "blind nil"
NUMBER, NIL_KIND, BLIND_KIND = 0, 1, 2  # the kernels' nil kinds


def parse_bid(value: Any, what: str, top: int) -> tuple[int, int]:
    """A bid as (bid, nil kind): an int 0..``top`` (0 is nil), ``"nil"``, ``"blind nil"``
    (``"blind"``, ``"bn"``) or digits.

    >>> parse_bid("nil", "N", 13), parse_bid(4, "E", 13), parse_bid("blind nil", "S", 13)
    ((0, 1), (4, 0), (0, 2))
    """
    if isinstance(value, str):
        text = " ".join(value.strip().lower().replace("_", " ").replace("-", " ").split())
        if text == NIL:
            return 0, NIL_KIND
        if text in (BLIND, "blind", "bn", "blindnil"):
            return 0, BLIND_KIND
        if text.isdigit():
            value = int(text)
    if not is_int(value) or not 0 <= int(value) <= top:
        raise ValueError(f"bids: {what} bid {value!r}; a bid is 0..{top}, 'nil' or 'blind nil'")
    return int(value), NIL_KIND if int(value) == 0 else NUMBER


def _bid_text(bid: int, kind: int) -> str:
    return BLIND if kind == BLIND_KIND else NIL if kind == NIL_KIND else str(bid)


def _per_side(name: str, values: Any, rules: Rules) -> tuple[int, ...]:
    sides = rules.sides
    order = ", ".join(rules.side_name(s) for s in range(sides))
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ValueError(
            f"{name}: expected {sides} numbers, one per side ({order}), got {values!r}"
        )
    out = list(values)
    if len(out) != sides or not all(is_int(v) for v in out):
        raise ValueError(
            f"{name}: expected {sides} whole numbers, one per side ({order}), got {values!r}"
        )
    return tuple(int(v) for v in out)


def _check_scores(scores: Any, bags: Any, rules: Rules) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Scores and bags by side, checked: the game still on, bags below the limit."""
    score = _per_side("scores", scores, rules)
    bag = _per_side("bags", bags, rules)
    if game_winner(np.array([score]), rules)[0] >= 0:  # a tie at the top plays on
        top = max(score)
        name = rules.side_name(score.index(top))
        if top >= rules.target:
            why = f"{name} has {top}, at or past the target {rules.target}"
        else:
            why = f"a side is at or below the loss threshold {rules.loss_threshold}"
        raise ValueError(f"scores: {why}: the game is over")
    return score, check_bags_before(bag, rules, "bags")


def game_winner(scores: np.ndarray, rules: Rules) -> np.ndarray:
    """The side that has won the game at each row of ``scores`` (k, sides) after a hand, or
    -1 while play goes on (docs/rules.md, "Ending a game"): the one side with the highest
    score once it is at or over the target; else, with a loss threshold, the one highest
    side once some side is at or below it; a tie at the top plays on.

    >>> game_winner(np.array([[510, 480], [510, 510], [400, 300]]), Rules()).tolist()
    [0, -1, -1]
    """
    scores = np.asarray(scores, dtype=np.int64)
    best = scores.max(axis=1)
    leader = scores.argmax(axis=1)
    alone = (scores == best[:, None]).sum(axis=1) == 1
    over = best >= rules.target
    if rules.loss_threshold is not None:
        over |= scores.min(axis=1) <= rules.loss_threshold
    return np.where(over & alone, leader, -1)


def given_bids_code(earlier: Mapping[int, tuple[int, int]]) -> int:
    """The bids made before the seat's turn (seat -> (bid, nil kind)) as the kernels take
    them above the seat's own bid (``enums.GIVEN_SHIFT``).

    >>> hex(given_bids_code({0: (4, 0), 1: (0, 1)}))
    '0x210500'
    """
    code = 0
    for s, (bid, kind) in earlier.items():
        code |= (1 + kind * GIVEN_KIND + bid) << (GIVEN_SHIFT * (s + 1))
    return code


def _blind_nil_allowed(rules: Rules, side: int, scores: tuple[int, ...]) -> bool:
    if not rules.blind_nil:
        return False
    others = [s for k, s in enumerate(scores) if k != side]
    return max(others) - scores[side] >= rules.blind_nil_min_deficit


def _check_room(n: int, rows: int) -> None:
    """Refuse more completions than this machine's memory holds (every completion's
    outcome per bid row is kept until the table is made): one line naming ``n``."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return  # no sysconf (Windows): the allocation itself will say
    each = rows * BYTES_A_ROW + BYTES_A_COMPLETION
    if n * each > total:
        raise ValueError(
            f"n: {n:,} completions of {rows} bids need about {n * each / 2**30:,.0f} GiB, "
            f"more than this machine's {total / 2**30:.1f} GiB of memory: give at most "
            f"{total // each:,}"
        )


def _earlier_seats(hero: int, dealer: int, players: int) -> list[int]:
    """The seats that bid before ``hero``, in bidding order (from the dealer's left)."""
    order = [(dealer + 1 + k) % players for k in range(players)]
    return order[: order.index(hero)]


def _check_bids(
    bids: Mapping[Any, Any] | None,
    hero: int,
    dealer: int,
    rules: Rules,
    scores: tuple[int, ...],
    lowered: np.ndarray,
) -> dict[int, tuple[int, int]]:
    """The bids made before ``hero``'s turn, by seat, checked against the bid rule."""
    players = rules.players
    earlier = _earlier_seats(hero, dealer, players)
    given: dict[int, tuple[int, int]] = {}
    for key, value in (bids or {}).items():
        s = seat_of(key, players, "bids")
        name = seat_name(s, players)
        if s == hero:
            raise ValueError(f"bids: {name} is the seat asking; its bid is what advise weighs")
        if s not in earlier:
            raise ValueError(
                f"bids: {name} bids after {seat_name(hero, players)} (dealer "
                f"{seat_name(dealer, players)}), so its bid is not made yet"
            )
        if s in given:
            raise ValueError(f"bids: {name} is given twice")
        given[s] = parse_bid(value, name, rules.tricks)
    missing = [seat_name(s, players) for s in earlier if s not in given]
    if missing:
        raise ValueError(
            f"bids: {', '.join(missing)} bid{'s' if len(missing) == 1 else ''} before "
            f"{seat_name(hero, players)} (dealer {seat_name(dealer, players)}); give "
            f"{'its bid' if len(missing) == 1 else 'their bids'}"
        )
    if given and players == 2:
        raise ValueError(
            "bids: with two players the bids come after the draw; advise takes the seat "
            "bidding first"
        )
    # each earlier bid against the bid rule, as the kernels allow it (its cards unknown:
    # the spades it holds are at most the pack's)
    for s in earlier:
        bid, kind = given[s]
        name = seat_name(s, players)
        partner = given.get(s ^ 2, (-1, 0))[0] if rules.partnerships and players == 4 else -1
        if kind == BLIND_KIND:
            if not _blind_nil_allowed(rules, rules.side_of(s), scores):
                raise ValueError(f"bids: {name} bid blind nil, which these rules do not allow here")
            continue
        nil_ok, lo, hi = bid_range_nb(lowered, np.uint64(0), np.int64(partner))
        if rules.bid_rule is BidRule.WHIZ:  # a number is the spades held, which are unknown
            lo, hi = 1, rules.tricks
        if kind == NIL_KIND and not nil_ok:
            raise ValueError(f"bids: {name} bid nil, which the bid rule does not allow here")
        if kind == NUMBER and not int(lo) <= bid <= int(hi):
            raise ValueError(
                f"bids: {name} bid {bid}; the bid rule allows {int(lo)}..{int(hi)} there"
            )
    return given


def _table_info(
    rules: Rules,
    dealer: int,
    scores: tuple[int, ...],
    bags: tuple[int, ...],
    given: Mapping[int, tuple[int, int]],
) -> np.ndarray:
    """The table as the seat sees it when it bids (``InfoSlot``): what the bid-reading
    samplers read the earlier bids against."""
    info = np.zeros(N_INFO, dtype=np.int64)
    info[InfoSlot.history :] = -1
    info[InfoSlot.players] = rules.players
    info[InfoSlot.dealer] = dealer
    info[InfoSlot.sides] = 2 if rules.partnerships and rules.players == 4 else rules.sides
    info[InfoSlot.first_to_act] = (dealer + 1) % rules.players
    info[InfoSlot.led_suit] = -1
    info[InfoSlot.winning_seat] = -1
    info[InfoSlot.winning_card] = -1
    info[InfoSlot.trick_cards : InfoSlot.trick_cards + 4] = -1
    for s in range(4):
        info[InfoSlot.bids + s] = -1
    for side, value in enumerate(scores):
        info[InfoSlot.scores + side] = value
        info[InfoSlot.bags + side] = bags[side]
    for s, (bid, kind) in given.items():
        info[InfoSlot.bids + s] = bid
        info[InfoSlot.nil + s] = kind
    return info


@dataclass(frozen=True)
class BidAdvice:
    """The answer of :func:`advise` (the module's contract): ``table`` (one row per bid,
    :data:`COLUMNS`), ``best`` (the best bid's text), and what it was asked: ``hand``,
    ``seat``, ``dealer``, ``bids`` (the earlier bids by seat name), ``scores`` and
    ``bags`` (by side, N-S first; cutthroat by seat), ``n`` completions, ``relaxed`` (the
    share of completions in which the earlier bids could not all be fitted), ``seed``,
    ``rules``, the policies, and ``fatal_cards`` (by nil row: the cards that took failed
    nils' first trick, with their shares of the failures)."""

    table: pd.DataFrame = field(repr=False)
    best: str
    hand: str
    seat: str
    dealer: str
    bids: Mapping[str, int | str]
    scores: tuple[int, ...]
    bags: tuple[int, ...]
    n: int
    relaxed: float
    seed: int
    rules: Rules = field(repr=False)
    bidding: str = "count"
    play: str = "heuristic"
    conditions: str = ""
    fatal_cards: Mapping[str, Mapping[str, float]] = field(default_factory=dict, repr=False)

    @property
    def by(self) -> str:
        """What ``best`` maximises: ``"win"`` when the win column is known, else
        ``"points"``."""
        return "win" if self.table["win"].notna().all() else "points"

    def why(self) -> str:
        """One line: what the best bid gains over the next best, in win or points."""
        t = self.table
        if len(t) < 2:
            return f"{self.best} is the only bid allowed here."
        metric = self.by
        seen = t[t["bid"] != BLIND]
        if len(seen) < 2:
            return f"{self.best} is the only bid allowed here, having seen the hand."
        order = seen.sort_values(metric, ascending=False, kind="stable")
        runner = order.iloc[1]
        gain = -runner["gain"]  # the runner-up's paired gain to the best, turned round
        low, high = -runner["gain_high"], -runner["gain_low"]
        if metric == "win":
            amount = f"{100 * gain:+.1f} points of win chance [{100 * low:+.1f}, {100 * high:+.1f}]"
        else:
            amount = f"{gain:+.1f} points a hand [{low:+.1f}, {high:+.1f}]"
        sure = "" if low > 0 else " (within the noise: too close to call)"
        line = f"Bid {self.best}: it gains {amount} over {runner['bid']}{sure}."
        blind = t[t["bid"] == BLIND]
        if len(blind) and blind.iloc[0]["gain_low"] > 0:
            line += " A blind nil, bid before looking, would have done better still."
        return line

    def __str__(self) -> str:
        t = self.table
        side = "N-S first" if self.rules.partnerships and self.rules.players == 4 else "by seat"
        bids = ", ".join(f"{s} {b}" for s, b in self.bids.items()) or "none"
        head = [
            f"{self.seat} holding {self.hand}, dealer {self.dealer}, bids before: {bids}; "
            f"score {'-'.join(map(str, self.scores))}, bags {'-'.join(map(str, self.bags))} "
            f"({side}).",
            f"{self.n:,} completions ({self.bidding} bidding, {self.play} play, "
            f"{rules_text(self.rules.to_dict())} rules; seed {self.seed})"
            + (f"; given {self.conditions}" if self.conditions else "")
            + (
                f"; {100 * self.relaxed:.1f}% fit the earlier bids only roughly"
                if self.relaxed
                else ""
            )
            + ".",
            "",
        ]
        win = t["win"].notna().all()
        header = f"{'bid':>9}  {'made':>6}  {'points':>7}  {'bags':>5}"
        header += f"  {'win':>6}" if win else ""
        header += f"  {'gain':>16}"
        lines = [header]
        for _, row in t.iterrows():
            mark = " *" if row["bid"] == self.best else ""
            text = (
                f"{row['bid']:>9}  {100 * row['made']:5.1f}%  {row['points']:+7.1f}  "
                f"{row['bags']:5.2f}"
            )
            if win:
                text += f"  {100 * row['win']:5.1f}%"
                low, high = 100 * row["gain_low"], 100 * row["gain_high"]
                gain = f"{100 * row['gain']:+.1f} [{low:+.1f}, {high:+.1f}]"
            else:
                gain = f"{row['gain']:+.1f} [{row['gain_low']:+.1f}, {row['gain_high']:+.1f}]"
            lines.append(f"{text}  {gain:>16}{mark}")
        return "\n".join([*head, *lines, "", self.why()])

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON (the table as a list of rows; NaN as null)."""
        rows = [
            {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
            for row in self.table.astype(object).to_dict(orient="records")
        ]
        return {
            "hand": self.hand,
            "seat": self.seat,
            "dealer": self.dealer,
            "bids": dict(self.bids),
            "scores": list(self.scores),
            "bags": list(self.bags),
            "best": self.best,
            "by": self.by,
            "why": self.why(),
            "n": self.n,
            "relaxed": self.relaxed,
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "bidding": self.bidding,
            "play": self.play,
            "conditions": self.conditions,
            "fatal_cards": {bid: dict(cards) for bid, cards in self.fatal_cards.items()},
            "table": rows,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())


def _win_source(spec: RunSpec, threads: int | None, win: bool = True) -> WinTable | None:
    """The win-probability table of the rules and the policies (built on first use,
    then cached), or None where there is none (cutthroat, more than two sides) or none is
    asked for (``win=False``)."""
    if spec.rules.sides != 2 or not win:
        return None
    return win_table(spec.rules, spec.bidding, spec.play, threads=threads)


def _win_after(
    equity: WinTable,
    sides: np.ndarray,
    before: np.ndarray,
    dealer: int,
    side: int,
    rules: Rules,
) -> np.ndarray:
    """``side``'s chance to win the game after each hand of ``sides`` (completions,
    scenarios, 4, ``SideOut`` fields), from the scores ``before`` it: 1 or 0 when the hand
    ends the game, else the table's value at the score and bags after it, ``dealer``
    dealing next. Each distinct state is looked up once."""
    scores = before[None, None, :2] + sides[:, :, :2, SideOut.score_change]
    bags = sides[:, :, :2, SideOut.bags_after]
    states = np.concatenate([scores, bags], axis=2).reshape(-1, 4)
    distinct, back = np.unique(states, axis=0, return_inverse=True)
    winner = game_winner(distinct[:, :2], rules)
    value = np.where(winner >= 0, (winner == 0).astype(np.float64), np.nan)
    open_ = winner < 0
    if open_.any():
        # nearest: a score that differs from its bags by other than a multiple of the score
        # step (420 with 7 bags, which no game from 0-0 reaches) is read at most half a
        # step away rather than solving a layer of its own (minutes for a game to 500)
        value[open_] = equity.win(distinct[open_, :2], distinct[open_, 2:], dealer, nearest=True)
    ours = value if side == 0 else 1.0 - value
    return ours[back.ravel()].reshape(scores.shape[:2])


def _mean(values: np.ndarray) -> tuple[float, float, float]:
    x = values.astype(np.float64)
    e = mean_ci_of_moments(len(x), float(x.sum()), float((x * x).sum()))
    return e.value, e.low, e.high


def _share(flags: np.ndarray) -> tuple[float, float, float]:
    e = proportion_ci(int(flags.sum()), len(flags))
    return e.value, e.low, e.high


@dataclass(frozen=True)
class _Setup:
    """What :func:`advise` and :func:`advice_completions` check and lower once."""

    spec: RunSpec
    conditions: Conditions
    hero: int
    dealer: int
    scores: tuple[int, ...]
    bags: tuple[int, ...]
    earlier: dict[int, tuple[int, int]]
    options: list[tuple[int, int]]
    fit: BidFit


def _setup(
    hand: Hand,
    seat: int | str,
    dealer: int | str,
    bids: Mapping[int | str, int | str] | None,
    scores: Any,
    bags: Any,
    rules: Rules | None,
    bidding: SidePolicies | None,
    play: SidePolicies | None,
    n: int,
    seed: int,
    given: Mapping[int | str, Hand] | None,
    require: Mapping[int | str, Mapping[str, Any]] | None,
) -> _Setup:
    check_count(n, "n", 1, "the number of completions")
    spec = RunSpec.build(
        seed=seed,
        rules=rules,
        bidding="count" if bidding is None else bidding,
        play="heuristic" if play is None else play,
    )
    rules = spec.rules
    players = rules.players
    if rules.bid_rule is BidRule.MIRROR:
        raise ValueError(
            "rules: under bid_rule 'mirror' every bid is the spades held, so there is no bid "
            "to choose"
        )
    hero = seat_of(seat, players, "seat")
    deal = seat_of(dealer, players, "dealer")
    score, bag = _check_scores(scores, bags, rules)
    lowered = rules.lower()
    conditions = Conditions.build(hand, seat=hero, rules=rules, given=given, require=require)
    earlier = _check_bids(bids, hero, deal, rules, score, lowered)
    side = rules.side_of(hero)
    partner_bid = -1
    if players == 4 and rules.partnerships and (hero ^ 2) in earlier:
        partner_bid = earlier[hero ^ 2][0]
    nil_ok, lo, hi = bid_range_nb(lowered, np.uint64(conditions.hand), np.int64(partner_bid))
    options: list[tuple[int, int]] = []
    if players > 2 and nil_ok and _blind_nil_allowed(rules, side, score):
        options.append((0, BLIND_KIND))
    if nil_ok:
        options.append((0, NIL_KIND))
    options += [(b, NUMBER) for b in range(int(lo), int(hi) + 1)]
    _check_room(n, len(options))
    info = _table_info(rules, deal, score, bag, earlier)
    assumed = spec.params()[0, SEATED_BIDS:].copy()
    fit = BidFit(lowered, info, assumed, FIT_TRIES if earlier else 0)
    return _Setup(spec, conditions, hero, deal, score, bag, earlier, options, fit)


def _completion_chunks(
    setup: _Setup, seed: int, n: int
) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """The completions :func:`advise` plays, chunk by chunk: each chunk's first index, its
    deals and their misfits to the earlier bids (what :func:`advice_completions` returns
    whole)."""
    sampler = Sampler(setup.conditions, seed, n, MAX_TRIES, setup.fit)
    for start, deals, _, misfit in sampler.chunks(n):
        yield start, deals, misfit


def advice_completions(
    hand: Hand,
    seat: int | str,
    *,
    dealer: int | str,
    bids: Mapping[int | str, int | str] | None = None,
    scores: tuple[int, ...] | list[int] = (0, 0),
    bags: tuple[int, ...] | list[int] = (0, 0),
    rules: Rules | None = None,
    bidding: SidePolicies | None = None,
    n: int = 2000,
    seed: int = 0,
    threads: int | None = None,
    given: Mapping[int | str, Hand] | None = None,
    require: Mapping[int | str, Mapping[str, Any]] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The completions :func:`advise` plays, (n, 4) hand masks by seat, and each one's
    misfit to the earlier bids (0: every bid read fits its seated bidder).

    >>> deals, misfit = advice_completions("Q73.J52.T84.9632", "S", dealer="E", n=3)
    >>> deals.shape, misfit.tolist()
    ((3, 4), [0, 0, 0])
    """
    setup = _setup(
        hand, seat, dealer, bids, scores, bags, rules, bidding, None, n, seed, given, require
    )
    with kernel_threads(threads):
        chunks = list(_completion_chunks(setup, seed, n))
    return np.concatenate([c[1] for c in chunks]), np.concatenate([c[2] for c in chunks])


def advise(
    hand: Hand,
    seat: int | str,
    *,
    dealer: int | str,
    bids: Mapping[int | str, int | str] | None = None,
    scores: tuple[int, ...] | list[int] = (0, 0),
    bags: tuple[int, ...] | list[int] = (0, 0),
    rules: Rules | None = None,
    bidding: SidePolicies | None = None,
    play: SidePolicies | None = None,
    n: int = 2000,
    seed: int = 0,
    threads: int | None = None,
    given: Mapping[int | str, Hand] | None = None,
    require: Mapping[int | str, Mapping[str, Any]] | None = None,
    win: bool = True,
) -> BidAdvice:
    """Every bid ``seat`` holding ``hand`` may make, valued over ``n`` completions (the
    module's contract). ``scores`` and ``bags`` are by side, N-S (side 0) first (two
    players: P0 first; cutthroat: by seat). ``bids`` maps each seat that bids before
    ``seat`` (from ``dealer``'s left) to its bid: a number, ``"nil"`` or ``"blind nil"``.
    ``win=False`` leaves the win column out (and the best bid is by points): no win
    table is built, which for rules met for the first time saves minutes.

    >>> advice = advise("AKQ.KQJ2.A32.K32", "N", dealer="W", n=200)
    >>> advice.table["bid"].tolist()[:3], advice.best in advice.table["bid"].tolist()
    (['blind nil', 'nil', '1'], True)
    """
    setup = _setup(
        hand, seat, dealer, bids, scores, bags, rules, bidding, play, n, seed, given, require
    )
    spec, rules, options = setup.spec, setup.spec.rules, setup.options
    players = rules.players
    side = rules.side_of(setup.hero)
    given_code = given_bids_code(setup.earlier)
    scenario_bids = np.array([b | given_code for b, _ in options], dtype=np.int64)
    kinds = np.array([k for _, k in options], dtype=np.int64)
    before = np.zeros(8, dtype=np.int64)
    before[: len(setup.scores)] = setup.scores
    before[4 : 4 + len(setup.bags)] = setup.bags
    points = np.empty((n, len(options)), dtype=np.int64)
    if not isinstance(win, bool):
        raise ValueError(f"win: True or False, got {win!r}")
    equity = _win_source(spec, threads, win)
    wins = np.full((n, len(options)), np.nan)
    bags_won = np.empty((n, len(options)), dtype=np.int64)
    made = np.empty((n, len(options)), dtype=bool)
    misfit = np.empty(n, dtype=np.int64)
    nil_rows = kinds > 0
    fatal = np.zeros((len(options), N_CARD_IDS), dtype=np.int64)
    with kernel_threads(threads):
        for start, deals, chunk_misfit in _completion_chunks(setup, seed, n):
            rows = slice(start, start + len(deals))
            misfit[rows] = chunk_misfit
            played = play_completions(
                spec, setup.hero, deals, start, scenario_bids, kinds, setup.dealer,
                before=before, sides=True,
            )  # fmt: skip
            assert played.sides is not None
            ours = played.sides[:, :, side]
            points[rows] = ours[:, :, SideOut.score_change]
            bags_won[rows] = ours[:, :, SideOut.bags_change]
            made[rows] = np.where(
                nil_rows[None, :], played.nil_made == 1, ours[:, :, SideOut.made] == 1
            )
            for k in np.flatnonzero(nil_rows):
                failed = played.nil_made[:, k] == 0
                fatal[k] += np.bincount(played.first_won[failed, k], minlength=N_CARD_IDS)
            if equity is not None:
                wins[rows] = _win_after(
                    equity, played.sides, before, (setup.dealer + 1) % players, side, rules
                )
    # a seat that has seen its hand may no longer bid blind nil: its row says what the
    # blind nil is worth with this hand, and the best bid is one it can still make
    seen = [k for k, (_, kind) in enumerate(options) if kind != BLIND_KIND]
    # by win in a game, ties (a game won or lost whatever the bid) broken by points
    order = sorted(seen, key=lambda k: (np.nan_to_num(wins[:, k].mean(), nan=0.0),
                                        points[:, k].mean()))  # fmt: skip
    best = order[-1]
    by_win = equity is not None
    records = [
        (
            _bid_text(b, kind),
            *_share(made[:, k]),
            *_mean(points[:, k]),
            *_mean(bags_won[:, k]),
            *(_mean(wins[:, k]) if by_win else (math.nan,) * 3),
            *_mean((wins[:, k] - wins[:, best]) if by_win else points[:, k] - points[:, best]),
            n,
        )
        for k, (b, kind) in enumerate(options)
    ]
    table = pd.DataFrame.from_records(records, columns=list(COLUMNS))
    return BidAdvice(
        table=table,
        best=_bid_text(*options[best]),
        hand=format_hand(setup.conditions.hand, rules.deuces_high),
        seat=seat_name(setup.hero, players),
        dealer=seat_name(setup.dealer, players),
        bids={
            seat_name(s, players): _bid_text(b, k) if k else b
            for s, (b, k) in setup.earlier.items()
        },
        scores=setup.scores,
        bags=setup.bags,
        n=int(n),
        relaxed=float((misfit > 0).mean()),
        seed=int(seed),
        rules=rules,
        bidding=side_policies_text(spec.bidding),
        play=side_policies_text(spec.play),
        conditions=setup.conditions.text,
        fatal_cards={
            _bid_text(0, kind): first_trick_cards(
                fatal[k], int((~made[:, k]).sum()), rules.deuces_high
            )
            for k, (_, kind) in enumerate(options)
            if kind != NUMBER
        },
    )
