"""The report sections of hands: nil, bids and bags, built on :mod:`.tables`.

Contract
--------
The section builders turn the tables of :func:`~.tables.report_tables` into
:class:`~spades_sim.report.document.Section` objects:

- :func:`nil_section`: nil success against spade count, high spades and shortest suit
  (bands and tables with ``n``), blind nil beside it when there is any, the shapes that
  make nil most and least often, in words;
- :func:`bids_section`: side tricks minus contract, set / exact / over by contract
  level, and tricks taken against the bid (calibration);
- :func:`bags_section`: bags per hand and by contract; in games, bags per game, how soon
  the penalty strikes (rate by hand number, first penalty hand), points lost;
- with the double-dummy columns (``--dd``): :func:`dd_bids_section`, contracts against
  the tricks the cards make under perfect play, overall and by level, and
  :func:`dd_nil_section`, nil success where the nil was double-dummy safe (the cover's
  weakness) and where it was not (the defence's).

- :func:`realism_section`: the realism table (:func:`~spades_sim.analysis.realism.realism`:
  nil and blind nil rates, nil success clean and with a high spade, bags per hand, hands
  per game) beside the published bot figure, over every run of the report.

The games and duplicate-pair sections are :mod:`.games`. Every number shown carries its
``n`` and 95% interval; every sentence comes from :mod:`.words`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from spades_sim.analysis import Estimate, bags
from spades_sim.report import words as w
from spades_sim.report.document import Heading, Section, Table, Text
from spades_sim.report.figures import Panel, Series
from spades_sim.report.measures import (
    ALL_SEATS,
    FEATURES,
    MIN_POINT,
    MIN_SHAPE,
    cell,
    estimate_of,
    figure_of,
    labels_of,
    n_of,
    one_of,
    points_of,
    rows_of,
)

__all__ = [
    "bags_section",
    "bids_section",
    "dd_bids_section",
    "dd_nil_section",
    "nil_section",
    "realism_section",
]


# --------------------------------------------------------------------------------------
# Realism
# --------------------------------------------------------------------------------------

_REALISM_ROWS = (
    ("nil_per_seat", "nil bids per seat-hand", True),
    ("nil_per_side", "nil bids per side-hand", True),
    ("blind_nil_per_seat", "blind nil bids per seat-hand", True),
    ("nil_made", "nils made", True),
    ("nil_made_clean", "... holding no spade above the ten", True),
    ("nil_made_high_spade", "... holding a spade above the ten", True),
    ("nil_made_top_low", "... highest spade below the ten, or none", True),
    ("nil_made_top_ten", "... highest spade the ten", True),
    ("nil_made_top_jack", "... highest spade the jack", True),
    ("nil_made_top_queen_up", "... holding the queen of spades or higher", True),
    ("nil_unsafe_made", "nils perfect defence sets that were made (the defence's leak)", True),
    ("nil_safe_lost", "nils perfect play keeps that were lost (the cover's loss)", True),
    ("blind_nil_made", "blind nils made", True),
    ("bags_per_hand", "bags per side-hand", False),
    ("hands_per_game", "hands per game", False),
)


def realism_section(tables: Mapping[str, pd.DataFrame]) -> Section:
    """How the tables bid against real ones: the realism table and what it says."""
    section = Section("Realism")
    table = tables["realism"]
    found = {
        m: estimate_of(table[table["measure"] == m].iloc[0])
        for m in table["measure"]
        if int(table.loc[table["measure"] == m, "n"].iloc[0]) > 0
    }
    if "nil_per_side" not in found or "blind_nil_per_seat" not in found:
        section.blocks.append(Text(["No hands to measure."]))
        return section
    said = w.realism_sentences(
        found["nil_per_side"],
        found["blind_nil_per_seat"],
        found.get("nil_made_clean"),
        found.get("nil_made_high_spade"),
    )
    section.blocks.append(Text(said))
    rows = [
        [label, cell(found.get(m), percent), w.PUBLISHED_REALISM.get(m, "")]
        for m, label, percent in _REALISM_ROWS
        if m in found
    ]
    section.blocks.append(
        Table(
            ["measure", "estimate (95% CI)", "published"],
            rows,
            caption="Over every run of the report. Proportions in percent with Wilson "
            f"intervals, means with normal ones. Published: {w.PUBLISHED_SOURCES}",
        )
    )
    return section


# --------------------------------------------------------------------------------------
# Nil
# --------------------------------------------------------------------------------------


def nil_section(tables: Mapping[str, pd.DataFrame], policies_phrase: str = "") -> Section:
    """Nil: success by spades, high spades and shortest suit; blind nil when present."""
    section = Section("Nil bids")
    overall = tables["nil"]
    kinds: list[tuple[str, bool]] = []  # (series label, blind)
    said = []
    labels = labels_of(overall)
    for label in labels:
        for blind in (False, True):
            success = one_of(overall, "success_rate", label, blind=blind)
            rate = one_of(overall, "nil_rate", label, blind=blind)
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
        e = one_of(overall, "success_rate", label, blind=blind)
        return e.n if e else 0

    panels = []
    for feature, title in FEATURES.items():
        series = [
            Series.of(
                series_name(label, blind),
                points_of(
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
        rows = points_of(tables["nil_spades"], "success_rate", label, "spades", blind=blind)
        trend.append(w.trend_sentence(subject, "spades", rows))
    section.blocks.append(
        figure_of(
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
        (v, kind): one_of(table, "success_rate", kind[0], blind=kind[1], **{feature: v})
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
                row += [w.count(e.n) if e else "0", cell(e)]
            rows.append(row)
        return Table(columns, rows, caption=caption)
    rows = [
        [str(v), name(*kind), w.count(e.n), cell(e)]
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
        rows = rows_of(table, "success_rate", label, blind=False)
        rows = rows[rows["n"] >= MIN_SHAPE]
        if len(rows) < 2:
            continue
        where = policies_phrase or ("" if label == ALL_SEATS else label)
        best = rows.sort_values("ci_low", ascending=False).head(3)
        worst = rows.sort_values("ci_high").head(1)
        for r in [*best.to_dict("records"), *worst.to_dict("records")]:
            shape = {k: int(r[k]) for k in ("spades", "high_spades", "shortest_suit")}
            said.append(w.nil_shape_sentence(shape, estimate_of(r), where))
    return said


# --------------------------------------------------------------------------------------
# Bids
# --------------------------------------------------------------------------------------


def _contract_said(
    summary: pd.DataFrame,
    labels: list[str],
    sentence: Callable[[Estimate, Estimate, Estimate, Estimate], str],
) -> list[str]:
    """One ``sentence(exact, over, set, mean difference)`` per series of a contract summary
    (played tricks or double-dummy tricks against the contract), series without it left out."""
    said = []
    for label in labels:
        got = [one_of(summary, m, label) for m in ("exact", "over", "set", "difference")]
        if any(e is None for e in got):
            continue
        exact, over, set_, mean = got
        assert exact and over and set_ and mean
        prefix = "" if len(labels) == 1 else f"{label}: "
        said.append(prefix + sentence(exact, over, set_, mean))
    return said


def bids_section(tables: Mapping[str, pd.DataFrame]) -> Section:
    """Bids: side tricks minus contract, set / exact / over by level, calibration."""
    section = Section("Bids and contracts")
    summary = tables["bids"]
    labels = labels_of(summary)
    said = _contract_said(summary, labels, w.contract_sentence)
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
        figure_of(
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
                    points_of(level, m, label, "side_contract", MIN_POINT),
                    total=n_of(summary, "exact", label),
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
        points = points_of(level, "set", label, "side_contract", MIN_SHAPE)
        if not points:
            continue
        common = max(points, key=lambda p: p[1].n)[0]
        top = points[-1][0]
        for lv in dict.fromkeys([common, top]):
            set_, exact, over = (
                one_of(level, m, label, side_contract=lv) for m in ("set", "exact", "over")
            )
            if set_ and exact and over:
                prefix = "" if len(labels) == 1 else f"{label}: "
                level_said.append(prefix + w.level_sentence(lv, set_, exact, over))
    section.blocks.append(
        figure_of(
            panels,
            "Set, made exactly and made with overtricks, by the side's contract (the sum of "
            "its number bids). " + " ".join(level_said),
            alt="set, exact and overtrick rates by contract level",
            height=2.8,
        )
    )
    rows = []
    for label in labels:
        for lv, _ in points_of(level, "set", label, "side_contract"):
            got = [one_of(level, m, label, side_contract=lv) for m in ("set", "exact", "over")]
            n = got[0].n if got[0] else 0
            rows.append([label, str(lv), w.count(n), *(cell(e) for e in got)])
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
            points_of(calibration, "tricks", label, "bid", MIN_POINT),
            total=sum(e.n for _, e in points_of(calibration, "tricks", label, "bid")),
        )
        for label in labels
    ]
    cal_said = []
    for label in labels:
        prefix = "" if len(labels) == 1 else f"{label}: "
        cal_said.append(
            prefix + w.calibration_sentence(points_of(calibration, "tricks", label, "bid"))
        )
    section.blocks.append(
        figure_of(
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
        points = points_of(dist, "share", label, "difference")
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
    labels = labels_of(per_hand)
    said = []
    for label in labels:
        e = one_of(per_hand, "bags", label)
        if e is not None:
            who = "A side" if len(labels) == 1 else f"A side playing {label}"
            said.append(w.bags_hand_sentence(e, who))
    section.blocks.append(Text(said, bullets=len(said) > 1))
    contract = tables["bags_contract"]
    section.blocks.append(
        figure_of(
            [
                Panel(
                    "bags per hand by contract",
                    "side contract",
                    "bags per side-hand",
                    [
                        Series.of(
                            label,
                            points_of(contract, "bags", label, "side_contract", MIN_POINT),
                            total=n_of(per_hand, "bags", label),
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
            m: one_of(game, m, label)
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
        points = points_of(hand_no, "penalty", label, "hand_no", MIN_POINT * 5)
        total = n_of(per_hand, "penalty", label)
        penalty_series.append(Series.of(label, [(h + 1, e) for h, e in points], total))
    lost_series = [
        Series.of(
            label,
            [
                (h + 1, e)
                for h, e in points_of(hand_no, "points_lost", label, "hand_no", MIN_POINT * 5)
            ],
            total=n_of(per_hand, "points_lost", label),
        )
        for label in labels
    ]
    section.blocks.append(
        figure_of(
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
            e = one_of(game, measure, label)
            kind_percent = measure in ("penalized", "decided_by_bags")
            row += [cell(e, kind_percent), w.count(e.n) if e else "0"]
        rows.append(row)
    columns = ["per side per game"]
    for label in labels:
        columns += [f"{label} (95% CI)" if len(labels) > 1 else "estimate (95% CI)", "n"]
    section.blocks.append(Table(columns, rows, caption="Bags over whole games"))
    return section


# --------------------------------------------------------------------------------------
# Against the solver
# --------------------------------------------------------------------------------------


def dd_bids_section(tables: Mapping[str, pd.DataFrame]) -> Section:
    """Contracts against the double-dummy tricks of the side's cards, overall and by level."""
    section = Section("Bids against double-dummy play")
    summary = tables["dd_bids"]
    labels = labels_of(summary)
    said = _contract_said(summary, labels, w.dd_contract_sentence)
    if not said:
        section.blocks.append(Text(["No side without a nil had a contract to make."]))
        return section
    section.blocks.append(Text(said, bullets=len(said) > 1))
    level = tables["dd_bids_level"]
    rows = []
    level_said = []
    for label in labels:
        points = points_of(level, "set", label, "side_contract")
        for lv, _ in points:
            got = [one_of(level, m, label, side_contract=lv) for m in ("set", "exact", "over")]
            mean = one_of(level, "difference", label, side_contract=lv)
            n = got[0].n if got[0] else 0
            rows.append(
                [label, str(lv), w.count(n), *(cell(e) for e in got), cell(mean, percent=False)]
            )
        usable = [(lv, e) for lv, e in points if e.n >= MIN_POINT]
        if usable:
            common = max(usable, key=lambda p: p[1].n)[0]
            set_, exact, over = (
                one_of(level, m, label, side_contract=common) for m in ("set", "exact", "over")
            )
            if set_ and exact and over:
                prefix = "" if len(labels) == 1 else f"{label}: "
                level_said.append(prefix + w.dd_level_sentence(common, set_, exact, over))
    if level_said:
        section.blocks.append(Text(level_said, bullets=len(level_said) > 1))
    section.blocks.append(
        Table(
            [
                "series",
                "contract",
                "side-hands",
                "above dd (95% CI)",
                "equal",
                "below",
                "dd tricks - contract",
            ],
            rows,
            caption="Contracts by level against the double-dummy tricks (n: side-hands with "
            "that contract and no nil)",
            text_columns=1,
        )
    )
    section.blocks.append(
        Text(
            [
                "Double-dummy tricks are what the side's cards take from the opening lead "
                "when every seat sees every card and plays perfectly: a contract above them "
                "is made only through the opponents' mistakes, one below them leaves tricks "
                "the cards had (bags, or a higher bid). Sides with a nil bidder are left "
                "out: the solver counts the nil bidder's tricks too."
            ],
            note=True,
        )
    )
    return section


def dd_nil_section(tables: Mapping[str, pd.DataFrame]) -> Section:
    """Nil success where double-dummy defence could not set the nil, and where it could."""
    section = Section("Nil against double-dummy play")
    table = tables["dd_nil"]
    labels = labels_of(table)
    said = []
    rows = []
    for label in labels:
        safe = one_of(table, "success_rate", label, dd_nil_safe=True)
        unsafe = one_of(table, "success_rate", label, dd_nil_safe=False)
        bid_when_safe = one_of(table, "nil_rate", label, dd_nil_safe=True)
        prefix = "" if len(labels) == 1 else f"{label}: "
        said += [prefix + s for s in w.dd_nil_sentences(safe, unsafe, bid_when_safe)]
        for verdict, e in (("safe", safe), ("not safe", unsafe)):
            rate = one_of(table, "nil_rate", label, dd_nil_safe=verdict == "safe")
            rows.append(
                [
                    label,
                    verdict,
                    w.count(rate.n) if rate else "0",
                    cell(rate),
                    w.count(e.n) if e else "0",
                    cell(e),
                ]
            )
    section.blocks.append(Text(said, bullets=len(said) > 1))
    section.blocks.append(
        Table(
            ["series", "double-dummy nil", "seats", "bid nil (95% CI)", "nil bids", "made"],
            rows,
            caption="Nil bids by the double-dummy verdict on the bidder's hand (n: seats, "
            "then nil bids)",
            text_columns=2,
        )
    )
    section.blocks.append(
        Text(
            [
                "A nil is double-dummy safe when, every card seen, the bidder's side can "
                "play so that the bidder takes no trick whatever the opponents do (the "
                "seat's nil alone, from the hands as play began). Perfect defence sets every "
                "nil that is not safe, so the share of those made measures the defence, and "
                "the share of safe nils lost measures the nil bidder and its cover. Intervals "
                "are Wilson's."
            ],
            note=True,
        )
    )
    return section
