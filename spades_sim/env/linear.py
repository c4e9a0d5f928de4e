"""A trained player: a linear policy over card features, its file, and a NumPy learner.

Contract. :class:`LinearPlayer` is ``N_CARD_FEATURES`` weights over the features of
``spades_sim._nb.env.card_features_nb`` (``CARD_FEATURES``: what playing a card does,
computed from the seat's own hand and the public table state only). As a play policy
(:meth:`LinearPlayer.policy`, the user-written policy :func:`linear_play` with the weights
as its parameters) it plays the legal card of highest score, so it can be seated in
``simulate_hands``, ``duplicate`` and ``ladder`` like any other player; the weights fit
a policy's parameter row (16 numbers), so a sweep or a new file never recompiles.
:meth:`LinearPlayer.save` / :meth:`LinearPlayer.load` write and read it as JSON: the
weights are numbers only (a string or a boolean is refused), any fault of a file is one
``ValueError`` line naming it, and ``save`` replaces no file but a player's own.

:func:`train_linear_player` learns the weights with REINFORCE (a softmax over the legal
cards' scores, the hand's points as the return, a running-mean baseline) on a
:class:`~spades_sim.env.vector.VectorSpades` whose learner plays one seat's cards (its
bids by the bidding policy), in NumPy only; the same feature kernel feeds the learner and
the player, so what is trained is what plays.
"""

from __future__ import annotations

import json
import math
import numbers
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from spades_sim._nb import env as kernels
from spades_sim.env.table import N_CARD_ACTIONS
from spades_sim.env.vector import VectorSpades
from spades_sim.policies import Policy
from spades_sim.rules import Rules

CARD_FEATURES = (
    "rank",  # the card's rank in its suit, 0 (the 2) .. 1 (the ace, or a joker)
    "spade",
    "wins",  # following, it beats the trick's winning card so far
    "wins_over_partner",
    "wins_when_side_needs_tricks",
    "wins_when_own_nil",
    "wins_when_last",  # the last card of the trick: the trick is sure
    "leading_rank",
    "leading_spade",
    "rank_when_own_nil",
    "boss",  # no card above it in its suit is still unseen
    "boss_leading",
    "suit_length",  # the seat's cards in the card's suit / 13
    "wins_when_partner_nil",
    "ruff",  # a spade on a trick led in another suit
    "wins_when_side_made",  # a trick beyond the contract: a bag
)
N_CARD_FEATURES = kernels.N_CARD_FEATURES
assert len(CARD_FEATURES) == N_CARD_FEATURES
PARAM_NAMES = tuple(f"w{k}" for k in range(N_CARD_FEATURES))
FILE_KIND = "spades_sim.linear_player"


def linear_play(ctx):
    """The trained linear player as a user-written play policy (its parameters
    ``w0 .. w15`` are the weights): the legal card of highest score."""
    return kernels.linear_card_nb(
        ctx.hand, ctx.legal, ctx.seat, ctx.info, ctx.rule_array, ctx.params
    )


@dataclass(frozen=True)
class LinearPlayer:
    """The weights of a linear player, one per feature of ``CARD_FEATURES``."""

    weights: tuple[float, ...]

    def __post_init__(self) -> None:
        given = self.weights
        if isinstance(given, (str, bytes)) or not isinstance(given, Iterable):
            raise ValueError(f"weights: expected {N_CARD_FEATURES} numbers, got {given!r}")
        given = tuple(given)
        if len(given) != N_CARD_FEATURES:
            raise ValueError(f"weights: expected {N_CARD_FEATURES} numbers, got {len(given)}")
        for k, w in enumerate(given):
            # float() would read "0.5" and True as weights: only numbers are
            if isinstance(w, bool) or not isinstance(w, numbers.Real):
                raise ValueError(f"weights[{k}]: {w!r} is not a number")
        values = tuple(float(w) for w in given)
        if not all(math.isfinite(w) for w in values):
            raise ValueError("weights: every weight must be a finite number")
        object.__setattr__(self, "weights", values)

    def policy(self, name: str = "linear") -> Policy:
        """The player as a play policy (a user-written one: :func:`linear_play`)."""
        params = dict(zip(PARAM_NAMES, self.weights, strict=True))
        return Policy.custom(linear_play, "play", params, name=name)

    def save(self, path: str | Path) -> None:
        """Write the player as JSON (the feature names with the weights), whole or not at
        all; a file already there is replaced only if it is a linear player's file."""
        target = Path(path)
        if target.is_dir() or (target.exists() and not _is_player_file(target)):
            raise ValueError(f"{target}: is there and is not a linear player file: not replaced")
        record = {
            "kind": FILE_KIND,
            "features": list(CARD_FEATURES),
            "weights": list(self.weights),
        }
        temporary = target.with_name(f".{target.name}.tmp")
        temporary.write_text(json.dumps(record, indent=1) + "\n")
        os.replace(temporary, target)

    @classmethod
    def load(cls, path: str | Path) -> LinearPlayer:
        """Read a player written by :meth:`save`; anything else (another file, other
        features, weights that are not 16 finite numbers) is one ``ValueError`` line
        naming the file."""
        record = _read_record(Path(path))
        if record.get("kind") != FILE_KIND:
            raise ValueError(f"{path}: not a linear player file (kind {FILE_KIND!r})")
        features = record.get("features")
        if not isinstance(features, list) or tuple(features) != CARD_FEATURES:
            raise ValueError(f"{path}: its features are not this version's CARD_FEATURES")
        weights = record.get("weights")
        if not isinstance(weights, list):
            raise ValueError(
                f"{path}: weights: expected a list of {N_CARD_FEATURES} numbers, got "
                f"{json.dumps(weights) if 'weights' in record else 'none'}"
            )
        try:
            return cls(tuple(weights))
        except ValueError as err:
            raise ValueError(f"{path}: {err}") from None


def _read_record(path: Path) -> dict[str, Any]:
    """The JSON object of the file ``path``, or one ``ValueError`` line naming it."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ValueError(f"{path}: cannot be read ({err.strerror or err})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{path}: not a linear player file ({err})") from None
    if not isinstance(record, dict):
        raise ValueError(f"{path}: not a linear player file (kind {FILE_KIND!r})")
    return record


def _is_player_file(path: Path) -> bool:
    """Whether ``path`` holds a linear player's JSON (its kind), so saving may replace it."""
    try:
        return _read_record(path).get("kind") == FILE_KIND
    except ValueError:
        return False


@dataclass(frozen=True)
class TrainingPoint:
    """The learner after ``hands`` training hands: its mean reward over the last
    ``window`` hands, and its weights then."""

    hands: int
    mean_reward: float
    player: LinearPlayer


def train_linear_player(
    hands: int,
    *,
    num_envs: int = 256,
    seed: int = 0,
    rules: Rules | str | None = None,
    seat: int = 0,
    partner: str | Policy = "heuristic",
    opponents: str | Policy = "heuristic",
    bidding: str | Policy = "count",
    learning_rate: float = 1.0,
    start: LinearPlayer | None = None,
    every: int = 0,
    callback: Callable[[TrainingPoint], Any] | None = None,
) -> tuple[LinearPlayer, list[TrainingPoint]]:
    """Learn a :class:`LinearPlayer` over at least ``hands`` hands of one learner seat.

    REINFORCE with a running-mean baseline: each card is drawn from the softmax of the
    legal cards' scores; when a hand ends the weights move by ``learning_rate`` times the
    advantage (its points / 100 minus the baseline) times the sum of the hand's
    score-function gradients. Every ``every`` hands (0: only at the end) a
    :class:`TrainingPoint` is recorded and passed to ``callback``.
    """
    if hands < 1:
        raise ValueError(f"hands: must be at least 1, got {hands}")
    vec = VectorSpades(
        num_envs, rules=rules, seat=seat, partner=partner, opponents=opponents,
        bidding=bidding, learner_bids=False,
    )  # fmt: skip
    rng = np.random.default_rng(seed)
    theta = np.array(start.weights if start else np.zeros(N_CARD_FEATURES), dtype=np.float64)
    n = vec.num_envs
    rows = np.arange(n)
    grads = np.zeros((n, N_CARD_FEATURES))
    features = np.zeros((n, N_CARD_ACTIONS, N_CARD_FEATURES))
    baseline = 0.0
    done_hands = 0
    recent: list[float] = []
    history: list[TrainingPoint] = []
    next_point = every if every > 0 else hands
    vec.reset(seed=seed)
    while done_hands < hands:
        kernels.vec_card_features_nb(
            vec.lowered_rules, vec.table_info, vec.table_hidden, vec.table_state, features,
        )  # fmt: skip
        legal = vec.masks[:, :N_CARD_ACTIONS]
        logits = np.where(legal, features @ theta, -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        prob = np.exp(logits)
        prob /= prob.sum(axis=1, keepdims=True)
        u = rng.random(n)[:, None]
        actions = np.minimum((np.cumsum(prob, axis=1) < u).sum(axis=1), N_CARD_ACTIONS - 1)
        actions = np.where(legal[rows, actions], actions, np.argmax(prob, axis=1))
        grads += features[rows, actions] - np.einsum("nc,nck->nk", prob, features)
        _, reward, done, _, _ = vec.step(actions)
        if done.any():
            returns = reward[done] / 100.0
            advantage = returns - baseline
            theta += learning_rate * (advantage[:, None] * grads[done]).sum(axis=0) / n
            baseline += 0.01 * float((returns - baseline).mean())
            grads[done] = 0.0
            done_hands += int(done.sum())
            recent.extend(reward[done].tolist())
            if done_hands >= next_point:
                point = TrainingPoint(
                    done_hands, float(np.mean(recent)), LinearPlayer(tuple(theta))
                )
                history.append(point)
                recent = []
                if callback is not None:
                    callback(point)
                next_point += every if every > 0 else hands
    return LinearPlayer(tuple(theta)), history
