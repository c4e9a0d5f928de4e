"""``threads.StopCells``: each worker thread its own row, and no block handed out once stopped.

The end-to-end stop of a ``pimc`` run is ``tests/test_pimc_stop.py`` (slow); this holds
the thread pool's part of it with a kernel of three lines.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from spades_sim.threads import StopCells, kernel_threads, run_blocks


@njit(nogil=True)
def count_blocks_nb(first, end, cell, seen):  # type: ignore[no-untyped-def]
    """Marks its blocks in ``seen`` and counts them in its worker's row (slot 0)."""
    for b in range(first, end):
        seen[b] += 1
        cell[0] += 1


def test_each_worker_counts_in_its_own_row() -> None:
    cells = StopCells(np.zeros((2, 2), dtype=np.int64), 1)
    seen = np.zeros(40, dtype=np.int64)
    with kernel_threads(2):
        run_blocks(count_blocks_nb, 40, cells, seen)
    assert (seen == 1).all() and cells.rows[:, 0].sum() == 40
    assert not cells.stopped


@pytest.mark.parametrize("threads", [1, 2])
def test_once_stopped_no_block_is_handed_out_and_the_call_raises(threads: int) -> None:
    cells = StopCells(np.zeros((2, 2), dtype=np.int64), 1)
    cells.stop()
    seen = np.zeros(40, dtype=np.int64)
    with kernel_threads(threads), pytest.raises(KeyboardInterrupt):
        run_blocks(count_blocks_nb, 40, cells, seen)
    if threads > 1:  # one thread makes one call, whose kernel is told by its row
        assert not seen.any()
    assert (cells.rows[:, 1] == 1).all()


def test_too_few_rows_for_the_threads_is_refused() -> None:
    cells = StopCells(np.zeros((1, 2), dtype=np.int64), 1)
    with kernel_threads(2), pytest.raises(ValueError, match="a row for each of 2"):
        run_blocks(count_blocks_nb, 40, cells, np.zeros(40, dtype=np.int64))
