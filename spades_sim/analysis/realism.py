"""Realism: the figures that say whether simulated tables bid like real ones.

Contract
--------
:func:`realism` reads the per-seat rows of any run (hands or games; games runs with
their games table also give ``hands_per_game``) and returns one tidy table
(:mod:`.reduce`), one row per measure:

- ``nil_per_seat``: share of seats in hands that bid nil (not blind); ``n``: seat-hands;
- ``nil_per_side``: share of sides in hands with at least one nil (not blind) bid;
  ``n``: side-hands (two players: a side is a seat);
- ``blind_nil_per_seat``: share of seats in hands that bid blind nil; ``n``: seat-hands;
- ``nil_made``: share of nil bids (not blind) made; ``n``: nil bids;
- ``nil_made_clean``: the same over the nils whose hand (as play began) holds no spade
  higher than the ten: no jack, queen, king or ace of spades and no joker;
- ``nil_made_high_spade``: the same over the nils holding at least one such spade;
- ``nil_made_top_low``, ``nil_made_top_ten``, ``nil_made_top_jack``,
  ``nil_made_top_queen_up``: the share of nils made by the highest spade the hand holds
  as play began (none or two to nine; the ten; the jack; the queen or higher, jokers and
  high deuces included): a defence that forces high spades out sets more of each step;
- ``nil_unsafe_made`` and ``nil_safe_lost`` (runs solved double-dummy only: the columns
  ``dd_nil_safe``): the share of the nils that perfect defence would set which the
  played defence let through, and of the nils perfect play keeps which the played cover
  lost; ``n``: those nils;
- ``blind_nil_made``: share of blind nil bids made; ``n``: blind nil bids;
- ``bags_per_hand``: bags a side took in a hand (``bags_change``), mean; ``n``: side-hands;
- ``hands_per_game``: hands a game lasted, mean; ``n``: games (games table only).

Proportions carry Wilson intervals, means normal ones. Groups: ``rules`` only (the
measures mix seats, sides and games, so a per-seat or per-side key does not apply to all
of them). A batch's rows are whole hands, seat by seat (as every run writes them);
the side of a seat is ``seat % 2`` with four players in partnerships, the seat itself with
two and in cutthroat.

>>> from spades_sim import simulate_hands
>>> t = realism(simulate_hands(500, seed=1))
>>> t.measure.tolist()[:3]
['nil_per_seat', 'nil_per_side', 'blind_nil_per_seat']
>>> int(t.set_index("measure").n["nil_per_side"])
1000
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from spades_sim.analysis.reduce import Kind, Plan, finalize, run_plan
from spades_sim.analysis.source import Data, UnknownKey, key_list, sources

HIGH_SPADES = sum(1 << card for card in range(48, 56))
_TEN_UP = sum(1 << card for card in range(47, 56))
_QUEEN_UP = sum(1 << card for card in range(49, 56))
"""The spades above the ten as a hand mask: JS, QS, KS, AS (card ids 48..51) and every
trump above the ace (52..55: the jokers, and with the deuces high the 2S and 2D)."""

MEASURES: dict[str, str] = {
    "nil_per_seat": "share of seat-hands bidding nil, not blind (n: seat-hands)",
    "nil_per_side": "share of side-hands with a nil bid, not blind (n: side-hands)",
    "blind_nil_per_seat": "share of seat-hands bidding blind nil (n: seat-hands)",
    "nil_made": "share of nil bids made, not blind (n: nil bids)",
    "nil_made_clean": "share made of nils holding no spade above the ten (n: those nils)",
    "nil_made_high_spade": "share made of nils holding a spade above the ten (n: those nils)",
    "nil_made_top_low": "share made of nils whose highest spade is below the ten (or none)",
    "nil_made_top_ten": "share made of nils whose highest spade is the ten",
    "nil_made_top_jack": "share made of nils whose highest spade is the jack",
    "nil_made_top_queen_up": "share made of nils holding the queen of spades or higher",
    "nil_unsafe_made": "share made of the nils double-dummy defence sets (the defence's leak)",
    "nil_safe_lost": "share lost of the nils double-dummy play keeps (the cover's loss)",
    "blind_nil_made": "share of blind nil bids made (n: blind nil bids)",
    "bags_per_hand": "bags a side took in a hand (n: side-hands)",
    "hands_per_game": "hands a game lasted (n: games; games runs only)",
}
_KINDS: dict[str, Kind] = {
    name: ("mean" if name in ("bags_per_hand", "hands_per_game") else "proportion")
    for name in MEASURES
}


def _side_nils(seat: np.ndarray, side: np.ndarray, nil: np.ndarray) -> np.ndarray:
    """Per side-hand (hand by hand, side by side): whether a seat of the side bid nil."""
    players = int(seat.max()) + 1 if len(seat) else 4
    if len(seat) % players or not np.array_equal(seat, np.resize(np.arange(players), len(seat))):
        raise ValueError("realism: a batch's rows must be whole hands, seat by seat")
    by_hand = nil.reshape(-1, players)
    if np.array_equal(seat, side):  # two players, cutthroat: each seat a side
        return by_hand.reshape(-1)
    return np.stack([by_hand[:, 0] | by_hand[:, 2], by_hand[:, 1] | by_hand[:, 3]], 1).reshape(-1)


def _derive(hands: pd.DataFrame, games: pd.DataFrame | None, keys: list[str]) -> list[pd.DataFrame]:
    seat = hands["seat"].to_numpy()
    side = hands["side"].to_numpy()
    nil = hands["nil"].to_numpy().astype(bool)
    blind = hands["blind_nil"].to_numpy().astype(bool)
    made = hands["nil_made"].to_numpy().astype(bool)
    held = hands["hand"].to_numpy().astype(np.uint64)
    high = (held & np.uint64(HIGH_SPADES)) != 0
    ten_up = (held & np.uint64(_TEN_UP)) != 0
    queen_up = (held & np.uint64(_QUEEN_UP)) != 0
    seats = pd.DataFrame(
        {
            "nil_per_seat": nil,
            "blind_nil_per_seat": blind,
            "nil_made": np.where(nil, made, np.nan),
            "nil_made_clean": np.where(nil & ~high, made, np.nan),
            "nil_made_high_spade": np.where(nil & high, made, np.nan),
            "nil_made_top_low": np.where(nil & ~ten_up, made, np.nan),
            "nil_made_top_ten": np.where(nil & ten_up & ~high, made, np.nan),
            "nil_made_top_jack": np.where(nil & high & ~queen_up, made, np.nan),
            "nil_made_top_queen_up": np.where(nil & queen_up, made, np.nan),
            "blind_nil_made": np.where(blind, made, np.nan),
        }
    )
    if "dd_nil_safe" in hands.columns:
        safe = hands["dd_nil_safe"].to_numpy().astype(bool)
        seats["nil_unsafe_made"] = np.where(nil & ~safe, made, np.nan)
        seats["nil_safe_lost"] = np.where(nil & safe, ~made, np.nan)
    sides = pd.DataFrame(
        {
            "nil_per_side": _side_nils(seat, side, nil),
            "bags_per_hand": hands["bags_change"].to_numpy()[seat == side].astype(np.float64),
        }
    )
    units = [seats, sides]
    if games is not None:
        units.append(pd.DataFrame({"hands_per_game": games["hands"].to_numpy().astype(np.float64)}))
    return units


PLAN = Plan(
    name="realism",
    keys=(),
    hands_columns=("nil", "blind_nil", "nil_made", "hand", "bags_change"),
    derive=_derive,
    finalize=lambda stats, by, level: finalize(stats, by, _KINDS, level),
    unit="a seat, a side or a game (by measure)",
    measures=MEASURES,
)
GAMES_PLAN = replace(PLAN, games_columns=("hands",))
"""The plan when every source has its games table (``hands_per_game`` too)."""
DD_PLAN = replace(PLAN, hands_columns=(*PLAN.hands_columns, "dd_nil_safe"))
"""The plan when every source was solved double-dummy (the leak and the loss too)."""


def realism(
    data: Data | list[Data], by: str | Sequence[str] | None = None, *, level: float = 0.95
) -> pd.DataFrame:
    """The realism table of ``data`` (a frame, a ``(hands, games)`` pair, a run directory
    or a list of them): nil and blind nil rates, nil success clean and with a high spade,
    bags per hand, hands per game; ``by`` may only be ``"rules"``.

    >>> from spades_sim import simulate_games
    >>> t = realism(simulate_games(20, seed=2))
    >>> int(t.set_index("measure").n["hands_per_game"])
    20
    """
    keys = key_list(by)
    if any(k != "rules" for k in keys):
        raise UnknownKey(
            f"by: realism groups by 'rules' only (its measures mix seats, sides and games), "
            f"got {', '.join(keys)}"
        )
    found = sources(data)
    with_games = all(source.has_games for source in found)
    plan = GAMES_PLAN if with_games else PLAN
    if all("dd_nil_safe" in source.hands_columns for source in found):
        plan = replace(plan, hands_columns=DD_PLAN.hands_columns)
    return run_plan(data, plan, keys, level)


__all__ = ["DD_PLAN", "GAMES_PLAN", "HIGH_SPADES", "MEASURES", "PLAN", "realism"]
