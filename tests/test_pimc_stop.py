"""Ctrl-C and SIGTERM stop a ``pimc`` run within about a second and keep what it finished.

A ``pimc`` decision searches for seconds to minutes inside the play kernels. The run
layer hands each thread a rule array with a stop cell (``_nb.enums.SEARCH_CELL``) that
those searches use as their counters and poll (``run.chunks.stop_cells``); a signal sets
it, the chunk in flight is dropped and a resume computes it again. The tests send the
signal to their own process in the middle of a decision that takes tens of seconds.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from signals import Signal

from spades_sim import simulate_hands
from spades_sim._nb.dd import S_ABORT, S_NODES
from spades_sim._nb.enums import N_OUT_I8, N_OUT_I32, SEARCH_CELL
from spades_sim.dataset import load, read_manifest
from spades_sim.run import RunInterrupted, RunSpec, run_dataset
from spades_sim.run.chunks import stop_cells
from spades_sim.run.select import user_policy_kernels

# a cold cache compiles the pimc kernels (about three minutes), on one worker for all
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("pimc_module")]

# 256 worlds a decision from the first card: the first decision alone takes seconds to
# tens of seconds (a world's opening search tens of milliseconds); the bids not read, so
# that its time is the searches' (drawing worlds that fit the bids is not polled)
SLOW = "pimc:worlds=256,early_worlds=0,solve_from=0,read_bids=0"
# 6 worlds a decision from the first card: a hand takes a second or more
MID = "pimc:worlds=6,early_worlds=0,solve_from=0"
# never solves (lookahead throughout): compiles the same module at a fraction of a second
CHEAP = "pimc:worlds=1,solve_from=13"


def warm() -> None:
    """Compile (or load) the generated module of a pimc run before any clock starts."""
    simulate_hands(1, seed=1, play=CHEAP, threads=1)


def test_ctrl_c_stops_a_slow_pimc_decision_within_a_second() -> None:
    # deal 0 of seed 5 has no nil bid: pimc solves its first decisions (a live nil would
    # hand them to the heuristic). A games run takes the same stop; it is not timed
    # here, as its entry point would be one more compile of minutes on a cold cache.
    warm()
    with Signal(signal.SIGINT, 1.0) as sig, pytest.raises(KeyboardInterrupt):
        simulate_hands(2, seed=5, play=SLOW, threads=1)
    stopped = time.perf_counter() - sig.sent
    assert stopped < 2.0, f"stopped {stopped:.1f} s after the signal"


def test_sigterm_keeps_finished_parts_and_a_resume_gives_the_uninterrupted_rows(
    tmp_path: Path,
) -> None:
    warm()
    spec = RunSpec.build(seed=7, play=MID)
    out = tmp_path / "stopped"
    first_part = out / "part-00000.parquet"
    # the second hand (part) is in its first decisions when the signal comes
    stop = Signal(signal.SIGTERM, 0.2, when=first_part.exists)
    with stop as sig, pytest.raises(RunInterrupted) as info:
        run_dataset(spec, 2, out, chunk_size=1, threads=1)
    assert time.perf_counter() - sig.sent < 2.0
    assert info.value.signal_number == signal.SIGTERM
    kept = read_manifest(out)
    assert set(kept["parts"]) == {"00000"} and kept["complete"] is False
    assert sorted(p.name for p in out.glob("part-*.parquet")) == ["part-00000.parquet"]
    resumed = run_dataset(spec, 2, out, chunk_size=1, resume=True, threads=2)
    assert resumed.parts_skipped == 1 and resumed.complete
    one_go = simulate_hands(2, seed=7, play=MID, threads=1)
    rows = load(out).sort_values(["deal", "seat"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(rows[one_go.columns], one_go.reset_index(drop=True))


def kernel_call(spec: RunSpec, rules: np.ndarray, n: int) -> dict[str, np.ndarray]:
    """The generated module's ``hands_nb`` on deals ``0 .. n-1`` with the rule array
    ``rules`` (a stop cell's row, or the plain rules), its outputs."""
    players = spec.rules.players
    out = {
        "hand": np.zeros(n * players, dtype=np.uint64),
        "i8": np.zeros((N_OUT_I8, n * players), dtype=np.int8),
        "i32": np.zeros((N_OUT_I32, n * players), dtype=np.int32),
        "errors": np.zeros(n, dtype=np.int8),
    }
    none8 = np.zeros((0, 52), dtype=np.int8)
    user_policy_kernels(spec).hands_nb(
        np.int64(0), np.int64(1), rules, np.int64(spec.seed), np.int64(0), np.int64(n),
        spec.params(), out["hand"], out["i8"], out["i32"], out["errors"],
        np.zeros(0, dtype=np.uint64), none8, np.zeros((0, 13), dtype=np.int8),
    )  # fmt: skip
    return out


def test_the_searches_count_in_the_threads_cell_and_the_rows_are_the_same() -> None:
    warm()
    spec = RunSpec.build(seed=3, play="pimc:worlds=1")
    cells = stop_cells(spec.rules.lower(), 1)
    with_cell = kernel_call(spec, cells.rows[0], 2)
    assert cells.rows[0, SEARCH_CELL + S_NODES] > 0  # the last decision's searches
    assert not cells.stopped
    plain = kernel_call(spec, spec.rules.lower(), 2)
    for name, values in plain.items():
        np.testing.assert_array_equal(with_cell[name], values, err_msg=name)


def test_a_stopped_cell_plays_no_hand() -> None:
    warm()
    spec = RunSpec.build(seed=3, play=SLOW)
    cells = stop_cells(spec.rules.lower(), 1)
    cells.stop()
    out = kernel_call(spec, cells.rows[0], 2)
    assert not out["hand"].any()  # nothing dealt: every hand skipped
    assert cells.rows[0, SEARCH_CELL + S_ABORT] == 1
