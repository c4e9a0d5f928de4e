"""The ``heuristic`` for lock-step kernels: the same cards, with no branch per deal.

``play_heuristic_lockstep_nb`` plays the heuristic, card for card, for the ``LANES``
deals of a lock-step state (``lockstep.py``'s fields plus the ``H_*`` fields below), so
a kernel built like ``lockstep.py``'s can run heuristic play as SIMD code.
``heuristic_lane_nb`` decides exactly as ``heuristic.heuristic_core_nb`` (the tests
hold the lock-step play equal to the scalar play, card for card) but without a branch:
every candidate card is computed and the answer selected, so a loop over the lanes
compiles to vector code (the branch-free bit helpers are ``bitboard.lane_*``).

The play loops come twice: ``play_heuristic_general_lockstep_nb`` builds each side's
``HeuristicSettings`` (switches and numbers) from its parameter row once,
``play_heuristic_defaults_lockstep_nb`` has four players and the registry defaults'
settings as constants (faster code); a kernel calls the one its run needs, so a run
compiles one copy (the kernel selection tells which, before compiling), and
``play_heuristic_lockstep_nb``, which chooses per call, compiles both. A side's settings
reach the lane body whole (``heuristic_lane_nb``), as ``heuristic.heuristic_core_nb``
gets them: a new numeric setting is read there by name, with no signature to widen.
The defaults' copy passes None instead: the lane body then takes the defaults' settings
as a constant, and Numba drops the maxims the defaults leave off (those guarded by
``given is not None or X_BY_DEFAULT``) before typing them: a first run, which plays
the defaults, does not compile them. The lane body is compiled once for every caller (its arguments
plain types, not literals) and LLVM folds each caller's constants once it is inlined.
"""

import numpy as np
from numba import njit

from spades_sim._nb.bitboard import (
    NON_SPADE_MASK,
    ONE,
    RANK_BITS,
    SPADE_MASK,
    ZERO,
    deck_mask_nb,
    lane_above_nb,
    lane_hi_nb,
    lane_high_rank_nb,
    lane_lo_nb,
    lane_low_rank_nb,
    lane_suit_mask_nb,
    lane_void_mask_nb,
    popcount_nb,
)
from spades_sim._nb.enums import (
    HEURISTIC_DEFAULT_SETTINGS,
    HEURISTIC_DEFAULTS,
    LANES,
    N_PLAY_COMMON,
    HeuristicField,
    HeuristicFlag,
    LockstepField,
)
from spades_sim._nb.heuristic import heuristic_settings_nb, pick_nb, read_play_nb
from spades_sim._nb.lockstep import (
    end_trick_nb,
    keep_apart_nb,
    lane_trump_rules_nb,
    prefer_wide_vectors_nb,
)

# Whether each maxim the lane body can prune is on at the registry defaults: with the
# defaults' settings (``given`` None) Numba drops a maxim's code before typing it when
# this is False (a guard ``given is not None or X_BY_DEFAULT``: a branch on a global).
# Derived from the table, so a changed default only changes what is compiled.
NIL_READ_BY_DEFAULT = (HEURISTIC_DEFAULT_SETTINGS.flags & HeuristicFlag.nil_read) != 0
NIL_LONG_BY_DEFAULT = (HEURISTIC_DEFAULT_SETTINGS.flags & HeuristicFlag.nil_long) != 0
NIL_PULL_BY_DEFAULT = HEURISTIC_DEFAULT_SETTINGS.nil_pull > 0


@njit(cache=True, forceinline=True)
def lane_weakest_nb(legal):
    """``weakest_discard_nb`` without a branch."""
    m0 = legal & RANK_BITS
    m1 = legal & (RANK_BITS << np.uint64(13))
    m2 = legal & (RANK_BITS << np.uint64(26))
    k0 = lane_hi_nb(m0) if m0 else 99
    k1 = lane_hi_nb(m1) - 13 if m1 else 99
    k2 = lane_hi_nb(m2) - 26 if m2 else 99
    best = m1 if k1 < k0 else m0
    key = min(k0, k1)
    best = m2 if k2 < key else best
    key = min(k2, key)
    return lane_lo_nb(best) if key < 99 else lane_lo_nb(legal)


@njit(cache=True, forceinline=True)
def lane_cheapest_equal_nb(mine, top, unseen, suit_mask):
    """``cheapest_equal_nb`` without a branch (``mine`` within the suit of ``suit_mask``)."""
    gap = unseen & ((ONE << np.uint64(max(top, 0))) - ONE) & suit_mask
    return lane_lo_nb(mine & lane_above_nb(lane_hi_nb(gap)))


@njit(cache=True, forceinline=True)
def lane_cash_nb(legal, unseen, spades_out, opp_voids, suit, current):
    """The cheapest sure winner in side suit ``suit`` when it may be cashed, else current."""
    sm = RANK_BITS << np.uint64(13 * suit)
    m = legal & sm
    top = lane_hi_nb(m)
    ok = (
        (m != ZERO)
        & ((spades_out == ZERO) | (((opp_voids >> suit) & 1) == 0))
        & ((unseen & sm & lane_above_nb(top)) == ZERO)
    )
    card = lane_cheapest_equal_nb(m, top, unseen, sm)
    return card if ok else current


@njit(cache=True, forceinline=True)
def lane_void_top_nb(legal, voids, suit, current):
    """The top card of side suit ``suit`` when a (partner's) void mask has it, else current."""
    m = legal & (RANK_BITS << np.uint64(13 * suit))
    return lane_hi_nb(m) if (m != ZERO) & (((voids >> suit) & 1) != 0) else current


def _within_suit_mask(k):
    """The card ids b whose card b + k is of the same suit (spades with the jokers above)."""
    suit = [min(c // 13, 3) for c in range(64)]
    return np.uint64(sum(1 << c for c in range(64 - k) if c + k < 56 and suit[c] == suit[c + k]))


SAME_SUIT_1, SAME_SUIT_2, SAME_SUIT_4, SAME_SUIT_8, SAME_SUIT_16 = (
    _within_suit_mask(k) for k in (1, 2, 4, 8, 16)
)


@njit(cache=True, forceinline=True)
def lane_below_unseen_nb(unseen):
    """Every card below the highest unseen card of its suit, in all four suits at once:
    the unseen cards moved down one rank and smeared down their suit by shifts (no
    per-suit count of leading zeros, which vector units without AVX-512 emulate slowly).
    ``legal & ~it`` are the sure tricks, ``heuristic.beatable_nb(legal, unseen)`` is
    ``legal & it``."""
    x = (unseen >> np.uint64(1)) & SAME_SUIT_1
    x |= (x >> np.uint64(1)) & SAME_SUIT_1
    x |= (x >> np.uint64(2)) & SAME_SUIT_2
    x |= (x >> np.uint64(4)) & SAME_SUIT_4
    x |= (x >> np.uint64(8)) & SAME_SUIT_8
    x |= (x >> np.uint64(16)) & SAME_SUIT_16
    return x


@njit(cache=True, forceinline=True)
def lane_master_nb(masters, suit_mask, current):
    """``heuristic.master_nb`` without a branch: the lowest of ``masters`` (the cards no
    unseen card beats) within ``suit_mask``, else current. The lowest sure trick of a
    suit is the cheapest card as good as its top one."""
    m = masters & suit_mask
    return lane_lo_nb(m) if m != ZERO else current


@njit(cache=True, forceinline=True)
def heuristic_lane_nb(
    hand, legal, seat, players, n_in, leading, reading, leader, led, win_card, win_seat, unseen,
    alive, voids, need, opp_need, remaining, given, nil_outs,
):  # fmt: skip
    # ``given``: the side's ``HeuristicSettings`` (its switches' ``flags``, its numbers by
    # name), or None for the registry defaults (the defaults' copy of the loops): then
    # ``given is None`` is known before typing, the settings are constants from the start,
    # and Numba prunes the maxims the defaults switch off (each guarded by ``given is not
    # None or X_BY_DEFAULT``) before it types them. ``leading`` apart from ``n_in``: a
    # lock-step caller passes a constant, and LLVM folds the lead (or follow) half of the
    # work away once this is inlined; ``reading`` (some side reads the nil bidder's
    # plays) the same for nil_read
    settings = HEURISTIC_DEFAULT_SETTINGS if given is None else given
    flags = settings.flags
    four = players == 4
    last = n_in == players - 1
    partner = seat ^ 2
    opp_a = seat ^ 1
    opp_b = seat ^ 3 if four else opp_a
    led_mask = lane_suit_mask_nb(max(led, 0)) if led >= 0 else ZERO
    lo_legal = lane_lo_nb(legal)
    # duck: the highest card that still loses
    beats = legal & lane_above_nb(win_card) & (led_mask | SPADE_MASK)
    loses = legal & ~beats
    duck = lane_high_rank_nb(loses) if loses else (lane_hi_nb(legal) if last else lo_legal)
    duck = lane_low_rank_nb(legal) if leading else duck
    # lead for tricks
    spades_out = unseen & SPADE_MASK
    opp_voids = ((voids >> (4 * opp_a)) | (voids >> (4 * opp_b))) & 15
    # suits as int64, not literals: one compile of each helper, not one per suit (LLVM
    # folds the constant suit once the helper is inlined here)
    cash = lane_cash_nb(legal, unseen, spades_out, opp_voids, np.int64(2), np.int64(-1))
    cash = lane_cash_nb(legal, unseen, spades_out, opp_voids, np.int64(1), cash)
    cash = lane_cash_nb(legal, unseen, spades_out, opp_voids, np.int64(0), cash)
    sp = legal & SPADE_MASK
    top_sp = lane_hi_nb(sp)
    draw = (sp != ZERO) & (spades_out != ZERO) & (top_sp > lane_hi_nb(spades_out))
    side = legal & NON_SPADE_MASK
    lead = lane_weakest_nb(side if side else legal)
    trumps = lane_cheapest_equal_nb(sp, top_sp, unseen, SPADE_MASK)
    lead = trumps if (flags & HeuristicFlag.draw_trumps) and draw else lead
    lead = cash if (flags & HeuristicFlag.cash_masters) and cash >= 0 else lead
    # follow for tricks
    trumped = (win_card >= 39) & (led != 3)
    partner_wins = four & (win_seat == partner)
    follow = legal & led_mask
    lo_follow = lane_lo_nb(follow)
    beaters = follow & lane_above_nb(win_card)
    masters = follow & lane_above_nb(lane_hi_nb(unseen & led_mask))
    second = four & (n_in == 1)
    cheap = lane_cheapest_equal_nb(beaters, lane_hi_nb(beaters), unseen, led_mask)
    third = lane_lo_nb(masters) if masters else cheap
    second_card = (
        lane_lo_nb(masters) if (masters and flags & HeuristicFlag.cash_masters) else lo_follow
    )
    winning = lane_lo_nb(beaters) if last else (second_card if second else third)
    on_suit = winning if (beaters and not (trumped or partner_wins)) else lo_follow
    discard = lane_weakest_nb(legal)
    over = sp & lane_above_nb(win_card)
    ruff = lane_lo_nb(over) if over else discard
    ruff = (
        ruff
        if trumped
        else (
            discard if (second and not flags & HeuristicFlag.second_hand_trump) else lane_lo_nb(sp)
        )
    )
    off_suit = ruff if (sp and not partner_wins) else discard
    card = lead if leading else (on_suit if follow else off_suit)
    # a side that has made its bid ducks, unless a few more tricks would set the others
    ducking = (
        (flags & HeuristicFlag.bag_avoid)
        and need <= 0
        and (opp_need <= 0 or remaining + 1 - opp_need > settings.set_push)
    )
    card = duck if ducking else card
    # a partner's live nil: cover it; an opponent's: try to set it
    covering = four and (flags & HeuristicFlag.cover_nil) and (alive >> partner) & 1
    partner_voids = (voids >> (4 * partner)) & 7
    cover_lead = lane_high_rank_nb(legal)
    below_unseen = lane_below_unseen_nb(unseen)
    masters = legal & ~below_unseen
    # the first side suit with a sure trick holds the lowest side sure trick
    cover_lead = lane_master_nb(masters, NON_SPADE_MASK, cover_lead)
    draw_nil = (((voids >> (4 * partner + 3)) & 1) == 0) & (spades_out != ZERO)
    cover_lead = lane_master_nb(masters, SPADE_MASK, cover_lead) if draw_nil else cover_lead
    cover_lead = lane_void_top_nb(legal, partner_voids, np.int64(2), cover_lead)
    cover_lead = lane_void_top_nb(legal, partner_voids, np.int64(1), cover_lead)
    cover_lead = lane_void_top_nb(legal, partner_voids, np.int64(0), cover_lead)
    cover_after = lane_lo_nb(beats) if (win_seat == partner and beats) else -1
    hi_follow = lane_hi_nb(follow)
    trump_over = legal & SPADE_MASK & lane_above_nb(win_card)
    over_win = follow & lane_above_nb(win_card)
    cheap_top = lane_cheapest_equal_nb(over_win, hi_follow, unseen, led_mask)
    cover_before = (
        (cheap_top if hi_follow > win_card else lo_follow)
        if follow
        else (lane_lo_nb(trump_over) if trump_over else discard)
    )
    partner_played = (partner - leader + players) & (players - 1) < n_in
    cover = cover_lead if leading else (cover_after if partner_played else cover_before)
    target = opp_a if (alive >> opp_a) & 1 else opp_b
    at_risk = (need > 0) & (need <= remaining) & (remaining - need < settings.nil_spare)
    attacking = (flags & HeuristicFlag.attack_nil) and (alive >> target) & 1 and not at_risk
    # with nil_read, the unseen cards the nil bidder's plays have not ruled out; a suit
    # with none left is a void
    reads = False
    nil_unseen = unseen
    nil_voids = voids >> (4 * target)
    if given is not None or NIL_READ_BY_DEFAULT:
        reads = reading and (flags & HeuristicFlag.nil_read) != 0
        nil_unseen = unseen & ~pick_nb(nil_outs, target) if reads else unseen
        read_voids = (
            np.int64((nil_unseen & lane_suit_mask_nb(0)) == ZERO)
            | (np.int64((nil_unseen & lane_suit_mask_nb(1)) == ZERO) << 1)
            | (np.int64((nil_unseen & lane_suit_mask_nb(2)) == ZERO) << 2)
            | (np.int64((nil_unseen & SPADE_MASK) == ZERO) << 3)
        )
        nil_voids = nil_voids | (read_voids if reads else 0)
    still_in = legal & ~lane_void_mask_nb(nil_voids & 15)
    cover_voids = (voids >> (4 * (target ^ 2))) & 15
    sp_in = still_in & SPADE_MASK
    low_sp = lane_lo_nb(sp_in)
    pull = False
    lead_base = still_in
    if given is not None or NIL_PULL_BY_DEFAULT:
        pulling = (settings.nil_pull > 0) & (sp_in != ZERO)
        pull = (
            pulling
            & (low_sp - 39 < settings.nil_pull)
            & ((nil_unseen & SPADE_MASK & lane_above_nb(low_sp)) != ZERO)
        )
        side_in = still_in & NON_SPADE_MASK
        no_high_spade = side_in if side_in else (side if side else still_in)
        lead_base = no_high_spade if pulling else still_in
    keep = lead_base & ~lane_void_mask_nb(cover_voids & 7)
    avoid = (flags & HeuristicFlag.nil_lead) and ((cover_voids >> 3) & 1) == 0 and keep != ZERO
    lead_from = keep if avoid else lead_base
    lead_from = lead_from if lead_from else legal
    # the lowest card of the suit with the fewest unseen cards below it (lowest rank on ties)
    esc_lead = -1
    esc_key = 999
    for suit in range(4):
        suit_mask = lane_suit_mask_nb(suit)
        in_suit = lead_from & suit_mask
        low = lane_lo_nb(in_suit)
        below = (in_suit - ONE) & ~in_suit
        key = 16 * popcount_nb(nil_unseen & suit_mask & below) + low - 13 * suit
        # with nil_read, a suit where it can hold nothing above the lead comes last
        none_above = (nil_unseen & suit_mask & lane_above_nb(low)) == ZERO
        key = key + 256 if reads and none_above else key
        fewer = (in_suit != ZERO) & (key < esc_key)
        esc_lead = low if fewer else esc_lead
        esc_key = key if fewer else esc_key
    attack_lead = esc_lead if flags & HeuristicFlag.nil_escape else lane_low_rank_nb(lead_from)
    if given is not None or NIL_LONG_BY_DEFAULT:
        # the longest suit of those, its lowest card (the lowest rank on equal length)
        long_lead = -1
        long_len = -1
        long_rank = 99
        for suit in range(4):
            in_suit = lead_from & lane_suit_mask_nb(suit)
            n = popcount_nb(in_suit)
            low = lane_lo_nb(in_suit)
            longer = (in_suit != ZERO) & (
                (n > long_len) | ((n == long_len) & (low - 13 * suit < long_rank))
            )
            long_lead = low if longer else long_lead
            long_rank = low - 13 * suit if longer else long_rank
            long_len = n if longer else long_len
        attack_lead = long_lead if flags & HeuristicFlag.nil_long else attack_lead
    attack_lead = low_sp if pull else attack_lead
    shed = flags & HeuristicFlag.nil_shed
    beatable = legal & below_unseen
    spare_side = side & beatable
    void_shed = lane_high_rank_nb(spare_side) if (shed and spare_side) else discard
    under_win = follow if trumped else follow & ~lane_above_nb(win_card)
    spare_under = under_win & beatable
    under = (
        lane_hi_nb(spare_under) if (flags & HeuristicFlag.nil_under and spare_under) else lo_follow
    )
    attack_before = under if follow else void_shed
    follow_beaters = ZERO if trumped else beaters
    spare_follow = follow & ~follow_beaters & beatable
    shedding = shed and (partner_wins or follow_beaters == ZERO) and spare_follow != ZERO
    shed_after = lane_hi_nb(spare_follow) if shedding else -1
    attack_after = duck if win_seat == target else shed_after
    target_played = (target - leader + players) & (players - 1) < n_in
    attack = attack_lead if leading else (attack_after if target_played else attack_before)
    special = cover if covering else (attack if attacking else -1)
    card = special if special >= 0 else card
    card = duck if (alive >> seat) & 1 else card
    return lo_legal if not legal & (legal - ONE) else card


# Lock-step state: the fields of ``lockstep.py`` plus what the heuristic reads. Field f
# of deal b is ``st[f * LANES + b]``; bids and nil flags are set before play (nil 0/1,
# seats beyond the players 0), played and voids are cleared by the play function.


@njit(cache=True, forceinline=True)
def _at_nb(field, lane):
    return field * LANES + lane


@njit(cache=True, forceinline=True)
def _heuristic_position_nb(
    st, trick_no, j, leading, players, two_clubs, any_time, must_trump, must_over, deck,
    settings0, settings1, reading,
):  # fmt: skip
    # ``settings0``/``settings1`` None: both sides at the registry defaults (see
    # ``heuristic_lane_nb``), and the nil reading below is dropped before typing unless
    # the defaults read
    prefer_wide_vectors_nb()  # compiled apart and inlined by LLVM: marked itself
    first_trick = trick_no == 0
    seat_bits = np.uint64(players - 1)
    for b in range(LANES):
        leader_u = st[_at_nb(LockstepField.leader, b)]
        seat = np.int64((leader_u + np.uint64(j)) & seat_bits)
        h0 = st[_at_nb(LockstepField.hand, b)]
        h1 = st[_at_nb(LockstepField.hand + 1, b)]
        h2 = st[_at_nb(LockstepField.hand + 2, b)]
        h3 = st[_at_nb(LockstepField.hand + 3, b)]
        hand = (
            (h0 & (ZERO - np.uint64(seat == 0)))
            | (h1 & (ZERO - np.uint64(seat == 1)))
            | (h2 & (ZERO - np.uint64(seat == 2)))
            | (h3 & (ZERO - np.uint64(seat == 3)))
        )
        led_now = np.int64(st[_at_nb(LockstepField.led, b)])
        led = -1 if leading else led_now
        played = st[_at_nb(HeuristicField.played, b)]
        # the legal cards, as legal_cards_nb
        side = hand & NON_SPADE_MASK
        restricted = side if side != ZERO else hand
        free = (not first_trick) and (any_time or st[_at_nb(LockstepField.broken, b)] != ZERO)
        lead_legal = hand if free else restricted
        lead_legal = ONE if (first_trick and two_clubs and hand & ONE) else lead_legal
        follow = hand & lane_suit_mask_nb(max(led_now, 0))
        win_card = np.int64(st[_at_nb(LockstepField.win_card, b)])
        follow_legal = lane_trump_rules_nb(
            hand, follow, follow if follow != ZERO else hand, win_card, must_trump, must_over
        )
        legal = lead_legal if leading else follow_legal
        # the table state the heuristic reads (kept per trick by _heuristic_needs_nb)
        alive = np.int64(st[_at_nb(HeuristicField.alive, b)])
        need0 = np.int64(st[_at_nb(HeuristicField.need, b)])
        need1 = np.int64(st[_at_nb(HeuristicField.need + 1, b)])
        odd = (seat & 1) == 1
        win_seat = np.int64(st[_at_nb(LockstepField.win_seat, b)])
        voids = np.int64(st[_at_nb(HeuristicField.voids, b)])
        o0 = st[_at_nb(HeuristicField.nil_outs, b)] if reading else ZERO
        o1 = st[_at_nb(HeuristicField.nil_outs + 1, b)] if reading else ZERO
        o2 = st[_at_nb(HeuristicField.nil_outs + 2, b)] if reading else ZERO
        o3 = st[_at_nb(HeuristicField.nil_outs + 3, b)] if reading else ZERO
        # the lane body's arguments as plain types, not literals: one compile of it serves
        # the lead and the follows (and both copies of the loops); LLVM folds the
        # constants once it is inlined here
        card = heuristic_lane_nb(
            hand, legal, seat, np.int64(players), np.int64(j), bool(leading), bool(reading),
            np.int64(leader_u), led,
            -1 if leading else win_card, -1 if leading else win_seat,
            deck & ~hand & ~played, alive, voids,
            need1 if odd else need0, need0 if odd else need1, 13 - trick_no,
            settings1 if odd else settings0, (o0, o1, o2, o3),
        )  # fmt: skip
        # play it, as play_tricks_nb does
        ucard = np.uint64(card)
        keep = ~(ONE << ucard)
        st[_at_nb(LockstepField.hand, b)] = h0 & keep
        st[_at_nb(LockstepField.hand + 1, b)] = h1 & keep
        st[_at_nb(LockstepField.hand + 2, b)] = h2 & keep
        st[_at_nb(LockstepField.hand + 3, b)] = h3 & keep
        suit = np.int64(card >= 13) + np.int64(card >= 26) + np.int64(card >= 39)
        spade = card >= 39
        st[_at_nb(LockstepField.broken, b)] |= np.uint64(spade)
        st[_at_nb(HeuristicField.played, b)] = played | (ONE << ucard)
        beats_now = (card > win_card) and ((suit == led_now) or spade)
        off = np.int64(suit != led_now)
        discard = off & np.int64(must_trump) & np.int64(suit != 3)  # no spade left either
        shown_out = (off << (4 * seat + max(led_now, 0))) | (discard << (4 * seat + 3))
        st[_at_nb(HeuristicField.voids, b)] = np.uint64(voids if leading else voids | shown_out)
        st[_at_nb(LockstepField.led, b)] = np.uint64(suit) if leading else np.uint64(led_now)
        take = leading or beats_now
        st[_at_nb(LockstepField.win_card, b)] = ucard if take else np.uint64(win_card)
        st[_at_nb(LockstepField.win_seat, b)] = np.uint64(seat) if take else np.uint64(win_seat)
        if (settings0 is not None or NIL_READ_BY_DEFAULT) and reading and not leading:
            # what this play shows the seat lacks, were it a ducking nil bidder
            out = read_play_nb(card, led_now, win_card, j == players - 1, must_trump, must_over)
            st[_at_nb(HeuristicField.nil_outs, b)] = o0 | (out if seat == 0 else ZERO)
            st[_at_nb(HeuristicField.nil_outs + 1, b)] = o1 | (out if seat == 1 else ZERO)
            st[_at_nb(HeuristicField.nil_outs + 2, b)] = o2 | (out if seat == 2 else ZERO)
            st[_at_nb(HeuristicField.nil_outs + 3, b)] = o3 | (out if seat == 3 else ZERO)


@njit(cache=True, forceinline=True)
def _heuristic_needs_nb(st, for_partner):
    """Per lane, the live nils and what each side still needs, as ``heuristic_play_nb``
    computes them; they change only when a trick is won."""
    prefer_wide_vectors_nb()
    for b in range(LANES):
        t0 = np.int64(st[_at_nb(LockstepField.tricks, b)])
        t1 = np.int64(st[_at_nb(LockstepField.tricks + 1, b)])
        t2 = np.int64(st[_at_nb(LockstepField.tricks + 2, b)])
        t3 = np.int64(st[_at_nb(LockstepField.tricks + 3, b)])
        n0 = st[_at_nb(HeuristicField.nils, b)] != ZERO
        n1 = st[_at_nb(HeuristicField.nils + 1, b)] != ZERO
        n2 = st[_at_nb(HeuristicField.nils + 2, b)] != ZERO
        n3 = st[_at_nb(HeuristicField.nils + 3, b)] != ZERO
        alive = (
            np.int64(n0 and t0 == 0)
            | (np.int64(n1 and t1 == 0) << 1)
            | (np.int64(n2 and t2 == 0) << 2)
            | (np.int64(n3 and t3 == 0) << 3)
        )
        b0 = 0 if n0 else np.int64(st[_at_nb(HeuristicField.bids, b)])
        b1 = 0 if n1 else np.int64(st[_at_nb(HeuristicField.bids + 1, b)])
        b2 = 0 if n2 else np.int64(st[_at_nb(HeuristicField.bids + 2, b)])
        b3 = 0 if n3 else np.int64(st[_at_nb(HeuristicField.bids + 3, b)])
        c0 = t0 if (for_partner or not n0) else 0
        c1 = t1 if (for_partner or not n1) else 0
        c2 = t2 if (for_partner or not n2) else 0
        c3 = t3 if (for_partner or not n3) else 0
        k0 = b0 + b2
        k1 = b1 + b3
        st[_at_nb(HeuristicField.alive, b)] = np.uint64(alive)
        st[_at_nb(HeuristicField.need, b)] = np.uint64(k0 - c0 - c2 if k0 > 0 else -99)
        st[_at_nb(HeuristicField.need + 1, b)] = np.uint64(k1 - c1 - c3 if k1 > 0 else -99)


# With both sides at the registry defaults the play loops are compiled once more with
# the settings None: the lane body then reads the defaults' settings as a compile-time
# constant (``HEURISTIC_DEFAULT_SETTINGS``, a global named tuple is one to Numba), so the
# per-lane choice of a side's settings and the maxims the defaults leave off drop out,
# the guarded ones (``X_BY_DEFAULT``) before Numba types them; four players as a
# constant too, so each of the three following positions is a loop of its own with its
# place in the trick folded in (rows unchanged: the same code, constants in place of the
# same values).


@njit(cache=True, forceinline=True)
def at_defaults_nb(params):
    """Whether a heuristic parameter vector holds the registry defaults (slots 1 on)."""
    same = True
    for k in range(1, N_PLAY_COMMON + 1):
        same = same and params[k] == HEURISTIC_DEFAULTS[k]
    return same


# inlined by Numba: as a function of its own it would be one more module LLVM optimises
# whole, the positions' vector loops in it
@njit(cache=True, inline="always")
def _heuristic_trick_nb(
    st, trick_no, players, two_clubs, any_time, must_trump, must_over, deck, settings0,
    settings1, reading,
):  # fmt: skip
    # ``j`` and ``leading`` as a plain int and bool (Numba types ``bool(True)`` as a bool,
    # ``True`` as a literal): one compile of the position serves the lead and the follows
    # (1 s of a first run's compile); LLVM folds each call's constants once it is inlined
    # here, so the play runs as fast
    _heuristic_position_nb(
        st, trick_no, np.int64(0), bool(True), players, two_clubs, any_time,  # noqa: UP018
        must_trump, must_over, deck, settings0, settings1, reading,
    )  # fmt: skip
    for j in range(1, players):
        _heuristic_position_nb(
            st, trick_no, j, bool(False), players, two_clubs, any_time,  # noqa: UP018
            must_trump, must_over,
            deck, settings0, settings1, reading,
        )  # fmt: skip


@njit(cache=True, forceinline=True)
def _clear_play_nb(st):
    """Clear what the play fills as it goes (spades broken, cards played, voids, nil
    reading), before the first trick."""
    prefer_wide_vectors_nb()
    for b in range(LANES):
        st[_at_nb(LockstepField.broken, b)] = ZERO
        st[_at_nb(HeuristicField.played, b)] = ZERO
        st[_at_nb(HeuristicField.voids, b)] = ZERO
        for s in range(4):
            st[_at_nb(HeuristicField.nil_outs + s, b)] = ZERO


@njit(cache=True)
def play_heuristic_lockstep_nb(st, players, two_clubs, any_time, must_trump, must_over, jokers,
                               for_partner, params0, params1):  # fmt: skip
    """Play 13 tricks of the ``heuristic`` in all ``LANES`` deals of ``st``
    (``LockstepField`` and ``HeuristicField``: hands, leader, tricks 0, bids and nil flags
    set), side s with parameters ``params{s}``.
    Every card is the one ``heuristic_play_nb`` picks in the same state, so the results
    equal the scalar path's; the loop over lanes has no branch and compiles to SIMD (wide
    vectors: ``lockstep.prefer_wide_vectors_nb``). Four players with both sides at the
    registry defaults run ``play_heuristic_defaults_lockstep_nb``, the others
    ``play_heuristic_general_lockstep_nb``: this compiles both, so a kernel that knows
    which one its run needs calls that one alone."""
    if players == 4 and at_defaults_nb(params0) and at_defaults_nb(params1):
        _play_heuristic_defaults_loops_nb(
            st, two_clubs, any_time, must_trump, must_over, jokers, for_partner
        )
    else:
        play_heuristic_general_lockstep_nb(
            st, players, two_clubs, any_time, must_trump, must_over, jokers, for_partner,
            params0, params1,
        )  # fmt: skip


@njit(cache=True)
def play_heuristic_general_lockstep_nb(st, players, two_clubs, any_time, must_trump, must_over,
                                       jokers, for_partner, params0, params1):  # fmt: skip
    """``play_heuristic_lockstep_nb`` with any parameters and player count: the
    switches and numbers read from ``params0`` and ``params1``."""
    prefer_wide_vectors_nb()
    keep_apart_nb()  # as one function with both copies was: too big to inline
    deck = deck_mask_nb(jokers)
    settings0 = heuristic_settings_nb(params0)
    settings1 = heuristic_settings_nb(params1)
    _clear_play_nb(st)
    reading = ((settings0.flags | settings1.flags) & HeuristicFlag.nil_read) != 0
    for trick_no in range(13):
        _heuristic_needs_nb(st, for_partner)
        _heuristic_trick_nb(
            st, trick_no, players, two_clubs, any_time, must_trump, must_over, deck,
            settings0, settings1, reading,
        )  # fmt: skip
        end_trick_nb(st)


@njit(cache=True)
def play_heuristic_defaults_lockstep_nb(st, players, two_clubs, any_time, must_trump, must_over,
                                        jokers, for_partner, params0, params1):  # fmt: skip
    """``play_heuristic_lockstep_nb`` for four players with both sides at the registry
    defaults, which are compile-time constants in its loops (``HEURISTIC_DEFAULT_SETTINGS``);
    any other call is refused, not played with the wrong settings (the kernel selection
    checks before choosing it: ``run.select``, from the table's defaults). Called the way
    ``play_heuristic_lockstep_nb`` is, which keeps the kernels that call it as fast."""
    if not (players == 4 and at_defaults_nb(params0) and at_defaults_nb(params1)):
        raise ValueError("heuristic defaults' lock-step play: four players at the defaults only")
    _play_heuristic_defaults_loops_nb(
        st, two_clubs, any_time, must_trump, must_over, jokers, for_partner
    )


@njit(cache=True, inline="always")
def _play_heuristic_defaults_loops_nb(st, two_clubs, any_time, must_trump, must_over, jokers,
                                      for_partner):  # fmt: skip
    """The loops of ``play_heuristic_defaults_lockstep_nb`` (inlined into it by Numba: a
    function of its own would be one more module LLVM optimises whole); ``reading`` is a
    constant too: with ``nil_read`` off by default the reading costs nothing."""
    prefer_wide_vectors_nb()
    keep_apart_nb()  # as one function with both copies was: too big to inline
    deck = deck_mask_nb(jokers)
    _clear_play_nb(st)
    for trick_no in range(13):
        _heuristic_needs_nb(st, for_partner)
        _heuristic_trick_nb(
            st, trick_no, 4, two_clubs, any_time, must_trump, must_over, deck, None, None,
            NIL_READ_BY_DEFAULT,
        )  # fmt: skip
        end_trick_nb(st)
