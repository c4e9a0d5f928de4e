"""Result records of one hand: :class:`HandScore` (scoring) and :class:`HandResult` (play).

Plain frozen dataclasses of tuples, shared by the kernel-backed API (``spades_sim.hand``)
and the reference engine (``spades_sim.reference``) so the two can be compared with
``==``. Per-side tuples have two entries: partnerships N-S (0) and E-W (1) with four
players, or the two players themselves. Per-seat tuples have one entry per seat.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HandScore:
    """The score of one hand, per side (``nil_made`` per seat)."""

    contracts: tuple[int, ...]
    """Sum of the side's non-nil bids."""
    side_tricks: tuple[int, ...]
    """Tricks counted toward the contract (nil tricks only with nil_tricks_count_for_partner)."""
    made: tuple[bool | None, ...]
    """Contract made; None where the contract is 0 (nothing to make)."""
    score_change: tuple[int, ...]
    """Points won or lost this hand, bag penalties included."""
    scores_after: tuple[int, ...]
    bags_change: tuple[int, ...]
    """Bags taken this hand (before any penalty reduced the count)."""
    bags_after: tuple[int, ...]
    bag_penalties: tuple[int, ...]
    """Points lost to the bag penalty this hand (0 or a positive multiple of bag_penalty)."""
    boston: tuple[bool, ...]
    """The side won all 13 tricks."""
    nil_made: tuple[bool | None, ...]
    """Per seat: whether a nil or blind nil succeeded; None where no nil was bid."""


@dataclass(frozen=True)
class HandResult(HandScore):
    """A replayed hand: who won each trick, tricks per seat, and the score."""

    trick_winners: tuple[int, ...]
    """The seat that won each of the 13 tricks."""
    tricks: tuple[int, ...]
    """Tricks won per seat."""
