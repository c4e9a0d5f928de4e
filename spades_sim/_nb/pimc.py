"""The ``pimc`` play policy: perfect-information Monte Carlo, as GIB plays bridge.

Contract
--------
``pimc_play_nb(hand, legal, seat, info, rules, params, rand)`` has the signature of every
play function (``_nb.policies``) and returns a card of ``legal``. At each decision it

1. samples worlds: ``rollout.sample_world_nb`` deals the cards the seat has not seen (the deck
   minus its hand minus every card played, the current trick's included) to the other
   seats, each getting exactly as many as it holds, *never* a card of a suit it has
   shown out of (``info[InfoSlot.voids]``); with two players the cards left over are the
   discard pile, which may hold anything. The deal is sequential: a card taken
   uniformly from those left goes to a seat with room, in proportion to its room, among
   the seats (and the pile) that may hold it and that keep the rest of the deal
   completable (Hall's condition over the suits and the receivers, checked before each
   card: a consistent deal always exists, since the true one does, so the sampler never
   fails and never relaxes a void). With no void shown this is a uniform deal; with
   voids it is close to, not exactly, uniform over the consistent deals.
2. values every legal card in every world with the double-dummy solver (``_nb.dd``):
   ``card_values_nb`` in trick mode gives the side's tricks after the card (equal cards
   share one search), and, from trick ``nil_from`` on (before it a live nil hands the
   decision to the heuristic: "Cost" below), for every nil still alive (a nil or blind
   nil seat without a trick) ``card_values_nb`` in nil mode says whether that nil
   survives the card. The
   seat's value of the card in the world is the hand's score margin: its side's score
   minus the other side's (``score.side_score_nb``: contract made or set, 10 a bid
   trick, bags at a point and the bag penalty from the bags before the hand, Boston,
   big bids, nil and blind nil bonuses), each side's final tricks being the tricks won
   so far plus the solver's, a live nil seat taking 0 tricks when safe and 1 when not.
   So covering the partner's nil, setting an opponent's and keeping its own count at
   their points, and a card that gives bags or lets the contract fail costs what the
   scoring charges.
3. plays the card with the best total over the worlds; ties go to the lowest rank,
   side suits before spades (the card that costs least when the values cannot tell).

What is approximate (beyond sampling, as in every PIMC player): the solver plays every
seat to maximise its side's tricks, and the nils are solved separately from the
tricks, each nil alone; the score is then applied to those outcomes, so a line that
trades a trick for a nil, or ducks to avoid bags, is valued only through the
trick-maximising line. A nil seat that is not safe is counted as taking one trick (the
partner the rest). Both partners nil: each nil is solved alone. The worlds are dealt
from what ``info`` records, which is what every policy may see: the cards a two-player
seat threw away in the draw and the cards exchanged after a blind nil are known to
that seat at a real table but are not in ``info``, so the sampler does not use them
(its worlds are drawn from a wider set than the seat could know). With ``read_bids``
on (the default), ``pimc_worlds_nb`` keeps only the worlds in which every other seat's
bid by the assumed bidder (``assume``: by default the bidder seated there, with its
parameters, carried in the run's row after pimc's own slots) from its bid-time hand is
its bid (``rollout``'s "Worlds that fit the bids"), each still a draw of step 1; with it
off, the bids are no evidence about the hands.

Cost: the first tricks dominate. Measured on this machine (one core, a random opening
lead, a fresh table of 2**16 slots): ``card_values_nb`` takes about 560 ms with 12 or 13
cards a hand, 95 ms with 11, 16 ms with 10, 4 ms with 9 and well under 1 ms with 6. So
``worlds`` applies from trick ``early_tricks`` on, and the first ``early_tricks`` tricks
use ``early_worlds`` worlds (by default 2 worlds for the first two tricks; every card is
still chosen by the solver). A decision with one distinct legal card (cards of one
suit with no unseen card between them are equal in every world) is played without
search. The nil search is the one with a heavy tail: on a deal where a seat bid nil on
a real nil hand, a hand played with one world a decision took 47 s, against under 6 s
(the process's start included) for the same deal without the nil bid
(``simulate_hands(1, seed=11)``, every seat on pimc; random nil hands are
settled much sooner by the search's bounds). And its verdict assumes every seat sees
every card, which is worst for a nil (the covering partner and the defenders in fact
guess). So while a nil is live (a nil or blind nil seat without a trick) before trick
``nil_from`` (default 13: the whole hand), the seat plays the ``heuristic``'s card
(``heuristic.heuristic_play_nb``, with the first eleven parameters of the row, which are
the heuristic's): its nil maxims (the nil seat ducks, its partner covers, the opponents
lead low into it). ``pimc`` plays every card of the hands without a live nil, and of a
nil hand once the nil is lost; from ``nil_from`` on, live nils are solved and valued as
in step 2. A seat whose own side has no live nil (it only defends) waits for
``defend_from`` instead (default 13 too): there the all-cards-seen verdict errs the safe
way for the defence (it credits the nil side with perfect cover). Measured in duplicate
against the ``heuristic`` (docs/solver.md): valuing the nil hands' cards with the nils
solved from the fourth trick cost ``pimc`` about 30 points a hand, and the heuristic's
nil play turns that into a gain.

Nils by rollouts. With ``nil_rollouts`` = R > 0, a defender's decision that would go to
the heuristic's maxims above (a seat whose side has no live nil, an opponent's nil live,
before ``defend_from``) is searched instead, by a player that sees only its seat
(``nil_play_nb``): R worlds drawn as in step 1 (``pimc_worlds_nb``, the bids read with
``read_bids``), and in each world every distinct legal card (``rollout.distinct_cards_nb``;
a card of the trick in progress parts two of the seat's cards) is played and the hand
played out by the heuristic for every seat (``rollout.rollout_pick_nb``, as
``lookahead`` does), scored as the hand's score margin (nil bonuses and penalties,
contracts, bags at their long-run cost: penalty / limit). The heuristic's card stands
unless another gains more than ``NIL_MARGIN`` points a world. No seat in a rollout sees
another's cards, so no world tells the nil which card it must not play: the nil side
and the defence guess as they do at the table (no strategy fusion through the solver's
perfect sight, though each world is still played as if it were the truth by the seat
deciding). Rollouts cost microseconds where the nil search costs up to seconds, so R
can be far above ``worlds``. The nil seat keeps the maxims: the nil side (the nil seat
and its partner) searched the same way lost 1 to 5 in 100 more of its nils than the
maxims did (docs/policies.md, "Nil decisions by rollouts"), while the defence set 6 to
12 in 100 more of the heuristic's nils. With ``nil_cover`` = 1 the
partner of a live nil (its own nil, if any, lost) searches, the nil seat alone keeping
the maxims: in the partner's rollouts the nil seat is then played by the heuristic, as
it really plays; so searched, the partner made 2 to 3 more of every 100 of its side's
nils than with the cover maxims, against the same defence. With ``nil_cover`` = 2 (the
default) the
partner's searches (``lookahead``'s card before ``solve_from`` too) may not pick a card
after which the nil takes no trick in fewer of their worlds than after the maxims'
card (``rollout.rollout_pick_nb``'s ``keep``): a card the worlds favour by points
elsewhere (a bag, a set) never buys them with the nil. Against the heuristic's defence
its side then made more of its nils than the heuristic's side (+2.3 [0.2, 4.4] in 100),
at no cost head to head.

Before trick ``solve_from`` (default 6; 0: never) the seat plays the card ``lookahead``
would (``rollout.lookahead_play_nb`` with the row of :func:`lookahead_row_nb`: the
registry's ``lookahead`` defaults and its margin, ``lookahead_samples`` deals, with this
row's heuristic parameters and reading of the bids, on the decision's own stream), before
any of the above: the first tricks, where the solver searches the most cards, go to the
heuristic's rollouts, which cost milliseconds; the live-nil rule then applies from
``solve_from`` on.

Worlds weighted by the play (after Rebstock, Solinas, Buro and Sturtevant, "Policy-based
inference in trick-taking card games", 2019). With ``read_plays`` = eps > 0, a solving
decision (from ``solve_from`` on, outside the nil rules above) draws ``PLAY_CANDIDATES``
worlds per world it solves (step 1, the bids read as ``read_bids`` says) and weights each
by how well the heuristic (this row's parameters) explains the cards the other seats
have played: the hand is replayed from its first card (``InfoSlot.history``), each
seat holding the cards the world gives it plus those it has played, and at every past
decision of another seat with a choice the heuristic's card either is the card played
(a factor 1 - eps) or is not (eps). ``worlds`` worlds are then drawn from the candidates
by those weights (systematic resampling) and solved, each counted as often as drawn.
The model is crude (the other seats need not play the heuristic, partners included)
and eps says how far to trust it; a table that does not record the order of play is
read as if it told nothing.

Tables. A decision allocates its own transposition table (``dd.new_table``-shaped,
``2**18`` slots in the first two tricks, ``2**16`` to trick five, ``2**14`` after; at
most 18 MiB a thread, allocated in 0.1 ms to a few ms, against searches of
milliseconds to seconds) and shares it between its worlds. The solver is exact, so the
values, and the card chosen, do not depend on what a table holds; a table per decision
keeps threads apart and makes a decision a function of its arguments alone, which is
why the run is the same at any thread count.

Stopping. A decision can take seconds to minutes (a nil proof), so a run must be able
to stop one in flight. The solver polls ``stats[dd.S_ABORT]`` every few thousand nodes,
but a decision's stats were its own array, which nothing outside the kernel reaches, and
the play functions take only the table state, the rules and the parameters. So the run
layer hands each of its threads a rule array of its own with a stop cell after the rule
fields (``enums.SEARCH_CELL``): a decision's searches use that cell as their ``stats``
(:func:`search_stats_nb` clears its counters first, as a fresh array starts, so the
searches and the card are the same), and its ``S_ABORT`` slot is the run's stop flag. A
global array would not do: Numba freezes a module's arrays into the compiled code as
constants. When the flag is set, the search in flight returns within a few thousand
nodes, the worlds left are skipped, every later decision plays its lowest legal card at
once, and the generated module skips the hands left (``user_kernels.run_hand_nb``);
the cards chosen then mean nothing, and the run layer drops the whole chunk (a resume
computes it again). A rule array without a cell (``Rules.lower()``, the tests, the solver
API) gives a fresh array each decision and never stops.

Randomness: world ``w`` takes draws ``w * 128, w * 128 + 1, ...`` of the decision's
stream (``rng.draw_nb(rand, k)``), two at most a card.

Why here and not in ``builtin_play_nb``: the solver takes about half a minute to
compile cold; ``policies.builtin_play_nb`` is inlined into every scalar kernel, so
adding pimc there would make every run compile the solver. ``pimc`` is a built-in in
the registry (name, parameters, manifests), but a run with a ``pimc`` side takes the
generated kernels of ``spades_sim.custom.kernels``, whose pimc side calls this function
instead of the built-in dispatch; no other kernel references it.
"""

import numpy as np
from numba import njit

from spades_sim._nb.bitboard import (
    ONE,
    ZERO,
    bit_nb,
    deck_mask_nb,
    lowest_card_nb,
    popcount_nb,
)
from spades_sim._nb.dd import (
    KEY_WORDS,
    MODE_NIL,
    MODE_TRICKS,
    S_ABORT,
    STATS,
    card_values_nb,
    play_rules_nb,
    representatives_nb,
)
from spades_sim._nb.enums import (
    HEURISTIC_DEFAULTS,
    LOOKAHEAD_DEFAULTS,
    MAX_PLAYS,
    N_INFO,
    N_PLAY_COMMON,
    PARAM_SLOTS,
    SEARCH_CELL,
    SEARCH_CELL_SLOTS,
    STOP_SLOT,
    InfoSlot,
    LookaheadParam,
    PimcParam,
    PlayPolicy,
    RuleField,
)
from spades_sim._nb.heuristic import heuristic_play_nb
from spades_sim._nb.play import clear_history_nb, legal_cards_nb, reset_trick_info_nb
from spades_sim._nb.policies import borrow_nb, plain_play_nb, stop_requested_nb
from spades_sim._nb.rng import draw_nb, unit_nb
from spades_sim._nb.rollout import (
    ASSUMED_BIDDERS,
    DRAWS_PER_WORLD,
    SAMPLE_WORLD,
    apply_card_nb,
    assumed_rows_nb,
    bag_cost_nb,
    distinct_cards_nb,
    fitted_worlds_nb,
    lookahead_play_nb,
    parting_cards_nb,
    readable_bids_nb,
    rollout_pick_nb,
)
from spades_sim._nb.score import hand_tricks_nb, side_score_nb

NEG = np.int64(-(1 << 62))
# the stop cell a run hands its threads is these searches' stats (enums.SEARCH_CELL)
if (SEARCH_CELL_SLOTS, STOP_SLOT) != (STATS, S_ABORT):
    raise ImportError("enums' stop cell and dd's search stats disagree")


@njit(inline="always", cache=True)
def search_stats_nb(rules):
    """The ``stats`` of a decision's searches ("Stopping" in the module docstring): the
    stop cell ``rules`` carries (``enums.SEARCH_CELL``), its counters cleared and its stop
    flag, the run's, left alone; without a cell a fresh array. Either way the searches
    start from the same counters, so they do the same work."""
    if rules.shape[0] >= SEARCH_CELL + STATS:
        stats = rules[SEARCH_CELL : SEARCH_CELL + STATS]
        for j in range(STATS):
            if j != S_ABORT:
                stats[j] = 0
        return stats
    return np.zeros(STATS, dtype=np.int64)


@njit(cache=True)
def pimc_worlds_nb(hand, seat, info, rules, tries, rand, worlds, misfits, assume=0):
    """The worlds of a ``pimc`` decision: ``rollout.fitted_worlds_nb`` with the sampler
    that always keeps the voids (``rollout.sample_world_nb``: world w drawn from the
    decision's key ``rand`` at stream position ``w * DRAWS_PER_WORLD``, each redraw from
    ``mix64(rand + a * GOLDEN)``, a = 1, 2, ...) and the bidder
    ``rollout.ASSUMED_BIDDERS[assume]``. Returns the number of relaxed worlds."""
    return pimc_fitted_nb(
        hand, seat, info, rules, tries, rand, worlds, misfits, ASSUMED_BIDDERS[assume]
    )


@njit(cache=True)
def pimc_fitted_nb(hand, seat, info, rules, tries, rand, worlds, misfits, assumed):
    """:func:`pimc_worlds_nb` against the bidder rows ``assumed`` (one row for every seat,
    or four: ``rollout.assumed_rows_nb``)."""
    return fitted_worlds_nb(
        np.int64(SAMPLE_WORLD), hand, seat, info, rules, assumed, tries, rand, worlds, misfits
    )


@njit(inline="always", cache=True)
def side_points_nb(rules, info, side, players, tricks, nil_part):
    """A side's hand score when it ends with ``tricks`` tricks, ``nil_part[s]`` the
    tricks counted to each nil seat ``s`` of it (the rest go to the other member)."""
    a = side
    bid_a = info[InfoSlot.bids + a]
    nil_a = info[InfoSlot.nil + a]
    bags = info[InfoSlot.bags + side]
    if players == 2:  # a lost nil takes the tricks too (its partner's, had it one)
        t_a = tricks if nil_a == 0 or nil_part[a] > 0 else 0
        return side_score_nb(rules, bid_a, nil_a, t_a, 0, 0, 0, False, bags)[3]
    b = side + 2
    bid_b = info[InfoSlot.bids + b]
    nil_b = info[InfoSlot.nil + b]
    t_a = nil_part[a] if nil_a else 0
    t_b = nil_part[b] if nil_b else 0
    rest = max(tricks - t_a - t_b, 0)
    if nil_a == 0:
        t_a = rest
    elif nil_b == 0:
        t_b = rest
    elif t_a > 0:  # both nil: the tricks beyond the nil parts go to a nil already lost
        t_a += rest
    elif t_b > 0:
        t_b += rest
    return side_score_nb(rules, bid_a, nil_a, t_a, bid_b, nil_b, t_b, True, bags)[3]


@njit(inline="always", cache=True)
def live_nils_nb(info):
    """The seats (a bit each) whose nil or blind nil is still alive: bid, no trick yet."""
    live = 0
    for s in range(info[InfoSlot.players]):
        if info[InfoSlot.nil + s] != 0 and info[InfoSlot.tricks_won + s] == 0:
            live |= 1 << s
    return live


@njit(cache=True)
def world_values_nb(hands, seat, info, rules, tt_keys, tt_data, stats, tricks, safe, values):
    """``values[c]``: the score margin of the mover's side (its score minus the other
    side's) when it plays legal card ``c`` in the world ``hands``, as the module
    docstring's step 2, every live nil solved; other entries are left alone. ``tricks``
    and ``safe`` are scratch (54 entries, and 4 x 54)."""
    players = info[InfoSlot.players]
    pos = info[InfoSlot.n_in_trick]
    led = info[InfoSlot.led_suit]
    win_card = info[InfoSlot.winning_card]
    win_seat = info[InfoSlot.winning_seat]
    trick = ZERO
    for j in range(pos):
        trick |= bit_nb(info[InfoSlot.trick_cards + j])
    broken = info[InfoSlot.broken] != 0
    first = info[InfoSlot.trick] == 0
    prules = play_rules_nb(rules)
    card_values_nb(
        np.int64(MODE_TRICKS), hands, players, seat, pos, led, win_card, win_seat, trick,
        broken, first, np.int64(0), prules, tt_keys, tt_data, tricks, stats,
    )  # fmt: skip
    live_nils = live_nils_nb(info)
    for s in range(players):
        if (live_nils >> s) & 1:
            card_values_nb(
                np.int64(MODE_NIL), hands, players, seat, pos, led, win_card, win_seat,
                trick, broken, first, np.int64(1 << s), prules, tt_keys, tt_data, safe[s],
                stats,
            )  # fmt: skip
    me = seat & 1
    won = np.zeros(2, dtype=np.int64)
    for s in range(players):
        won[s & 1] += info[InfoSlot.tricks_won + s]
    left = popcount_nb(hands[seat])  # tricks still to play, the current one included
    nil_part = np.zeros(4, dtype=np.int64)
    legal = ZERO
    for c in range(tricks.shape[0]):
        if tricks[c] >= 0:
            legal |= bit_nb(c)
    x = legal
    while x:
        c = lowest_card_nb(x)
        x &= x - ONE
        for s in range(players):
            if (live_nils >> s) & 1:
                nil_part[s] = 0 if safe[s, c] == 1 else 1
            else:
                nil_part[s] = info[InfoSlot.tricks_won + s]
        mine = won[me] + tricks[c]
        theirs = won[1 - me] + left - tricks[c]
        values[c] = side_points_nb(rules, info, me, players, mine, nil_part) - side_points_nb(
            rules, info, 1 - me, players, theirs, nil_part
        )


@njit(inline="always", cache=True)
def preferred_nb(a, b):
    """Whether card ``a`` is the cheaper of two equally valued cards: the lower rank,
    and a side card before a spade of the same rank."""
    ra = a % 13 if a < 52 else 13 + a - 52
    rb = b % 13 if b < 52 else 13 + b - 52
    if ra != rb:
        return ra < rb
    return (a >= 39) < (b >= 39) or ((a >= 39) == (b >= 39) and a < b)


@njit(inline="always", cache=True)
def best_card_nb(totals, legal):
    """The card of ``legal`` with the highest total, ties to :func:`preferred_nb`."""
    best = -1
    x = legal
    while x:
        c = lowest_card_nb(x)
        x &= x - ONE
        if (
            best < 0
            or totals[c] > totals[best]
            or (totals[c] == totals[best] and preferred_nb(c, best))
        ):
            best = c
    return best


@njit(inline="always", cache=True)
def table_bits_nb(trick_no):
    """The transposition table's size for a decision (module docstring, "Tables")."""
    if trick_no < 2:
        return 18
    if trick_no < 5:
        return 16
    return 14


@njit(inline="always", cache=True)
def worlds_nb(params, trick_no):
    """The worlds of a decision at trick ``trick_no`` (``worlds``, or ``early_worlds``
    in the first ``early_tricks`` tricks when that is set)."""
    n = np.int64(params[PimcParam.worlds])
    early = np.int64(params[PimcParam.early_worlds])
    if early > 0 and trick_no < np.int64(params[PimcParam.early_tricks]):
        n = early
    return max(n, 1)


PLAY_CANDIDATES = 4
"""With the play read (``read_plays`` > 0), the worlds a decision draws per world it
solves: the solved worlds are drawn from these by their weights. A replay costs tens of
heuristic calls (microseconds each), but each candidate is a world of step 1, fitted to
the bids with up to ``fit_tries`` redraws: every seat on pimc, reading the play with
four candidates halved the hands a second (docs/policies.md, "Worlds weighted by the
play")."""


@njit(cache=True)
def readable_plays_nb(info):
    """Whether ``info`` records the order of play (``InfoSlot.history``, as many cards as
    were played) and who played each card (``rollout.readable_bids_nb``), which replaying
    the hand needs; a table built without them is read as if the play told nothing."""
    n = popcount_nb(np.uint64(info[InfoSlot.played]))
    if n and info[InfoSlot.history + n - 1] < 0:
        return False
    return readable_bids_nb(info) and (n == MAX_PLAYS or info[InfoSlot.history + n] == -1)


@njit(cache=True)
def play_fit_nb(world, hand, seat, info, rules, params, table, hands):
    """How the cards the other seats played fit the world ``world`` (four hands, the
    seat's own ignored) under the heuristic with parameters ``params``: the hand is
    replayed from its first card (every hand as the world gives it plus the cards it has
    played, ``InfoSlot.played_by``; the table as it was, ``InfoSlot.history``), and at
    every past decision of another seat with more than one legal card the heuristic's
    choice is compared with the card played. Returns (agreements, disagreements).
    ``table`` (``N_INFO``) and ``hands`` (4) are scratch."""
    players = info[InfoSlot.players]
    n = popcount_nb(np.uint64(info[InfoSlot.played]))
    if n == 0:
        return 0, 0
    first = info[InfoSlot.history]
    leader = seat
    for s in range(players):
        hands[s] = world[s] | np.uint64(info[InfoSlot.played_by + s])
        if (np.uint64(info[InfoSlot.played_by + s]) >> np.uint64(first)) & ONE:
            leader = s
    hands[seat] = hand | np.uint64(info[InfoSlot.played_by + seat])
    for j in range(N_INFO):
        table[j] = info[j]
    table[InfoSlot.played] = 0
    table[InfoSlot.broken] = 0
    for s in range(4):
        table[InfoSlot.tricks_won + s] = 0
        table[InfoSlot.voids + s] = 0
        table[InfoSlot.played_by + s] = 0
    clear_history_nb(table)
    reset_trick_info_nb(table, 0, leader)
    two_clubs = rules[RuleField.first_lead_two_clubs] != 0
    any_time = rules[RuleField.spades_any_time] != 0
    must_trump = rules[RuleField.must_trump] != 0
    must_over = rules[RuleField.must_overtrump] != 0
    last = hand_tricks_nb(rules) - 1
    agree = 0
    disagree = 0
    for k in range(n):
        card = info[InfoSlot.history + k]
        s = (table[InfoSlot.leader] + table[InfoSlot.n_in_trick]) % players
        if s != seat:
            legal = legal_cards_nb(
                hands[s], table[InfoSlot.led_suit], table[InfoSlot.broken] != 0,
                table[InfoSlot.trick], two_clubs, any_time, must_trump, must_over,
                table[InfoSlot.winning_card],
            )  # fmt: skip
            if legal & (legal - ONE):
                if heuristic_play_nb(hands[s], legal, s, table, rules, params) == card:
                    agree += 1
                else:
                    disagree += 1
        apply_card_nb(hands, table, s, card, players, must_trump, last)
    return agree, disagree


@njit(cache=True)
def play_counts_nb(worlds, hand, seat, info, rules, params, eps, n_solve, rand, counts):
    """``counts[m]``: how many of ``n_solve`` solved worlds are candidate ``worlds[m]``,
    drawn by systematic resampling (one uniform, draw ``worlds.shape[0] *
    DRAWS_PER_WORLD`` of the stream ``rand``, past every world's draws) with weight
    ``(1 - eps) ** agreements * eps ** disagreements`` (:func:`play_fit_nb`): the
    likelihood of the other seats' cards under a heuristic that errs with probability
    ``eps`` at each decision that has a choice."""
    m_worlds = worlds.shape[0]
    table = np.empty(N_INFO, dtype=np.int64)
    hands = np.zeros(4, dtype=np.uint64)
    logw = np.zeros(m_worlds, dtype=np.float64)
    good = np.log(1.0 - eps)
    bad = np.log(eps)
    top = -np.inf
    for m in range(m_worlds):
        agree, disagree = play_fit_nb(worlds[m], hand, seat, info, rules, params, table, hands)
        logw[m] = agree * good + disagree * bad
        top = max(top, logw[m])
    total = 0.0
    for m in range(m_worlds):
        logw[m] = np.exp(logw[m] - top)
        total += logw[m]
    step = total / n_solve
    u = unit_nb(draw_nb(rand, m_worlds * DRAWS_PER_WORLD)) * step
    acc = 0.0
    placed = 0
    for m in range(m_worlds):
        acc += logw[m]
        counts[m] = 0
        while u < acc and placed < n_solve:
            counts[m] += 1
            placed += 1
            u += step
    if placed < n_solve:  # rounding left the last ticket unplaced: the heaviest takes it
        heaviest = 0
        for m in range(m_worlds):
            if logw[m] > logw[heaviest]:
                heaviest = m
        counts[heaviest] += n_solve - placed


@njit(cache=True)
def pimc_totals_nb(hand, legal, seat, info, rules, n_worlds, tries, rand, totals, assume=0):
    """``totals[c]``: the sum over ``n_worlds`` sampled worlds (``pimc_worlds_nb``, bids
    read with ``tries`` > 0, against the bidder ``assume``) of card ``c``'s value (the
    module's steps 1 and 2, every live nil solved) for every card of ``legal``; the
    others are set very low."""
    return read_totals_nb(
        hand, legal, seat, info, rules, n_worlds, tries, rand, totals,
        ASSUMED_BIDDERS[assume].copy(), 0.0, HEURISTIC_DEFAULTS,
    )  # fmt: skip


@njit(cache=True)
def read_totals_nb(hand, legal, seat, info, rules, n_worlds, tries, rand, totals, assumed, eps,
                   params):  # fmt: skip
    """:func:`pimc_totals_nb` against the bidder rows ``assumed`` (:func:`pimc_fitted_nb`),
    with the play read when ``eps`` > 0: ``PLAY_CANDIDATES *
    n_worlds`` worlds drawn, ``n_worlds`` of them solved as :func:`play_counts_nb` draws
    them (the heuristic with ``params``' first slots), each counted as often as drawn."""
    for c in range(totals.shape[0]):
        totals[c] = NEG
    x = legal
    while x:
        c = lowest_card_nb(x)
        x &= x - ONE
        totals[c] = 0
    size = 1 << table_bits_nb(info[InfoSlot.trick])
    tt_keys = np.zeros((KEY_WORDS, size), dtype=np.uint64)
    tt_data = np.zeros(size, dtype=np.int64)
    stats = search_stats_nb(rules)
    hands = np.zeros(4, dtype=np.uint64)
    tricks = np.zeros(totals.shape[0], dtype=np.int64)
    safe = np.zeros((4, totals.shape[0]), dtype=np.int64)
    values = np.zeros(totals.shape[0], dtype=np.int64)
    read = eps > 0.0 and info[InfoSlot.played] != 0
    n_draw = n_worlds * PLAY_CANDIDATES if read else n_worlds
    worlds = np.zeros((n_draw, 4), dtype=np.uint64)
    misfits = np.zeros(n_draw, dtype=np.int64)
    counts = np.ones(n_draw, dtype=np.int64)
    pimc_fitted_nb(hand, seat, info, rules, tries, rand, worlds, misfits, assumed)
    if read:
        play_counts_nb(worlds, hand, seat, info, rules, params, eps, n_worlds, rand, counts)
    for w in range(n_draw):
        if stats[S_ABORT]:  # stopped: the totals mean nothing, and the run drops them
            break
        if counts[w] == 0:
            continue
        for s in range(4):
            hands[s] = worlds[w, s]
        world_values_nb(hands, seat, info, rules, tt_keys, tt_data, stats, tricks, safe, values)
        x = legal
        while x:
            c = lowest_card_nb(x)
            x &= x - ONE
            totals[c] += counts[w] * values[c]
    return stats[0]


NIL_MARGIN = 1.0
"""Points per world a card must gain over the heuristic's in the nil rollouts (as
``lookahead``'s default ``margin``): near-ties, bags mostly, stay with the maxims."""


@njit(cache=True)
def nil_play_nb(hand, legal, seat, info, rules, params, rand, keep=-1):
    """The card of a decision with a live nil before the solver values nils ("Nils by
    rollouts" in the module docstring): with ``nil_rollouts`` = 0 the heuristic's, else
    the best of ``rollout.rollout_pick_nb`` over ``nil_rollouts`` worlds of
    ``pimc_worlds_nb`` (the bids read as ``read_bids`` says), each played out by the
    heuristic for every seat and scored as the hand's score margin, bags at their
    long-run cost (penalty / limit); with ``keep`` a seat, never a card that keeps that
    seat trickless in fewer worlds than the heuristic's card does."""
    default = heuristic_play_nb(hand, legal, seat, info, rules, params)
    n_worlds = np.int64(params[PimcParam.nil_rollouts])
    if n_worlds <= 0 or not legal & (legal - ONE):
        return default
    cands = np.empty(64, dtype=np.int64)
    n = distinct_cards_nb(legal, parting_cards_nb(hand, info, rules), cands)
    if n == 1:
        return default
    tries = np.int64(params[PimcParam.fit_tries]) if params[PimcParam.read_bids] else 0
    worlds = np.zeros((n_worlds, 4), dtype=np.uint64)
    misfits = np.zeros(n_worlds, dtype=np.int64)
    assumed = assumed_rows_nb(params, np.int64(params[PimcParam.assume]))
    pimc_fitted_nb(hand, seat, info, rules, tries, rand, worlds, misfits, assumed)
    cost = bag_cost_nb(rules, -1.0)
    return rollout_pick_nb(
        cands, n, default, seat, info, rules, params, worlds, cost, NIL_MARGIN, keep
    )


@njit(cache=True)
def lookahead_row_nb(params):
    """The ``lookahead`` parameter row a ``pimc`` row plays by before ``solve_from``: the
    registry's defaults (``LOOKAHEAD_DEFAULTS``) with this row's heuristic parameters, its
    reading of the bids (``read_bids``, ``fit_tries``, ``assume``, and the seated bidders
    the run's row carries after its slots) and its deals (``lookahead_samples``)."""
    row = params.copy()
    row[:PARAM_SLOTS] = LOOKAHEAD_DEFAULTS
    row[1 : N_PLAY_COMMON + 1] = params[1 : N_PLAY_COMMON + 1]
    row[LookaheadParam.samples] = params[PimcParam.lookahead_samples]
    row[LookaheadParam.read_bids] = params[PimcParam.read_bids]
    row[LookaheadParam.fit_tries] = params[PimcParam.fit_tries]
    row[LookaheadParam.assume] = params[PimcParam.assume]
    return row


@njit(cache=True)
def pimc_decide_nb(hand, legal, seat, info, rules, params, rand):
    """The card ``pimc`` plays (the module's contract), not inlined: called through
    borrowed views from :func:`pimc_play_nb`."""
    if stop_requested_nb(rules):  # the run is stopping and drops this hand: no search
        return lowest_card_nb(legal)
    live = live_nils_nb(info)
    cover = np.int64(params[PimcParam.nil_cover])
    # with nil_cover=2 the partner of a live nil (its own nil, if any, lost; partnerships
    # only) never plays a card that keeps the nil in fewer of its worlds than the maxims'
    # card: points the worlds promise elsewhere never buy a risk to the nil
    guard = -1
    partners = info[InfoSlot.players] == 4 and info[InfoSlot.sides] == 2
    if cover == 2 and partners and (live >> (seat ^ 2)) & 1 and not (live >> seat) & 1:
        guard = seat ^ 2
    if info[InfoSlot.trick] < np.int64(params[PimcParam.solve_from]):
        # the first tricks, where a solve costs the most: the heuristic's rollouts choose
        row = lookahead_row_nb(params)
        return lookahead_play_nb(hand, legal, seat, info, rules, row, rand, guard)
    if live:
        # a live nil before the solver values nils: the heuristic's nil maxims (its
        # parameters are this row's first thirteen), not the solver's all-cards-seen verdict;
        # a seat whose own side has no live nil only defends, where that verdict errs the
        # safe way (it credits the nil with perfect cover), so it may solve from earlier
        own_side = live & (0b0101 << (seat & 1))  # the seat and its partner (seat ^ 2)
        if own_side and info[InfoSlot.trick] < np.int64(params[PimcParam.nil_from]):
            # the nil seat keeps the maxims: rollouts lost more of its nils than they
            # saved ("Nils by rollouts" in the module docstring); its partner may search,
            # its rollouts then playing the nil seat by the maxims it really plays
            if cover and not (live >> seat) & 1:
                return nil_play_nb(hand, legal, seat, info, rules, params, rand, guard)
            return heuristic_play_nb(hand, legal, seat, info, rules, params)
        if not own_side and info[InfoSlot.trick] < np.int64(params[PimcParam.defend_from]):
            return nil_play_nb(hand, legal, seat, info, rules, params, rand)
    unplayed = deck_mask_nb(rules[RuleField.jokers]) & ~np.uint64(info[InfoSlot.played])
    trick = ZERO
    for j in range(info[InfoSlot.n_in_trick]):
        trick |= bit_nb(info[InfoSlot.trick_cards + j])
    distinct = representatives_nb(legal, hand, unplayed | trick)
    if popcount_nb(distinct) == 1:  # every legal card plays the same in every world
        return lowest_card_nb(legal)
    totals = np.zeros(64, dtype=np.int64)
    n_worlds = worlds_nb(params, info[InfoSlot.trick])
    tries = np.int64(params[PimcParam.fit_tries]) if params[PimcParam.read_bids] else 0
    assumed = assumed_rows_nb(params, np.int64(params[PimcParam.assume]))
    eps = min(params[PimcParam.read_plays], 0.5) if readable_plays_nb(info) else 0.0
    read_totals_nb(
        hand, legal, seat, info, rules, n_worlds, tries, rand, totals, assumed, eps, params
    )
    return best_card_nb(totals, legal)


@njit(inline="always", cache=True)
def pimc_play_nb(hand, legal, seat, info, rules, params, rand):
    """Play a card of ``legal`` by perfect-information Monte Carlo (module docstring)."""
    return pimc_decide_nb(hand, legal, seat, borrow_nb(info), borrow_nb(rules),
                          borrow_nb(params), rand)  # fmt: skip


@njit(inline="always", cache=True)
def pimc_or_plain_play_nb(hand, legal, seat, info, rules, params, rand):
    """A built-in side's play in a generated module that runs ``pimc``: ``pimc`` when the
    side's parameters name it, else ``policies.plain_play_nb`` (random, heuristic). Every
    seating of ``pimc`` against those built-ins (both sides, either side) is thereby one
    module, so the solver is compiled once, not once per seating."""
    if np.int64(params[0]) == PlayPolicy.pimc:
        return pimc_play_nb(hand, legal, seat, info, rules, params, rand)
    return plain_play_nb(hand, legal, seat, info, rules, params, rand)
