"""The public kernel API: what a user-written ``@njit`` policy may build on.

A policy is a Numba ``@njit`` function with one of two signatures (``BidFn``, ``PlayFn``)::

    bid(hand, seat, info, rules, params, rand) -> int          # 0..13, 0 = nil
    play(hand, legal, seat, info, rules, params, rand) -> int  # a card id in ``legal``

``hand`` and ``legal`` are uint64 card masks (bit ``suit * 13 + rank``: clubs 0,
diamonds 1, hearts 2, spades 3, ranks 0 = deuce .. 12 = ace; jokers 52 and 53 are
spades), ``seat`` 0..3 (N, E, S, W; side ``seat % 2``, partner ``seat ^ 2``), ``info``
the public table state (int64, read it by name: ``info[InfoSlot.n_in_trick]``,
``info[InfoSlot.bids + seat]``), ``rules`` the rule array (``rules[RuleField.target]``),
``params`` the float64 values you gave the policy, in order, and ``rand`` 64 random bits
for this decision (draw more with ``draw_nb(rand, k)``). No other seat's cards are ever
in ``info``. Pass the function, or ``Policy.custom(fn, kind, params)``, to
``simulate_hands``/``simulate_games``.

Everything here compiles inside a policy: the named slots (``InfoSlot``, ``RuleField``,
the built-ins' parameter slots such as ``HeuristicParam``: Numba folds them to
constants), the card-mask helpers, the random helpers, and the built-in heuristics as
building blocks: ``heuristic_play_nb(hand, legal, seat, info, rules, params)`` (the
``heuristic`` play, ``params`` laid out as ``HeuristicParam``, e.g. ``HEURISTIC_DEFAULTS``)
and ``count_bid_nb(hand, seat, info, params)`` (the ``count`` bid, ``CountParam``).
Mark small policies ``inline="always"``: the kernel then inlines them and the call
costs nothing.

How a user policy reaches the kernel: the hand loop (``_nb/loop.py``) calls its policies
through four module globals. For a run with user policies, ``simulate`` loads a private
copy of that module from its file (``importlib.util.spec_from_file_location`` and
``module_from_spec``) with ``POLICIES`` (the four functions) and ``CACHE = False`` set in
the new module before it executes; its kernels are compiled for those functions, once
per process per combination, and never written to Numba's cache (a kernel bound to a
function from your session could not be loaded by another process).

A policy that cheaply wins a trick it can win, else plays low, called here on a table
state built by hand (the 2C led by seat 0, seat 1 to play):

>>> import numpy as np
>>> from numba import njit
>>> from spades_sim import nb
>>> @njit(inline="always")
... def win_cheaply(hand, legal, seat, info, rules, params, rand):
...     if info[nb.InfoSlot.n_in_trick] == 0:
...         return nb.lowest_card_nb(legal)
...     led = nb.suit_mask_nb(info[nb.InfoSlot.led_suit])
...     above = nb.above_nb(info[nb.InfoSlot.winning_card])
...     winners = legal & above & (led | nb.SPADE_MASK)
...     return nb.lowest_card_nb(winners) if winners else nb.lowest_card_nb(legal)
>>> info = np.zeros(nb.N_INFO, dtype=np.int64)
>>> info[nb.InfoSlot.players] = 4
>>> info[nb.InfoSlot.n_in_trick] = 1
>>> info[nb.InfoSlot.led_suit] = 0
>>> info[nb.InfoSlot.winning_card] = 0  # the 2C
>>> clubs = np.uint64((1 << 3) | (1 << 9))  # the 5C and the JC
>>> rules = np.zeros(nb.N_RULE_FIELDS, dtype=np.int64)
>>> int(win_cheaply(clubs, clubs, 1, info, rules, np.zeros(1), np.uint64(7)))
3
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from spades_sim._nb.bidding import counting_bid_nb
from spades_sim._nb.bitboard import (
    JOKER_DECK,
    NON_SPADE_MASK,
    SPADE_MASK,
    STANDARD_DECK,
    SUIT_MASKS,
    above_nb,
    below_mask_nb,
    bit_nb,
    deck_mask_nb,
    highest_card_nb,
    lowest_card_nb,
    popcount_nb,
    rank_of_nb,
    select_bit_nb,
    suit_mask_nb,
    suit_of_nb,
)
from spades_sim._nb.enums import (
    COUNT_DEFAULTS,
    HEURISTIC_DEFAULTS,
    N_INFO,
    N_RULE_FIELDS,
    PARAM_SLOTS,
    BidParam,
    BidPolicy,
    CountParam,
    DrawPolicy,
    HeuristicParam,
    InfoSlot,
    LookaheadParam,
    PagatParam,
    PlayPolicy,
    RuleField,
)
from spades_sim._nb.heuristic import heuristic_play_nb
from spades_sim._nb.rng import GOLDEN, LOW32, below_nb, draw_nb, mix64_nb, unit_nb

BidFn = Callable[[np.uint64, int, np.ndarray, np.ndarray, np.ndarray, np.uint64], int]
"""``bid(hand, seat, info, rules, params, rand) -> 0..13`` (0 = nil), an ``@njit`` function."""
PlayFn = Callable[[np.uint64, np.uint64, int, np.ndarray, np.ndarray, np.ndarray, np.uint64], int]
"""``play(hand, legal, seat, info, rules, params, rand) -> card in legal``, ``@njit``."""


@njit(inline="always")
def count_bid_nb(hand: np.uint64, seat: int, info: np.ndarray, params: np.ndarray) -> int:
    """The built-in ``count`` bid for ``hand`` at ``seat`` (nil included), with
    ``params`` laid out as ``CountParam`` (slot 0 unused; ``COUNT_DEFAULTS`` are the
    registry's defaults)."""
    return counting_bid_nb(hand, seat, info, params, BidPolicy.count)


__all__ = [
    "COUNT_DEFAULTS",
    "GOLDEN",
    "HEURISTIC_DEFAULTS",
    "JOKER_DECK",
    "LOW32",
    "NON_SPADE_MASK",
    "N_INFO",
    "N_RULE_FIELDS",
    "PARAM_SLOTS",
    "SPADE_MASK",
    "STANDARD_DECK",
    "SUIT_MASKS",
    "BidFn",
    "BidParam",
    "BidPolicy",
    "CountParam",
    "DrawPolicy",
    "HeuristicParam",
    "InfoSlot",
    "LookaheadParam",
    "PagatParam",
    "PlayFn",
    "PlayPolicy",
    "RuleField",
    "above_nb",
    "below_mask_nb",
    "below_nb",
    "bit_nb",
    "count_bid_nb",
    "deck_mask_nb",
    "draw_nb",
    "heuristic_play_nb",
    "highest_card_nb",
    "lowest_card_nb",
    "mix64_nb",
    "popcount_nb",
    "rank_of_nb",
    "select_bit_nb",
    "suit_mask_nb",
    "suit_of_nb",
    "unit_nb",
]
