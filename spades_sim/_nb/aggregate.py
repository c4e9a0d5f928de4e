"""Aggregate mode: hands and games reduced to count tables inside the kernel.

A run in aggregate mode keeps no rows. Each call plays a range of deals (or games) into
scratch output blocks the size of one block of deals (``loop.hands_nb`` or a lock-step
entry point, called for one block) or of one game (``loop.games_nb``), reused, and adds
every row into count tables the caller owns: nothing of the size of the run is ever allocated. All
entries are int64 counts and sums of whole numbers, so a table is the same however the
run is cut into calls and threads (integer addition is exact and commutes); the caller
runs one call per thread, each into its own tables, and adds the tables at the end.

Tables (``int64``, cells by rows, statistics by columns):

- **seat table** ``(seat_groups * seat_cells, N_SEAT_STATS)``: a seat in a hand. Cell
  ``group * seat_cells + c`` with ``c`` 0 for a nil, 1 for a blind nil, ``2 + bid`` for a
  number bid; statistics ``S_*``.
- **side table** ``(side_groups * side_cells, N_SIDE_STATS)``: a side in a hand (the row
  of seat 0 or 1, which carries the side's figures). Cell ``c`` is the side tricks
  (0..T) when the contract is 0, else ``contract_cell0 + tricks - contract + 26``
  (differences -26..T); statistics ``D_*``.

T is the tricks of a hand (13; 17 or 18 with three players), so the cell counts follow
it: ``seat_cells(T)`` (16 for 13 tricks: ``SEAT_CELLS``), ``side_cells(T)`` (54:
``SIDE_CELLS``) and ``contract_cell0(T)`` (14: ``CONTRACT_CELL0``), the same functions
in the kernels and in ``run/counting.py``.
- **game table** ``(GAME_CELLS, N_GAME_STATS)`` (games mode): a side in a game, cell
  ``side * 3 + outcome`` (0 won, 1 lost, 2 unfinished); statistics ``A_*``.

The group of a row is a mixed-radix number over the chosen keys: ``codes[j]`` says where
key ``j`` comes from (an int8 output row ``O_*`` when >= 0, else ``K_SEAT``, ``K_SIDE``,
``K_HAND_NO``) and ``widths[j]`` how many values it takes (0 .. width - 1). A value out
of range (which the Python layer's widths rule out) is counted in ``status[S_BAD]`` and
the row left out, never written out of bounds. ``status``: policy errors, the first item
with one, rows out of range.
"""

import numpy as np
from numba import njit

from spades_sim._nb.enums import (
    LANES,
    N_OUT_GAME,
    N_OUT_I8,
    N_OUT_I32,
    GameOut,
    OutI8,
    OutI32,
    RuleField,
)
from spades_sim._nb.loop import BLOCK, games_nb, hands_nb
from spades_sim._nb.score import hand_tricks_nb, n_sides_nb, side_of_nb

K_SEAT, K_SIDE, K_HAND_NO = -1, -2, -3  # key codes besides the int8 output rows


@njit(cache=True)
def seat_cells(tricks):
    """Seat table cells per group: nil, blind nil, number bids 0..``tricks``."""
    return tricks + 3


@njit(cache=True)
def contract_cell0(tricks):
    """The side table's first cell of a contract: after side tricks 0..``tricks``."""
    return tricks + 1


@njit(cache=True)
def side_cells(tricks):
    """Side table cells per group: side tricks 0..``tricks`` for contract 0, then the
    differences -26..``tricks``."""
    return 2 * tricks + 28


SEAT_CELLS = 16  # nil, blind nil, number bids 0..13
S_COUNT, S_NIL_MADE, S_TRICKS, S_TRICKS_SQ, N_SEAT_STATS = 0, 1, 2, 3, 4

SIDE_CELLS = 54  # contract 0: side tricks 0..13; contract > 0: difference -26..13
CONTRACT_CELL0 = 14
D_COUNT, D_BAGS, D_BAGS_SQ, D_PENALTIES, D_POINTS, D_POINTS_SQ, D_SCORE, D_SCORE_SQ = range(8)
N_SIDE_STATS = 8

GAME_CELLS = 12  # side * 3 + outcome (0 won, 1 lost, 2 unfinished); 4 sides in cutthroat
(
    A_COUNT, A_BAGS, A_BAGS_SQ, A_PENALIZED, A_PENALTIES, A_PENALTIES_SQ, A_POINTS, A_POINTS_SQ,
    A_FIRST, A_FIRST_SQ, A_PAIRS, A_GAPS, A_GAPS_SQ, A_DECIDED, A_HANDS, A_HANDS_SQ,
) = range(16)  # fmt: skip
N_GAME_STATS = 16

ST_ERRORS, ST_FIRST_ERROR, ST_BAD, N_STATUS = 0, 1, 2, 3

assert BLOCK == LANES  # one scratch block serves every row kernel
ZERO = np.int64(0)
ONE_BLOCK = np.int64(1)  # typed, not literals: one compiled copy of each row kernel


@njit(inline="always", cache=True)
def group_nb(codes, widths, out_i8, row, seat, hand_no, sides):
    """The row's group number over the keys, or -1 if a value is out of range."""
    g = np.int64(0)
    for j in range(codes.shape[0]):
        code = codes[j]
        if code >= 0:
            v = np.int64(out_i8[code, row])
        elif code == K_SEAT:
            v = np.int64(seat)
        elif code == K_SIDE:
            v = np.int64(side_of_nb(sides, seat))
        else:
            v = np.int64(hand_no)
        w = widths[j]
        if v < 0 or v >= w:
            return np.int64(-1)
        g = g * w + v
    return g


@njit(inline="always", cache=True)
def add_hand_nb(rules, out_i8, out_i32, row0, hand_no, keys, seat_t, side_t):
    """Add one scored hand's rows (from ``row0``) to the seat and side tables; return the
    number of rows left out (a key out of range). ``keys``: seat codes, seat widths,
    side codes, side widths."""
    seat_codes, seat_widths, side_codes, side_widths = keys
    sides = n_sides_nb(rules)
    tricks = hand_tricks_nb(rules)
    n_seat_cells = seat_cells(tricks)
    n_side_cells = side_cells(tricks)
    first_contract_cell = contract_cell0(tricks)
    bad = 0
    for seat in range(rules[RuleField.players]):
        r = row0 + seat
        g = group_nb(seat_codes, seat_widths, out_i8, r, seat, hand_no, sides)
        kind = np.int64(out_i8[OutI8.nil_kind, r])
        bid = np.int64(out_i8[OutI8.bid, r])
        cell = kind - 1 if kind > 0 else 2 + bid
        if g < 0 or cell < 0 or cell >= n_seat_cells:
            bad += 1
        else:
            c = g * n_seat_cells + cell
            tricks = np.int64(out_i8[OutI8.tricks, r])
            seat_t[c, S_COUNT] += 1
            if out_i8[OutI8.nil_made, r] == 1:
                seat_t[c, S_NIL_MADE] += 1
            seat_t[c, S_TRICKS] += tricks
            seat_t[c, S_TRICKS_SQ] += tricks * tricks
        if seat >= sides:
            continue  # a partner's row repeats its side's figures
        g = group_nb(side_codes, side_widths, out_i8, r, seat, hand_no, sides)
        contract = np.int64(out_i8[OutI8.side_contract, r])
        won = np.int64(out_i8[OutI8.side_tricks, r])
        cell = won if contract == 0 else first_contract_cell + won - contract + 26
        if g < 0 or cell < 0 or cell >= n_side_cells:
            bad += 1
            continue
        c = g * n_side_cells + cell
        bags = np.int64(out_i8[OutI8.bags_change, r])
        points = np.int64(out_i32[OutI32.bag_penalty, r])
        score = np.int64(out_i32[OutI32.score_change, r])
        side_t[c, D_COUNT] += 1
        side_t[c, D_BAGS] += bags
        side_t[c, D_BAGS_SQ] += bags * bags
        if points > 0:
            side_t[c, D_PENALTIES] += 1
        side_t[c, D_POINTS] += points
        side_t[c, D_POINTS_SQ] += points * points
        side_t[c, D_SCORE] += score
        side_t[c, D_SCORE_SQ] += score * score
    return bad


@njit(cache=True)
def add_game_nb(rules, out_i8, out_i32, summary, row0, keys, seat_t, side_t, game_t):
    """Add one finished game (its hands' rows from ``row0``, its ``G_*`` summary) to the
    three tables; return the rows left out."""
    players = rules[RuleField.players]
    hands = np.int64(summary[GameOut.hands])
    bad = 0
    for h in range(hands):
        bad += add_hand_nb(rules, out_i8, out_i32, row0 + h * players, h, keys, seat_t, side_t)
    winner = np.int64(summary[GameOut.winner])
    sides = n_sides_nb(rules)
    # the final scores with every point lost to bags given back
    finals = np.empty(4, dtype=np.int64)
    finals[0] = np.int64(summary[GameOut.score_ns]) + np.int64(summary[GameOut.bag_penalty_ns])
    finals[1] = np.int64(summary[GameOut.score_ew]) + np.int64(summary[GameOut.bag_penalty_ew])
    finals[2] = np.int64(summary[GameOut.score_2]) + np.int64(summary[GameOut.bag_penalty_2])
    finals[3] = np.int64(summary[GameOut.score_3]) + np.int64(summary[GameOut.bag_penalty_3])
    for side in range(sides):
        bags = np.int64(0)
        points = np.int64(0)
        penalties = np.int64(0)
        first = np.int64(-1)
        last = np.int64(-1)
        pairs = np.int64(0)
        gaps = np.int64(0)
        gaps_sq = np.int64(0)
        for h in range(hands):
            r = row0 + h * players + side
            bags += out_i8[OutI8.bags_change, r]
            lost = np.int64(out_i32[OutI32.bag_penalty, r])
            points += lost
            if lost > 0:
                penalties += 1
                if first < 0:
                    first = h + 1
                if last >= 0:
                    pairs += 1
                    gaps += h - last
                    gaps_sq += (h - last) * (h - last)
                last = h
        outcome = 2 if winner < 0 else (0 if winner == side else 1)
        c = side * 3 + outcome
        game_t[c, A_COUNT] += 1
        game_t[c, A_BAGS] += bags
        game_t[c, A_BAGS_SQ] += bags * bags
        game_t[c, A_PENALTIES] += penalties
        game_t[c, A_PENALTIES_SQ] += penalties * penalties
        game_t[c, A_POINTS] += points
        game_t[c, A_POINTS_SQ] += points * points
        if first > 0:
            game_t[c, A_PENALIZED] += 1
            game_t[c, A_FIRST] += first
            game_t[c, A_FIRST_SQ] += first * first
        game_t[c, A_PAIRS] += pairs
        game_t[c, A_GAPS] += gaps
        game_t[c, A_GAPS_SQ] += gaps_sq
        # a losing side that would have beaten the winner but for the bags
        if outcome == 1 and finals[side] > finals[winner]:
            game_t[c, A_DECIDED] += 1
        game_t[c, A_HANDS] += hands
        game_t[c, A_HANDS_SQ] += hands * hands
    return bad


@njit(inline="always", cache=True)
def note_error_nb(status, errors, item):
    if errors != 0:
        if status[ST_ERRORS] == 0 or item < status[ST_FIRST_ERROR]:
            status[ST_FIRST_ERROR] = item
        status[ST_ERRORS] += 1


@njit(inline="always", cache=True)
def aggregate_hands_with_nb(rows_nb, rules, seed, deal_start, n, params, keys, seat_t, side_t,
                            status):  # fmt: skip
    """Deals deal_start .. deal_start+n-1 as independent hands through the row kernel
    ``rows_nb`` (``loop.hands_nb`` or a lock-step entry point, one block at a time into
    reused scratch), added to the seat and side tables."""
    rows = BLOCK * 4
    out_hand = np.empty(rows, dtype=np.uint64)
    out_i8 = np.empty((N_OUT_I8, rows), dtype=np.int8)
    out_i32 = np.empty((N_OUT_I32, rows), dtype=np.int32)
    errors = np.zeros(BLOCK, dtype=np.int8)
    no_dealt = np.zeros(0, dtype=np.uint64)
    no_plays = np.zeros((0, 52), dtype=np.int8)
    no_winners = np.zeros((0, 13), dtype=np.int8)
    for lo in range(0, n, BLOCK):
        count = min(BLOCK, n - lo)
        start = deal_start + lo  # one block of deals from here: the same streams
        rows_nb(
            ZERO, ONE_BLOCK, rules, seed, start, count, params,
            out_hand, out_i8, out_i32, errors, no_dealt, no_plays, no_winners,
        )  # fmt: skip
        # one real call a block: per hand, its reference counting on the dozen arrays
        # it takes cost about as much as counting the hand
        add_hand_rows_nb(
            rules, out_i8, out_i32, errors, start, count, keys, seat_t, side_t, status
        )  # fmt: skip


# One entry point per row kernel (``spades_sim.run.select`` pairs them; the lock-step
# ones' twins are generated with them into ``lockstep_entries.py``): an aggregate run
# compiles only the one it plays with. The row kernel is a compile-time constant of
# each, so each is cached.


@njit(cache=True, nogil=True)
def aggregate_hands_scalar_nb(rules, seed, deal_start, n, params, keys, seat_t, side_t, status):
    """``aggregate_hands_with_nb`` through ``loop.hands_nb`` (every built-in policy)."""
    aggregate_hands_with_nb(
        hands_nb, rules, seed, deal_start, n, params, keys, seat_t, side_t, status
    )  # fmt: skip


@njit(cache=True, nogil=True)
def aggregate_games_nb(rules, seed, game_start, n, params, keys, seat_t, side_t, game_t, status):
    """Games game_start .. game_start+n-1 (``loop.games_nb``, one at a time into reused
    scratch), each added to the three tables as it ends. Releases the GIL."""
    rows = rules[RuleField.max_hands] * rules[RuleField.players]
    out_hand = np.empty(rows, dtype=np.uint64)
    out_i8 = np.empty((N_OUT_I8, rows), dtype=np.int8)
    out_i32 = np.empty((N_OUT_I32, rows), dtype=np.int32)
    out_game = np.zeros((1, N_OUT_GAME), dtype=np.int32)
    no_dealt = np.zeros(0, dtype=np.uint64)
    no_plays = np.zeros((0, 52), dtype=np.int8)
    no_winners = np.zeros((0, 13), dtype=np.int8)
    for i in range(n):
        game = game_start + i
        games_nb(
            ZERO, ONE_BLOCK, rules, seed, game, ONE_BLOCK, params,
            out_hand, out_i8, out_i32, out_game, no_dealt, no_plays, no_winners,
        )  # fmt: skip
        summary = out_game[0]
        note_error_nb(status, summary[GameOut.policy_error], game)
        status[ST_BAD] += add_game_nb(
            rules, out_i8, out_i32, summary, 0, keys, seat_t, side_t, game_t
        )


@njit(cache=True)
def add_hand_rows_nb(rules, out_i8, out_i32, errors, item0, n, keys, seat_t, side_t, status):
    """Add the rows of ``n`` independent hands a row kernel wrote (hand ``i`` from row
    ``i * players``, hand ``i`` being item ``item0 + i``): a block of the built-in row
    kernels, or a piece of a run of user-written policies (their own copy of the row
    kernels)."""
    players = rules[RuleField.players]
    for i in range(n):
        note_error_nb(status, errors[i], item0 + i)
        status[ST_BAD] += add_hand_nb(rules, out_i8, out_i32, i * players, 0, keys, seat_t, side_t)


@njit(cache=True)
def add_game_rows_nb(rules, out_i8, out_i32, summaries, item0, keys, seat_t, side_t, game_t,
                     status):  # fmt: skip
    """Add the games a row kernel wrote (game ``i`` from row ``i * max_hands * players``,
    its summary ``summaries[i]``), as :func:`add_hand_rows_nb` for games."""
    per_game = rules[RuleField.max_hands] * rules[RuleField.players]
    for i in range(summaries.shape[0]):
        note_error_nb(status, summaries[i, GameOut.policy_error], item0 + i)
        status[ST_BAD] += add_game_nb(
            rules, out_i8, out_i32, summaries[i], i * per_game, keys, seat_t, side_t, game_t
        )
