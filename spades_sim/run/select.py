"""Kernel selection: the one place where policies x players x mode pick a kernel.

Contract
--------
:func:`select_kernel` takes a :class:`~spades_sim.run.spec.RunSpec` and what the run
produces (``"rows"``: per-seat rows; ``"counts"``: aggregate tables; ``"nil_odds"``: the
completions of a nil odds question) and returns the :class:`Kernel` to call, whatever
calls it (the thread pool, a Dask worker). The choices, all giving the same results and
differing in speed only:

- **lock-step**: both sides play ``random`` (or both ``heuristic``) with built-in bidders
  of ``lockstep_bidding.LANE_BIDDERS`` (all but ``monte-carlo``, whose rollouts take far
  longer than the play), independent hands, play not recorded: 64 deals advance at once
  (one kernel per player count, and with four players one more for sides that bid only
  ``count`` or ``random``, the default, so each run compiles only the bidders it uses;
  with four players and both sides' ``heuristic`` at the registry defaults, the default,
  kernels whose play is the copy with the defaults as constants, so a run compiles one
  copy of the play loops, not both);
- **scalar**: every other built-in combination (``loop.hands_nb``, ``loop.games_nb``),
  and every cutthroat run (``partnerships`` false: four lone sides, which the lock-step
  scoring and bidding, laid out for two sides, do not keep);
- **user-written policies, and ``pimc``**: the generated kernel module of the run's
  policies (:func:`user_policy_kernels`; ``pimc`` is a built-in, but only a generated
  module compiles its solver, ``custom.kernels.GENERATED_ONLY``): in hands runs its
  batch kernels (``hands_lanes_*_nb``: deal, scoring and rows in lock-step) unless a side
  runs a sampling built-in or the play is recorded, else its scalar ones; aggregate mode
  counts their rows (``Kernel.from_rows``).

A counts kernel is the aggregate twin of the rows kernel the same spec selects, so an
aggregate run plays exactly the hands a run of rows plays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from spades_sim._nb import aggregate as agg_nb
from spades_sim._nb import loop
from spades_sim._nb import odds as odds_nb
from spades_sim._nb.enums import LANES, ParamRow
from spades_sim._nb.lockstep_bidding import COUNT_LANE_BIDDERS, LANE_BIDDERS
from spades_sim._nb.lockstep_entries import ENTRIES
from spades_sim.custom.kernels import batches_allowed, kernels_for, needs_generated
from spades_sim.policies import lookup
from spades_sim.policy_table import defaults, names_with, spec_of
from spades_sim.run.spec import RunSpec

__all__ = ["Kernel", "Produces", "lockstep_play", "select_kernel", "user_policy_kernels"]

Produces = Literal["rows", "counts", "nil_odds"]


@dataclass(frozen=True)
class Kernel:
    """A selected kernel: ``entry`` the Numba entry point (None when ``from_rows``
    carries the work), ``per_block`` the items of one block of ``entry`` (rows kernels:
    what :func:`~spades_sim.threads.run_blocks` shares out), ``lockstep`` whether it
    is a lock-step kernel (which writes only the int32 rows a hands run has), ``variant``
    an entry's mode argument (nil odds: ``odds.PLAY_*``) and ``from_rows`` the rows
    kernel whose rows a counts run adds up (user-written policies)."""

    entry: Any
    per_block: int = 1
    lockstep: bool = False
    variant: int = 0
    from_rows: Kernel | None = None


def lockstep_play(spec: RunSpec) -> str | None:
    """The play policy the lock-step kernels can run for ``spec`` (same results, faster),
    or None: both sides ``random`` or both ``heuristic``, built-in bidders the lock-step
    bidder covers, independent hands, play not recorded.

    >>> lockstep_play(RunSpec.build(seed=0)), lockstep_play(RunSpec.build(seed=0, mode="games"))
    ('heuristic', None)
    """
    names = {p.name for p in spec.play}
    if spec.mode != "hands" or spec.record_play or len(names) != 1:
        return None
    if not spec.rules.partnerships:
        return None  # cutthroat: the lock-step state holds two sides' scores
    if not all(p.is_builtin for p in (*spec.play, *spec.bidding)):
        return None
    if not _bidder_ids(spec) <= set(LANE_BIDDERS):
        return None  # monte-carlo: its rollouts take far longer than the play
    name = names.pop()
    return name if name in names_with("play", "lanes") else None


def select_kernel(spec: RunSpec, produces: Produces = "rows") -> Kernel:
    """The kernel that computes ``spec``'s ``produces`` (the module's contract).

    >>> from spades_sim.threads import kernel_name
    >>> kernel_name(select_kernel(RunSpec.build(seed=0)).entry)
    'hands_heuristic_defaults_lockstep_count_nb'
    >>> kernel_name(select_kernel(RunSpec.build(seed=0, play="random"), "counts").entry)
    'aggregate_hands_random_count_nb'
    >>> kernel_name(select_kernel(RunSpec.build(seed=0, play="heuristic:nil_read=1")).entry)
    'hands_heuristic_lockstep_count_nb'
    """
    games = spec.mode == "games"
    # user-written policies, and pimc (whose solver no built-in kernel compiles)
    generated = needs_generated((*spec.bidding, *spec.play))
    if produces == "nil_odds" and generated:  # card by card: lock-step is the built-ins'
        return Kernel(user_policy_kernels(spec).play_deals_nb, LANES, False, odds_nb.PLAY_SCALAR)
    if produces == "nil_odds":
        names = {p.name for p in spec.play}
        variant = odds_nb.PLAY_CODES.get(names.pop(), odds_nb.PLAY_SCALAR) if len(names) == 1 else 0
        lane_bidders = _bidder_ids(spec) <= set(LANE_BIDDERS)
        if not spec.rules.partnerships:
            variant = odds_nb.PLAY_SCALAR
        if variant and lane_bidders and spec.rules.players == 4:
            variant |= odds_nb.BIDS_LOCKSTEP  # the other seats bid in lock-step too
        return Kernel(odds_nb.play_deals_nb, LANES, variant != odds_nb.PLAY_SCALAR, variant)
    play = lockstep_play(spec)
    if play is not None:
        four = spec.rules.players == 4
        count = four and _bidder_ids(spec) <= set(COUNT_LANE_BIDDERS)
        variant = ("count" if count else "four") if four else "two"
        if four and (play, "defaults") in ENTRIES and _play_at_defaults(spec, play):
            variant = "defaults_count" if count else "defaults"
        rows_entry, counts_entry = ENTRIES[(play, variant)]
        if produces == "counts":
            return Kernel(counts_entry, LANES, lockstep=True)
        return Kernel(rows_entry, LANES, lockstep=True)
    if not generated:
        if produces == "counts":
            return Kernel(agg_nb.aggregate_games_nb if games else agg_nb.aggregate_hands_scalar_nb)
        return Kernel(loop.games_nb, 1) if games else Kernel(loop.hands_nb, loop.BLOCK)
    module = user_policy_kernels(spec)
    policies = (*spec.bidding, *spec.play)
    if games:
        rows = Kernel(module.games_nb, 1)
    elif not spec.record_play and spec.rules.partnerships and batches_allowed(policies):
        four = spec.rules.players == 4
        entry = module.hands_lanes_four_nb if four else module.hands_lanes_two_nb
        rows = Kernel(entry, LANES, lockstep=True)
    else:
        rows = Kernel(module.hands_nb, loop.BLOCK)
    return Kernel(None, from_rows=rows) if produces == "counts" else rows


def _bidder_ids(spec: RunSpec) -> set[int]:
    """The built-in bid policy ids of the run's two sides (built-in bidders only)."""
    return {lookup(p.name, "bid").policy_id for p in spec.bidding}


def _play_at_defaults(spec: RunSpec, play: str) -> bool:
    """Whether both sides' play parameter rows, as the kernel gets them, hold the
    registry defaults of ``play`` in its parameter slots (what its copy at the defaults,
    ``lockstep_entries``' ``defaults`` entry points, plays)."""
    row = np.array(defaults(spec_of("play", play)))
    params = spec.params()
    window = slice(1, len(row))
    return all(np.array_equal(params[ParamRow.play + side, window], row[window]) for side in (0, 1))


def user_policy_kernels(spec: RunSpec) -> Any:
    """The generated kernel module of the run's user-written policies (and ``pimc``)
    (:func:`spades_sim.custom.kernels.kernels_for`: compiled once per machine per
    combination of policies and their code, cached on disk)."""
    return kernels_for((*spec.bidding, *spec.play))
