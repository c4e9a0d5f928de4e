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
(:func:`spades_sim.solve.dd_table`). Both show a progress bar. Every mistake is one
``error:`` line (:mod:`spades_sim.cli.errors`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from spades_sim.cli.errors import usage, user_errors
from spades_sim.cli.options import rules_from_options, rules_options

__all__ = ["solve"]


@click.command()
@click.argument("hands", nargs=-1, required=True)
@click.option("--leader", metavar="S", help="Seat to lead [default: the opening leader].")
@click.option("--dealer", default="W", show_default=True, metavar="S", help="Dealer of the deal.")
@click.option("--broken", is_flag=True, help="Solve with spades already broken (as bridge).")
@click.option("--cards", "show_cards", is_flag=True, help="Print the value of each legal card.")
@click.option(
    "--nil", "nil_seats", multiple=True, metavar="SEAT", help="Check a nil; repeat for partners."
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="With RUN: the per-deal table's parts here [default: into RUN itself, RUN/_dd].",
)
@rules_options
def solve(**params: Any) -> None:
    """Solve a deal double-dummy: the tricks under perfect play, every card seen.

    \b
    Examples:
      spades-sim solve AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765
      spades-sim solve N.hand E.hand S.hand W.hand --leader S --cards --nil E
      spades-sim solve runs/first
      spades-sim solve runs/first --out runs/first-dd
    """
    # imported when the command runs: `spades-sim --help` loads no kernels
    from spades_sim.cards import seat_index, seat_name, side_name
    from spades_sim.run.threads import announce_compiles
    from spades_sim.solve import Position, dd_cards, dd_tricks, nil_safe
    from spades_sim.solve.table import dd_table

    hands = list(params["hands"])
    if len(hands) == 1 and params["out"] is None:
        # the run layer only for a run solved into itself
        from spades_sim.run.double_dummy import DD_DIR, solve_run

        with user_errors(), announce_compiles():
            done = solve_run(hands[0], progress=True)
        kept = done.deals - done.solved
        again = f", {kept:,} solved before" if kept else ""
        click.echo(
            f"{done.deals:,} deals solved into {Path(hands[0]) / DD_DIR} ({done.solved:,} now"
            f"{again}); its rows now have dd_side_tricks and dd_nil_safe"
        )
        return
    if len(hands) == 1:
        with user_errors(), announce_compiles():
            frame = dd_table(hands[0], out=params["out"], progress=True)
        click.echo(f"{len(frame)} deals solved into {params['out']}")
        return
    if params["out"] is not None:
        usage("--out is for solving a run (one RUN argument)")
    rules = rules_from_options(params["preset"], params["assignments"])
    players = rules.players
    with user_errors():
        pos = Position.start(hands, params["dealer"], rules)
        leader = pos.to_play
        if params["leader"] is not None:
            leader = seat_index(params["leader"], players)
        if leader != pos.to_play or params["broken"]:
            pos = Position(hands, leader, spades_broken=params["broken"], rules=rules)
        nil_seats = sorted({seat_index(s, players) for s in params["nil_seats"]})
        # cutthroat: a lone seat's tricks have no double-dummy value, its nil has one
        only_nil = not rules.partnerships and not params["show_cards"]
        if only_nil and not nil_seats:
            usage("--nil: in cutthroat (partnerships=false) only a nil is solved; name its seat")
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
