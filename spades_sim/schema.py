"""Output columns: names, NumPy dtypes, nullability and meaning, for every table.

The kernels fill column blocks: a column's ``block`` (``"i8"``, ``"i32"`` per seat,
``"game"`` per game) says which block holds it, as the row named after it; the kernels'
row enums (``_nb.enums.OutI8``, ``OutI32``, ``GameOut``) are built from these
declarations in this order, plus the ``KERNEL_ONLY_ROWS`` that are not columns.
``simulate`` turns the rows into the columns named here, in this order. The same list
drives the Parquet writer (``nullable`` int8 columns become Arrow booleans with nulls),
the pandas frames (pandas ``boolean``), and the README's schema table. Bump
``SCHEMA_VERSION`` when a column changes meaning or type.

What a side is: with four players in partnerships, N-S (0) and E-W (1); with two
players, the player; in cutthroat (``Rules.partnerships`` false) every seat is its own
side, side s = seat s, so the ``side_*``, ``score_*``, ``bags_*`` columns of a seat's
row are that seat's own, and the games table carries sides 2 and 3 in ``*_2``/``*_3``
(0 when there are only two sides; ``score_ns``/``score_ew`` are sides 0 and 1, N and E
in cutthroat). Three players (cutthroat, seats P0, P1, P2) have three rows a hand and
sides 0..2, their final scores in ``score_ns``, ``score_ew`` and ``score_2`` (``*_3`` 0).

Widths are chosen so that no rule set :class:`~spades_sim.rules.Rules` accepts can wrap
a value: a hand's score change reaches about 160,000 (two blind nils at 10,000, a
Boston bonus of 10,000, 13 bag penalties of 10,000 with ``bag_limit=1``), so scores
and penalties are int32; bags carried without a penalty reach 13 per hand times
``max_hands`` (at most 10,000), so bags are int32 too; hand counts stay below 32,768.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SCHEMA_VERSION = 3  # 3: sides 2 and 3 of cutthroat (game columns *_2, *_3; side = seat)


@dataclass(frozen=True)
class Column:
    """One output column."""

    name: str
    dtype: np.dtype
    doc: str
    nullable_bool: bool = False  # stored as int8 1/0/-1 (null) until it reaches Arrow/pandas
    games_only: bool = False
    hands_only: bool = False
    block: str | None = None  # the kernel output block holding it; None: simulate computes it


def _c(name: str, dtype: str, doc: str, block: str | None = None, **kw: bool) -> Column:
    return Column(name, np.dtype(dtype), doc, block=block, **kw)


HAND_COLUMNS: tuple[Column, ...] = (
    _c("deal", "int64", "deal index within the run (hands mode)", hands_only=True),
    _c("game", "int64", "game index (games mode)", games_only=True),
    _c("hand_no", "int16", "hand number within the game, from 0 (games mode)", games_only=True),
    _c("seat", "int8", "seat: 0 N, 1 E, 2 S, 3 W (two players: 0, 1; three: 0, 1, 2)"),
    _c("side", "int8", "partnership: 0 N-S, 1 E-W (two players, cutthroat: the seat)"),
    _c("dealer", "int8", "dealer's seat (two players: who drew first)", "i8"),
    _c("hand", "uint64", "cards held when play began (bit id = suit*13+rank)"),
    _c("spades", "int8", "number of spades held (jokers included)", "i8"),
    _c("high_spades", "int8", "spades of queen or higher held (jokers included)", "i8"),
    _c("aces", "int8", "aces held", "i8"),
    _c("kings", "int8", "kings held", "i8"),
    _c("queens", "int8", "queens held", "i8"),
    _c("shortest_suit", "int8", "length of the shortest suit", "i8"),
    _c("voids", "int8", "number of suits not held", "i8"),
    _c("points", "int8", "high-card points: A 4, K 3, Q 2, J 1", "i8"),
    _c("bid", "int8", "bid, 0..13, three players 0..17 or 18 (0 for nil and blind nil)", "i8"),
    _c("nil", "bool", "bid nil (not blind)"),
    _c("blind_nil", "bool", "declared blind nil"),
    _c("tricks", "int8", "tricks won by this seat", "i8"),
    _c("side_contract", "int8", "sum of the side's non-nil bids", "i8"),
    _c("side_tricks", "int8", "tricks counted toward the side's contract", "i8"),
    _c(
        "made", "int8", "side contract made (null when the contract is 0)", "i8", nullable_bool=True
    ),
    _c(
        "nil_made",
        "int8",
        "this seat's nil or blind nil made (null: no nil)",
        "i8",
        nullable_bool=True,
    ),
    _c("score_change", "int32", "side's points this hand, bag penalty included", "i32"),
    _c("bags_change", "int8", "bags the side took this hand", "i8"),
    _c("bag_penalty", "int32", "points the side lost to the bag penalty this hand", "i32"),
    _c("boston", "bool", "the side won all 13 tricks", "i8"),
    _c(
        "score_before", "int32", "side's score before the hand (games mode)", "i32", games_only=True
    ),
    _c("score_after", "int32", "side's score after the hand (games mode)", "i32", games_only=True),
    _c("bags_before", "int32", "side's bags before the hand (games mode)", "i32", games_only=True),
    _c("bags_after", "int32", "side's bags after the hand (games mode)", "i32", games_only=True),
)

GAME_COLUMNS: tuple[Column, ...] = (
    _c("game", "int64", "game index within the run"),
    _c("first_dealer", "int8", "dealer of the first hand", "game"),
    _c("winner", "int8", "winning side (-1: unfinished)", "game"),
    _c("reason", "int8", "1 target reached, 2 loss threshold, 3 unfinished (max_hands)", "game"),
    _c("hands", "int16", "hands played", "game"),
    _c("score_ns", "int32", "final score of side 0 (N-S, or player 0)", "game"),
    _c("score_ew", "int32", "final score of side 1 (E-W, or player 1)", "game"),
    _c("bags_ns", "int32", "final bags of side 0", "game"),
    _c("bags_ew", "int32", "final bags of side 1", "game"),
    _c("bag_penalty_ns", "int32", "points side 0 lost to bags over the game", "game"),
    _c("bag_penalty_ew", "int32", "points side 1 lost to bags over the game", "game"),
    _c("score_2", "int32", "final score of side 2 (cutthroat: S or P2; 0 with two sides)", "game"),
    _c("score_3", "int32", "final score of side 3 (cutthroat: W; 0 with two or three)", "game"),
    _c("bags_2", "int32", "final bags of side 2 (cutthroat; 0 with two sides)", "game"),
    _c("bags_3", "int32", "final bags of side 3 (cutthroat; 0 with two sides)", "game"),
    _c("bag_penalty_2", "int32", "points side 2 lost to bags (cutthroat; else 0)", "game"),
    _c("bag_penalty_3", "int32", "points side 3 lost to bags (cutthroat; else 0)", "game"),
)

PLAY_COLUMNS: tuple[Column, ...] = (
    _c("deal", "int64", "deal index (as in the hands table)"),
    _c("dealt", "uint64", "per seat (list): cards dealt, before any blind nil exchange"),
    _c("plays", "int8", "the 52 (two players: 26; three: 51 or 54) card ids in play order (list)"),
    _c("trick_winners", "int8", "the seat that won each of the 13 (17, 18) tricks (list)"),
)

DD_COLUMNS: tuple[Column, ...] = (
    _c(
        "dd_side_tricks",
        "int8",
        "tricks the seat's side takes from the opening lead under double-dummy play (with --dd)",
        hands_only=True,
    ),
    _c(
        "dd_nil_safe",
        "bool",
        "a nil of this seat alone survives double-dummy defence from the opening lead (with --dd)",
        hands_only=True,
    ),
)
"""Per-seat columns of a hands run solved double-dummy (``--dd``, ``spades-sim solve RUN``):
never null, present only then. They describe the hands as play began (the ``hand``
column, after any blind nil or nil exchange) with the opening leader to lead; the
solver's per-deal table lives beside the rows (``_dd/``) and readers join it on ``deal``
and ``seat`` (:mod:`spades_sim.run.double_dummy`)."""

# The ``reason`` codes of a game's end (the kernels' ``_nb.enums.EndReason`` is built
# from this; 0 there means the game goes on).
REASONS = {1: "target", 2: "loss_threshold", 3: "unfinished"}

# Rows the kernels write that are not columns: ``nil_kind`` (0 none, 1 nil, 2 blind nil)
# becomes ``nil`` and ``blind_nil``; ``policy_error`` counts a game's illegal decisions.
KERNEL_ONLY_ROWS: dict[str, tuple[str, ...]] = {"i8": ("nil_kind",), "game": ("policy_error",)}


def hand_columns(games: bool) -> tuple[Column, ...]:
    """The per-seat columns of a run of hands (games=False) or of games."""
    return tuple(
        c for c in HAND_COLUMNS if (games and not c.hands_only) or (not games and not c.games_only)
    )


def nullable_names(columns: tuple[Column, ...]) -> set[str]:
    """Names of the columns stored as int8 1/0/-1 that mean a nullable boolean."""
    return {c.name for c in columns if c.nullable_bool}


def markdown_table(columns: tuple[Column, ...]) -> str:
    """The columns as a Markdown table (for the README).

    >>> print(markdown_table(GAME_COLUMNS[:1]))
    | column | type | meaning |
    |---|---|---|
    | `game` | int64 | game index within the run |
    """
    rows = ["| column | type | meaning |", "|---|---|---|"]
    for c in columns:
        kind = "bool (nullable)" if c.nullable_bool else str(c.dtype)
        rows.append(f"| `{c.name}` | {kind} | {c.doc} |")
    return "\n".join(rows)
