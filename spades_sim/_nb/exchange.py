"""The blind nil exchange choices and the two-player draw policy.

``pass_cards_nb`` (four players: what the nil bidder and its partner pass),
``discard_for_nil_nb`` (two players: what a blind nil declarer throws away) and
``keep_drawn_card_nb`` (the ``threshold`` and ``plan`` draw policies) see only the
cards of the seat that decides.
"""

import numpy as np
from numba import njit

from spades_sim._nb.bidding import (
    NIL_SIDE_2P,
    NIL_SPADE_2P,
    table_sum_nb,
)
from spades_sim._nb.bitboard import (
    ZERO,
    bit_nb,
    rank_of_nb,
    suit_of_nb,
)
from spades_sim._nb.enums import DrawPolicy, PlanParam, ThresholdParam


@njit(inline="always", cache=True)
def danger_card_nb(k):
    """The k-th most dangerous card id for a nil bidder (k = 0..55): the spades from the
    top (every id above the ace first), then the side suits rank by rank from the aces
    down (hearts first). Ids not in the pack are never held, so they are skipped."""
    if k < 17:
        return 55 - k
    k -= 17
    return (2 - k % 3) * 13 + 12 - k // 3


@njit(cache=True)
def pass_cards_nb(hand, k, nil_bidder):
    """The k cards a seat passes in a blind nil exchange: the nil bidder its most
    dangerous (high spades, then high side cards), the partner its lowest side cards."""
    out = ZERO
    taken = 0
    for j in range(56):
        if taken == k:
            break
        card = danger_card_nb(j if nil_bidder else 55 - j)
        if hand & bit_nb(card):
            out |= bit_nb(card)
            taken += 1
    return out


@njit(cache=True)
def discard_for_nil_nb(hand, k):
    """Two players: the cards a blind nil declarer discards (up to k): its dangerous
    cards, i.e. any spade above the 5 and side cards J or higher, most dangerous first."""
    out = ZERO
    taken = 0
    for j in range(56):
        if taken == k:
            break
        card = danger_card_nb(j)
        if not hand & bit_nb(card):
            continue
        rank = rank_of_nb(card)
        if (suit_of_nb(card) == 3 and rank >= 4) or rank >= 9:
            out |= bit_nb(card)
            taken += 1
    return out


@njit(inline="always", cache=True)
def keep_drawn_card_nb(held, card, kept_so_far, going_nil, draw_params):
    """Two-player draw policy ``draw_params[0]``: keep the drawn card or not.

    ``threshold``: keep a high card (spade from ``spade_rank``, side card from
    ``side_rank``), or going for (blind) nil a low side card up to ``nil_rank``. ``plan``:
    the same, but after ``commit_after`` kept cards a hand whose nil risk is at most
    ``nil_commit`` plays for nil (low side cards, spades up to ``nil_spade_rank``). Ranks
    are 0 (deuce) .. 12 (ace), jokers 13 and 14 (with the deuces high, 13..16 above the ace).
    """
    rank = rank_of_nb(card)
    spade = card >= 39
    nil = going_nil
    if not nil and np.int64(draw_params[0]) == DrawPolicy.plan:
        if kept_so_far >= draw_params[PlanParam.commit_after]:
            nil = (
                -table_sum_nb(held, NIL_SIDE_2P, NIL_SPADE_2P) <= draw_params[PlanParam.nil_commit]
            )
        if nil:
            return (
                rank <= draw_params[PlanParam.nil_spade_rank]
                if spade
                else rank <= draw_params[ThresholdParam.nil_rank]
            )
    if nil:
        return (not spade) and rank <= draw_params[ThresholdParam.nil_rank]
    if spade:
        return rank >= draw_params[ThresholdParam.spade_rank]
    return rank >= draw_params[ThresholdParam.side_rank]
