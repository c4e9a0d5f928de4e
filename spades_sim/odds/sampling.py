"""Random completions of a known deal, drawn in chunks from streams keyed by the seed.

Contract
--------
:class:`Sampler` draws completion ``i`` of a :class:`~.conditions.Conditions` from the
streams keyed by ``(seed, i)`` alone (any chunking, any thread count, the same deals).
Known cards are placed and the rest dealt uniformly; with feature ranges, completions
are drawn again until they meet them (rejection), after a pilot on a stream of its own
that estimates the acceptance rate and sets the attempts allowed per completion, so a
miss has odds of about e**-40. Conditions no completion of the pilot met, or that would
need more than ``max_tries`` draws, are refused with ``ValueError``.
With a :class:`BidFit` the completions also read the bids made before the seat's turn,
as the bid-reading samplers of ``lookahead`` and ``pimc`` do (``rollout.bid_misfit_nb``:
of a few draws the first whose bids fit the seated bidders is kept, else the one that
fits best); without bids to read the completions are the same as without it. With
ranges as well, the draws in the ranges tried for the bids are cut (never below one) so
that ``n`` completions take about ``max_tries`` draws at most.
:meth:`Sampler.chunks` yields completions ``0 .. n-1`` in chunks of :data:`CHUNK` (what
every caller loops over); :func:`deal_completions` returns the completions themselves.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from spades_sim._nb import odds as nb
from spades_sim._nb.enums import N_INFO
from spades_sim.cards import Hand, cards_of
from spades_sim.odds.conditions import Conditions
from spades_sim.rules import Rules
from spades_sim.threads import kernel_threads, run_blocks
from spades_sim.validate import check_count

__all__ = ["CHUNK", "BidFit", "Sampler", "check_sizes", "deal_completions"]

CHUNK = 1 << 16  # completions per kernel call: bounded memory at any n
PILOT_FIRST = 1 << 12  # pilot tries before the first estimate of the acceptance rate
PILOT_WANTED = 50  # acceptances that make the rate estimate good enough
PILOT_MAX = 1 << 23  # pilot draws before conditions met by none are refused (about 1 s)
FAIL_EXPONENT = 40.0  # attempts per completion: 40 / rate, so a miss has odds e**-40


@dataclass(frozen=True)
class BidFit:
    """What the completions read the bids by: the lowered ``rules``, the ``table`` as the
    seat sees it when it bids (``N_INFO`` slots: dealer, scores, bags and the bids made
    before its turn), the bidder rows ``assumed`` for each seat (``rollout.assumed_rows_nb``)
    and the draws tried per completion, ``tries``."""

    rules: np.ndarray
    table: np.ndarray
    assumed: np.ndarray
    tries: int


NO_FIT = BidFit(Rules().lower(), np.zeros(N_INFO, dtype=np.int64), np.zeros(1, dtype=np.float64), 0)
"""Completions that read no bids (the sampling kernel's bid arguments, unread)."""


class Sampler:
    """Draws the completions of a :class:`Conditions` in chunks (after a pilot that sets
    the attempts allowed per completion when there are feature ranges), reading the bids
    by ``fit`` when given."""

    def __init__(
        self,
        conditions: Conditions,
        seed: int,
        n: int,
        max_tries: int,
        fit: BidFit | None = None,
    ) -> None:
        self.conditions = conditions
        self.fit = NO_FIT if fit is None else fit
        self.seed = int(seed)
        self.known = np.array(conditions.known, dtype=np.uint64)
        self.pool = np.array(cards_of(conditions.pool), dtype=np.uint8)
        self.need = np.array(conditions.need, dtype=np.int64)
        self.attempts = 1
        if conditions.constrained:
            rate = self._pilot(max_tries)
            if n / rate > max_tries:
                raise ValueError(
                    f"require: about {n / rate:,.0f} completions would have to be drawn to keep "
                    f"{n:,} (1 in {1 / rate:,.0f} meets the conditions), more than "
                    f"max_tries={max_tries:,}"
                )
            self.attempts = min(max_tries, int(FAIL_EXPONENT / rate) + 100)
            if self.fit.tries > 0:
                # each draw the fit tries must first meet the ranges: with rare ranges its
                # tries, not the ranges, would decide the draws (hours where the earlier
                # bids and the ranges disagree), so the draws in the ranges a completion
                # may try for the bids are cut to keep n of them within max_tries
                budget = int(max_tries * rate / n)
                if budget < self.fit.tries:
                    self.fit = replace(self.fit, tries=max(1, budget))

    def _draw(
        self, kind: int, start: int, count: int, attempts: int, fit: BidFit = NO_FIT
    ) -> tuple[Any, Any, Any]:
        deals = np.empty((count, 4), dtype=np.uint64)
        tries = np.empty(count, dtype=np.int64)
        misfit = np.empty(count, dtype=np.int64)
        c = self.conditions
        run_blocks(
            nb.sample_deals_nb, -(-count // nb.BLOCK), self.seed, kind, start, count,
            self.known, self.pool, self.need, c.lo, c.hi, attempts, fit.rules,
            c.hero, fit.table, fit.assumed, fit.tries, deals, tries, misfit,
        )  # fmt: skip
        return deals, tries, misfit

    def _pilot(self, max_tries: int) -> float:
        """The acceptance rate of the ranges, from draws of a stream of their own."""
        tried = accepted = 0
        batch = PILOT_FIRST
        most = min(max_tries, PILOT_MAX)
        while accepted < PILOT_WANTED and tried < most:
            batch = min(batch, most - tried)
            _, tries, _ = self._draw(nb.KIND_ODDS_PILOT, tried, batch, 1)
            accepted += int((tries > 0).sum())
            tried += batch
            batch *= 8
        if accepted == 0:
            raise ValueError(
                f"require: no completion out of {tried:,} random ones met the conditions; "
                f"they cannot hold together, or hold less than once in {tried:,} deals"
            )
        return accepted / tried

    def sample(self, start: int, count: int) -> tuple[np.ndarray, int]:
        """Completions ``start .. start+count-1`` and the number of draws they took."""
        deals, draws, _ = self.fitted_sample(start, count)
        return deals, draws

    def fitted_sample(self, start: int, count: int) -> tuple[np.ndarray, int, np.ndarray]:
        """Completions ``start .. start+count-1``, the number of draws they took and each
        one's misfit to the bids (0: every bid read fits)."""
        attempts = self.attempts
        if self.fit.tries > 0:  # the fit's draws come on top of the ranges' rejections
            attempts = min(attempts * self.fit.tries, 1 << 62)
        deals, tries, misfit = self._draw(nb.KIND_ODDS_DEAL, start, count, attempts, self.fit)
        failed = np.flatnonzero(tries < 0)
        if failed.size:
            raise ValueError(
                f"require: completion {start + int(failed[0])} met the conditions in none of "
                f"{self.attempts:,} draws: they are too rare for this n"
            )
        return deals, int(tries.sum()), misfit

    def chunks(self, n: int) -> Iterator[tuple[int, np.ndarray, int, np.ndarray]]:
        """Completions ``0 .. n-1`` in chunks of at most :data:`CHUNK` (bounded memory at
        any ``n``): each chunk's first index, its deals, the draws they took and each
        one's misfit to the bids (as :meth:`fitted_sample`)."""
        for start in range(0, n, CHUNK):
            deals, draws, misfit = self.fitted_sample(start, min(CHUNK, n - start))
            yield start, deals, draws, misfit


def deal_completions(
    hand: Hand,
    n: int,
    *,
    seed: int = 0,
    seat: int | str | None = None,
    rules: Rules | None = None,
    partner: Hand | None = None,
    given: Mapping[int | str, Hand] | None = None,
    require: Mapping[int | str, Mapping[str, Any]] | None = None,
    threads: int | None = None,
    max_tries: int = 200_000_000,
) -> np.ndarray:
    """``n`` random deals that complete what is known (as :func:`nil_odds` draws them):
    an (n, 4) array of hand masks by seat (two players: seats 2 and 3 empty).

    >>> from spades_sim.cards import parse_hand
    >>> deals = deal_completions("Q73.J52.T84.9632", 3, partner="AKJ.AK.AKQ.AKQJT")
    >>> deals.shape, {int(d) for d in deals[:, 0]} == {parse_hand("AKJ.AK.AKQ.AKQJT")}
    ((3, 4), True)
    """
    check_sizes(n, max_tries)
    conditions = Conditions.build(
        hand, seat=seat, rules=rules, partner=partner, given=given, require=require
    )
    with kernel_threads(threads):
        parts = [deals for _, deals, _, _ in Sampler(conditions, seed, n, max_tries).chunks(n)]
    return np.concatenate(parts)


def check_sizes(n: int, max_tries: int) -> None:
    """Check the number of completions and the cap on draws (``max_tries >= n``)."""
    check_count(n, "n", 1, "the number of completions")
    check_count(max_tries, "max_tries", 1, "the cap on draws")
    if n > max_tries:  # said of n: it is the one the caller most likely set
        raise ValueError(
            f"n: {n:,} completions is more than max_tries={max_tries:,}, the cap on draws; "
            "ask for fewer completions or raise max_tries"
        )
