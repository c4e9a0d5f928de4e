"""The ``heuristic`` play policy on scalars, card by card.

``heuristic_play_nb(hand, legal, seat, info, rules, params)`` is the built-in heuristic
(``spades_sim.policies`` describes it): it sees its own hand, the legal cards and the
public table state ``info`` only. ``heuristic_core_nb`` is the same decision on scalars,
which ``lockstep_heuristic.py`` reproduces without branches.

Speed: this per-card path is inlined into the kernels. ``heuristic_play_nb`` reads the
arrays into scalars once and hands them to scalar-only helpers compiled with
``forceinline`` (LLVM inlines them; Numba does not re-type them at every call site):
arrays inside branchy inlined code, or passed to a real call, make Numba keep atomic
reference counting on them around every decision, which cost more than the policy.
Keep new per-card code scalar-only and ``forceinline``, and keep arrays out of it.
"""

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from spades_sim._nb.bitboard import (
    NON_SPADE_MASK,
    ONE,
    RANK_BITS,
    SPADE_BITS,
    SPADE_MASK,
    SUIT_MASKS,
    SUIT_MASKS_BY_BITS,
    ZERO,
    above_nb,
    below_mask_nb,
    deck_mask_nb,
    high_rank_card_nb,
    highest_card_nb,
    lane_suit_mask_nb,
    low_rank_card_nb,
    lowest_card_nb,
    popcount_nb,
    suit_of_nb,
)
from spades_sim._nb.enums import (
    HEURISTIC_NUMBER_SLOTS,
    MAX_PLAYS,
    N_PLAY_COMMON,
    HeuristicFlag,
    HeuristicSettings,
    InfoSlot,
    RuleField,
)
from spades_sim._nb.score import hand_tricks_nb, side_of_nb


@njit(cache=True, forceinline=True)
def weakest_discard_nb(legal):
    """Discard: the lowest card of the side suit whose highest card is lowest (keep
    spades and strong suits); only spades left: the lowest spade."""
    best = -1
    best_top = 99
    for suit in range(3):
        m = legal & SUIT_MASKS[suit]
        if m:
            top = highest_card_nb(m) - 13 * suit
            if top < best_top:
                best_top = top
                best = lowest_card_nb(m)
    return best if best >= 0 else lowest_card_nb(legal)


@njit(cache=True, forceinline=True)
def cheapest_equal_nb(mine, top, unseen):
    """The lowest of ``mine`` that is as good as card ``top`` (no unseen card between)."""
    gap = unseen & below_mask_nb(top) & SUIT_MASKS[suit_of_nb(top)]
    if gap:
        return lowest_card_nb(mine & above_nb(highest_card_nb(gap)))
    return lowest_card_nb(mine & SUIT_MASKS[suit_of_nb(top)])


@njit(cache=True, forceinline=True)
def duck_nb(legal, n_in, last, led, win_card):
    """Try not to win: lead the lowest rank; otherwise the highest card that still loses;
    if every card wins, the highest when last (the trick is lost anyway), else the lowest
    (a later player may still overtake)."""
    if n_in == 0:
        return low_rank_card_nb(legal)
    beats = legal & above_nb(win_card) & (SUIT_MASKS[led] | SPADE_MASK)
    loses = legal & ~beats
    if loses:
        return high_rank_card_nb(loses)
    return highest_card_nb(legal) if last else lowest_card_nb(legal)


@njit(cache=True, forceinline=True)
def read_play_nb(card, led, win_card, last, must_trump, must_over):
    """The cards a nil bidder that ducks as ``duck_nb`` does is shown not to hold when it
    plays ``card`` (not a lead) to a trick led in suit ``led`` whose winning card is
    ``win_card``; ``last``: it plays last. Without a branch (the lock-step kernel reads
    every play with it). Following under the winner, the card is the highest that still
    loses: no card of the suit between it and the winner (none above it under a ruff).
    Following over it, nothing of the suit lost (none below the winner, unless a spade
    lead forced it over), and not last, the lowest winner was played: none between the
    winner and it. Void, a side card is the highest rank of the cards that lose: no side
    card of a higher rank, nor a spade of a higher rank below a winning spade. Void, a
    spade below a winning spade is the same, but with ``must_trump`` only spades were
    legal, so the side cards say nothing (and with ``must_over`` none was above the
    winner); a spade over the winner means no card lost
    (no side card unless ``must_trump`` forced the spade, no spade below the winner unless
    ``must_over`` forced it over), and not last, no spade between the winner and it."""
    suit = min(card // 13, 3)
    led_mask = lane_suit_mask_nb(max(led, 0))
    below_w = below_mask_nb(win_card)
    below_c = below_mask_nb(card)
    over_w = above_nb(win_card)
    over_c = above_nb(card)
    rank = card - 13 * suit
    side_up = RANK_BITS & above_nb(rank)
    side_up = side_up | (side_up << np.uint64(13)) | (side_up << np.uint64(26))
    spades_up = (SPADE_BITS & above_nb(rank)) << np.uint64(39)
    under = card < win_card
    # following suit
    # a spade lead under ``must_over``: it would have had to go over the winner
    on_under = (led_mask & over_c & below_w) | (
        led_mask & over_w if must_over and led == 3 else ZERO
    )
    forced_over = must_over and led == 3
    on_over = (ZERO if forced_over else led_mask & below_w) | (
        ZERO if last else led_mask & over_w & below_c
    )
    on_suit = on_under if under else on_over
    # void: a side card, or a spade under or over the winner
    trumped = win_card >= 39
    discard = (
        side_up
        | ((spades_up & below_w) if trumped else ZERO)
        | (SPADE_MASK if must_trump else ZERO)
    )
    side_lost = ZERO if must_trump else NON_SPADE_MASK
    ruff_under = (
        (SPADE_MASK & over_c & below_w)
        | (ZERO if must_trump else side_up)
        | (SPADE_MASK & over_w if must_over else ZERO)
    )
    ruff_over = (
        side_lost
        | (ZERO if must_over else SPADE_MASK & below_w)
        | (ZERO if last else SPADE_MASK & over_w & below_c)
    )
    ruff = ruff_under if under else ruff_over
    off_suit = ruff if suit == 3 else discard
    return on_suit if suit == led else off_suit


@njit(cache=True, forceinline=True)
def lead_nb(legal, unseen, opp_voids, cash, draw_trumps):
    """Lead for tricks: a sure winner in a suit no opponent has shown out of (or with no
    spades left out), the top spade to draw trumps, else low from the weakest side suit."""
    spades_out = unseen & SPADE_MASK
    if cash:
        for suit in range(3):
            m = legal & SUIT_MASKS[suit]
            if m and (spades_out == ZERO or not (opp_voids >> suit) & 1):
                top = highest_card_nb(m)
                if not unseen & SUIT_MASKS[suit] & above_nb(top):
                    return cheapest_equal_nb(m, top, unseen)
    sp = legal & SPADE_MASK
    if draw_trumps and sp and spades_out:
        top = highest_card_nb(sp)
        if top > highest_card_nb(spades_out):
            return cheapest_equal_nb(sp, top, unseen)
    side = legal & NON_SPADE_MASK
    return weakest_discard_nb(side if side else legal)


@njit(cache=True, forceinline=True)
def follow_nb(legal, second, last, led, win_card, partner_wins, unseen, cash, second_trump):
    """Follow for tricks: second hand low unless holding a sure winner, third hand high
    but as cheaply as an equal card allows, last hand wins as cheaply as possible, never
    overtake a winning partner; void: trump (over a trump) when it can win, except in
    second seat unless ``second_trump``; otherwise discard from the weakest suit."""
    trumped = win_card >= 39 and led != 3
    follow = legal & SUIT_MASKS[led]
    if follow:
        if trumped or partner_wins:
            return lowest_card_nb(follow)
        beaters = follow & above_nb(win_card)
        if not beaters:
            return lowest_card_nb(follow)
        if last:
            return lowest_card_nb(beaters)
        rest = unseen & SUIT_MASKS[led]
        masters = follow & above_nb(highest_card_nb(rest)) if rest else follow
        if second:
            return lowest_card_nb(masters if (masters and cash) else follow)
        if masters:
            return lowest_card_nb(masters)
        return cheapest_equal_nb(beaters, highest_card_nb(beaters), unseen)
    sp = legal & SPADE_MASK
    if partner_wins or not sp:
        return weakest_discard_nb(legal)
    if trumped:
        over = sp & above_nb(win_card)
        return lowest_card_nb(over) if over else weakest_discard_nb(legal)
    if second and not second_trump:
        return weakest_discard_nb(legal)
    return lowest_card_nb(sp)


@njit(cache=True, forceinline=True)
def master_nb(mine, suit_mask, unseen):
    """The cheapest card of ``mine`` (within ``suit_mask``) that no unseen card of the suit
    beats, -1 when none."""
    m = mine & suit_mask
    if not m:
        return -1
    top = highest_card_nb(m)
    if unseen & suit_mask & above_nb(top):
        return -1
    return cheapest_equal_nb(m, top, unseen)


@njit(cache=True, forceinline=True)
def cover_nb(legal, n_in, led, win_card, partner_played, partner_wins, partner_voids, unseen):
    """Partner of a live nil. Leading: high in a suit the nil bidder is void in (it throws
    a dangerous card), else a spade no one can beat while spades are out (the nil bidder
    sheds a spade under it: drawing its spades is what protects a nil), else a side card
    no one can beat, else the highest rank. Before the nil bidder plays, set the bar high
    but cheaply (the lowest card as good as the top one, so the cover keeps its tricks
    for the side's number; a trump when void); after it, overtake it as cheaply as
    possible. -1: no special card, play on."""
    if n_in == 0:
        for suit in range(3):
            m = legal & SUIT_MASKS[suit]
            if m and (partner_voids >> suit) & 1:
                return highest_card_nb(m)
        if not (partner_voids >> 3) & 1 and unseen & SPADE_MASK:
            card = master_nb(legal, SPADE_MASK, unseen)
            if card >= 0:
                return card
        for suit in range(3):
            card = master_nb(legal, SUIT_MASKS[suit], unseen)
            if card >= 0:
                return card
        return high_rank_card_nb(legal)
    if partner_played:
        if partner_wins:
            beats = legal & above_nb(win_card) & (SUIT_MASKS[led] | SPADE_MASK)
            if beats:
                return lowest_card_nb(beats)
        return -1
    follow = legal & SUIT_MASKS[led]
    if follow:
        top = highest_card_nb(follow)
        if top > win_card:
            return cheapest_equal_nb(follow & above_nb(win_card), top, unseen)
        return lowest_card_nb(follow)
    over = legal & SPADE_MASK & above_nb(win_card)
    return lowest_card_nb(over) if over else weakest_discard_nb(legal)


@njit(cache=True, forceinline=True)
def attack_lead_nb(legal, nil_voids, cover_voids, nil_unseen, pull, avoid, long_suit, escape, read):
    """Lead into an opponent's live nil: low in a suit it still holds. With ``pull`` > 0,
    spades out above our lowest one and that spade's rank (2 = 0) below ``pull``, that
    spade: a nil holding only high spades must win it, and each round pulls one of its
    guards; a higher spade is led only when nothing else can be, since the nil bidder
    would shed its own high spade under it (led into a nil holding the J, a K lets it
    go). With ``avoid``, not a suit its partner has shown out of while that partner may
    hold a spade (it would ruff and the nil bidder throw its high card under it;
    TricksterBots' SpadesBot.cs avoids those suits the same way). With ``long_suit``, low
    from the longest such suit (lowest card first on equal length): the more of a suit the
    defence holds, the more rounds of it can be led under the nil before it runs out of
    low cards. With ``escape`` (and not ``long_suit``), the lowest card of the suit with
    the fewest unseen cards below it (the lowest rank on equal counts): a low card is low
    against the cards still out, not against the deck (the 6H with 2H-5H played is the
    lowest heart left, the 4D with the 2D and 3D out is not), and every unseen card below
    the lead is one the nil bidder could duck with. ``nil_unseen``: the unseen cards the
    nil bidder may still hold (all of them unless its plays were read); with ``read``, a
    suit where it can hold no card above the lead comes after the others (it ducks
    whatever it holds there)."""
    m = legal & ~SUIT_MASKS_BY_BITS[nil_voids & 15]
    sp = m & SPADE_MASK
    if pull > 0 and sp:
        low = lowest_card_nb(sp)
        if low - 39 < pull and nil_unseen & SPADE_MASK & above_nb(low):
            return low
        side_in = m & NON_SPADE_MASK
        side = legal & NON_SPADE_MASK
        m = side_in if side_in else (side if side else m)
    if avoid and not (cover_voids >> 3) & 1:
        keep = m & ~SUIT_MASKS_BY_BITS[cover_voids & 7]
        if keep:
            m = keep
    if not m:
        m = legal
    if long_suit:
        best = -1
        best_len = -1
        best_rank = 99
        for suit in range(4):
            s = m & SUIT_MASKS[suit]
            if s:
                n = popcount_nb(s)
                low = lowest_card_nb(s)
                if n > best_len or (n == best_len and low - 13 * suit < best_rank):
                    best = low
                    best_len = n
                    best_rank = low - 13 * suit
        return best
    if escape:
        best = -1
        best_key = 999
        for suit in range(4):
            s = m & SUIT_MASKS[suit]
            if s:
                low = lowest_card_nb(s)
                below = (s - ONE) & ~s  # every card id below the suit's lowest card
                key = 16 * popcount_nb(nil_unseen & SUIT_MASKS[suit] & below) + low - 13 * suit
                if read and not nil_unseen & SUIT_MASKS[suit] & above_nb(low):
                    key += 256
                if key < best_key:
                    best = low
                    best_key = key
        return best
    return low_rank_card_nb(m)


@njit(cache=True, forceinline=True)
def beatable_nb(mine, unseen):
    """The cards of ``mine`` that an unseen card of their suit beats (not sure tricks)."""
    out = ZERO
    for suit in range(4):
        u = unseen & SUIT_MASKS[suit]
        if u:
            out |= mine & SUIT_MASKS[suit] & below_mask_nb(highest_card_nb(u))
    return out


@njit(cache=True, forceinline=True)
def attack_nb(
    legal, n_in, last, led, win_card, nil_played, nil_wins, mate_wins, nil_voids, cover_voids,
    unseen, nil_unseen, shed, pull, avoid, under, long_suit, escape, read,
):  # fmt: skip
    """Opponent of a live nil: lead as ``attack_lead_nb``; play low before it; never
    overtake it (the highest card under its card). With ``shed``, the low cards are kept
    as ammunition and high ones thrown where they cost no trick: void before the nil
    bidder plays, discard the highest side card that is not a sure trick; once it has
    played and lost the trick, follow with the highest such card that does not win the
    trick (unless the trick can be taken from the nil bidder's side). With ``under``, a
    card played before the nil bidder's that cannot win the trick (the nil bidder will
    duck under the winning card whatever it is) is the highest such card an unseen card
    beats, not the lowest: the low cards stay for later leads into the nil (TricksterBots'
    SpadesBot.cs throws the highest card under the winner the same way). -1: no special
    card, play on."""
    if n_in == 0:
        return attack_lead_nb(
            legal, nil_voids, cover_voids, nil_unseen, pull, avoid, long_suit, escape, read
        )
    follow = legal & SUIT_MASKS[led]
    if not nil_played:
        if follow:
            if under:
                trumped = win_card >= 39 and led != 3
                below = follow if trumped else follow & below_mask_nb(win_card)
                spare = below & beatable_nb(legal, unseen)
                if spare:
                    return highest_card_nb(spare)
            return lowest_card_nb(follow)
        if shed:
            spare = legal & NON_SPADE_MASK & beatable_nb(legal, unseen)
            if spare:
                return high_rank_card_nb(spare)
        return weakest_discard_nb(legal)
    if nil_wins:
        return duck_nb(legal, n_in, last, led, win_card)
    if shed and follow:
        beaters = ZERO if (win_card >= 39 and led != 3) else follow & above_nb(win_card)
        if mate_wins or not beaters:
            spare = follow & ~beaters & beatable_nb(legal, unseen)
            if spare:
                return highest_card_nb(spare)
    return -1


@njit(cache=True, forceinline=True)
def pick_nb(four, seat):
    """Entry ``seat`` of a 4-tuple, by selects (no indexing by a variable)."""
    return four[3] if seat == 3 else (four[2] if seat == 2 else (four[1] if seat == 1 else four[0]))


@intrinsic
def _settings_nb(typingctx, flags, params):
    """``HeuristicSettings(flags, params[slot], ...)``, a field per numeric setting read
    from its slot (``HEURISTIC_NUMBER_SLOTS``): the one builder, so the settings follow
    the table with no per-setting code."""
    if not (isinstance(params, types.Array) and params.ndim == 1):
        return None
    numbers = len(HEURISTIC_NUMBER_SLOTS)
    settings = types.BaseTuple.from_types(
        (types.int64, *(types.float64,) * numbers), HeuristicSettings
    )

    def codegen(context, builder, signature, args):
        row_type = signature.args[1]
        row = context.make_array(row_type)(context, builder, args[1])
        values = [context.cast(builder, args[0], signature.args[0], types.int64)]
        for slot in HEURISTIC_NUMBER_SLOTS:
            at = context.get_constant(types.intp, slot)
            ptr = cgutils.get_item_pointer(context, builder, row_type, row, [at])
            value = builder.load(ptr)
            values.append(context.cast(builder, value, row_type.dtype, types.float64))
        return context.make_tuple(builder, signature.return_type, values)

    return settings(flags, params), codegen


@njit(cache=True, forceinline=True)
def heuristic_settings_nb(params):
    """One side's ``HeuristicSettings`` from its parameter row (slots 1 on): ``flags``
    bit k set when slot k + 1 is above 0 (the switches' bits; a number's bit is unused),
    and the numeric settings by name (``enums.heuristic_settings`` in Python). Built once
    per side and per decision, passed whole down to the scalar and lane bodies."""
    flags = 0
    for k in range(1, N_PLAY_COMMON + 1):
        flags |= np.int64(params[k] > 0) << (k - 1)
    return _settings_nb(flags, params)


@njit(cache=True, forceinline=True)
def heuristic_core_nb(
    hand, legal, seat, players, partnered, n_in, leader, led, win_card, win_seat, unseen,
    alive, voids, need, opp_need, remaining, settings, nil_outs,
):  # fmt: skip
    """The heuristic on scalars (see ``heuristic_play_nb``): ``alive`` has bit s set when
    seat s has a live nil, ``voids`` holds four bits of known voids per seat, ``settings``
    the side's ``HeuristicSettings`` (``flags``, the on/off parameters, bit k: slot k + 1;
    the numbers by name), ``nil_outs`` per seat the cards its plays show it does not hold
    (read with ``nil_read``: ``read_play_nb``). An opponent's nil is attacked unless the
    side's own contract is at risk: still makeable with fewer than ``nil_spare`` tricks to
    spare.
    ``partnered`` false with four players is cutthroat: no partner to cover or to leave a
    trick to, the three others opponents (the first live nil among them attacked, their
    voids pooled); three players are always cutthroat, the two others opponents."""
    if not legal & (legal - ONE):
        return lowest_card_nb(legal)
    flags = settings.flags
    last = n_in == players - 1
    if (alive >> seat) & 1:
        return duck_nb(legal, n_in, last, led, win_card)
    four = players == 4
    partner = seat ^ 2
    opp_a = seat ^ 1
    opp_b = seat ^ 3 if four else opp_a
    # cutthroat: the partner seat is a third opponent
    opp_c = partner if four and not partnered else opp_a
    if players == 3:
        opp_a = seat + 1 if seat < 2 else 0  # the seat on the left, then the one after
        opp_b = 3 - seat - opp_a
        opp_c = opp_a
    card = -1
    if partnered and four and flags & HeuristicFlag.cover_nil and (alive >> partner) & 1:
        card = cover_nb(
            legal, n_in, led, win_card, (partner - leader + players) % players < n_in,
            win_seat == partner, (voids >> (4 * partner)) & 15, unseen,
        )  # fmt: skip
    elif (
        flags & HeuristicFlag.attack_nil
        and (alive >> opp_a | alive >> opp_b | alive >> opp_c) & 1
        and not (0 < need <= remaining and remaining - need < settings.nil_spare)
    ):
        target = opp_a if (alive >> opp_a) & 1 else (opp_b if (alive >> opp_b) & 1 else opp_c)
        # the nil bidder's partner, whose voids let it ruff (none in cutthroat)
        cover_voids = (voids >> (4 * (target ^ 2))) & 15 if partnered and four else 0
        nil_voids = (voids >> (4 * target)) & 15
        nil_unseen = unseen
        if flags & HeuristicFlag.nil_read:
            # the cards its plays have not ruled out; a suit with none left is a void
            nil_unseen = unseen & ~pick_nb(nil_outs, target)
            for suit in range(4):
                if not nil_unseen & SUIT_MASKS[suit]:
                    nil_voids |= 1 << suit
        card = attack_nb(
            legal, n_in, last, led, win_card, (target - leader + players) % players < n_in,
            win_seat == target, partnered and four and win_seat == partner,
            nil_voids, cover_voids, unseen, nil_unseen, flags & HeuristicFlag.nil_shed,
            settings.nil_pull, flags & HeuristicFlag.nil_lead, flags & HeuristicFlag.nil_under,
            flags & HeuristicFlag.nil_long, flags & HeuristicFlag.nil_escape,
            flags & HeuristicFlag.nil_read,
        )  # fmt: skip
    if card >= 0:
        return card
    # a side that has made its bid ducks, unless a few more tricks would set the others
    if (
        flags & HeuristicFlag.bag_avoid
        and need <= 0
        and (opp_need <= 0 or remaining + 1 - opp_need > settings.set_push)
    ):
        return duck_nb(legal, n_in, last, led, win_card)
    if n_in == 0:
        opp_voids = ((voids >> (4 * opp_a)) | (voids >> (4 * opp_b)) | (voids >> (4 * opp_c))) & 15
        return lead_nb(
            legal,
            unseen,
            opp_voids,
            flags & HeuristicFlag.cash_masters,
            flags & HeuristicFlag.draw_trumps,
        )
    return follow_nb(
        legal, four and n_in == 1, last, led, win_card, partnered and four and win_seat == partner,
        unseen,
        flags & HeuristicFlag.cash_masters, flags & HeuristicFlag.second_hand_trump,
    )  # fmt: skip


@njit(inline="always", cache=True)
def read_plays_nb(info, rules, players):
    """Per seat, the cards its plays this hand show it does not hold, were it a nil bidder
    ducking as ``duck_nb`` does (``read_play_nb`` on each card it followed with, the
    hand replayed from ``InfoSlot.history``; the lock-step kernel keeps the same masks
    as it plays)."""
    must_trump = rules[RuleField.must_trump] != 0
    must_over = rules[RuleField.must_overtrump] != 0
    o0 = ZERO
    o1 = ZERO
    o2 = ZERO
    o3 = ZERO
    led = -1
    win = -1
    for i in range(MAX_PLAYS):
        card = info[InfoSlot.history + i]
        if card < 0:
            break
        j = i % players
        if j == 0:
            led = suit_of_nb(card)
            win = card
            continue
        bit = ONE << np.uint64(card)
        out = read_play_nb(card, led, win, j == players - 1, must_trump, must_over)
        if np.uint64(info[InfoSlot.played_by]) & bit:
            o0 |= out
        elif np.uint64(info[InfoSlot.played_by + 1]) & bit:
            o1 |= out
        elif np.uint64(info[InfoSlot.played_by + 2]) & bit:
            o2 |= out
        else:
            o3 |= out
        if card > win and (suit_of_nb(card) == led or card >= 39):
            win = card
    return (o0, o1, o2, o3)


@njit(inline="always", cache=True)
def heuristic_play_nb(hand, legal, seat, info, rules, params):
    """The heuristic play policy (deterministic; ``spades_sim.policies`` describes it).

    Reads the table state into scalars and hands them to ``heuristic_core_nb``: keeping
    the arrays out of the branchy part lets Numba drop their reference counting."""
    players = info[InfoSlot.players]
    sides = info[InfoSlot.sides]
    mine = side_of_nb(sides, seat)
    for_partner = rules[RuleField.nil_tricks_for_partner] != 0
    # cutthroat: the most tricks any one opponent still needs (each is set on its own)
    most_needed = -99
    alive = 0
    voids = 0
    need = 0
    opp_need = 0
    contract = 0
    opp_contract = 0
    for s in range(players):
        nil = info[InfoSlot.nil + s] != 0
        won = info[InfoSlot.tricks_won + s]
        alive |= np.int64(nil and won == 0) << s
        voids |= info[InfoSlot.voids + s] << (4 * s)
        bid = 0 if nil else info[InfoSlot.bids + s]
        counted = won if (for_partner or not nil) else 0
        if side_of_nb(sides, s) == mine:
            contract += bid
            need += bid - counted
        else:
            opp_contract += bid
            opp_need += bid - counted
            if bid > 0 and bid - counted > most_needed:
                most_needed = bid - counted
    settings = heuristic_settings_nb(params)
    deck = deck_mask_nb(rules[RuleField.jokers])
    outs = (ZERO, ZERO, ZERO, ZERO)
    if settings.flags & HeuristicFlag.nil_read and alive:
        outs = read_plays_nb(info, rules, players)
    opp_need = opp_need if opp_contract > 0 else -99
    if sides > 2:
        opp_need = most_needed
    return heuristic_core_nb(
        hand, legal, seat, players, sides <= 2, info[InfoSlot.n_in_trick],
        info[InfoSlot.leader], info[InfoSlot.led_suit], info[InfoSlot.winning_card],
        info[InfoSlot.winning_seat], deck & ~hand & ~np.uint64(info[InfoSlot.played]), alive,
        voids, need if contract > 0 else -99, opp_need,
        hand_tricks_nb(rules) - info[InfoSlot.trick], settings, outs,
    )  # fmt: skip
