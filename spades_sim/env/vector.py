"""Many tables stepped by one kernel call: ``VectorSpades``, a Gymnasium vector environment.

Contract. :class:`VectorSpades` holds ``num_envs`` tables of one learner seat each (or
with ``side`` one learner side: the observation is the seat to act's; the table of
``table.learner_config``) in preallocated arrays, and each :meth:`step` is one
call of ``spades_sim._nb.env.vec_step_nb``: the learner's action at every table in, the
other seats played by the built-in policies inside the kernel, the next observations,
masks, rewards and done flags out, written into the same arrays every call (the arrays
returned are those buffers: copy them to keep them). A finished table starts its next
episode in the same call (Gymnasium's same-step autoreset: the observation returned is
the new episode's first; the reward and done flag are the finished one's). Table ``i``'s
episode ``j`` is dealt from ``(seed, i, j)`` (``rng.stream_key_nb``), so a seed gives each
table the same episodes at any ``num_envs`` and any ``threads`` (the tables shared out in
contiguous blocks to that many threads of ``threads.run_tasks``, the kernels running
without the GIL, each thread with its own deal scratch; one call of the kernel with one
thread). Actions are checked against the masks first (one whole number per table,
``table.whole_number``: nothing is truncated or flattened); an illegal one raises
``table.IllegalAction`` naming the table and the action, and no table moves.
"""

from __future__ import annotations

import itertools
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv

from spades_sim._nb import env as kernels
from spades_sim._nb.enums import N_INFO
from spades_sim.env.table import (
    N_ACTIONS,
    N_OBS,
    Episode,
    IllegalAction,
    action_name,
    check_seed,
    learner_config,
    learner_seats,
    observation_bounds,
    shown,
    whole_number,
)
from spades_sim.policies import Policy
from spades_sim.rules import Rules
from spades_sim.threads import run_tasks


class VectorSpades(VectorEnv):
    """``num_envs`` tables with the learner at ``seat``; arguments as ``SpadesEnv``."""

    # an instance variable in Gymnasium's annotation, a class default here
    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int,
        rules: Rules | str | None = None,
        seat: int = 0,
        partner: str | Policy = "heuristic",
        opponents: str | Policy = "heuristic",
        bidding: str | Policy = "count",
        learner_bids: bool = True,
        episode: Episode = "hand",
        threads: int = 1,
        side: bool = False,
    ) -> None:
        if not isinstance(num_envs, int | np.integer) or num_envs < 1:
            raise ValueError(f"num_envs: must be a whole number >= 1, got {num_envs!r}")
        if not isinstance(threads, int | np.integer) or not 1 <= threads <= num_envs:
            raise ValueError(f"threads: must be 1..num_envs, got {threads!r}")
        self.threads = int(threads)
        self.config = learner_config(rules, seat, partner, opponents, bidding, episode)
        self.num_envs = int(num_envs)
        self.seat = int(seat)
        self._agents = 0
        for s in learner_seats(self.config.rules, self.seat, side):
            self._agents |= (1 << s) | ((1 << (s + 4)) if learner_bids else 0)
        self._lowered = self.config.rules.lower()
        self._params = self.config.params()
        self._game = episode == "game"
        n = self.num_envs
        # a contiguous block of tables per task, a deal scratch per worker thread
        bounds = np.linspace(0, n, self.threads + 1).astype(int)
        self._blocks = [(int(a), int(b)) for a, b in itertools.pairwise(bounds)]
        self._scratches = [kernels.new_env_scratch_nb(self._lowered) for _ in range(self.threads)]
        self._infos = np.zeros((n, N_INFO), dtype=np.int64)
        self._hids = np.zeros((n, kernels.N_HID), dtype=np.uint64)
        self._exts = np.zeros((n, kernels.N_EXT), dtype=np.int64)
        self._episodes = np.zeros(n, dtype=np.int64)
        self.observations = np.zeros((n, N_OBS), dtype=np.float32)
        self.masks = np.zeros((n, N_ACTIONS), dtype=np.bool_)
        self.rewards = np.zeros(n, dtype=np.float64)
        self._points = np.zeros(n, dtype=np.int64)
        self.dones = np.zeros(n, dtype=np.bool_)
        self._truncated = np.zeros(n, dtype=np.bool_)
        self._actions = np.zeros(n, dtype=np.int64)
        self._draws = 0
        self._seed: int | None = None
        low, high = observation_bounds(self.config.rules, episode)
        self.single_observation_space = gymnasium.spaces.Box(low, high, dtype=np.float32)
        self.single_action_space = gymnasium.spaces.Discrete(N_ACTIONS)
        self.observation_space = gymnasium.spaces.Box(
            np.tile(low, (n, 1)), np.tile(high, (n, 1)), dtype=np.float32
        )
        self.action_space = gymnasium.spaces.MultiDiscrete(np.full(n, N_ACTIONS))

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start every table: with ``seed``, each at its episode 0 of that seed; without,
        at its next episode (a random seed the first time)."""
        seed = check_seed(seed)
        if seed is not None:
            self._seed = seed
            self._episodes[:] = 0
        elif self._seed is None:
            self._seed = int(np.random.default_rng().integers(1 << 62))
        seed = self._seed

        def task(worker: int, k: int) -> None:
            a, b = self._blocks[k]
            kernels.vec_reset_nb(
                self._lowered, self._infos[a:b], self._hids[a:b], self._exts[a:b],
                self._scratches[worker], self._params, seed, self.seat, self._agents,
                self._game, a, self._episodes[a:b], self.observations[a:b], self.masks[a:b],
            )  # fmt: skip

        run_tasks(len(self._blocks), task, workers=self.threads)
        return self.observations, {"action_mask": self.masks}

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One learner decision at every table (``actions``: one per table)."""
        if self._seed is None:
            raise RuntimeError("VectorSpades.step before reset")
        acts = self._as_actions(actions)
        # every action is checked against the masks before any table moves (one thread:
        # by the step kernel itself)
        i = -1 if self.threads == 1 else kernels.vec_check_nb(acts, self.masks)
        if i < 0:
            seed = self._seed
            failed = [-1] * len(self._blocks)

            def task(worker: int, k: int) -> None:
                a, b = self._blocks[k]
                failed[k] = kernels.vec_step_nb(
                    self._lowered, self._infos[a:b], self._hids[a:b], self._exts[a:b],
                    self._scratches[worker], self._params, seed, self.seat, self._agents,
                    self._game, a, self._episodes[a:b], acts[a:b], self.observations[a:b],
                    self.masks[a:b], self._points[a:b], self.dones[a:b],
                )  # fmt: skip

            run_tasks(len(self._blocks), task, workers=self.threads)
            i = failed[0]
        if i >= 0:
            raise IllegalAction(
                f"illegal action {int(acts[i])} ({action_name(int(acts[i]), self.config.rules)})"
                f" at table {i}; no table moved"
            )
        self.rewards[:] = self._points
        return (
            self.observations,
            self.rewards,
            self.dones,
            self._truncated,
            {"action_mask": self.masks},
        )

    def _as_actions(self, actions: Any) -> np.ndarray:
        """``actions`` as one int64 per table, or IllegalAction naming the first table whose
        action is not a whole number 0 .. N_ACTIONS-1, or the shape (nothing is truncated,
        wrapped or flattened)."""
        try:
            array = np.asarray(actions)
        except (ValueError, OverflowError) as err:  # ragged nesting
            raise IllegalAction(
                f"actions: one action per table expected, {err}; no table moved"
            ) from None
        if array.shape != (self.num_envs,):
            raise IllegalAction(
                f"actions: one action per table, shape ({self.num_envs},), got shape "
                f"{array.shape}; no table moved"
            )
        kind = array.dtype.kind
        if kind == "i":  # the step kernel's check names any int64 outside the space as it is
            return array.astype(np.int64, copy=False)
        if kind in "uf":
            # named before a cast could wrap or truncate it (NaN and inf fail every test)
            with np.errstate(invalid="ignore"):
                inside = (array >= 0) & (array < N_ACTIONS)
                if kind == "f":
                    inside &= array == np.floor(array)
            if inside.all():
                return array.astype(np.int64)
            i = int(np.flatnonzero(~inside)[0])
            value = whole_number(array[i])
        else:
            i, value = 0, None
            for i, item in enumerate(array.tolist()):  # noqa: B007
                value = whole_number(item)
                if value is None or not 0 <= value < N_ACTIONS:
                    break
            else:  # an object array of whole numbers in the space
                return array.astype(np.int64)
        if value is None:
            raise IllegalAction(
                f"action {shown(array[i])} at table {i} is not a whole number; no table moved"
            )
        raise IllegalAction(
            f"illegal action {value} ({action_name(value, self.config.rules)}) at table {i}; "
            "no table moved"
        )

    def random_actions(self, seed: int = 0) -> np.ndarray:
        """A legal action for every table, each drawn uniformly from its mask (in the
        kernels, from the stream of ``seed`` and a count of the calls): a random learner
        for baselines and benchmarks."""
        kernels.vec_random_actions_nb(self.masks, seed, self._draws, self._actions)
        self._draws += 1
        return self._actions

    @property
    def lowered_rules(self) -> np.ndarray:
        """The rule array the kernels read (``Rules.lower()``)."""
        return self._lowered

    @property
    def table_info(self) -> np.ndarray:
        """Every table's public state (``num_envs`` x ``InfoSlot``)."""
        return self._infos

    @property
    def table_hidden(self) -> np.ndarray:
        """Every table's hidden state: the hands (never an agent's input as such)."""
        return self._hids

    @property
    def table_state(self) -> np.ndarray:
        """Every table's progress (``_nb.env`` ``E_*`` slots)."""
        return self._exts

    def action_masks(self) -> np.ndarray:
        """The legal actions of every table (``num_envs`` x ``N_ACTIONS`` bools)."""
        return self.masks

    def close_extras(self, **kwargs: Any) -> None:
        pass
