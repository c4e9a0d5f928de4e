"""Every index contract of the kernels, declared once, by name, usable inside ``@njit``.

Each contract is one ``NamedTuple`` instance whose fields are ints (the pattern of
vectorbt's ``enums.py``): ``rules[RuleField.target]``, ``info[InfoSlot.bids + seat]``,
``params[CountParam.king_value]``. Numba types a global tuple of ints as a constant, so
each such index compiles to the same single load a bare module-level integer did (the
lock-step and scalar kernels were timed before and after the change). Python code reads
the same instances (``Rules.lower()``, ``simulate``, the policy registry).

The contracts:

- ``RuleField``: the int64 rule array ``Rules.lower()`` fills (booleans as 0/1,
  ``first_lead`` as ``first_lead_two_clubs``, ``spades_lead`` as ``spades_any_time``,
  ``loss_threshold`` as ``has_loss_threshold`` plus ``loss_threshold``,
  ``big_bid_threshold`` None as 0, ``bid_rule`` as its ``BidRuleId``). Append only.
  ``BidError``: why recorded bids break the bid rule (``bidding.bid_error_nb``).
- ``InfoSlot``: the public table state ``info`` a policy may read (int64).
- ``OutI8``/``OutI32``/``GameOut``: rows of the output blocks. They are built from
  ``spades_sim.schema`` (each column's ``block``), so the row of a column is declared
  with the column; ``simulate`` names the rows from the same instances.
- ``BidPolicy``/``PlayPolicy``/``DrawPolicy`` and ``*Param``: each built-in policy's id
  and parameter slots, its default row (``*_DEFAULTS``), the heuristic's switches and
  ``PARAM_SLOTS``, all derived from the table of policies (``spades_sim.policy_table``),
  which this module, like the kernels' cache digest, reads.
- ``HeuristicFlag``: the heuristic's on/off parameters as bits of one ``flags`` int.
- ``ScoreSlot``: what ``score.side_score_nb`` returns for one side.
- ``ReplayError``: the error codes of ``play.replay_tricks_nb``; ``EndReason``: why a
  game ended (``score.game_result_nb``).
- ``LockstepField``/``HeuristicField``: fields of the flat lock-step state (field f of
  lane b at ``f * LANES + b``); ``DealLane``: a lock-step batch's per-deal state outside
  the play (bids, scores); ``MaskSlot``/``ParamRow``: the loops' hidden hand masks and
  the rows of the per-run parameter matrix.

``PARAM_SLOTS``/``SEATED_BIDS``/``ROW_SLOTS``: a policy's parameter vector, and a run's
row of it followed by the four seated bidders' rows.

Multi-entry slots (four seats, two sides) give the first entry; the next field says
where it ends. Because the output rows come from ``schema.py``, the kernel cache digest
(``__init__.py``) covers that file as well.
"""

from typing import NamedTuple

import numpy as np

from spades_sim.policy_table import (
    BID_COMMON_NAMES,
    BUILTINS,
    PLAY_COMMON,
    PLAY_COMMON_NAMES,
    by_id,
    defaults,
    spec_of,
)
from spades_sim.schema import GAME_COLUMNS, HAND_COLUMNS, KERNEL_ONLY_ROWS, REASONS


def _named(name, fields, values):
    """An instance of a new NamedTuple class ``name`` (kept as a module global, so Numba
    and pickle find it by name) with int fields ``fields`` set to ``values``."""
    cls = NamedTuple(name, [(f, int) for f in fields])
    cls.__module__ = __name__
    globals()[name] = cls
    return cls(*values)


def _positions(name, fields, first=0):
    """``fields`` numbered in order from ``first``."""
    return _named(name, fields, range(first, first + len(fields)))


# --- The rule array (``Rules.lower()``) -------------------------------------------------


MAX_TRICKS = 18
"""The most tricks a hand has (three players with the jokers: 18; else 17 or 13), the size
of the kernels' per-trick scratch."""


class RuleFieldT(NamedTuple):
    players: int
    jokers: int  # the pack: 0..2 (four or two players), 3 or 4 (three players)
    blind_nil: int
    blind_nil_min_deficit: int
    blind_nil_exchange: int
    first_lead_two_clubs: int
    spades_any_time: int
    boston_bonus: int
    nil_value: int
    blind_nil_value: int
    nil_tricks_for_partner: int
    nil_tricks_as_bags: int
    bag_limit: int
    bag_penalty: int
    target: int
    has_loss_threshold: int
    loss_threshold: int
    max_hands: int
    big_bid_threshold: int  # 0: off
    big_bid_multiplier: int
    bid_rule: int  # a ``BidRuleId``
    min_side_bid: int  # 0: off
    min_number_bid: int
    min_side_bid_nil_exempt: int
    nil_exchange: int
    must_trump: int
    must_overtrump: int
    partnerships: int


RuleField = RuleFieldT(*range(len(RuleFieldT._fields)))
N_RULE_FIELDS = len(RuleField)

SEARCH_CELL = N_RULE_FIELDS
"""Where a rule array may carry a stop cell: a run that can be stopped in the middle of
a kernel (``run.chunks``: the generated kernel modules, which ``pimc`` runs take) hands
each worker thread its own rule array, the ``N_RULE_FIELDS`` fields followed by
``SEARCH_CELL_SLOTS`` int64 slots. Those slots are the ``stats`` of the double-dummy
searches of the ``pimc`` decision the thread is making (``dd.STATS``: counters a decision
clears before it searches, as a fresh array would start), and ``SEARCH_CELL +
STOP_SLOT`` (``dd.S_ABORT``) is the run's stop flag: set by the run layer on Ctrl-C or
SIGTERM, read by those searches every few thousand nodes, by ``pimc`` before it decides
and by a generated module before each hand. No rule field moves, so a rule array with a
cell has the type of one without (no second compile) and every row is the same."""
SEARCH_CELL_SLOTS = 8
"""The slots of a stop cell: ``dd.STATS`` (``pimc`` checks the two agree at import)."""
STOP_SLOT = 7
"""The stop flag's slot in a stop cell: ``dd.S_ABORT``, which the searches poll."""

# What a bid may be (``rules[RuleField.bid_rule]``), by the values of ``rules.BidRule``.
BidRuleId = _positions("BidRuleIdT", ("free", "mirror", "whiz", "suicide"))

# Why a hand's recorded bids break the bid rule (``bidding.bid_error_nb``).
BidError = _positions(
    "BidErrorT",
    ("ok", "not_spades", "pack_spades", "suicide_pair", "below_min_bid", "below_side_min"),
)


# --- The table state a policy may read (``info``, int64) ------------------------------
# Only public information: no other seat's cards ever enter this array. Per-seat slots
# have four entries (two used with two players); per-side slots four (two used with
# partnerships or two players; in cutthroat every seat is a side, side s = seat s).


class InfoSlotT(NamedTuple):
    players: int = 0
    dealer: int = 1
    trick: int = 2  # number of the current trick, 0..12 (0..16 or 0..17 with three players)
    leader: int = 3  # seat that led the current trick
    n_in_trick: int = 4  # cards played to the current trick so far
    trick_cards: int = 5  # 4 slots: the cards of the current trick in play order, -1 empty
    played: int = 9  # mask of every card played so far (this trick included)
    broken: int = 10  # spades broken
    led_suit: int = 11  # suit led to the current trick, -1 before the lead
    winning_seat: int = 12  # seat winning the current trick so far, -1 before the lead
    winning_card: int = 13  # card winning the current trick so far, -1 before the lead
    bids: int = 14  # 4 slots: bid per seat, -1 not yet bid (0 is nil or blind nil)
    nil: int = 18  # 4 slots: 0 no nil, 1 nil, 2 blind nil
    tricks_won: int = 22  # 4 slots
    scores: int = 26  # 4 slots, per side, before this hand (2 used unless cutthroat)
    bags: int = 30  # 4 slots, per side, before this hand (2 used unless cutthroat)
    voids: int = 34  # 4 slots: bit s set when the seat has shown out of suit s (spades
    # too for a discard under must_trump)
    first_to_act: int = 38  # first bidder and first leader of the hand (before the 2C rule)
    sides: int = 39  # 2, or 4 in cutthroat (``partnerships`` false): side of seat s is s
    played_by: int = 40  # 4 slots: mask of the cards each seat has played this hand (public:
    # every seat saw who played what; the bid-reading samplers rebuild bid-time hands from it)
    history: int = 44  # MAX_PLAYS slots: the cards played this hand in play order, -1 after
    # the last (public; the seat of each is the one whose ``played_by`` holds it), so a
    # policy can replay past decisions (``pimc``'s play reading)


InfoSlot = InfoSlotT()
MAX_PLAYS = 3 * MAX_TRICKS
"""The most cards a hand has played (three players with the jokers: 18 tricks of 3; four
players 52), the ``history`` slots."""
N_INFO = InfoSlot.history + MAX_PLAYS


# --- Output blocks: one row per column, named after it (``schema.py``) ----------------


def _block(name, columns, block):
    names = tuple(c.name for c in columns if c.block == block)
    return _positions(name, names + KERNEL_ONLY_ROWS.get(block, ()))


OutI8 = _block("OutI8T", HAND_COLUMNS, "i8")
OutI32 = _block("OutI32T", HAND_COLUMNS, "i32")
GameOut = _block("GameOutT", GAME_COLUMNS, "game")
N_OUT_I8 = len(OutI8)
N_OUT_I32 = len(OutI32)
N_OUT_GAME = len(GameOut)


# --- Built-in policies: ids, parameter slots, defaults (``spades_sim.policy_table``) ---


def _ids(name, kind):
    specs = by_id(kind)
    return _named(name, tuple(s.name.replace("-", "_") for s in specs), range(len(specs)))


BidPolicy = _ids("BidPolicyT", "bid")
PlayPolicy = _ids("PlayPolicyT", "play")
DrawPolicy = _ids("DrawPolicyT", "draw")
PARAM_SLOTS = 2 + max(len(s.params) for s in BUILTINS)
"""The length of every parameter vector: slot 0 the built-in id, slot k + 1 parameter k,
the last ``SEATING_SLOT``; as long as the built-in with the most parameters needs."""
SEATING_SLOT = PARAM_SLOTS - 1
"""No policy's parameter: in a run of a generated kernel module of two different sides,
1 on the rows of the four policies when the run seats them the other way round from the
module's own order (``custom.kernels``: one module serves both seatings of a duplicate)."""
SEATED_BIDS = PARAM_SLOTS
"""Where a run's parameter row carries the bidders seated at the table: after the
policy's ``PARAM_SLOTS`` slots, the bidder row of seat 0, 1, 2 and 3 (``PARAM_SLOTS``
each; ``policies.seated_bidders``), read by the sampling players that assume the seated
bidders (``assume`` 3). A row without them (a single policy's vector) reads as count."""
ROW_SLOTS = SEATED_BIDS + 4 * PARAM_SLOTS  # a run's parameter row, seated bidders included

GIVEN_SHIFT = 8
"""A conditional deal's ``forced_bid`` (``prepare.prepare_with_nb``) holds the forced seat's
bid in its low ``GIVEN_SHIFT`` bits and, for each seat s given a bid already made, a code
in bits ``GIVEN_SHIFT * (s + 1)`` on: 0 none, else 1 + kind * ``GIVEN_KIND`` + bid (kind 0
number, 1 nil, 2 blind nil)."""
GIVEN_KIND = 32  # above the highest bid (18)
GIVEN_MASK = (1 << GIVEN_SHIFT) - 1


def _slots(spec):
    """A built-in's parameter slots by name: slot k + 1 holds parameter k."""
    words = "".join(w.title() for w in spec.name.split("-")) + spec.kind.title()
    return _positions(f"{words}ParamT", tuple(p.name for p in spec.params), 1)


# Every built-in policy's slots, by (kind, registry name).
PARAMS_BY_POLICY = {(s.kind, s.name): _slots(s) for s in BUILTINS}
BidParam = _positions("BidParamT", BID_COMMON_NAMES, 1)  # the slots every bidder but random shares
CountParam = PARAMS_BY_POLICY[("bid", "count")]
PagatParam = PARAMS_BY_POLICY[("bid", "pagat")]
PartnerParam = PARAMS_BY_POLICY[("bid", "partner-aware")]
MonteCarloParam = PARAMS_BY_POLICY[("bid", "monte-carlo")]
AdviseParam = PARAMS_BY_POLICY[("bid", "advise")]
RandomBidParam = PARAMS_BY_POLICY[("bid", "random")]
HeuristicParam = PARAMS_BY_POLICY[("play", "heuristic")]
LookaheadParam = PARAMS_BY_POLICY[("play", "lookahead")]
PimcParam = PARAMS_BY_POLICY[("play", "pimc")]
ThresholdParam = PARAMS_BY_POLICY[("draw", "threshold")]
PlanParam = PARAMS_BY_POLICY[("draw", "plan")]


# The heuristic's on/off parameters as bits of one ``flags`` int: bit k for slot k + 1;
# its numeric settings (every parameter of the play policies' common part that is not a
# switch) leave their bits unused.
HEURISTIC_NUMBERS = tuple(p.name for p in PLAY_COMMON if p.values != "switch")
N_PLAY_COMMON = len(PLAY_COMMON_NAMES)  # the heuristic's slots: 1..N_PLAY_COMMON
_SWITCHES = tuple(f for f in PLAY_COMMON_NAMES if f not in HEURISTIC_NUMBERS)
HeuristicFlag = _named(
    "HeuristicFlagT", _SWITCHES, [1 << (getattr(HeuristicParam, f) - 1) for f in _SWITCHES]
)
HEURISTIC_NUMBER_SLOTS = tuple(getattr(HeuristicParam, f) for f in HEURISTIC_NUMBERS)


# One side's heuristic settings as its kernels read them: ``flags`` (the switches'
# bits) and each numeric setting as a float64 field named after it, in the table's order.
# Built once per side from a parameter row (``heuristic.heuristic_settings_nb``, or
# ``heuristic_settings`` here in Python), so a new numeric setting is a field by itself.
HeuristicSettings = NamedTuple(
    "HeuristicSettings", [("flags", int), *((f, float) for f in HEURISTIC_NUMBERS)]
)
HeuristicSettings.__module__ = __name__


def heuristic_settings(params):
    """One side's ``HeuristicSettings`` from its parameter row (slots 1 on), in Python:
    the kernels' ``heuristic.heuristic_settings_nb`` gives the same, and the lock-step
    heuristic's defaults copy folds in ``HEURISTIC_DEFAULT_SETTINGS``, built by this."""
    flags = sum(int(params[k] > 0) << (k - 1) for k in range(1, N_PLAY_COMMON + 1))
    return HeuristicSettings(flags, *(float(params[k]) for k in HEURISTIC_NUMBER_SLOTS))


# Registry defaults the sampling policies use for the other seats' bids and the play in
# their rollouts, and the lock-step heuristic's constant-folded copy.
def _defaults_row(kind, name):
    """A built-in's parameter row of ``PARAM_SLOTS`` float64s: the id, its defaults,
    zeros after."""
    values = defaults(spec_of(kind, name))
    row = np.zeros(PARAM_SLOTS, dtype=np.float64)
    row[: len(values)] = values
    return row


COUNT_DEFAULTS = _defaults_row("bid", "count")
PAGAT_DEFAULTS = _defaults_row("bid", "pagat")
PARTNER_DEFAULTS = _defaults_row("bid", "partner-aware")
HEURISTIC_DEFAULTS = _defaults_row("play", "heuristic")
HEURISTIC_DEFAULT_SETTINGS = heuristic_settings(HEURISTIC_DEFAULTS)
LOOKAHEAD_DEFAULTS = _defaults_row("play", "lookahead")
THRESHOLD_DEFAULTS = _defaults_row("draw", "threshold")


# --- Scoring, replay and game results --------------------------------------------------


class ScoreSlotT(NamedTuple):
    contract: int = 0
    side_tricks: int = 1
    made: int = 2  # -1 contract 0, 0 set, 1 made
    score_change: int = 3  # bag penalty included
    bags_change: int = 4
    bags_after: int = 5
    bag_penalty: int = 6
    boston: int = 7  # 0/1
    nil_made_a: int = 8  # -1 no nil, 0 failed, 1 made (member a: the seat of the side < 2)
    nil_made_b: int = 9


ScoreSlot = ScoreSlotT()
N_SCORE_SLOTS = len(ScoreSlot)


class ReplayErrorT(NamedTuple):
    ok: int = 0
    not_held: int = 1
    played_twice: int = 2
    revoke: int = 3
    spades_not_broken: int = 4
    must_lead_two_clubs: int = 5
    unknown_card: int = 6
    must_trump: int = 7  # a discard by a player void in the suit led who holds a spade
    must_overtrump: int = 8  # a spade not above the trick's highest spade, when one is held


ReplayError = ReplayErrorT()
# why a game ended, as the ``reason`` column holds it (``schema.REASONS``); 0: play goes on
EndReason = _named("EndReasonT", ("none", *REASONS.values()), (0, *REASONS))


# --- Kernel-internal layouts ------------------------------------------------------------

LANES = 64  # deals per lock-step batch


class LockstepFieldT(NamedTuple):
    hand: int = 0  # 4 fields: the hands still held, by seat
    leader: int = 4
    broken: int = 5
    key: int = 6  # the deal's stream key plus GOLDEN times its random counter at the first lead
    led: int = 8
    win_card: int = 9
    win_seat: int = 10
    tricks: int = 11  # 4 fields: tricks won, by seat
    first_won: int = 15  # 4 fields: the card with which the seat won its first trick (if any)


LockstepField = LockstepFieldT()
N_LOCKSTEP_FIELDS = 19


class HeuristicFieldT(NamedTuple):
    # what the lock-step heuristic reads beyond ``LockstepField``; bids and nil flags are
    # set before play (nil 0/1, seats beyond the players 0), played and voids are
    # cleared by the play function
    played: int = N_LOCKSTEP_FIELDS
    voids: int = N_LOCKSTEP_FIELDS + 1  # 4 bits per seat: the suits it has shown out of
    bids: int = N_LOCKSTEP_FIELDS + 2  # 4 fields
    nils: int = N_LOCKSTEP_FIELDS + 6  # 4 fields
    alive: int = N_LOCKSTEP_FIELDS + 10  # seats with a live nil, a bit each
    need: int = N_LOCKSTEP_FIELDS + 11  # 2 fields: tricks each side still needs (-99: none)
    nil_outs: int = N_LOCKSTEP_FIELDS + 13  # 4 fields: per seat, the cards its plays show
    # it does not hold (``heuristic.read_play_nb``; kept only when a side reads them)


HeuristicField = HeuristicFieldT()
N_HEURISTIC_FIELDS = N_LOCKSTEP_FIELDS + 17


class DealLaneT(NamedTuple):
    # a lock-step batch's per-deal state outside the play (``prepare.prepare_lanes_four_nb``,
    # ``lockstep_bidding.py``, ``lockstep_score.py``), int64, field f of deal b at
    # f * LANES + b: the hands (bit patterns; as dealt while bidding, at the start of
    # play once prepared), stream key and first bidder; the bids, nil kinds (0/1 nil/2
    # blind) and out-of-range bids; after the play the tricks and each side's score
    # (side s's ``ScoreSlot`` f at ``score + s * N_SCORE_SLOTS + f``)
    hands: int = 0  # 4 fields
    key: int = 4
    first: int = 5
    bids: int = 6  # 4 fields
    nils: int = 10  # 4 fields
    errors: int = 14
    tricks: int = 15  # 4 fields
    score: int = 19  # 2 * N_SCORE_SLOTS fields
    # the bidder's working fields, for the bidder now bidding in each deal
    seat: int = 39
    hand: int = 40
    partner_bid: int = 41
    partner_nil: int = 42
    blind: int = 43
    random_bid: int = 44
    counted: int = 45
    aware: int = 46
    # a seat whose bid is given (nil odds' hero): its bid and nil kind in each deal
    forced_bid: int = 47
    forced_kind: int = 48


DealLane = DealLaneT()
N_DEAL_LANE_FIELDS = DealLane.forced_kind + 1  # the fields, multi-entry ones counted in full
assert DealLane.seat == DealLane.score + 2 * N_SCORE_SLOTS


class MaskSlotT(NamedTuple):
    # the loops' hidden ``masks`` array (never shown to a policy), 4 seats each
    work: int = 0  # the hands during play
    hands: int = 4  # the hands at the start of play
    dealt: int = 8  # the hands as dealt, before any blind nil exchange


class ParamRowT(NamedTuple):
    # rows of the per-run parameter matrix (5 x PARAM_SLOTS); bid and play: N-S, E-W
    bid: int = 0
    play: int = 2
    draw: int = 4


MaskSlot = MaskSlotT()
N_MASKS = 12
ParamRow = ParamRowT()
