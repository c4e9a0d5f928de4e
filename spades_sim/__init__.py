"""spades_sim: Spades by simulation.

A Numba bitboard engine plays millions of deals under configurable rules and bidding and
play policies; results go to pandas frames or Parquet datasets for analysis.

>>> from spades_sim import Rules, simulate_hands
>>> simulate_hands(4, seed=1, rules=Rules.preset("standard")).shape[0]
16
"""

from spades_sim._version import __version__
from spades_sim.analysis.tune import TuneResult, tune
from spades_sim.cards import check_deal, format_card, format_hand, parse_card, parse_hand
from spades_sim.errors import CardError, IllegalPlay, Misdeal, SpadesError
from spades_sim.hand import replay_hand, score_hand
from spades_sim.odds import BidAdvice, NilOdds, advise, nil_odds
from spades_sim.results import HandResult, HandScore
from spades_sim.rules import BidRule, FirstLead, Rules, Shortfall, SpadesLead
from spades_sim.simulate import simulate_games, simulate_hands

__all__ = [
    "BidAdvice",
    "BidRule",
    "CardError",
    "FirstLead",
    "HandResult",
    "HandScore",
    "IllegalPlay",
    "Misdeal",
    "NilOdds",
    "Rules",
    "Shortfall",
    "SpadesError",
    "SpadesLead",
    "TuneResult",
    "__version__",
    "advise",
    "check_deal",
    "format_card",
    "format_hand",
    "nil_odds",
    "parse_card",
    "parse_hand",
    "replay_hand",
    "score_hand",
    "simulate_games",
    "simulate_hands",
    "tune",
]
