"""Strategy reports: one self-contained HTML page from a run, or from a duplicate pair.

Contract
--------
:func:`write` (and ``spades-sim report RUN [RUN_B] --out report.html``) turns one run, a
run directory, a frame or a ``(hands, games)`` pair as the analyses take them, into an
HTML file a player or a bot author can read: it opens with the run's rules, policies,
seed, size and package versions, then

- **nil**: success against spade count, high spades and shortest suit (bands and tables
  with ``n``), blind nil beside it when present, the best and worst shapes in words;
- **bids**: side tricks minus contract, set / exact / over by contract level, tricks
  taken against the bid;
- **bags**: bags per hand and by contract; for games, per game, how soon the penalty
  strikes and the points it costs;
- **against double-dummy play** (runs with the double-dummy columns, ``--dd``): contracts
  against the tricks the cards make under perfect play, by level, and nil success where
  the nil was double-dummy safe and where it was not;
- **games** (games runs): who wins, how long games last, how they end;
- with ``ladder`` (``--ladder FILE``), the **strength ladder**: every pair of play
  policies in duplicate (``spades-sim ladder`` writes the file), ranked, each pair's
  margin and the nils each side made and set;
- with ``run_b``, a **duplicate pair** (same seed, rules and size, the sides' policies
  swapped: ``spades-sim compare`` makes one): A's margin per deal and, for games, its
  win rate, paired over the two seatings, and how much the pairing narrowed the
  interval. Two runs that are not a pair are refused (:class:`NotAPair`, naming what
  differs).

Every figure carries ``n`` and 95% intervals; every sentence is generated from the
numbers (:mod:`.words`). The file has its styles inline and its images as base64 PNG
``data:`` URIs: no script, no network. Each run is read part by part in one scan.

matplotlib (the ``report`` extra) draws the figures; without it :func:`build` and
:func:`write` raise :class:`ReportUnavailable` (an ``ImportError``) whose one-line
message names the extra. Building blocks for custom reports (the studies in
``analyses/``): :class:`Document`, :class:`Section`, :class:`Text`, :class:`Figure`,
:class:`Table`, the figure functions of :mod:`.figures` and the section builders of
:mod:`.sections`.

>>> import tempfile
>>> from spades_sim import simulate_hands
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = write(simulate_hands(400, seed=1), tmp + "/report.html")
...     html = path.read_text()
>>> html.startswith("<!DOCTYPE html>"), html.count("<img ") >= 5
(True, True)
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from spades_sim._version import __version__
from spades_sim.analysis.ladder import read_ladder
from spades_sim.analysis.source import Data, sources
from spades_sim.report.document import (
    Document,
    Figure,
    Heading,
    Section,
    Table,
    Text,
    is_report,
)
from spades_sim.report.figures import ReportUnavailable, require_matplotlib
from spades_sim.report.games import game_outcomes, games_section, ladder_section, pair_section
from spades_sim.report.measures import report_tables
from spades_sim.report.runs import (
    NotAPair,
    PairedResult,
    RunInfo,
    compare_runs,
    detect_pair,
    run_info,
)
from spades_sim.report.sections import (
    bags_section,
    bids_section,
    dd_bids_section,
    dd_nil_section,
    nil_section,
    realism_section,
)


def _run_name(info: RunInfo, index: int, pair: bool) -> str:
    if info.label.startswith("the data") or info.label.startswith("run "):
        return f"run {index + 1}"
    return f"run {index + 1} ({info.label})" if pair else info.label


LadderArg = pd.DataFrame | str | os.PathLike[str]
"""A strength ladder: the table :func:`spades_sim.analysis.ladder.ladder` returns, or the
Parquet file ``spades-sim ladder`` wrote."""


def _ladder_table(ladder: LadderArg) -> pd.DataFrame:
    if isinstance(ladder, pd.DataFrame):
        return ladder
    return read_ladder(ladder)


def build(
    run: Data,
    run_b: Data | None = None,
    *,
    title: str | None = None,
    level: float = 0.95,
    ladder: LadderArg | None = None,
) -> Document:
    """The report of ``run`` (with ``run_b``: of the duplicate pair) as a :class:`Document`;
    with ``ladder``, a section on the strength ladder of play policies too."""
    require_matplotlib()
    ladder_table = None if ladder is None else _ladder_table(ladder)
    # an unfinished run is reported (its facts say how much of it there is), and the two
    # runs of a pair hold the same deals on purpose: the report pairs them
    first = sources(run, partial=True)[0]
    if run_b is None:
        data: Data | list[Data] = first
        srcs = [first]
    else:
        second = sources(run_b, partial=True)[0]
        detect_pair(first, second)
        data = [first, second]
        srcs = [first, second]
    for s in srcs:  # an aggregate has no rows, and the report reads rows
        if s.aggregate is not None:
            raise ValueError(
                f"{s.label}: an aggregate run has counts, not rows; the report needs rows"
            )
    infos = [run_info(s) for s in srcs]
    names = [_run_name(info, i, run_b is not None) for i, info in enumerate(infos)]
    tables = report_tables(data, level)
    sections = []
    paired: PairedResult | None = None
    if run_b is not None:
        paired = compare_runs(srcs[0], srcs[1], level)
        sections.append(pair_section(paired))
    single = infos[0]
    sections.append(
        nil_section(tables, single.side_label(0) if single.same_sides and run_b is None else "")
    )
    sections.append(bids_section(tables))
    sections.append(bags_section(tables))
    sections.append(realism_section(tables))
    if "dd_bids" in tables:  # every run has the double-dummy columns
        sections.append(dd_bids_section(tables))
        sections.append(dd_nil_section(tables))
    if single.mode == "games":
        outcomes = [
            game_outcomes(s, i, n, level) for s, i, n in zip(srcs, infos, names, strict=True)
        ]
        sections.append(games_section(outcomes))
    if ladder_table is not None:
        sections.append(ladder_section(ladder_table))
    footer = (
        f"Made by spades_sim {__version__}. Proportions carry Wilson 95% intervals and means "
        "normal 95% intervals; every sentence was generated from the numbers it states."
    )
    if paired is None:
        heading = title or f"Spades strategy report: {single.policies_text()}"
        subtitle = f"{single.size_text()} under the {single.rules_text} rules, from {names[0]}"
        return Document(heading, subtitle, single.facts(), sections, footer)
    a, b = paired.info.a, paired.info.b
    heading = title or f"Duplicate report: {a} against {b}"
    subtitle = (
        f"{single.size_text()} per seating under the {single.rules_text} rules, "
        f"{a} North-South in run 1 and East-West in run 2"
    )
    facts = Table(
        ["", *names],
        [[key, *(dict(i.facts())[key] for i in infos)] for key, _ in single.facts()],
        caption="The two runs",
        text_columns=3,
    )
    return Document(heading, subtitle, (), sections, footer, fact_table=facts)


def write(
    run: Data,
    out: str | os.PathLike[str],
    run_b: Data | None = None,
    *,
    title: str | None = None,
    level: float = 0.95,
    force: bool = False,
    ladder: LadderArg | None = None,
) -> Path:
    """Build the report (:func:`build`) and write it to ``out`` as one HTML file; returns
    the path. The parent directory is created if missing.

    An existing ``out`` is replaced only if it is a report this package wrote
    (:func:`is_report`), or with ``force``; otherwise :class:`WouldReplace` is raised
    before anything is computed. The file is written under a temporary name and renamed,
    so a failure leaves the old file whole.
    """
    path = Path(out)
    check_replaceable(path, force)
    if ladder is not None:  # a wrong ladder file fails before the runs are read
        ladder = _ladder_table(ladder)
    document = build(run, run_b, title=title, level=level, ladder=ladder)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(document.to_html(), encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


class WouldReplace(FileExistsError):
    """The report's output is a file that is not a report this package wrote."""


def check_replaceable(out: str | os.PathLike[str], force: bool = False) -> None:
    """Refuse an output ``out`` that exists and is not a report (unless ``force``).

    >>> import tempfile
    >>> other = tempfile.NamedTemporaryFile("w", suffix=".md", delete=False).name
    >>> check_replaceable(other)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    spades_sim.report.WouldReplace: ....md exists and is not a spades_sim report: ...
    >>> check_replaceable(other, force=True)
    """
    path = Path(out)
    if path.is_dir():
        raise WouldReplace(f"{path} is a directory: give a file name for the report")
    if path.exists() and not force and not is_report(path):
        raise WouldReplace(
            f"{path} exists and is not a spades_sim report: refusing to replace it "
            "(pass --force to replace it anyway)"
        )


__all__ = [
    "Document",
    "Figure",
    "Heading",
    "NotAPair",
    "ReportUnavailable",
    "Section",
    "Table",
    "Text",
    "WouldReplace",
    "build",
    "check_replaceable",
    "is_report",
    "write",
]
