"""A bidding and a play policy of your own, run at full speed and compared in duplicate.

A policy is a function of one context, made a policy by a decorator of ``spades_sim.nb``
(which documents every field of the contexts and the helpers used below)::

    @nb.bidder(params={"spade_length": 3.0, "nil_spades": 2.0})
    def quick_tricks_bid(ctx):      # ctx.hand, ctx.seat, ctx.bids, ctx.scores, ctx.params ...
        ...                          # -> 0..13, 0 = nil

    @nb.player(params={"spare_partner": 1.0})
    def cheapest_winner_play(ctx):  # ctx.hand, ctx.legal, ctx.trick, ctx.winning_card ...
        ...                          # -> a card of ctx.legal

The decorated names are policies every entry point takes, as it takes ``"count"``:
``simulate_hands(..., bidding=quick_tricks_bid)``, ``nil_odds``, ``duplicate``, and the
command line, ``spades-sim simulate --bidding analyses/custom_policy.py:quick_tricks_bid``
(parameters as for built-ins: ``...:quick_tricks_bid:spade_length=4``). The bidder here
declares no blind nil decision, so it never bids blind nil. The first run compiles the
kernels for these policies (announced on stderr) and caches them on disk; later runs
load them in about a second.

``count_twin`` and ``heuristic_twin`` are the built-in ``count`` and ``heuristic``
written through the same API (the tests hold their rows equal to the built-ins'; the
benchmark ``benchmarks/user_policy.py`` times them against the built-ins).

Run it: ``python analyses/custom_policy.py [deals]``. It prints the example's bids and two
duplicate matches against the built-in ``count`` + ``heuristic``, with intervals.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

if __name__ == "__main__":  # run as a script: import the package from this checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spades_sim import nb
from spades_sim.analysis import bid_accuracy, duplicate, estimate_of
from spades_sim.simulate import simulate_hands

# the cards a nil bidder fears: every jack or higher, and the spades from the nine up
HIGH_CARDS = nb.above_nb(8) & ~nb.above_nb(12)  # the J, Q, K, A of clubs
DANGER = (
    HIGH_CARDS | (HIGH_CARDS << 13) | (HIGH_CARDS << 26) | nb.SPADE_MASK & nb.above_nb(3 * 13 + 6)
)


@nb.bidder(params={"spade_length": 3.0, "nil_spades": 2.0})
def quick_tricks_bid(ctx):
    """Bid the aces, the kings with a guard and the spades beyond ``spade_length``; nil
    with no jack or higher, no spade above the 8 and at most ``nil_spades`` spades."""
    aces = 0
    kings = 0
    for suit in range(4):
        held = ctx.hand & nb.suit_mask_nb(suit)
        aces += nb.popcount_nb(held & nb.bit_nb(13 * suit + 12))
        if held & nb.bit_nb(13 * suit + 11) and nb.popcount_nb(held) >= 2:
            kings += 1
    n_spades = nb.popcount_nb(ctx.hand & nb.SPADE_MASK)
    if not ctx.hand & DANGER and n_spades <= ctx.params.nil_spades:
        return 0
    extra = max(n_spades - int(ctx.params.spade_length), 0)
    return min(max(aces + kings + extra, 1), 13)


@nb.player(params={"spare_partner": 1.0})
def cheapest_winner_play(ctx):
    """Win the trick as cheaply as possible unless the partner is winning it (with
    ``spare_partner`` = 1); otherwise play the lowest legal card."""
    if ctx.n_in_trick == 0:
        return nb.lowest_card_nb(ctx.legal)
    if ctx.params.spare_partner > 0 and ctx.winning_seat == (ctx.seat ^ 2):
        return nb.lowest_card_nb(ctx.legal)
    trumps_or_led = nb.suit_mask_nb(ctx.led_suit) | nb.SPADE_MASK
    winners = ctx.legal & nb.above_nb(ctx.winning_card) & trumps_or_led
    return nb.lowest_card_nb(winners if winners else ctx.legal)


@nb.bidder(blind_nil="builtin")
def count_twin(ctx):
    """The built-in ``count`` (its registry defaults, and the built-in blind nil rule named
    explicitly) through the context API: the same bids as ``bidding="count"``."""
    return nb.count_bid_nb(ctx)


@nb.player()
def heuristic_twin(ctx):
    """The built-in ``heuristic`` through the context API: the same cards as
    ``play="heuristic"``."""
    return nb.heuristic_play_nb(ctx)


def main(deals: int = 4000) -> None:
    """Print the example's bids and a duplicate match against the built-ins."""
    start = time.perf_counter()
    hands = simulate_hands(deals, seed=1, bidding=quick_tricks_bid, play=cheapest_winner_play)
    print(f"{deals} hands with the example policies in {time.perf_counter() - start:.1f} s")
    print(f"blind nil bids: {int(hands.blind_nil.sum())}, nil bids: {int(hands.nil.sum())}")
    mae = estimate_of(bid_accuracy(hands), "abs_difference")
    print(f"bid accuracy (MAE of side tricks vs contract): {mae}")
    match = duplicate(cheapest_winner_play, "heuristic", deals, seed=2, bidding="count")
    print(f"play, duplicate: example vs heuristic, margin per hand {match.margin}")
    match = duplicate(quick_tricks_bid, "count", deals, seed=3, kind="bid", play="heuristic")
    print(f"bidding, duplicate: example vs count, margin per hand {match.margin}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4000)
