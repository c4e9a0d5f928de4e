"""Named slots of the built-in policies' float64 parameter vectors, and heuristic flags.

``params[0]`` holds the policy id; the named parameters follow in the registry's order
(``spades_sim.policies``), and the constants here are those slots: ``B_*`` for the
count, pagat, partner-aware and monte-carlo bidders, ``P_*`` for heuristic play (the
lookahead shares 1..7 for its rollouts), ``D_*`` for the two-player draw. ``F_*`` are
the heuristic's on/off parameters as bits of one ``flags`` integer (bit k: slot k + 1).
"""

import numpy as np

from spades_sim._nb import layout as L

# Shared by the count, pagat, partner-aware and monte-carlo bidders:
B_BIAS = 1
B_NIL_THRESHOLD = 2
B_BLIND_DEFICIT = 3
B_BLIND_MAX_BAGS = 4
B_BLIND_PARTNER_MIN = 5
B_BLIND_BEFORE_PARTNER = 6
B_NIL_PARTNER_MIN = 7
B_ROUND_UP = 8
# count
B_KING_VALUE = 9
B_SPADE_LENGTH = 10
B_SHORT_VALUE = 11
# pagat
B_QUEEN_VALUE = 9
B_TRUMP_LENGTH = 10
# partner-aware
B_OVERBID_CUT = 9
B_NIL_COVER_BONUS = 10
B_OPP_NIL_BONUS = 11
B_BAG_PUSH = 12
B_BAG_MARGIN = 13
B_SCORE_SHADE = 14
B_SCORE_MARGIN = 15
# monte-carlo
B_SAMPLES = 9
B_BAG_COST = 10
B_NIL_BONUS = 11
B_WINDOW = 12
B_OBJECTIVE = 13
B_TOLERANCE = 14
# heuristic play (lookahead shares 1..7 for its rollouts)
P_BAG_AVOID = 1
P_SET_PUSH = 2
P_COVER_NIL = 3
P_ATTACK_NIL = 4
P_SECOND_TRUMP = 5
P_CASH = 6
P_DRAW_TRUMPS = 7
P_SAMPLES = 8
# draw (two players): threshold uses 1..3, plan all
D_SIDE_RANK = 1
D_SPADE_RANK = 2
D_NIL_RANK = 3
D_NIL_COMMIT = 4
D_COMMIT_AFTER = 5
D_NIL_SPADE_RANK = 6

# Registry defaults the sampling policies use for the other seats' bids and the play in
# their rollouts (tests hold them equal to ``spades_sim.policies``).
COUNT_DEFAULTS = np.array(
    [L.BID_COUNT, 0.0, 2.5, 200.0, 7.0, 3.0, 1.0, 2.0, 0.5, 1.0, 4.0, 1.0, 0, 0, 0, 0],
    dtype=np.float64,
)
HEURISTIC_DEFAULTS = np.array(
    [L.PLAY_HEURISTIC, 1.0, 4.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0, 0, 0, 0, 0, 0, 0, 0],
    dtype=np.float64,
)

# heuristic on/off parameters as bits of ``flags``
F_BAG_AVOID = 1 << (P_BAG_AVOID - 1)
F_COVER = 1 << (P_COVER_NIL - 1)
F_ATTACK = 1 << (P_ATTACK_NIL - 1)
F_SECOND_TRUMP = 1 << (P_SECOND_TRUMP - 1)
F_CASH = 1 << (P_CASH - 1)
F_DRAW_TRUMPS = 1 << (P_DRAW_TRUMPS - 1)
