"""``spades-sim analyze``, ``report``, ``compare`` and ``ladder``: studies of runs.

Contract
--------
``analyze`` prints tables with n and 95% intervals from run directories
(:func:`spades_sim.analysis.tables.analyze`), as text, CSV or JSON. ``report`` writes one
self-contained HTML report of a run or of a duplicate pair (:func:`spades_sim.report.write`;
the report extra). ``compare`` plays the same deals twice with two policies swapped
between the sides (:func:`spades_sim.run.run_dataset`, twice) and prints the paired
margin (:func:`spades_sim.report.runs.compare_runs`). ``ladder`` plays every pair of
several play policies in duplicate (:func:`spades_sim.analysis.ladder.ladder`), prints
the ranking and writes the table for ``report --ladder``. Every mistake is one ``error:`` line
(:mod:`spades_sim.cli.failures`); Ctrl-C during ``compare`` keeps finished parts and exits
130 / 143.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import click
from tqdm import tqdm

from spades_sim.cli.failures import UserError, one_line, usage, user_errors
from spades_sim.cli.options import (
    build_spec,
    pick_one,
    rule_set_options,
    rules_from_options,
    rules_options,
    stderr_is_terminal,
)

__all__ = ["analyze", "compare", "ladder", "report"]


@click.command()
@click.argument("run_dirs", metavar="RUN...", nargs=-1, required=True)
@click.option(
    "--what",
    type=click.Choice(["nil", "bags", "bids", "all"]),
    default="all",
    show_default=True,
    help="Which analyses: nil bids, bags (per hand; per game too for games runs), bids.",
)
@click.option(
    "--by",
    "by_text",
    default="",
    metavar="COLS",
    help="Group by these columns, comma-separated (spades,seat; policy; rules; blind; ...).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "csv", "json"]),
    default="text",
    show_default=True,
    help="Aligned tables, one CSV (a 'table' column names each row's table), or JSON.",
)
@click.option(
    "--partial",
    is_flag=True,
    help="Analyse an unfinished run (killed, or still running) as far as it goes.",
)
def analyze(run_dirs: tuple[str, ...], what: str, by_text: str, fmt: str, partial: bool) -> None:
    """Tables with n and 95% intervals from run directories, read part by part.

    Several runs are analysed together: group by policy or rules to tell them apart (runs
    that hold the same deals, one run twice or two of the same seed and rules, are
    refused: they would be counted twice). An aggregate run (simulate --aggregate) gives
    the same tables, by the keys it counted. An unfinished run is refused unless
    --partial, which says how much of it is there.

    \b
    Examples:
      spades-sim analyze runs/first
      spades-sim analyze runs/first --what nil --by spades
      spades-sim analyze runs/mercy --what bags --by side,outcome --format csv
      spades-sim analyze runs/first runs/config --what bids --by policy
    """
    # imported when the command runs: `spades-sim --help` loads no kernels
    from spades_sim.analysis import tables
    from spades_sim.analysis.source import Data, UnknownKey, describe_extent, sources

    by = [name.strip() for name in by_text.split(",") if name.strip()]
    with user_errors():
        found = sources(list[Data](run_dirs), partial=partial)
    for source in found:
        if not source.complete:
            click.echo(f"warning: {describe_extent(source)}: the tables are of that", err=True)
    bar = tqdm(
        total=sum(len(s.parts) for s in found),
        unit=" parts",
        desc="analyze",
        dynamic_ncols=True,
        leave=False,
        disable=not stderr_is_terminal(),  # a bar on a terminal only, as simulate shows
    )
    found = [dataclasses.replace(s, on_batch=bar.update) for s in found]
    with user_errors(), bar:
        try:
            several: list[Data] = list(found)
            result = tables.analyze(found[0] if len(found) == 1 else several, what, by)
        except UnknownKey as exc:
            message = one_line(str(exc)).removeprefix("by: ")
            raise click.BadParameter(message, param_hint="'--by'") from None
    if fmt == "csv":
        click.echo(tables.to_csv(result), nl=False)
    elif fmt == "json":
        click.echo(tables.to_json(result))
    else:
        click.echo(tables.to_text(result))


def _check_report_out(out: Path, force: bool) -> None:
    """Refuse, before any work, a report output that is some other file (not ``--force``)."""
    # imported when the command runs: `spades-sim --help` loads no matplotlib
    from spades_sim.report import WouldReplace, check_replaceable

    try:
        check_replaceable(out, force)
    except WouldReplace as exc:
        raise UserError(str(exc)) from None


def _write_report(
    run_dir: str,
    run_b: str | None,
    out: Path,
    title: str | None,
    force: bool,
    ladder: Path | None = None,
) -> Path:
    """``spades_sim.report.write`` with its failures as one-line errors."""
    # imported when the command runs: `spades-sim --help` loads no matplotlib
    from spades_sim import report as report_module

    _check_report_out(out, force)
    try:
        with user_errors():
            return report_module.write(run_dir, out, run_b, title=title, force=force, ladder=ladder)
    except report_module.ReportUnavailable as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:  # the output cannot be written (a directory, no permission)
        raise UserError(f"cannot write the report to {out}: {exc.strerror or exc}") from None


@click.command()
@click.argument("run_dir", metavar="RUN")
@click.argument("run_b", metavar="[RUN_B]", required=False)
@click.option(
    "--out",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    default="report.html",
    show_default=True,
    metavar="FILE",
    help="HTML file to write (one self-contained file: images and styles inside).",
)
@click.option("--title", metavar="TEXT", help="Title of the report [default: from the runs].")
@click.option(
    "--force", is_flag=True, help="Replace FILE even if it is not a report spades_sim wrote."
)
@click.option(
    "--ladder",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="LADDER",
    help="Add the strength ladder of play policies that `spades-sim ladder` wrote.",
)
def report(
    run_dir: str,
    run_b: str | None,
    out: Path,
    title: str | None,
    force: bool,
    ladder: Path | None,
) -> None:
    """Write a strategy report of RUN, or of the duplicate pair RUN RUN_B, as HTML.

    Nil success by hand shape, bid accuracy, bags and (games runs) win rates, game
    length and endings, every figure with n and 95% intervals. With RUN_B, the two runs
    must be the two seatings of one duplicate match (`spades-sim compare` makes them):
    same seed, rules and size, the sides' policies swapped; the report then pairs them
    deal by deal. Needs the report extra (matplotlib). An existing FILE is replaced only
    if it is a report spades_sim wrote (or with --force). With --ladder, the report also
    ranks the play policies of a strength ladder (`spades-sim ladder` writes it).

    \b
    Examples:
      spades-sim report runs/first --out first.html
      spades-sim ladder random heuristic lookahead --deals 1000 --out ladder.parquet
      spades-sim report runs/first --ladder ladder.parquet --out first.html
      spades-sim compare count pagat --games 2000 --out runs/cmp
      spades-sim report runs/cmp/a-ns runs/cmp/a-ew --out count-vs-pagat.html
    """
    path = _write_report(run_dir, run_b, out, title, force, ladder)
    click.echo(f"wrote {path} ({path.stat().st_size / 1024:,.0f} KB)")


@click.command()
@click.argument("policy_a", metavar="A")
@click.argument("policy_b", metavar="B")
@click.option(
    "--kind",
    type=click.Choice(["bid", "play"]),
    default="bid",
    show_default=True,
    help="A and B are bidding policies (every seat plays --play) or play policies "
    "(every seat bids with --bidding).",
)
@click.option("--hands", type=click.IntRange(min=1), metavar="N", help="Play N deals both ways.")
@click.option("--games", type=click.IntRange(min=1), metavar="N", help="Play N games both ways.")
@rules_options
@click.option(
    "--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True, metavar="S"
)
@click.option(
    "--threads", type=click.IntRange(min=1), metavar="T", help="Kernel threads [default: all]."
)
@click.option(
    "--chunk-size", type=click.IntRange(min=1), metavar="C", help="Deals (games) per part file."
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    metavar="DIR",
    help="Where the two runs go: DIR/a-ns (A North-South) and DIR/a-ew (A East-West).",
)
@click.option("--resume", is_flag=True, help="Continue interrupted runs in DIR.")
@click.option("--overwrite", is_flag=True, help="Replace the runs in DIR.")
@click.option(
    "--report",
    "report_path",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Also write the duplicate report to FILE.",
)
@click.option("--force", is_flag=True, help="Replace the --report FILE even if it is not a report.")
@click.pass_context
def compare(ctx: click.Context, policy_a: str, policy_b: str, **params: Any) -> None:
    """Play the same deals (or games) twice, A North-South then A East-West.

    Writes the two runs DIR/a-ns and DIR/a-ew (same seed and rules, the sides'
    policies swapped) and prints A's paired margin per hand (games: and its win rate)
    with 95% intervals. `spades-sim report DIR/a-ns DIR/a-ew` reports on the pair.

    \b
    Examples:
      spades-sim compare count pagat --games 2000 --seed 1 --out runs/cmp
      spades-sim compare heuristic heuristic:bag_avoid=0 --kind play --hands 100000 --out runs/duck
    """
    # imported when the command runs: `spades-sim --help` loads no kernels
    from spades_sim.policies import parse_policy
    from spades_sim.report.runs import compare_runs
    from spades_sim.report.words import margin_sentence, narrowing_sentence, win_sentence
    from spades_sim.run import RunInterrupted, run_dataset

    pick_one(ctx, params, "hands", "games", "give --hands or --games, not both")
    pick_one(ctx, params, "resume", "overwrite", "give --resume or --overwrite, not both")
    if not params["hands"] and not params["games"]:
        usage("say how much to play: --hands N or --games N")
    word = "bidding" if params["kind"] == "bid" else "play"
    if any(params[f"{side}_{kind}"] for side in ("ns", "ew") for kind in ("bidding", "play")):
        usage("compare seats A and B itself: give no --ns-*/--ew-* policy options")
    parsed = []
    for name, text in (("A", policy_a), ("B", policy_b)):
        with user_errors(name):
            parsed.append(parse_policy(text, params["kind"]))
    if parsed[0] == parsed[1]:  # before simulating both runs, not after
        raise click.BadParameter(
            f"{policy_b!r} is the same {word} policy as A ({policy_a!r}): there is nothing "
            "to compare",
            param_hint="'B'",
        )
    if params["report_path"] is not None:  # before the runs, not after minutes of them
        _check_report_out(params["report_path"], params["force"])
    mode = "games" if params["games"] else "hands"
    total = params["games"] or params["hands"]
    out: Path = params["out"]
    runs = {"a-ns": (policy_a, policy_b), "a-ew": (policy_b, policy_a)}
    show_bar = stderr_is_terminal()
    for name, (ns, ew) in runs.items():
        spec = build_spec(
            {**params, f"ns_{word}": ns, f"ew_{word}": ew}, seed=params["seed"], mode=mode
        )
        try:
            with user_errors():
                run_dataset(
                    spec,
                    total,
                    out / name,
                    chunk_size=params["chunk_size"],
                    threads=params["threads"],
                    resume=params["resume"],
                    overwrite=params["overwrite"],
                    progress=show_bar,
                )
        except RunInterrupted as stop:
            click.echo(
                f"interrupted: {out / name} is incomplete; run the same command with --resume "
                "to continue",
                err=True,
            )
            sys.exit(128 + int(stop.signal_number))
    with user_errors():
        result = compare_runs(out / "a-ns", out / "a-ew")
    a, b = result.info.a, result.info.b
    lines = [f"duplicate {mode}: {out / 'a-ns'} and {out / 'a-ew'}"]
    cases = "deals"
    if result.wins_paired is not None:
        lines.append(win_sentence(a, b, result.wins_paired, "games played both ways"))
        cases = "hands both seatings played"
    lines.append(margin_sentence(a, b, result.margin, cases=cases))
    lines.append(narrowing_sentence(result.margin, result.unpaired, cases.split()[0]))
    if params["report_path"] is not None:
        path = _write_report(
            str(out / "a-ns"), str(out / "a-ew"), params["report_path"], None, params["force"]
        )
        lines.append(f"wrote {path}")
    click.echo("\n".join(lines))


@click.command()
@click.argument("rungs", metavar="POLICY...", nargs=-1, required=True)
@click.option(
    "--deals",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    metavar="N",
    help="Deals each pair plays, both ways.",
)
@click.option(
    "--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True, metavar="S"
)
@click.option(
    "--bidding",
    default="count",
    show_default=True,
    metavar="NAME[:p=v,...]",
    help="Bidding policy of every seat.",
)
@rule_set_options
@click.option(
    "--threads", type=click.IntRange(min=1), metavar="T", help="Kernel threads [default: all]."
)
@click.option(
    "--out",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    metavar="FILE",
    help="Parquet file to write the ladder to (`spades-sim report --ladder FILE` reads it).",
)
@click.option("--force", is_flag=True, help="Replace FILE even if it is not a ladder.")
def ladder(
    rungs: tuple[str, ...],
    deals: int,
    seed: int,
    bidding: str,
    preset: str,
    assignments: tuple[str, ...],
    threads: int | None,
    out: Path,
    force: bool,
) -> None:
    """Play every pair of the play policies POLICY... in duplicate and rank them.

    Each pair plays the same N deals twice, sides swapped, every seat bidding with
    --bidding; prints each pair's points a hand and the nils each side made and set, with
    95% intervals, and the ranking; writes the table to FILE (Parquet, how it was made in
    its metadata) for `spades-sim report RUN --ladder FILE`. An existing FILE is replaced
    only if it is a ladder (or with --force).

    \b
    Examples:
      spades-sim ladder random heuristic lookahead --deals 2000 --out ladder.parquet
      spades-sim ladder heuristic lookahead pimc:worlds=8 --deals 100 --out top.parquet
    """
    # imported when the command runs: `spades-sim --help` loads no kernels
    from spades_sim.analysis.ladder import (
        MEASURES,
        check_ladder_out,
        estimate,
        ranked_pairs,
        ranking,
        write_ladder,
    )
    from spades_sim.analysis.ladder import ladder as play_ladder
    from spades_sim.analysis.stats import unsigned_zero
    from spades_sim.policies import parse_policy
    from spades_sim.report.words import ranking_sentence

    if len(rungs) < 2:
        usage("give two play policies or more to rank")
    for text in rungs:
        with user_errors("POLICY"):
            parse_policy(text, "play")
    with user_errors("--bidding"):
        parse_policy(bidding, "bid")
    rules = rules_from_options(preset, assignments)
    with user_errors("--out"):
        check_ladder_out(out, force)
    pairs = len(rungs) * (len(rungs) - 1) // 2
    bar = tqdm(
        total=pairs,
        unit=" pairs",
        desc="ladder",
        dynamic_ncols=True,
        leave=False,
        disable=not stderr_is_terminal(),
    )

    def done(a: str, b: str, result: Any) -> None:
        bar.update()
        bar.write(f"{a} vs {b}: {result.margin}", file=sys.stderr)

    with user_errors(as_usage=True), bar:
        table = play_ladder(
            list(rungs), deals, seed=seed, bidding=bidding, rules=rules, threads=threads,
            on_pair=done,
        )  # fmt: skip
    with user_errors():
        path = write_ladder(table, out, force=force)
    order, ties = ranking(table)
    lines = [ranking_sentence(order, ties)]
    head = f"{'A vs B':32s} {'A points a hand [95% CI]':28s} {'nils of A made':22s}"
    lines.append(head + " nils of B set by A")
    for upper, lower in ranked_pairs(order):
        cells = []
        for measure in MEASURES:
            e = estimate(table, upper, lower, measure)
            if e is None:
                cells.append("-")
                continue
            value, low, high = (unsigned_zero(f"{x:.3g}") for x in (e.value, e.low, e.high))
            cells.append(f"{value} [{low}, {high}]")
        lines.append(f"{upper + ' vs ' + lower:32s} {cells[0]:28s} {cells[1]:22s} {cells[2]}")
    lines.append(f"wrote {path}")
    click.echo("\n".join(lines))
