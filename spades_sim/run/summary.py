"""What a run did: per-chunk tallies that add across parts, progress, and the summary.

Contract
--------
:class:`Tally` holds integer counts of one chunk (hands, games, bids, nils, contracts,
bags, wins), taken with a few NumPy reductions and no Python loop over rows; tallies add
(``+``), and the manifest keeps each part's (``part_meta["stats"]``), so a resumed run
reports on its whole dataset without reading it back. :class:`Progress` is what a
progress callback is given after each part. :class:`RunSummary` is the figures of a
finished (or interrupted) call, as text for a terminal (:meth:`RunSummary.format`,
worded by :mod:`spades_sim.text`) or one line of JSON.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from spades_sim.cards import SEAT_NAMES
from spades_sim.text import SIDE_NAMES, number, percent, policy_text, rules_text, sides_text

if TYPE_CHECKING:
    from spades_sim.run.chunks import Chunk

__all__ = ["Progress", "RunSummary", "Tally"]


# --------------------------------------------------------------------------------------
# Statistics, tallied per chunk
# --------------------------------------------------------------------------------------


@dataclass
class Tally:
    """Integer counts from which the summary statistics follow; they add across parts.

    >>> a = Tally(hands=2, rows=8, bids=8, nil_bids=1, nil_made=1)
    >>> (a + a).nil_bids, (a + a).nil_rate
    (2, 0.125)
    """

    hands: int = 0
    games: int = 0
    rows: int = 0
    bids: int = 0
    nil_bids: int = 0
    nil_made: int = 0
    contracts: int = 0
    made: int = 0
    bags: int = 0
    wins_ns: int = 0
    wins_ew: int = 0
    wins_2: int = 0  # sides 2 and 3 exist in cutthroat only (side = seat)
    wins_3: int = 0
    unfinished: int = 0

    def __add__(self, other: Tally) -> Tally:
        return Tally(**{k: v + getattr(other, k) for k, v in asdict(self).items()})

    @classmethod
    def of_chunk(cls, chunk: Chunk, players: int) -> Tally:
        """The counts of one chunk: a handful of vector reductions, no Python per row."""
        h = chunk.hands
        rows = len(h["seat"])
        nil = np.count_nonzero(h["nil"]) + np.count_nonzero(h["blind_nil"])
        made = h["made"]
        tally = cls(
            hands=rows // players,
            rows=rows,
            bids=rows,
            nil_bids=int(nil),
            nil_made=int(np.count_nonzero(h["nil_made"] == 1)),
            contracts=int(np.count_nonzero(made >= 0)),
            made=int(np.count_nonzero(made == 1)),
            bags=int(np.sum(h["bags_change"], dtype=np.int64)),
        )
        if chunk.games is not None:
            winner = chunk.games["winner"]
            tally.games = len(winner)
            tally.wins_ns = int(np.count_nonzero(winner == 0))
            tally.wins_ew = int(np.count_nonzero(winner == 1))
            tally.wins_2 = int(np.count_nonzero(winner == 2))
            tally.wins_3 = int(np.count_nonzero(winner == 3))
            tally.unfinished = int(np.count_nonzero(winner < 0))
        return tally

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tally:
        names = set(cls.__dataclass_fields__)
        return cls(**{k: int(v) for k, v in data.items() if k in names})

    @property
    def nil_rate(self) -> float:
        """Share of bids that were nil or blind nil."""
        return _ratio(self.nil_bids, self.bids)

    @property
    def nil_success_rate(self) -> float:
        """Share of nil and blind nil bids that were made."""
        return _ratio(self.nil_made, self.nil_bids)

    @property
    def made_rate(self) -> float:
        """Share of (non-zero) side contracts made."""
        return _ratio(self.made, self.contracts)

    @property
    def bags_per_hand(self) -> float:
        """Mean bags a side takes per hand (the per-seat rows repeat the side's bags)."""
        return _ratio(self.bags, self.rows)


def _ratio(a: float, b: float) -> float:
    return a / b if b else math.nan


# --------------------------------------------------------------------------------------
# Progress and summary
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Progress:
    """Where a run stands, passed to a progress callback after each chunk is queued."""

    done: int
    """Items (deals or games) finished, parts from an earlier run included."""
    total: int
    hands: int
    """Hands computed by this call so far."""
    seconds: float
    """Time since the call started."""
    parts: int = 0
    """Parts finished, parts from an earlier run included."""
    parts_total: int = 0
    """Parts in the whole run."""


@dataclass(frozen=True)
class RunSummary:
    """What a run did: sizes, time, rate and a few statistics of the whole dataset.

    ``hands``/``games`` and the statistics cover every part of the dataset (resumed ones
    included); ``new_hands`` and ``hands_per_second`` only the work of this call.
    """

    out: str
    mode: str
    total: int
    hands: int
    games: int
    rows: int
    parts: int
    parts_skipped: int
    new_hands: int
    seconds: float
    complete: bool
    nil_rate: float
    nil_success_rate: float
    made_rate: float
    bags_per_hand: float
    wins_ns: int = 0
    wins_ew: int = 0
    wins_2: int = 0  # sides 2 and 3 exist in cutthroat only (side = seat)
    wins_3: int = 0
    unfinished: int = 0
    # Kernels this call compiled (Numba's cache was cold for them; first run only) and the
    # seconds that took, part of ``seconds``. False/0 for a warm cache and for --scheduler.
    compiled: bool = False
    compile_seconds: float = 0.0
    # The double-dummy stage (``dd=True``; None: not asked): whether every deal is solved,
    # the deals this call solved (the others were solved before) and its seconds, part of
    # ``seconds``.
    dd_complete: bool | None = None
    dd_solved: int = 0
    dd_seconds: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def hands_per_second(self) -> float:
        """Hands computed and written by this call per second of its wall time."""
        return _ratio(self.new_hands, self.seconds) if self.seconds > 0 else math.nan

    def to_dict(self) -> dict[str, Any]:
        """The figures as a flat dict (JSON-ready: NaN becomes None), rate included."""
        data = {k: v for k, v in asdict(self).items() if k != "meta"}
        data["hands_per_second"] = self.hands_per_second
        return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in data.items()}

    def to_json(self) -> str:
        """One line of JSON (the command line's output when it is not on a terminal)."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    def format(self) -> str:
        """A one-screen, human-readable summary."""
        meta = self.meta
        policies = meta.get("policies", {})
        kinds = {"bidding": "bid", "play": "play"}

        def pair(kind: str) -> str:
            both = policies.get(kind, {})
            texts = [policy_text(both.get(side, {}), kinds[kind]) for side in ("ns", "ew")]
            return sides_text(texts, " vs ")

        status = "complete" if self.complete else "INCOMPLETE (run again with --resume)"
        if self.complete and self.dd_complete is False:
            status = "rows complete, double-dummy stage unfinished (resume with --dd)"
        done = f"{self.hands:,} hands"
        if self.mode == "games":
            done = f"{self.games:,} games, {done}"
        stored = f"{self.rows:,} rows"
        if "aggregate" in meta:  # aggregate mode: counts, no rows
            by = ",".join(meta["aggregate"].get("by", [])) or "no key"
            stored = f"counts by {by}"
        lines = [
            f"spades-sim: {done} in {self.out} ({self.parts} parts, {stored}, {status})",
            f"  rules      {rules_text(meta.get('rules', {}))}",
            f"  bidding    {pair('bidding')}",
            f"  play       {pair('play')}",
            f"  seed       {meta.get('seed')}",
            f"  time       {self.seconds:,.2f} s for {self.new_hands:,} new hands "
            f"({number(self.hands_per_second, ',.0f')} hands/s)"
            + (f", {self.parts_skipped} parts kept from before" if self.parts_skipped else "")
            + (f", {self.compile_seconds:,.1f} s of it compiling kernels" if self.compiled else ""),
            f"  nil        {percent(self.nil_rate)} of bids, {percent(self.nil_success_rate)} made",
            f"  contracts  {percent(self.made_rate)} made",
            f"  bags       {number(self.bags_per_hand, '.3f')} per side per hand",
        ]
        if self.dd_complete is not None:
            state = "every deal solved" if self.dd_complete else "unfinished (resume with --dd)"
            rate = f", {self.dd_seconds / self.dd_solved:,.2f} s a deal" if self.dd_solved else ""
            lines.append(
                f"  dd         {state}: {self.dd_solved:,} deals solved now in "
                f"{self.dd_seconds:,.1f} s{rate}"
            )
        if self.mode == "games":
            g = max(self.games, 1)
            wins = (self.wins_ns, self.wins_ew, self.wins_2, self.wins_3)
            # cutthroat: four (or three) lone sides, named by seat
            rules = self.meta.get("rules", {})
            cutthroat = rules.get("partnerships") is False
            players = int(rules.get("players", 4))
            names: tuple[str, ...] = SEAT_NAMES if cutthroat else SIDE_NAMES
            if cutthroat and players == 3:
                names = ("P0", "P1", "P2")
            won = ", ".join(
                f"{names[s]} {wins[s] / g:.1%}" for s in range(players if cutthroat else 2)
            )
            lines.append(
                f"  games      {won.replace(' ', ' won ', 1)}, unfinished {self.unfinished / g:.1%}"
            )
        return "\n".join(lines)
