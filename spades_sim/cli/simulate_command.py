"""``spades-sim simulate``: hands or whole games into a Parquet run directory.

Contract
--------
Parses the run's options (a ``--config`` TOML file gives defaults, flags override it,
``--set`` merges field by field), checks what only the command line can (``--hands`` or
``--games``, ``--resume`` or ``--overwrite``, ``--threads`` against this machine's
cores unless ``--scheduler`` sends the run to a Dask cluster, ``--dd`` with hands and
rows only), then calls :func:`spades_sim.run.run_dataset` (with ``--dd``, its deals are
then solved double-dummy on this machine, :mod:`spades_sim.run.double_dummy`). A
progress bar on stderr when it is a terminal; the summary on stdout as text on a
terminal, else one line of JSON (``--summary``). Ctrl-C or SIGTERM keeps every finished
part (with ``--dd``, every deal solved), says so in one line and exits 130 / 143.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from spades_sim.cli.failures import UserError, one_line, usage, user_errors
from spades_sim.cli.options import (
    build_spec,
    from_command_line,
    load_config,
    pick_one,
    rules_options,
)

__all__ = ["simulate"]


@click.command()
@click.option(
    "--config",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    is_eager=True,
    expose_value=False,
    callback=load_config,
    help="TOML file with any of these options (keys as the option names); flags override it.",
)
@click.option("--hands", type=click.IntRange(min=1), metavar="N", help="Play N independent hands.")
@click.option("--games", type=click.IntRange(min=1), metavar="N", help="Play N whole games.")
@rules_options
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=0,
    show_default=True,
    metavar="S",
    help="Run seed (0 .. 2**63-1).",
)
@click.option(
    "--threads",
    type=click.IntRange(min=1),
    metavar="T",
    help="Kernel threads [default: all cores]; the rows do not depend on it.",
)
@click.option(
    "--scheduler",
    metavar="ADDR",
    help="Run on a Dask cluster: tcp://HOST:8786 (a running scheduler) or local:N (start N "
    "worker processes here); same rows as a local run. Needs the dask extra.",
)
@click.option(
    "--chunk-size",
    type=click.IntRange(min=1),
    metavar="C",
    help="Deals (or games) per part file [default: 262144 deals; games: ~4M row slots].",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),  # a str: a URI such as s3://bucket/run is no path
    metavar="DIR",
    help="Run directory to write (required): a path, or a URI such as s3://bucket/run.",
)
@click.option("--resume", is_flag=True, help="Continue an interrupted run in --out.")
@click.option("--overwrite", is_flag=True, help="Replace the run in --out.")
@click.option(
    "--record-play", is_flag=True, help="Also store every hand's cards in play order (_plays/)."
)
@click.option(
    "--aggregate",
    is_flag=True,
    help="Write the run's counts (a small table) instead of its rows; analyze reads them.",
)
@click.option(
    "--by",
    "aggregate_by",
    metavar="KEYS",
    help="With --aggregate: count by these keys, comma-separated (spades,high_spades,seat,...).",
)
@click.option(
    "--dd",
    is_flag=True,
    help="Then solve every deal double-dummy into DIR/_dd (resumable; a fraction of a second "
    "to seconds a deal): the rows gain dd_side_tricks and dd_nil_safe.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar; summary as one JSON line.")
@click.option(
    "--summary",
    "summary_format",
    type=click.Choice(["text", "json"]),
    help="Summary format [default: text on a terminal, else json].",
)
@click.pass_context
def simulate(ctx: click.Context, **params: Any) -> None:
    """Play hands or whole games into a Parquet run directory.

    \b
    Examples:
      spades-sim simulate --hands 1000000 --seed 1 --out runs/first
      spades-sim simulate --games 10000 --rules mercy --set target=300 --out runs/g
      spades-sim simulate --hands 100000 --ns-bidding count:bias=1 --out runs/b
      spades-sim simulate --config run.toml --seed 2
      spades-sim simulate --hands 100000000 --scheduler tcp://10.0.0.5:8786 --out /shared/r
      spades-sim simulate --hands 1000000000 --aggregate --by spades,seat --out runs/agg
      spades-sim simulate --hands 200 --dd --out runs/dd
    """
    # imported when the command runs: `spades-sim --help` loads no kernels
    from spades_sim.run import RunInterrupted, run_dataset
    from spades_sim.threads import announce_compiles

    pick_one(ctx, params, "hands", "games", "give --hands or --games, not both")
    pick_one(ctx, params, "resume", "overwrite", "give --resume or --overwrite, not both")
    if not params["hands"] and not params["games"]:
        usage("say how much to play: --hands N or --games N")
    if params["out"] is None:
        usage("missing option '--out': the run directory to write")
    mode = "games" if params["games"] else "hands"
    total = params["games"] or params["hands"]
    from_config = (ctx.default_map or {}).get("assignments")
    if from_config and from_command_line(ctx, "assignments"):  # --set merges field by field
        params["assignments"] = [*from_config, *params["assignments"]]
    spec = build_spec(params, seed=params["seed"], mode=mode, record_play=params["record_play"])
    aggregate = _aggregate_option(params, spec)
    if params["dd"] and aggregate is not None:
        usage("--aggregate counts in kernels that never call the solver: drop --dd")
    if params["dd"] and mode == "games":
        usage("--dd solves runs of hands: use --hands N")
    # numba only for a run that may compile (to word the notice)
    import numba

    threads = params["threads"]
    cores: int = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    scheduler = params["scheduler"]
    if scheduler is not None:  # workers check --threads against their own cores
        from spades_sim.run.cluster import Scheduler, require_dask

        with user_errors("--scheduler"):
            scheduler = Scheduler.parse(scheduler)
        try:
            require_dask()
        except ImportError as exc:
            raise UserError(str(exc)) from None
    elif threads is not None and threads > cores:
        raise click.BadParameter(
            f"at most {cores} on this machine, got {threads}",
            param_hint="'--threads'",
        )
    quiet = params["quiet"]
    fmt = params["summary_format"] or ("text" if sys.stdout.isatty() and not quiet else "json")
    show_bar = not quiet and sys.stderr.isatty()
    try:
        with user_errors(), announce_compiles(show_bar):  # the wait of a first run, said
            summary = run_dataset(
                spec,
                total,
                params["out"],
                chunk_size=params["chunk_size"],
                threads=threads,
                resume=params["resume"],
                overwrite=params["overwrite"],
                progress=show_bar,
                scheduler=scheduler,
                aggregate=aggregate,
                dd=params["dd"],
            )
    except ConnectionError as exc:  # the --scheduler cannot be reached
        raise UserError(one_line(str(exc))) from None
    except RunInterrupted as stop:
        s = stop.summary
        if s.dd_complete is False:
            # every row is there: what stopped is the solving after them
            from spades_sim.run.dd_solve import stored_deals
            from spades_sim.run.double_dummy import DD_DIR

            where = Path(s.out) / DD_DIR
            kept = stored_deals(where)
            click.echo(
                f"interrupted: the rows are complete ({s.hands:,} hands) and {kept:,} of "
                f"{s.total:,} deals solved are kept in {where}; run the same command with "
                "--resume to solve the rest",
                err=True,
            )
            sys.exit(128 + int(stop.signal_number))
        click.echo(
            f"interrupted: {s.parts} part(s) complete in {s.out} ({s.hands:,} hands); run the "
            "same command with --resume to continue",
            err=True,
        )
        sys.exit(128 + int(stop.signal_number))
    click.echo(summary.format() if fmt == "text" else summary.to_json())


def _aggregate_option(params: Mapping[str, Any], spec: Any) -> list[str] | None:
    """``--aggregate``/``--by``: the keys to count by, checked, or None."""
    by_text = params["aggregate_by"]
    if not params["aggregate"]:
        if by_text is not None:
            usage("--by counts an aggregate run: add --aggregate")
        return None
    for clash in ("record_play", "scheduler"):
        if params[clash]:
            usage(f"--aggregate keeps no rows and runs locally: drop --{clash.replace('_', '-')}")
    # imported when the command runs: `spades-sim --help` loads no kernels
    from spades_sim.run.counting import AggregateKeyError, layout

    by = [k.strip() for k in (by_text or "").split(",") if k.strip()]
    try:
        layout(by, spec.rules, spec.mode)
    except AggregateKeyError as exc:
        message = one_line(str(exc)).removeprefix("by: ")
        raise click.BadParameter(message, param_hint="'--by'") from None
    return by
