"""Doctests that draw figures need matplotlib (the ``report`` extra): skip them, saying
why, where it is not installed, so ``pip install -e '.[test]'`` alone still runs the rest.

Under pytest-xdist, each worker of a whole tier starts by compiling its share of the
kernels nearly every test calls (:func:`_warm_up_units`), so that on a cold cache the
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


def _warm_up_units() -> list[tuple[float, list[tuple[Callable[..., object], dict[str, Any]]]]]:
    """Tiny runs, each compiling one entry point, in units: (the unit's cold compile, CPU
    seconds on the 2-core development machine; its runs, in order). A unit's entry
    points share kernels that are not inlined (``run_hand_nb`` under ``hands_nb`` and
    ``games_nb``, the lock-step bidder of both ``pagat`` runs, the two-player draw), so
    one worker compiles a unit: split over the two workers, the shared kernels were
    compiled on both at once (about 60 s of a cold fast tier's 518 s of compile CPU)."""
    # imported here: only xdist workers warm up
    from spades_sim import Rules, nil_odds, simulate_games, simulate_hands

    two = Rules.preset("two-player")
    mixed = {"ns": "random", "ew": "heuristic"}
    random = {"play": "random"}
    pagat = {"bidding": "pagat"}
    return [
        # hands_nb (through run_hand_nb), then games_nb on the same run_hand_nb
        (85, [(simulate_hands, {"n": 2, "play": mixed}), (simulate_games, {"n": 1})]),
        (52, [(nil_odds, {"hand": "Q73.J52.T84.9632", "n": 64})]),  # play_deals_nb
        # hands_heuristic_defaults_lockstep_count_nb, then the two with bid_lanes_four_nb:
        # hands_heuristic_defaults_lockstep_nb and hands_random_lockstep_nb
        (
            40,
            [
                (simulate_hands, {"n": 64}),
                (simulate_hands, {"n": 64, **pagat}),
                (simulate_hands, {"n": 64, **pagat, **random}),
            ],
        ),
        # hands_heuristic_lockstep_two_nb, hands_random_lockstep_two_nb
        (
            11,
            [
                (simulate_hands, {"n": 64, "rules": two}),
                (simulate_hands, {"n": 64, "rules": two, **random}),
            ],
        ),
        (7, [(simulate_hands, {"n": 64, **random})]),  # hands_random_lockstep_count_nb
    ]


WARM_UP_FILES = 10
"""A worker warms up only when the run collected tests of this many files at least (a
tier, not a few targeted files, whose run may need none of these kernels)."""


def pytest_collection_finish(session: pytest.Session) -> None:
    """An xdist worker compiles (or loads) its share of :func:`_warm_up_units`: the
    longest unit first, each to the worker with the least so far."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if not worker.startswith("gw") or count < 2:
        return
    if len({item.path for item in session.items}) < WARM_UP_FILES:
        return
    from spades_sim.threads import watch_compiles  # only xdist workers warm up

    units = sorted(_warm_up_units(), key=lambda u: -u[0])
    loads = [0.0] * count
    mine = int(worker.removeprefix("gw"))
    with watch_compiles():  # no compile notice on the worker's stderr
        for seconds, runs in units:
            to = loads.index(min(loads))
            loads[to] += seconds
            if to != mine:
                continue
            for run, kwargs in runs:
                # a failure here is the failure of every test that calls the kernel: they
                # report it themselves, with their own names
                with contextlib.suppress(Exception):
                    run(seed=1, **kwargs)
