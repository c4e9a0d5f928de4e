"""The README says what the code does: its schema tables are the code's columns, and its
command lines, options and quoted outputs are the CLI's."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from spades_sim.cli import cli
from spades_sim.schema import GAME_COLUMNS, HAND_COLUMNS, PLAY_COLUMNS, markdown_table

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


@pytest.mark.parametrize(
    "columns", [HAND_COLUMNS, GAME_COLUMNS, PLAY_COLUMNS], ids=["hands", "games", "plays"]
)
def test_readme_schema_tables_are_the_code_columns(columns: tuple) -> None:
    section = README[README.index("<!-- schema:start -->") : README.index("<!-- schema:end -->")]
    assert markdown_table(columns) in section


# --------------------------------------------------------------------------------------
# The README's command lines are the CLI's
# --------------------------------------------------------------------------------------


def _blocks(kinds: tuple[str, ...]) -> list[str]:
    """The text of every fenced block of the README in one of these languages."""
    return [
        m.group(2)
        for m in re.finditer(r"^```(\w+)\n(.*?)^```$", README, flags=re.S | re.M)
        if m.group(1) in kinds
    ]


def _readme_commands() -> list[tuple[list[str], list[str]]]:
    """Each ``spades-sim`` command line of the README's shell blocks, as its words after
    ``spades-sim`` (up to a pipe or a redirection), with the output lines quoted under it."""
    found = []
    for block in _blocks(("console", "bash")):
        lines = block.replace("\\\n", " ").splitlines()
        for i, line in enumerate(lines):
            text = line.removeprefix("$ ")
            for piece in text.split("&&"):
                words = shlex.split(piece, comments=True)
                while words and not words[0].endswith("spades-sim"):
                    words = words[1:]
                if not words:
                    continue
                cut = [k for k, w in enumerate(words) if w in ("|", ">", ">>", "2>", "&")]
                output = []
                if line.startswith("$ "):
                    for after in lines[i + 1 :]:
                        if after.startswith("$ "):
                            break
                        output.append(after)
                found.append((words[1 : cut[0] if cut else None], output))
    return found


COMMANDS = _readme_commands()


def _command(name: str) -> click.Command:
    assert isinstance(cli, click.Group)
    command = cli.commands.get(name)
    assert command is not None, f"the README runs `spades-sim {name}`, which does not exist"
    return command


def _options(command: click.Command) -> dict[str, click.Parameter]:
    return {opt: p for p in command.params for opt in (*p.opts, *p.secondary_opts)}


def test_readme_command_lines_use_real_commands_and_options() -> None:
    assert len(COMMANDS) >= 20  # the README shows the CLI at work
    for words, _ in COMMANDS:
        command = _command(words[0])
        options = _options(command)
        for k, word in enumerate(words[1:], start=1):
            if not word.startswith("-") or word == "-":
                continue
            name, eq, value = word.partition("=")
            assert name in options, f"`spades-sim {words[0]}` has no option {name}"
            param = options[name]
            if isinstance(param.type, click.Choice):  # a value the command accepts
                given = value if eq else words[k + 1]
                assert given in param.type.choices, f"{name} {given}: not one of its choices"


def test_readme_mentions_only_real_commands_and_options() -> None:
    prose = re.sub(r"^```.*?^```$", "", README, flags=re.S | re.M)
    assert isinstance(cli, click.Group)
    for name in re.findall(r"`spades-sim ([a-z-]+)", prose):
        _command(name)
    every = {opt for command in cli.commands.values() for opt in _options(command)}
    scripts = "".join(
        p.read_text() for folder in ("benchmarks", "analyses") for p in (ROOT / folder).glob("*.py")
    )
    for option in set(re.findall(r"`(--[a-z][a-z0-9-]*)", README)):
        assert option in every or f'"{option}"' in scripts, f"{option}: no command has it"


def test_readme_config_file_keys_are_simulate_options() -> None:
    (toml_block,) = _blocks(("toml",))
    options = _options(_command("simulate"))
    for key in tomllib.loads(toml_block):
        assert f"--{key.replace('_', '-')}" in options, f"run.toml: no option --{key}"


def test_readme_rules_listing_is_the_commands_output() -> None:
    (words, quoted), *_ = [(w, out) for w, out in COMMANDS if w == ["rules"]]
    line = next(line for line in README.splitlines() if line.startswith("$ spades-sim rules"))
    head = int(re.search(r"head -(\d+)", line).group(1)) if "head" in line else None  # type: ignore[union-attr]
    result = CliRunner().invoke(cli, words)
    assert result.exit_code == 0
    real = result.output.splitlines()[:head]
    while real and not real[-1]:  # a blank last line does not show at the end of a block
        real.pop()
    assert quoted == real


def test_readme_error_lines_are_the_commands_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every quoted ``error:`` line is exactly what its command prints. The README's
    ``simulate`` commands are replayed in order in an empty directory with the computing
    of parts refused, so the runs they open are there for the errors that need one (an
    existing run, a resume with another seed)."""

    class WouldRun(Exception):
        pass

    def refuse(*args: object, **kwargs: object) -> None:
        raise WouldRun

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("spades_sim.run.sinks.compute_part", refuse)
    examples = [(w, out[0]) for w, out in COMMANDS if len(out) == 1 and out[0].startswith("error:")]
    checked = 0
    for words, quoted in COMMANDS:
        is_error = len(quoted) == 1 and quoted[0].startswith("error: ")
        if not is_error and (words[0] != "simulate" or "--scheduler" in words):
            continue  # only local runs open a run directory for the errors after them
        result = CliRunner().invoke(cli, words)
        if is_error:
            assert result.exit_code != 0, words
            assert result.output.splitlines()[-1] == quoted[0], words
            checked += 1
    assert checked == len(examples) >= 4
