"""The table variants beyond the rule sheets, end to end: each variant preset simulates
hands and games from the command line, counts in aggregate mode exactly what its rows
say, gives the same rows whatever the thread count, and its simulated hands replay
through the reference engine (a small sample here; ``-m slow`` a large one).

The hand-worked examples of each variant, through both engines, are in
``tests/test_presets.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from test_aggregate import assert_same_analyses
from test_engine import WILD_BIDDING, check_games_against_reference, check_hands_against_reference

from spades_sim import Rules, simulate_games, simulate_hands
from spades_sim.cli import cli
from spades_sim.dataset import load, load_games

VARIANTS = ("ten-for-200",)
"""The presets of the table variants (their rules: docs/rules.md)."""


def _ok(*args: str | Path) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("preset", VARIANTS)
def test_cli_hands_and_games(tmp_path: Path, preset: str) -> None:
    common = ("--rules", preset, "--seed", "3", "--quiet", "--out")
    hands = json.loads(_ok("simulate", "--hands", "300", *common, tmp_path / "h"))
    assert hands["hands"] == 300
    assert len(load(tmp_path / "h", columns=["bid"])) == 300 * 4
    games = json.loads(_ok("simulate", "--games", "5", *common, tmp_path / "g"))
    assert games["games"] == 5 and len(load_games(tmp_path / "g")) == 5


@pytest.mark.parametrize("preset", VARIANTS)
def test_aggregate_counts_what_the_rows_say(preset: str) -> None:
    rules = Rules.preset(preset)
    kwargs = {"seed": 8, "rules": rules, "bidding": "count", "play": "random"}
    rows = simulate_hands(1500, **kwargs)  # type: ignore[arg-type]
    agg = simulate_hands(1500, aggregate=("spades", "side_contract"), **kwargs)  # type: ignore[arg-type]
    for keys in ([], ["spades"], ["side_contract"], ["bid"], ["nil", "blind_nil"]):
        assert_same_analyses(rows, agg, keys)


@pytest.mark.parametrize("preset", VARIANTS)
def test_same_rows_whatever_the_threads(preset: str) -> None:
    rules = Rules.preset(preset, max_hands=30)
    kwargs = {"seed": 5, "rules": rules, "bidding": WILD_BIDDING}
    one = simulate_hands(3000, threads=1, chunk_size=3000, play="random", **kwargs)  # type: ignore[arg-type]
    two = simulate_hands(3000, threads=2, chunk_size=700, play="random", **kwargs)  # type: ignore[arg-type]
    pd.testing.assert_frame_equal(one, two)
    games_one = simulate_games(20, threads=1, chunk_size=20, **kwargs)  # type: ignore[arg-type]
    games_two = simulate_games(20, threads=2, chunk_size=3, **kwargs)  # type: ignore[arg-type]
    for a, b in zip(games_one, games_two, strict=True):
        pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("preset", VARIANTS)
def test_kernel_matches_reference_on_variant_hands(preset: str) -> None:
    rules = Rules.preset(preset)
    check_hands_against_reference(rules, 150, seed=14, bidding=WILD_BIDDING)
    check_hands_against_reference(rules, 100, seed=15, bidding="count")
    check_games_against_reference(rules.replace(max_hands=30), 4, seed=16, bidding="count")


@pytest.mark.slow
@pytest.mark.parametrize("preset", VARIANTS)
def test_kernel_matches_reference_on_many_variant_hands(preset: str) -> None:
    rules = Rules.preset(preset)
    check_hands_against_reference(rules, 20_000, seed=114, bidding=WILD_BIDDING)
    check_hands_against_reference(rules, 10_000, seed=115, bidding="count")
    check_games_against_reference(rules, 300, seed=116, bidding="count")
