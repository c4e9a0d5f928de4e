"""Bags: how fast sides pile them up under each play policy, with and without the bag
penalty, and what ducking (refusing tricks once the contract is made) costs or gains.

Design. Whole games to 500 under the standard rules (10 bags cost 100 points) and under
the same rules with ``bag_penalty=0``, every seat bidding ``count``, for each built-in
play policy (``random``, ``heuristic``, ``lookahead``): bags per hand and per game, how
soon the penalty strikes (its rate on each hand of a game, the hand of the first
penalty), the points it costs and the share of games it decides. Then ducking in
duplicate: ``heuristic`` (which ducks once its side has made its bid) against
``heuristic:bag_avoid=0`` (which never ducks) on the same games with the sides swapped,
under both rules: the ducking side's win rate (paired by game) and score margin.

Size. ``lookahead`` plays every deal out many times per card (a few hundred hands a
second on a shared two-core machine), so its runs have ``--lookahead-games`` games
(default 4,000); the others ``--games`` (default 20,000), and the ducking pairs
``--duck-games`` per seating (default 20,000).

Run it (from a checkout with ``pip install -e '.[report]'``)::

    python analyses/bags.py --out runs/studies/bags
    python analyses/bags.py --out /tmp/bags --games 500 --lookahead-games 40 --duck-games 500

Writes ``DIR/report.html``, ``DIR/headline.json`` and ``DIR/headline.md`` and keeps the
runs in ``DIR/runs/`` (about 260 MB at the default sizes) unless ``--clean``.
Re-running resumes the runs. Reproducible from ``--seed``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: import the package from this checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pandas as pd

from spades_sim import Rules, __version__
from spades_sim.analysis import bags as bag_plans
from spades_sim.analysis.reduce import run_many
from spades_sim.analysis.stats import Estimate
from spades_sim.report import Document, Figure, Heading, Section, Table, Text
from spades_sim.report import words as w
from spades_sim.report.figures import Panel, Series, forest_png, panels_png
from spades_sim.report.runs import PairedResult, compare_runs
from spades_sim.run import run_dataset
from spades_sim.simulate import RunSpec

GAMES = 20_000
LOOKAHEAD_GAMES = 4_000
DUCK_GAMES = 20_000
SEED = 10
PLAYS = ("random", "heuristic", "lookahead")
RULES = {"penalty": Rules(), "no penalty": Rules(bag_penalty=0)}
TIMING_HANDS = 30  # random play's games run to 200 hands: the timing plot stops here
DUCK = "heuristic"
NO_DUCK = "heuristic:bag_avoid=0"


def simulate(args: argparse.Namespace, runs: Path) -> tuple[dict, dict, dict[str, float]]:
    """The play-policy runs, the ducking pairs (both resumed if there) and their times."""
    progress = sys.stderr.isatty()
    try:  # runs already complete keep the times their making took
        before = dict(json.loads((runs.parent / "headline.json").read_text())["seconds"])
    except (OSError, ValueError, KeyError):
        before = {}
    plays: dict[tuple[str, str], Path] = {}
    pairs: dict[str, tuple[Path, Path]] = {}
    seconds: dict[str, float] = {}
    for rule_name, rules in RULES.items():
        for play in PLAYS:
            games = args.lookahead_games if play == "lookahead" else args.games
            path = runs / f"{play}-{rule_name.replace(' ', '-')}"
            start = time.perf_counter()
            spec = RunSpec.build(seed=args.seed, rules=rules, play=play, mode="games")
            summary = run_dataset(
                spec, games, path, threads=args.threads, resume=True, progress=progress
            )
            key = f"{play}, {rule_name}"
            seconds[key] = time.perf_counter() - start
            if summary.new_hands == 0 and key in before:
                seconds[key] = before[key]
            plays[play, rule_name] = path
        start = time.perf_counter()
        both = []
        new_hands = 0
        for name, (ns, ew) in (("a-ns", (DUCK, NO_DUCK)), ("a-ew", (NO_DUCK, DUCK))):
            spec = RunSpec.build(seed=args.seed, rules=rules, play=(ns, ew), mode="games")
            path = runs / f"duck-{rule_name.replace(' ', '-')}" / name
            summary = run_dataset(
                spec, args.duck_games, path, threads=args.threads, resume=True, progress=progress
            )
            new_hands += summary.new_hands
            both.append(path)
        pairs[rule_name] = (both[0], both[1])
        key = f"ducking pair, {rule_name}"
        seconds[key] = time.perf_counter() - start
        if new_hands == 0 and key in before:
            seconds[key] = before[key]
        print(f"{rule_name}: done", file=sys.stderr)
    return plays, pairs, seconds


def est(row: Any) -> Estimate:
    """A tidy table's row (a Series or a named tuple) as an Estimate."""
    return Estimate(float(row.estimate), float(row.ci_low), float(row.ci_high), int(row.n))


def pick(table: pd.DataFrame, measure: str, **keys: object) -> Estimate | None:
    rows = table[table.measure == measure]
    for k, v in keys.items():
        rows = rows[rows[k] == v]
    return est(rows.iloc[0]) if len(rows) == 1 else None


def build_report(
    plays: dict[tuple[str, str], Path],
    pairs: dict[str, tuple[Path, Path]],
    args: argparse.Namespace,
    seconds: dict[str, float],
) -> tuple[Document, dict]:
    """The study as a report and its headline figures."""
    runs = list(plays.values())
    label = {(play, rule): f"count/{play}" for play, rule in plays}
    rules_label = {"penalty": "standard", "no penalty": "standard bag_penalty=0"}
    by = ["policy", "rules"]
    per_game, per_hand, by_hand_no = run_many(
        runs,  # type: ignore[arg-type]
        [
            (bag_plans.GAME_PLAN, by),
            (bag_plans.HAND_PLAN, by),
            (bag_plans.HAND_PLAN, [*by, "hand_no"]),
        ],
    )

    def get(table: pd.DataFrame, measure: str, play: str, rule: str, **k: object) -> Estimate:
        e = pick(table, measure, policy=label[play, rule], rules=rules_label[rule], **k)
        assert e is not None, (measure, play, rule)
        return e

    said = []
    for play in PLAYS:
        bags_, penalized, first, lost, decided = (
            get(per_game, m, play, "penalty")
            for m in ("bags", "penalized", "first_penalty_hand", "points_lost", "decided_by_bags")
        )
        said.append(
            w.bags_hand_sentence(get(per_hand, "bags", play, "penalty"), f"With {play} play a side")
            + " "
            + w.bags_game_sentence(bags_, penalized, first, lost, decided, who="a side")
        )
        free = get(per_game, "bags", play, "no penalty")
        said.append(
            f"Without the penalty a side playing {play} takes {w.value_text(free)} bags a "
            f"game ({w.interval(free)} side-games), "
            f"{w.signed(free.value - bags_.value)} against the game with it."
        )

    def bars(measure: str, table: pd.DataFrame) -> list[Series]:
        out = []
        for rule in RULES:
            points = [(i, get(table, measure, play, rule)) for i, play in enumerate(PLAYS)]
            out.append(Series.of(f"{rule}", points, total=sum(e.n for _, e in points)))
        return out

    ticks: dict[float, str] = dict(enumerate(PLAYS))
    amounts = panels_png(
        [
            Panel(
                "bags per side per game",
                "play policy",
                "bags",
                bars("bags", per_game),
                kind="bar",
                xticklabels=ticks,
                n_word="side-games",
            ),
            Panel(
                "bags per side per hand",
                "play policy",
                "bags",
                bars("bags", per_hand),
                kind="bar",
                xticklabels=ticks,
                n_word="side-hands",
            ),
        ],
    )
    timing_series = [
        Series.of(
            play,
            [
                (int(r.hand_no) + 1, est(r))  # type: ignore[arg-type]
                for r in by_hand_no[
                    (by_hand_no.measure == "penalty")
                    & (by_hand_no.policy == label[play, "penalty"])
                    & (by_hand_no.rules == "standard")
                    & (by_hand_no.n >= 200)
                    & (by_hand_no.hand_no < TIMING_HANDS)
                ].itertuples(index=False)
            ],
            total=get(per_hand, "penalty", play, "penalty").n,
        )
        for play in PLAYS
    ]
    timing = panels_png(
        [
            Panel(
                "the bag penalty strikes",
                "hand of the game",
                "share of side-hands",
                timing_series,
                percent=True,
                n_word="side-hands",
            )
        ],
        height=3.0,
    )
    rows = []
    for play in PLAYS:
        for rule in RULES:
            cells = [play, rule]
            for m in ("bags", "penalized", "first_penalty_hand", "points_lost", "decided_by_bags"):
                e = get(per_game, m, play, rule) if rule == "penalty" or m == "bags" else None
                if e is None:
                    cells.append("–")
                elif m in ("penalized", "decided_by_bags"):
                    cells.append(w.bracketed(e, percent=True))
                else:
                    cells.append(w.bracketed(e))
            cells.append(w.count(get(per_game, "bags", play, rule).n))
            rows.append(cells)
    duck: dict[str, PairedResult] = {rule: compare_runs(*pairs[rule]) for rule in RULES}
    duck_said = []
    for rule, r in duck.items():
        assert r.wins_paired is not None and r.wins is not None
        duck_said.append(
            f"With {'the' if rule == 'penalty' else 'no'} bag penalty: "
            + w.win_sentence("ducking", "never ducking", r.wins_paired, "games played both ways")
            + " "
            + w.margin_sentence(
                "Ducking", "never ducking", r.margin, cases="hands both seatings played"
            )
        )
    duck_bags = run_many(
        [p for pair in pairs.values() for p in pair],
        [(bag_plans.GAME_PLAN, by)],
    )[0]
    for rule in RULES:
        ducking = pick(duck_bags, "bags", policy=f"count/{DUCK}", rules=rules_label[rule])
        plain = pick(duck_bags, "bags", policy=f"count/{NO_DUCK}", rules=rules_label[rule])
        if ducking and plain:
            duck_said.append(
                f"With {'the' if rule == 'penalty' else 'no'} bag penalty a ducking side takes "
                f"{w.value_text(ducking)} bags a game ({w.interval(ducking)} side-games) "
                f"against {w.value_text(plain)} ({w.interval(plain)}) for a side that never "
                "ducks."
            )
    forest_rows = []
    for rule, r in duck.items():
        assert r.wins_paired is not None
        forest_rows.append((f"ducking wins, {rule}", r.wins_paired))
    duck_figure = forest_png(
        forest_rows,
        "win rate of the ducking side, paired by game",
        "share of games won",
        reference=0.5,
        percent=True,
    )
    margin_figure = forest_png(
        [(f"ducking margin, {rule}", r.margin) for rule, r in duck.items()],
        "score margin of the ducking side",
        "points per hand",
        reference=0.0,
    )
    doc = Document(
        "Bags: how fast they pile up, and what ducking is worth",
        f"games to 500, every seat bidding count, seed {args.seed}",
        facts=[
            ("rules", "standard (10 bags cost 100 points), and standard with bag_penalty=0"),
            ("play", ", ".join(PLAYS) + f"; ducking pairs {DUCK} against {NO_DUCK}"),
            ("bidding", "count for every seat"),
            ("seed", str(args.seed)),
            (
                "size",
                f"{args.games:,} games per run ({args.lookahead_games:,} with lookahead); "
                f"ducking: {args.duck_games:,} games per seating",
            ),
            ("version", f"spades_sim {__version__}"),
            ("run time", ", ".join(f"{k} {v:,.0f} s" for k, v in seconds.items())),
        ],
    )
    doc.sections += [
        Section(
            "Bags under each play policy",
            [
                Text(said, bullets=True),
                Figure(
                    amounts,
                    "Bags per side per game and per hand, by play policy, with "
                    "and without the bag penalty.",
                ),
                Figure(
                    timing,
                    "How soon the penalty strikes: the share of sides penalized "
                    f"on each of the first {TIMING_HANDS} hands of a game, standard rules "
                    "(hands played by fewer than 200 sides left out).",
                ),
                Table(
                    [
                        "play",
                        "rules",
                        "bags per game",
                        "penalized",
                        "first penalty hand",
                        "points lost per game",
                        "games decided by bags",
                        "side-games",
                    ],
                    rows,
                    caption="Bags over whole games (95% CIs in brackets)",
                    text_columns=2,
                ),
            ],
        ),
        Section(
            "What ducking costs or gains",
            [
                Text(duck_said, bullets=True),
                Figure(
                    duck_figure,
                    "The ducking side's win rate, paired game by game; the "
                    "dashed line is an even match.",
                ),
                Figure(
                    margin_figure,
                    "The ducking side's score margin per hand, on the hands both seatings played.",
                ),
                Heading("How the pairing helped"),
                Text(
                    [
                        f"{rule}: "
                        + w.narrowing_sentence(r.wins_paired, r.wins, "games", percent=True)  # type: ignore[arg-type]
                        for rule, r in duck.items()
                    ],
                    bullets=True,
                ),
            ],
        ),
    ]
    doc.footer = (
        f"Made by analyses/bags.py with spades_sim {__version__}; every sentence was "
        "generated from the numbers it states."
    )
    headline: dict = {"seed": args.seed, "seconds": seconds, "policies": {}, "ducking": {}}
    for play in PLAYS:
        headline["policies"][play] = {
            f"{m} ({rule})": list(map(float, (e.value, e.low, e.high)))
            for rule in RULES
            for m in ("bags", "penalized", "points_lost", "first_penalty_hand")
            if (e := pick(per_game, m, policy=label[play, rule], rules=rules_label[rule]))
        }
    for rule, r in duck.items():
        assert r.wins_paired is not None
        headline["ducking"][rule] = {
            "win_rate": [r.wins_paired.value, r.wins_paired.low, r.wins_paired.high],
            "margin": [r.margin.value, r.margin.low, r.margin.high],
        }
    headline["sentences"] = said + duck_said
    return doc, headline


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path, help="Output directory.")
    parser.add_argument("--games", type=int, default=GAMES, help="Games per run.")
    parser.add_argument("--lookahead-games", type=int, default=LOOKAHEAD_GAMES)
    parser.add_argument("--duck-games", type=int, default=DUCK_GAMES, help="Per seating.")
    parser.add_argument("--seed", type=int, default=SEED, help=f"Seed (default {SEED}).")
    parser.add_argument("--threads", type=int, default=None, help="Kernel threads.")
    parser.add_argument("--clean", action="store_true", help="Delete the runs when done.")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    runs = args.out / "runs"
    plays, pairs, seconds = simulate(args, runs)
    report_start = time.perf_counter()
    doc, headline = build_report(plays, pairs, args, seconds)
    (args.out / "report.html").write_text(doc.to_html(), encoding="utf-8")
    headline["simulation_seconds"] = sum(seconds.values())  # kept from the first making
    headline["report_seconds"] = time.perf_counter() - report_start
    headline["total_seconds"] = time.perf_counter() - started
    (args.out / "headline.json").write_text(json.dumps(headline, indent=1))
    lines = [f"# Bags (seed {args.seed})", "", *(f"- {s}" for s in headline["sentences"])]
    lines.append(
        f"- run time: {headline['simulation_seconds']:,.0f} s of simulation, "
        f"{headline['report_seconds']:,.0f} s of analysis and report"
    )
    (args.out / "headline.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    if args.clean:
        shutil.rmtree(runs)


if __name__ == "__main__":
    main()
