"""Ctrl-C stops the solver within a second and keeps what it finished.

The kernels poll an abort flag every few thousand nodes (``spades_sim._nb.dd.S_ABORT``);
``spades_sim.solve.solver.abortable`` sets it when the calling thread sees Ctrl-C. Each
test sends SIGINT to its own process in the middle of a solve that takes minutes (a
nil of the benchmark's set whose loss needs a long forcing line) and times the stop.
"""

from __future__ import annotations

import signal
import time

import numpy as np
import pandas as pd
import pytest
from signals import Signal

from spades_sim import Rules
from spades_sim._nb import dd
from spades_sim.run.dd_solve import dd_table, partial_name
from spades_sim.solve import Position, nil_safe
from spades_sim.solve.batch import nil_table
from spades_sim.threads import kernel_threads

# nil of W (seat 3), N on lead: lost, but the proof took 107 s before this solver's
# nil work, and still takes seconds
SLOW = [150979090616320, 1695584916999170, 2339795108176533, 317240511578472]
# one suit a seat: solved at once
SUITS = [0x1FFF << (13 * s) for s in range(4)]


def test_ctrl_c_stops_a_slow_nil_solve_within_a_second() -> None:
    nil_safe(Position.start(SUITS, dealer=3), 3)  # compiled before the clock
    pos = Position.start(SLOW, dealer=3)
    with Signal(signal.SIGINT, 1.0) as stop, pytest.raises(KeyboardInterrupt):
        nil_safe(pos, 3)
    assert time.perf_counter() - stop.sent < 1.0
    # the flag is cleared for the next call (W, holding only spades, must ruff N's lead)
    assert nil_safe(Position.start(SUITS, dealer=3), 0) is True


def test_ctrl_c_stops_nil_table_within_a_second() -> None:
    masks = np.array([SUITS, SLOW], dtype=np.uint64)
    leaders = np.array([0, 0])
    nil_table(masks[:1], leaders[:1], 3, rules=Rules())  # compiled before the clock
    with Signal(signal.SIGINT, 1.0) as stop, pytest.raises(KeyboardInterrupt), kernel_threads(2):
        nil_table(masks, leaders, 3, rules=Rules())
    assert time.perf_counter() - stop.sent < 1.0


def test_ctrl_c_stops_dd_table_within_a_second_keeping_solved_deals(tmp_path) -> None:
    out = tmp_path / "table"
    deals = np.array([SUITS, SLOW], dtype=np.uint64)
    dd_table(deals[:1], [3], out=tmp_path / "warm")  # compiled before the clock
    with Signal(signal.SIGINT, 3.0) as stop, pytest.raises(KeyboardInterrupt), kernel_threads(1):
        dd_table(deals, [3, 3], out=out)
    assert time.perf_counter() - stop.sent < 1.0
    kept = partial_name(out / "part-00000.parquet")
    assert pd.read_parquet(kept)["deal"].tolist() == [0]


def test_an_aborted_kernel_returns_at_once() -> None:
    stats = np.zeros(dd.STATS, dtype=np.int64)
    keys, data = dd.new_table(10)
    hands = np.array(SLOW, dtype=np.uint64)
    stats[dd.S_ABORT] = 1
    none = np.int64(-1)
    value = dd.dd_value_nb(
        hands, np.int64(4), np.int64(0), np.int64(0), none, none, none, np.uint64(0),
        False, True, np.int64(0), keys, data, none, stats,
    )  # fmt: skip
    assert value == -1
    assert stats[dd.S_NODES] == 0 and not data.any()
