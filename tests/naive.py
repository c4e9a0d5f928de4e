"""Plain-Python twins of the kernels' helpers: the same contracts, written the obvious way.

Each function here says in the plainest Python what a helper of ``spades_sim._nb`` does
(bit helpers, the random streams, the legal cards, the winner of a trick), with Python's
unbounded integers masked to 64 bits where the kernels wrap. ``test_naive_twins.py``
holds each kernel helper to its twin on many random inputs. Card ids are ``suit * 13 +
rank`` (clubs 0, diamonds 1, hearts 2, spades 3), the ids above the ace of spades
(52..55: jokers, or with the deuces high 2S 2D LJ BJ) are spades.
"""

from __future__ import annotations

M64 = (1 << 64) - 1
SPADES = 3


def cards(mask: int) -> list[int]:
    """The set bits of ``mask``, lowest first."""
    return [i for i in range(64) if mask >> i & 1]


def popcount(mask: int) -> int:
    return len(cards(mask))


def lowest_card(mask: int) -> int:
    return cards(mask)[0]


def highest_card(mask: int) -> int:
    return cards(mask)[-1]


def lane_lo(mask: int) -> int:
    return cards(mask)[0] if mask else -1


def lane_hi(mask: int) -> int:
    return cards(mask)[-1] if mask else -1


def select_bit(mask: int, k: int) -> int:
    return cards(mask)[k]


def suit_of(card: int) -> int:
    return SPADES if card >= 52 else card // 13


def rank_of(card: int) -> int:
    """2..A are ranks 0..12; the Little and Big Joker 13 and 14."""
    return card - 39 if card >= 52 else card % 13


def suit_mask(suit: int) -> int:
    return sum(1 << c for c in range(56) if suit_of(c) == suit)


def void_mask(bits: int) -> int:
    return sum(suit_mask(s) for s in range(4) if bits >> s & 1)


def deck_mask(jokers: int) -> int:
    """52 cards: the standard deck, or with jokers (1) the deck where the jokers replace
    the 2D and 2H, or with the deuces high (2) the one without 2C and 2H where the 2S, 2D,
    LJ and BJ are ids 52..55 and ids 13 and 39 stay empty."""
    deck = set(range(52))
    if jokers == 2:
        deck = (deck - {0, 13, 26, 39}) | {52, 53, 54, 55}
    elif jokers:
        deck = (deck - {13, 26}) | {52, 53}
    return sum(1 << c for c in deck)


def holding(hand: int, suit: int) -> int:
    """The ranks held in ``suit``, bit r for rank r."""
    return sum(1 << rank_of(c) for c in cards(hand) if c < 56 and suit_of(c) == suit)


def above(card: int) -> int:
    """Every card id (0..63) above ``card``."""
    return sum(1 << c for c in range(card + 1, 64))


def below(card: int) -> int:
    return sum(1 << c for c in range(card))


def fold(mask: int) -> int:
    """The ranks present in any suit."""
    return sum(1 << r for r in {rank_of(c) for c in cards(mask) if c < 56})


def low_rank_card(mask: int) -> int:
    """The card of lowest rank, clubs first among equal ranks."""
    return min(cards(mask), key=lambda c: (rank_of(c), suit_of(c)))


def high_rank_card(mask: int) -> int:
    """The card of highest rank, spades first among equal ranks."""
    return max(cards(mask), key=lambda c: (rank_of(c), suit_of(c)))


# --- Random streams: SplitMix64 ---------------------------------------------------------

GOLDEN = 0x9E3779B97F4A7C15


def mix64(z: int) -> int:
    """SplitMix64's finaliser (Steele, Lea & Flood 2014), modulo 2**64."""
    z &= M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def stream_key(seed: int, kind: int, a: int, b: int) -> int:
    k = mix64(seed ^ 0x5BADE500000000)
    k = mix64(k + kind * GOLDEN)
    k = mix64(k + a * GOLDEN)
    return mix64(k + b * GOLDEN + 1)


def draw(key: int, counter: int) -> int:
    return mix64(key + counter * GOLDEN)


def below_n(bits32: int, n: int) -> int:
    """Lemire's multiply-shift: an integer in 0..n-1 from 32 random bits."""
    return (bits32 * n) >> 32


def unit(bits: int) -> float:
    """A float in [0, 1) from the top 53 of 64 bits."""
    return (bits >> 11) / 2.0**53


# --- Play -------------------------------------------------------------------------------


def legal_cards(
    hand: int,
    led_suit: int,
    broken: bool,
    trick_no: int,
    two_clubs: bool,
    spades_any_time: bool,
    must_trump: bool = False,
    must_overtrump: bool = False,
    win_card: int = -1,
) -> int:
    """The cards of ``hand`` that may be played (docs/rules.md "Play").

    Following: the suit led if the hand has any, else anything (with ``must_trump`` a
    spade if the hand has one); with ``must_overtrump`` and a spade winning the trick
    (``win_card``), a spade above it if the hand has one among those. Leading the first trick:
    the 2C when the rules say so and the hand holds it, else no spade unless the hand has
    nothing else. Leading later: anything once spades are broken (or when spades may be
    led any time), else no spade unless the hand has nothing else.
    """
    held = cards(hand)
    if led_suit >= 0:
        follow = [c for c in held if suit_of(c) == led_suit]
        spades = [c for c in held if suit_of(c) == SPADES]
        allowed = follow or (spades if must_trump and spades else held)
        if must_overtrump and suit_of(win_card) == SPADES:
            over = [c for c in allowed if suit_of(c) == SPADES and c > win_card]
            allowed = over or allowed
        return sum(1 << c for c in allowed)
    if trick_no == 0 and two_clubs and 0 in held:
        return 1
    if trick_no > 0 and (broken or spades_any_time):
        return hand
    side = [c for c in held if suit_of(c) != SPADES]
    return sum(1 << c for c in (side or held))


def trick_winner(trick: list[tuple[int, int]]) -> int:
    """The seat that wins a trick of ``(seat, card)`` in play order: the highest spade
    (jokers the highest of all), else the highest card of the suit led."""
    led = suit_of(trick[0][1])
    spades = [(card, seat) for seat, card in trick if suit_of(card) == SPADES]
    if spades:
        return max(spades)[1]
    return max((card, seat) for seat, card in trick if suit_of(card) == led)[1]
