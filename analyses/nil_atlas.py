"""Nil-odds atlas: how often a nil is made, and what it gains over a number bid, by the
shape of the hand (spades, high spades, shortest suit, aces), under the standard rules.

Design. A bidder's own nils describe only the hands it chose, so the atlas bids nil on
every hand instead: in the *nil* run North-South bid with ``count:nil_threshold=50``,
so the first of them to bid always bids nil (its partner, seeing the nil, bids a
number), against East-West bidding ``count``; everyone plays ``heuristic`` (the nil
bidder ducks, its partner covers, the opponents attack). The *number* run plays the
same deals (same seed: deal ``i`` holds the same cards) with North-South never bidding
nil (``count:nil_threshold=-1``). Per deal, the nil bidder's hand shape, whether the nil
was made, and the gain: North-South's margin (their score change minus East-West's) in
the nil run minus that in the number run, the value of bidding nil instead of a number
on that very deal. The first North-South bidder's hand is a uniformly random hand, so a
shape's share of the deals is its share of all hands.

Against perfect defence. The policies' success says how often *these* defenders let a
nil through. So the nil run's first ``--dd-deals`` deals are also solved double-dummy
(``spades_sim.solve.batch.nil_table``: the nil bidder's nil from the position play began
in, every card seen, the partner covering and both opponents attacking perfectly) and
the report sets the share of those nils that perfect defence cannot set beside the
share the policies made *on the same deals*, with the four pairings (safe and made,
safe and lost: the cover's weakness, unsafe and made: the defence's, unsafe and lost),
overall and by spades held and by spades from the queen up. The solves are kept in
``DIR/dd.parquet``; a larger ``--dd-deals`` later solves only the deals not yet there.

Run it (from a checkout with ``pip install -e '.[report]'``)::

    python analyses/nil_atlas.py --out studies/nil-atlas            # 100M hands each
    python analyses/nil_atlas.py --out /tmp/atlas --hands 2000000   # a quick look

Writes ``DIR/report.html`` (the atlas, figures with n and 95% intervals),
``DIR/headline.json`` and ``DIR/headline.md`` (the headline figures), ``DIR/atlas.csv``
(every shape: deals, nil made, gain, with intervals) and keeps the two runs in
``DIR/runs/`` (about 47 MB per million hands each: 9.4 GB at the default size) unless
``--clean``. Re-running
resumes the runs and redoes only the analysis. Reproducible from ``--seed``.
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
import pandas as pd

from spades_sim import __version__
from spades_sim.analysis.compare import hand_margins
from spades_sim.analysis.reduce import Kind, combine, finalize, reduce_units
from spades_sim.analysis.source import sources
from spades_sim.analysis.stats import Estimate, proportion_ci
from spades_sim.report import Document, Figure, Section, Table, Text
from spades_sim.report import words as w
from spades_sim.report.figures import Panel, Series, heatmap_png, panels_png
from spades_sim.rules import Rules
from spades_sim.run import run_dataset
from spades_sim.simulate import RunSpec
from spades_sim.solve.batch import nil_table

HANDS = 100_000_000
SEED = 2026
KEYS = ("spades", "high_spades", "shortest_suit", "aces")
TITLES = {
    "spades": "spades held",
    "high_spades": "spades queen or higher",
    "shortest_suit": "length of the shortest suit",
    "aces": "aces held",
}
NIL_BIDDER = "count:nil_threshold=50"  # any hand's nil risk is below 50: always nil
NUMBER_BIDDER = "count:nil_threshold=-1"  # never nil
OPPONENTS = "count"
MEASURES: dict[str, Kind] = {"made": "proportion", "gain": "mean"}
DD_DEALS = 5_000
"""Deals of the nil run solved double-dummy by default (a nil solve from the opening
takes a few hundred milliseconds, so this is minutes, not the run's millions)."""


def specs(seed: int) -> dict[str, RunSpec]:
    """The two runs: North-South always nil, and never nil, on the same deals."""
    return {
        "nil": RunSpec.build(seed=seed, bidding=(NIL_BIDDER, OPPONENTS), play="heuristic"),
        "number": RunSpec.build(seed=seed, bidding=(NUMBER_BIDDER, OPPONENTS), play="heuristic"),
    }


def simulate(runs: Path, hands: int, seed: int, threads: int | None) -> dict[str, float]:
    """Make (or resume) both runs; their wall times in seconds (a run already complete
    keeps the time its first making took, from the earlier headline.json)."""
    before = earlier_times(runs.parent)
    times = {}
    for name, spec in specs(seed).items():
        start = time.perf_counter()
        summary = run_dataset(
            spec, hands, runs / name, threads=threads, resume=True, progress=sys.stderr.isatty()
        )
        times[name] = time.perf_counter() - start
        if summary.new_hands == 0 and name in before:
            times[name] = before[name]
        print(f"{name}: {summary.hands:,} hands in {times[name]:,.0f} s", file=sys.stderr)
    return times


def earlier_times(out: Path) -> dict[str, float]:
    """The run times an earlier invocation recorded in ``out/headline.json``, if any."""
    try:
        return dict(json.loads((out / "headline.json").read_text())["run_seconds"])
    except (OSError, ValueError, KeyError):
        return {}


def scan(runs: Path) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """One pass over both runs, part by part: the statistics of ``made`` and ``gain`` per
    shape of the nil bidder's hand, those of the opponents' own nils (by spades) in the
    number run, and the number of deals."""
    (nil_run,), (number_run,) = sources(runs / "nil"), sources(runs / "number")
    nil_columns = ["deal", "seat", "nil", "nil_made", "score_change", *KEYS]
    number_columns = ["deal", "seat", "nil", "nil_made", "score_change", "spades"]
    shape_stats: pd.DataFrame | None = None
    natural_stats: pd.DataFrame | None = None
    deals = 0
    pairs = itertools.zip_longest(nil_run.batches(nil_columns), number_run.batches(number_columns))
    for nil_batch, number_batch in pairs:
        if nil_batch is None or number_batch is None:
            raise ValueError("the two runs have different numbers of parts")
        f, b = nil_batch[0], number_batch[0]
        margin_f, margin_b = hand_margins(f), hand_margins(b)
        if not margin_f.index.equals(margin_b.index):
            raise ValueError("the two runs' parts hold different deals")
        bidder = f[(f["seat"].to_numpy() % 2 == 0) & f["nil"].to_numpy()]
        bidder = bidder.sort_values("deal", kind="stable")
        if not np.array_equal(bidder["deal"].to_numpy(), margin_f.index.to_numpy()):
            raise ValueError("a deal without exactly one North-South nil in the nil run")
        units = bidder[list(KEYS)].reset_index(drop=True)
        units["made"] = bidder["nil_made"].to_numpy()
        units["gain"] = (margin_f - margin_b).to_numpy()
        deals += len(units)
        part = reduce_units(units, list(KEYS))
        shape_stats = part if shape_stats is None else combine([shape_stats, part], list(KEYS))
        own = b[(b["seat"].to_numpy() % 2 == 1) & b["nil"].to_numpy()]
        mine = pd.DataFrame(
            {"spades": own["spades"].to_numpy(), "made": own["nil_made"].to_numpy()}
        )
        part = reduce_units(mine, ["spades"])
        natural_stats = (
            part if natural_stats is None else combine([natural_stats, part], ["spades"])
        )
    assert shape_stats is not None and natural_stats is not None
    return shape_stats, natural_stats, deals


def nil_bidders(runs: Path, deals: int) -> pd.DataFrame:
    """The nil run's first ``deals`` deals: per deal the nil bidder's seat, its shape, the
    four hands as play began, the opening leader and whether the policies made the nil."""
    (nil_run,) = sources(runs / "nil")
    columns = ["deal", "seat", "dealer", "hand", "nil", "nil_made", *KEYS]
    frames, got = [], 0
    for batch, _ in nil_run.batches(columns):
        frames.append(batch)
        got += batch["deal"].nunique()
        if got >= deals:
            break
    rows = pd.concat(frames, ignore_index=True)
    rows = rows[rows["deal"].isin(np.sort(rows["deal"].unique())[:deals])]
    hands = rows.pivot(index="deal", columns="seat", values="hand").sort_index()
    bidder = rows[(rows["seat"].to_numpy() % 2 == 0) & rows["nil"].to_numpy()]
    bidder = bidder.set_index("deal").sort_index()
    if not bidder.index.equals(hands.index):
        raise ValueError("a deal without exactly one North-South nil in the nil run")
    out = bidder[["seat", *KEYS]].copy()
    out["made"] = bidder["nil_made"].astype(bool)
    out["leader"] = (bidder["dealer"].to_numpy() + 1) % 4  # the standard rules' first lead
    out[[f"hand_{s}" for s in range(4)]] = hands.to_numpy(np.uint64)
    return out.reset_index()


def dd_stage(runs: Path, out: Path, deals: int) -> pd.DataFrame:
    """Whether each of the first ``deals`` nils is safe against perfect defence (column
    ``dd_safe``) beside the policies' result, solved once and kept in ``out/dd.parquet``
    (a later, larger ``deals`` solves only the deals not yet there)."""
    path = out / "dd.parquet"
    done = pd.read_parquet(path) if path.exists() else None
    if done is not None and len(done) >= deals:
        return done.head(deals)
    todo = nil_bidders(runs, deals)
    if done is not None:
        todo = todo[~todo["deal"].isin(done["deal"])]
    todo["dd_safe"] = False
    hand_columns = [f"hand_{s}" for s in range(4)]
    for seat in (0, 2):
        mine = (todo["seat"] == seat).to_numpy()
        if mine.any():
            held = todo.loc[mine, hand_columns].to_numpy(np.uint64)
            leaders = todo.loc[mine, "leader"].to_numpy(np.int64)
            todo.loc[mine, "dd_safe"] = nil_table(held, leaders, seat, rules=Rules())
    solved = todo.drop(columns=hand_columns)
    frame = solved if done is None else pd.concat([done, solved], ignore_index=True)
    frame = frame.sort_values("deal", kind="stable").reset_index(drop=True)
    out.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".parquet.partial")
    frame.to_parquet(partial, index=False)
    partial.replace(path)  # a kill mid-write leaves the earlier solves, never half a file
    return frame


def dd_rows(dd: pd.DataFrame, key: str | None, min_n: int = 100) -> list[dict]:
    """Per value of ``key`` (or overall): the nils, the share safe against perfect
    defence, the share the policies made, both with 95% intervals, and the pairings."""
    groups = [(None, dd)] if key is None else list(dd.groupby(key, sort=True))
    out = []
    for value, g in groups:
        n = len(g)
        if n < min_n:
            continue
        safe, made = g["dd_safe"].to_numpy(bool), g["made"].to_numpy(bool)
        out.append(
            {
                "value": None if value is None else int(value),  # type: ignore[arg-type]  # a group key
                "safe": proportion_ci(int(safe.sum()), n),
                "made": proportion_ci(int(made.sum()), n),
                "safe_made": int((safe & made).sum()),
                "safe_lost": int((safe & ~made).sum()),
                "unsafe_made": int((~safe & made).sum()),
                "unsafe_lost": int((~safe & ~made).sum()),
            }
        )
    return out


def dd_section(dd: pd.DataFrame) -> tuple[Section, dict]:
    """The report's section on perfect defence, and its headline figures."""
    (overall,) = dd_rows(dd, None, min_n=1)
    n = len(dd)
    safe, made = overall["safe"], overall["made"]
    lost_safe, saved_unsafe = overall["safe_lost"], overall["unsafe_made"]
    said = [
        f"On the first {n:,} deals of the nil run the nil is safe against perfect defence "
        f"(every card seen, the partner covering and both opponents attacking as well as "
        f"the cards allow) {w.stated(safe, percent=True)}; the policies made "
        f"{w.stated(made, percent=True)} of the same nils.",
        f"Of the {overall['unsafe_made'] + overall['unsafe_lost']:,} nils perfect defence "
        f"sets, the heuristic defenders let {saved_unsafe:,} through "
        f"({w.pct(saved_unsafe / max(n - int(dd['dd_safe'].sum()), 1))}): that part of the "
        "policies' success is the defence's weakness, not the hand's strength.",
        f"Of the {overall['safe_made'] + lost_safe:,} nils that perfect play keeps, the "
        f"policies lost {lost_safe:,} "
        f"({w.pct(lost_safe / max(int(dd['dd_safe'].sum()), 1))}): the cover's (and the nil "
        "bidder's) weakness.",
    ]
    tables = []
    for key in ("spades", "high_spades"):
        rows = [
            [
                str(r["value"]),
                w.bracketed(r["safe"], percent=True),
                w.bracketed(r["made"], percent=True),
                f"{r['unsafe_made']:,}",
                f"{r['safe_lost']:,}",
                w.count(r["safe"].n),
            ]
            for r in dd_rows(dd, key)
        ]
        tables.append(
            Table(
                [
                    TITLES[key],
                    "safe vs perfect defence (95% CI)",
                    "made by the policies (95% CI)",
                    "unsafe, made",
                    "safe, lost",
                    "deals",
                ],
                rows,
                caption=f"The same nils solved and played, by {TITLES[key]} (100 deals or more)",
            )
        )
    section = Section("Against perfect defence", [Text(said), *tables])
    headline = {
        "dd_deals": n,
        "dd_safe_any_hand": [safe.value, safe.low, safe.high, safe.n],
        "made_same_deals": [made.value, made.low, made.high, made.n],
        "dd_pairs": {
            k: overall[k] for k in ("safe_made", "safe_lost", "unsafe_made", "unsafe_lost")
        },
        "dd_sentences": said,
    }
    return section, headline


def tables(shape_stats: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """``made`` and ``gain`` per group of ``keys`` (summed over the other shape keys)."""
    return finalize(combine([shape_stats], keys), keys, MEASURES)


def est(row: pd.Series) -> Estimate:
    return Estimate(float(row.estimate), float(row.ci_low), float(row.ci_high), int(row.n))


def wide(t: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """One row per group: made and gain side by side."""
    made = t[t.measure == "made"].set_index(keys)
    gain = t[t.measure == "gain"].set_index(keys)
    return made.add_suffix("_made").join(gain.add_suffix("_gain"))


def grid(t: pd.DataFrame, rows: str, columns: str, measure: str) -> tuple[np.ndarray, ...]:
    """A measure of a 2-key table as arrays (value, low, high, n) for a heatmap."""
    part = t[t.measure == measure]
    r = sorted(part[rows].unique())
    c = sorted(part[columns].unique())
    out = [np.full((len(r), len(c)), np.nan) for _ in range(3)] + [np.zeros((len(r), len(c)))]
    for row in part.itertuples(index=False):
        i, j = r.index(getattr(row, rows)), c.index(getattr(row, columns))
        out[0][i, j], out[1][i, j], out[2][i, j] = row.estimate, row.ci_low, row.ci_high
        out[3][i, j] = row.n
    return (*out, np.array(r), np.array(c))


def build_report(
    shape_stats: pd.DataFrame, natural_stats: pd.DataFrame, deals: int, seed: int, times: dict
) -> tuple[Document, dict, pd.DataFrame]:
    """The atlas as a report, its headline figures and the full table."""
    overall = tables(shape_stats, [])
    made = est(overall[overall.measure == "made"].iloc[0])
    gain = est(overall[overall.measure == "gain"].iloc[0])
    natural = finalize(combine([natural_stats], []), [], {"made": "proportion"})
    natural_made = est(natural.iloc[0])
    full = wide(tables(shape_stats, list(KEYS)), list(KEYS)).reset_index()
    full["share"] = full["n_made"] / deals
    min_n = max(2_000, deals // 50_000)
    common = full[full["n_made"] >= min_n]
    pays = full[full["ci_low_gain"] > 0]
    share_pays = float(pays["n_made"].sum()) / deals

    def shape(r: pd.Series) -> dict[str, int]:
        return {k: int(r[k]) for k in KEYS}

    def made_of(r: pd.Series) -> Estimate:
        return Estimate(r.estimate_made, r.ci_low_made, r.ci_high_made, int(r.n_made))

    def gain_of(r: pd.Series) -> Estimate:
        return Estimate(r.estimate_gain, r.ci_low_gain, r.ci_high_gain, int(r.n_gain))

    best = common.sort_values("ci_low_gain", ascending=False).head(5)
    likeliest = common.sort_values("ci_low_made", ascending=False).head(3)
    best_said = [
        w.nil_gain_sentence(shape(r), made_of(r), gain_of(r), r.share) for _, r in best.iterrows()
    ]
    likeliest_said = [
        w.nil_shape_sentence(shape(r), made_of(r), "these policies")
        for _, r in likeliest.iterrows()
    ]
    low, high = sorted((abs(gain.low), abs(gain.high)))
    magnitude = Estimate(abs(gain.value), low, high, gain.n)
    policies = f"North-South nil bidder {NIL_BIDDER}, partner and opponents {OPPONENTS}"
    doc = Document(
        "Nil-odds atlas: when a nil is made, and when it pays",
        f"{deals:,} deals played twice under the standard rules, seed {seed}",
        facts=[
            ("rules", "standard (nil 100, bags 10 for 100, target irrelevant: single hands)"),
            ("policies", f"{policies}; number run {NUMBER_BIDDER}; play heuristic"),
            ("seed", str(seed)),
            ("size", f"{deals:,} deals in each of two runs ({2 * deals:,} hands)"),
            ("version", f"spades_sim {__version__}"),
            ("run time", ", ".join(f"{k} run {v:,.0f} s" for k, v in times.items())),
        ],
    )
    intro = Section(
        "How the atlas was made",
        [
            Text(
                [
                    "On every deal the first North-South player to bid bids nil, whatever "
                    "the hand, and its partner covers; the same deals are then played again "
                    "with North-South bidding numbers. A hand's success is the share of its "
                    "nils made; its gain is North-South's score margin with the nil minus "
                    "the margin with a number bid on the same deal (positive: nil pays). "
                    f"Overall a nil on any hand is made {w.stated(made, percent=True)}, and "
                    f"bidding nil on any hand {'gains' if gain.value >= 0 else 'costs'} "
                    f"{w.stated(magnitude)}"
                    " points a hand. The count bidder's own nils (East-West in the number "
                    f"run, on hands it chose) are made {w.stated(natural_made, percent=True)}."
                ]
            )
        ],
    )
    by_key = {k: tables(shape_stats, [k]) for k in KEYS}
    success_panels = [
        Panel(
            f"by {TITLES[k]}",
            TITLES[k],
            "nil made",
            [
                Series.of(
                    "every hand bids nil",
                    [
                        (int(r[k]), est(r))
                        for _, r in by_key[k][by_key[k].measure == "made"].iterrows()
                        if r.n >= 100
                    ],
                    total=deals,
                )
            ],
            percent=True,
            n_word="deals",
        )
        for k in KEYS
    ]
    trends = [
        w.trend_sentence(
            "Nil success",
            k,
            [(int(r[k]), est(r)) for _, r in by_key[k][by_key[k].measure == "made"].iterrows()],
            min_n=1_000,
        )
        for k in ("spades", "high_spades", "shortest_suit")
    ]
    two_d = tables(shape_stats, ["spades", "high_spades"])
    v, lo, hi, n, rows, cols = grid(two_d, "spades", "high_spades", "made")
    keep = n.sum(axis=1) >= 1_000
    success = Section(
        "Nil success by hand shape",
        [
            Figure(
                panels_png(success_panels, columns=2, height=2.6),
                "How often a nil is made, against each feature of the nil bidder's hand "
                "(every hand bids nil). " + " ".join(trends),
            ),
            Figure(
                heatmap_png(
                    v[keep],
                    lo[keep],
                    hi[keep],
                    n[keep],
                    [str(c) for c in cols],
                    [str(r) for r in rows[keep]],
                    "nil made, by spades and high spades",
                    "spades queen or higher",
                    "spades held",
                    min_n=1_000,
                ),
                "Nil success by spade count (rows) and spades from the queen up (columns).",
            ),
            Text(likeliest_said, bullets=True),
        ],
    )
    gain_panels = [
        Panel(
            f"by {TITLES[k]}",
            TITLES[k],
            "points per hand",
            [
                Series.of(
                    "nil minus number bid",
                    [
                        (int(r[k]), est(r))
                        for _, r in by_key[k][by_key[k].measure == "gain"].iterrows()
                        if r.n >= 100
                    ],
                    total=deals,
                )
            ],
            reference=0.0,
            n_word="deals",
        )
        for k in KEYS
    ]
    gv, glo, ghi, gn, _, _ = grid(two_d, "spades", "high_spades", "gain")
    rows_table = [
        [
            w.shape_phrase(shape(r)),
            w.one_in(r.share),
            w.bracketed(made_of(r), percent=True),
            w.bracketed(gain_of(r), sign=True),
            w.count(r.n_made),
        ]
        for _, r in common.sort_values("ci_low_gain", ascending=False).head(15).iterrows()
    ]
    worth = Section(
        "The hands most worth a nil",
        [
            Text(
                [
                    f"Nil beats a number bid (its gain's interval above zero) on "
                    f"{w.pct(share_pays)} of all hands. "
                    + (
                        f"The shapes it pays most on, with at least {min_n:,} deals each:"
                        if best_said
                        else f"No shape has the {min_n:,} deals the shape tables take: run "
                        "more hands for them."
                    )
                ]
            ),
            Text(best_said, bullets=True),
            Figure(
                panels_png(gain_panels, columns=2, height=2.6),
                "Points a hand that bidding nil gains over a number bid on the same deal, "
                "against each feature of the hand (above the dashed line nil pays).",
            ),
            Figure(
                heatmap_png(
                    gv[keep],
                    glo[keep],
                    ghi[keep],
                    gn[keep],
                    [str(c) for c in cols],
                    [str(r) for r in rows[keep]],
                    "points gained by nil, by spades and high spades",
                    "spades queen or higher",
                    "spades held",
                    min_n=1_000,
                    percent=False,
                ),
                "Gain of nil over a number bid, points per hand (green: nil pays).",
            ),
            Table(
                ["hand", "how common", "nil made (95% CI)", "gain (95% CI)", "deals"],
                rows_table,
                caption="The 15 shapes where nil pays most (ranked by the gain's lower bound)",
            ),
        ],
    )
    doc.sections += [intro, success, worth]
    doc.footer = (
        f"Made by analyses/nil_atlas.py with spades_sim {__version__}; every sentence was "
        "generated from the numbers it states."
    )
    # a run too small for any shape to reach min_n deals (a quick look) has no best one
    top = best.iloc[0] if len(best) else None
    headline = {
        "deals": deals,
        "seed": seed,
        "run_seconds": times,
        "nil_made_any_hand": [made.value, made.low, made.high, made.n],
        "nil_gain_any_hand": [gain.value, gain.low, gain.high, gain.n],
        "own_nils_made": [natural_made.value, natural_made.low, natural_made.high, natural_made.n],
        "share_of_hands_where_nil_pays": share_pays,
        "best_shape": None
        if top is None
        else {
            **shape(top),
            "share": float(top.share),
            "made": [top.estimate_made, top.ci_low_made, top.ci_high_made],
            "gain": [top.estimate_gain, top.ci_low_gain, top.ci_high_gain],
            "n": int(top.n_made),
        },
        "best_sentences": best_said,
        "likeliest_sentences": likeliest_said,
    }
    return doc, headline, full


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path, help="Output directory.")
    parser.add_argument("--hands", type=int, default=HANDS, help=f"Deals (default {HANDS:,}).")
    parser.add_argument("--seed", type=int, default=SEED, help=f"Seed (default {SEED}).")
    parser.add_argument("--threads", type=int, default=None, help="Kernel threads.")
    parser.add_argument(
        "--dd-deals",
        type=int,
        default=DD_DEALS,
        help=f"Deals of the nil run solved double-dummy (default {DD_DEALS:,}; 0: none).",
    )
    parser.add_argument("--clean", action="store_true", help="Delete the runs when done.")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    runs = args.out / "runs"
    times = simulate(runs, args.hands, args.seed, args.threads)
    scan_start = time.perf_counter()
    shape_stats, natural_stats, deals = scan(runs)
    times["analysis"] = time.perf_counter() - scan_start
    doc, headline, full = build_report(shape_stats, natural_stats, deals, args.seed, times)
    if args.dd_deals > 0:
        dd_start, dd_cpu = time.perf_counter(), time.process_time()
        dd = dd_stage(runs, args.out, min(args.dd_deals, deals))
        section, dd_headline = dd_section(dd)
        doc.sections.append(section)
        times["dd"] = time.perf_counter() - dd_start
        # CPU time of every thread: on a shared machine the wall time says little
        headline["dd_cpu_seconds"] = time.process_time() - dd_cpu
        headline |= dd_headline
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "report.html").write_text(doc.to_html(), encoding="utf-8")
    full.to_csv(args.out / "atlas.csv", index=False)
    headline["simulation_seconds"] = times["nil"] + times["number"]  # kept from the first making
    headline["report_seconds"] = time.perf_counter() - scan_start
    headline["total_seconds"] = time.perf_counter() - started
    (args.out / "headline.json").write_text(json.dumps(headline, indent=1, default=float))
    made = Estimate(*headline["nil_made_any_hand"])
    gain = Estimate(*headline["nil_gain_any_hand"])
    own = Estimate(*headline["own_nils_made"])
    lines = [
        f"# Nil-odds atlas ({deals:,} deals, seed {args.seed})",
        "",
        f"- nil made on any hand: {w.stated(made, percent=True)}",
        f"- nil minus a number bid on any hand, points: {w.stated(gain, sign=True)}",
        f"- the count bidder's own nils made: {w.stated(own, percent=True)}",
        f"- nil pays on {w.pct(headline['share_of_hands_where_nil_pays'])} of hands",
        *(f"- {s}" for s in headline["best_sentences"][:3]),
        *(f"- {s}" for s in headline.get("dd_sentences", [])),
        f"- run time: {headline['simulation_seconds']:,.0f} s of simulation, "
        f"{headline['report_seconds']:,.0f} s of analysis and report",
    ]
    if "dd" in times:
        lines[-1] += (
            f" (of which the double-dummy stage {times['dd']:,.0f} s, "
            f"{headline['dd_cpu_seconds']:,.0f} s of CPU)"
        )
    (args.out / "headline.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    if args.clean:
        shutil.rmtree(runs)


if __name__ == "__main__":
    main()
