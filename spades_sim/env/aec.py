"""The PettingZoo AEC environment: every seat of a Spades table is an agent.

Contract. :func:`aec_env` builds a :class:`SpadesAEC` for any rule set (every preset of
``Rules.PRESETS``): the agents are the seats, ``seat_0`` .. ``seat_3`` (N, E, S, W; two
or three players: up to ``seat_1`` or ``seat_2``), acting in the engine's order: the
blind nil turns and bids (where the rules allow blind nil), then the tricks. One
``Discrete(N_ACTIONS)`` space holds every decision (``table.action_name``); each
observation is a dict of ``observation`` (float32, ``table.OBSERVATION_FIELDS``, what
that seat may know) and ``action_mask`` (int8, the legal actions of the seat's pending
decision, all zero when it is not to act). When a hand ends every agent is rewarded with
its side's points for the hand (``Rules.side_of``); with ``episode="hand"`` the episode
then ends, with ``episode="game"`` the next hand is dealt until the game ends (the
rewards over an episode add up to the side's final score). The four-player blind nil and
nil exchanges are decisions too (each card passed, the nil bidder first); the two-player
draw and a two-player blind nil declarer's discards are the engine's built-in choices
(``spades_sim._nb.env``). An illegal action raises ``table.IllegalAction``. With
``render_mode="ansi"``, :meth:`SpadesAEC.render` gives the table as text with every hand
(``Table.render``, a spectator's view).
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from spades_sim.env.table import (
    N_ACTIONS,
    Episode,
    Table,
    TableConfig,
    check_seed,
    observation_bounds,
)
from spades_sim.rules import Rules


class SpadesAEC(AECEnv):
    """Spades for PettingZoo's agent-environment cycle; build it with :func:`aec_env`."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "spades_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(self, config: TableConfig, render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode: must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.config = config
        players = config.rules.players
        self.possible_agents = [f"seat_{s}" for s in range(players)]
        self._seat = {name: s for s, name in enumerate(self.possible_agents)}
        self._table = Table(config, agents=range(players))
        low, high = observation_bounds(config.rules, config.episode)
        obs_space = gymnasium.spaces.Box(low, high, dtype=np.float32)
        mask_space = gymnasium.spaces.Box(0, 1, shape=(N_ACTIONS,), dtype=np.int8)
        space = gymnasium.spaces.Dict({"observation": obs_space, "action_mask": mask_space})
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: gymnasium.spaces.Discrete(N_ACTIONS) for a in self.possible_agents}
        self._seed: int | None = None
        self._episode = 0

    @property
    def table(self) -> Table:
        """The table (its state arrays and history; the hidden hands too, so never an
        agent's input)."""
        return self._table

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new episode: with ``seed``, episode 0 of that seed; without, the next
        episode of the last seed (a random seed the first time)."""
        seed = check_seed(seed)
        if seed is not None:
            self._seed, self._episode = seed, 0
        elif self._seed is None:
            self._seed, self._episode = int(np.random.default_rng().integers(1 << 62)), 0
        self._table.reset(self._seed, self._episode)
        self._episode += 1
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._table.to_act]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        if self._table.to_act == seat:
            mask[:] = self._table.legal_mask()
        return {"observation": self._table.observe(seat), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._table.apply(action)
        points = self._table.take_rewards()
        rules = self.config.rules
        self.rewards = {a: float(points[rules.side_of(self._seat[a])]) for a in self.agents}
        if self._table.over:
            self.terminations = {a: True for a in self.agents}
        else:
            self.agent_selection = self.possible_agents[self._table.to_act]
        self._accumulate_rewards()
        if self.render_mode == "ansi":
            print(self.render())

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: nothing to render")
            return None
        return self._table.render(range(self._table.players), as_seen=False)

    def close(self) -> None:
        pass


def aec_env(
    rules: Rules | str | None = None,
    episode: Episode = "hand",
    render_mode: str | None = None,
) -> SpadesAEC:
    """A PettingZoo AEC Spades table: ``rules`` a :class:`~spades_sim.rules.Rules` or a
    preset name (default the standard rules), ``episode`` ``"hand"`` or ``"game"``."""
    if rules is None:
        rules = Rules()
    elif isinstance(rules, str):
        rules = Rules.preset(rules)
    return SpadesAEC(TableConfig(rules=rules, episode=episode), render_mode=render_mode)
