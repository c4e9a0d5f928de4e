"""The double-dummy answers for one position: tricks, each card's value, nil safety.

Contract
--------
Every function takes a :class:`~spades_sim.solve.position.Position` (already validated)
and calls the kernels of ``spades_sim._nb.dd``; nothing here searches.

- :func:`dd_tricks`: the tricks the side of the seat to play takes from here to the end,
  the current trick included, when all four (or two) seats see every card and each plays
  to maximise its side's tricks.
- :func:`dd_cards`: for each legal card of the seat to play, named as the package prints
  cards (``"AS"``, ``"TD"``, ``"BJ"``), that side's :func:`dd_tricks` after playing it.
- :func:`nil_safe`: whether the nil seat's side can play so that the seat (or both
  partners, given as a pair) wins no trick from here on, whatever the others do.
- :func:`nil_cards`: the cards of the seat to play after which that still holds.

Each thread keeps one transposition table (:class:`Table`, :data:`DEFAULT_TABLE_BITS`),
allocated on its first solve and reused: its entries are facts about positions, valid
for any later solve. The first call in a process compiles the kernels (or loads them
from Numba's cache), announced like every kernel (``spades_sim.threads``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from spades_sim._nb import dd
from spades_sim.cards import seat_index, seat_name
from spades_sim.errors import SpadesError
from spades_sim.rules import Rules
from spades_sim.solve.position import Position
from spades_sim.threads import ensure_compiled, stoppable

__all__ = [
    "DEFAULT_TABLE_BITS",
    "MAX_TABLE_BITS",
    "Table",
    "abortable",
    "check_solvable_rules",
    "dd_cards",
    "dd_tricks",
    "nil_cards",
    "nil_mask",
    "nil_safe",
    "play_rules",
    "seat_nil_mask",
]

DEFAULT_TABLE_BITS = 20
"""Slots of a thread's table, as a power of two: 2**20 slots of 72 bytes, 72 MiB."""
MAX_TABLE_BITS = 21
"""The largest table allowed: 2**21 slots, 144 MiB a thread."""


@dataclass
class Table:
    """One thread's transposition table: fixed-size arrays, allocated once."""

    bits: int = DEFAULT_TABLE_BITS
    keys: np.ndarray = field(init=False, repr=False)
    data: np.ndarray = field(init=False, repr=False)
    stats: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if isinstance(self.bits, bool) or not isinstance(self.bits, int):
            raise ValueError(f"table bits: expected an int, got {self.bits!r}")
        if not 10 <= self.bits <= MAX_TABLE_BITS:
            raise ValueError(f"table bits: must be 10..{MAX_TABLE_BITS}, got {self.bits}")
        self.keys, self.data = dd.new_table(self.bits)
        self.stats = np.zeros(dd.STATS, dtype=np.int64)

    @property
    def nbytes(self) -> int:
        return int(self.keys.nbytes + self.data.nbytes)


_LOCAL = threading.local()


def thread_table() -> Table:
    """This thread's table, allocated on first use."""
    table = getattr(_LOCAL, "table", None)
    if table is None:
        table = _LOCAL.table = Table()
    return table


def _node(pos: Position) -> tuple[object, ...]:
    """The kernel's arguments for a position, from ``hands`` to ``first``."""
    if not isinstance(pos, Position):
        raise SpadesError(f"expected a Position, got {type(pos).__name__}")
    players = pos.rules.players
    hands = np.zeros(4, dtype=np.uint64)
    hands[:players] = pos.hands
    leader = pos.leader
    if pos.trick:
        led = min(pos.trick[0] // 13, 3)
        win_seat = leader
        win_card = pos.trick[0]
        for j, card in enumerate(pos.trick[1:], start=1):
            if card > win_card and (min(card // 13, 3) == led or card >= 39):
                win_card, win_seat = card, (leader + j) % players
    else:
        led = win_card = win_seat = -1
    trick = 0
    for card in pos.trick:
        trick |= 1 << card
    return (
        hands, np.int64(players), np.int64(pos.to_play), np.int64(len(pos.trick)),
        np.int64(led), np.int64(win_card), np.int64(win_seat), np.uint64(trick),
        bool(pos.broken_now), bool(pos.first_trick),
    )  # fmt: skip


def check_solvable_rules(rules: Rules, nil: bool = False) -> None:
    """Refuse, with one line, a rule set the solver does not play. Cutthroat
    (``partnerships`` false, four or three players): a seat's tricks are its own against
    opponents who each play for their own, which have no double-dummy value (the
    solver's is a partnership's), so only a nil is solved there (``nil``: the nil seat
    alone against the others)."""
    if not rules.partnerships and not nil:
        raise SpadesError(
            "partnerships: the double-dummy solver plays partnerships (or two players); in "
            "cutthroat (partnerships=false) it solves only a nil (nil_safe, nil_cards)"
        )


def play_rules(rules: Rules, nil: bool = False) -> np.int64:
    """The kernels' ``play_rules`` bits of a rule set (``spades_sim._nb.dd.PLAY_*``);
    refuses what :func:`check_solvable_rules` refuses."""
    check_solvable_rules(rules, nil)
    return np.int64(dd.play_rules_nb(rules.lower()))


_T = TypeVar("_T")


def abortable(work: Callable[[], _T], flags: Sequence[np.ndarray]) -> _T:
    """``work()``, which calls the solver's kernels with the ``stats`` arrays ``flags``,
    made stoppable by Ctrl-C (``threads.stoppable``: from the main thread the work runs
    on a helper thread while this one waits): Ctrl-C sets every flag's ``stats[...,
    S_ABORT]``, the kernels return within a few thousand nodes, and KeyboardInterrupt is
    raised here. The flags are cleared first."""
    for stats in flags:
        stats[..., dd.S_ABORT] = 0

    def stop() -> None:
        for stats in flags:
            stats[..., dd.S_ABORT] = 1

    return stoppable(work, stop)


def _call(kernel: object, args: tuple[object, ...]) -> object:
    ensure_compiled(kernel, args)
    stats = args[-1]
    assert isinstance(stats, np.ndarray)
    out = abortable(lambda: kernel(*args), [stats])  # type: ignore[operator]
    if stats[dd.S_ABORT]:
        raise KeyboardInterrupt
    return out


def _side_tricks(pos: Position, side0: int) -> int:
    return side0 if pos.to_play % 2 == 0 else pos.tricks_left - side0


def dd_tricks(pos: Position) -> int:
    """The tricks the side of the seat to play takes from here to the end (the current
    trick included) under double-dummy play."""
    node = _node(pos)
    table = thread_table()
    guess = np.int64(-1)  # the kernel's estimate
    args = (*node, play_rules(pos.rules), table.keys, table.data, guess, table.stats)
    return _side_tricks(pos, int(_call(dd.dd_value_nb, args)))  # type: ignore[call-overload]


def _values(pos: Position, mode: int, mask: int) -> dict[str, int]:
    node = _node(pos)
    table = thread_table()
    out = np.full(64, -1, dtype=np.int64)
    rule_bits = play_rules(pos.rules, nil=mode == dd.MODE_NIL)
    args = (
        np.int64(mode), *node, np.int64(mask), rule_bits, table.keys, table.data, out,
        table.stats,
    )  # fmt: skip
    _call(dd.card_values_nb, args)
    return {pos.card_name(c): int(out[c]) for c in pos.legal_cards()}


def dd_cards(pos: Position) -> dict[str, int]:
    """For each legal card of the seat to play (highest first), the tricks its side takes
    from here (the current trick included) after playing it, all play double-dummy."""
    return _values(pos, dd.MODE_TRICKS, 0)


def nil_mask(pos: Position, seat: int | str | Iterable[int | str]) -> int:
    """The nil seats as a bit mask: one seat, or two partners (four players); in
    cutthroat one seat, with ``dd.NIL_ALONE`` (it plays alone against the others)."""
    players = pos.rules.players
    seats = [seat] if isinstance(seat, (int, str, np.integer)) else list(seat)
    try:
        idx = sorted({seat_index(s, players) for s in seats})
    except ValueError as error:
        raise SpadesError(f"nil seat: {error}") from None
    if not idx:
        raise SpadesError("nil seat: name one seat, or two partners")
    names = ", ".join(seat_name(s, players) for s in idx)
    if len(idx) > 1 and (players == 2 or not pos.rules.partnerships):
        # no partners at these tables: two nils are two lone players, solved one at a time
        table = "two players" if players == 2 else "cutthroat (partnerships=false)"
        raise SpadesError(
            f"nil seats {names}: with {table} every player plays alone, so a nil is solved "
            "one seat at a time; name one nil seat"
        )
    if len(idx) > 1 and (len(idx) > 2 or idx[0] % 2 != idx[1] % 2):
        raise SpadesError(f"nil seats {names}: two nil seats must be partners (N and S, E and W)")
    if not pos.rules.partnerships:
        return seat_nil_mask(idx[0], pos.rules)
    return sum(1 << s for s in idx)


def seat_nil_mask(seat: int, rules: Rules) -> int:
    """One nil seat (an index) as the kernels' ``nil_mask``: its bit, with
    ``dd.NIL_ALONE`` in cutthroat, where it plays alone against the others."""
    return (1 << seat) | (0 if rules.partnerships else dd.NIL_ALONE)


def nil_safe(pos: Position, seat: int | str | Iterable[int | str]) -> bool:
    """Whether the side of the nil ``seat`` (or of both partners, given as a pair) can
    play so that it wins no trick from here on, the current trick included, whatever the
    opponents do, every card seen. In cutthroat (four players, ``partnerships`` false)
    the nil seat plays alone against the other three."""
    mask = nil_mask(pos, seat)
    node = _node(pos)
    table = thread_table()
    rule_bits = play_rules(pos.rules, nil=True)
    args = (*node, np.int64(mask), rule_bits, table.keys, table.data, table.stats)
    return bool(_call(dd.nil_safe_nb, args))


def nil_cards(pos: Position, seat: int | str | Iterable[int | str]) -> list[str]:
    """The legal cards of the seat to play (highest first) after which the nil of
    ``seat`` is still safe (:func:`nil_safe`)."""
    values = _values(pos, dd.MODE_NIL, nil_mask(pos, seat))
    return [card for card, safe in values.items() if safe == 1]
