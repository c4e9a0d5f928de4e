"""The sections of a strategy report, built on the analyses of :mod:`spades_sim.analysis`.

Contract
--------
:func:`report_tables` runs every analysis a report needs over one run or several in a
single scan (each part file read once) and returns the tidy tables by name. The section
builders turn those tables into :class:`~spades_sim.report.document.Section` objects:

- :func:`nil_section`: nil success against spade count, high spades and shortest suit
  (bands and tables with ``n``), blind nil beside it when there is any, the shapes that
  make nil most and least often, in words;
- :func:`bids_section`: side tricks minus contract, set / exact / over by contract
  level, and tricks taken against the bid (calibration);
- :func:`bags_section`: bags per hand and by contract; in games, bags per game, how soon
  the penalty strikes (rate by hand number, first penalty hand), points lost;
- :func:`games_section`: who wins, how long games last and how they end;
- :func:`pair_section`: a duplicate match, paired deal by deal (:mod:`.runs`).

Series. Results are drawn and tabled per *series*: the ``policy`` key of the analyses
(each side's ``bidding/play``), so a run whose sides play alike is one series, one whose
sides differ is two, and a duplicate pair is its two strategies over both seatings. A
run without meta (a bare frame) is one series, ``all seats``.

Every number shown carries its ``n`` and 95% interval; every sentence comes from
:mod:`.words`. Points of a plot resting on fewer than :data:`MIN_POINT` cases are left
out of the plot (the tables keep them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from spades_sim.analysis import bags, bids, nil
from spades_sim.analysis.reduce import Plan, run_many
from spades_sim.analysis.source import Data, Source, sources
from spades_sim.analysis.stats import Estimate, mean_ci, proportion_ci
from spades_sim.report import words as w
from spades_sim.report.document import Figure, Heading, Section, Table, Text
from spades_sim.report.figures import Panel, Series, forest_png, panels_png
from spades_sim.report.runs import PairedResult, RunInfo, games_of
from spades_sim.text import SIDE_NAMES

MIN_POINT = 20  # cases behind a plotted point
MIN_SHAPE = 100  # nil bids behind a shape named in words
FEATURES = {
    "spades": "spades held",
    "high_spades": "spades queen or higher",
    "shortest_suit": "length of the shortest suit",
}
ALL_SEATS = "all seats"


# --------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------


def series_keys(data: Data | list[Data]) -> list[str]:
    """``["policy"]`` when every run names its policies, else ``[]`` (one series).

    >>> from spades_sim import simulate_hands
    >>> series_keys(simulate_hands(5, seed=1))
    ['policy']
    """
    srcs = sources(data)
    return ["policy"] if all((s.meta or {}).get("policies") for s in srcs) else []


def table_requests(keys: Sequence[str], games: bool) -> dict[str, tuple[Plan, list[str]]]:
    """The analyses a report runs: name -> (plan, group keys)."""
    k = list(keys)
    requests: dict[str, tuple[Plan, list[str]]] = {
        "nil": (nil.PLAN, [*k, "blind"]),
        **{f"nil_{f}": (nil.PLAN, [*k, "blind", f]) for f in FEATURES},
        "nil_shape": (nil.PLAN, [*k, "blind", "spades", "high_spades", "shortest_suit"]),
        "bids": (bids.SUMMARY_PLAN, k),
        "bids_level": (bids.SUMMARY_PLAN, [*k, "side_contract"]),
        "bids_distribution": (bids.DISTRIBUTION_PLAN, k),
        "bids_calibration": (bids.CALIBRATION_PLAN, k),
        "bags": (bags.HAND_PLAN, k),
        "bags_contract": (bags.HAND_PLAN, [*k, "side_contract"]),
    }
    if games:
        requests["bags_game"] = (bags.GAME_PLAN, k)
        requests["bags_hand_no"] = (bags.HAND_PLAN, [*k, "hand_no"])
    return requests


def report_tables(data: Data | list[Data], level: float = 0.95) -> dict[str, pd.DataFrame]:
    """Every table a report needs, in one scan of each run (see :func:`table_requests`).

    >>> from spades_sim import simulate_hands
    >>> t = report_tables(simulate_hands(300, seed=1))
    >>> sorted(t)[:3], t["nil"].policy.unique().tolist()
    (['bags', 'bags_contract', 'bids'], ['count/heuristic'])
    """
    srcs = sources(data)
    games = all(s.has_games for s in srcs)
    requests = table_requests(series_keys(data), games)
    tables = run_many(data, list(requests.values()), level)
    return dict(zip(requests, tables, strict=True))


def _est(row: Any) -> Estimate:
    """A tidy table's row (a mapping or a Series) as an Estimate."""
    return Estimate(
        float(row["estimate"]), float(row["ci_low"]), float(row["ci_high"]), int(row["n"])
    )


def _labels(table: pd.DataFrame) -> list[str]:
    return [str(x) for x in table["policy"].unique()] if "policy" in table else [ALL_SEATS]


def _rows(table: pd.DataFrame, measure: str, label: str, **keys: Any) -> pd.DataFrame:
    rows = table[table["measure"] == measure]
    if "policy" in rows and label != ALL_SEATS:
        rows = rows[rows["policy"] == label]
    for key, value in keys.items():
        rows = rows[rows[key] == value]
    return rows


def _one(table: pd.DataFrame, measure: str, label: str, **keys: Any) -> Estimate | None:
    rows = _rows(table, measure, label, **keys)
    return _est(rows.iloc[0]) if len(rows) == 1 else None


def _points(
    table: pd.DataFrame, measure: str, label: str, x: str, min_n: int = 0, **keys: Any
) -> list[tuple[int, Estimate]]:
    rows = _rows(table, measure, label, **keys).sort_values(x)
    return [(int(r[x]), _est(r)) for r in rows.to_dict("records") if int(r["n"]) >= min_n]


def _n(table: pd.DataFrame, measure: str, label: str, **keys: Any) -> int:
    e = _one(table, measure, label, **keys)
    return e.n if e else 0


def _figure(panels: Sequence[Panel], caption: str, alt: str = "", **options: Any) -> Figure | Text:
    """The panels as a figure, or a note when too few cases left anything to draw."""
    if not any(len(series.x) for panel in panels for series in panel.series):
        return Text([f"Too few cases to draw this figure. {caption}"], note=True)
    return Figure(panels_png(panels, **options), caption, alt)


def _cell(e: Estimate | None, percent: bool = True) -> str:
    if e is None:
        return "–"
    return w.bracketed(e, percent)


# --------------------------------------------------------------------------------------
# Nil
# --------------------------------------------------------------------------------------


def nil_section(tables: Mapping[str, pd.DataFrame], policies_phrase: str = "") -> Section:
    """Nil: success by spades, high spades and shortest suit; blind nil when present."""
    section = Section("Nil bids")
    overall = tables["nil"]
    kinds: list[tuple[str, bool]] = []  # (series label, blind)
    said = []
    labels = _labels(overall)
    for label in labels:
        for blind in (False, True):
            success = _one(overall, "success_rate", label, blind=blind)
            rate = _one(overall, "nil_rate", label, blind=blind)
            if success is None or rate is None or success.n == 0:
                continue
            kinds.append((label, blind))
            prefix = f"{label}: " if len(labels) > 1 else ""
            said.append(prefix + w.nil_rate_sentence(rate, success, blind))
    if not kinds:
        section.blocks.append(Text(["No seat bid nil or blind nil in these hands."]))
        return section
    section.blocks.append(Text(said, bullets=len(said) > 1))

    def series_name(label: str, blind: bool) -> str:
        kind = "blind nil" if blind else "nil"
        return kind if len(labels) == 1 else f"{label} {kind}"

    def bids_of(label: str, blind: bool) -> int:
        e = _one(overall, "success_rate", label, blind=blind)
        return e.n if e else 0

    panels = []
    for feature, title in FEATURES.items():
        series = [
            Series.of(
                series_name(label, blind),
                _points(
                    tables[f"nil_{feature}"], "success_rate", label, feature, MIN_POINT, blind=blind
                ),
                total=bids_of(label, blind),
            )
            for label, blind in kinds
        ]
        panels.append(Panel(f"by {title}", title, "nil made", series, percent=True, n_word="bids"))
    trend = []
    for label, blind in kinds:
        subject = ("Blind nil" if blind else "Nil") + " success"
        if len(labels) > 1:
            subject += f" ({label})"
        rows = _points(tables["nil_spades"], "success_rate", label, "spades", blind=blind)
        trend.append(w.trend_sentence(subject, "spades", rows))
    section.blocks.append(
        _figure(
            panels,
            "How often a nil is made against the cards of the bidder. "
            + " ".join(trend)
            + f" Points resting on fewer than {MIN_POINT} bids are left out; the tables below"
            " have every value.",
            alt="nil success rate by spades, high spades and shortest suit",
        )
    )
    for feature, title in FEATURES.items():
        section.blocks.append(
            _nil_table(tables[f"nil_{feature}"], feature, title, kinds, series_name)
        )
    shapes = _shape_sentences(tables["nil_shape"], kinds, policies_phrase)
    if shapes:
        section.blocks.append(Heading("The shapes that make nil most and least often"))
        section.blocks.append(Text(shapes, bullets=True))
    section.blocks.append(
        Text(
            [
                "Success is the share of nil bids made, so it describes the hands the "
                "bidding policy chose to bid nil on, played by the play policy: a "
                "different bidder picks different hands. High spades are the queen, king "
                "and ace. Intervals are Wilson's."
            ],
            note=True,
        )
    )
    return section


def _nil_table(
    table: pd.DataFrame, feature: str, title: str, kinds: list[tuple[str, bool]], name: Any
) -> Table:
    """Nil success by one feature: a column pair per series (two at most), else one row
    per value and series."""
    values = sorted(int(v) for v in table[feature].unique())
    cells = {
        (v, kind): _one(table, "success_rate", kind[0], blind=kind[1], **{feature: v})
        for v in values
        for kind in kinds
    }
    values = [v for v in values if any(cells[v, k] is not None for k in kinds)]
    caption = f"Nil success by {title} (n: bids)"
    if len(kinds) <= 2:
        columns = [title]
        for kind in kinds:
            columns += [f"{name(*kind)}: bids", "made (95% CI)"]
        rows = []
        for v in values:
            row = [str(v)]
            for kind in kinds:
                e = cells[v, kind]
                row += [w.count(e.n) if e else "0", _cell(e)]
            rows.append(row)
        return Table(columns, rows, caption=caption)
    rows = [
        [str(v), name(*kind), w.count(e.n), _cell(e)]
        for v in values
        for kind in kinds
        if (e := cells[v, kind]) is not None
    ]
    return Table([title, "series", "bids", "made (95% CI)"], rows, caption, text_columns=2)


def _shape_sentences(
    table: pd.DataFrame, kinds: list[tuple[str, bool]], policies_phrase: str
) -> list[str]:
    said = []
    for label, blind in kinds:
        if blind:
            continue
        rows = _rows(table, "success_rate", label, blind=False)
        rows = rows[rows["n"] >= MIN_SHAPE]
        if len(rows) < 2:
            continue
        where = policies_phrase or ("" if label == ALL_SEATS else label)
        best = rows.sort_values("ci_low", ascending=False).head(3)
        worst = rows.sort_values("ci_high").head(1)
        for r in [*best.to_dict("records"), *worst.to_dict("records")]:
            shape = {k: int(r[k]) for k in ("spades", "high_spades", "shortest_suit")}
            said.append(w.nil_shape_sentence(shape, _est(r), where))
    return said


# --------------------------------------------------------------------------------------
# Bids
# --------------------------------------------------------------------------------------


def bids_section(tables: Mapping[str, pd.DataFrame]) -> Section:
    """Bids: side tricks minus contract, set / exact / over by level, calibration."""
    section = Section("Bids and contracts")
    summary = tables["bids"]
    labels = _labels(summary)
    said = []
    for label in labels:
        got = [_one(summary, m, label) for m in ("exact", "over", "set", "difference")]
        if any(e is None for e in got):
            continue
        exact, over, set_, mean = got
        assert exact and over and set_ and mean
        prefix = "" if len(labels) == 1 else f"{label}: "
        said.append(prefix + w.contract_sentence(exact, over, set_, mean))
    if not said:
        section.blocks.append(Text(["No side had a contract to make."]))
        return section
    section.blocks.append(Text(said, bullets=len(said) > 1))

    dist = tables["bids_distribution"]
    shown = dist[(dist["measure"] == "share") & (dist["estimate"] >= 0.002)]
    lo, hi = (
        (int(shown["difference"].min()), int(shown["difference"].max())) if len(shown) else (0, 0)
    )
    dist_series = _distribution_series(dist, labels, lo, hi)
    per_series = max(s.total_n for s in dist_series) if dist_series else 0
    section.blocks.append(
        _figure(
            [
                Panel(
                    "side tricks minus contract",
                    "tricks minus contract (0: made exactly; below 0: set)",
                    "share of side-hands",
                    dist_series,
                    kind="bar",
                    percent=True,
                    n_word="side-hands",
                )
            ],
            "How far each side's tricks land from its contract "
            f"({w.count(per_series)} side-hands per series): bars left of 0 are sets, the bar "
            "at 0 contracts made exactly, bars to the right overtricks (bags). Differences "
            "seen in fewer than 0.2% of side-hands are left out.",
            alt="distribution of side tricks minus contract",
            height=3.2,
        )
    )

    level = tables["bids_level"]
    panels = [
        Panel(
            title,
            "side contract",
            "share of side-hands",
            [
                Series.of(
                    label,
                    _points(level, m, label, "side_contract", MIN_POINT),
                    total=_n(summary, "exact", label),
                )
                for label in labels
            ],
            percent=True,
            n_word="side-hands",
        )
        for m, title in (("set", "set"), ("exact", "made exactly"), ("over", "overtricks"))
    ]
    level_said = []
    for label in labels:
        points = _points(level, "set", label, "side_contract", MIN_SHAPE)
        if not points:
            continue
        common = max(points, key=lambda p: p[1].n)[0]
        top = points[-1][0]
        for lv in dict.fromkeys([common, top]):
            set_, exact, over = (
                _one(level, m, label, side_contract=lv) for m in ("set", "exact", "over")
            )
            if set_ and exact and over:
                prefix = "" if len(labels) == 1 else f"{label}: "
                level_said.append(prefix + w.level_sentence(lv, set_, exact, over))
    section.blocks.append(
        _figure(
            panels,
            "Set, made exactly and made with overtricks, by the side's contract (the sum of "
            "its number bids). " + " ".join(level_said),
            alt="set, exact and overtrick rates by contract level",
            height=2.8,
        )
    )
    rows = []
    for label in labels:
        for lv, _ in _points(level, "set", label, "side_contract"):
            got = [_one(level, m, label, side_contract=lv) for m in ("set", "exact", "over")]
            n = got[0].n if got[0] else 0
            rows.append([label, str(lv), w.count(n), *(_cell(e) for e in got)])
    section.blocks.append(
        Table(
            ["series", "contract", "side-hands", "set (95% CI)", "exact", "overtricks"],
            rows,
            caption="Contracts by level (n: side-hands with that contract)",
            text_columns=1,
        )
    )

    calibration = tables["bids_calibration"]
    cal_series = [
        Series.of(
            label,
            _points(calibration, "tricks", label, "bid", MIN_POINT),
            total=sum(e.n for _, e in _points(calibration, "tricks", label, "bid")),
        )
        for label in labels
    ]
    cal_said = []
    for label in labels:
        prefix = "" if len(labels) == 1 else f"{label}: "
        cal_said.append(
            prefix + w.calibration_sentence(_points(calibration, "tricks", label, "bid"))
        )
    section.blocks.append(
        _figure(
            [
                Panel(
                    "tricks taken against the bid",
                    "bid (number bids)",
                    "tricks taken",
                    cal_series,
                    diagonal=True,
                    n_word="bids",
                )
            ],
            "Calibration: the mean tricks a seat takes for each number it bids; on the dashed "
            "line a bid is worth exactly what it says. " + " ".join(cal_said),
            alt="calibration of bids",
            height=3.3,
        )
    )
    return section


def _distribution_series(dist: pd.DataFrame, labels: list[str], lo: int, hi: int) -> list[Series]:
    out = []
    for label in labels:
        points = _points(dist, "share", label, "difference")
        total = points[0][1].n if points else 0  # every share has the group's side-hands as n
        out.append(Series.of(label, [(d, e) for d, e in points if lo <= d <= hi], total))
    return out


# --------------------------------------------------------------------------------------
# Bags
# --------------------------------------------------------------------------------------


def bags_section(tables: Mapping[str, pd.DataFrame]) -> Section:
    """Bags per hand and by contract; per game, the penalty's timing and cost."""
    section = Section("Bags")
    per_hand = tables["bags"]
    labels = _labels(per_hand)
    said = []
    for label in labels:
        e = _one(per_hand, "bags", label)
        if e is not None:
            who = "A side" if len(labels) == 1 else f"A side playing {label}"
            said.append(w.bags_hand_sentence(e, who))
    section.blocks.append(Text(said, bullets=len(said) > 1))
    contract = tables["bags_contract"]
    section.blocks.append(
        _figure(
            [
                Panel(
                    "bags per hand by contract",
                    "side contract",
                    "bags per side-hand",
                    [
                        Series.of(
                            label,
                            _points(contract, "bags", label, "side_contract", MIN_POINT),
                            total=_n(per_hand, "bags", label),
                        )
                        for label in labels
                    ],
                    n_word="side-hands",
                )
            ],
            "Bags (tricks over the contract) a side takes in a hand, by its contract: low "
            "contracts leave the most tricks spare.",
            alt="bags per hand by contract",
            height=3.0,
        )
    )
    if "bags_game" not in tables:
        section.blocks.append(
            Text(
                [
                    "These are independent hands: bags start from zero each time, so the "
                    "penalty (at the bag limit) almost never strikes. A games run shows how "
                    "soon it does and what it costs."
                ],
                note=True,
            )
        )
        return section
    game = tables["bags_game"]
    decided_of = "finished games" if len(labels) == 1 else "the games it lost"
    game_said = []
    for label in labels:
        got = {
            m: _one(game, m, label)
            for m in ("bags", "penalized", "first_penalty_hand", "points_lost", "decided_by_bags")
        }
        if got["bags"] is None or got["penalized"] is None or got["points_lost"] is None:
            continue
        who = "a side" if len(labels) == 1 else f"a side playing {label}"
        game_said.append(
            w.bags_game_sentence(
                got["bags"],
                got["penalized"],
                got["first_penalty_hand"],
                got["points_lost"],
                got["decided_by_bags"],
                who,
                decided_of,
            )
        )
    section.blocks.append(Text(game_said, bullets=len(game_said) > 1))
    hand_no = tables["bags_hand_no"]
    penalty_series = []
    for label in labels:
        points = _points(hand_no, "penalty", label, "hand_no", MIN_POINT * 5)
        total = _n(per_hand, "penalty", label)
        penalty_series.append(Series.of(label, [(h + 1, e) for h, e in points], total))
    lost_series = [
        Series.of(
            label,
            [
                (h + 1, e)
                for h, e in _points(hand_no, "points_lost", label, "hand_no", MIN_POINT * 5)
            ],
            total=_n(per_hand, "points_lost", label),
        )
        for label in labels
    ]
    section.blocks.append(
        _figure(
            [
                Panel(
                    "penalty strikes",
                    "hand of the game",
                    "share of side-hands",
                    penalty_series,
                    percent=True,
                    n_word="side-hands",
                ),
                Panel(
                    "points lost to bags",
                    "hand of the game",
                    "points per side-hand",
                    lost_series,
                    n_word="side-hands",
                ),
            ],
            "How soon the bag penalty strikes: the share of sides penalized on each hand of a "
            "game, and the points it costs per hand (hands played by fewer than "
            f"{MIN_POINT * 5} sides left out).",
            alt="bag penalty rate by hand number",
        )
    )
    rows = []
    for measure, doc in bags.GAME_MEASURES.items():
        row = [doc]
        for label in labels:
            e = _one(game, measure, label)
            kind_percent = measure in ("penalized", "decided_by_bags")
            row += [_cell(e, kind_percent), w.count(e.n) if e else "0"]
        rows.append(row)
    columns = ["per side per game"]
    for label in labels:
        columns += [f"{label} (95% CI)" if len(labels) > 1 else "estimate (95% CI)", "n"]
    section.blocks.append(Table(columns, rows, caption="Bags over whole games"))
    return section


# --------------------------------------------------------------------------------------
# Games
# --------------------------------------------------------------------------------------


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
    sides = dict(enumerate(SIDE_NAMES))
    wins = {
        f"{name} ({info.side_label(side)})" if not info.same_sides else name: proportion_ci(
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
        xticklabels={0: "N-S won", 1: "E-W won", 2: "unfinished"},
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
        _figure(
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
        _figure(
            [length_panel],
            "How long games last: the share of games over by each hand (drawn up to the "
            "hand by which 99% are over). " + " ".join(s[0].upper() + s[1:] for s in length_said),
            alt="distribution of game length",
            height=3.0,
        )
    )
    rows = []
    for o in outcomes:
        ws = list(o.wins.values())
        rows.append(
            [
                o.label,
                w.count(o.length.n),
                _cell(ws[0]),
                _cell(ws[1]),
                _cell(o.unfinished),
                _cell(o.length, percent=False),
                _cell(o.endings["the target"]),
                _cell(o.endings["the loss threshold"]),
            ]
        )
    section.blocks.append(
        Table(
            [
                "run",
                "games",
                "N-S won",
                "E-W won",
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


__all__ = [
    "MIN_POINT",
    "GameOutcomes",
    "bags_section",
    "bids_section",
    "game_outcomes",
    "games_section",
    "nil_section",
    "pair_section",
    "report_tables",
    "series_keys",
    "table_requests",
]
