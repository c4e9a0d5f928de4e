"""The lock-step entry points, generated from the table of policies: the checked-in
``_nb/lockstep_entries.py`` is what ``spades_sim.lockstep_source`` writes for the table
as it is, and every play policy with lock-step lanes gets its entry points, their
aggregate twins, its code in nil odds and the kernel selection's choice of them. Nothing
here compiles a kernel (the rows they give are ``test_engine.py``'s)."""

from __future__ import annotations

import subprocess
import sys

from spades_sim._nb import lockstep_entries
from spades_sim._nb import odds as odds_nb
from spades_sim.lockstep_source import TARGET, ident, source
from spades_sim.policy_table import names_with, spec_of
from spades_sim.rules import Rules
from spades_sim.run.select import select_kernel
from spades_sim.run.spec import RunSpec
from spades_sim.threads import kernel_name


def test_the_checked_in_module_is_what_the_table_generates() -> None:
    # regenerate with ``python -m spades_sim.lockstep_source``
    assert TARGET.read_text() == source(), "run python -m spades_sim.lockstep_source"
    check = [sys.executable, "-m", "spades_sim.lockstep_source", "--check"]
    done = subprocess.run(check, capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "up to date" in done.stdout


def test_every_lane_player_has_its_entry_points_and_the_selection_takes_them() -> None:
    players = names_with("play", "lanes")
    assert players == lockstep_entries.LANE_PLAYERS
    for k, name in enumerate(players):
        n = ident(name)
        assert odds_nb.PLAY_CODES[name] == k + 1
        assert callable(getattr(lockstep_entries, f"{n}_lanes_nb"))
        # a side off its defaults (if any): the entries on the general play
        play = f"{name}:{_off_default(name)}" if _off_default(name) else name
        cases = {
            "count": RunSpec.build(seed=0, play=play),
            "four": RunSpec.build(seed=0, play=play, bidding="pagat"),
            "two": RunSpec.build(seed=0, play=play, rules=Rules.preset("two-player")),
        }
        for variant, spec in cases.items():
            rows, counts = lockstep_entries.ENTRIES[(name, variant)]
            assert select_kernel(spec).entry is rows, (name, variant)
            assert select_kernel(spec, "counts").entry is counts, (name, variant)
            assert kernel_name(counts) == f"aggregate_hands_{n}{_suffix(variant)}_nb"
            assert kernel_name(rows) == f"hands_{n}_lockstep{_suffix(variant)}_nb"
        odds = select_kernel(RunSpec.build(seed=0, play=name, bidding="pagat"), "nil_odds")
        assert odds.variant == odds_nb.PLAY_CODES[name] | odds_nb.BIDS_LOCKSTEP
    assert len(players) <= odds_nb.PLAY_MODES and odds_nb.BIDS_LOCKSTEP > odds_nb.PLAY_MODES
    # the heuristic's copy at its defaults: the default run's kernel
    default = lockstep_entries.ENTRIES[("heuristic", "defaults_count")][0]
    assert select_kernel(RunSpec.build(seed=0)).entry is default


def _suffix(variant: str) -> str:
    return "" if variant == "four" else f"_{variant}"


def _off_default(name: str) -> str:
    """A parameter setting of ``name`` other than its defaults (empty: it has none)."""
    params = spec_of("play", name).params
    if not params:
        return ""
    p = params[0]
    other = p.low if p.default != p.low else p.high
    return f"{p.name}={other:g}"
