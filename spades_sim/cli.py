"""The ``spades-sim`` command line: a thin click layer over the package's API.

Commands
--------
``simulate``  play hands or whole games into a Parquet run directory
              (:func:`spades_sim.run.run_dataset`), with a progress bar on a terminal and
              a summary at the end (one line of JSON when stdout is not a terminal);
              ``--scheduler`` runs it on a Dask cluster (:mod:`spades_sim.distributed`);
``show``      regenerate one deal (or one hand of a game) and print the four hands, the
              bids, the play trick by trick and the score;
``nil-odds``  how often a given hand makes nil (``spades_sim.odds.nil_odds``), and
              whether nil beats a number bid;
``rules``     the presets and rule fields, with defaults;
``policies``  the built-in bidding, play and draw policies with their parameters.
``report``    a strategy report of a run, or of a duplicate pair of runs, as one
              self-contained HTML file (:mod:`spades_sim.report`; the report extra);
``compare``   play the same deals (games) twice with two policies swapped between the
              sides, into two runs that ``report`` pairs deal by deal.

Contract: the commands parse options, call the API and print. Every user mistake (a bad
option value, an unknown preset, field, policy or parameter, a clash of options, an
existing run without ``--resume``/``--overwrite``, a resume with other settings, a bad
TOML file) ends with exactly one line ``error: ...`` on stderr and a non-zero exit
(2 for a bad command line, 1 otherwise); the package signals those mistakes with
``ValueError`` (``SpadesError`` included), ``FileExistsError`` and ``FileNotFoundError``,
which are mapped here. Anything else is a bug and keeps its traceback. Ctrl-C or SIGTERM
during ``simulate`` keeps every finished part, says so in one line and exits 130 / 143.

>>> from click.testing import CliRunner
>>> result = CliRunner().invoke(cli, ["simulate", "--hands", "10", "--games", "2"])
>>> result.exit_code, result.output.strip()
(2, 'error: give --hands or --games, not both')
"""

from __future__ import annotations

import contextlib
import dataclasses
import signal
import sys
import textwrap
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click
from click.core import ParameterSource

__all__ = ["cli", "main"]

F = TypeVar("F", bound=Callable[..., Any])


# --------------------------------------------------------------------------------------
# One line per mistake
# --------------------------------------------------------------------------------------


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


class _Group(click.Group):
    """A group whose errors are one ``error: ...`` line, in the shell and under CliRunner."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        try:
            code = super().main(
                args, prog_name or "spades-sim", complete_var, standalone_mode=False, **extra
            )
        except click.ClickException as exc:
            click.echo(f"error: {_one_line(exc.format_message())}", err=True)
            sys.exit(exc.exit_code)
        except click.Abort as exc:
            if isinstance(exc.__cause__, KeyboardInterrupt):  # Ctrl-C outside a run
                click.echo("interrupted", err=True)
                sys.exit(128 + signal.SIGINT)
            click.echo("error: aborted", err=True)
            sys.exit(1)
        if standalone_mode:
            sys.exit(code if isinstance(code, int) else 0)
        return code


class UserError(click.ClickException):
    """A mistake in the input that is not about one option (exit status 1)."""

    exit_code = 1


@contextlib.contextmanager
def _user_errors(option: str | None = None) -> Iterator[None]:
    """Turn the package's user-facing exceptions into one-line click errors."""
    try:
        yield
    except click.ClickException:
        raise
    except (ValueError, OSError) as exc:
        # OSError covers the output's permission, disk-full and read-only errors: they
        # are the user's environment, not a bug, so one line, naming the file
        message = _one_line(str(exc)) or type(exc).__name__
        if isinstance(exc, OSError) and exc.strerror and exc.filename:
            message = f"{exc.filename}: {exc.strerror}"
        if option is not None:
            raise click.BadParameter(message, param_hint=f"'{option}'") from None
        raise UserError(message) from None


def _usage(message: str) -> NoReturn:
    raise click.UsageError(message)


# --------------------------------------------------------------------------------------
# The TOML configuration
# --------------------------------------------------------------------------------------

_NOT_IN_CONFIG = {"config"}


def _config_value(key: str, value: Any, where: str) -> Any:
    if key == "assignments":
        if isinstance(value, Mapping):
            return [f"{k}={_toml_text(v)}" for k, v in value.items()]
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return list(value)
        raise UserError(
            f"{where}: 'set' must be a table (set = {{ target = 300 }}) or a list of "
            f'"FIELD=VALUE" strings, got {value!r}'
        )
    if isinstance(value, (dict, list)):
        raise UserError(f"{where}: option {key!r} takes a single value, got {value!r}")
    return value


def _toml_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _load_config(ctx: click.Context, param: click.Parameter, value: Path | None) -> None:
    """Eager ``--config`` callback: the file's values become the command's defaults."""
    if value is None:
        return
    where = click.format_filename(value)
    try:
        data = tomllib.loads(value.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{where}: invalid TOML: {_one_line(str(exc))}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{where}: cannot read it: {_one_line(str(exc))}") from None
    by_key: dict[str, click.Parameter] = {}
    for p in ctx.command.params:
        if p.name is None or p.name in _NOT_IN_CONFIG:
            continue
        for opt in getattr(p, "opts", []):
            if opt.startswith("--"):
                by_key[opt[2:].replace("-", "_")] = p
    defaults: dict[str, Any] = {}
    for raw_key, raw_value in data.items():
        param_ = by_key.get(raw_key.replace("-", "_"))
        if param_ is None or param_.name is None:
            known = ", ".join(sorted(by_key))
            raise UserError(f"{where}: unknown option {raw_key!r} (options: {known})")
        defaults[param_.name] = _config_value(param_.name, raw_value, where)
    ctx.default_map = {**(ctx.default_map or {}), **defaults}


def _from_command_line(ctx: click.Context, name: str) -> bool:
    return ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE, ParameterSource.PROMPT)


def _pick_one(ctx: click.Context, params: dict[str, Any], a: str, b: str, message: str) -> None:
    """If both ``a`` and ``b`` are set, keep the one given on the command line, else refuse."""
    if not (params.get(a) and params.get(b)):
        return
    a_cli, b_cli = _from_command_line(ctx, a), _from_command_line(ctx, b)
    if a_cli == b_cli:
        _usage(message)
    params[b if a_cli else a] = None if not isinstance(params[a], bool) else False


# --------------------------------------------------------------------------------------
# Shared options: rules and policies
# --------------------------------------------------------------------------------------


def _rules_options(func: F) -> F:
    options = [
        click.option(
            "--rules",
            "preset",
            default="standard",
            show_default=True,
            metavar="PRESET",
            help="Named rule set (see `spades-sim rules`).",
        ),
        click.option(
            "--set",
            "assignments",
            multiple=True,
            metavar="FIELD=VALUE",
            help="Change one rule field of the preset; repeat for more.",
        ),
        click.option(
            "--bidding",
            default="count",
            show_default=True,
            metavar="NAME[:p=v,...]",
            help="Bidding policy of every seat (see `spades-sim policies`).",
        ),
        click.option(
            "--play",
            default="heuristic",
            show_default=True,
            metavar="NAME[:p=v,...]",
            help="Play policy of every seat.",
        ),
        click.option("--ns-bidding", metavar="POLICY", help="Bidding policy of N-S only."),
        click.option("--ew-bidding", metavar="POLICY", help="Bidding policy of E-W only."),
        click.option("--ns-play", metavar="POLICY", help="Play policy of N-S only."),
        click.option("--ew-play", metavar="POLICY", help="Play policy of E-W only."),
        click.option(
            "--draw",
            default="threshold",
            show_default=True,
            metavar="NAME[:p=v,...]",
            help="Draw policy (two players).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _assignments(items: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        name, eq, value = str(item).partition("=")
        if not eq or not name.strip():
            raise click.BadParameter(f"expected FIELD=VALUE, got {item!r}", param_hint="'--set'")
        out[name.strip()] = value.strip()
    return out


def _build_spec(
    params: Mapping[str, Any], *, seed: int, mode: str, record_play: bool = False
) -> Any:
    """A RunSpec from the rules and policy options, each mistake naming its option."""
    from spades_sim.policies import parse_policy
    from spades_sim.rules import Rules
    from spades_sim.simulate import RunSpec

    with _user_errors("--rules"):
        rules = Rules.preset(params["preset"])
    fields = _assignments(params["assignments"])
    with _user_errors("--set"):
        rules = rules.with_text(fields)
    policies: dict[str, Any] = {}
    for kind, word in (("bid", "bidding"), ("play", "play")):
        pair = []
        for side in ("ns", "ew"):
            specific = params.get(f"{side}_{word}")
            option = f"--{side}-{word}" if specific else f"--{word}"
            with _user_errors(option):
                pair.append(parse_policy(specific or params[word], kind))  # type: ignore[arg-type]
        policies[word] = tuple(pair)
    with _user_errors("--draw"):
        draw = parse_policy(params["draw"], "draw")
    with _user_errors():
        return RunSpec(
            rules=rules,
            seed=seed,
            bidding=policies["bidding"],
            play=policies["play"],
            draw=draw,
            mode=mode,
            record_play=record_play,
        )


# --------------------------------------------------------------------------------------
# The group
# --------------------------------------------------------------------------------------


@click.group(
    cls=_Group,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(package_name="spades_sim", prog_name="spades-sim")
def cli() -> None:
    """Spades by simulation: millions of hands or whole games to Parquet datasets."""


# --------------------------------------------------------------------------------------
# simulate
# --------------------------------------------------------------------------------------


@cli.command()
@click.option(
    "--config",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    is_eager=True,
    expose_value=False,
    callback=_load_config,
    help="TOML file with any of these options (keys as the option names); flags override it.",
)
@click.option("--hands", type=click.IntRange(min=1), metavar="N", help="Play N independent hands.")
@click.option("--games", type=click.IntRange(min=1), metavar="N", help="Play N whole games.")
@_rules_options
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
    """
    from spades_sim.kernels import announce_compiles
    from spades_sim.run import RunInterrupted, run_dataset

    _pick_one(ctx, params, "hands", "games", "give --hands or --games, not both")
    _pick_one(ctx, params, "resume", "overwrite", "give --resume or --overwrite, not both")
    if not params["hands"] and not params["games"]:
        _usage("say how much to play: --hands N or --games N")
    if params["out"] is None:
        _usage("missing option '--out': the run directory to write")
    mode = "games" if params["games"] else "hands"
    total = params["games"] or params["hands"]
    from_config = (ctx.default_map or {}).get("assignments")
    if from_config and _from_command_line(ctx, "assignments"):  # --set merges field by field
        params["assignments"] = [*from_config, *params["assignments"]]
    spec = _build_spec(params, seed=params["seed"], mode=mode, record_play=params["record_play"])
    import numba

    threads = params["threads"]
    cores: int = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    scheduler = params["scheduler"]
    if scheduler is not None:  # workers check --threads against their own cores
        from spades_sim.distributed import Scheduler, require_dask

        with _user_errors("--scheduler"):
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
        with _user_errors(), announce_compiles(show_bar):  # the wait of a first run, said
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
            )
    except ConnectionError as exc:  # the --scheduler cannot be reached
        raise UserError(_one_line(str(exc))) from None
    except RunInterrupted as stop:
        s = stop.summary
        click.echo(
            f"interrupted: {s.parts} part(s) complete in {s.out} ({s.hands:,} hands); run the "
            "same command with --resume to continue",
            err=True,
        )
        sys.exit(128 + int(stop.signal_number))
    click.echo(summary.format() if fmt == "text" else summary.to_json())


# --------------------------------------------------------------------------------------
# show
# --------------------------------------------------------------------------------------


@cli.command()
@click.option(
    "--run",
    "run_dir",
    type=click.Path(path_type=Path),
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
@_rules_options
@click.pass_context
def show(ctx: click.Context, **params: Any) -> None:
    """Regenerate one deal and print the hands, the bids, the play and the score.

    \b
    Examples:
      spades-sim show --seed 1 --deal 17
      spades-sim show --run runs/first --deal 17
      spades-sim show --run runs/games --game 3 --hand 0
    """
    from spades_sim.io import read_manifest
    from spades_sim.run import spec_from_meta

    deal, game, hand_no = params["deal"], params["game"], params["hand_no"]
    if deal is not None and (game is not None or hand_no is not None):
        _usage("give --deal (hands) or --game/--hand (games), not both")
    if deal is None and game is None:
        _usage("say which deal: --deal I (or --game G --hand H for games)")
    mode = "hands" if deal is not None else "games"
    if params["run_dir"] is not None:
        given = [
            f"--{name.replace('_', '-')}"
            for name in ("seed", "preset", "assignments", "bidding", "play", "draw",
                         "ns_bidding", "ew_bidding", "ns_play", "ew_play")
            if _from_command_line(ctx, name)
        ]  # fmt: skip
        if given:
            flag = given[0].replace("--preset", "--rules").replace("--assignments", "--set")
            _usage(f"{flag} cannot be combined with --run: the run's manifest fixes it")
        with _user_errors():
            meta = read_manifest(params["run_dir"])["meta"]
            spec = spec_from_meta(meta)
        if spec.mode != mode:
            if spec.mode == "games":
                _usage(f"{params['run_dir']} is a games run: use --game G --hand H")
            _usage(f"{params['run_dir']} is a hands run: use --deal I")
        total = meta.get("total")
        index = deal if deal is not None else game
        if isinstance(total, int) and index is not None and index >= total:
            what = "deals" if mode == "hands" else "games"
            raise UserError(f"{params['run_dir']} holds {total} {what} (0..{total - 1})")
    else:
        if params["seed"] is None:
            _usage("missing option '--seed' (or --run DIR)")
        spec = _build_spec(params, seed=params["seed"], mode=mode)
    with _user_errors():
        spec = dataclasses.replace(spec, mode=mode, record_play=True)
        click.echo(render_hand(spec, deal if deal is not None else game, hand_no or 0))


def render_hand(spec: Any, index: int, hand_no: int = 0) -> str:
    """The text ``show`` prints for deal ``index`` (or hand ``hand_no`` of game ``index``).

    >>> from spades_sim.simulate import RunSpec
    >>> text = render_hand(RunSpec.build(seed=1, record_play=True), 0)
    >>> text.splitlines()[0]
    'deal 0 of seed 1 · rules standard · bidding count · play heuristic'
    """
    import numpy as np

    from spades_sim.cards import format_card, format_hand, seat_name
    from spades_sim.run import _policy_text, _rules_text
    from spades_sim.simulate import run_chunk

    chunk = run_chunk(spec, 0, index, 1)
    assert chunk.plays is not None
    players = spec.rules.players
    h, p = chunk.hands, chunk.plays
    if spec.mode == "games":
        n_hands = len(p["hand_no"])
        if hand_no >= n_hands:
            raise UserError(f"game {index} has {n_hands} hands (--hand 0..{n_hands - 1})")
        rows = np.flatnonzero(h["hand_no"] == hand_no)
        slot = int(np.flatnonzero(p["hand_no"] == hand_no)[0])
    else:
        if hand_no:
            _usage("--hand is for games (with --game)")
        rows = np.arange(players)
        slot = 0

    def col(name: str) -> list[int]:
        return [int(v) for v in h[name][rows]]

    names = [seat_name(s, players) for s in range(players)]
    held = col("hand")
    dealt = [int(v) for v in p["dealt"][slot]]
    plays = [int(v) for v in p["plays"][slot]]
    winners = [int(v) for v in p["trick_winners"][slot]]
    dealer = col("dealer")[0]

    def pair(kind: str, pols: tuple[Any, Any]) -> str:
        a, b = (_policy_text(x.to_dict(), x.kind) for x in pols)
        return f"{kind} {a}" if a == b else f"{kind} {a} (N-S) / {b} (E-W)"

    what = (
        f"game {index}, hand {hand_no} of {len(p['hand_no'])}"
        if spec.mode == "games"
        else f"deal {index}"
    )
    lines = [
        f"{what} of seed {spec.seed} · rules {_rules_text(spec.rules.to_dict())} · "
        f"{pair('bidding', spec.bidding)} · {pair('play', spec.play)}",
        f"dealer {names[dealer]}" + (" (drew first)" if players == 2 else ""),
        "hands dealt (PBN: spades.hearts.diamonds.clubs):",
    ]
    lines += [f"  {names[s]}  {format_hand(dealt[s])}" for s in range(players)]
    if held != dealt:
        lines.append("hands held in play (after the blind nil exchange):")
        lines += [f"  {names[s]}  {format_hand(held[s])}" for s in range(players)]
    nil, blind = col("nil"), col("blind_nil")
    bids = col("bid")
    bid_text = [
        "blind nil" if blind[s] else ("nil" if nil[s] else str(bids[s])) for s in range(players)
    ]
    lines.append("bids: " + "  ".join(f"{names[s]} {bid_text[s]}" for s in range(players)))
    lines.append("play (leader first; -> winner):")
    owner = {c: s for s in range(players) for c in range(64) if held[s] >> c & 1}
    for t in range(13):
        cards = plays[t * players : (t + 1) * players]
        seats = [owner.get(c, -1) for c in cards]
        played = "  ".join(
            f"{names[s]} {format_card(c)}" for s, c in zip(seats, cards, strict=True)
        )
        lines.append(f"  {t + 1:2d}  {played}  -> {names[winners[t]]}")
    tricks = col("tricks")
    lines.append("tricks: " + "  ".join(f"{names[s]} {tricks[s]}" for s in range(players)))
    made = col("made")
    nil_made = col("nil_made")
    sides = range(2)
    for side in sides:
        r = [s for s in range(players) if s % 2 == side]
        first = rows[r[0]]
        label = ("N-S", "E-W")[side] if players == 4 else names[side]
        contract = int(h["side_contract"][first])
        outcome = "no contract" if made[r[0]] < 0 else ("made" if made[r[0]] else "set")
        nils = [
            f"{names[s]} {'blind nil' if blind[s] else 'nil'} {'made' if nil_made[s] else 'failed'}"
            for s in r
            if nil_made[s] >= 0
        ]
        text = (
            f"{label}: contract {contract}, tricks {int(h['side_tricks'][first])}, {outcome}"
            + ("; " + ", ".join(nils) if nils else "")
            + f"; score {int(h['score_change'][first]):+d}, bags {int(h['bags_change'][first]):+d}"
        )
        if int(h["bag_penalty"][first]):
            text += f" (bag penalty -{int(h['bag_penalty'][first])})"
        if spec.mode == "games":
            text += (
                f"; total {int(h['score_before'][first])} -> {int(h['score_after'][first])}, "
                f"bags {int(h['bags_before'][first])} -> {int(h['bags_after'][first])}"
            )
        lines.append(text)
    return "\n".join(lines)


# --------------------------------------------------------------------------------------
# nil-odds
# --------------------------------------------------------------------------------------


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


@cli.command("nil-odds")
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
    type=click.IntRange(1, 13),
    metavar="B",
    help="Number bid to compare with nil; repeat [default: the policy's bid and one either side].",
)
@click.option("--dealer", metavar="S", help="Fix the dealer [default: random per completion].")
@_rules_options
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True)
@click.option("--threads", type=click.IntRange(min=1), metavar="T", help="Threads [default: all].")
@click.option("--json", "as_json", is_flag=True, help="Print the answer as one JSON object.")
def nil_odds_command(**params: Any) -> None:
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
    """
    from spades_sim.odds import nil_odds

    spec = _build_spec(params, seed=params["seed"], mode="hands")
    given = _seat_pairs(params["given"], "'--given'")
    require = _requirements(params["require"])
    with _user_errors():
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
        )
    click.echo(odds.to_json() if params["as_json"] else str(odds))


# --------------------------------------------------------------------------------------
# rules, policies
# --------------------------------------------------------------------------------------


@cli.command()
def rules() -> None:
    """List the rule presets and every rule field with its default."""
    import dataclasses

    from spades_sim.rules import FIRST_LEADS, SPADES_LEADS, Rules

    default = Rules()
    lines = ["presets (--rules NAME):"]
    for name, changes in Rules.PRESETS.items():
        text = " ".join(f"{k}={_value_text(v)}" for k, v in changes.items()) or "(the defaults)"
        lines.append(f"  {name:20s} {text}")
    lines.append("")
    lines.append("fields (--set FIELD=VALUE), with their defaults:")
    choices = {"first_lead": FIRST_LEADS, "spades_lead": SPADES_LEADS}
    for f in dataclasses.fields(Rules):
        kind = {"bool": "true/false", "int": "whole number", "int | None": "whole number or off"}
        allowed = " | ".join(choices[f.name]) if f.name in choices else kind.get(str(f.type), "")
        value = _value_text(getattr(default, f.name))
        lines.append(f"  {f.name:30s} {value:16s} {allowed}")
    click.echo("\n".join(lines))


def _value_text(value: Any) -> str:
    if value is None:
        return "off"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@cli.command()
def policies() -> None:
    """List the built-in policies, their parameters (default, range) and sources."""
    from spades_sim.policies import describe

    heads = {
        "bid": "bidding policies (--bidding / --ns-bidding / --ew-bidding NAME[:param=value,...]):",
        "play": "play policies (--play / --ns-play / --ew-play NAME[:param=value,...]):",
        "draw": "draw policies (two players; --draw NAME[:param=value,...]):",
    }
    lines: list[str] = []
    for kind, head in heads.items():
        specs = describe(kind)  # type: ignore[arg-type]
        if not specs:
            continue
        if lines:
            lines.append("")
        lines.append(head)
        for spec in specs:
            lines.append(f"  {spec.name}")
            lines += textwrap.wrap(
                spec.summary, width=92, initial_indent="      ", subsequent_indent="      "
            )
            for prm in spec.params:
                lines.append(
                    f"      {prm.name}={prm.default:g} ({prm.low:g}..{prm.high:g}): {prm.help}"
                )
            lines.append(f"      source: {spec.source}")
    click.echo("\n".join(lines))


# --------------------------------------------------------------------------------------
# analyze
# --------------------------------------------------------------------------------------


@cli.command()
@click.argument(
    "run_dirs", metavar="RUN...", nargs=-1, required=True, type=click.Path(path_type=Path)
)
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
def analyze(run_dirs: tuple[Path, ...], what: str, by_text: str, fmt: str) -> None:
    """Tables with n and 95% intervals from run directories, read part by part.

    Several runs are analysed together: group by policy or rules to tell them apart.

    \b
    Examples:
      spades-sim analyze runs/first
      spades-sim analyze runs/first --what nil --by spades
      spades-sim analyze runs/mercy --what bags --by side,outcome --format csv
      spades-sim analyze runs/first runs/config --what bids --by policy
    """
    from spades_sim.analysis import tables
    from spades_sim.analysis.source import Data, UnknownKey

    by = [name.strip() for name in by_text.split(",") if name.strip()]
    with _user_errors():
        try:
            several: list[Data] = list(run_dirs)
            result = tables.analyze(run_dirs[0] if len(run_dirs) == 1 else several, what, by)
        except UnknownKey as exc:
            message = _one_line(str(exc)).removeprefix("by: ")
            raise click.BadParameter(message, param_hint="'--by'") from None
    if fmt == "csv":
        click.echo(tables.to_csv(result), nl=False)
    elif fmt == "json":
        click.echo(tables.to_json(result))
    else:
        click.echo(tables.to_text(result))


# --------------------------------------------------------------------------------------
# report and compare
# --------------------------------------------------------------------------------------


def _write_report(run_dir: Path, run_b: Path | None, out: Path, title: str | None) -> Path:
    """``spades_sim.report.write`` with its failures as one-line errors."""
    from spades_sim import report as report_module

    try:
        with _user_errors():
            return report_module.write(run_dir, out, run_b, title=title)
    except report_module.ReportUnavailable as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:  # the output cannot be written (a directory, no permission)
        raise UserError(f"cannot write the report to {out}: {exc.strerror or exc}") from None


@cli.command()
@click.argument("run_dir", metavar="RUN", type=click.Path(path_type=Path))
@click.argument("run_b", metavar="[RUN_B]", required=False, type=click.Path(path_type=Path))
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
def report(run_dir: Path, run_b: Path | None, out: Path, title: str | None) -> None:
    """Write a strategy report of RUN, or of the duplicate pair RUN RUN_B, as HTML.

    Nil success by hand shape, bid accuracy, bags and (games runs) win rates, game
    length and endings, every figure with n and 95% intervals. With RUN_B, the two runs
    must be the two seatings of one duplicate match (`spades-sim compare` makes them):
    same seed, rules and size, the sides' policies swapped; the report then pairs them
    deal by deal. Needs the report extra (matplotlib).

    \b
    Examples:
      spades-sim report runs/first --out first.html
      spades-sim compare count pagat --games 2000 --out runs/cmp
      spades-sim report runs/cmp/a-ns runs/cmp/a-ew --out count-vs-pagat.html
    """
    path = _write_report(run_dir, run_b, out, title)
    click.echo(f"wrote {path} ({path.stat().st_size / 1024:,.0f} KB)")


@cli.command()
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
@_rules_options
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
    from spades_sim.policies import parse_policy
    from spades_sim.report.runs import compare_runs
    from spades_sim.report.words import margin_sentence, narrowing_sentence, win_sentence
    from spades_sim.run import RunInterrupted, run_dataset

    _pick_one(ctx, params, "hands", "games", "give --hands or --games, not both")
    _pick_one(ctx, params, "resume", "overwrite", "give --resume or --overwrite, not both")
    if not params["hands"] and not params["games"]:
        _usage("say how much to play: --hands N or --games N")
    word = "bidding" if params["kind"] == "bid" else "play"
    if any(params[f"{side}_{kind}"] for side in ("ns", "ew") for kind in ("bidding", "play")):
        _usage("compare seats A and B itself: give no --ns-*/--ew-* policy options")
    for name, text in (("A", policy_a), ("B", policy_b)):
        with _user_errors(name):
            parse_policy(text, params["kind"])
    mode = "games" if params["games"] else "hands"
    total = params["games"] or params["hands"]
    out: Path = params["out"]
    runs = {"a-ns": (policy_a, policy_b), "a-ew": (policy_b, policy_a)}
    show_bar = sys.stderr.isatty()
    for name, (ns, ew) in runs.items():
        spec = _build_spec(
            {**params, f"ns_{word}": ns, f"ew_{word}": ew}, seed=params["seed"], mode=mode
        )
        try:
            with _user_errors():
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
    with _user_errors():
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
        path = _write_report(out / "a-ns", out / "a-ew", params["report_path"], None)
        lines.append(f"wrote {path}")
    click.echo("\n".join(lines))


def main() -> None:
    """Console-script entry point (``spades-sim``)."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `spades-sim rules | head`: no traceback
    cli.main(prog_name="spades-sim")
