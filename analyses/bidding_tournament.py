"""Bidding tournament: every built-in bidder against every other in duplicate games to
500, with win rates, intervals and a ranking that says which differences are real.

Design. For each pair of bidders (A, B) two games runs are played on the same deals
(one seed for the whole tournament, so every pair meets the same cards): A North-South
and B East-West, then the sides swapped; everyone plays ``heuristic`` under the
standard rules (game to 500, bags 10 for 100). A's win rate is paired game by game (the
mean over games of A's wins in the two seatings, with its normal 95% interval), which
cancels the luck of the cards; the unpaired Wilson interval over the ``2 n`` games is
shown beside it. With ten comparisons, a difference is called *real* when its paired
interval at the Bonferroni level 1 - 0.05/10 (99.5%) excludes an even split; the
ranking orders the bidders by their mean win rate against the others and marks with
``≈`` the neighbours whose head-to-head difference is not real.

Size. The ``monte-carlo`` bidder samples deals and plays them out for every bid: about
3,000 hands a second with one side using it on the shared two-core development machine,
against hundreds of thousands for the counting bidders. Its four pairs therefore play
``--mc-games`` games per seating (default 20,000: some 380,000 hands and two to three
minutes per pair) and the other six pairs ``--games`` (default 100,000, under half a
minute each); the whole tournament, the eleven reports included, took 15 minutes. At
20,000 paired games a win rate is known within about ±0.4 percentage points, far less
than the gaps the monte-carlo bidder's pairs show, so more games would change no
conclusion.

Run it (from a checkout with ``pip install -e '.[report]'``)::

    python analyses/bidding_tournament.py --out runs/studies/tournament
    python analyses/bidding_tournament.py --out /tmp/t --games 2000 --mc-games 300  # quick

Writes ``DIR/report.html``, ``DIR/headline.json`` and ``DIR/headline.md``, a duplicate
report per pair in ``DIR/pairs/``, and keeps the runs in ``DIR/runs/`` (1.3 GB at the
default sizes) unless ``--clean``. Re-running resumes the runs. Reproducible from
``--seed``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import sys
import time
from pathlib import Path

if __name__ == "__main__":  # run as a script: import the package from this checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from spades_sim import __version__
from spades_sim import report as reports
from spades_sim.analysis.stats import Estimate
from spades_sim.policies import describe
from spades_sim.report import Document, Figure, Section, Table, Text
from spades_sim.report import words as w
from spades_sim.report.figures import COLORS, forest_png, heatmap_png
from spades_sim.report.runs import PairedResult, compare_runs
from spades_sim.run import run_dataset
from spades_sim.simulate import RunSpec

GAMES = 100_000
MC_GAMES = 20_000
SEED = 500
SLOW = "monte-carlo"
PLAY = "heuristic"


def bidders() -> list[str]:
    """Every built-in bidding policy, in the registry's order."""
    return [spec.name for spec in describe("bid")]


def play_pair(
    a: str, b: str, games: int, seed: int, runs: Path, threads: int | None
) -> tuple[Path, Path, float]:
    """Both seatings of A against B (resumed if already there); their wall time."""
    start = time.perf_counter()
    paths = []
    new_hands = 0
    for name, (ns, ew) in (("a-ns", (a, b)), ("a-ew", (b, a))):
        spec = RunSpec.build(seed=seed, bidding=(ns, ew), play=PLAY, mode="games")
        path = runs / f"{a}_vs_{b}" / name
        summary = run_dataset(
            spec, games, path, threads=threads, resume=True, progress=sys.stderr.isatty()
        )
        new_hands += summary.new_hands
        paths.append(path)
    spent = time.perf_counter() - start
    if new_hands == 0:  # already made: keep the time its making took
        spent = earlier_times(runs.parent).get(f"{a} vs {b}", spent)
    return paths[0], paths[1], spent


def earlier_times(out: Path) -> dict[str, float]:
    """The run times an earlier invocation recorded in ``out/headline.json``, if any."""
    try:
        return dict(json.loads((out / "headline.json").read_text())["seconds"])
    except (OSError, ValueError, KeyError):
        return {}


def bidder(label: str) -> str:
    """The bidding policy of a ``bidding/play`` label."""
    return label.rsplit("/", 1)[0]


def build_report(
    results: dict[tuple[str, str], PairedResult],
    strict: dict[tuple[str, str], Estimate],
    names: list[str],
    games: dict[tuple[str, str], int],
    seed: int,
    seconds: dict[tuple[str, str], float],
) -> tuple[Document, dict]:
    """The tournament as a report and its headline figures."""
    rate: dict[tuple[str, str], Estimate] = {}  # (row, column): row's paired win rate
    for (a, b), r in results.items():
        assert r.wins_paired is not None
        e = r.wins_paired
        rate[a, b] = e
        rate[b, a] = Estimate(1 - e.value, 1 - e.high, 1 - e.low, e.n, e.level)
    mean_rate = {x: float(np.mean([rate[x, y].value for y in names if y != x])) for x in names}
    order = sorted(names, key=lambda x: -mean_rate[x])

    def real(x: str, y: str) -> bool:
        e = strict[(x, y)] if (x, y) in strict else strict[(y, x)]
        return w.is_real(e, 0.5)

    ties = [(x, y) for x, y in itertools.pairwise(order) if not real(x, y)]
    ranking = w.ranking_sentence(order, ties).replace("at 95%", "at the 99.5% level")
    head_to_head = [
        w.win_sentence(a, b, rate[a, b], "games played both ways")
        + (" Real at the 99.5% level too." if real(a, b) else " Not real at the 99.5% level.")
        for a, b in results
    ]
    pair_rows = sorted(results, key=lambda p: -abs(rate[p].value - 0.5))
    forest = forest_png(
        [(f"{a} vs {b}", rate[a, b]) for a, b in pair_rows],
        "win rate of the first bidder, paired by game",
        "share of games won",
        reference=0.5,
        percent=True,
        colors=[COLORS[0] if real(a, b) else COLORS[5] for a, b in pair_rows],
    )
    k = len(names)
    values, low, high, n = (np.full((k, k), np.nan) for _ in range(4))
    for (x, y), e in rate.items():
        i, j = order.index(x), order.index(y)
        values[i, j], low[i, j], high[i, j] = e.value, e.low, e.high
        n[i, j] = e.n if i < j else 0  # each game counted once in the title
    matrix = heatmap_png(
        values,
        low,
        high,
        np.nan_to_num(n),
        order,
        order,
        "win rate of the row's bidder against the column's",
        "against",
        "bidder",
        min_n=0,
    )
    table_rows = []
    for a, b in results:
        r, e = results[a, b], rate[a, b]
        assert r.wins is not None
        table_rows.append(
            [
                f"{a} vs {b}",
                w.count(games[a, b]),
                w.bracketed(e, percent=True),
                f"{100 * strict[a, b].low:.1f}–{100 * strict[a, b].high:.1f}",
                f"{100 * r.wins.low:.1f}–{100 * r.wins.high:.1f}",
                w.bracketed(r.margin, sign=True),
                "yes" if real(a, b) else "no",
            ]
        )
    narrowing = [
        f"{a} vs {b}: " + w.narrowing_sentence(r.wins_paired, r.wins, "games", percent=True)  # type: ignore[arg-type]
        for (a, b), r in results.items()
    ]
    total_seconds = sum(seconds.values())
    doc = Document(
        "Bidding tournament: every built-in bidder against every other",
        f"duplicate games to 500 under the standard rules, play {PLAY}, seed {seed}",
        facts=[
            ("rules", "standard (game to 500, bags 10 for 100, nil 100, blind nil 200)"),
            ("bidders", ", ".join(names) + " (each with its default parameters)"),
            ("play", f"{PLAY} for every seat"),
            ("seed", f"{seed} (the same deals for every pair)"),
            (
                "size",
                ", ".join(f"{a} vs {b}: {g:,}" for (a, b), g in games.items())
                + " games per seating",
            ),
            ("version", f"spades_sim {__version__}"),
            ("run time", f"{total_seconds:,.0f} s of simulation"),
        ],
    )
    doc.sections += [
        Section(
            "Ranking",
            [
                Text([ranking]),
                Table(
                    ["bidder", "mean win rate against the others"],
                    [[x, w.pct(mean_rate[x])] for x in order],
                    caption="Bidders ordered by their mean paired win rate",
                ),
                Text(
                    [
                        "Each pair plays the same games twice with the sides swapped. A "
                        "difference is real when its paired interval at the 99.5% level "
                        "(95% shared over the ten comparisons, Bonferroni) excludes 50%."
                    ],
                    note=True,
                ),
            ],
        ),
        Section(
            "Head to head",
            [
                Text(head_to_head, bullets=True),
                Figure(
                    forest,
                    "Each pair's win rate for the first-named bidder, paired game by game "
                    "(bars: 95% intervals; grey: not real at the 99.5% level).",
                ),
                Figure(matrix, "The same win rates as a matrix, rows against columns."),
                Table(
                    [
                        "pair",
                        "games per seating",
                        "first wins (95% CI)",
                        "99.5% CI",
                        "unpaired 95% CI",
                        "margin per hand",
                        "real",
                    ],
                    table_rows,
                    caption="Head to head (win rates paired by game; margin: points per hand "
                    "both seatings played)",
                ),
            ],
        ),
        Section("What pairing bought", [Text(narrowing, bullets=True)]),
    ]
    doc.footer = (
        f"Made by analyses/bidding_tournament.py with spades_sim {__version__}; every sentence "
        "was generated from the numbers it states. Each pair's own report is in pairs/."
    )
    headline = {
        "seed": seed,
        "games_per_seating": {f"{a} vs {b}": g for (a, b), g in games.items()},
        "seconds": {f"{a} vs {b}": s for (a, b), s in seconds.items()},
        "ranking": ranking,
        "order": order,
        "mean_win_rate": mean_rate,
        "pairs": {
            f"{a} vs {b}": {
                "win_rate_paired": [rate[a, b].value, rate[a, b].low, rate[a, b].high],
                "win_rate_99_5": [strict[a, b].value, strict[a, b].low, strict[a, b].high],
                "real": real(a, b),
                "margin_per_hand": [r.margin.value, r.margin.low, r.margin.high],
            }
            for (a, b), r in results.items()
        },
    }
    return doc, headline


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path, help="Output directory.")
    parser.add_argument("--games", type=int, default=GAMES, help="Games per seating.")
    parser.add_argument(
        "--mc-games", type=int, default=MC_GAMES, help=f"Games per seating with {SLOW}."
    )
    parser.add_argument("--seed", type=int, default=SEED, help=f"Seed (default {SEED}).")
    parser.add_argument("--threads", type=int, default=None, help="Kernel threads.")
    parser.add_argument("--no-pair-reports", action="store_true", help="Skip pairs/*.html.")
    parser.add_argument("--clean", action="store_true", help="Delete the runs when done.")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    names = bidders()
    runs = args.out / "runs"
    results: dict[tuple[str, str], PairedResult] = {}
    strict: dict[tuple[str, str], Estimate] = {}
    games: dict[tuple[str, str], int] = {}
    seconds: dict[tuple[str, str], float] = {}
    comparisons = len(names) * (len(names) - 1) // 2
    report_seconds = 0.0
    for a, b in itertools.combinations(names, 2):
        n = args.mc_games if SLOW in (a, b) else args.games
        first, second, spent = play_pair(a, b, n, args.seed, runs, args.threads)
        report_start = time.perf_counter()
        result = compare_runs(first, second)
        results[a, b] = result
        assert result.wins_paired is not None
        strict_result = compare_runs(first, second, level=1 - 0.05 / comparisons)
        assert strict_result.wins_paired is not None
        strict[a, b] = strict_result.wins_paired
        games[a, b], seconds[a, b] = n, spent
        print(
            f"{a} vs {b}: {w.win_sentence(a, b, result.wins_paired)} ({spent:,.0f} s)",
            file=sys.stderr,
        )
        if not args.no_pair_reports:
            reports.write(first, args.out / "pairs" / f"{a}_vs_{b}.html", second)
        report_seconds += time.perf_counter() - report_start
    report_start = time.perf_counter()
    doc, headline = build_report(results, strict, names, games, args.seed, seconds)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "report.html").write_text(doc.to_html(), encoding="utf-8")
    headline["simulation_seconds"] = sum(seconds.values())  # kept from the first making
    headline["report_seconds"] = report_seconds + time.perf_counter() - report_start
    headline["total_seconds"] = time.perf_counter() - started
    (args.out / "headline.json").write_text(json.dumps(headline, indent=1))
    lines = [f"# Bidding tournament (seed {args.seed})", "", headline["ranking"], ""]
    for (a, b), r in results.items():
        assert r.wins_paired is not None
        real = headline["pairs"][f"{a} vs {b}"]["real"]
        lines.append(
            f"- {a} wins {w.stated(r.wins_paired, percent=True)} of its games against {b}, "
            f"{'real' if real else 'not real'} at 99.5%"
        )
    lines.append(
        f"- run time: {headline['simulation_seconds']:,.0f} s of simulation, "
        f"{headline['report_seconds']:,.0f} s of analysis and reports"
    )
    (args.out / "headline.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    if args.clean:
        shutil.rmtree(runs)


if __name__ == "__main__":
    main()
