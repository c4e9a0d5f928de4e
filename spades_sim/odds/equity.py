"""The win-probability table of the score state (a match-equity table for Spades).

Contract
--------
:func:`win_table` returns a :class:`WinTable` for a rule set and the seated policies:
``table.win(scores, bags, dealer)`` is side 0's (N-S's, or player 0's) chance to win the
game from each score state, ``scores`` and ``bags`` arrays of shape ``(k, 2)`` by side,
N-S first, ``dealer`` the seat dealing the next hand (one for all rows, or one a row).
A state the game has already ended in (a side at or over the target alone on top, or at
or below the loss threshold) gets 1.0 or 0.0.

How it is built: ``games`` whole games are simulated under the policies
(``simulate_games``) and every hand's outcome is kept, per side the points (bag penalty
excluded) and the bags taken, jointly with the dealer's parity; then the chance of
winning from every state is solved exactly for that outcome distribution by value
iteration (``_nb/equity.py``). So the table treats hands as independent draws from the
hands of whole games: a bidder that reads the score (``monte-carlo``, ``advise``) is
pooled over the states the games passed through, not played at each state. The exact
mode, :func:`win_exact`, plays whole games from each state with the policies reading
the real score, and is the check (``tests/test_equity.py``). Approximations, named: a
score below ``-target`` counts as ``-target`` unless the rules' loss threshold is
higher (then it is exact); a tie at or over the target (play goes on) is worth the
chance of outscoring the other side in one hand; ``max_hands`` is not modelled (the
table plays on; the exact mode counts an unfinished game as not won).

The solve runs on one layer of score residues at a time (scores that differ from the
bags by a multiple of the points' common step, 10 in the standard game: states reached
from 0-0 are all on one layer); a layer is solved on first use and kept, in memory and
on disk (``custom.kernels.cache_dir() / "win_tables"``): the simulated outcomes keyed by
the run's meta, the number of games and the kernels' digest, and the solved layers keyed
by the outcomes and the rules alone, so a version whose policies play the same games
simulates them again (seconds) and reuses the layers (minutes of solving).

Refused, with a line naming why: cutthroat (more than two sides), rules whose score
steps make the table too large (``MAX_CELLS``). Every rule set has a target; there is no
"no target" case to refuse. :func:`win_exact` also refuses user-written and ``pimc``
policies (its kernel is the built-in one).

For example (not a doctest: a layer's first solve takes minutes; ``tests/test_equity.py``
checks the table against whole games played from each state)::

    table = win_table(games=200, seed=1)
    table.win([[490, 0]], [[0, 0]], dealer=0)[0]  # above 0.5: 490 to 0, ten from the target
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from spades_sim._nb import KERNEL_DIGEST
from spades_sim._nb import equity as nb
from spades_sim._nb import race as nb_race
from spades_sim.analysis.stats import proportion_ci
from spades_sim.custom.kernels import cache_dir, needs_generated
from spades_sim.rules import Rules
from spades_sim.run.spec import DEFAULT_BIDDING, DEFAULT_PLAY, RunSpec, SidePolicies
from spades_sim.simulate import simulate_games
from spades_sim.threads import kernel_threads, run_blocks

__all__ = [
    "DEFAULT_GAMES", "MAX_CELLS", "RaceFit", "WinExact", "WinTable", "race_fit", "race_states",
    "race_win", "win_exact", "win_table",
]  # fmt: skip

DEFAULT_GAMES = 20_000
"""Games simulated for a table by default (about 200,000 hands of the standard game)."""
MAX_CELLS = 40_000_000
"""The most cells one layer of the table may have (two parities, bags and scores of both
sides): about 320 MB of float64."""
SHIPPED = Path(__file__).resolve().parent / "tables"
"""Solved layers that come with the package, named as the cache names them (by the
outcomes and the rules): the standard game's, so a first ``advise`` need not solve for
minutes. Written by ``benchmarks/win_table.py --ship``, values quantised to 1/``QUANTUM``
(the table's own sampling error is a hundred times larger); a version whose policies
play other games has other outcomes, does not find them, and solves as before."""
QUANTUM = 65535
TABLE_VERSION = 1  # bump when the table's construction changes (invalidates disk caches)
TOL = 1e-6
MAX_SWEEPS = 2_000

_MEMORY: dict[str, WinTable] = {}
_LOCK = threading.Lock()


def _spec(rules: Rules | None, bidding: SidePolicies | None, play: SidePolicies | None,
          seed: int) -> RunSpec:  # fmt: skip
    spec = RunSpec.build(
        seed=seed,
        rules=rules,
        bidding=DEFAULT_BIDDING if bidding is None else bidding,
        play=DEFAULT_PLAY if play is None else play,
        mode="games",
    )
    if spec.rules.sides != 2:
        raise ValueError(
            f"win table: cutthroat has {spec.rules.sides} lone sides; the win table covers "
            "two sides only (partnerships, or two players)"
        )
    return spec


@dataclass
class WinTable:
    """Side 0's chance to win the game from a score state (see the module docstring)."""

    rules: Rules
    games: int
    hands: int
    parity: np.ndarray  # per distinct outcome: the dealer's parity
    points: np.ndarray  # (n, 2) points per side, bag penalty excluded
    bags: np.ndarray  # (n, 2) bags taken per side
    counts: np.ndarray  # how many hands had the outcome
    path: Path | None = None
    sweeps: int = 0  # value-iteration sweeps of the last layer solved
    _layers: dict[tuple[int, int], np.ndarray] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    # the table's geometry, from the rules and the outcomes
    @property
    def limit(self) -> int:
        """Bag states per side: ``bag_limit``, or 1 when the penalty is off."""
        return self.rules.bag_limit if self.rules.bag_penalty > 0 else 1

    @property
    def step(self) -> int:
        """The points' common step ``g`` (10 in the standard game)."""
        if self.limit == 1:
            values = self.points.ravel()
        else:
            values = np.concatenate(
                [(self.points - self.bags).ravel(), [self.rules.bag_penalty - self.rules.bag_limit]]
            )
        g = int(np.gcd.reduce(np.abs(values.astype(np.int64)))) if values.size else 1
        return max(g, 1)

    @property
    def low(self) -> int:
        """The lowest score the table tells apart (see the module docstring)."""
        target = self.rules.target
        threshold = self.rules.loss_threshold
        if threshold is not None and threshold + 1 >= -target:
            return threshold + 1 - self.limit  # every live state on the grid: exact
        return -target

    @property
    def has_threshold(self) -> bool:
        t = self.rules.loss_threshold
        return t is not None and t + 1 >= -self.rules.target

    @property
    def tie_value(self) -> float:
        """What a tie at or over the target is worth to side 0: its chance to outscore
        side 1 in a hand, among hands where one does."""
        p0, p1 = self.points[:, 0], self.points[:, 1]
        ahead = float(self.counts[p0 > p1].sum())
        behind = float(self.counts[p0 < p1].sum())
        return 0.5 if ahead + behind == 0 else ahead / (ahead + behind)

    def _geometry(self) -> tuple[int, int, int, int]:
        """(g, n_u, lo, hi) of a layer."""
        g, limit = self.step, self.limit
        n_u = -(-(self.rules.target - self.low) // g)
        steps = []
        for side in range(2):
            pts = self.points[:, side].astype(np.int64)
            bg = self.bags[:, side].astype(np.int64) if limit > 1 else np.zeros_like(pts)
            for b in range(limit):
                k = (b + bg) // limit if limit > 1 else 0
                steps.append((pts - bg - k * (self.rules.bag_penalty - limit)) // g)
        all_steps = np.concatenate(steps) if steps else np.zeros(1, dtype=np.int64)
        lo = max(0, int(-all_steps.min()))
        hi = max(0, int(all_steps.max())) + 1
        return g, n_u, lo, hi

    def _layer(self, r0: int, r1: int) -> np.ndarray:
        with self._lock:
            if (r0, r1) in self._layers:
                return self._layers[(r0, r1)]
            # another process (a test worker, the page's worker) may be solving the same
            # layer: wait for it and read its result rather than spend minutes again
            with _cache_lock(self.path):
                self._adopt_saved_layers()
                if (r0, r1) not in self._layers:
                    sys.stderr.write(
                        "solving the win table of these rules and policies (first use "
                        "only: a few minutes; then cached)\n"
                    )
                    self._layers[(r0, r1)] = self._solve(r0, r1, self.counts)
                    self._save()
            return self._layers[(r0, r1)]

    def _adopt_saved_layers(self) -> None:
        """Take the layers shipped with the package for these outcomes (:data:`SHIPPED`)
        and those another process saved to this table's file (the same outcomes, so the
        same values)."""
        if self.path is None:
            return
        for path in (SHIPPED / self.path.name, self.path):
            if not path.exists():
                continue
            try:
                with np.load(path) as data:
                    for name in data.files:
                        if name.startswith("layer_"):
                            _, a, b = name.split("_")
                            values = data[name]
                            if values.dtype == np.uint16:  # shipped: quantised
                                values = values / QUANTUM
                            self._layers.setdefault((int(a), int(b)), values)
            except (OSError, ValueError, KeyError):
                pass  # a damaged file: solve here and overwrite it

    def solved_layers(self) -> dict[tuple[int, int], np.ndarray]:
        """The layers solved so far (residues of side 0 and side 1 -> values), as
        :meth:`win` reads them (for shipping a table: ``benchmarks/win_table.py --ship``)."""
        with self._lock:
            return dict(self._layers)

    def _solve(self, r0: int, r1: int, counts: np.ndarray) -> np.ndarray:
        g, n_u, lo, hi = self._geometry()
        limit = self.limit
        n_e = lo + n_u + hi
        cells = 2 * limit * limit * n_e * n_e
        if cells > MAX_CELLS:
            raise ValueError(
                f"win table: these rules give {cells:,} score states (target "
                f"{self.rules.target}, score step {g}, {limit} bag counts), above the "
                f"{MAX_CELLS:,} the table handles"
            )
        probs = counts.astype(np.float64)
        for d in range(2):
            mask = self.parity == d
            total = probs[mask].sum()
            if total > 0:
                probs[mask] /= total
        values = np.zeros((2, limit, limit, n_e, n_e), dtype=np.float64)
        threshold = self.rules.loss_threshold
        sweeps = nb.win_values_nb(
            self.parity.astype(np.int64),
            self.points[:, 0].astype(np.int64), self.bags[:, 0].astype(np.int64),
            self.points[:, 1].astype(np.int64), self.bags[:, 1].astype(np.int64),
            probs, np.int64(self.low), np.int64(r0), np.int64(r1), np.int64(g),
            np.int64(limit), np.int64(self.rules.bag_penalty), np.int64(lo), np.int64(n_u),
            np.int64(self.rules.target), self.has_threshold,
            np.int64(threshold if threshold is not None else 0), self.tie_value, TOL,
            np.int64(MAX_SWEEPS), values,
        )  # fmt: skip
        self.sweeps = sweeps
        if sweeps < 0:
            raise RuntimeError(
                f"win table: value iteration did not converge in {MAX_SWEEPS} sweeps"
            )
        return values

    def _save(self) -> None:
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            layers: dict[str, Any] = {f"layer_{a}_{b}": v for (a, b), v in self._layers.items()}
            tmp = self.path.with_suffix(".tmp.npz")
            # the outcomes are in the file the layers' name is made from (``_build``)
            np.savez_compressed(tmp, **layers)
            tmp.replace(self.path)
        except OSError:
            pass  # a cache that cannot be written is only slower next time

    def win(self, scores: Any, bags: Any, dealer: Any, *, nearest: bool = False) -> np.ndarray:
        """Side 0's chance to win from each state: ``scores``, ``bags`` shape ``(k, 2)``
        by side (N-S first), ``dealer`` the seat that deals the next hand (an int, or
        one per row). Returns shape ``(k,)``.

        A state off the layer of 0-0 (a score and bags that differ by other than a
        multiple of the score step: 420 with 7 bags in the standard game) has its own
        layer, solved on first use (minutes for a game to 500 on a loaded machine);
        ``nearest=True`` reads it instead at the nearest score on the layer of 0-0 (the
        score moved by at most half a step, 5 points in the standard game; a finished
        state is still judged at its real score)."""
        s, b, d = _states(self.rules, scores, bags, dealer)
        out = np.empty(s.shape[0], dtype=np.float64)
        rules = self.rules
        threshold = rules.loss_threshold
        g, n_u, lo, _ = self._geometry()
        limit = self.limit
        tie = self.tie_value
        for i in range(s.shape[0]):
            s0, s1 = int(s[i, 0]), int(s[i, 1])
            end = nb.end_value_nb(
                s0, s1, rules.target, threshold is not None,
                threshold if threshold is not None else 0, tie,
            )  # fmt: skip
            if end >= 0.0:
                out[i] = end
                continue
            bb = (int(b[i, 0]) if limit > 1 else 0, int(b[i, 1]) if limit > 1 else 0)
            cell = []
            res = []
            for side, sv in ((0, s0), (1, s1)):
                offset = sv - bb[side] - self.low
                r = offset % g
                if nearest:
                    home = (-self.low) % g  # the residue of 0-0
                    r, offset = home, home + g * round((offset - home) / g)
                u = max(0, (offset - r) // g)  # below the floor: as at the floor
                res.append(r)
                cell.append(lo + min(u, n_u - 1))
            layer = self._layer(res[0], res[1])
            out[i] = layer[int(d[i]) % 2, bb[0], bb[1], cell[0], cell[1]]
        return out

    def __repr__(self) -> str:
        return (
            f"WinTable(target={self.rules.target}, games={self.games:,}, hands={self.hands:,}, "
            f"outcomes={len(self.counts):,})"
        )


def _states(rules: Rules, scores: Any, bags: Any, dealer: Any) -> tuple[np.ndarray, ...]:
    """Checked arrays: scores and bags ``(k, 2)`` int64, dealers ``(k,)``."""
    s = np.asarray(scores)
    b = np.asarray(bags)
    if s.ndim == 1 and s.shape == (2,):
        s = s[None, :]
    if b.ndim == 1 and b.shape == (2,):
        b = b[None, :]
    if s.ndim != 2 or s.shape[1] != 2:
        raise ValueError(f"scores: expected shape (k, 2), by side N-S first, got {s.shape}")
    if b.shape != s.shape:
        raise ValueError(f"bags: expected the shape of scores {s.shape}, got {b.shape}")
    whole = np.issubdtype(s.dtype, np.integer) and np.issubdtype(b.dtype, np.integer)
    if not whole and not (np.all(np.mod(s, 1) == 0) and np.all(np.mod(b, 1) == 0)):
        raise ValueError("scores and bags: expected whole numbers")
    s = s.astype(np.int64)
    b = b.astype(np.int64)
    if (b < 0).any():
        raise ValueError(f"bags: must be 0 or more, got {int(b.min())}")
    if rules.bag_penalty > 0 and (b >= rules.bag_limit).any():
        raise ValueError(
            f"bags: must be below bag_limit {rules.bag_limit} while the penalty is on, "
            f"got {int(b.max())}"
        )
    d = np.asarray(dealer)
    if d.ndim == 0:
        d = np.full(s.shape[0], int(d), dtype=np.int64)
    if d.shape != (s.shape[0],):
        raise ValueError(f"dealer: expected one seat or one per row ({s.shape[0]}), got {d.shape}")
    d = d.astype(np.int64)
    if ((d < 0) | (d >= rules.players)).any():
        raise ValueError(f"dealer: must be a seat 0..{rules.players - 1}, got {d.tolist()}")
    return s, b, d


def _key(spec: RunSpec, games: int) -> str:
    meta = spec.meta()
    meta.pop("package_version", None)  # the kernels' digest stands for the code
    text = json.dumps(
        {"meta": meta, "games": games, "kernels": KERNEL_DIGEST, "version": TABLE_VERSION},
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@contextmanager
def _cache_lock(path: Path | None) -> Iterator[None]:
    """An exclusive lock on ``path``'s lock file while a layer is solved and saved (none
    where there is no file or no ``fcntl``: then at worst the work is done twice)."""
    try:
        import fcntl  # Unix only: imported where the lock is taken, refused on Windows
    except ImportError:  # not on Windows
        yield
        return
    if path is None:
        yield
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path.with_suffix(".lock"), "a")  # noqa: SIM115 (held across the yield)
    except OSError:
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def win_table(
    rules: Rules | None = None,
    bidding: SidePolicies | None = None,
    play: SidePolicies | None = None,
    *,
    seed: int = 0,
    threads: int | None = None,
    games: int = DEFAULT_GAMES,
    cache: bool = True,
) -> WinTable:
    """The win table of ``rules`` under the policies (see the module docstring), built
    from ``games`` simulated games with ``seed``; cached in memory and on disk
    (``cache=False`` builds afresh and stores nothing)."""
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games: must be a whole number of at least 1, got {games!r}")
    spec = _spec(rules, bidding, play, seed)
    key = _key(spec, int(games))
    if cache:
        with _LOCK:
            if key in _MEMORY:
                return _MEMORY[key]
    path = cache_dir() / "win_tables" / f"{key}.npz" if cache else None
    table = _load(spec.rules, path) if path is not None else None
    if table is None:
        table = _build(spec, int(games), threads, path)
    if cache:
        with _LOCK:
            _MEMORY[key] = table
    return table


def _load(rules: Rules, path: Path) -> WinTable | None:
    """The table whose simulated outcomes ``path`` keeps (its solved layers are read on
    first use from the file of those outcomes, :func:`_layers_path`)."""
    if not path.exists():
        return None
    try:
        with np.load(path) as data:
            parity, points, bags, counts = (data[k] for k in ("parity", "points", "bags", "counts"))
            return WinTable(
                rules=rules, games=int(data["meta"][0]), hands=int(data["meta"][1]),
                parity=parity, points=points, bags=bags, counts=counts,
                path=_layers_path(path.parent, rules, parity, points, bags, counts),
            )  # fmt: skip
    except (OSError, ValueError, KeyError):
        return None  # a damaged cache file is rebuilt


def _layers_path(
    folder: Path, rules: Rules, parity: np.ndarray, points: np.ndarray, bags: np.ndarray,
    counts: np.ndarray,
) -> Path:  # fmt: skip
    """Where the solved layers of these outcomes under ``rules`` are kept: named by the
    outcomes themselves, not by the code that simulated them, so a new version whose
    policies play the same games (most changes) reuses the minutes of solving and only
    simulates the games again (seconds)."""
    digest = hashlib.sha256(f"{TABLE_VERSION}".encode())
    for array in (rules.lower(), parity, points, bags, counts):
        digest.update(np.ascontiguousarray(array, dtype=np.int64).tobytes())
    return folder / f"layers-{digest.hexdigest()[:32]}.npz"


def outcomes_of(hands: Any) -> tuple[np.ndarray, ...]:
    """The distinct joint outcomes of the hands of a ``simulate_games`` frame: (parity,
    points ``(n, 2)``, bags ``(n, 2)``, counts), points with the bag penalty excluded."""
    rows = [hands[hands["seat"] == side].sort_values(["game", "hand_no"]) for side in (0, 1)]
    parity = rows[0]["dealer"].to_numpy(np.int64) % 2
    points = np.stack(
        [(r["score_change"] + r["bag_penalty"]).to_numpy(np.int64) for r in rows], axis=1
    )
    bags = np.stack([r["bags_change"].to_numpy(np.int64) for r in rows], axis=1)
    joint = np.column_stack([parity, points, bags])
    distinct, counts = np.unique(joint, axis=0, return_counts=True)
    return distinct[:, 0], distinct[:, 1:3], distinct[:, 3:5], counts.astype(np.int64)


def _build(spec: RunSpec, games: int, threads: int | None, path: Path | None) -> WinTable:
    """Simulate the games and keep their outcomes at ``path`` (when caching)."""
    hands, _ = simulate_games(
        games, seed=spec.seed, rules=spec.rules, bidding=spec.bidding, play=spec.play,
        threads=threads,
    )  # fmt: skip
    parity, points, bags, counts = outcomes_of(hands)
    layers = None
    if path is not None:
        layers = _layers_path(path.parent, spec.rules, parity, points, bags, counts)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp.npz")
            np.savez_compressed(
                tmp, parity=parity, points=points, bags=bags, counts=counts,
                meta=np.array([games, int(counts.sum())]),
            )  # fmt: skip
            tmp.replace(path)
        except OSError:
            pass  # a cache that cannot be written is only slower next time
    return WinTable(
        rules=spec.rules, games=games, hands=int(counts.sum()), parity=parity, points=points,
        bags=bags, counts=counts, path=layers,
    )  # fmt: skip


@dataclass(frozen=True)
class WinExact:
    """Whole games played from each state: ``wins[j]`` of ``games`` won by side 0
    (``unfinished[j]`` stopped at ``max_hands``, counted as not won)."""

    wins: np.ndarray
    unfinished: np.ndarray
    games: int

    @property
    def win(self) -> np.ndarray:
        return self.wins / self.games

    def interval(self) -> tuple[np.ndarray, np.ndarray]:
        """95% Wilson intervals of ``win``, per row."""
        est = [proportion_ci(int(w), self.games) for w in self.wins]
        return np.array([e.low for e in est]), np.array([e.high for e in est])


def win_exact(
    scores: Any,
    bags: Any,
    dealer: Any,
    *,
    rules: Rules | None = None,
    bidding: SidePolicies | None = None,
    play: SidePolicies | None = None,
    games: int = 1_000,
    seed: int = 0,
    threads: int | None = None,
) -> WinExact:
    """Play ``games`` whole games from each state (as :meth:`WinTable.win` takes them)
    with the policies reading the real scores. Game ``g`` of row ``j`` is dealt from the
    streams of ``(seed, j, g)`` whatever the state, so two calls compare states on the
    same later deals, row by row."""
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games: must be a whole number of at least 1, got {games!r}")
    spec = _spec(rules, bidding, play, seed)
    if needs_generated((*spec.bidding, *spec.play)):
        raise ValueError(
            "win_exact: plays the built-in policies only (no user-written policies, no pimc); "
            "use win_table for those"
        )
    s, b, d = _states(spec.rules, scores, bags, dealer)
    k = s.shape[0]
    winner = np.zeros((k, games), dtype=np.int8)
    hands = np.zeros((k, games), dtype=np.int32)
    with kernel_threads(threads):
        run_blocks(
            nb.games_from_nb, k, spec.rules.lower(), np.uint64(spec.seed), spec.params(), s, b, d,
            np.int64(games), winner, hands,
        )  # fmt: skip
    return WinExact(
        wins=(winner == 0).sum(axis=1), unfinished=(winner < 0).sum(axis=1), games=int(games)
    )


# --- The race model: the table in three numbers, for the score-aware bidder ------------


def race_win(
    scores: Any, bags: Any, side: int, rules: Rules, mean: float, sd: float, bag_rate: float
) -> float:
    """``side``'s chance to win from ``scores`` and ``bags`` (one entry a side) by the race
    model of ``spades_sim._nb.race`` (its docstring states the model): the plain-Python
    twin of ``race_win_nb``, which the ``advise`` bidder evaluates.

    >>> round(race_win([0, 0], [0, 0], 0, Rules(), 27.86, 41.68, 0.922), 3)
    0.5
    >>> round(race_win([450, 300], [0, 0], 0, Rules(), 27.86, 41.68, 0.922), 2)  # table: 0.92
    0.88
    """
    sides = len(scores)
    penalty, limit = rules.bag_penalty, rules.bag_limit

    def charge(carried: int, hands: float) -> float:
        if penalty <= 0:
            return 0.0
        lam = min(max(bag_rate * hands, 0.0), 600.0)
        p, total, seen, k = math.exp(-lam), 0.0, 0.0, 0
        while k < 2000:
            total += p * ((carried + k) // limit)
            seen += p
            if k > lam and seen > 1.0 - 1e-12:
                break
            k += 1
            p *= lam / k
        return penalty * total

    def cdf(x: float) -> float:
        return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))

    mean, sd = max(mean, 1e-9), max(sd, 1e-9)
    target = rules.target
    hands = min(max(target - s, 0.0) for s in scores) / mean + 0.5
    dist = [target - scores[s] + charge(int(bags[s]), hands) for s in range(sides)]
    before = [0.0] * sides
    mass = [0.0] * sides
    for n in range(1, nb_race.RACE_HANDS + 1):
        now = [
            max(before[s], cdf((n * mean - dist[s]) / (sd * math.sqrt(n)))) for s in range(sides)
        ]
        for s in range(sides):
            arrive = now[s] - before[s]
            if arrive > 0.0:
                rest = math.prod(1.0 - 0.5 * (before[j] + now[j]) for j in range(sides) if j != s)
                mass[s] += arrive * rest
        before = now
        if all(f >= 1.0 - 1e-12 for f in now):
            break
    total = sum(mass)
    return 1.0 / sides if total <= 0.0 else mass[side] / total


@dataclass(frozen=True)
class RaceFit:
    """The race model's three numbers fitted to a win table, and how far it is from it
    over the live states it was fitted on (absolute differences in win chance)."""

    mean: float
    sd: float
    bags: float
    states: int
    mean_error: float
    p95_error: float
    max_error: float

    def params(self) -> dict[str, float]:
        """The ``advise`` bidder's parameters for this fit."""
        return {"race_mean": self.mean, "race_sd": self.sd, "race_bags": self.bags}


def race_states(rules: Rules, k: int = 4_000, seed: int = 0) -> tuple[np.ndarray, ...]:
    """``k`` score states of a game under ``rules`` the fit and its check use: scores on
    the layer of 0-0 (a multiple of 10 plus the bags) from ``-target / 2`` to the
    target, bags below the limit, the dealer's parity alternating (scores, bags, dealer)."""
    rng = np.random.default_rng(seed)
    limit = rules.bag_limit if rules.bag_penalty > 0 else 1
    top = rules.target // 10
    bags = rng.integers(0, limit, size=(k, 2))
    scores = rng.integers(-top // 2, top, size=(k, 2)) * 10 + bags
    return scores, bags, np.arange(k) % 2


def race_fit(table: WinTable, k: int = 4_000, seed: int = 0) -> RaceFit:
    """Fit the race model (``race_win``) to ``table``: least squares over the live states
    of :func:`race_states` (where the table is neither 0 nor 1), by a pattern search from
    the moments of the table's hands (mean and spread of a side's points, mean bags)."""
    rules = table.rules
    scores, bags, dealer = race_states(rules, k, seed)
    exact = table.win(scores, bags, dealer, nearest=True)
    live = (exact > 0.0) & (exact < 1.0)
    scores, bags, exact = scores[live].astype(np.float64), bags[live].astype(np.int64), exact[live]
    weights = np.concatenate([table.counts, table.counts]).astype(np.float64)
    points = table.points.T.ravel().astype(np.float64)
    mean = float(np.average(points, weights=weights))
    sd = float(np.sqrt(np.average((points - mean) ** 2, weights=weights)))
    rate = float(np.average(table.bags.T.ravel(), weights=weights))
    out = np.empty(exact.shape[0], dtype=np.float64)

    def errors(x: np.ndarray) -> np.ndarray:
        nb_race.race_wins_nb(
            scores, bags, 0, float(rules.target), x[0], x[1], x[2], float(rules.bag_penalty),
            rules.bag_limit, out,
        )  # fmt: skip
        return out - exact

    x = np.array([mean, sd, rate])
    step = x * 0.25
    best = float(np.mean(errors(x) ** 2))
    while step.max() > 0.05:
        moved = False
        for i in range(3):
            for sign in (1.0, -1.0):
                trial = x.copy()
                trial[i] = max(trial[i] + sign * step[i], 0.01 if i < 2 else 0.0)
                value = float(np.mean(errors(trial) ** 2))
                if value < best:
                    x, best, moved = trial, value, True
        if not moved:
            step = step / 2
    gap = np.abs(errors(x))
    return RaceFit(
        mean=round(float(x[0]), 2), sd=round(float(x[1]), 2), bags=round(float(x[2]), 3),
        states=int(gap.shape[0]), mean_error=float(gap.mean()),
        p95_error=float(np.quantile(gap, 0.95)) if gap.size else 0.0,
        max_error=float(gap.max()) if gap.size else 0.0,
    )  # fmt: skip
