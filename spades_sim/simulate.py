"""Running the kernels: policies per side, seeds, chunks and threads; result chunks.

A run is a :class:`RunSpec` (rules, per-side policies, seed, mode). Its work is split into
chunks of deals (hands mode) or games (games mode); chunk ``k`` covers items
``[k * chunk_size, (k + 1) * chunk_size)``. Every item draws from its own random stream
(``_nb.rng``), so the rows of a run are the same whatever the chunk size or thread count:
chunking only decides how the work is cut, never what it computes.

>>> df = simulate_hands(8, seed=1)
>>> len(df), int(df.groupby("deal").tricks.sum().min())
(32, 13)
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np
import pandas as pd

from spades_sim import kernels
from spades_sim._nb import loop
from spades_sim._nb.enums import (
    LANES,
    N_OUT_GAME,
    N_OUT_I8,
    N_OUT_I32,
    GameOut,
    OutI8,
    OutI32,
)
from spades_sim._nb.lockstep_bidding import LANE_BIDDERS
from spades_sim.custom.kernels import batches_allowed, kernels_for
from spades_sim.errors import SpadesError
from spades_sim.policies import Kind, Policy, lookup, parse_policy
from spades_sim.rules import Rules
from spades_sim.schema import (
    GAME_COLUMNS,
    HAND_COLUMNS,
    PLAY_COLUMNS,
    SCHEMA_VERSION,
    Column,
    hand_columns,
    nullable_names,
)
from spades_sim.validate import check_count

if TYPE_CHECKING:  # aggregate mode (issue 10)
    from spades_sim.aggregate_table import Aggregate

PolicyArg = str | Policy | Callable[..., Any]
SidePolicies = PolicyArg | Sequence[PolicyArg] | Mapping[str, PolicyArg]

DEFAULT_BIDDING = "count"
DEFAULT_PLAY = "heuristic"  # realistic by default: random play makes nil look hopeless
DEFAULT_HAND_CHUNK = 1 << 18  # deals: ~1M per-seat rows, one Parquet row group
MAX_GAME_ROWS = 1 << 21  # games chunk sized so its row buffer stays under ~2M rows (memory)

# The kernel's row of every column it writes, by name (``schema.py`` says which block).
_I8_FIELDS = {c.name: getattr(OutI8, c.name) for c in HAND_COLUMNS if c.block == "i8"}
_I32_FIELDS = {c.name: getattr(OutI32, c.name) for c in HAND_COLUMNS if c.block == "i32"}
# the int32 rows a hands run uses come first (schema order), so a lock-step kernel's block
# of just those rows is indexed as the full one is
_HANDS_I32_ROWS = 1 + max(_I32_FIELDS[c.name] for c in hand_columns(False) if c.block == "i32")
assert all(_I32_FIELDS[c.name] < _HANDS_I32_ROWS for c in hand_columns(False) if c.block == "i32")


class PolicyError(SpadesError):
    """A user-written policy returned an illegal bid or card."""


def side_policies(value: SidePolicies, kind: Kind) -> tuple[Policy, Policy]:
    """Policies for side 0 (N-S) and side 1 (E-W) from one policy (text, a
    :class:`Policy`, an @njit function, or a ``(name, params)`` tuple), a pair of them, or a
    mapping with keys ``ns``/``ew``.

    >>> [p.params["bias"] for p in side_policies(("count", {"bias": 0.5}), "bid")]
    [0.5, 0.5]

    >>> [p.name for p in side_policies({"ns": "random", "ew": "count"}, "bid")]
    ['random', 'count']
    """
    if isinstance(value, Mapping):
        unknown = set(value) - {"ns", "ew"}
        if unknown or len(value) != 2:
            raise ValueError(f"per-side {kind} policies need keys 'ns' and 'ew', got {value!r}")
        pair = (value["ns"], value["ew"])
    elif isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], Mapping):
        one = Policy.of(str(value[0]), kind, value[1])  # a name and its parameters
        return one, one
    elif isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise ValueError(f"per-side {kind} policies need two entries (N-S, E-W)")
        pair = (value[0], value[1])
    else:
        pair = (value, value)  # type: ignore[assignment]
    return parse_policy(pair[0], kind), parse_policy(pair[1], kind)


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines a run's results (not how it is cut or threaded)."""

    rules: Rules = field(default_factory=Rules)
    seed: int = 0
    bidding: tuple[Policy, Policy] = field(
        default_factory=lambda: side_policies(DEFAULT_BIDDING, "bid")
    )
    play: tuple[Policy, Policy] = field(default_factory=lambda: side_policies(DEFAULT_PLAY, "play"))
    draw: Policy = field(default_factory=lambda: parse_policy("threshold", "draw"))
    mode: str = "hands"
    record_play: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)):
            raise ValueError(f"seed: expected a whole number, got {self.seed!r}")
        if not 0 <= int(self.seed) < 2**63:
            raise ValueError(f"seed: must be 0 .. 2**63-1, got {self.seed}")
        if self.mode not in ("hands", "games"):
            raise ValueError(f"mode: must be 'hands' or 'games', got {self.mode!r}")

    @classmethod
    def build(
        cls,
        *,
        seed: int,
        rules: Rules | None = None,
        bidding: SidePolicies = DEFAULT_BIDDING,
        play: SidePolicies = DEFAULT_PLAY,
        draw: PolicyArg = "threshold",
        mode: str = "hands",
        record_play: bool = False,
    ) -> RunSpec:
        """A run from user-facing arguments (policy text, pairs or mappings)."""
        if rules is not None and not isinstance(rules, Rules):
            raise ValueError(f"rules: expected a Rules object, got {type(rules).__name__}")
        return cls(
            rules=rules or Rules(),
            seed=seed,
            bidding=side_policies(bidding, "bid"),
            play=side_policies(play, "play"),
            draw=parse_policy(draw, "draw"),
            mode=mode,
            record_play=record_play,
        )

    @property
    def builtin(self) -> bool:
        return all(p.is_builtin for p in (*self.bidding, *self.play))

    def meta(self) -> dict[str, Any]:
        """What a dataset records about the run (its results depend on nothing else)."""
        from spades_sim._version import __version__

        return {
            "mode": self.mode,
            "seed": int(self.seed),
            "rules": self.rules.to_dict(),
            "policies": {
                "bidding": {"ns": self.bidding[0].to_dict(), "ew": self.bidding[1].to_dict()},
                "play": {"ns": self.play[0].to_dict(), "ew": self.play[1].to_dict()},
                "draw": self.draw.to_dict(),
            },
            "record_play": self.record_play,
            "package_version": __version__,
            "schema_version": SCHEMA_VERSION,
        }

    def hand_columns(self) -> tuple[Column, ...]:
        return hand_columns(self.mode == "games")


@dataclass
class Chunk:
    """The results of items ``[start, stop)`` of a run, as columns."""

    index: int
    start: int
    stop: int
    hands: dict[str, np.ndarray]
    games: dict[str, np.ndarray] | None = None
    plays: dict[str, np.ndarray] | None = None


def numba_threads(threads: int | None) -> contextlib.AbstractContextManager[None]:
    """Run the kernels on ``threads`` threads (None: all), restoring the setting after
    (:func:`spades_sim.kernels.threads`; the name is from when they were Numba's)."""
    return kernels.threads(threads)


def _params(spec: RunSpec) -> np.ndarray:
    """The kernel's parameter rows: bid N-S, bid E-W, play N-S, play E-W, draw."""
    return np.stack([p.lower() for p in (*spec.bidding, *spec.play, spec.draw)])


def _custom_kernels(spec: RunSpec) -> tuple[Any, Any]:
    """(hands, games) entry points of the run's user-written policies: a generated module
    cached on disk (``spades_sim.custom.kernels``), compiled once per machine per
    combination of policies and their code."""
    module = kernels_for((*spec.bidding, *spec.play))
    return module.hands_nb, module.games_nb


def _lockstep_play(spec: RunSpec) -> str | None:
    """The play policy the lock-step kernels can run for this spec (same results,
    faster), or None: both sides ``random`` or both ``heuristic``, built-in bidders the
    lock-step bidder covers (``lockstep_bidding.LANE_BIDDERS``: all but ``monte-carlo``),
    independent hands, play not recorded."""
    names = {p.name for p in spec.play}
    if spec.mode != "hands" or spec.record_play or len(names) != 1:
        return None
    if not all(p.is_builtin for p in (*spec.play, *spec.bidding)):
        return None
    if any(lookup(p.name, "bid").policy_id not in LANE_BIDDERS for p in spec.bidding):
        return None  # monte-carlo: its rollouts take far longer than the play
    name = names.pop()
    return name if name in ("random", "heuristic") else None


def _hands_kernel(spec: RunSpec) -> tuple[Any, int]:
    """(entry point, deals per block) for a hands run: a lock-step kernel if
    :func:`_lockstep_play` allows, else the scalar one."""
    play = _lockstep_play(spec)
    four = spec.rules.players == 4  # one kernel per player count: each compiles less
    if play == "heuristic":
        return (
            loop.hands_heuristic_lockstep_nb if four else loop.hands_heuristic_lockstep_two_nb
        ), LANES
    if play == "random":
        return (loop.hands_random_lockstep_nb if four else loop.hands_random_lockstep_two_nb), LANES
    if spec.builtin:
        return loop.hands_nb, loop.BLOCK
    policies = (*spec.bidding, *spec.play)
    module = kernels_for(policies)
    if not spec.record_play and batches_allowed(policies):  # batches: the same rows, faster
        return (module.hands_lanes_four_nb if four else module.hands_lanes_two_nb), LANES
    return module.hands_nb, loop.BLOCK


def _run_kernel(spec: RunSpec, start: int, count: int) -> dict[str, Any]:
    """Run the kernel on items [start, start+count); return its raw output arrays."""
    rules = spec.rules.lower()
    players = spec.rules.players
    games = spec.mode == "games"
    slots = count * (spec.rules.max_hands if games else 1)
    rows = slots * players
    lockstep = not games and _lockstep_play(spec) is not None
    out: dict[str, Any] = {
        "hand": np.empty(rows, dtype=np.uint64),
        "i8": np.empty((N_OUT_I8, rows), dtype=np.int8),
        # the lock-step kernels write only the int32 rows a hands run has (not the scores
        # and bags before and after, games-mode columns): 16 bytes a row fewer to touch
        "i32": np.empty((_HANDS_I32_ROWS if lockstep else N_OUT_I32, rows), dtype=np.int32),
    }
    rec = slots if spec.record_play else 0
    out["dealt"] = np.zeros(rec * players, dtype=np.uint64)
    out["plays"] = np.zeros((rec, 13 * players), dtype=np.int8)
    out["winners"] = np.zeros((rec, 13), dtype=np.int8)
    status = (
        np.zeros((count, N_OUT_GAME), dtype=np.int32) if games else np.zeros(count, dtype=np.int8)
    )
    args = (rules, np.int64(spec.seed), np.int64(start), np.int64(count), _params(spec))
    outs = (out["hand"], out["i8"], out["i32"], status, out["dealt"], out["plays"], out["winners"])
    if games:
        kernel = loop.games_nb if spec.builtin else _custom_kernels(spec)[1]
        kernels.run_blocks(kernel, count, *args, *outs)  # one game per block
    else:
        kernel, per_block = _hands_kernel(spec)
        kernels.run_blocks(kernel, -(-count // per_block), *args, *outs)
    out["status"] = status
    return out


def _check_policy_errors(spec: RunSpec, errors: np.ndarray, start: int) -> None:
    bad = np.flatnonzero(errors)
    if bad.size:
        what = "game" if spec.mode == "games" else "deal"
        names = ", ".join(p.name for p in (*spec.bidding, *spec.play) if not p.is_builtin)
        raise PolicyError(
            f"{what} {start + int(bad[0])}: a policy ({names or 'built-in'}) returned an "
            "illegal bid or card"
        )


def run_chunk(spec: RunSpec, index: int, start: int, count: int) -> Chunk:
    """Compute items [start, start+count) of a run as one :class:`Chunk` of columns."""
    raw = _run_kernel(spec, start, count)
    players = spec.rules.players
    i8, i32 = raw["i8"], raw["i32"]
    games_cols: dict[str, np.ndarray] | None = None
    if spec.mode == "games":
        status = raw["status"]
        _check_policy_errors(spec, status[:, GameOut.policy_error], start)
        max_hands = spec.rules.max_hands
        played = status[:, GameOut.hands].astype(np.int64)
        slot_valid = (np.arange(max_hands)[None, :] < played[:, None]).ravel()
        keep = np.repeat(slot_valid, players)
        slots = np.flatnonzero(slot_valid)
        extra: dict[str, np.ndarray] = {
            "game": np.repeat(start + slots // max_hands, players).astype(np.int64),
            "hand_no": np.repeat(slots % max_hands, players).astype(np.int16),
        }
        games_cols = {
            "game": np.arange(start, start + count, dtype=np.int64),
            "first_dealer": status[:, GameOut.first_dealer].astype(np.int8),
            "winner": status[:, GameOut.winner].astype(np.int8),
            "reason": status[:, GameOut.reason].astype(np.int8),
            "hands": status[:, GameOut.hands].astype(np.int16),
            "score_ns": status[:, GameOut.score_ns].astype(np.int32),
            "score_ew": status[:, GameOut.score_ew].astype(np.int32),
            "bags_ns": status[:, GameOut.bags_ns].astype(np.int32),
            "bags_ew": status[:, GameOut.bags_ew].astype(np.int32),
            "bag_penalty_ns": status[:, GameOut.bag_penalty_ns].astype(np.int32),
            "bag_penalty_ew": status[:, GameOut.bag_penalty_ew].astype(np.int32),
        }
    else:
        _check_policy_errors(spec, raw["status"], start)
        keep = None
        slots = None
        extra = {"deal": np.repeat(np.arange(start, start + count, dtype=np.int64), players)}
    n_rows = raw["hand"].shape[0] if keep is None else int(keep.sum())

    def take(values: np.ndarray) -> np.ndarray:
        return values if keep is None else values[keep]

    seat = np.tile(np.arange(players, dtype=np.int8), n_rows // players)
    nil_kind = take(i8[OutI8.nil_kind])
    computed: dict[str, np.ndarray] = {
        **extra,
        "seat": seat,
        "side": seat & 1,
        "hand": take(raw["hand"]),
        "nil": nil_kind == 1,
        "blind_nil": nil_kind == 2,
    }
    columns = spec.hand_columns()
    wanted = {c.name for c in columns}
    for name, row in _I8_FIELDS.items():
        if name in wanted:
            computed[name] = take(i8[row])
    for name, row in _I32_FIELDS.items():
        if name in wanted:
            computed[name] = take(i32[row])
    hands = {c.name: np.ascontiguousarray(computed[c.name], dtype=c.dtype) for c in columns}
    plays = None
    if spec.record_play:
        sel = slice(None) if slots is None else slots
        n_slots = raw["plays"].shape[0]
        ids = (
            np.arange(start, start + count, dtype=np.int64)
            if slots is None
            else np.repeat(np.arange(start, start + count), 1)[slots // spec.rules.max_hands]
        )
        plays = {
            "deal" if slots is None else "game": ids,
            "dealt": raw["dealt"].reshape(n_slots, players)[sel],
            "plays": raw["plays"][sel],
            "trick_winners": raw["winners"][sel],
        }
        if slots is not None:
            plays["hand_no"] = (slots % spec.rules.max_hands).astype(np.int16)
    return Chunk(index, start, start + count, hands, games_cols, plays)


def default_chunk_size(spec: RunSpec) -> int:
    """Items per chunk: ~1M per-seat rows for hands; a bounded row buffer for games."""
    if spec.mode == "hands":
        return DEFAULT_HAND_CHUNK
    return max(1, MAX_GAME_ROWS // (spec.rules.max_hands * spec.rules.players))


def iter_chunks(
    spec: RunSpec,
    total: int,
    *,
    chunk_size: int | None = None,
    skip: set[int] | frozenset[int] = frozenset(),
) -> Iterator[Chunk]:
    """The chunks of a run of ``total`` items, skipping chunk indices in ``skip``."""
    total = check_count(total, "n", 0, f"the number of {spec.mode}")
    size = check_count(
        default_chunk_size(spec) if chunk_size is None else chunk_size, "chunk_size", 1
    )
    for index, start in enumerate(range(0, total, size)):
        if index not in skip:
            yield run_chunk(spec, index, start, min(size, total - start))


def _frame(columns: Sequence[dict[str, np.ndarray]], schema: Sequence[Column]) -> pd.DataFrame:
    """The chunks' columns as one frame: a single chunk's arrays as they are, several
    concatenated once. pandas then copies the columns into one 2-D block per dtype, on
    purpose: that copy costs ~27 ns a hand once (1M hands, 1 thread), while a frame left
    with a block per column (``copy=False``) made every later row selection slower
    (``df[df.bid > 3]`` 2.4x, ``analysis.compare.side_rows`` 2.6x on 500k hands), a
    loss after one or two analyses."""
    data: dict[str, Any] = {}
    for c in schema:
        if len(columns) == 1:
            values = columns[0][c.name]
        elif columns:
            values = np.concatenate([chunk[c.name] for chunk in columns])
        else:
            values = np.empty(0, c.dtype)
        if c.nullable_bool:
            data[c.name] = pd.arrays.BooleanArray(values == 1, values < 0)
        else:
            data[c.name] = values
    return pd.DataFrame(data)


# --- aggregate mode (issue 10): the overloads and the ``aggregate`` branch below ------
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
) -> pd.DataFrame | Aggregate:
    """Play ``n`` independent hands (fresh scores, dealer rotating); one row per seat.

    ``aggregate`` (True, or the keys to count by: ``"spades,seat"``, a list) counts the
    hands instead of keeping rows and returns an :class:`~spades_sim.aggregate.Aggregate`
    (``spades_sim.aggregate``), which every analysis accepts.

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
    if aggregate is not None and aggregate is not False:  # aggregate mode (issue 10)
        return _aggregate(spec, n, aggregate, threads, chunk_size)
    if chunk_size is None:
        # One chunk: the frame keeps every row anyway, and a single chunk's columns go
        # into it without being concatenated (``_frame``). ``default_chunk_size`` is for
        # runs that stream their rows to disk, where it bounds the memory.
        chunk_size = max(1, check_count(n, "n", 0, "the number of hands"))
    with numba_threads(threads):
        chunks = [c.hands for c in iter_chunks(spec, n, chunk_size=chunk_size)]
    hands = _frame(chunks, spec.hand_columns())
    hands.attrs["spades_sim"] = spec.meta()  # the run meta: analyses group by policy, rules
    return hands


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
    if aggregate is not None and aggregate is not False:  # aggregate mode (issue 10)
        return _aggregate(spec, n, aggregate, threads, chunk_size)
    with numba_threads(threads):
        chunks = list(iter_chunks(spec, n, chunk_size=chunk_size))
    hands = _frame([c.hands for c in chunks], spec.hand_columns())
    games = _frame([c.games for c in chunks if c.games is not None], GAME_COLUMNS)
    hands.attrs["spades_sim"] = games.attrs["spades_sim"] = spec.meta()  # for analyses
    return hands, games


def _aggregate(
    spec: RunSpec, n: int, aggregate: AggregateArg, threads: int | None, chunk_size: int | None
) -> Aggregate:
    """Aggregate mode (issue 10): ``spades_sim.aggregate`` counts instead of rows."""
    from spades_sim.aggregate import simulate_aggregate

    by = None if isinstance(aggregate, bool) else aggregate
    return simulate_aggregate(spec, n, by, threads=threads, chunk_size=chunk_size)


def record_hands(n: int, *, seed: int, start: int = 0, mode: str = "hands", **kwargs: Any) -> Chunk:
    """Items [start, start+n) of a run with the play recorded (for checks and ``show``)."""
    spec = RunSpec.build(seed=seed, mode=mode, record_play=True, **kwargs)
    return run_chunk(spec, 0, start, n)


__all__ = [
    "PLAY_COLUMNS",
    "Chunk",
    "PolicyError",
    "RunSpec",
    "iter_chunks",
    "nullable_names",
    "record_hands",
    "run_chunk",
    "side_policies",
    "simulate_games",
    "simulate_hands",
]
