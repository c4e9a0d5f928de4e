"""Shared fixtures: rule presets and small helpers for comparing the engines."""

from __future__ import annotations

import pytest

from spades_sim.rules import Rules

PRESETS = tuple(Rules.PRESETS)


@pytest.fixture(params=PRESETS)
def preset_rules(request: pytest.FixtureRequest) -> Rules:
    """Each named preset of docs/rules.md ("Presets") in turn."""
    return Rules.preset(request.param)
