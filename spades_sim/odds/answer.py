"""The answer of :func:`~spades_sim.odds.nil_odds`: estimates with intervals, as text or JSON.

Contract
--------
:class:`NilOdds` is a plain record (probabilities with Wilson 95% intervals, mean
scores with normal 95% intervals, the paired gain of nil over the best number bid, the
cards that sank failed nils); ``str()`` words it in a few sentences and
:meth:`NilOdds.to_json` gives it as one JSON object.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from spades_sim.analysis.stats import Estimate
from spades_sim.cards import SEAT_NAMES, SEAT_WORDS
from spades_sim.rules import Rules
from spades_sim.text import rules_text

__all__ = ["NilOdds"]


@dataclass(frozen=True)
class NilOdds:
    """The answer of :func:`nil_odds`. ``probability`` (with its Wilson 95% interval
    ``ci_low`` .. ``ci_high``) is the share of ``n`` completions in which the nil (or blind
    nil) was made; the ``*_score`` estimates are the side's mean score per hand (the
    seat's own where it has no partner: cutthroat, two players).

    ``number_scores`` maps each candidate number bid to the side's score when the seat
    bids it instead, on the same completions; ``best_number_bid`` is the best of them,
    ``number_score`` its score and ``nil_gain`` the paired difference nil minus that bid
    (positive: bid nil). ``fatal_cards`` gives, for the failed nils, the share of each
    card with which the nil bidder took its first trick, most frequent first.
    ``tried`` counts the completions drawn, rejected ones included.

    With ``defense == "double-dummy"``, ``dd_probability`` (Wilson interval ``dd_ci_low``
    .. ``dd_ci_high``) is the share of the first ``dd_n`` completions in which the nil's
    side can keep the nil against perfect defence, every card seen (``dd_safe`` of
    them); ``dd_pairs`` counts those completions by that verdict and the policies'
    outcome: ``safe_made``, ``safe_failed`` (the cover or the nil bidder's play lost a
    nil that could be kept), ``unsafe_made`` (the defenders missed the way to set it) and
    ``unsafe_failed``.
    """

    hand: str
    seat: str
    blind: bool
    n: int
    made: int
    probability: float
    ci_low: float
    ci_high: float
    nil_score: Estimate
    number_scores: Mapping[int, Estimate]
    best_number_bid: int | None
    number_score: Estimate | None
    nil_gain: Estimate | None
    fatal_cards: Mapping[str, float]
    tried: int
    seed: int
    rules: Rules = field(repr=False)
    bidding: str = "count"
    play: str = "heuristic"
    conditions: str = ""
    defense: str = "policies"
    dd_n: int = 0
    dd_safe: int = 0
    dd_probability: float | None = None
    dd_ci_low: float | None = None
    dd_ci_high: float | None = None
    dd_pairs: Mapping[str, int] = field(default_factory=dict)

    @property
    def acceptance(self) -> float:
        """The share of drawn completions that met the ``require`` ranges."""
        return self.n / self.tried if self.tried else math.nan

    def __str__(self) -> str:
        kind = "blind nil" if self.blind else "nil"
        pct = _percent
        lines = [
            f"{SEAT_WORD.get(self.seat, self.seat)} holding {self.hand} makes {kind} "
            f"{pct(self.probability)} of the time [{pct(self.ci_low)}, {pct(self.ci_high)}], "
            f"over {self.n:,} random completions ({self.made:,} made; {self.bidding} bidding, "
            f"{self.play} play, {rules_text(self.rules.to_dict())} rules; seed {self.seed})."
        ]
        if self.conditions:
            drawn = f" ({self.tried:,} drawn, {pct(self.acceptance)} kept)"
            lines.append(f"Given {self.conditions}{drawn if self.tried > self.n else ''}.")
        # cutthroat and two players: the seat scores alone, there is no side to name
        paired = self.rules.players == 4 and self.rules.partnerships
        who = "The side" if paired else SEAT_WORD.get(self.seat, self.seat)
        score = f"{who} scores {_signed(self.nil_score)} a hand bidding {kind}"
        if self.best_number_bid is not None and self.number_score and self.nil_gain:
            verdict = (
                f"bid {kind}"
                if self.nil_gain.low > 0
                else f"bid {self.best_number_bid}"
                if self.nil_gain.high < 0
                else "too close to call"
            )
            score += (
                f", {_signed(self.number_score)} bidding {self.best_number_bid} (the best of "
                f"{', '.join(map(str, self.number_scores))}): {kind} gains "
                f"{_signed(self.nil_gain)} a hand, so {verdict}."
            )
        else:
            score += "."
        lines.append(score)
        if self.dd_n and self.dd_probability is not None:
            p = self.dd_pairs
            made_here = p.get("safe_made", 0) + p.get("unsafe_made", 0)
            lines.append(
                f"Against perfect defence (every card seen, double-dummy) the {kind} can be "
                f"kept {pct(self.dd_probability)} of the time "
                f"[{pct(self.dd_ci_low or 0.0)}, {pct(self.dd_ci_high or 0.0)}], over the "
                f"first {self.dd_n:,} of these completions, where the policies made it "
                f"{pct(made_here / self.dd_n)}: {p.get('safe_failed', 0):,} lost that could "
                f"be kept, {p.get('unsafe_made', 0):,} made that perfect defenders would set."
            )
        if self.fatal_cards:
            top = list(self.fatal_cards.items())[:4]
            shares = ", ".join(f"{card} {pct(share)}" for card, share in top)
            lines.append(f"Failed nils took their first trick with {shares}.")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON (estimates as value/ci_low/ci_high/n)."""

        def est(e: Estimate | None) -> dict[str, float] | None:
            return None if e is None else {"value": e.value, "ci_low": e.low, "ci_high": e.high}

        return {
            "hand": self.hand,
            "seat": self.seat,
            "blind": self.blind,
            "n": self.n,
            "made": self.made,
            "probability": self.probability,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "nil_score": est(self.nil_score),
            "number_scores": {str(bid): est(e) for bid, e in self.number_scores.items()},
            "best_number_bid": self.best_number_bid,
            "number_score": est(self.number_score),
            "nil_gain": est(self.nil_gain),
            "fatal_cards": dict(self.fatal_cards),
            "tried": self.tried,
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "bidding": self.bidding,
            "play": self.play,
            "conditions": self.conditions,
            "defense": self.defense,
            "dd_n": self.dd_n,
            "dd_safe": self.dd_safe,
            "dd_probability": self.dd_probability,
            "dd_ci_low": self.dd_ci_low,
            "dd_ci_high": self.dd_ci_high,
            "dd_pairs": dict(self.dd_pairs),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())


SEAT_WORD = dict(zip(SEAT_NAMES, SEAT_WORDS, strict=True))  # two players: P0, P1 as they are


def _percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def _signed(e: Estimate) -> str:
    return f"{e.value:+.1f} [{e.low:+.1f}, {e.high:+.1f}]"
