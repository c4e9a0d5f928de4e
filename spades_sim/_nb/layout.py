"""Index constants of the int64 rule array the kernels read (``Rules.lower()`` fills it).

Module-level integers are compile-time constants to Numba, so ``rules[R_TARGET]`` costs a
single load. Add a field at the end and bump ``N_RULE_FIELDS``; never reorder.
"""

R_PLAYERS = 0
R_JOKERS = 1
R_BLIND_NIL = 2
R_BLIND_NIL_MIN_DEFICIT = 3
R_BLIND_NIL_EXCHANGE = 4
R_FIRST_LEAD_TWO_CLUBS = 5
R_SPADES_ANY_TIME = 6
R_BOSTON_BONUS = 7
R_NIL_VALUE = 8
R_BLIND_NIL_VALUE = 9
R_NIL_TRICKS_FOR_PARTNER = 10
R_NIL_TRICKS_AS_BAGS = 11
R_BAG_LIMIT = 12
R_BAG_PENALTY = 13
R_TARGET = 14
R_HAS_LOSS_THRESHOLD = 15
R_LOSS_THRESHOLD = 16
R_MAX_HANDS = 17
N_RULE_FIELDS = 18

# --- The table state a policy may read (``info``, int64) ------------------------------
# Only public information: no other seat's cards ever enter this array. Per-seat slots
# have four entries (two used with two players); per-side slots two.
I_PLAYERS = 0
I_DEALER = 1
I_TRICK = 2  # number of the current trick, 0..12
I_LEADER = 3  # seat that led the current trick
I_N_IN_TRICK = 4  # cards played to the current trick so far
I_TRICK_CARDS = 5  # 4 slots: the cards of the current trick in play order, -1 empty
I_PLAYED = 9  # mask of every card played so far (this trick included)
I_BROKEN = 10  # spades broken
I_LED_SUIT = 11  # suit led to the current trick, -1 before the lead
I_WINNING_SEAT = 12  # seat winning the current trick so far, -1 before the lead
I_WINNING_CARD = 13  # card winning the current trick so far, -1 before the lead
I_BIDS = 14  # 4 slots: bid per seat, -1 not yet bid (0 is nil or blind nil)
I_NIL = 18  # 4 slots: 0 no nil, 1 nil, 2 blind nil
I_TRICKS_WON = 22  # 4 slots
I_SCORES = 26  # 2 slots, per side, before this hand
I_BAGS = 28  # 2 slots, per side, before this hand
I_VOIDS = 30  # 4 slots: bit s set when the seat has shown out of suit s
I_FIRST_TO_ACT = 34  # first bidder and first leader of the hand (before the 2C rule)
N_INFO = 40

# --- Built-in policy ids (the float64 parameter vector is per policy) -----------------
BID_COUNT = 0
BID_RANDOM = 1
PLAY_RANDOM = 0

# --- Output fields: rows of the per-seat output blocks (one column each) --------------
# int8 block
O_BID = 0
O_NIL = 1  # 0 none, 1 nil, 2 blind nil
O_TRICKS = 2
O_NIL_MADE = 3  # -1 no nil, 0 failed, 1 made
O_SIDE_CONTRACT = 4
O_SIDE_TRICKS = 5
O_MADE = 6  # -1 contract 0, 0 set, 1 made
O_BAGS_CHANGE = 7
O_DEALER = 8
O_BOSTON = 9
O_SPADES = 10
O_HIGH_SPADES = 11
O_ACES = 12
O_KINGS = 13
O_QUEENS = 14
O_SHORTEST = 15
O_VOIDS = 16
O_POINTS = 17
N_OUT_I8 = 18
# int32 block
O_SCORE_CHANGE = 0
O_BAG_PENALTY = 1
O_SCORE_BEFORE = 2
O_SCORE_AFTER = 3
O_BAGS_BEFORE = 4
O_BAGS_AFTER = 5
N_OUT_I32 = 6
# per-game int32 block (games mode)
G_FIRST_DEALER = 0
G_WINNER = 1  # -1 unfinished
G_REASON = 2  # score.REASON_*
G_HANDS = 3
G_SCORE0 = 4
G_SCORE1 = 5
G_BAGS0 = 6
G_BAGS1 = 7
G_PENALTY0 = 8  # points lost to bags over the game
G_PENALTY1 = 9
G_POLICY_ERROR = 10
N_OUT_GAME = 11

# --- Error codes of the replay kernel --------------------------------------------------
E_OK = 0
E_NOT_HELD = 1
E_PLAYED_TWICE = 2
E_REVOKE = 3
E_SPADES_NOT_BROKEN = 4
E_MUST_LEAD_TWO_CLUBS = 5
E_UNKNOWN_CARD = 6

# --- More built-in policy ids (issue 3; append only) ----------------------------------
BID_PAGAT = 2
BID_PARTNER = 3
BID_MONTE_CARLO = 4
PLAY_HEURISTIC = 1
PLAY_LOOKAHEAD = 2
DRAW_THRESHOLD = 0
DRAW_PLAN = 1
