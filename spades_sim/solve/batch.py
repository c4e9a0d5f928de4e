"""Double-dummy verdicts of many deals at once, on the thread pool (no files).

Contract
--------
``nil_table(hands, leaders, seat, rules=...)`` gives one verdict a deal, the nil of
``seat`` from each deal's opening position (hands as play begins, after any exchange),
on the thread pool (:mod:`spades_sim.threads`), each free thread taking the next deal with
its own table: what ``nil_odds(..., defense="double-dummy")`` asks of the completions it
plays. :func:`solve_deals` solves each deal's tricks per side
and every seat's nil from the opening lead, one deal a task, each thread with its own
fixed-size transposition table (:func:`new_tables`, ``2**table_bits`` slots), marking
each deal as it lands so that Ctrl-C loses only the deals in flight; the run layer's
``spades_sim.run.dd_solve.dd_table`` keeps them as resumable Parquet parts.
:func:`check_deals` refuses a misdeal naming the deal; :func:`opening_leaders` is who
leads each deal's first trick.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tqdm import tqdm

from spades_sim._nb import dd
from spades_sim.cards import check_deal
from spades_sim.errors import SpadesError
from spades_sim.rules import FirstLead, Rules
from spades_sim.solve.solver import DEFAULT_TABLE_BITS, abortable, play_rules, seat_nil_mask
from spades_sim.threads import current_threads, ensure_compiled, run_tasks

__all__ = ["check_deals", "new_tables", "nil_table", "opening_leaders", "solve_deals"]


def opening_leaders(hands: np.ndarray, dealers: np.ndarray, rules: Rules) -> np.ndarray:
    """The seat that leads the first trick of each deal (``hands`` deals x players)."""
    players = rules.players
    leaders = (dealers + 1) % 4 if players == 4 else 1 - dealers
    if rules.first_lead is FirstLead.TWO_OF_CLUBS:
        leaders = np.argmax((hands & np.uint64(1)) != 0, axis=1)
    return leaders.astype(np.int64)


def check_deals(hands: np.ndarray, rules: Rules) -> None:
    """Refuse a misdeal among ``hands`` (deals x players masks), naming the deal."""
    for d in range(hands.shape[0]):
        try:
            check_deal(
                [int(h) for h in hands[d]],
                players=rules.players,
                jokers=rules.jokers,
                deuces_high=rules.deuces_high,
            )
        except SpadesError as error:
            raise SpadesError(f"deal {d}: {error}") from None


def new_tables(stripes: int, table_bits: int) -> tuple[np.ndarray, np.ndarray]:
    """``stripes`` empty transposition tables of ``2**table_bits`` slots (keys, data)."""
    size = 1 << table_bits
    return (
        np.zeros((stripes, dd.KEY_WORDS, size), dtype=np.uint64),
        np.zeros((stripes, size), dtype=np.int64),
    )


def nil_table(
    hands: Any,
    leaders: Sequence[int] | np.ndarray,
    seat: int,
    *,
    rules: Rules,
    table_bits: int = DEFAULT_TABLE_BITS,
) -> np.ndarray:
    """Whether the nil of ``seat`` (an index) is safe in each deal from its opening
    position, ``leaders[d]`` to lead the first trick, every card seen (in cutthroat the
    seat alone against the other three): a bool array.

    ``hands`` is ``deals x players`` masks as play begins (after any exchange); each deal
    is checked as :func:`check_deals` checks them."""
    players = rules.players
    masks = np.asarray(hands, dtype=np.uint64)
    if masks.ndim != 2 or masks.shape[1] != players:
        raise SpadesError(f"hands: expected an array of deals x {players} hand masks")
    lead = np.asarray(leaders, dtype=np.int64)
    if lead.shape != (masks.shape[0],) or np.any((lead < 0) | (lead >= players)):
        raise SpadesError(f"leaders: expected one seat 0..{players - 1} per deal")
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)):
        raise SpadesError(f"seat: expected a seat index, got {seat!r}")
    if not 0 <= seat < players:
        raise SpadesError(f"seat: must be 0..{players - 1}, got {seat}")
    check_deals(masks, rules)
    n = masks.shape[0]
    safe = np.zeros(n, dtype=np.int64)
    if n == 0:
        return safe.astype(bool)
    full = np.zeros((n, 4), dtype=np.uint64)
    full[:, :players] = masks
    workers = max(1, min(current_threads(), n))
    keys, data = new_tables(workers, table_bits)
    stats = np.zeros((workers, dd.STATS), dtype=np.int64)
    nil_masks = np.full(n, seat_nil_mask(int(seat), rules), dtype=np.int64)
    rule_bits = play_rules(rules, nil=True)
    lead = np.ascontiguousarray(lead)

    def args(worker: int, d: int) -> tuple[Any, ...]:
        w = slice(worker, worker + 1)
        one = slice(d, d + 1)
        # one deal a call, on the worker's own table: C-contiguous slices, so the kernel
        # compiled for whole arrays serves them
        return (
            np.int64(0), np.int64(1), np.int64(1), full[one], lead[one], nil_masks[one],
            np.int64(players), rule_bits, keys[w], data[w], safe[one], stats[w],
        )  # fmt: skip

    ensure_compiled(dd.nil_table_nb, args(0, 0))

    def task(worker: int, d: int) -> None:
        dd.nil_table_nb(*args(worker, d))
        if stats[worker, dd.S_ABORT]:
            raise KeyboardInterrupt  # this deal is unsolved; hand out no more

    # the deals handed out one at a time, not in fixed stripes: a nil's cost runs from
    # microseconds to minutes, and a stripe holding the slow ones would leave the other
    # threads idle at the end
    abortable(lambda: run_tasks(n, task, workers=workers), [stats])
    if stats[:, dd.S_ABORT].any():
        raise KeyboardInterrupt
    return safe.astype(bool)


def solve_deals(
    todo: np.ndarray,
    full: np.ndarray,
    leaders: np.ndarray,
    players: int,
    rule_bits: np.int64,
    tables: tuple[np.ndarray, np.ndarray],
    tricks: np.ndarray,
    nil: np.ndarray,
    done: np.ndarray,
    bar: tqdm | None,
) -> None:
    """Solve the deals ``todo`` (rows of ``full``, ``tricks``, ``nil``) one at a time,
    each thread taking the next deal with its own table, and mark each in ``done`` as it
    lands. Ctrl-C sets the kernels' abort flag (``solver.abortable``): the deals in flight
    stop within a few thousand nodes, unsolved, and every deal solved before is kept; the
    deals also spread over the threads better than fixed stripes."""
    keys, data = tables
    stats = np.zeros((keys.shape[0], dd.STATS), dtype=np.int64)

    def args(worker: int, d: int) -> tuple[Any, ...]:
        w = slice(worker, worker + 1)
        one = slice(d, d + 1)
        # the kernel's stripes of one deal: the views are C-contiguous slices, so the
        # same compiled kernel serves them
        return (
            np.int64(0), np.int64(1), np.int64(1), full[one], leaders[one], np.int64(players),
            rule_bits, keys[w], data[w], tricks[one], nil[one], stats[w],
        )  # fmt: skip

    if len(todo):
        ensure_compiled(dd.dd_table_nb, args(0, int(todo[0])))

    def task(worker: int, k: int) -> None:
        d = int(todo[k])
        dd.dd_table_nb(*args(worker, d))
        if stats[worker, dd.S_ABORT]:
            raise KeyboardInterrupt  # this deal is unsolved; hand out no more
        done[d] = True
        if bar is not None:
            bar.update(1)

    abortable(lambda: run_tasks(len(todo), task, workers=keys.shape[0]), [stats])
