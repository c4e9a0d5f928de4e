"""Doctests that draw figures need matplotlib (the ``report`` extra): skip them, saying
why, where it is not installed, so ``pip install -e '.[test]'`` alone still runs the rest.

Under pytest-xdist, each worker of a whole tier starts by compiling its share of the
kernels nearly every test calls (:func:`_warm_up_calls`), so that on a cold cache the
workers compile them side by side, each once, instead of both compiling the first one a
test needs at the same time (Numba's on-disk cache hands each worker the other's share).
Tests that share a generated module of user-written policies, or kernels only they call,
carry an ``xdist_group`` mark (the groups are listed in tests/test_groups.py), so that
under ``--dist loadgroup`` (the README's test command) one worker compiles them once for
all of them.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import Callable
from typing import Any

import pytest

DRAWING_MODULES = ("spades_sim/report/figures.py", "spades_sim/report/__init__.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if importlib.util.find_spec("matplotlib") is not None:
        return
    skip = pytest.mark.skip(
        reason="matplotlib is not installed: pip install -e '.[test,report]' to run it"
    )
    for item in items:
        path = str(item.path).replace("\\", "/")
        if type(item).__name__ == "DoctestItem" and path.endswith(DRAWING_MODULES):
            item.add_marker(skip)


def _warm_up_calls() -> list[tuple[float, Callable[..., object], dict[str, Any]]]:
    """Tiny runs, each compiling one entry point: (its cold compile, CPU seconds alone on
    the 2-core development machine; the run; its arguments)."""
    # imported here: only xdist workers warm up
    from spades_sim import Rules, nil_odds, simulate_games, simulate_hands

    two = Rules.preset("two-player")
    mixed = {"ns": "random", "ew": "heuristic"}
    random = {"play": "random"}
    # each compiles the entry point named: hands_nb, games_nb, play_deals_nb, then
    # hands_{heuristic,random}_lockstep{_count,,_two}_nb
    return [
        (35, simulate_hands, {"n": 2, "play": mixed}),
        (35, simulate_games, {"n": 1}),
        (30, nil_odds, {"hand": "Q73.J52.T84.9632", "n": 64}),
        (19, simulate_hands, {"n": 64}),
        (16, simulate_hands, {"n": 64, "bidding": "pagat"}),
        (15, simulate_hands, {"n": 64, "rules": two}),
        (10, simulate_hands, {"n": 64, **random}),
        (13, simulate_hands, {"n": 64, "bidding": "pagat", **random}),
        (13, simulate_hands, {"n": 64, "rules": two, **random}),
    ]


WARM_UP_FILES = 10
"""A worker warms up only when the run collected tests of this many files at least (a
tier, not a few targeted files, whose run may need none of these kernels)."""


def pytest_collection_finish(session: pytest.Session) -> None:
    """An xdist worker compiles (or loads) its share of :func:`_warm_up_calls`: the
    longest first, each to the worker with the least so far."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if not worker.startswith("gw") or count < 2:
        return
    if len({item.path for item in session.items}) < WARM_UP_FILES:
        return
    from spades_sim.threads import watch_compiles  # only xdist workers warm up

    calls = sorted(_warm_up_calls(), key=lambda c: -c[0])
    loads = [0.0] * count
    mine = int(worker.removeprefix("gw"))
    with watch_compiles():  # no compile notice on the worker's stderr
        for seconds, run, kwargs in calls:
            to = loads.index(min(loads))
            loads[to] += seconds
            if to == mine:
                # a failure here is the failure of every test that calls the kernel: they
                # report it themselves, with their own names
                with contextlib.suppress(Exception):
                    run(seed=1, **kwargs)
