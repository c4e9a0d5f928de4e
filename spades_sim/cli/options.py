"""The options several commands share: the TOML configuration, rules and policies.

Contract
--------
:func:`load_config` is the eager ``--config`` callback: the TOML file's keys (the option
names) become the command's defaults, so flags on the command line override them; an
unknown key, a bad value or a bad file is one :class:`~.errors.CommandError` (exit 2).
:func:`rules_options` adds ``--rules``, ``--set``, ``--bidding``, ``--play``, the
per-side ``--ns-*``/``--ew-*`` policies and ``--draw`` to a command (``rule_set_options``
the first two alone), :func:`rules_from_options` turns the first two into rules and
:func:`build_spec` all of them into a :class:`~spades_sim.run.spec.RunSpec`, each
mistake naming its option. :func:`pick_one` settles two options that exclude each other.
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from spades_sim.cli.failures import CommandError, one_line, usage, user_errors

__all__ = [
    "assignments",
    "build_spec",
    "from_command_line",
    "load_config",
    "pick_one",
    "rules_options",
    "stderr_is_terminal",
]

F = TypeVar("F", bound=Callable[..., Any])

_NOT_IN_CONFIG = {"config"}


def _config_value(param: click.Parameter, raw_key: str, value: Any, where: str) -> Any:
    key = param.name
    # click turns 100.5 into 100 and takes 1e6: a TOML number must be what the command
    # line would take, a whole number written as one (text goes to click, which names it)
    if isinstance(param.type, click.types.IntParamType) and isinstance(value, (bool, float)):
        raise click.BadParameter(
            f"{value!r} is not a whole number", param_hint=f"'{raw_key}' in {where}"
        )
    if key == "assignments":
        if isinstance(value, Mapping):
            return [f"{k}={_toml_text(v)}" for k, v in value.items()]
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return list(value)
        raise CommandError(
            f"{where}: 'set' must be a table (set = {{ target = 300 }}) or a list of "
            f'"FIELD=VALUE" strings, got {value!r}'
        )
    if isinstance(value, (dict, list)):
        raise CommandError(f"{where}: option {key!r} takes a single value, got {value!r}")
    return value


def _toml_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def load_config(ctx: click.Context, param: click.Parameter, value: Path | None) -> None:
    """Eager ``--config`` callback: the file's values become the command's defaults."""
    if value is None:
        return
    where = click.format_filename(value)
    try:
        data = tomllib.loads(value.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise CommandError(f"{where}: invalid TOML: {one_line(str(exc))}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"{where}: cannot read it: {one_line(str(exc))}") from None
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
            raise CommandError(f"{where}: unknown option {raw_key!r} (options: {known})")
        defaults[param_.name] = _config_value(param_, raw_key, raw_value, where)
    ctx.default_map = {**(ctx.default_map or {}), **defaults}


def stderr_is_terminal() -> bool:
    """Whether stderr is a terminal: progress bars are shown there and nowhere else."""
    return sys.stderr.isatty()


def from_command_line(ctx: click.Context, name: str) -> bool:
    return ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE, ParameterSource.PROMPT)


def pick_one(ctx: click.Context, params: dict[str, Any], a: str, b: str, message: str) -> None:
    """If both ``a`` and ``b`` are set, keep the one given on the command line, else refuse."""
    if not (params.get(a) and params.get(b)):
        return
    a_cli, b_cli = from_command_line(ctx, a), from_command_line(ctx, b)
    if a_cli == b_cli:
        usage(message)
    params[b if a_cli else a] = None if not isinstance(params[a], bool) else False


# --------------------------------------------------------------------------------------
# Shared options: rules and policies
# --------------------------------------------------------------------------------------


_RULE_SET_OPTIONS = (
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
)


def rule_set_options(func: F) -> F:
    """``--rules`` and ``--set`` alone (``rules_from_options`` reads them)."""
    for option in reversed(_RULE_SET_OPTIONS):
        func = option(func)
    return func


def rules_from_options(preset: str, items: Sequence[str]) -> Any:
    """The rules of ``--rules PRESET`` changed by each ``--set FIELD=VALUE``, a mistake
    naming its option."""
    # imported when a command runs: `spades-sim --help` loads no kernels
    from spades_sim.rules import Rules

    with user_errors("--rules"):
        rules = Rules.preset(preset)
    fields = assignments(items)
    with user_errors("--set"):
        return rules.with_text(fields)


def rules_options(func: F) -> F:
    options = [
        *_RULE_SET_OPTIONS,
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


def assignments(items: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        name, eq, value = str(item).partition("=")
        if not eq or not name.strip():
            raise click.BadParameter(f"expected FIELD=VALUE, got {item!r}", param_hint="'--set'")
        out[name.strip()] = value.strip()
    return out


def build_spec(
    params: Mapping[str, Any], *, seed: int, mode: str, record_play: bool = False
) -> Any:
    """A RunSpec from the rules and policy options, each mistake naming its option."""
    # imported when a command runs: `spades-sim --help` loads no kernels
    from spades_sim.policies import parse_policy
    from spades_sim.run.spec import RunSpec

    rules = rules_from_options(params["preset"], params["assignments"])
    policies: dict[str, Any] = {}
    for kind, word in (("bid", "bidding"), ("play", "play")):
        pair = []
        for side in ("ns", "ew"):
            specific = params.get(f"{side}_{word}")
            option = f"--{side}-{word}" if specific else f"--{word}"
            with user_errors(option):
                pair.append(parse_policy(specific or params[word], kind))  # type: ignore[arg-type]
        policies[word] = tuple(pair)
    with user_errors("--draw"):
        draw = parse_policy(params["draw"], "draw")
    with user_errors(as_usage=True):
        return RunSpec(
            rules=rules,
            seed=seed,
            bidding=policies["bidding"],
            play=policies["play"],
            draw=draw,
            mode=mode,
            record_play=record_play,
        )
