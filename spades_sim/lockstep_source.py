"""The source of ``_nb/lockstep_entries.py``: the lock-step entry points, from the table.

Contract. :func:`source` returns the text of the checked-in kernel module
``spades_sim/_nb/lockstep_entries.py``, written from the table of policies: for every
play policy with lock-step lanes (``policy_table.names_with("play", "lanes")``, in id
order) its rows entry points (``hands_NAME_lockstep_nb`` for four players,
``..._count_nb`` for four whose sides bid only ``count`` or ``random``, ``..._two_nb``
for two), their aggregate twins (``aggregate_hands_NAME_nb``, ...), its play in the
signature of the user modules' batch kernels (``NAME_lanes_nb``), the lane play by code
of ``odds.play_deals_nb`` (``play_lanes_code_nb``: code k + 1 the k-th lane player) and
``ENTRIES``, the (rows, counts) pair of each (policy, variant) that ``run/select.py``
looks up. Each policy's lane play is ``loop.play_NAME_lanes_nb(st, rules, params)``
(NAME with ``_`` for ``-``); a policy whose loop also has ``play_NAME_defaults_lanes_nb``
(a copy with its registry defaults as constants, four players) and
``play_NAME_general_lanes_nb`` (the other copy, any parameters) gets the two entry points
``hands_NAME_defaults_lockstep_nb`` and ``..._count_nb`` on that copy, and its other
entry points take ``play_NAME_general_lanes_nb``, so each entry compiles one copy.

A module, not closures made by a factory: Numba caches a module-level kernel on disk,
which it does not reliably do for closures. ``python -m spades_sim.lockstep_source``
rewrites the file; ``tests/test_lockstep_entries.py`` holds the checked-in file to
:func:`source`, as ``docs/policies.md`` is held to ``policies.markdown()``.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from spades_sim._nb import loop
from spades_sim.policy_table import names_with

TARGET = Path(__file__).resolve().parent / "_nb" / "lockstep_entries.py"

ROWS_ARGS = (
    "first, end, rules, seed, deal_start, n, params, out_hand, out_i8, out_i32, out_errors,\n"
    "    rec_dealt, rec_plays, rec_winners,"
)
COUNTS_ARGS = "rules, seed, deal_start, n, params, keys, seat_t, side_t, status"

# (variant, entry name suffix, prepare, finish, for whom)
VARIANTS = (
    ("four", "", "prepare_lanes_four_nb", "finish_lanes_four_nb", "four players"),
    (
        "count",
        "_count",
        "prepare_lanes_count_four_nb",
        "finish_lanes_four_nb",
        "four players whose sides bid only ``count`` or ``random`` (fewer bidders compile)",
    ),
    ("two", "_two", "prepare_lanes_two_nb", "finish_lanes_two_nb", "two players"),
)
DEFAULTS_VARIANTS = {"four": "defaults", "count": "defaults_count"}

HEADER = '''"""The lock-step entry points of the play policies with lock-step lanes: generated.

Do not edit: ``python -m spades_sim.lockstep_source`` writes this file from the table of
policies (``spades_sim.lockstep_source`` says what it holds and why it is a module);
``tests/test_lockstep_entries.py`` fails when it differs from what the generator writes.
Each rows entry point runs a range of blocks of ``LANES`` deals serially and without the
GIL (``loop.lockstep_blocks_nb``: deal and bids, the lane play of both sides, scoring and
rows; the same rows as ``loop.hands_nb``), each counts entry point a range of deals into
count tables (``aggregate.aggregate_hands_with_nb``).
"""
'''


def ident(name: str) -> str:
    """A policy name as kernel names spell it (``-`` as ``_``)."""
    return name.replace("-", "_")


def copies(name: str) -> bool:
    """Whether the policy's lane play has a copy at its registry defaults in ``loop``
    (``play_NAME_defaults_lanes_nb``, with ``play_NAME_general_lanes_nb`` for the rest)."""
    n = ident(name)
    return all(hasattr(loop, f"play_{n}_{copy}_lanes_nb") for copy in ("defaults", "general"))


def entries(name: str) -> list[tuple[str, str, str, str, str, str, str]]:
    """Every (variant, rows entry, counts entry, prepare, play, finish, for whom) of a
    lane player."""
    n = ident(name)
    general = f"play_{n}_general_lanes_nb" if copies(name) else f"play_{n}_lanes_nb"
    out = []
    for variant, suffix, prepare, finish, whom in VARIANTS:
        rows, counts = f"hands_{n}_lockstep{suffix}_nb", f"aggregate_hands_{n}{suffix}_nb"
        out.append((variant, rows, counts, prepare, general, finish, whom))
    for variant, suffix, prepare, finish, whom in VARIANTS:
        if copies(name) and variant in DEFAULTS_VARIANTS:
            rows = f"hands_{n}_defaults_lockstep{suffix}_nb"
            counts = f"aggregate_hands_{n}_defaults{suffix}_nb"
            play = f"play_{n}_defaults_lanes_nb"
            whom += ", both sides at the registry defaults (the copy with them as constants)"
            out.append((DEFAULTS_VARIANTS[variant], rows, counts, prepare, play, finish, whom))
    return out


def _lines(text: str, indent: int) -> list[str]:
    """``text`` wrapped to the line length at ``indent`` spaces."""
    pad = " " * indent
    return textwrap.wrap(text, width=100, initial_indent=pad, subsequent_indent=pad)


def _entry_points(name: str, variant: tuple[str, ...]) -> list[str]:
    _, rows, counts, prepare, play, finish, whom = variant
    rows_call = f"first, end, rules, seed, deal_start, n, params, {prepare}, {play}, {finish}, "
    return [
        "",
        "",
        "@njit(cache=True, nogil=True)",
        f"def {rows}(",
        f"    {ROWS_ARGS}",
        "):  # fmt: skip",
        *_lines(f'"""Rows: both sides play ``{name}``, {whom}."""', 4),
        "    lockstep_blocks_nb(",
        *_lines(rows_call + "out_hand, out_i8, out_i32, out_errors,", 8),
        "    )  # fmt: skip",
        "",
        "",
        "@njit(cache=True, nogil=True)",
        f"def {counts}(",
        f"    {COUNTS_ARGS},",
        "):  # fmt: skip",
        f'    """Counts: through ``{rows}``."""',
        "    aggregate_hands_with_nb(",
        *_lines(f"{rows}, {COUNTS_ARGS},", 8),
        "    )  # fmt: skip",
    ]


def source() -> str:
    """The text of ``_nb/lockstep_entries.py`` for the table as it is now."""
    players = names_with("play", "lanes")
    plays = ["finish_lanes_four_nb", "finish_lanes_two_nb", "lockstep_blocks_nb"]
    for name in players:
        plays += sorted({e[4] for e in entries(name)} | {f"play_{ident(name)}_lanes_nb"})
    lines = [
        HEADER,
        "from numba import njit",
        "",
        "from spades_sim._nb.aggregate import aggregate_hands_with_nb",
        "from spades_sim._nb.loop import (",
        *(f"    {x}," for x in sorted(plays)),
        ")",
        "from spades_sim._nb.prepare import (",
        "    prepare_lanes_count_four_nb,",
        "    prepare_lanes_four_nb,",
        "    prepare_lanes_two_nb,",
        ")",
        "",
        "LANE_PLAYERS = (",
        *(f'    "{p}",' for p in players),
        ")",
        '"""The play policies with lock-step lanes, in id order: the k-th plays for code k + 1',
        '(``play_lanes_code_nb``; ``odds.play_deals_nb``\'s ``mode``)."""',
    ]
    table = []
    for name in players:
        n = ident(name)
        for variant in entries(name):
            lines += _entry_points(name, variant)
            table += [f'    ("{name}", "{variant[0]}"): (', f"        {variant[1]},"]
            table += [f"        {variant[2]},", "    ),"]
        lines += [
            "",
            "",
            '@njit(inline="always", cache=True)',
            f"def {n}_lanes_nb(st, rules, params, infos, masks, lo, hi, out_errors):",
            f'    """``loop.play_{n}_lanes_nb`` as the play of ``loop.lane_blocks_with_nb``."""',
            f"    play_{n}_lanes_nb(st, rules, params)",
        ]
    lines += [
        "",
        "",
        '@njit(inline="always", cache=True)',
        "def play_lanes_code_nb(st, rules, params, code):",
        '    """The 13 tricks of every lane, both sides the lane player of ``code``."""',
    ]
    for k, name in enumerate(players):
        lines += [
            f"    {'if' if k == 0 else 'elif'} code == {k + 1}:",
            f"        play_{ident(name)}_lanes_nb(st, rules, params)",
        ]
    lines += [
        "",
        "",
        "ENTRIES = {",
        *table,
        "}",
        '"""The (rows, counts) entry points by (policy, variant): ``four``, ``count``, ``two``',
        'and, for a policy with a copy at its defaults, ``defaults`` and ``defaults_count``."""',
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    """Write ``_nb/lockstep_entries.py`` (``--check``: exit 1 if it differs instead)."""
    text = source()
    if "--check" in sys.argv[1:]:
        same = TARGET.exists() and TARGET.read_text() == text
        print(f"{TARGET}: {'up to date' if same else 'differs from the table'}")
        raise SystemExit(0 if same else 1)
    TARGET.write_text(text)
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    main()
