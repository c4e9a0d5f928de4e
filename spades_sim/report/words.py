"""Sentences from numbers: every claim a report makes in words comes from here.

Contract
--------
Each function takes estimates (:class:`~spades_sim.analysis.stats.Estimate`: value,
95% interval, ``n``) or plain numbers and returns one sentence or phrase in plain
English. Nothing is written by hand elsewhere: a report's text changes when its numbers
do. The functions are pure (no I/O, no matplotlib) and each is tested on a known table.

Conventions: a proportion is said as a frequency a player can picture when the numbers
allow it (``how_often``: "9 times in 10", "once in 25") and otherwise as a percentage;
every sentence that states an estimate gives its 95% interval and ``n`` in brackets;
a difference is called real only when its interval excludes zero (or the even split).

One module, on purpose (about 770 lines of small pure functions, grouped as the report
is: numbers, hands, bids, bags, games, comparisons): it is the report's whole vocabulary,
so the conventions above hold because every sentence is written here, and a reader
checking what a report can claim reads one file.

>>> from spades_sim.analysis.stats import Estimate
>>> how_often(Estimate(0.9, 0.88, 0.92, 1000))
'9 times in 10'
>>> shape_phrase({"high_spades": 0, "shortest_suit": 0})
'no spade above the jack and a void'
"""

from __future__ import annotations

import itertools
import math
import textwrap
from collections.abc import Mapping, Sequence

from spades_sim.analysis.stats import Estimate

NUMBER_WORDS = (
    "no",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
)
SIMPLE_DENOMINATORS = (2, 3, 4, 5, 10, 20)
TOLERANCE = 0.01  # a simple fraction within a point of the estimate is "about" it


# --------------------------------------------------------------------------------------
# Numbers
# --------------------------------------------------------------------------------------


def wrap(sentence: str, width: int = 88) -> str:
    """A long sentence broken into lines of at most ``width`` characters (for a terminal).

    >>> print(wrap("one two three", 8))
    one two
    three
    """
    return textwrap.fill(sentence, width)


def count(n: float) -> str:
    """A count with thousands separators.

    >>> count(1234567)
    '1,234,567'
    """
    return f"{round(n):,}"


def pct(x: float, digits: int = 1) -> str:
    """A proportion as a percentage.

    >>> pct(0.8734), pct(0.5, 0)
    ('87.3%', '50%')
    """
    return f"{100 * x:.{digits}f}%"


def number(x: float, digits: int | None = None) -> str:
    """A mean: two decimals below 10, one below 100, none above (or ``digits``).

    >>> number(1.7432), number(52.37), number(-140.2)
    ('1.74', '52.4', '-140')
    """
    if digits is None:
        digits = 2 if abs(x) < 10 else 1 if abs(x) < 100 else 0
    return f"{x:.{digits}f}"


def signed(x: float, digits: int | None = None) -> str:
    """A difference with its sign.

    >>> signed(3.14159), signed(-0.5)
    ('+3.14', '-0.50')
    """
    text = number(x, digits)
    return text if text.startswith("-") else "+" + text


def _digits_for(e: Estimate, percent: bool) -> int:
    """Decimals for an estimate and its interval: as :func:`number` would give (one for a
    percentage), more when the interval is too narrow to show otherwise."""
    width = (e.high - e.low) * (100 if percent else 1)
    size = max(abs(e.low), abs(e.high)) if math.isfinite(e.high - e.low) else abs(e.value)
    base = 1 if percent else 2 if size < 10 else 1 if size < 100 else 0
    if not math.isfinite(width) or width <= 0:
        return base
    return max(base, min(4, -math.floor(math.log10(width))))


def interval(e: Estimate, percent: bool = False) -> str:
    """``95% CI low–high, n = N``: the bracket every stated estimate carries.

    >>> interval(Estimate(0.873, 0.869, 0.877, 12345), percent=True)
    '95% CI 86.9–87.7%, n = 12,345'
    >>> interval(Estimate(1.74, 1.70, 1.78, 500))
    '95% CI 1.70–1.78, n = 500'
    """
    if not (math.isfinite(e.low) and math.isfinite(e.high)):
        return f"n = {count(e.n)}, too few for an interval"
    digits = _digits_for(e, percent)
    if percent:
        return f"95% CI {100 * e.low:.{digits}f}–{100 * e.high:.{digits}f}%, n = {count(e.n)}"
    return f"95% CI {e.low:.{digits}f}–{e.high:.{digits}f}, n = {count(e.n)}"


def stated(e: Estimate, percent: bool = False, sign: bool = False) -> str:
    """An estimate with its bracket: ``87.3% (95% CI 86.9–87.7%, n = 12,345)``.

    >>> stated(Estimate(-12.31, -14.0, -10.6, 4000), sign=True)
    '-12.3 (95% CI -14.0–-10.6, n = 4,000)'
    """
    return f"{value_text(e, percent, sign)} ({interval(e, percent)})"


def bracketed(e: Estimate, percent: bool = False, sign: bool = False) -> str:
    """A table cell: the value and its 95% interval, as many decimals as the interval needs.

    >>> bracketed(Estimate(107.0, 106.5, 107.4, 300000), sign=True)
    '+107.0 (106.5–107.4)'
    >>> bracketed(Estimate(0.873, 0.869, 0.877, 9000), percent=True)
    '87.3% (86.9–87.7)'
    """
    value = value_text(e, percent, sign)
    if not (math.isfinite(e.low) and math.isfinite(e.high)):
        return value
    digits = _digits_for(e, percent)
    scale = 100 if percent else 1
    return f"{value} ({scale * e.low:.{digits}f}–{scale * e.high:.{digits}f})"


def value_text(e: Estimate, percent: bool = False, sign: bool = False) -> str:
    """An estimate's value with as many decimals as its interval shows.

    >>> value_text(Estimate(12.85, 12.80, 12.90, 40000))
    '12.85'
    >>> value_text(Estimate(0.5, 0.4, 0.6, 90), percent=True)
    '50.0%'
    """
    digits = _digits_for(e, percent) if math.isfinite(e.high - e.low) else None
    if percent:
        return f"{100 * e.value:.{digits or 1}f}%"
    return signed(e.value, digits) if sign else number(e.value, digits)


def in_words(k: int) -> str:
    """Small whole numbers in words (``no`` for zero), larger ones in digits.

    >>> in_words(0), in_words(3), in_words(14)
    ('no', 'three', '14')
    """
    return NUMBER_WORDS[k] if 0 <= k < len(NUMBER_WORDS) else str(k)


def how_often(e: Estimate) -> str:
    """A proportion as a frequency: ``9 times in 10``, ``once in 25``, ``every time``,
    or a percentage ``87% of the time`` when no simple fraction fits.

    A fraction fits when it lies in the 95% interval (said plainly) or within one
    percentage point of the estimate (said with ``about``).

    >>> how_often(Estimate(0.34, 0.30, 0.38, 500))
    'once in 3'
    >>> how_often(Estimate(0.043, 0.0425, 0.0435, 10**6))
    'once in 23'
    >>> how_often(Estimate(0.905, 0.9035, 0.9065, 10**5))
    'about 9 times in 10'
    >>> how_often(Estimate(0.873, 0.869, 0.877, 12345))
    '87% of the time'
    >>> how_often(Estimate(1.0, 0.98, 1.0, 200))
    'every time'
    """
    p = e.value
    if p <= 0:
        return "never"
    if p >= 1:
        return "every time"

    candidates = [(round(p * m), m) for m in SIMPLE_DENOMINATORS]
    if p < 0.1:
        candidates.append((1, round(1 / p)))  # rare events: once in m
    candidates = [(k, m) for k, m in candidates if 1 <= k < m and math.gcd(k, m) == 1]

    def said(k: int, m: int) -> str:
        return f"{'once' if k == 1 else f'{k} times'} in {m}"

    for k, m in candidates:  # a fraction inside the interval is said plainly
        if e.low <= k / m <= e.high:
            return said(k, m)
    for k, m in candidates:
        if abs(k / m - p) <= TOLERANCE:
            return "about " + said(k, m)
    return f"{100 * p:.0f}% of the time"


# --------------------------------------------------------------------------------------
# Hands
# --------------------------------------------------------------------------------------

_CARD_WORD = {1: "singleton", 2: "doubleton"}


def shape_phrase(shape: Mapping[str, int]) -> str:
    """A hand shape (values of ``spades``, ``high_spades``, ``shortest_suit``, ``aces``,
    ``kings``, ``voids``) as a noun phrase (a spade is high from the queen up).

    >>> shape_phrase({"spades": 2, "high_spades": 0, "shortest_suit": 1, "aces": 0})
    'two spades, none above the jack, a singleton and no aces'
    >>> shape_phrase({"spades": 1})
    'one spade'
    >>> shape_phrase({"spades": 0, "high_spades": 0, "shortest_suit": 0})
    'no spades'
    >>> shape_phrase({"high_spades": 2, "shortest_suit": 3})
    'two spades from the queen up and no suit shorter than three cards'
    """
    parts: list[str] = []
    spades = shape.get("spades")
    high = shape.get("high_spades")
    if spades is not None:
        s = int(spades)
        parts.append("no spades" if s == 0 else f"{in_words(s)} spade{'' if s == 1 else 's'}")
    if high is not None and not (spades is not None and int(spades) == 0):
        h = int(high)
        if spades is not None:
            if h == 0:
                parts[-1] += ", none above the jack"
            elif h == int(spades):
                parts[-1] += ", all of them queen or higher"
            else:
                parts[-1] += f", {in_words(h)} of them queen or higher"
        elif h == 0:
            parts.append("no spade above the jack")
        else:
            parts.append(f"{in_words(h)} spade{'' if h == 1 else 's'} from the queen up")
    shortest = shape.get("shortest_suit")
    spade_void = spades is not None and int(spades) == 0  # "no spades" already says void
    if shortest is not None and not (int(shortest) == 0 and spade_void):
        k = int(shortest)
        if k == 0:
            parts.append("a void")
        elif k in _CARD_WORD:
            parts.append(f"a {_CARD_WORD[k]}")
        else:
            parts.append(f"no suit shorter than {in_words(k)} cards")
    for key, word in (("aces", "ace"), ("kings", "king")):
        if shape.get(key) is not None:
            k = int(shape[key])
            parts.append(f"{in_words(k)} {word}{'' if k == 1 else 's'}")
    if shape.get("voids") is not None:
        k = int(shape["voids"])
        parts.append(f"{in_words(k)} void{'' if k == 1 else 's'}")
    return join(parts)


def join(parts: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``.

    >>> join(["x"]), join(["x", "y"]), join(["x", "y", "z"])
    ('x', 'x and y', 'x, y and z')
    """
    parts = list(parts)
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def nil_shape_sentence(
    shape: Mapping[str, int], success: Estimate, policies: str | None = None, blind: bool = False
) -> str:
    """What one hand shape does as a nil bid.

    >>> e = Estimate(0.9, 0.885, 0.914, 2000)
    >>> shape = {"high_spades": 0, "shortest_suit": 0}
    >>> print(wrap(nil_shape_sentence(shape, e, "count/heuristic")))
    A hand with no spade above the jack and a void makes nil 9 times in 10 under
    count/heuristic (95% CI 88.5–91.4%, n = 2,000 nil bids).
    """
    kind = "blind nil" if blind else "nil"
    where = f" under {policies}" if policies else ""
    bracket = interval(success, percent=True).replace(
        f"n = {count(success.n)}", f"n = {count(success.n)} {kind} bids"
    )
    return (
        f"A hand with {shape_phrase(shape)} makes {kind} {how_often(success)}{where} ({bracket})."
    )


def one_in(share: float) -> str:
    """How common something is, as ``1 hand in N`` (or a percentage when common).

    >>> one_in(0.083), one_in(0.0004), one_in(0.4)
    ('1 hand in 12', '1 hand in 2,500', '40% of hands')
    """
    if share <= 0:
        return "no hand"
    if share >= 0.2:
        return f"{100 * share:.0f}% of hands"
    return f"1 hand in {count(1 / share)}"


def nil_gain_sentence(
    shape: Mapping[str, int], success: Estimate, gain: Estimate, share: float
) -> str:
    """What bidding nil instead of a number does for one hand shape: how often the nil is
    made and the side's points gained (or lost) per hand, on the same deals.

    >>> shape = {"spades": 1, "high_spades": 0, "shortest_suit": 0, "aces": 0}
    >>> print(wrap(nil_gain_sentence(shape, Estimate(0.9, 0.89, 0.91, 40000),
    ...                              Estimate(61.3, 60.1, 62.5, 40000), 0.004)))
    A hand with one spade, none above the jack, a void and no aces (1 hand in 250) makes nil
    9 times in 10 and gains 61.3 points a hand over a number bid (95% CI 60.1–62.5, n =
    40,000 deals).
    """
    verb = "gains" if gain.value >= 0 else "loses"
    return (
        f"A hand with {shape_phrase(shape)} ({one_in(share)}) makes nil {how_often(success)} "
        f"and {verb} {number(abs(gain.value))} points a hand over a number bid "
        f"({interval(gain)} deals)."
    )


def feature_value(feature: str, value: int) -> str:
    """One value of one hand feature as a phrase (for trends).

    >>> feature_value("spades", 0), feature_value("high_spades", 2)
    ('no spades', 'two spades from the queen up')
    """
    return shape_phrase({feature: value})


def trend_sentence(
    subject: str, feature: str, rows: Sequence[tuple[int, Estimate]], min_n: int = 30
) -> str:
    """How a rate moves along a hand feature, from its first to its last well-sampled
    value (``n >= min_n``), and whether the move is real (intervals apart).

    >>> rows = [(0, Estimate(0.91, 0.9, 0.92, 900)), (1, Estimate(0.8, 0.78, 0.82, 800)),
    ...         (5, Estimate(0.12, 0.09, 0.15, 300)), (6, Estimate(0.0, 0.0, 0.9, 2))]
    >>> print(wrap(trend_sentence("Nil success", "spades", rows)))
    Nil success falls from 91.0% with no spades to 12.0% with five spades (95% CIs
    90.0–92.0% and 9.0–15.0%).
    """
    usable = [(v, e) for v, e in rows if e.n >= min_n]
    if len(usable) < 2:
        return f"{subject}: too few cases to show a trend by {feature.replace('_', ' ')}."
    (v0, first), (v1, last) = usable[0], usable[-1]
    apart = first.low > last.high or last.low > first.high
    if not apart:
        return (
            f"{subject} goes from {value_text(first, True)} with {feature_value(feature, v0)} to "
            f"{value_text(last, True)} with {feature_value(feature, v1)}, but the two intervals "
            "overlap: these hands cannot tell them apart."
        )
    verb = "falls" if last.value < first.value else "rises"
    d0, d1 = _digits_for(first, True), _digits_for(last, True)
    return (
        f"{subject} {verb} from {value_text(first, True)} with {feature_value(feature, v0)} to "
        f"{value_text(last, True)} with {feature_value(feature, v1)} (95% CIs "
        f"{100 * first.low:.{d0}f}–{100 * first.high:.{d0}f}% and "
        f"{100 * last.low:.{d1}f}–{100 * last.high:.{d1}f}%)."
    )


def nil_rate_sentence(nil_rate: Estimate, success: Estimate, blind: bool = False) -> str:
    """How often seats bid nil and make it.

    >>> rate, made = Estimate(0.13, 0.12, 0.14, 8000), Estimate(0.7, 0.67, 0.73, 1040)
    >>> print(wrap(nil_rate_sentence(rate, made)))
    Seats bid nil in 13.0% of hands (95% CI 12.0–14.0%, n = 8,000 seats) and make it 7 times
    in 10 (70.0%, 95% CI 67.0–73.0%, n = 1,040 bids).
    """
    kind = "blind nil" if blind else "nil"
    d = _digits_for(success, True)
    return (
        f"Seats bid {kind} in {value_text(nil_rate, True)} of hands "
        f"({interval(nil_rate, True)} seats) and make it {how_often(success)} "
        f"({pct(success.value, d)}, {interval(success, True)} bids)."
    )


PUBLISHED_NIL_PER_SIDE = (0.03, 0.04)
"""Nil bids per side-hand at published bot tables: 3-4% of a side's hands (the figure
given for CardsWithCats' sampling bots over 1,000 games)."""

PUBLISHED_REALISM = {
    "nil_per_seat": "about 3.2% (a)",
    "nil_per_side": "3–4% (a)",
    "nil_made": "78.9% (a)",
    "nil_made_high_spade": "52.8%, 161 of 305 (a)",
    "nil_made_top_jack": "about 75% (b)",
    "nil_made_top_queen_up": "about 50% (b)",
}
"""Published figures beside the realism table's measures (sources in
:data:`PUBLISHED_SOURCES`)."""

PUBLISHED_SOURCES = (
    "(a) CardsWithCats' Monte Carlo bots over 1,000 games (its GitHub issue 21); "
    "(b) an expert's estimate, WorldOfCardGames' blog, \u201cBidding and defending nil\u201d "
    "(2017): with nothing above the jack of spades about a quarter of nils are set, with "
    "the queen about half."
)
"""Where :data:`PUBLISHED_REALISM`'s figures come from."""


def realism_sentences(
    nil_side: Estimate, blind: Estimate, clean: Estimate | None, high: Estimate | None
) -> list[str]:
    """The realism table in words: nil per side-hand against the published 3-4%, blind
    nil per seat, and whether a nil with a spade above the ten is made more often than a
    clean one (which points at weak defence rather than at the hands).

    >>> side, blind = Estimate(0.27, 0.26, 0.28, 4000), Estimate(0.018, 0.015, 0.021, 8000)
    >>> clean, high = Estimate(0.70, 0.69, 0.71, 9000), Estimate(0.81, 0.79, 0.83, 2000)
    >>> for s in realism_sentences(side, blind, clean, high): print(wrap(s))
    A side bids nil in 27.0% of its hands (95% CI 26.0–28.0%, n = 4,000 side-hands), about 8
    times the 3–4% published for bot tables.
    Seats bid blind nil in 1.8% of hands (95% CI 1.5–2.1%, n = 8,000 seats).
    A nil holding a spade above the ten is made more often (81.0%) than a clean one (70.0%):
    the intervals do not overlap, which says more about the defenders than the hands.
    """
    lo, hi = PUBLISHED_NIL_PER_SIDE
    ratio = nil_side.value / ((lo + hi) / 2)
    if nil_side.high < lo:
        compare = "below"
    elif nil_side.low > hi:
        compare = f"about {ratio:.0f} times" if ratio >= 2 else f"{ratio:.1f} times"
    else:
        compare = "within"
    said = [
        f"A side bids nil in {value_text(nil_side, True)} of its hands "
        f"({interval(nil_side, True)} side-hands), {compare} the "
        f"{100 * lo:.0f}–{100 * hi:.0f}% published for bot tables."
    ]
    said.append(
        f"Seats bid blind nil in {value_text(blind, True)} of hands ({interval(blind, True)} "
        "seats)."
    )
    if clean is not None and high is not None:
        if high.low > clean.high:
            said.append(
                f"A nil holding a spade above the ten is made more often "
                f"({value_text(high, True)}) than a clean one ({value_text(clean, True)}): the "
                "intervals do not overlap, which says more about the defenders than the hands."
            )
        elif high.high < clean.low:
            said.append(
                f"A nil holding a spade above the ten is made less often "
                f"({value_text(high, True)}) than a clean one ({value_text(clean, True)})."
            )
        else:
            said.append(
                f"Nils holding a spade above the ten ({value_text(high, True)}) and clean ones "
                f"({value_text(clean, True)}) are made about as often: the intervals overlap."
            )
    return said


# --------------------------------------------------------------------------------------
# Bids
# --------------------------------------------------------------------------------------


def contract_sentence(exact: Estimate, over: Estimate, set_: Estimate, mean: Estimate) -> str:
    """The distribution of side tricks minus contract, in a sentence.

    >>> exact, over = Estimate(0.2, 0.19, 0.21, 5000), Estimate(0.7, 0.69, 0.71, 5000)
    >>> set_, mean = Estimate(0.1, 0.09, 0.11, 5000), Estimate(1.3, 1.25, 1.35, 5000)
    >>> print(wrap(contract_sentence(exact, over, set_, mean)))
    A side makes its contract exactly 1 time in 5, with overtricks 7 times in 10 and is set
    once in 10; on average it takes 1.30 tricks more than it bid (95% CI 1.25–1.35, n =
    5,000 side-hands).
    """
    more = "more" if mean.value >= 0 else "fewer"
    low, high = sorted((abs(mean.low), abs(mean.high)))
    bracket = interval(Estimate(abs(mean.value), low, high, mean.n))
    return (
        f"A side makes its contract exactly {_once_as_one(how_often(exact))}, with overtricks "
        f"{how_often(over)} and is set {how_often(set_)}; on average it takes "
        f"{number(abs(mean.value))} tricks {more} than it bid ({bracket} side-hands)."
    )


def _once_as_one(text: str) -> str:
    # "exactly once in 5" reads as a count of one; "exactly 1 time in 5" does not
    return text.replace("once in", "1 time in") if text.startswith("once") else text


def level_sentence(level: int, set_: Estimate, exact: Estimate, over: Estimate) -> str:
    """Set / exact / over at one contract level.

    >>> set_, exact = Estimate(0.31, 0.28, 0.34, 900), Estimate(0.3, 0.27, 0.33, 900)
    >>> print(wrap(level_sentence(9, set_, exact, Estimate(0.39, 0.36, 0.42, 900))))
    A side contract of 9 is set 31.0% of the time (95% CI 28.0–34.0%, n = 900), made exactly
    30.0% and with overtricks 39.0%.
    """
    return (
        f"A side contract of {level} is set {value_text(set_, True)} of the time "
        f"({interval(set_, True)}), made exactly {pct(exact.value)} and with overtricks "
        f"{pct(over.value)}."
    )


def calibration_sentence(rows: Sequence[tuple[int, Estimate]], min_n: int = 100) -> str:
    """Tricks taken against the bid: the most common bid, then how many bids run high or
    low (their interval excludes the bid itself) and the furthest of each.

    >>> rows = [(2, Estimate(2.6, 2.55, 2.65, 3000)), (3, Estimate(3.1, 3.05, 3.15, 4000)),
    ...         (4, Estimate(4.02, 3.9, 4.1, 900)), (6, Estimate(5.4, 5.2, 5.6, 200))]
    >>> print(wrap(calibration_sentence(rows)))
    The most common bid, 3, takes 3.10 tricks (95% CI 3.05–3.15, n = 4,000). Of 4 bids with
    at least 100 cases, 2 take more tricks than they say (most: bids of 2, +0.60), 1 takes
    fewer (most: bids of 6, -0.60) and 1 is right within its interval.
    """
    usable = [(b, e) for b, e in rows if e.n >= min_n]
    if not usable:
        return "Too few number bids to compare tricks with bids."
    common_bid, common = max(usable, key=lambda r: r[1].n)
    text = (
        f"The most common bid, {common_bid}, takes {stated(common).replace(' (', ' tricks (', 1)}."
    )
    high = [(b, e) for b, e in usable if e.low > b]
    low = [(b, e) for b, e in usable if e.high < b]
    right = len(usable) - len(high) - len(low)
    if not high and not low:
        return (
            text
            + f" Every bid with at least {min_n} cases takes what it says, within its interval."
        )
    clauses = []
    if high:
        b, e = max(high, key=lambda r: r[1].value - r[0])
        verb = "takes" if len(high) == 1 else "take"
        most = f"most: bids of {b}, {signed(e.value - b)}"
        clauses.append(f"{len(high)} {verb} more tricks than they say ({most})")
    if low:
        b, e = max(low, key=lambda r: r[0] - r[1].value)
        verb = "takes" if len(low) == 1 else "take"
        clauses.append(f"{len(low)} {verb} fewer (most: bids of {b}, {signed(e.value - b)})")
    if right:
        clauses.append(f"{right} {'is' if right == 1 else 'are'} right within its interval")
    return text + f" Of {len(usable)} bids with at least {min_n} cases, " + join(clauses) + "."


# --------------------------------------------------------------------------------------
# Against the solver (double-dummy play)
# --------------------------------------------------------------------------------------


def complement(e: Estimate) -> Estimate:
    """One minus a proportion, its interval turned round (the failures of a success rate).

    >>> str(complement(Estimate(0.9, 0.85, 0.94, 200)))
    '0.100 [0.060, 0.150] (n=200)'
    """
    return Estimate(1 - e.value, 1 - e.high, 1 - e.low, e.n, e.level)


def dd_contract_sentence(exact: Estimate, over: Estimate, set_: Estimate, mean: Estimate) -> str:
    """Contracts against what the side's cards make under double-dummy play.

    >>> exact, over = Estimate(0.3, 0.27, 0.33, 900), Estimate(0.55, 0.52, 0.58, 900)
    >>> set_, mean = Estimate(0.15, 0.13, 0.17, 900), Estimate(0.62, 0.55, 0.69, 900)
    >>> print(wrap(dd_contract_sentence(exact, over, set_, mean)))
    Against its cards under double-dummy play, a side bids exactly what they make 3 times in
    10, less than they make 11 times in 20 and more 3 times in 20 (a contract perfect
    defence sets); on average its cards make 0.62 tricks more than it bid (95% CI 0.55–0.69,
    n = 900 side-hands without a nil).
    """
    more = "more" if mean.value >= 0 else "fewer"
    low, high = sorted((abs(mean.low), abs(mean.high)))
    bracket = interval(Estimate(abs(mean.value), low, high, mean.n))
    return (
        f"Against its cards under double-dummy play, a side bids exactly what they make "
        f"{how_often(exact)}, less than they make {how_often(over)} and more "
        f"{how_often(set_)} (a contract perfect defence sets); on average its cards make "
        f"{number(abs(mean.value))} tricks {more} than it bid ({bracket} side-hands without a "
        "nil)."
    )


def dd_level_sentence(level: int, set_: Estimate, exact: Estimate, over: Estimate) -> str:
    """Contracts of one level against the double-dummy tricks.

    >>> set_, exact = Estimate(0.21, 0.18, 0.24, 700), Estimate(0.33, 0.3, 0.37, 700)
    >>> print(wrap(dd_level_sentence(7, set_, exact, Estimate(0.46, 0.42, 0.5, 700))))
    A side contract of 7 bids more than double-dummy play makes 21.0% of the time (95% CI
    18.0–24.0%, n = 700), exactly what it makes 33.0% and less 46.0%.
    """
    return (
        f"A side contract of {level} bids more than double-dummy play makes "
        f"{value_text(set_, True)} of the time ({interval(set_, True)}), exactly what it makes "
        f"{pct(exact.value)} and less {pct(over.value)}."
    )


def dd_nil_sentences(
    safe: Estimate | None, unsafe: Estimate | None, bid_when_safe: Estimate | None
) -> list[str]:
    """Nil success split by the double-dummy verdict: ``safe`` and ``unsafe`` are the
    success rates of nils whose hand was safe or not, ``bid_when_safe`` the share of
    seats holding a safe nil that bid one.

    >>> safe, unsafe = Estimate(0.92, 0.9, 0.94, 800), Estimate(0.35, 0.3, 0.4, 300)
    >>> for s in dd_nil_sentences(safe, unsafe, Estimate(0.4, 0.38, 0.42, 2000)):
    ...     print(wrap(s))
    A nil that double-dummy defence cannot set still fails once in 13 under these policies
    (8.0%, 95% CI 6.0–10.0%, n = 800 nil bids): the nil bidder and its partner lose what
    perfect play keeps.
    A nil that double-dummy defence sets survives once in 3 (35.0%, 95% CI 30.0–40.0%, n =
    300 nil bids): the defence misses what perfect play takes.
    Seats holding a double-dummy safe nil bid nil 2 times in 5 (40.0%, 95% CI 38.0–42.0%, n
    = 2,000 seats).
    >>> print(wrap(dd_nil_sentences(Estimate(1.0, 0.68, 1.0, 8), None, None)[0]))
    A nil that double-dummy defence cannot set never fails under these policies (0.0%, 95%
    CI 0.0–32.0%, n = 8 nil bids).
    """
    said = []
    if safe is not None and safe.n > 0:
        fail = complement(safe)
        d = _digits_for(fail, True)
        often = how_often(fail)
        # "still fails never" does not read: a nil never lost is said as such
        fails, why = (
            ("never fails", ".")
            if often == "never"
            else (
                f"still fails {often}",
                ": the nil bidder and its partner lose what perfect play keeps.",
            )
        )
        said.append(
            f"A nil that double-dummy defence cannot set {fails} under these policies "
            f"({pct(fail.value, d)}, {interval(fail, True)} nil bids){why}"
        )
    else:
        said.append("No nil was bid on a hand whose nil double-dummy defence cannot set.")
    if unsafe is not None and unsafe.n > 0:
        d = _digits_for(unsafe, True)
        said.append(
            f"A nil that double-dummy defence sets survives {how_often(unsafe)} "
            f"({pct(unsafe.value, d)}, {interval(unsafe, True)} nil bids): the defence misses "
            "what perfect play takes."
        )
    else:
        said.append("No nil was bid on a hand whose nil double-dummy defence sets.")
    if bid_when_safe is not None and bid_when_safe.n > 0:
        d = _digits_for(bid_when_safe, True)
        said.append(
            f"Seats holding a double-dummy safe nil bid nil {how_often(bid_when_safe)} "
            f"({pct(bid_when_safe.value, d)}, {interval(bid_when_safe, True)} seats)."
        )
    return said


# --------------------------------------------------------------------------------------
# Bags
# --------------------------------------------------------------------------------------


def bags_hand_sentence(bags: Estimate, who: str = "A side") -> str:
    """Bags per hand.

    >>> bags_hand_sentence(Estimate(1.74, 1.70, 1.78, 8000))
    'A side takes 1.74 bags a hand (95% CI 1.70–1.78, n = 8,000 side-hands).'
    """
    return f"{who} takes {value_text(bags)} bags a hand ({interval(bags)} side-hands)."


def bags_game_sentence(
    bags: Estimate,
    penalized: Estimate,
    first_hand: Estimate | None,
    points_lost: Estimate,
    decided: Estimate | None,
    who: str = "a side",
    decided_of: str = "finished games",
) -> str:
    """Bags over whole games: how many, how often and how soon the penalty strikes, what
    it costs and how many games it decides.

    >>> bags, penalized = Estimate(14.0, 13.3, 14.6, 400), Estimate(0.7, 0.66, 0.75, 400)
    >>> first, lost = Estimate(6.0, 5.8, 6.1, 282), Estimate(90.2, 83.0, 97.4, 400)
    >>> decided = Estimate(0.045, 0.024, 0.083, 200)
    >>> print(wrap(bags_game_sentence(bags, penalized, first, lost, decided)))
    Over a game a side takes 14.0 bags (95% CI 13.3–14.6, n = 400 side-games) and is
    penalized in 70.0% of games (95% CI 66.0–75.0%, n = 400), the first time on hand 6.00 on
    average (95% CI 5.80–6.10, n = 282); bags cost it 90.2 points a game (95% CI 83.0–97.4,
    n = 400) and decided 4.5% of finished games (95% CI 2.4–8.3%, n = 200).
    """
    text = (
        f"Over a game {who} takes {value_text(bags)} bags ({interval(bags)} side-games) "
        f"and is penalized in {value_text(penalized, True)} of games ({interval(penalized, True)})"
    )
    if first_hand is not None and first_hand.n > 0 and penalized.value > 0:
        text += f", the first time on hand {stated(first_hand).replace(' (', ' on average (', 1)}"
    text += f"; bags cost it {value_text(points_lost)} points a game ({interval(points_lost)})"
    if decided is not None and decided.n > 0:
        text += (
            f" and decided {value_text(decided, True)} of {decided_of} ({interval(decided, True)})"
        )
    return text + "."


# --------------------------------------------------------------------------------------
# Games
# --------------------------------------------------------------------------------------


def quantile_sentence(half: int, most: int, what: str = "games") -> str:
    """By which hand half and nine in ten of the games are over.

    >>> quantile_sentence(8, 12)
    'Half the games are over by hand 8 and nine in ten by hand 12.'
    """
    return f"Half the {what} are over by hand {half} and nine in ten by hand {most}."


def games_sentence(
    wins: Mapping[str, Estimate], length: Estimate, endings: Mapping[str, Estimate]
) -> str:
    """Who wins, how long games last and how they end.

    >>> e = lambda p: Estimate(p, p - 0.02, p + 0.02, 1000)
    >>> print(wrap(games_sentence({"N-S": e(0.52), "E-W": e(0.47)}, Estimate(9.1, 8.9, 9.3, 1000),
    ...       {"the target": e(0.99), "the loss threshold": e(0.0), "unfinished": e(0.01)})))
    N-S won 52.0% of 1,000 games (95% CI 50.0–54.0%) and E-W 47.0% (95% CI 45.0–49.0%); a
    game lasts 9.10 hands on average (95% CI 8.90–9.30); 99.0% of games ended at the target
    and 1.0% unfinished.
    """
    names = list(wins)
    first = wins[names[0]]
    parts = [f"{names[0]} won {value_text(first, True)} of {count(first.n)} games ({_ci(first)})"]
    parts += [f"{name} {value_text(e, True)} ({_ci(e)})" for name, e in list(wins.items())[1:]]
    text = " and ".join([parts[0], join(parts[1:])]) if len(parts) > 1 else parts[0]
    text += f"; a game lasts {value_text(length)} hands on average ({_ci(length, False)})"
    ended = [
        f"{pct(e.value)} {'unfinished' if k == 'unfinished' else f'ended at {k}'}"
        for k, e in endings.items()
        if e.value > 0
    ]
    if ended:
        ended[0] = ended[0].replace("% ", "% of games ", 1)
        text += "; " + join(ended)
    return text + "."


def _ci(e: Estimate, percent: bool = True) -> str:
    return interval(e, percent).split(", n =")[0]


# --------------------------------------------------------------------------------------
# Comparisons
# --------------------------------------------------------------------------------------


def is_real(e: Estimate, null: float = 0.0) -> bool:
    """Whether the interval excludes ``null``.

    >>> is_real(Estimate(0.1, 0.02, 0.18, 10)), is_real(Estimate(0.1, -0.02, 0.22, 10))
    (True, False)
    """
    return e.low > null or e.high < null


def margin_sentence(
    a: str, b: str, margin: Estimate, unit: str = "hand", cases: str = "deals"
) -> str:
    """A's paired score margin over B (``cases``: what ``n`` counts).

    >>> print(wrap(margin_sentence("heuristic", "random", Estimate(41.2, 39.8, 42.6, 5000))))
    heuristic scores 41.2 points a hand more than random on the same deals (95% CI
    39.8–42.6, n = 5,000 deals): a real difference.
    >>> print(wrap(margin_sentence("a", "b", Estimate(-0.4, -1.1, 0.3, 5000), cases="hands")))
    a scores 0.40 points a hand less than b on the same deals (95% CI -1.10–0.30, n = 5,000
    hands): too close to call.
    """
    more = "more" if margin.value >= 0 else "less"
    verdict = "a real difference" if is_real(margin) else "too close to call"
    return (
        f"{a} scores {number(abs(margin.value))} points a {unit} {more} than {b} on the same "
        f"deals ({interval(margin)} {cases}): {verdict}."
    )


def win_sentence(a: str, b: str, wins: Estimate, cases: str = "games") -> str:
    """A's win rate against B in duplicate games (real when the interval excludes 50%;
    ``cases``: what ``n`` counts).

    >>> print(wrap(win_sentence("count", "random", Estimate(0.93, 0.92, 0.94, 4000))))
    count wins 93.0% of its games against random (95% CI 92.0–94.0%, n = 4,000 games):
    clearly the stronger.
    """
    if wins.low > 0.5:
        verdict = "clearly the stronger"
    elif wins.high < 0.5:
        verdict = "clearly the weaker"
    else:
        verdict = "the two cannot be told apart"
    return (
        f"{a} wins {value_text(wins, True)} of its games against {b} "
        f"({interval(wins, True)} {cases}): {verdict}."
    )


def narrowing_sentence(
    paired: Estimate, unpaired: Estimate, what: str = "deals", percent: bool = False
) -> str:
    """How much pairing the two seatings narrowed the interval (``percent``: of a rate).

    >>> paired, unpaired = Estimate(5.0, 4.0, 6.0, 1000), Estimate(5.0, 1.0, 9.0, 1000)
    >>> print(wrap(narrowing_sentence(paired, unpaired)))
    Pairing the two seatings of each deal narrowed the 95% interval from ±4.00 to ±1.00 (4.0
    times narrower): as informative as 16 times as many unpaired deals.
    >>> paired, unpaired = Estimate(0.6, 0.58, 0.62, 500), Estimate(0.6, 0.579, 0.621, 1000)
    >>> print(wrap(narrowing_sentence(paired, unpaired, "games", percent=True)))
    Pairing the two seatings of each game left the 95% interval about as wide (±2.0
    percentage points against ±2.1 unpaired).
    >>> paired = Estimate(0.5, 0.4984, 0.5016, 10**5)
    >>> unpaired = Estimate(0.5, 0.4978, 0.5022, 10**5)
    >>> print(wrap(narrowing_sentence(paired, unpaired, "games", percent=True)))
    Pairing the two seatings of each game narrowed the 95% interval from ±0.22 to ±0.16
    percentage points (1.4 times narrower): as informative as 1.9 times as many unpaired
    games.
    """
    one = what[:-1]
    if paired.half_width <= 0 or unpaired.half_width <= 0:
        return f"Pairing the two seatings of each {one} left no spread to compare."
    scale = 100 if percent else 1
    smaller = scale * min(paired.half_width, unpaired.half_width)
    # two significant digits of the narrower interval, so the two never read alike
    digits = min(4, max(1 if percent else 2, 1 - math.floor(math.log10(smaller))))

    def size(e: Estimate) -> str:
        return f"{scale * e.half_width:.{digits}f}"

    unit = " percentage points" if percent else ""

    ratio = unpaired.half_width / paired.half_width
    if 0.9 <= ratio <= 1.1:
        return (
            f"Pairing the two seatings of each {one} left the 95% interval about as wide "
            f"(±{size(paired)}{unit} against ±{size(unpaired)} unpaired)."
        )
    if ratio < 1:
        return (
            f"Pairing the two seatings of each {one} widened the 95% interval from "
            f"±{size(unpaired)} to ±{size(paired)}{unit}: the two seatings move together."
        )
    return (
        f"Pairing the two seatings of each {one} narrowed the 95% interval from "
        f"±{size(unpaired)} to ±{size(paired)}{unit} ({ratio:.1f} times narrower): as "
        f"informative as {ratio * ratio:.{1 if ratio * ratio < 10 else 0}f} times as many "
        f"unpaired {what}."
    )


def split_sentence(a: str, b: str, outcomes: tuple[int, int, int]) -> str:
    """How the two seatings of each game ended: the deals decided the games that split.

    >>> print(wrap(split_sentence("count", "random", (700, 250, 50))))
    Of 1,000 deals played both ways, count won both seatings of 700 (70.0%), random both of
    50 (5.0%), and 250 (25.0%) went to whoever held the cards.
    """
    both_a, split, both_b = outcomes
    total = both_a + split + both_b
    if total == 0:
        return "No game was played both ways."
    return (
        f"Of {count(total)} deals played both ways, {a} won both seatings of {count(both_a)} "
        f"({pct(both_a / total)}), {b} both of {count(both_b)} ({pct(both_b / total)}), and "
        f"{count(split)} ({pct(split / total)}) went to whoever held the cards."
    )


def ladder_top_sentence(top: str, margins: Sequence[tuple[str, Estimate]]) -> str:
    """Where the top rung of a ladder stands against each other rung (``margins``: its
    points a hand against each), real wins told from matches too close to call.

    >>> print(wrap(ladder_top_sentence("pimc", [("random", Estimate(88, 78, 98, 100)),
    ...     ("lookahead", Estimate(2.1, -7.6, 11.7, 100))])))
    pimc tops the ladder: it beats random by 88.0 points a hand (95% CI 78.0–98.0, n = 100
    deals) and is too close to call against lookahead, +2.10 (95% CI -7.6–11.7, n = 100
    deals).
    """

    def said(e: Estimate, by: bool) -> str:
        if by:
            return f"{number(abs(e.value))} points a hand ({interval(e)} deals)"
        return f"{signed(e.value)} ({interval(e)} deals)"

    beaten = [f"{name} by {said(e, True)}" for name, e in margins if is_real(e) and e.value > 0]
    close = [f"{name}, {said(e, False)}" for name, e in margins if not is_real(e)]
    lost = [f"{name} by {said(e, True)}" for name, e in margins if is_real(e) and e.value < 0]
    parts = []
    if beaten:
        parts.append("beats " + join(beaten))
    if close:
        parts.append("is too close to call against " + join(close))
    if lost:
        parts.append("loses to " + join(lost))
    return f"{top} tops the ladder: it {join(parts)}."


def ranking_sentence(order: Sequence[str], ties: Sequence[tuple[str, str]]) -> str:
    """A ranking in words: ``>`` between neighbours told apart, ``≈`` between neighbours
    whose difference is not real (``ties``, unordered pairs).

    >>> ranking_sentence(["count", "pagat", "random"], [("pagat", "count")])
    'Ranking: count ≈ pagat > random (≈: the difference is not real at 95%).'
    >>> ranking_sentence(["a", "b"], [])
    'Ranking: a > b (every neighbour told apart at 95%).'
    """
    tie = {frozenset(t) for t in ties}
    text = order[0]
    for left, right in itertools.pairwise(order):
        text += f" {'≈' if frozenset((left, right)) in tie else '>'} {right}"
    note = (
        "≈: the difference is not real at 95%"
        if any(frozenset(p) in tie for p in itertools.pairwise(order))
        else "every neighbour told apart at 95%"
    )
    return f"Ranking: {text} ({note})."


__all__ = [
    "PUBLISHED_NIL_PER_SIDE",
    "PUBLISHED_REALISM",
    "PUBLISHED_SOURCES",
    "bags_game_sentence",
    "bags_hand_sentence",
    "bracketed",
    "calibration_sentence",
    "contract_sentence",
    "count",
    "feature_value",
    "games_sentence",
    "how_often",
    "in_words",
    "interval",
    "is_real",
    "join",
    "ladder_top_sentence",
    "level_sentence",
    "margin_sentence",
    "narrowing_sentence",
    "nil_gain_sentence",
    "nil_rate_sentence",
    "nil_shape_sentence",
    "number",
    "one_in",
    "pct",
    "quantile_sentence",
    "ranking_sentence",
    "realism_sentences",
    "shape_phrase",
    "signed",
    "split_sentence",
    "stated",
    "trend_sentence",
    "value_text",
    "win_sentence",
    "wrap",
]
