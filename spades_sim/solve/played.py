"""What each card of a played hand cost its side against double-dummy play.

Contract
--------
A played hand comes as a :class:`~spades_sim.solve.position.HandRecord` (the run layer's
:func:`spades_sim.run.double_dummy.record_of` regenerates deal ``index`` of a run spec as
``spades-sim show`` does, with its nil seats).
:func:`play_costs` replays a record card by card and, before each card, solves the
position: ``tricks_lost`` is the tricks the card's side gave up against its best card
(:func:`~spades_sim.solve.dd_cards`), ``nil_lost`` the nil seats whose nil was safe before
the card and no longer after it. :func:`render_costs` gives the lines ``show --dd`` prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from spades_sim.cards import format_card, seat_name
from spades_sim.solve.position import HandRecord, Position
from spades_sim.solve.solver import dd_cards, nil_safe

__all__ = ["PlayCost", "play_costs", "render_costs"]


@dataclass(frozen=True)
class PlayCost:
    """One card of a played hand against the double-dummy best."""

    trick: int
    seat: int
    card: int
    tricks_lost: int
    nil_lost: tuple[int, ...]


def play_costs(record: HandRecord, nils: Sequence[int] = ()) -> list[PlayCost]:
    """Every card of ``record`` with what it cost its side (module docstring)."""
    players = record.rules.players
    out = []
    pos = Position.after(record, 0)
    safe = {s: nil_safe(pos, s) for s in nils}
    for k, card in enumerate(record.plays):
        seat = pos.to_play
        values = dd_cards(pos)
        lost_tricks = max(values.values()) - values[pos.card_name(card)]
        nxt = pos.play(card) if k + 1 < len(record.plays) else None
        lost_nil = []
        for s in nils:
            now = nxt is not None and safe[s] and nil_safe(nxt, s)
            # only the nil side's own card can lose a nil that was safe before it
            lost = safe[s] and not now and s % 2 == seat % 2
            if lost and (nxt is not None or _wins_last(record, s)):
                lost_nil.append(s)
            safe[s] = now
        out.append(PlayCost(k // players, seat, card, lost_tricks, tuple(lost_nil)))
        if nxt is None:
            break
        pos = nxt
    return out


def _wins_last(record: HandRecord, seat: int) -> bool:
    """Whether ``seat`` wins the last trick of the record."""
    players = record.rules.players
    last = record.plays[-players:]
    leader = Position.after(record, len(record.plays) - players).to_play
    spades = [(c, j) for j, c in enumerate(last) if c >= 39]
    led = min(last[0] // 13, 3)
    pool = spades or [(c, j) for j, c in enumerate(last) if min(c // 13, 3) == led]
    return (leader + max(pool)[1]) % players == seat


def render_costs(costs: Sequence[PlayCost], players: int, deuces_high: bool = False) -> list[str]:
    """The lines ``show --dd`` prints: each trick's cards, each marked with its cost."""
    lines = ["double-dummy cost of each card (-N: tricks its side gave up; nil lost: the seat):"]
    for t in range(costs[-1].trick + 1 if costs else 0):
        parts = []
        for c in costs:
            if c.trick != t:
                continue
            mark = f" -{c.tricks_lost}" if c.tricks_lost else ""
            if c.nil_lost:
                mark += " nil lost: " + ",".join(seat_name(s, players) for s in c.nil_lost)
            parts.append(f"{seat_name(c.seat, players)} {format_card(c.card, deuces_high)}{mark}")
        lines.append(f"  {t + 1:2d}  " + "  ".join(parts))
    return lines
