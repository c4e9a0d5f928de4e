"""The output row of one seat in one hand: the columns of ``schema.py``'s hands table that
every kernel writes (``OutI8``/``OutI32``), stated once.

``write_seat_row_nb`` writes a whole row for the row kernels (``loop.write_rows_nb``,
which adds the games-mode columns: scores and bags before and after); the lock-step
kernels (``lockstep_score``) write the same four groups of columns it is made of, one
group per loop over a batch. So a column means the same from either.
"""

from numba import njit

from spades_sim._nb.enums import OutI8, OutI32
from spades_sim._nb.features import hand_features_nb


@njit(inline="always", cache=True)
def write_features_nb(hand, row, out_i8):
    """The hand's features (``features.hand_features_nb``) into its output row."""
    spades, high, aces, kings, queens, shortest, voids, points = hand_features_nb(hand)
    out_i8[OutI8.spades, row] = spades
    out_i8[OutI8.high_spades, row] = high
    out_i8[OutI8.aces, row] = aces
    out_i8[OutI8.kings, row] = kings
    out_i8[OutI8.queens, row] = queens
    out_i8[OutI8.shortest_suit, row] = shortest
    out_i8[OutI8.voids, row] = voids
    out_i8[OutI8.points, row] = points


@njit(inline="always", cache=True)
def write_seat_row_nb(row, hand, dealer, bid, nil_kind, tricks, nil_made, contract, side_tricks,
                      made, bags_change, boston, score_change, bag_penalty, out_hand, out_i8,
                      out_i32):  # fmt: skip
    """Row ``row`` whole: ``write_seat_columns_nb``, ``write_features_nb``,
    ``write_side_columns_nb`` and ``write_score_columns_nb``."""
    write_seat_columns_nb(row, hand, dealer, bid, nil_kind, tricks, out_hand, out_i8)
    write_features_nb(hand, row, out_i8)
    write_side_columns_nb(row, nil_made, contract, side_tricks, made, bags_change, boston, out_i8)
    write_score_columns_nb(row, score_change, bag_penalty, out_i32)


@njit(inline="always", cache=True)
def write_seat_columns_nb(row, hand, dealer, bid, nil_kind, tricks, out_hand, out_i8):
    """The seat's own columns: its hand at the start of play, the dealer, its bid, nil
    kind and tricks."""
    out_hand[row] = hand
    out_i8[OutI8.dealer, row] = dealer
    out_i8[OutI8.bid, row] = bid
    out_i8[OutI8.nil_kind, row] = nil_kind
    out_i8[OutI8.tricks, row] = tricks


@njit(inline="always", cache=True)
def write_side_columns_nb(row, nil_made, contract, side_tricks, made, bags_change, boston,
                          out_i8):  # fmt: skip
    """The seat's nil result and its side's contract, tricks, result, bags and Boston
    (``score.side_score_nb``)."""
    out_i8[OutI8.nil_made, row] = nil_made
    out_i8[OutI8.side_contract, row] = contract
    out_i8[OutI8.side_tricks, row] = side_tricks
    out_i8[OutI8.made, row] = made
    out_i8[OutI8.bags_change, row] = bags_change
    out_i8[OutI8.boston, row] = boston


@njit(inline="always", cache=True)
def write_score_columns_nb(row, score_change, bag_penalty, out_i32):
    """The side's score change and bag penalty of the hand."""
    out_i32[OutI32.score_change, row] = score_change
    out_i32[OutI32.bag_penalty, row] = bag_penalty
