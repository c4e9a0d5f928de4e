"""Bags: how fast a side piles them up, and, over whole games, what the penalty costs.

Contract
--------
:func:`bag_accumulation` has two units, chosen by ``per``:

``per="hand"`` (any run): a side in a hand (the rows of seats 0 and 1 carry their
side's figures; :func:`~spades_sim.analysis.compare.side_rows`). Measures:

- ``bags``: bags the side took in the hand (``bags_change``), mean;
- ``penalty``: share of side-hands in which the bag penalty struck (``bag_penalty > 0``);
- ``points_lost``: points lost to the bag penalty in the hand, mean.

Groups: the side's own columns (:data:`~spades_sim.analysis.source.SIDE_KEYS`: ``side``,
``side_contract``, ``hand_no``, ...), ``policy``, ``rules``.

``per="game"`` (a games run with its games table): a side in a game. A **penalty hand**
is a hand in which the side's bags reached the limit (``bag_penalty > 0``); a hand that
crosses the limit twice (possible from 7 bags with 13 tricks) is one penalty hand, its
points all counted in ``points_lost``. Every game counts, unfinished ones included
(group by ``outcome`` to set them apart). Measures:

- ``bags``: bags the side took over the game, mean;
- ``penalized``: share of side-games with at least one penalty hand;
- ``penalties``: penalty hands per side-game, mean;
- ``points_lost``: points the side lost to bags over the game, mean;
- ``first_penalty_hand``: hands played up to and including the side's first penalty hand
  (1: the first hand), mean over the side-games with a penalty;
- ``hands_between_penalties``: hands from one penalty hand of a side to its next in the
  same game (1: consecutive hands), mean over those pairs;
- ``decided_by_bags``: over the losing side of each finished game, the share of games a
  bag penalty decided. Definition: give every point both sides lost to bags back (final
  score plus the points it lost to bags, summed from its rows); the game was decided by a bag
  penalty when the loser would then be strictly ahead of the winner. The comparison is
  of the final scores: it does not replay the game (which, without the penalty, might
  have ended earlier or later). Grouped by ``side`` it is the share of that side's
  losses that bags decided; ungrouped, the share of all finished games.

Groups: ``side``, ``outcome`` (``won``, ``lost`` or ``unfinished``, from the side's view),
``policy``, ``rules``.

Sufficient statistics (:mod:`.reduce`): the measures' ``n``, sum and sum of squares per
group; a part holds whole games, so per-game sums are complete within a part. An
aggregate holds them as they are (its sides and games tables, :mod:`.aggregated`).

>>> from spades_sim import simulate_games
>>> pair = simulate_games(60, seed=4, play="heuristic")
>>> t = bag_accumulation(pair, per="game")
>>> t.measure.tolist()[:4]
['bags', 'penalized', 'penalties', 'points_lost']
>>> int(t.set_index("measure").n["bags"])  # two sides in 60 games
120
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from spades_sim.analysis.aggregated import column, game_units, group_stats, side_units
from spades_sim.analysis.reduce import Kind, Plan, finalize, run_plan, unit_frame
from spades_sim.analysis.source import SIDE_KEYS, Data

if TYPE_CHECKING:
    from spades_sim.run.aggregate_frames import Aggregate

HAND_MEASURES: dict[str, str] = {
    "bags": "bags a side took in a hand",
    "penalty": "share of side-hands in which the bag penalty struck",
    "points_lost": "points a side lost to the bag penalty in a hand",
}
GAME_MEASURES: dict[str, str] = {
    "bags": "bags a side took over a game",
    "penalized": "share of side-games with at least one bag penalty",
    "penalties": "penalty hands per side-game",
    "points_lost": "points a side lost to bags over a game",
    "first_penalty_hand": "hands up to the side's first penalty (n: penalized side-games)",
    "hands_between_penalties": "hands from a side's penalty to its next (n: pairs)",
    "decided_by_bags": "share of finished games the bag penalty decided (n: losing sides)",
}
_HAND_KINDS: dict[str, Kind] = {"bags": "mean", "penalty": "proportion", "points_lost": "mean"}
_GAME_KINDS: dict[str, Kind] = {
    "bags": "mean",
    "penalized": "proportion",
    "penalties": "mean",
    "points_lost": "mean",
    "first_penalty_hand": "mean",
    "hands_between_penalties": "mean",
    "decided_by_bags": "proportion",
}
OUTCOMES = ("won", "lost", "unfinished")


def _derive_hands(
    hands: pd.DataFrame, games: pd.DataFrame | None, keys: list[str]
) -> list[pd.DataFrame]:
    # a side's own row carries its figures: seats 0 and 1 in partnerships, every seat
    # with two players and in cutthroat
    sides = hands["seat"].to_numpy() == hands["side"].to_numpy()
    penalty = hands["bag_penalty"].to_numpy()[sides]
    units = unit_frame(hands, keys, sides)
    units["bags"] = hands["bags_change"].to_numpy()[sides]
    units["penalty"] = penalty > 0
    units["points_lost"] = penalty
    return [units]


def _winners(games: pd.DataFrame) -> pd.DataFrame:
    """Per game: the winner (-1: unfinished)."""
    return pd.DataFrame(
        {
            "game": games["game"].to_numpy(),
            "winner": games["winner"].to_numpy().astype(np.int64),
        }
    )


def _derive_games(
    hands: pd.DataFrame, games: pd.DataFrame | None, keys: list[str]
) -> list[pd.DataFrame]:
    assert games is not None
    sides = hands["seat"].to_numpy() == hands["side"].to_numpy()

    def column(name: str) -> np.ndarray:
        return hands[name].to_numpy()[sides].astype(np.int64)

    frame = pd.DataFrame(
        {
            "game": column("game"),
            "side": hands["side"].to_numpy()[sides],
            "hand_no": column("hand_no"),
            "bags": column("bags_change"),
            "points_lost": column("bag_penalty"),
            "score": column("score_change"),
        },
        copy=False,
    )
    frame["penalties"] = (frame["points_lost"] > 0).astype(np.int64)
    sums = ["bags", "points_lost", "penalties", "score"]
    per_game = frame.groupby(["game", "side"], sort=True)[sums].sum()
    struck = frame[frame["penalties"] > 0]
    first = struck.groupby(["game", "side"], sort=True)["hand_no"].min() + 1
    per_game["first_penalty_hand"] = first.reindex(per_game.index).astype(np.float64)
    per_game = per_game.reset_index()

    per_game = per_game.merge(_winners(games), on="game", how="left", validate="many_to_one")
    if per_game["winner"].isna().any():
        game = int(per_game.loc[per_game["winner"].isna(), "game"].iloc[0])
        raise ValueError(f"bag_accumulation: game {game} has hands but no row in the games table")
    winner = per_game["winner"].to_numpy()
    side = per_game["side"].to_numpy()
    outcome = np.where(winner < 0, "unfinished", np.where(winner == side, "won", "lost"))
    per_game["outcome"] = outcome
    loser = (winner >= 0) & (winner != side)
    per_game["penalized"] = per_game["penalties"] > 0
    # the final scores with every point lost to bags given back: a losing side the
    # penalty decided would have been ahead of the winner without it
    without = (per_game["score"] + per_game["points_lost"]).to_numpy()
    won = winner == side
    games_won = pd.Series(without[won], index=per_game["game"].to_numpy()[won])
    ahead = games_won.reindex(per_game["game"].to_numpy()).to_numpy()
    decided = without > np.where(np.isnan(ahead), 0, ahead)
    per_game["decided_by_bags"] = np.where(loser, decided, np.nan)

    measures = [
        "bags",
        "penalized",
        "penalties",
        "points_lost",
        "first_penalty_hand",
        "decided_by_bags",
    ]
    units = per_game[[*keys, *measures]]

    # hands between consecutive penalty hands of a side in a game (sorted by hand_no)
    struck = struck.sort_values(["game", "side", "hand_no"], kind="stable")
    same = (struck["game"].to_numpy()[1:] == struck["game"].to_numpy()[:-1]) & (
        struck["side"].to_numpy()[1:] == struck["side"].to_numpy()[:-1]
    )
    gaps = np.diff(struck["hand_no"].to_numpy())[same]
    pairs = struck.iloc[1:][same][["game", "side"]].merge(
        per_game[["game", "side", "outcome"]], on=["game", "side"], how="left"
    )
    pairs["hands_between_penalties"] = gaps.astype(np.float64)
    return [units, pairs[[*keys, "hands_between_penalties"]]]


def _hands_from_aggregate(agg: Aggregate, keys: list[str]) -> pd.DataFrame:
    sides = side_units(agg)
    count, penalties = column(sides, "count"), column(sides, "penalties")
    measures = {
        "bags": (count, column(sides, "bags"), column(sides, "bags_sq")),
        "penalty": (count, penalties, penalties),
        "points_lost": (count, column(sides, "points_lost"), column(sides, "points_lost_sq")),
    }
    return group_stats(sides, keys, measures)


def _games_from_aggregate(agg: Aggregate, keys: list[str]) -> pd.DataFrame:
    games = game_units(agg)
    count, penalized = column(games, "count"), column(games, "penalized")
    losers = np.where(games["outcome"].to_numpy() == "lost", count, 0)
    decided = column(games, "decided_by_bags")

    def moments(name: str, n: np.ndarray = count) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return n, column(games, name), column(games, name + "_sq")

    measures = {
        "bags": moments("bags"),
        "penalized": (count, penalized, penalized),
        "penalties": moments("penalties"),
        "points_lost": moments("points_lost"),
        "first_penalty_hand": moments("first_penalty_hand", penalized),
        "decided_by_bags": (losers, decided, decided),
        "hands_between_penalties": moments(
            "hands_between_penalties", column(games, "penalty_pairs")
        ),
    }
    return group_stats(games, keys, measures)


HAND_PLAN = Plan(
    name="bag_accumulation (per hand)",
    keys=SIDE_KEYS,
    hands_columns=("bags_change", "bag_penalty"),
    derive=_derive_hands,
    finalize=lambda stats, by, level: finalize(stats, by, _HAND_KINDS, level),
    from_aggregate=_hands_from_aggregate,
    unit="a side in a hand",
    measures=HAND_MEASURES,
)

GAME_PLAN = Plan(
    name="bag_accumulation (per game)",
    keys=("side", "outcome"),
    hands_columns=("game", "side", "hand_no", "bags_change", "bag_penalty", "score_change"),
    games_columns=("game", "winner"),
    derive=_derive_games,
    finalize=lambda stats, by, level: finalize(stats, by, _GAME_KINDS, level),
    from_aggregate=_games_from_aggregate,
    derived=("side", "outcome"),
    needs_games=True,
    unit="a side in a game",
    measures=GAME_MEASURES,
)


def bag_accumulation(
    data: Data | list[Data],
    by: str | Sequence[str] | None = None,
    *,
    per: Literal["hand", "game"] = "hand",
    level: float = 0.95,
) -> pd.DataFrame:
    """Bags and the bag penalty per side, per hand (``per="hand"``) or per game.

    ``data``: a frame, a ``(hands, games)`` pair, a run directory, or a list of them
    (``per="game"`` needs the games table). Returns the tidy table of :mod:`.reduce`.

    >>> from spades_sim import simulate_hands
    >>> df = simulate_hands(1000, seed=2, play="heuristic")
    >>> t = bag_accumulation(df, by="side")
    >>> t[t.measure == "bags"][["side", "n"]].values.tolist()
    [[0, 1000], [1, 1000]]
    >>> float(t.total[0]) == float(df[df.seat == 0].bags_change.sum())
    True
    """
    if per == "hand":
        return run_plan(data, HAND_PLAN, by, level)
    if per == "game":
        return run_plan(data, GAME_PLAN, by, level)
    raise ValueError(f"per: must be 'hand' or 'game', got {per!r}")


__all__ = ["GAME_MEASURES", "GAME_PLAN", "HAND_MEASURES", "HAND_PLAN", "bag_accumulation"]
