"""The README and the documentation pages say what the code does: the schema page's tables
are the code's columns, their command lines, options and quoted outputs are the CLI's,
and the README's examples run, in order, in a fresh directory."""

from __future__ import annotations

import ast
import re
import shlex
import tomllib
import unicodedata
from collections.abc import Callable
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from spades_sim.cli import cli
from spades_sim.schema import DD_COLUMNS, GAME_COLUMNS, HAND_COLUMNS, PLAY_COLUMNS, markdown_table

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
PAGES = {"README.md": README} | {
    f"docs/{p.name}": p.read_text() for p in sorted((ROOT / "docs").glob("*.md"))
}
"""The README and every page of the documentation site, by path."""
ALL = "\n".join(PAGES.values())


def test_no_file_keeps_a_merge_conflict() -> None:
    # a conflict resolved by hand can leave its markers in prose, where no other test
    # would notice them
    roots = [ROOT / "CHANGELOG.md", ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    for folder in ("spades_sim", "tests", "benchmarks", "analyses"):
        roots += (ROOT / folder).rglob("*.py")
    marker = re.compile(r"^(<{7} |>{7} |={7}$)", re.M)
    for path in roots:
        if ".openspiel-venv" in path.parts:
            continue
        found = marker.search(path.read_text())
        assert found is None, f"{path.relative_to(ROOT)} keeps a merge conflict marker"


def test_every_page_is_in_the_site_nav() -> None:
    nav = (ROOT / "mkdocs.yml").read_text()
    for name in PAGES:
        if name.startswith("docs/"):
            assert f": {name.removeprefix('docs/')}" in nav, f"{name} is not in mkdocs.yml's nav"


@pytest.mark.parametrize(
    "columns",
    [HAND_COLUMNS, GAME_COLUMNS, PLAY_COLUMNS, DD_COLUMNS],
    ids=["hands", "games", "plays", "dd"],
)
def test_schema_page_tables_are_the_code_columns(columns: tuple) -> None:
    page = PAGES["docs/schema.md"]
    section = page[page.index("<!-- schema:start -->") : page.index("<!-- schema:end -->")]
    assert markdown_table(columns) in section


# --------------------------------------------------------------------------------------
# Every relative link resolves: the file, and the heading its #anchor names
# --------------------------------------------------------------------------------------


def _mkdocs_slug(heading: str) -> str:
    """The id mkdocs gives a heading (Python-Markdown's ``toc.slugify``: ASCII only, every
    character but word characters, spaces and hyphens dropped, runs of spaces and
    hyphens one hyphen)."""
    text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _github_slug(heading: str) -> str:
    """The id GitHub gives a heading, where the README is read: lower case, punctuation
    dropped, each space a hyphen (runs of hyphens kept)."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def _headings(text: str) -> list[str]:
    """The text of every Markdown heading of a page, as rendered (code spans and links
    by their text), leaving out the comment lines of fenced code blocks."""
    prose = re.sub(r"^```.*?^```$", "", text, flags=re.S | re.M)
    found = []
    for m in re.finditer(r"^#{1,6} +(.+?) *#* *$", prose, flags=re.M):
        heading = re.sub(r"`([^`]*)`", r"\1", m.group(1))
        found.append(re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading))
    return found


def _anchors(text: str, slug: Callable[[str], str], repeat: str) -> set[str]:
    """The anchors of a page's headings; a heading's id already taken gets ``repeat`` and
    a count (mkdocs ``_1``, GitHub ``-1``)."""
    ids: set[str] = set()
    for heading in _headings(text):
        base = slug(heading)
        found, count = base, 0
        while found in ids or not found:
            count += 1
            found = f"{base}{repeat}{count}"
        ids.add(found)
    return ids


def _relative_links(text: str) -> list[str]:
    """The target of every Markdown link and image of a page outside code (blocks and
    spans) that is not a URL."""
    prose = re.sub(r"^```.*?^```$", "", text, flags=re.S | re.M)
    prose = re.sub(r"`[^`\n]*`", "", prose)
    targets = re.findall(r"\]\(([^)\s]+)\)", prose)
    return [t for t in targets if not re.match(r"[a-z]+:", t)]


def test_anchor_ids_are_those_mkdocs_and_github_make() -> None:
    # ids as the two renderers wrote them for headings of these pages
    assert _mkdocs_slug("Against perfect play: the cost of --dd") == (
        "against-perfect-play-the-cost-of-dd"
    )
    assert _github_slug("Against perfect play: the cost of --dd") == (
        "against-perfect-play-the-cost-of---dd"
    )
    heading = "`pimc` with `lookahead`'s first tricks (`solve_from`)"
    (text,) = _headings(f"## {heading}\n")
    assert _mkdocs_slug(text) == "pimc-with-lookaheads-first-tricks-solve_from"
    assert _anchors("# A\n## A\n```\n# A\n```\n## A\n", _mkdocs_slug, "_") == {"a", "a_1", "a_2"}


def test_every_relative_link_resolves() -> None:
    """Every link of the README and the docs pages to a file names one that exists, and
    every ``#anchor`` a heading of its page: as mkdocs makes the ids for the site, and for
    the README's links, read on GitHub, as GitHub makes them too."""
    checked = 0
    for name, text in PAGES.items():
        here = (ROOT / name).parent
        for target in _relative_links(text):
            path, _, anchor = target.partition("#")
            file = (here / path).resolve() if path else ROOT / name
            assert file.exists(), f"{name}: the link to {target} names no file"
            checked += 1
            if not anchor:
                continue
            assert file.suffix == ".md", f"{name}: {target}: an anchor in a file not Markdown"
            page = file.read_text()
            assert anchor in _anchors(page, _mkdocs_slug, "_"), (
                f"{name}: {target}: no heading of {file.name} has that anchor (mkdocs)"
            )
            if name == "README.md":
                assert anchor in _anchors(page, _github_slug, "-"), (
                    f"{name}: {target}: no heading of {file.name} has that anchor (GitHub)"
                )
    assert checked >= 40


# --------------------------------------------------------------------------------------
# The README's command lines are the CLI's
# --------------------------------------------------------------------------------------


def _blocks(kinds: tuple[str, ...], text: str = ALL) -> list[str]:
    """The text of every fenced block of ``text`` (all pages) in one of these languages."""
    return [
        m.group(2)
        for m in re.finditer(r"^```(\w+)\n(.*?)^```$", text, flags=re.S | re.M)
        if m.group(1) in kinds
    ]


def _readme_commands(text: str = ALL) -> list[tuple[list[str], list[str]]]:
    """Each ``spades-sim`` command line of the shell blocks of ``text``, as its words after
    ``spades-sim`` (up to a pipe or a redirection), with the output lines quoted under it."""
    found = []
    for block in _blocks(("console", "bash"), text):
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
PAGE_COMMANDS = {name: _readme_commands(text) for name, text in PAGES.items()}


def _command(name: str) -> click.Command:
    assert isinstance(cli, click.Group)
    command = cli.commands.get(name)
    assert command is not None, f"the docs run `spades-sim {name}`, which does not exist"
    return command


def _options(command: click.Command) -> dict[str, click.Parameter]:
    return {opt: p for p in command.params for opt in (*p.opts, *p.secondary_opts)}


def test_readme_command_lines_use_real_commands_and_options() -> None:
    assert len(COMMANDS) >= 20  # the pages show the CLI at work
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
    prose = re.sub(r"^```.*?^```$", "", ALL, flags=re.S | re.M)
    assert isinstance(cli, click.Group)
    for name in re.findall(r"`spades-sim ([a-z-]+)", prose):
        _command(name)
    every = {opt for command in cli.commands.values() for opt in _options(command)}
    scripts = "".join(
        p.read_text() for folder in ("benchmarks", "analyses") for p in (ROOT / folder).glob("*.py")
    )
    for option in set(re.findall(r"`(--[a-z][a-z0-9-]*)", ALL)):
        assert option in every or f'"{option}"' in scripts, f"{option}: no command has it"


def test_readme_config_file_keys_are_simulate_options() -> None:
    (toml_block,) = _blocks(("toml",))
    options = _options(_command("simulate"))
    for key in tomllib.loads(toml_block):
        assert f"--{key.replace('_', '-')}" in options, f"run.toml: no option --{key}"


def test_readme_rules_listing_is_the_commands_output() -> None:
    (words, quoted), *_ = [(w, out) for w, out in COMMANDS if w == ["rules"]]
    line = next(line for line in ALL.splitlines() if line.startswith("$ spades-sim rules"))
    head = int(re.search(r"head -(\d+)", line).group(1)) if "head" in line else None  # type: ignore[union-attr]
    result = CliRunner().invoke(cli, words)
    assert result.exit_code == 0
    real = result.output.splitlines()[:head]
    while real and not real[-1]:  # a blank last line does not show at the end of a block
        real.pop()
    assert quoted == real


def test_quoted_error_lines_are_the_commands_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every quoted ``error:`` line is exactly what its command prints. Each page's
    ``simulate`` commands are replayed in order in an empty directory of its own with the
    computing of parts refused, so the runs they open are there for the errors that need
    one (an existing run, a resume with another seed)."""

    class WouldRun(Exception):
        pass

    def refuse(*args: object, **kwargs: object) -> None:
        raise WouldRun

    monkeypatch.setattr("spades_sim.run.sinks.compute_part", refuse)
    # aggregate runs compute elsewhere: refused too (a hundred million hands otherwise)
    monkeypatch.setattr("spades_sim.run.sinks.aggregate_chunk", refuse)
    # a run whose first part fails is undone; these stand for runs that were computed
    monkeypatch.setattr(
        "spades_sim.dataset.rundir.RunDirectory.abandon_if_unused", lambda self: False
    )
    examples = [(w, out[0]) for w, out in COMMANDS if len(out) == 1 and out[0].startswith("error:")]
    checked = 0
    for page, commands in PAGE_COMMANDS.items():
        here = tmp_path / page.replace("/", "_")
        here.mkdir()
        monkeypatch.chdir(here)
        for words, quoted in commands:
            is_error = len(quoted) == 1 and quoted[0].startswith("error: ")
            if not is_error and (words[0] != "simulate" or "--scheduler" in words):
                continue  # only local runs open a run directory for the errors after them
            result = CliRunner().invoke(cli, words)
            if is_error:
                assert result.exit_code != 0, (page, words)
                assert result.output.splitlines()[-1] == quoted[0], (page, words)
                checked += 1
    assert checked == len(examples) >= 4


# --------------------------------------------------------------------------------------
# The README's examples run, top to bottom, in a fresh directory
# --------------------------------------------------------------------------------------


def _smaller_words(words: list[str]) -> list[str] | None:
    """A page's ``spades-sim`` command made small enough to test (None: leave it out):
    at most 20,000 hands, 300 games, 200 ladder deals or 2,000 nil-odds completions, run
    here rather than on a cluster (``--scheduler`` dropped); a command writing to an
    absolute path (a cluster's shared filesystem) is left out."""
    out: list[str] = []
    caps = {"--hands": 20_000, "--games": 300, "--deals": 200, "-n": 2_000}
    skip = False
    for k, word in enumerate(words):
        if skip:
            skip = False
            continue
        if word == "--scheduler":
            skip = True
            continue
        if word == "--out" and words[k + 1].startswith("/"):
            return None
        if k and words[k - 1] in caps and word.isdigit():
            word = str(min(int(word), caps[words[k - 1]]))
        out.append(word)
    if out[0] == "nil-odds" and "-n" not in out:
        out += ["-n", "2000"]
    return out


def _smaller_python(block: str) -> str:
    """A page's Python block with every size of 100,000 or more made 10,000."""
    return re.sub(
        r"\b\d{1,3}(?:_\d{3})+\b",
        lambda m: "10_000" if int(m.group(0).replace("_", "")) >= 100_000 else m.group(0),
        block,
    )


@pytest.fixture(scope="module")
def setup_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run the README's set-up command makes (``runs/first``), small."""
    root = tmp_path_factory.mktemp("setup")
    result = CliRunner().invoke(
        cli, ["simulate", "--hands", "20000", "--seed", "1", "--out", str(root / "runs/first")]
    )
    assert result.exit_code == 0, result.output
    return root / "runs" / "first"


RUNNABLE = [
    "docs/advise.md",
    "docs/analyses.md",
    "docs/cli.md",
    "docs/cluster.md",
    "docs/rules.md",
]


NOT_RUN = {
    "README.md": "run by test_readme_examples_run_in_order_in_a_fresh_directory",
    "docs/index.md": "the README's set-up commands, run with the README",
    "docs/throughput.md": "benchmark scripts only (minutes each)",
    "docs/schema.md": "its joins on a solved RUN: run against load in tests/test_dd_columns.py",
    "docs/measurements.md": "measurements: each names the benchmark that regenerates it",
    "docs/serve.md": "it starts a server: the page is driven in a browser by tests/test_serve.py",
}


def test_every_page_with_examples_is_run() -> None:
    for name, text in PAGES.items():
        if _blocks(("python", "console", "bash"), text):
            assert name in RUNNABLE or name in SLOW_PAGES or name in NOT_RUN, name


SLOW_PAGES = [
    "docs/reports.md",
    "docs/policies.md",
    "docs/solver.md",
    "docs/win-table.md",
    "docs/nil-odds.md",
    "docs/env.md",
]
"""Pages whose examples take minutes: three reports; user policies compiled afresh; whole
deals solved double-dummy; a win table built from 2,000 games; nil odds over 100,000
completions and against perfect defence (fifty nil solves); a trained player's kernels
compiled afresh."""


PAGE_GROUPS = {"docs/env.md": "linear_player"}
"""Pages run on the worker of the tests that compile the same generated module
(``xdist_group``): the linear player's, here and in tests/test_env.py."""


def _page_marks(page: str) -> list[pytest.MarkDecorator]:
    marks = [pytest.mark.slow] if page in SLOW_PAGES else []
    if page in PAGE_GROUPS:
        marks.append(pytest.mark.xdist_group(PAGE_GROUPS[page]))
    return marks


@pytest.mark.parametrize(
    "page", [pytest.param(p, marks=_page_marks(p)) for p in (*RUNNABLE, *SLOW_PAGES)]
)
def test_page_examples_run_in_order_in_a_fresh_directory(
    page: str, setup_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page's examples, in its order, in an empty directory holding only the set-up's
    ``runs/first``: its ``spades-sim`` commands made small (:func:`_smaller_words`;
    commands quoted with an ``error:`` line are held to it by the test above), its TOML
    blocks and Python modules (a block opening with ``# NAME.py``) written to the file
    their first comment names, and its other Python blocks (:func:`_smaller_python`).
    No example may need a run that only a later one makes, or make a run an earlier one
    (or the set-up) made."""
    import shutil

    if page == "docs/reports.md":
        pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # the modules a page writes import
    shutil.copytree(setup_run, tmp_path / "runs" / "first")
    namespace: dict[str, object] = {}
    ran = 0
    for m in re.finditer(r"^```(\w+)\n(.*?)^```$", PAGES[page], flags=re.S | re.M):
        kind, block = m.group(1), m.group(2)
        if kind == "toml":
            name = re.match(r"# (\S+\.toml)", block)
            assert name, "a TOML block names its file in its first comment"
            (tmp_path / name.group(1)).write_text(block)
        elif kind in ("console", "bash"):
            for words, quoted in _readme_commands(f"```{kind}\n{block}```\n"):
                if len(quoted) == 1 and quoted[0].startswith("error: "):
                    continue
                small = _smaller_words(words)
                if small is None:
                    continue
                result = CliRunner().invoke(cli, small)
                assert result.exit_code == 0, (page, small, result.output)
                ran += 1
        elif kind == "python" and (module := re.match(r"# (\w+\.py)\n", block)):
            (tmp_path / module.group(1)).write_text(block)  # a module the page writes
        elif kind == "python":
            for source, raises in _statements(_smaller_python(block)):
                code = compile(source, page, "exec")
                if raises is None:
                    exec(code, namespace)
                else:
                    with pytest.raises(Exception) as caught:
                        exec(code, namespace)
                    assert type(caught.value).__name__ == raises, source
                ran += 1
    assert ran >= 2


SMALLER = {"--hands 1000000": "--hands 20000", "100_000": "10_000"}
"""Sizes the test substitutes in the README's commands and Python blocks to stay fast
(the examples after them only read what the runs and frames hold; the quoted outputs are
held to the code elsewhere)."""


def _statements(block: str) -> list[tuple[str, str | None]]:
    """The top-level statements of a Python block, each with the exception it is shown
    raising (a ``# Name: ...`` comment on the line after it), if any."""
    lines = block.splitlines()
    out = []
    for node in ast.parse(block).body:
        assert node.end_lineno is not None
        source = "\n".join(lines[node.lineno - 1 : node.end_lineno])
        after = lines[node.end_lineno] if node.end_lineno < len(lines) else ""
        shown = re.match(r"# (\w+(?:Error|Play|Exception)): ", after.strip())
        out.append((source, shown.group(1) if shown else None))
    return out


def test_readme_examples_run_in_order_in_a_fresh_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's ``bash`` commands (their ``spades-sim`` parts; installing and the test
    command are left out, and :data:`SMALLER` sizes substituted) and its ``python``
    blocks, run in the README's order in an empty directory: no example may need a run
    that only a later one makes, nor reuse a run directory an earlier one made."""
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    ran = 0
    for m in re.finditer(r"^```(\w+)\n(.*?)^```$", README, flags=re.S | re.M):
        kind, block = m.group(1), m.group(2)
        if kind == "bash":
            for line in block.replace("\\\n", " ").splitlines():
                for small, smaller in SMALLER.items():
                    line = line.replace(small, smaller)
                for piece in line.split("&&"):
                    words = shlex.split(piece, comments=True)
                    if not words or not words[0].endswith("spades-sim"):
                        continue  # the venv, pip and pytest: what the test runs in already
                    result = CliRunner().invoke(cli, words[1:])
                    assert result.exit_code == 0, (words, result.output)
                    ran += 1
        elif kind == "python":
            for small, smaller in SMALLER.items():
                block = block.replace(small, smaller)
            for source, raises in _statements(block):
                code = compile(source, "README.md", "exec")
                if raises is None:
                    exec(code, namespace)
                else:
                    with pytest.raises(Exception) as caught:
                        exec(code, namespace)
                    assert type(caught.value).__name__ == raises, source
                ran += 1
    assert ran >= 7  # the set-up run and the three first steps
