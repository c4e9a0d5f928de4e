"""``spades-sim tune``: a policy's parameters searched for the best duplicate margin.

Contract
--------
``spades-sim tune POLICY --param NAME=LO..HI ... --against BASELINE --deals N --trials T
--study FILE`` calls :func:`spades_sim.analysis.tune.tune` (its docstring says what is
searched, how the study file resumes and why the best is re-measured on fresh deals),
shows a progress bar on a terminal, and prints the best values with their margin on the
search's deals and on fresh ones (95% intervals), and where the study and the plot are.

Every mistake in the command (an unknown policy or parameter, a range that is empty,
malformed or outside the parameter's own, a study file that is not one or is a study of
another tuning, a plot path that is not a PNG or is the study, more deals than memory
holds, a missing extra) is one ``error:`` line with exit status 2, before any file is
written; Ctrl-C (or SIGTERM) keeps the finished trials in the study (a signal during the
study's own write stops the search after that trial), says so in one line (run the same
command again to go on) and exits 130 (143).
"""

from __future__ import annotations

import sys
from typing import Any

import click

from spades_sim.cli.failures import usage, user_errors
from spades_sim.cli.options import rule_set_options, rules_from_options, stderr_is_terminal
from spades_sim.run.interrupts import interrupt_signal, sigterm_interrupts

__all__ = ["tune"]


@click.command()
@click.argument("policy", metavar="POLICY")
@click.option(
    "--param",
    "ranges",
    multiple=True,
    required=True,
    metavar="NAME=LO..HI",
    help="A parameter to search and its range; repeat for more. Whole-number bounds try "
    "whole numbers only; a count is searched as whole numbers and a switch or setting "
    "(0 or 1, 0..3) as categories. The policy as given must lie in the ranges. A side's "
    "parameter can be named bid.NAME or play.NAME.",
)
@click.option(
    "--against",
    metavar="BASELINE",
    help="The policy to beat (a BID/PLAY side when POLICY is one) [default: POLICY as given].",
)
@click.option(
    "--kind",
    type=click.Choice(["bid", "play"]),
    help="Whether POLICY is a bidding or a play policy, for names that are both (random).",
)
@click.option(
    "--deals", type=click.IntRange(min=1), metavar="N", help="Deals each trial plays, both ways."
)
@click.option(
    "--games",
    type=click.IntRange(min=1),
    metavar="N",
    help="Whole games each trial plays, both ways.",
)
@click.option(
    "--trials",
    type=click.IntRange(min=1),
    default=50,
    show_default=True,
    metavar="T",
    help="Trials in the study in all (a resumed study runs only the ones missing).",
)
@click.option(
    "--study",
    # text, not a Path: Path("") is "." (tune names an empty path as such)
    type=click.Path(),
    required=True,
    metavar="FILE",
    help="The Optuna study (SQLite); created, or resumed when it is this tuning's.",
)
@click.option(
    "--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True, metavar="S"
)
@click.option(
    "--fresh-seed",
    type=click.IntRange(0, 2**63 - 1),
    metavar="S",
    help="Seed of the fresh deals the best is re-measured on [default: --seed + 1].",
)
@click.option(
    "--fresh",
    "fresh_deals",
    type=click.IntRange(min=1),
    metavar="N",
    help="Deals (games) of the re-measure [default: as many as a trial plays].",
)
@click.option(
    "--bidding",
    default="count",
    show_default=True,
    metavar="NAME[:p=v,...]",
    help="Bidding policy of every seat when POLICY is a play policy.",
)
@click.option(
    "--play",
    default="heuristic",
    show_default=True,
    metavar="NAME[:p=v,...]",
    help="Play policy of every seat when POLICY is a bidding policy.",
)
@rule_set_options
@click.option(
    "--threads", type=click.IntRange(min=1), metavar="T", help="Kernel threads [default: all]."
)
@click.option(
    "--plot",
    type=click.Path(),
    metavar="PNG",
    help="Where to draw the trials, a .png file [default: the study FILE with .png]; "
    "replaces only a PNG, never the study.",
)
@click.option("--no-plot", is_flag=True, help="Draw no plot (no matplotlib needed).")
def tune(
    policy: str,
    ranges: tuple[str, ...],
    against: str | None,
    kind: str | None,
    deals: int | None,
    games: int | None,
    trials: int,
    study: str,
    seed: int,
    fresh_seed: int | None,
    fresh_deals: int | None,
    bidding: str,
    play: str,
    preset: str,
    assignments: tuple[str, ...],
    threads: int | None,
    plot: str | None,
    no_plot: bool,
) -> None:
    """Search POLICY's parameters for the best duplicate margin against BASELINE.

    Every trial plays the same N deals (or games) twice, POLICY's side North-South then
    East-West, and scores its mean paired margin a hand; Optuna picks the next values.
    The study is kept in FILE, so the same command again resumes it. At the end the best
    values are re-measured on fresh deals (a search's own best is biased upward) and the
    trials are drawn (the report extra). POLICY is a bidding policy (the others play
    --play), a play policy (all bid with --bidding), or a side BID/PLAY.

    \b
    Examples:
      spades-sim tune count:bias=2 --param bias=-3..3 --against count --deals 2000 --trials 20 --study bias.db
      spades-sim tune heuristic --param set_push=0..13 --param bag_avoid=0..1 --games 200 --study play.db
      spades-sim tune count/heuristic --param nil_threshold=1.0..4.0 --param set_push=2..6 --deals 2000 --study side.db
    """  # noqa: E501
    if deals is not None and games is not None:
        usage("give --deals or --games, not both")
    if deals is None and games is None:
        usage("give --deals N (hands) or --games N (whole games) for each trial")
    if no_plot and plot is not None:
        usage("give --plot or --no-plot, not both")
    rules = rules_from_options(preset, assignments)
    try:
        with sigterm_interrupts(), user_errors(as_usage=True):
            result = _run(
                policy, ranges, against, kind, deals, games, trials, study, seed, fresh_seed,
                fresh_deals, rules, bidding, play, threads, plot, no_plot,
            )  # fmt: skip
    except KeyboardInterrupt as stop:
        click.echo(
            f"interrupted: the finished trials are kept in {study}; run the same command to go on",
            err=True,
        )
        sys.exit(128 + int(interrupt_signal(stop)))
    click.echo(str(result))


def _run(
    policy: str,
    ranges: tuple[str, ...],
    against: str | None,
    kind: str | None,
    deals: int | None,
    games: int | None,
    trials: int,
    study: str,
    seed: int,
    fresh_seed: int | None,
    fresh_deals: int | None,
    rules: Any,
    bidding: str,
    play: str,
    threads: int | None,
    plot: str | None,
    no_plot: bool,
) -> Any:
    # imported when the command runs: `spades-sim --help` loads no kernels
    from spades_sim.analysis.tune import tune as run_tune

    return run_tune(
        policy,
        list(ranges),
        against=against,
        deals=deals if deals is not None else games,  # type: ignore[arg-type]
        trials=trials,
        study=study,
        kind=kind,  # type: ignore[arg-type]
        mode="games" if games is not None else "hands",
        seed=seed,
        fresh_seed=fresh_seed,
        fresh_deals=fresh_deals,
        rules=rules,
        bidding=bidding,
        play=play,
        threads=threads,
        plot=False if no_plot else (plot if plot is not None else True),
        progress=stderr_is_terminal(),
    )
