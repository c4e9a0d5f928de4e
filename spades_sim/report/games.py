"""The report sections of whole games and of a duplicate pair.

Contract
--------
:func:`game_outcomes` reduces one games run to :class:`GameOutcomes` (win rates by side,
game length, endings), and :func:`games_section` turns one or several of them into the
games section: who wins, how long games last and how they end. :func:`pair_section` is a
duplicate match, paired deal by deal (:mod:`.runs`); :func:`ladder_section` the strength
ladder of play policies (``spades-sim ladder``, :mod:`spades_sim.analysis.ladder`). Every
number shown carries its ``n`` and 95% interval; every sentence comes from :mod:`.words`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from spades_sim.analysis.ladder import estimate as ladder_estimate
from spades_sim.analysis.ladder import ranked_pairs, ranking
from spades_sim.analysis.source import Data, Source
from spades_sim.analysis.stats import Estimate, mean_ci, proportion_ci
from spades_sim.cards import SEAT_NAMES
from spades_sim.report import words as w
from spades_sim.report.document import Figure, Section, Table, Text
from spades_sim.report.figures import Panel, Series, forest_png
from spades_sim.report.measures import cell, figure_of
from spades_sim.report.runs import PairedResult, RunInfo, games_of
from spades_sim.text import SIDE_NAMES

__all__ = ["GameOutcomes", "game_outcomes", "games_section", "ladder_section", "pair_section"]


@dataclass(frozen=True)
class GameOutcomes:
    """Win rates by side, game length and endings of one games run."""

    label: str
    wins: dict[str, Estimate]  # by side name
    unfinished: Estimate
    length: Estimate
    endings: dict[str, Estimate]  # "the target", "the loss threshold", "unfinished"
    over_by: list[tuple[int, Estimate]]  # share of games over by each number of hands
    half_over: int  # the hand by which half the games are over
    most_over: int  # ... nine in ten


def game_outcomes(
    source: Source | Data, info: RunInfo, label: str, level: float = 0.95
) -> GameOutcomes:
    """The outcomes of a games run's games table.

    >>> from spades_sim import simulate_games
    >>> from spades_sim.report.runs import run_info
    >>> pair = simulate_games(40, seed=2)
    >>> o = game_outcomes(pair, run_info(pair), "run")
    >>> o.wins["N-S"].n, round(sum(e.value for e in o.endings.values()), 6)
    (40, 1.0)
    """
    games = games_of(source)
    n = len(games)
    winner = games["winner"].to_numpy()
    reason = games["reason"].to_numpy()
    # cutthroat: four (or three, P0..P2) lone sides, named by seat (their policies are
    # their pair's)
    cutthroat = info.rules.get("partnerships") is False
    three = cutthroat and info.rules.get("players") == 3
    sides = dict(
        enumerate(("P0", "P1", "P2") if three else SEAT_NAMES if cutthroat else SIDE_NAMES)
    )
    wins = {
        f"{name} ({info.side_label(side % 2)})" if not info.same_sides else name: proportion_ci(
            int((winner == side).sum()), n, level
        )
        for side, name in sides.items()
    }
    endings = {
        "the target": proportion_ci(int((reason == 1).sum()), n, level),
        "the loss threshold": proportion_ci(int((reason == 2).sum()), n, level),
        "unfinished": proportion_ci(int((reason == 3).sum()), n, level),
    }
    hands = games["hands"].to_numpy()
    over = np.cumsum(np.bincount(hands))  # games over by hand h (unfinished ones at max_hands)
    top = int(np.quantile(hands, 0.99)) if n else 0  # the long tail would squash the plot
    over_by = [
        (h, proportion_ci(int(over[h]), n, level)) for h in range(1, min(top, len(over) - 1) + 1)
    ]
    return GameOutcomes(
        label,
        wins,
        proportion_ci(int((winner < 0).sum()), n, level),
        mean_ci(hands.astype(np.float64), level),
        endings,
        over_by,
        int(np.quantile(hands, 0.5, method="inverted_cdf")) if n else 0,
        int(np.quantile(hands, 0.9, method="inverted_cdf")) if n else 0,
    )


def games_section(outcomes: Sequence[GameOutcomes]) -> Section:
    """Games: win rates by side, game length, how games end (one series per run)."""
    section = Section("Games")
    said = []
    for o in outcomes:
        prefix = "" if len(outcomes) == 1 else f"{o.label}: "
        said.append(prefix + w.games_sentence(o.wins, o.length, o.endings))
    section.blocks.append(Text(said, bullets=len(said) > 1))
    many = len(outcomes) > 1

    def bars(o: GameOutcomes, estimates: Sequence[Estimate]) -> Series:
        points = list(enumerate(estimates))
        return Series.of(o.label if many else "games", points, total=o.length.n)

    wins_panel = Panel(
        "who wins",
        "",
        "share of games",
        [bars(o, [*o.wins.values(), o.unfinished]) for o in outcomes],
        kind="bar",
        percent=True,
        n_word="games",
        xticklabels={
            **{i: f"{name.split(' (')[0]} won" for i, name in enumerate(outcomes[0].wins)},
            len(outcomes[0].wins): "unfinished",
        },
    )
    end_panel = Panel(
        "how games end",
        "",
        "share of games",
        [bars(o, list(o.endings.values())) for o in outcomes],
        kind="bar",
        percent=True,
        n_word="games",
        xticklabels={0: "target", 1: "loss threshold", 2: "unfinished"},
    )
    section.blocks.append(
        figure_of(
            [wins_panel, end_panel],
            "Who wins and how games end: at the target score, at the loss threshold (when "
            "the rules have one) or unfinished at the rules' hand limit.",
            alt="win rates and game endings",
            height=2.9,
        )
    )
    length_panel = Panel(
        "games over by each hand",
        "hands played",
        "share of games over",
        [Series.of(o.label if many else "games", o.over_by, total=o.length.n) for o in outcomes],
        percent=True,
        n_word="games",
    )
    length_said = []
    for o in outcomes:
        prefix = f"{o.label}: " if many else ""
        length_said.append(
            prefix
            + f"a game lasts {w.stated(o.length)} hands on average. "
            + w.quantile_sentence(o.half_over, o.most_over)
        )
    section.blocks.append(
        figure_of(
            [length_panel],
            "How long games last: the share of games over by each hand (drawn up to the "
            "hand by which 99% are over). " + " ".join(s[0].upper() + s[1:] for s in length_said),
            alt="distribution of game length",
            height=3.0,
        )
    )
    rows = []
    # a column per side: two, or four seats in cutthroat (the widest run's names)
    widest = max(outcomes, key=lambda o: len(o.wins))
    won = [f"{name.split(' (')[0]} won" for name in widest.wins]
    for o in outcomes:
        ws = [cell(e) for e in o.wins.values()]
        rows.append(
            [
                o.label,
                w.count(o.length.n),
                *ws,
                *[""] * (len(won) - len(ws)),
                cell(o.unfinished),
                cell(o.length, percent=False),
                cell(o.endings["the target"]),
                cell(o.endings["the loss threshold"]),
            ]
        )
    section.blocks.append(
        Table(
            [
                "run",
                "games",
                *won,
                "unfinished",
                "hands per game",
                "ended at target",
                "at loss threshold",
            ],
            rows,
            caption="Games (95% CIs in brackets)",
        )
    )
    return section


# --------------------------------------------------------------------------------------
# A duplicate pair
# --------------------------------------------------------------------------------------


def pair_section(result: PairedResult) -> Section:
    """A duplicate match: A's margin per deal paired over the seatings (and, in games,
    its win rate), with the interval pairing saved against unpaired deals."""
    a, b = result.info.a, result.info.b
    section = Section(f"{a} against {b}, on the same deals")
    games = result.info.mode == "games"
    cases = "hands both seatings played" if games else "deals"
    said = [
        w.margin_sentence(a, b, result.margin, cases=cases),
        w.narrowing_sentence(result.margin, result.unpaired),
        f"Seated North-South only, {a}'s margin is {w.stated(result.a_as_ns, sign=True)} "
        f"points a hand; seated East-West only, {w.stated(result.a_as_ew, sign=True)}.",
    ]
    if games:
        said[1] = said[1].replace("of each deal", "of each hand")
    rows = [
        ("paired by deal", result.margin),
        ("unpaired (same deals, seatings apart)", result.unpaired),
        (f"{a} seated N-S only", result.a_as_ns),
        (f"{a} seated E-W only", result.a_as_ew),
    ]
    figures = [
        Figure(
            forest_png(rows, f"{a} minus {b}: score margin per hand", "points per hand"),
            f"The paired margin and the interval the same deals would give unpaired; the "
            f"dashed line is no difference. The runs differ in {result.info.differs}.",
            alt="paired and unpaired margin",
        )
    ]
    if result.wins is not None and result.wins_paired is not None:
        said[:0] = [
            w.win_sentence(a, b, result.wins_paired, "games played both ways"),
            f"Counted as {w.count(result.wins.n)} independent games the win rate is "
            f"{w.stated(result.wins, percent=True)}. "
            + w.narrowing_sentence(result.wins_paired, result.wins, "games", percent=True),
        ]
        if result.outcomes is not None:
            said.insert(2, w.split_sentence(a, b, result.outcomes))
        if result.unfinished is not None and result.unfinished.value > 0:
            said.append(
                f"{w.pct(result.unfinished.value)} of the games were unfinished "
                f"({w.interval(result.unfinished, True)}) and count as not won."
            )
        figures.insert(
            0,
            Figure(
                forest_png(
                    [
                        ("paired by game", result.wins_paired),
                        ("unpaired (2n independent games, Wilson)", result.wins),
                    ],
                    f"{a}'s win rate against {b}",
                    "share of games won",
                    reference=0.5,
                    percent=True,
                ),
                "The win rate over the games of both seatings, paired game by game and as "
                "independent games; the dashed line is an even match.",
                alt="win rate, paired and unpaired",
            ),
        )
    section.blocks.append(Text(said, bullets=True))
    section.blocks += figures
    table_rows = []
    for m, n, est, lo, hi in result.to_frame().itertuples(index=False):
        rate = m.startswith("win_rate") or m == "unfinished"
        shown = (
            (w.pct(est), f"{w.pct(lo)} – {w.pct(hi)}")
            if rate
            else (w.number(est), f"{w.number(lo)} – {w.number(hi)}")
        )
        table_rows.append([m, w.count(n), *shown])
    section.blocks.append(
        Table(
            ["measure", "n", "estimate", "95% CI"], table_rows, caption="The duplicate comparison"
        )
    )
    return section


def _nil_cell(e: Estimate | None) -> str:
    return "–" if e is None else f"{cell(e)}, n = {w.count(e.n)}"


def ladder_section(table: pd.DataFrame) -> Section:
    """The strength ladder (:func:`spades_sim.analysis.ladder.ladder`): every pair of
    play policies in duplicate, ranked, with each pair's margin and nil figures."""
    section = Section("The strength ladder")
    order, ties = ranking(table)
    top = order[0]
    against_top = [(o, e) for o in order[1:] if (e := ladder_estimate(table, top, o))]
    said = [w.ranking_sentence(order, ties)]
    if against_top:
        said.append(w.ladder_top_sentence(top, against_top))
    for upper, lower in itertools.pairwise(order):
        e = ladder_estimate(table, upper, lower)
        if e is not None and upper != top:
            said.append(w.margin_sentence(upper, lower, e))
    section.blocks.append(Text(said, bullets=True))
    margins = [
        (upper, lower, e)
        for upper, lower in ranked_pairs(order)
        if (e := ladder_estimate(table, upper, lower)) is not None
    ]
    section.blocks.append(
        Figure(
            forest_png(
                [(f"{upper} vs {lower}", e) for upper, lower, e in margins],
                "The ladder: the stronger rung's margin",
                "points per hand",
            ),
            "Each pair's margin of the higher-ranked rung, paired over the two seatings of "
            "every deal; the dashed line is no difference.",
            alt="ladder margins",
        )
    )
    rows = [
        [
            f"{upper} vs {lower}",
            w.count(margin.n),
            cell(margin, percent=False),
            *(
                _nil_cell(ladder_estimate(table, upper, lower, m))
                for m in ("nils_made", "nils_set")
            ),
        ]
        for upper, lower, margin in margins
    ]
    section.blocks.append(
        Table(
            ["pair", "deals", "points a hand", "nils made covering", "nils set defending"],
            rows,
            caption="Every pair in duplicate, from the higher-ranked rung's side: its points "
            "a hand, the share of its side's nils made and of the other side's nils it set "
            "(Wilson intervals; n: nils)",
            text_columns=1,
        )
    )
    how = table.attrs
    if how:
        section.blocks.append(
            Text(
                [
                    f"Each pair played the same {w.count(how.get('deals', 0))} deals twice "
                    f"(seed {how.get('seed')}), sides swapped, every seat bidding "
                    f"{how.get('bidding')} under the {how.get('rules')} rules; the ranking is "
                    "by mean margin against all the other rungs, and ≈ marks neighbours "
                    "whose own match was too close to call."
                ],
                note=True,
            )
        )
    return section
