"""``spades-sim show``, ``nil-odds`` and ``advise``: one deal regenerated, one hand's odds,
one hand's bids.

Contract
--------
``show`` regenerates one deal (or one hand of a game) of a run, from the run's manifest
(``--run``) or from rules, policies and a seed given here, and prints it
(:func:`spades_sim.text.render_hand`). ``nil-odds`` parses a hand and what is known of
the others (``--partner``, ``--given SEAT=CARDS``, ``--require SEAT:FEATURE=LO..HI``)
and prints :func:`spades_sim.odds.nil_odds` as text or JSON. ``advise`` parses a hand,
its seat, the dealer, the bids made before (``--bids N=4,E=3``), the score and bags by
side, N-S first (``--score 420-380 --bags 7-2``), and prints
:func:`spades_sim.odds.advise`'s table, the best bid and why, as text or JSON. Every
mistake is one ``error:`` line (:mod:`spades_sim.cli.failures`), exit status 2.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Sequence
from typing import Any

import click

from spades_sim.cli.failures import UserError, usage, user_errors
from spades_sim.cli.options import (
    build_spec,
    from_command_line,
    rules_options,
    stderr_is_terminal,
)

__all__ = ["advise_command", "nil_odds_command", "show"]


@click.command()
@click.option(
    "--run",
    "run_dir",
    metavar="DIR",
    help="Take rules, policies and seed from this run.",
)
@click.option(
    "--seed", type=click.IntRange(0, 2**63 - 1), metavar="S", help="Run seed (without --run)."
)
@click.option("--deal", type=click.IntRange(min=0), metavar="I", help="Deal index (hands mode).")
@click.option("--game", type=click.IntRange(min=0), metavar="G", help="Game index (games mode).")
@click.option(
    "--hand",
    "hand_no",
    type=click.IntRange(min=0),
    metavar="H",
    help="Hand number within the game, from 0.",
)
@click.option(
    "--dd", "double_dummy", is_flag=True,
    help="Mark each card with what it cost its side against double-dummy play (hands mode).",
)  # fmt: skip
@rules_options
@click.pass_context
def show(ctx: click.Context, **params: Any) -> None:
    """Regenerate one deal and print the hands, the bids, the play and the score.

    \b
    Examples:
      spades-sim show --seed 1 --deal 17
      spades-sim show --run runs/first --deal 17
      spades-sim show --run runs/games --game 3 --hand 0
    """
    # imported when the command runs: `spades-sim --help` loads no kernels
    from spades_sim.dataset import read_manifest
    from spades_sim.run import spec_from_meta
    from spades_sim.text import render_hand

    deal, game, hand_no = params["deal"], params["game"], params["hand_no"]
    if deal is not None and (game is not None or hand_no is not None):
        usage("give --deal (hands) or --game/--hand (games), not both")
    if deal is None and game is None:
        usage("say which deal: --deal I (or --game G --hand H for games)")
    mode = "hands" if deal is not None else "games"
    if params["run_dir"] is not None:
        given = [
            f"--{name.replace('_', '-')}"
            for name in ("seed", "preset", "assignments", "bidding", "play", "draw",
                         "ns_bidding", "ew_bidding", "ns_play", "ew_play")
            if from_command_line(ctx, name)
        ]  # fmt: skip
        if given:
            flag = given[0].replace("--preset", "--rules").replace("--assignments", "--set")
            usage(f"{flag} cannot be combined with --run: the run's manifest fixes it")
        with user_errors():
            meta = read_manifest(params["run_dir"])["meta"]
            spec = spec_from_meta(meta)
        if spec.mode != mode:
            if spec.mode == "games":
                usage(f"{params['run_dir']} is a games run: use --game G --hand H")
            usage(f"{params['run_dir']} is a hands run: use --deal I")
        total = meta.get("total")
        index = deal if deal is not None else game
        if isinstance(total, int) and index is not None and index >= total:
            what = "deals" if mode == "hands" else "games"
            raise UserError(f"{params['run_dir']} holds {total} {what} (0..{total - 1})")
    else:
        if params["seed"] is None:
            usage("missing option '--seed' (or --run DIR)")
        spec = build_spec(params, seed=params["seed"], mode=mode)
    if params["double_dummy"]:
        # what --dd cannot do is said before anything is printed
        if deal is None:
            usage("--dd is for a deal of a hands run (--deal I)")
        # imported when asked for: `show` without --dd loads no solver
        from spades_sim.solve.solver import check_solvable_rules

        with user_errors("--dd"):
            check_solvable_rules(spec.rules)
    with user_errors():
        spec = dataclasses.replace(spec, mode=mode, record_play=True)
        click.echo(render_hand(spec, deal if deal is not None else game, hand_no or 0))
    if params["double_dummy"]:
        assert deal is not None  # refused above
        # imported when asked for: `show` without --dd loads no solver
        from spades_sim.run.double_dummy import record_of
        from spades_sim.solve.played import play_costs, render_costs
        from spades_sim.threads import announce_compiles

        with user_errors(), announce_compiles():
            record, nils = record_of(spec, deal)
            lines = render_costs(
                play_costs(record, nils), spec.rules.players, spec.rules.deuces_high
            )
        click.echo("\n".join(lines))


def _seat_pairs(items: Sequence[str], option: str) -> dict[int | str, str]:
    """``SEAT=CARDS`` items (``--given``) as a mapping seat -> cards."""
    out: dict[int | str, str] = {}
    for item in items:
        seat, eq, cards = str(item).partition("=")
        if not eq or not seat.strip() or not cards.strip():
            raise click.BadParameter(f"expected SEAT=CARDS, got {item!r}", param_hint=option)
        out[seat.strip()] = f"{out.get(seat.strip(), '')} {cards.strip()}".strip()
    return out


def _requirements(items: Sequence[str]) -> dict[int | str, dict[str, str]]:
    """``SEAT:FEATURE=LO..HI`` items (``--require``) as seat -> feature -> range."""
    out: dict[int | str, dict[str, str]] = {}
    for item in items:
        head, eq, value = str(item).partition("=")
        seat, colon, feature = head.partition(":")
        if not (eq and colon and seat.strip() and feature.strip() and value.strip()):
            raise click.BadParameter(
                f"expected SEAT:FEATURE=LO..HI, got {item!r}", param_hint="'--require'"
            )
        out.setdefault(seat.strip(), {})[feature.strip()] = value.strip()
    return out


@click.command("nil-odds")
@click.argument("hand")
@click.option("--seat", default=None, metavar="S", help="Seat holding HAND [default: S; P0].")
@click.option(
    "-n", "n", type=click.IntRange(min=1), default=100_000, show_default=True, metavar="N",
    help="Random completions of the deal to play.",
)  # fmt: skip
@click.option("--partner", metavar="HAND", help="The partner's cards (four players).")
@click.option(
    "--given", multiple=True, metavar="SEAT=CARDS", help="Cards a seat is known to hold; repeat."
)
@click.option(
    "--require",
    multiple=True,
    metavar="SEAT:FEATURE=LO..HI",
    help="A range of a hand feature of another seat (spades, high_spades, aces, kings, "
    "queens, points, voids, shortest_suit); repeat.",
)
@click.option("--blind", is_flag=True, help="Bid blind nil (before seeing HAND).")
@click.option(
    "--number-bid",
    "number_bids",
    multiple=True,
    type=click.IntRange(min=1),
    metavar="B",
    help="Number bid to compare with nil; repeat [default: the policy's bid and one either side]"
    " (1 to the tricks of a hand: 13, or 17 with three players).",
)
@click.option("--dealer", metavar="S", help="Fix the dealer [default: random per completion].")
@click.option(
    "--defense",
    type=click.Choice(["policies", "dd"]),
    default="policies",
    show_default=True,
    help="dd: also solve completions double-dummy, for the share safe against perfect defence.",
)
@click.option(
    "--dd-completions", type=click.IntRange(min=1), default=1_000, show_default=True,
    metavar="M", help="With --defense dd: the first M completions are solved (about 0.2 s each).",
)  # fmt: skip
@rules_options
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True)
@click.option("--threads", type=click.IntRange(min=1), metavar="T", help="Threads [default: all].")
@click.option("--json", "as_json", is_flag=True, help="Print the answer as one JSON object.")
@click.pass_context
def nil_odds_command(ctx: click.Context, **params: Any) -> None:
    """How often HAND makes nil, and whether nil beats a number bid.

    HAND is 13 cards (`AS KS 7H ...` or PBN `S.H.D.C`). The other cards are dealt at
    random N times, given what you know; each deal is played with HAND bidding nil and
    bidding each number bid, everyone else by the policies.

    \b
    Examples:
      spades-sim nil-odds Q73.J52.T84.9632
      spades-sim nil-odds Q73.J52.T84.9632 --partner AKJ.AK.AK.AKQJT9
      spades-sim nil-odds Q73.J52.T84.9632 --require N:spades=4..13 --given E=AS
      spades-sim nil-odds Q73.J52.T84.9632 --blind --rules blind-nil-exchange --json
      spades-sim nil-odds Q73.J52.T84.9632 --defense dd --dd-completions 200
    """
    # imported when the command runs: `spades-sim --help` loads no kernels
    from spades_sim.odds import nil_odds
    from spades_sim.odds.conditions import no_partner

    if params["defense"] != "dd" and from_command_line(ctx, "dd_completions"):
        usage("--dd-completions is for --defense dd (it says how many completions to solve)")
    most = inspect.signature(nil_odds).parameters["max_tries"].default
    if params["n"] > most:  # the cap on draws is no option here: say it of -n
        raise click.BadParameter(
            f"{params['n']:,} completions is more than this command plays (at most {most:,})",
            param_hint="'-n'",
        )
    spec = build_spec(params, seed=params["seed"], mode="hands")
    if params["partner"] is not None and (spec.rules.players != 4 or not spec.rules.partnerships):
        # the library's words name its argument given=; here it is an option
        raise click.BadParameter(
            f"{no_partner(spec.rules)} with --given SEAT=CARDS", param_hint="'--partner'"
        )
    given = _seat_pairs(params["given"], "'--given'")
    require = _requirements(params["require"])
    # every mistake left is in the arguments (the hand, the seats, the conditions): no
    # file is read, so it is the command that cannot be taken (exit 2)
    with user_errors(as_usage=True):
        odds = nil_odds(
            params["hand"],
            seat=params["seat"],
            rules=spec.rules,
            bidding=spec.bidding,
            play=spec.play,
            draw=spec.draw,
            n=params["n"],
            seed=params["seed"],
            partner=params["partner"],
            given=given,
            require=require,
            blind=params["blind"],
            number_bids=list(params["number_bids"]) or None,
            dealer=params["dealer"],
            threads=params["threads"],
            defense=params["defense"],
            dd_completions=params["dd_completions"],
            progress=stderr_is_terminal(),  # a bar on a terminal only, as simulate shows
        )
    click.echo(odds.to_json() if params["as_json"] else str(odds))


def _bid_pairs(text: str | None) -> dict[int | str, int | str]:
    """``--bids N=4,E=nil`` as a mapping seat -> bid (checked by ``advise``)."""
    out: dict[int | str, int | str] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        seat, eq, bid = item.partition("=")
        if not eq or not seat.strip() or not bid.strip():
            raise click.BadParameter(
                f"expected SEAT=BID, got {item.strip()!r}", param_hint="'--bids'"
            )
        if seat.strip() in out:  # a mapping would keep the last silently
            raise click.BadParameter(f"{seat.strip()} is given twice", param_hint="'--bids'")
        out[seat.strip()] = bid.strip()
    return out


def _by_side(text: str | None, option: str) -> tuple[int, ...] | None:
    """``--score 420-380`` (by side, N-S first; negatives as ``-120--40`` or
    ``-120,-40``) as ints."""
    if text is None:
        return None
    parts = text.split(",") if "," in text else _dash_split(text)
    try:
        return tuple(int(p) for p in parts)
    except ValueError:
        raise click.BadParameter(
            f"expected whole numbers by side, N-S first (420-380), got {text!r}",
            param_hint=f"'{option}'",
        ) from None


def _dash_split(text: str) -> list[str]:
    """``420-380`` -> ['420', '380']; a dash that starts a number keeps its minus sign."""
    parts: list[str] = []
    current = ""
    for ch in text.strip():
        if ch == "-" and current:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return parts


@click.command("advise")
@click.argument("hand")
@click.option("--seat", required=True, metavar="S", help="Seat holding HAND (N, E, S, W; P0..).")
@click.option("--dealer", required=True, metavar="S", help="The seat dealing this hand.")
@click.option(
    "--bids", metavar="SEAT=BID,...",
    help="The bids made before the seat's turn: a number, nil or 'blind nil' (N=4,E=nil).",
)  # fmt: skip
@click.option(
    "--score", metavar="A-B", help="Scores before the hand, by side, N-S first [default: 0-0]."
)
@click.option("--bags", metavar="A-B", help="Bags carried, by side, N-S first [default: 0-0].")
@click.option(
    "-n", "n", type=int, default=2_000, show_default=True, metavar="N",
    help="Random completions of the deal, each played once per bid.",
)  # fmt: skip
@click.option(
    "--given", multiple=True, metavar="SEAT=CARDS", help="Cards a seat is known to hold; repeat."
)
@click.option(
    "--require",
    multiple=True,
    metavar="SEAT:FEATURE=LO..HI",
    help="A range of a hand feature of another seat; repeat.",
)
@rules_options
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True)
@click.option("--threads", type=click.IntRange(min=1), metavar="T", help="Threads [default: all].")
@click.option(
    "--win/--no-win", default=True, show_default=True,
    help="The win column (the chance to win the game); --no-win: points only, no win table.",
)  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print the answer as one JSON object.")
@click.pass_context
def advise_command(ctx: click.Context, **params: Any) -> None:
    """What should HAND bid here? Every bid's made share, points, bags and gain.

    HAND is the seat's cards (`AS KS 7H ...` or PBN `S.H.D.C`). The other cards are
    dealt N times as the seat knows the table (the earlier bids read as the seated
    bidders would make them), and each deal is played once per bid the seat may make.
    Scores and bags are by side, N-S first (cutthroat: by seat).

    \b
    Examples:
      spades-sim advise Q73.J52.T84.9632 --seat S --dealer W --bids N=4,E=3
      spades-sim advise AKQ4.KQ2.A32.K32 --seat N --dealer W --score 420-380 --bags 7-2
    """
    from spades_sim.odds import advise  # imported when the command runs

    spec = build_spec(params, seed=params["seed"], mode="hands")
    bids = _bid_pairs(params["bids"])
    sides = spec.rules.sides
    scores = _by_side(params["score"], "--score") or (0,) * sides
    bags = _by_side(params["bags"], "--bags") or (0,) * sides
    given = _seat_pairs(params["given"], "'--given'")
    require = _requirements(params["require"])
    with user_errors(as_usage=True):  # every mistake left is in the arguments: exit 2
        advice = advise(
            params["hand"],
            params["seat"],
            dealer=params["dealer"],
            bids=bids,
            scores=scores,
            bags=bags,
            rules=spec.rules,
            bidding=spec.bidding,
            play=spec.play,
            n=params["n"],
            seed=params["seed"],
            threads=params["threads"],
            given=given,
            require=require,
            win=params["win"],
        )
    click.echo(advice.to_json() if params["as_json"] else str(advice))
