"""The Gymnasium environment of one learner seat (``spades_sim/Spades-v0``).

Contract. :class:`SpadesEnv` seats the learner at ``seat`` (with ``side``, at its
partner's seat too: the observation is then the seat to act's) of a table whose other
seats play named built-in policies (``table.learner_config``: the partner, the opponents, the
bidding); the learner takes its seat's blind nil turns and bids too unless
``learner_bids`` is false (then its bidding policy bids for it and every learner action is
a card). Observations are ``table.N_OBS`` float32 (``table.OBSERVATION_FIELDS``), actions
``Discrete(table.N_ACTIONS)`` (:class:`LegalDiscrete`: sampled without a mask, a legal
action); :meth:`SpadesEnv.action_masks` gives the legal actions as
sb3-contrib's MaskablePPO reads them, and ``info["action_mask"]`` the same. The reward is
the learner's side's points when a hand ends (0 otherwise); the episode is a hand or a
game (``episode``). An illegal action raises ``table.IllegalAction``; with
``illegal="substitute"`` it is replaced by the lowest legal action instead (and
``info["substituted"]`` says so): Gymnasium's ``check_env`` steps with actions sampled
before a reset, which are not always legal after it, so it is run with that setting.
With ``render_mode="ansi"``, :meth:`SpadesEnv.render` gives the table as text
(``Table.render``) with the learner's hand as the learner sees it, the others hidden.
"""

from __future__ import annotations

from typing import Any, Literal

import gymnasium
import numpy as np

from spades_sim.env.table import (
    N_ACTIONS,
    Episode,
    Table,
    check_seed,
    learner_config,
    learner_seats,
    observation_bounds,
    whole_number,
)
from spades_sim.policies import Policy
from spades_sim.rules import Rules


class LegalDiscrete(gymnasium.spaces.Discrete):
    """``Discrete(N_ACTIONS)`` whose :meth:`sample` without a mask draws a legal action
    of the table's pending decision (any action once the episode is over), so that a
    random agent sampling the space plays legally."""

    def __init__(self, n: int, table: Table) -> None:
        super().__init__(n)
        self.table = table

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        if mask is None and probability is None:
            legal = self.table.legal_mask()
            if legal.any():
                mask = legal.astype(np.int8)
        return super().sample(mask=mask, probability=probability)


class SpadesEnv(gymnasium.Env):
    """One learner seat at a Spades table (``gymnasium.make("spades_sim/Spades-v0")``)."""

    # an instance variable in Gymnasium's annotation, a class default here
    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        rules: Rules | str | None = None,
        seat: int = 0,
        partner: str | Policy = "heuristic",
        opponents: str | Policy = "heuristic",
        bidding: str | Policy = "count",
        learner_bids: bool = True,
        episode: Episode = "hand",
        render_mode: str | None = None,
        illegal: Literal["raise", "substitute"] = "raise",
        side: bool = False,
    ) -> None:
        if illegal not in ("raise", "substitute"):
            raise ValueError(f"illegal: must be 'raise' or 'substitute', got {illegal!r}")
        self.illegal = illegal
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode: must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.config = learner_config(rules, seat, partner, opponents, bidding, episode)
        self.seat = int(seat)
        self._seats = learner_seats(self.config.rules, self.seat, side)
        self._table = Table(self.config, agents=self._seats, bids=learner_bids)
        low, high = observation_bounds(self.config.rules, self.config.episode)
        self.observation_space = gymnasium.spaces.Box(low, high, dtype=np.float32)
        self.action_space = LegalDiscrete(N_ACTIONS, self._table)
        self._seed: int | None = None
        self._episode = 0

    @property
    def table(self) -> Table:
        """The table (its state arrays and history; the hidden hands too, so never the
        learner's input)."""
        return self._table

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a new episode: with ``seed``, episode 0 of that seed; without, the next."""
        seed = check_seed(seed)
        super().reset(seed=seed)
        if seed is not None:
            self._seed, self._episode = seed, 0
        elif self._seed is None:
            self._seed, self._episode = int(self.np_random.integers(1 << 62)), 0
        self._table.reset(self._seed, self._episode)
        self._episode += 1
        self._table.take_rewards()
        return self._table.observe(self._observer()), {"action_mask": self._table.legal_mask()}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        substituted = False
        if self.illegal == "substitute":
            # only a whole number is substituted: anything else is refused as it is
            legal = self._table.legal_mask()
            value = whole_number(action)
            inside = value is not None and 0 <= value < N_ACTIONS and legal[value]
            if value is not None and legal.any() and not inside:
                action, substituted = int(np.flatnonzero(legal)[0]), True
        self._table.apply(action)
        points = self._table.take_rewards()
        reward = float(points[self.config.rules.side_of(self.seat)])
        done = self._table.over
        info = {"action_mask": self._table.legal_mask(), "substituted": substituted}
        return self._table.observe(self._observer()), reward, done, False, info

    def _observer(self) -> int:
        """The learner seat to act (with ``side``, ``seat`` or its partner), else ``seat``."""
        to_act = self._table.to_act
        return to_act if to_act >= 0 else self.seat

    def action_masks(self) -> np.ndarray:
        """The legal actions now (bools), as sb3-contrib's MaskablePPO asks for them."""
        return self._table.legal_mask()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return self._table.render(self._seats, as_seen=True)
