"""The entries to frames: simulate hands or games into pandas (or count them).

Contract
--------
:func:`simulate_hands` and :func:`simulate_games` build a
:class:`~spades_sim.run.spec.RunSpec` from user-facing arguments and drive the plan's
chunks into a :class:`~spades_sim.run.sinks.FrameSink` (rows) or, with ``aggregate``, a
:class:`~spades_sim.run.sinks.TablesSink` (:func:`simulate_aggregate`), on the thread
pool. Every item draws from its own random stream (``_nb.rng``), so the rows of a run
are the same whatever the chunk size or thread count. :func:`record_hands` regenerates
items of a run with the play recorded (for checks and ``show``).

>>> df = simulate_hands(8, seed=1)
>>> len(df), int(df.groupby("deal").tricks.sum().min())
(32, 13)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, overload

import pandas as pd

from spades_sim.rules import Rules
from spades_sim.run.aggregate_frames import Aggregate
from spades_sim.run.chunks import Chunk, run_chunk
from spades_sim.run.counting import layout
from spades_sim.run.double_dummy import with_dd
from spades_sim.run.plan import default_aggregate_chunk, plan
from spades_sim.run.sinks import FrameSink, TablesSink, drive
from spades_sim.run.spec import DEFAULT_BIDDING, DEFAULT_PLAY, PolicyArg, RunSpec, SidePolicies
from spades_sim.solve.solver import check_solvable_rules
from spades_sim.threads import kernel_threads
from spades_sim.validate import check_count

__all__ = [
    "AggregateArg",
    "RunSpec",
    "record_hands",
    "simulate_aggregate",
    "simulate_games",
    "simulate_hands",
]

_NAMES = ("n", "chunk_size")  # the arguments' names in this module's error messages

AggregateArg = bool | str | Sequence[str] | None


@overload
def simulate_hands(
    n: int,
    *,
    seed: int,
    rules: Rules | None = None,
    bidding: SidePolicies = DEFAULT_BIDDING,
    play: SidePolicies = DEFAULT_PLAY,
    draw: PolicyArg = "threshold",
    threads: int | None = None,
    chunk_size: int | None = None,
    aggregate: Literal[False] | None = None,
    dd: bool = False,
) -> pd.DataFrame: ...
@overload
def simulate_hands(
    n: int,
    *,
    seed: int,
    rules: Rules | None = None,
    bidding: SidePolicies = DEFAULT_BIDDING,
    play: SidePolicies = DEFAULT_PLAY,
    draw: PolicyArg = "threshold",
    threads: int | None = None,
    chunk_size: int | None = None,
    aggregate: Literal[True] | str | Sequence[str],
    dd: Literal[False] = False,
) -> Aggregate: ...


def simulate_hands(
    n: int,
    *,
    seed: int,
    rules: Rules | None = None,
    bidding: SidePolicies = DEFAULT_BIDDING,
    play: SidePolicies = DEFAULT_PLAY,
    draw: PolicyArg = "threshold",
    threads: int | None = None,
    chunk_size: int | None = None,
    aggregate: AggregateArg = None,
    dd: bool = False,
) -> pd.DataFrame | Aggregate:
    """Play ``n`` independent hands (fresh scores, dealer rotating); one row per seat.

    ``aggregate`` (True, or the keys to count by: ``"spades,seat"``, a list) counts the
    hands instead of keeping rows and returns an :class:`~spades_sim.run.Aggregate`,
    which every analysis accepts. ``dd`` solves every deal double-dummy from the hands as
    play began and adds the columns ``dd_side_tricks`` and ``dd_nil_safe``
    (:mod:`spades_sim.run.double_dummy`; a deal takes a fraction of a second to a few
    seconds, so keep ``n`` small).

    ``bidding``/``play`` take one policy for every seat, or one per side as a pair
    ``(ns, ew)`` or a mapping ``{"ns": ..., "ew": ...}``; a policy is a name with optional
    parameters (``"count:bias=0.5"``), a :class:`~spades_sim.policies.Policy`, or a
    user-written ``@njit`` function. Equal arguments give equal frames, whatever
    ``threads`` and ``chunk_size``.

    >>> df = simulate_hands(100, seed=7, play="random")
    >>> sorted(df.seat.unique().tolist())
    [0, 1, 2, 3]
    """
    spec = RunSpec.build(seed=seed, rules=rules, bidding=bidding, play=play, draw=draw)
    if not isinstance(dd, bool):
        raise ValueError(f"dd: expected True or False, got {dd!r}")
    if aggregate is not None and aggregate is not False:
        if dd:
            raise ValueError(
                "dd: aggregate mode counts in kernels that never call the solver; drop "
                "aggregate to have the rows with their double-dummy columns"
            )
        return _aggregate(spec, n, aggregate, threads, chunk_size)
    if dd:
        check_solvable_rules(spec.rules)  # before the hands are played, not after
    if chunk_size is None:
        # One chunk: the frame keeps every row anyway, and a single chunk's columns go
        # into it without being concatenated (``sinks.frame``). ``default_chunk_size`` is
        # for runs that stream their rows to disk, where it bounds the memory.
        chunk_size = max(1, check_count(n, "n", 0, "the number of hands"))
    sink = FrameSink()
    with kernel_threads(threads):
        drive(spec, plan(spec, n, chunk_size, max_parts=None, names=_NAMES), sink)
        hands = sink.hands(spec)
        return with_dd(hands, spec.rules) if dd else hands


@overload
def simulate_games(
    n: int,
    *,
    seed: int,
    rules: Rules | None = None,
    bidding: SidePolicies = DEFAULT_BIDDING,
    play: SidePolicies = DEFAULT_PLAY,
    draw: PolicyArg = "threshold",
    threads: int | None = None,
    chunk_size: int | None = None,
    aggregate: Literal[False] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]: ...
@overload
def simulate_games(
    n: int,
    *,
    seed: int,
    rules: Rules | None = None,
    bidding: SidePolicies = DEFAULT_BIDDING,
    play: SidePolicies = DEFAULT_PLAY,
    draw: PolicyArg = "threshold",
    threads: int | None = None,
    chunk_size: int | None = None,
    aggregate: Literal[True] | str | Sequence[str],
) -> Aggregate: ...


def simulate_games(
    n: int,
    *,
    seed: int,
    rules: Rules | None = None,
    bidding: SidePolicies = DEFAULT_BIDDING,
    play: SidePolicies = DEFAULT_PLAY,
    draw: PolicyArg = "threshold",
    threads: int | None = None,
    chunk_size: int | None = None,
    aggregate: AggregateArg = None,
) -> tuple[pd.DataFrame, pd.DataFrame] | Aggregate:
    """Play ``n`` whole games; return (per-seat hand rows, one row per game), or with
    ``aggregate`` their counts (as :func:`simulate_hands`).

    >>> hands, games = simulate_games(4, seed=3)
    >>> len(games), bool((games.hands > 0).all())
    (4, True)
    """
    spec = RunSpec.build(
        seed=seed, rules=rules, bidding=bidding, play=play, draw=draw, mode="games"
    )
    if aggregate is not None and aggregate is not False:
        return _aggregate(spec, n, aggregate, threads, chunk_size)
    sink = FrameSink()
    with kernel_threads(threads):
        drive(spec, plan(spec, n, chunk_size, max_parts=None, names=_NAMES), sink)
    return sink.hands(spec), sink.games(spec)


def _aggregate(
    spec: RunSpec, n: int, aggregate: AggregateArg, threads: int | None, chunk_size: int | None
) -> Aggregate:
    """Aggregate mode: counts instead of rows."""
    by = None if isinstance(aggregate, bool) else aggregate
    return simulate_aggregate(spec, n, by, threads=threads, chunk_size=chunk_size)


def simulate_aggregate(
    spec: RunSpec,
    n: int,
    by: str | Sequence[str] | None = None,
    *,
    threads: int | None = None,
    chunk_size: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> Aggregate:
    """Play ``n`` items (deals or games, per ``spec.mode``) of ``spec`` and count them
    by ``by`` (:data:`~spades_sim.run.aggregate_frames.KEYS`; a list or comma-separated text)
    into an :class:`~spades_sim.run.Aggregate`.

    Equal arguments give equal tables, whatever ``threads`` and ``chunk_size``;
    ``progress`` is called with the items done after each chunk.

    >>> spec = RunSpec.build(seed=2, play="random")
    >>> a = simulate_aggregate(spec, 300, by="seat", chunk_size=100)
    >>> a == simulate_aggregate(spec, 300, by="seat", threads=1)
    True
    """
    n = check_count(n, "n", 0, f"the number of {spec.mode}")
    lay = layout(by, spec.rules, spec.mode)
    size = default_aggregate_chunk(spec) if chunk_size is None else chunk_size
    sink = TablesSink(lay, progress)
    with kernel_threads(threads):
        drive(spec, plan(spec, n, size, max_parts=None, names=_NAMES), sink)
    return sink.result(spec)


def record_hands(n: int, *, seed: int, start: int = 0, mode: str = "hands", **kwargs: Any) -> Chunk:
    """Items [start, start+n) of a run with the play recorded (for checks and ``show``)."""
    spec = RunSpec.build(seed=seed, mode=mode, record_play=True, **kwargs)
    return run_chunk(spec, 0, start, n)
