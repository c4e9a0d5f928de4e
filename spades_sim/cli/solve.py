"""``spades-sim solve``: one deal (or position) solved double-dummy, or a whole run.

Contract
--------
``solve HAND_N HAND_E HAND_S HAND_W`` (two players: two hands) prints each side's tricks
from the opening lead (``--leader`` to choose the leader; spades are then unbroken and
the first-trick rules apply only when the leader is the opening one), with ``--cards``
the value of every legal card of the leader and with ``--nil SEAT`` whether a nil of that
seat is safe. ``solve RUN`` solves every deal of a finished hands run into the run
itself (``RUN/_dd/``, recorded in its manifest: :func:`spades_sim.run.double_dummy.solve_run`,
resumable, the same parts ``simulate --dd`` writes), after which its rows read with the
columns ``dd_side_tricks`` and ``dd_nil_safe``; ``solve RUN --out DIR`` writes the
per-deal table into resumable Parquet parts elsewhere instead
(:func:`spades_sim.run.dd_table`). Both show a progress bar, say at the end how many
deals were solved now and before, and on Ctrl-C or SIGTERM how many are kept where and
how to go on (exit 130 / 143). Every mistake is one ``error:`` line
(:mod:`spades_sim.cli.failures`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from spades_sim.cli.failures import usage, user_errors
from spades_sim.cli.options import (
    from_command_line,
    rule_set_options,
    rules_from_options,
    stderr_is_terminal,
)

__all__ = ["solve"]


_DEAL_OPTIONS = ("leader", "dealer", "broken", "show_cards", "nil_seats", "preset", "assignments")
_FLAGS = {
    "show_cards": "--cards",
    "nil_seats": "--nil",
    "preset": "--rules",
    "assignments": "--set",
}


def _out_dir(ctx: click.Context, param: click.Parameter, value: str | None) -> Path | None:
    if value is not None and not value.strip():
        raise click.BadParameter("is empty: name the directory for the table", param_hint="'--out'")
    return None if value is None else Path(value)


def _misplaced(argument: str) -> str | None:
    """What a lone argument that is no directory looks like, if it is not a run: one hand,
    or a whole deal quoted as one argument (None: taken for a run that is not there)."""
    # imported when the command runs: `spades-sim --help` loads no package modules
    from spades_sim.cards import parse_hand

    tokens = argument.split()
    if len(tokens) in (2, 3, 4) and all("." in t for t in tokens):
        return (
            f"{argument!r} is a whole deal given as one argument: give each hand as its own "
            "argument (N E S W; three or two hands under those rules), without quotes"
        )
    try:
        parse_hand(argument)
    except ValueError:
        return None
    return (
        f"{argument!r} is one hand: a deal needs every seat's hand, each its own argument "
        "(N E S W; three or two under those rules), or give a RUN directory"
    )


def _solve_run(run: str, out: Path | None) -> None:
    """Solve the run ``run`` into itself (``out`` None) or into the table directory
    ``out``, and say how many deals were solved now and before; interrupted (Ctrl-C or
    SIGTERM), say how many are kept where and how to go on, and exit 130 / 143."""
    # imported when the command runs: `spades-sim --help` loads no kernels
    from spades_sim.dataset import read_manifest
    from spades_sim.run.dd_solve import dd_table, stored_deals
    from spades_sim.run.double_dummy import DD_DIR, solve_run
    from spades_sim.run.interrupts import interrupt_signal, sigterm_interrupts
    from spades_sim.threads import announce_compiles

    where = Path(run) / DD_DIR if out is None else out
    with user_errors():
        manifest = read_manifest(run)
        total = (manifest.get("meta") or {}).get("total")
        # parts in RUN/_dd that no manifest records are strays solve_run deletes
        before = stored_deals(where) if out is not None or "dd" in manifest else 0
    try:
        with sigterm_interrupts(), user_errors(), announce_compiles():
            if out is None:
                done = solve_run(run, progress=stderr_is_terminal())
                deals, now = done.deals, done.solved
            else:
                deals = len(dd_table(run, out=out, progress=stderr_is_terminal()))
                now = deals - before  # every deal stored before was read back
    except KeyboardInterrupt as stop:
        kept = stored_deals(where)
        of = f" of {total:,}" if isinstance(total, int) else ""
        rest = f" the other {total - kept:,}" if isinstance(total, int) else " the rest"
        click.echo(
            f"interrupted: {kept:,}{of} deals solved are kept in {where} ({kept - before:,} "
            f"this time); run the same command again to solve{rest}",
            err=True,
        )
        sys.exit(128 + int(interrupt_signal(stop)))
    again = f", {deals - now:,} solved before" if deals - now else ""
    tail = "; its rows now have dd_side_tricks and dd_nil_safe" if out is None else ""
    click.echo(f"{deals:,} deals solved into {where} ({now:,} now{again}){tail}")


@click.command()
@click.argument("hands", nargs=-1, required=True)
@click.option("--leader", metavar="S", help="Seat to lead [default: the opening leader].")
@click.option(
    "--dealer", metavar="S", help="Dealer of the deal [default: the last seat: W, P2 or P1]."
)
@click.option("--broken", is_flag=True, help="Solve with spades already broken (as bridge).")
@click.option("--cards", "show_cards", is_flag=True, help="Print the value of each legal card.")
@click.option(
    "--nil", "nil_seats", multiple=True, metavar="SEAT", help="Check a nil; repeat for partners."
)
@click.option(
    "--out",
    callback=_out_dir,
    metavar="DIR",
    help="With RUN: the per-deal table's parts here [default: into RUN itself, RUN/_dd].",
)
@rule_set_options
@click.pass_context
def solve(ctx: click.Context, **params: Any) -> None:
    """Solve a deal double-dummy: the tricks under perfect play, every card seen.

    HANDS are the hands of one deal, N E S W (three or two under those rules), or one
    RUN directory of hands to solve whole. Seats are named N, E, S, W (P0, P1, P2 with
    three or two players) or numbered from 0.

    \b
    Examples:
      spades-sim solve AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765
      spades-sim solve N.hand E.hand S.hand W.hand --leader S --cards --nil E
      spades-sim solve runs/first
      spades-sim solve runs/first --out runs/first-dd
    """
    # imported when the command runs: `spades-sim --help` loads no kernels
    from spades_sim.cards import seat_index, seat_name, side_name
    from spades_sim.rules import FirstLead
    from spades_sim.solve import Position, dd_cards, dd_tricks, nil_safe
    from spades_sim.solve.solver import nil_mask
    from spades_sim.threads import announce_compiles

    hands = list(params["hands"])
    directories = [h for h in hands if Path(h).is_dir()]
    if len(hands) > 1 and directories:
        usage(
            f"solve takes one RUN or the hands of one deal; got {len(hands)} arguments, "
            f"{len(directories)} of them directories ({', '.join(directories)})"
        )
    if len(hands) == 1 and not directories and (seen := _misplaced(hands[0])) is not None:
        usage(seen)
    if len(hands) == 1:
        given = [name for name in _DEAL_OPTIONS if from_command_line(ctx, name)]
        if given:
            flag = _FLAGS.get(given[0], f"--{given[0]}")
            usage(
                f"{flag} is for a deal given as hands: a RUN's manifest fixes its rules, "
                "deals and leaders"
            )
    if len(hands) == 1:
        _solve_run(hands[0], params["out"])
        return
    if params["out"] is not None:
        usage("--out is for solving a run (one RUN argument)")
    rules = rules_from_options(params["preset"], params["assignments"])
    players = rules.players
    # a deal given here is a command that cannot be taken when it is wrong (exit 2)
    with user_errors("--dealer"):
        dealer = players - 1 if params["dealer"] is None else seat_index(params["dealer"], players)
    with user_errors("--leader"):
        leader = None if params["leader"] is None else seat_index(params["leader"], players)
    with user_errors("--nil"):
        nil_seats = sorted({seat_index(s, players) for s in params["nil_seats"]})
    with user_errors(as_usage=True):
        pos = Position.start(hands, dealer, rules)
        if (
            leader is not None
            and leader != pos.to_play
            and rules.first_lead is FirstLead.TWO_OF_CLUBS
        ):
            raise ValueError(
                f"--leader {seat_name(leader, players)}: under first_lead two_of_clubs the "
                f"first trick is led by the holder of the 2C, {seat_name(pos.to_play, players)}"
            )
        if (leader is not None and leader != pos.to_play) or params["broken"]:
            pos = Position(hands, pos.to_play if leader is None else leader,
                           spades_broken=params["broken"], rules=rules)  # fmt: skip
        # cutthroat: a lone seat's tricks have no double-dummy value, its nil has one
        only_nil = not rules.partnerships and not params["show_cards"]
        if only_nil and not nil_seats:
            usage("--nil: in cutthroat (partnerships=false) only a nil is solved; name its seat")
        if nil_seats:
            nil_mask(pos, nil_seats)  # the nil seats checked before anything is solved
        with announce_compiles():
            tricks = None if only_nil else dd_tricks(pos)
            cards = dd_cards(pos) if params["show_cards"] else None
            nil = nil_safe(pos, nil_seats) if nil_seats else None
    side = pos.to_play % 2
    lead = seat_name(pos.to_play, players)
    state = "spades broken" if pos.spades_broken else "spades unbroken"
    ours, theirs = side_name(side, players), side_name(1 - side, players)
    if tricks is None:
        click.echo(f"{lead} leads ({state})")
    else:
        click.echo(f"{lead} leads ({state}): {ours} {tricks}, {theirs} {pos.tricks_left - tricks}")
    if cards is not None:
        values = "  ".join(f"{card} {value}" for card, value in cards.items())
        click.echo(f"cards of {lead} (tricks for {ours}): {values}")
    if nil is not None:
        who = " and ".join(seat_name(s, players) for s in nil_seats)
        click.echo(f"nil {who}: {'safe' if nil else 'not safe'}")
