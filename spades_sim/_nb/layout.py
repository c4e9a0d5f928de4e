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
