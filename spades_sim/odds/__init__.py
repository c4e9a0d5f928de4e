"""Nil odds of a given hand: how often it makes nil, and whether nil beats a number bid.

:func:`nil_odds` holds ``hand`` at ``seat`` and deals the other cards at random, many
times. Each completion is played once with the seat bidding nil (or blind nil) and once
per candidate number bid, everyone else bidding and playing by the policies, so the
answer to "should I bid nil?" comes from the same deals (paired, as duplicate bridge).

Conditioning is exact. Cards known to be held (``partner=``, ``given=``) are placed
first; the others are a uniformly random arrangement of the rest, so a completion
follows the conditional distribution given those cards. Ranges on other seats' hand
features (``require=``) are met by rejection: a completion outside them is drawn again
from its own stream, so the kept ones follow the truncated distribution. A range no hand
can meet is refused at once; a combination that no completion met in a pilot of
millions is refused with the count tried; a rare one says how many were drawn.

Reproducible: completion ``i`` draws its cards, its dealer and its play from streams
keyed by ``(seed, i)`` alone, so the answer is the same for any thread count.

Two players: the opponent's hand is a uniformly random 13 of the unseen cards (the draw
policy is not replayed), and blind nil discards and redraws from the 26 unused cards.

The package: ``conditions`` (what is known of the deal, checked), ``sampling`` (the
completions, reading earlier bids when asked), ``nil`` (playing them: :func:`nil_odds`),
``answer`` (:class:`NilOdds`) and ``advice`` (every bid a seat may make at this table and
score: :func:`advise`, :class:`BidAdvice`).

>>> odds = nil_odds("Q73.J52.T84.9632", n=2_000, seed=1)
>>> 0.0 < odds.probability < 1.0 and odds.ci_low <= odds.probability <= odds.ci_high
True
>>> odds.n, odds.seat
(2000, 'S')
"""

from spades_sim.odds.advice import BidAdvice, advise
from spades_sim.odds.answer import NilOdds
from spades_sim.odds.conditions import FEATURES, Conditions, parse_range
from spades_sim.odds.nil import nil_odds
from spades_sim.odds.sampling import deal_completions

__all__ = [
    "FEATURES",
    "BidAdvice",
    "Conditions",
    "NilOdds",
    "advise",
    "deal_completions",
    "nil_odds",
    "parse_range",
]
