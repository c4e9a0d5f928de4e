"""What a report knows about its runs: their facts, their games, and duplicate pairs.

Contract
--------
- :func:`run_info` describes one run (a run directory, a frame or a ``(hands, games)``
  pair, as the analyses take them) from its meta: rules, the policies of each side,
  seed, mode, size and the package version that made it (:class:`RunInfo`).
- :func:`games_of` reads a games run's games table (one row per game; small).
- :func:`detect_pair` says whether two runs are the two halves of a duplicate match:
  the same mode, seed, rules, draw policy and size, and the sides' policies swapped
  (run 2's N-S plays as run 1's E-W and the other way round), so deal ``i`` (game ``g``)
  holds the same cards in both. It names the first thing that differs otherwise
  (:class:`NotAPair`, a ``ValueError``).
- :func:`compare_runs` pairs the two runs deal by deal (game by game): strategy A is
  run 1's N-S, B its E-W. Per deal, A's margin (its side's score change minus B's) is
  averaged over the two seatings; the result has the paired mean with its normal 95%
  interval and the interval the same numbers would have as unpaired deals (the two
  seatings' variances added). Games mode adds A's win rate over the ``2 n`` games: the
  Wilson interval of ``2 n`` independent games, and the paired one (the mean over games
  of A's wins in the two seatings, 0, 1/2 or 1, with its normal interval). Runs are read
  part by part; parts holding the same deals (games) are paired in place, others are
  gathered and joined (memory then grows with the run).

>>> from spades_sim import simulate_hands
>>> a = simulate_hands(200, seed=4, bidding=("count", "random"))
>>> b = simulate_hands(200, seed=4, bidding=("random", "count"))
>>> r = compare_runs(a, b)
>>> r.info.a, r.info.b, r.margin.n
('count/heuristic', 'random/heuristic', 200)
>>> r.margin.half_width < r.unpaired.half_width
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from spades_sim._version import __version__
from spades_sim.analysis.compare import hand_margins
from spades_sim.analysis.source import Data, Source, sources
from spades_sim.analysis.stats import Estimate, mean_ci_of_moments, proportion_ci, z_value
from spades_sim.dataset import read_manifest
from spades_sim.text import SIDE_NAMES, policy_text, rules_text

GAME_COLUMNS = ("game", "winner", "reason", "hands", "score_ns", "score_ew")


class NotAPair(ValueError):
    """Two runs that are not the two seatings of one duplicate match (the message says why)."""


@dataclass(frozen=True)
class RunInfo:
    """The facts of one run, from its meta."""

    label: str
    mode: str
    seed: int | None
    rules: dict[str, Any]
    policies: dict[str, Any]
    hands: int
    games: int
    rows: int
    version: str
    complete: bool = True

    @property
    def rules_text(self) -> str:
        """The rules as the closest preset plus the fields that differ (``mercy target=300``)."""
        return rules_text(self.rules) if self.rules else "unknown"

    def policy(self, kind: str, side: int) -> str:
        """One side's bidding (``kind="bidding"``) or play policy as text."""
        entry = self.policies.get(kind, {}).get(("ns", "ew")[side], {})
        return policy_text(entry, "bid" if kind == "bidding" else "play") if entry else "?"

    def side_label(self, side: int) -> str:
        """``bidding/play`` of one side, as the analyses' ``policy`` key spells it."""
        return f"{self.policy('bidding', side)}/{self.policy('play', side)}"

    @property
    def same_sides(self) -> bool:
        """Whether both sides use the same policies."""
        return self.side_label(0) == self.side_label(1)

    def policies_text(self) -> str:
        """Both sides' policies in one line.

        >>> from spades_sim.simulate import RunSpec
        >>> policies = RunSpec.build(seed=1).meta()["policies"]
        >>> info = RunInfo("x", "hands", 1, {}, policies, 0, 0, 0, "")
        >>> info.policies_text()
        'bidding count, play heuristic (every seat)'
        """
        if self.same_sides:
            return (
                f"bidding {self.policy('bidding', 0)}, play {self.policy('play', 0)} (every seat)"
            )
        return "; ".join(
            f"{SIDE_NAMES[s]}: bidding {self.policy('bidding', s)}, play {self.policy('play', s)}"
            for s in (0, 1)
        )

    def size_text(self) -> str:
        """``1,000 hands (4,000 seat rows)`` or ``200 games, 1,850 hands``."""
        tail = "" if self.complete else ", an INCOMPLETE run (resume it to finish)"
        if self.mode == "games":
            return f"{self.games:,} games, {self.hands:,} hands ({self.rows:,} seat rows){tail}"
        return f"{self.hands:,} hands ({self.rows:,} seat rows){tail}"

    def facts(self) -> list[tuple[str, str]]:
        """The facts a report opens with."""
        made = f"run made by spades_sim {self.version}" if self.version else "run version unknown"
        return [
            ("rules", self.rules_text),
            ("policies", self.policies_text()),
            ("seed", "?" if self.seed is None else str(self.seed)),
            ("size", self.size_text()),
            ("version", f"{made}; report by spades_sim {__version__}"),
        ]


def _source(data: Data | Source) -> Source:
    return data if isinstance(data, Source) else sources(data)[0]


def run_info(data: Data | Source) -> RunInfo:
    """The facts of one run.

    >>> from spades_sim import simulate_hands
    >>> run_info(simulate_hands(10, seed=4)).size_text()
    '10 hands (40 seat rows)'
    """
    source = _source(data)
    meta = dict(source.meta or {})
    players = int(meta.get("rules", {}).get("players", 4))
    hands = games = rows = 0
    complete = True
    if source.frames is not None:
        frame, games_frame = source.frames
        rows = len(frame)
        hands = rows // players
        games = len(games_frame) if games_frame is not None else 0
        if source.mode == "games" and games_frame is None:
            games = int(frame["game"].nunique())
    else:
        manifest = read_manifest(source.label)
        complete = bool(manifest.get("complete", True))
        for entry in manifest.get("parts", {}).values():
            stats = entry.get("stats", {})
            rows += int(entry.get("rows", stats.get("rows", 0)))
            games += int(entry.get("games_rows", stats.get("games", 0)))
        hands = rows // players
    seed = meta.get("seed")
    return RunInfo(
        label=source.label,
        mode=source.mode,
        seed=int(seed) if seed is not None else None,
        rules=dict(meta.get("rules") or {}),
        policies=dict(meta.get("policies") or {}),
        hands=hands,
        games=games,
        rows=rows,
        version=str(meta.get("package_version", "")),
        complete=complete,
    )


def games_of(data: Data | Source) -> pd.DataFrame:
    """The games table of a games run (:data:`GAME_COLUMNS`), read part by part.

    >>> from spades_sim import simulate_games
    >>> len(games_of(simulate_games(5, seed=1)))
    5
    """
    source = _source(data)
    frames = [g for _, g in source.batches(["seat"], GAME_COLUMNS) if g is not None]
    if not frames:
        return pd.DataFrame({c: pd.Series(dtype=np.int64) for c in GAME_COLUMNS})
    return pd.concat(frames, ignore_index=True)


# --------------------------------------------------------------------------------------
# Duplicate pairs
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairInfo:
    """Two runs found to be a duplicate match: strategy ``a`` (run 1's N-S) and ``b``."""

    a: str
    b: str
    mode: str
    differs: str  # "bidding", "play" or "bidding and play"


def _policies(meta: Mapping[str, Any], kind: str, side: str) -> Any:
    return meta.get("policies", {}).get(kind, {}).get(side)


def detect_pair(first: Data | Source, second: Data | Source) -> PairInfo:
    """:class:`PairInfo` if the two runs are a duplicate match, else :class:`NotAPair`.

    >>> from spades_sim import simulate_hands
    >>> a = simulate_hands(5, seed=1, play=("heuristic", "random"))
    >>> b = simulate_hands(5, seed=2, play=("random", "heuristic"))
    >>> try:
    ...     detect_pair(a, b)
    ... except NotAPair as exc:
    ...     print(exc)
    run 1 and run 2 are not a duplicate pair: their seeds differ (1 and 2)
    """
    sa, sb = _source(first), _source(second)
    names = ("run 1", "run 2") if sa.frames is not None else (sa.label, sb.label)
    if sb.frames is None and sa.frames is not None:
        names = ("run 1", sb.label)
    head = f"{names[0]} and {names[1]} are not a duplicate pair"
    ma, mb = dict(sa.meta or {}), dict(sb.meta or {})
    if not ma or not mb:
        raise NotAPair(f"{head}: one of them carries no run meta")
    checks = [("mode", "modes"), ("seed", "seeds"), ("rules", "rules")]
    for key, plural in checks:
        if ma.get(key) != mb.get(key):
            what = (
                f"({rules_text(ma.get(key) or {})} and {rules_text(mb.get(key) or {})})"
                if key == "rules"
                else f"({ma.get(key)} and {mb.get(key)})"
            )
            raise NotAPair(f"{head}: their {plural} differ {what}")
    ia, ib = run_info(sa), run_info(sb)
    size_a, size_b = (ia.games, ib.games) if ia.mode == "games" else (ia.hands, ib.hands)
    if size_a != size_b:
        unit = "games" if ia.mode == "games" else "hands"
        raise NotAPair(f"{head}: their sizes differ ({size_a:,} and {size_b:,} {unit})")
    if ma.get("policies", {}).get("draw") != mb.get("policies", {}).get("draw"):
        raise NotAPair(f"{head}: their draw policies differ")
    for kind in ("bidding", "play"):
        for side, other in (("ns", "ew"), ("ew", "ns")):
            if _policies(ma, kind, side) != _policies(mb, kind, other):
                raise NotAPair(
                    f"{head}: the {kind} policies are not swapped between the sides "
                    f"({names[1]}'s {SIDE_NAMES[other == 'ew']} should play "
                    f"{names[0]}'s {SIDE_NAMES[side == 'ew']} policy)"
                )
    differs = [
        kind
        for kind in ("bidding", "play")
        if _policies(ma, kind, "ns") != _policies(ma, kind, "ew")
    ]
    if not differs:
        raise NotAPair(f"{head}: both sides use the same policies, there is nothing to compare")
    return PairInfo(ia.side_label(0), ia.side_label(1), ia.mode, " and ".join(differs))


@dataclass
class _Moments:
    n: float = 0.0
    total: float = 0.0
    sumsq: float = 0.0

    def add(self, x: np.ndarray) -> None:
        self.n += x.size
        self.total += float(x.sum())
        self.sumsq += float((x * x).sum())

    @property
    def variance(self) -> float:
        if self.n < 2:
            return math.nan
        return max(0.0, (self.sumsq - self.total**2 / self.n) / (self.n - 1))

    def estimate(self, level: float) -> Estimate:
        return mean_ci_of_moments(int(self.n), self.total, self.sumsq, level)


@dataclass(frozen=True)
class PairedResult:
    """A duplicate match read from two runs (see the module's contract)."""

    info: PairInfo
    margin: Estimate  # A's margin per hand, paired over the two seatings
    unpaired: Estimate  # the same mean with the interval of unpaired deals
    a_as_ns: Estimate
    a_as_ew: Estimate
    wins: Estimate | None = None  # A's win rate over 2n games, Wilson (games unpaired)
    wins_paired: Estimate | None = None  # ... paired by game, normal interval
    unfinished: Estimate | None = None
    outcomes: tuple[int, int, int] | None = None  # games A won in both seatings, split, none

    def to_frame(self) -> pd.DataFrame:
        """The figures as a tidy table (``measure``, ``n``, ``estimate``, ``ci_low``,
        ``ci_high``)."""
        rows = [
            ("margin", self.margin),
            ("margin_unpaired", self.unpaired),
            ("a_as_ns", self.a_as_ns),
            ("a_as_ew", self.a_as_ew),
        ]
        for name, e in (
            ("win_rate", self.wins),
            ("win_rate_paired", self.wins_paired),
            ("unfinished", self.unfinished),
        ):
            if e is not None:
                rows.append((name, e))
        return pd.DataFrame(
            [(name, e.n, e.value, e.low, e.high) for name, e in rows],
            columns=["measure", "n", "estimate", "ci_low", "ci_high"],
        )


def _unit(index: pd.Index, mode: str) -> np.ndarray:
    """The deals (hands mode) or games (games mode) an index of hand keys covers."""
    values = index.get_level_values(0) if mode == "games" else index
    return np.unique(np.asarray(values))


def _batches(source: Source, mode: str) -> Iterator[tuple[pd.Series, pd.DataFrame | None]]:
    keys = ["game", "hand_no"] if mode == "games" else ["deal"]
    games_columns = ["game", "winner"] if mode == "games" else []
    for hands, games in source.batches([*keys, "seat", "score_change"], games_columns):
        yield hand_margins(hands), games


def _add_pairs(
    x: pd.Series, y: pd.Series, paired: _Moments, apart: tuple[_Moments, _Moments]
) -> None:
    x_values, y_values = x.to_numpy(), y.to_numpy()
    paired.add((x_values + y_values) / 2)
    apart[0].add(x_values)
    apart[1].add(y_values)


def compare_runs(first: Data | Source, second: Data | Source, level: float = 0.95) -> PairedResult:
    """Pair two runs of a duplicate match deal by deal (see the module's contract)."""
    info = detect_pair(first, second)
    sa, sb = _source(first), _source(second)
    mode = info.mode
    paired, ns, ew = _Moments(), _Moments(), _Moments()
    apart = (_Moments(), _Moments())  # the paired hands' two seatings, taken separately
    loose_a: list[pd.Series] = []
    loose_b: list[pd.Series] = []
    games_a: list[pd.DataFrame] = []
    games_b: list[pd.DataFrame] = []
    batches = itertools.zip_longest(_batches(sa, mode), _batches(sb, mode), fillvalue=None)
    for first_batch, second_batch in batches:
        ma = mb = None
        if first_batch is not None:
            ma, ga = first_batch
            ns.add(ma.to_numpy())
            if ga is not None:
                games_a.append(ga)
        if second_batch is not None:
            mb, gb = second_batch
            mb = -mb  # A sits E-W in run 2: its margin is E-W's
            ew.add(mb.to_numpy())
            if gb is not None:
                games_b.append(gb)
        if (
            ma is not None
            and mb is not None
            and np.array_equal(_unit(ma.index, mode), _unit(mb.index, mode))
        ):
            x, y = ma.align(mb, join="inner")  # games: the hands both seatings played
            _add_pairs(x, y, paired, apart)
        else:  # parts cut differently: joined once all are read
            loose_a += [] if ma is None else [ma]
            loose_b += [] if mb is None else [mb]
    if loose_a and loose_b:
        x, y = pd.concat(loose_a).align(pd.concat(loose_b), join="inner")
        _add_pairs(x, y, paired, apart)
    if paired.n == 0:
        raise NotAPair("the two runs share no deal")
    margin = paired.estimate(level)
    x_, y_ = apart  # unpaired: the same hands, the two seatings' variances added
    half = z_value(level) * math.sqrt(x_.variance / x_.n + y_.variance / y_.n) / 2
    mean = (x_.total / x_.n + y_.total / y_.n) / 2
    unpaired = Estimate(mean, mean - half, mean + half, int(paired.n), level)
    result = PairedResult(info, margin, unpaired, ns.estimate(level), ew.estimate(level))
    if mode != "games":
        return result
    won = (
        pd.concat(games_a)
        .set_index("game")["winner"]
        .eq(0)
        .to_frame("a")
        .join(pd.concat(games_b).set_index("game")["winner"].eq(1).rename("b"), how="inner")
    )
    unfinished = sum(int((pd.concat(g)["winner"] < 0).sum()) for g in (games_a, games_b))
    n_games = len(won)
    per_game = won[["a", "b"]].sum(axis=1).to_numpy(dtype=np.float64)
    pair = _Moments()
    pair.add(per_game)
    both = pair.estimate(level)  # of the number of seatings A won, 0..2
    low, high = max(0.0, both.low / 2), min(1.0, both.high / 2)  # a rate stays in [0, 1]
    wins_paired = Estimate(both.value / 2, low, high, n_games, level)
    outcomes = (
        int((per_game == 2).sum()),
        int((per_game == 1).sum()),
        int((per_game == 0).sum()),
    )
    return PairedResult(
        info,
        margin,
        unpaired,
        ns.estimate(level),
        ew.estimate(level),
        wins=proportion_ci(int(per_game.sum()), 2 * n_games, level),
        wins_paired=wins_paired,
        unfinished=proportion_ci(unfinished, 2 * n_games, level),
        outcomes=outcomes,
    )


__all__ = [
    "GAME_COLUMNS",
    "NotAPair",
    "PairInfo",
    "PairedResult",
    "RunInfo",
    "compare_runs",
    "detect_pair",
    "games_of",
    "run_info",
]
