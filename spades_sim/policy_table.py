"""The table of built-in policies: every fact about each, declared once.

Contract. :data:`BUILTINS` holds, for each built-in policy, a :class:`PolicySpec`: its
kind, name and kernel id (``params[0]``; append only), its parameters in the kernel's
slot order (:class:`ParamSpec`: name, default, range, help, and which values it takes:
any number, a count, a switch or an enumerated setting), its capabilities (sampling,
lock-step lanes, needs the solver, two-sided, readable by the bid-reading samplers,
usable in the environments), its summary and its source. This module imports nothing of
the package: everything else is derived from it (the kernels' ids and parameter slots,
default rows, switch bits and slot count in ``_nb/enums.py``; the registry and
``docs/policies.md`` in ``policies.py``; the capability lists of ``custom/kernels.py``,
``run/``, ``env/`` and ``_nb/lockstep_bidding.py``, through :func:`names_with`).

>>> names_with("bid", "lanes")
('count', 'random', 'pagat', 'partner-aware')
>>> spec_of("play", "heuristic").params[1].name
'set_push'
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

Kind = Literal["bid", "play", "draw"]

Capability = Literal["sampling", "lanes", "needs_solver", "two_sided", "readable", "env"]


ParamValues = Literal["any", "whole", "switch", "choice"]
"""What values a parameter takes inside its range: any number, whole numbers (a count),
0 or 1 (a switch), or the whole numbers of an enumerated setting (each its own meaning)."""


@dataclass(frozen=True)
class ParamSpec:
    """One numeric parameter of a policy: its default, allowed range, meaning and which
    values in the range it takes (:meth:`check` says whether a value is one)."""

    name: str
    default: float
    low: float
    high: float
    help: str
    values: ParamValues = "any"

    def check(self, number: float) -> str | None:
        """Why ``number`` is not a value of this parameter, or None if it is one.

        >>> ParamSpec("read_bids", 1.0, 0.0, 1.0, "", "switch").check(0.5)
        'read_bids=0.5 is a switch: 0 or 1'
        """
        if not self.low <= number <= self.high:
            return f"{self.name}={number:g} is outside {self.low:g}..{self.high:g}"
        if self.values == "any" or number == int(number):
            return None
        return f"{self.name}={number:g} {self.takes()}"

    @property
    def whole(self) -> bool:
        """Whether only whole numbers are values (a count, a switch or a choice)."""
        return self.values != "any"

    def takes(self) -> str:
        """The values taken, in words (``is a switch: 0 or 1``)."""
        if self.values == "switch":
            return "is a switch: 0 or 1"
        if self.values == "choice":
            return "is one of " + ", ".join(f"{v}" for v in self.choices())
        return f"is a whole number, {self.low:g}..{self.high:g}"

    def range_text(self, dots: str = "..") -> str:
        """The values taken, for a listing: ``0..1`` (any number), ``0, 1`` (a switch),
        ``0, 1, 2`` (a choice) or ``1..1024 whole`` (a count)."""
        if self.values in ("switch", "choice"):
            return ", ".join(str(v) for v in self.choices())
        whole = " whole" if self.values == "whole" else ""
        return f"{self.low:g}{dots}{self.high:g}{whole}"

    def choices(self) -> list[int]:
        """The whole numbers in the range."""
        return list(range(math.ceil(self.low), math.floor(self.high) + 1))


@dataclass(frozen=True)
class PolicySpec:
    """A built-in policy: kernel id, parameters, what it can do, and where its idea comes
    from. The capabilities (all off unless declared):

    - ``sampling``: it searches by rollouts or sampled worlds, which only the scalar
      kernels run (no lock-step batches), compiled only when a side runs it;
    - ``lanes``: a lock-step twin plays or bids it 64 deals at a time (``_nb/lockstep_*``);
    - ``needs_solver``: it calls the double-dummy solver, which no built-in kernel
      compiles: a run with it takes a generated module (``custom.kernels``);
    - ``two_sided``: it values a side's result against the other side's, so it needs two
      sides (partnerships): a cutthroat run refuses it;
    - ``readable``: a sampling player's kernel can evaluate its bids from a hand (the
      worlds that fit the bids, ``_nb/rollout.py``);
    - ``env``: the learning environments (``spades_sim.env``) seat it at their tables.
    """

    kind: Kind
    name: str
    policy_id: int
    params: tuple[ParamSpec, ...]
    summary: str
    source: str
    sampling: bool = False
    lanes: bool = False
    needs_solver: bool = False
    two_sided: bool = False
    readable: bool = False
    env: bool = False


BUILTINS: list[PolicySpec] = []
"""Every built-in policy, in the order the registry and its docs page list them."""


def _add(spec: PolicySpec) -> None:
    BUILTINS.append(spec)


# --- The built-in policies ------------------------------------------------------------
# The order of each ``params`` tuple is the kernel's slot order (``_nb.enums``: slot
# k + 1 holds parameter k); never reorder, only append.

BID_COMMON = (
    ParamSpec("bias", 0.0, -5.0, 5.0, "added to the estimated tricks before rounding"),
    ParamSpec("nil_threshold", 2.5, -1.0, 50.0, "bid nil when the hand's nil risk is at most this"),
    ParamSpec("blind_nil_deficit", 200.0, 0.0, 1e9, "declare blind nil only when behind by this"),
    ParamSpec("blind_nil_max_bags", 7.0, 0.0, 1e9, "... and carrying at most this many bags"),
    ParamSpec(
        "blind_nil_partner_min",
        3.0,
        0.0,
        13.0,
        "... and, if the partner has bid, the partner bid at least this",
    ),
    ParamSpec(
        "blind_nil_before_partner",
        1.0,
        0.0,
        1.0,
        "1: may declare before the partner bids",
        values="switch",
    ),
    ParamSpec(
        "nil_partner_min", 2.0, 0.0, 13.0, "nil only if a partner who has bid bid at least this"
    ),
    ParamSpec("round_up", 0.5, 0.0, 1.0, "round the estimate up from this fraction"),
    ParamSpec(
        "blind_nil_opp_within",
        100.0,
        0.0,
        1e9,
        "... and the opponents within this many points of the target (1e9: any score)",
    ),
)

_NIL_TEXT = (
    " Nil when the nil risk is at most `nil_threshold` and a partner who has bid bid at "
    "least `nil_partner_min`. The risk is the log-odds that the nil fails, fitted on half "
    "a million simulated nils against the `heuristic`'s nil defence (plus 3.9, so the "
    "default 2.5 asks for about an 80% chance): each spade by rank (the ace all but sets "
    "it, then the K, Q and J), the spade length, each side card by rank and how many lower "
    "cards guard it, voids and singletons; a partner's number, once bid, lowers it by 0.29 "
    "a trick above 3.5 (a strong partner covers). Blind nil (decided before the cards are seen) "
    "as a last resort: behind by `blind_nil_deficit` when the opponents are within "
    "`blind_nil_opp_within` of the target, with few bags and a partner who can cover. With "
    "two players the estimate is a per-card table for two-card tricks (no partner)."
)

_add(
    PolicySpec(
        kind="bid",
        name="count",
        policy_id=0,
        lanes=True,
        readable=True,
        env=True,
        params=(
            *BID_COMMON,
            ParamSpec("king_value", 1.0, 0.0, 1.0, "tricks for a guarded side king (half in 6+)"),
            ParamSpec("spade_length", 4.0, 0.0, 13.0, "every spade beyond this many is a trick"),
            ParamSpec(
                "short_value", 1.0, 0.0, 2.0, "a void's worth with spare spades (singleton half)"
            ),
        ),
        summary=(
            "The classic count of sure tricks: side aces (half in a suit of seven or more), "
            "guarded side kings, a queen in a three- to five-card suit, the ace, guarded "
            "king and twice-guarded queen of spades, every spade beyond `spade_length`, "
            "and voids and singletons as long as there are spare spades to ruff with; the "
            "sum plus `bias`, rounded." + _NIL_TEXT
        ),
        source=(
            'the point count taught in *Spades For Dummies* ("Figuring the value of your '
            "high cards in Spades\", dummies.com) and pagat.com's Spades page (John McLeod) "
            "for the scoring it bids against"
        ),
    )
)
_add(
    PolicySpec(
        kind="bid",
        name="pagat",
        policy_id=2,
        lanes=True,
        readable=True,
        env=True,
        params=(
            *BID_COMMON,
            ParamSpec("queen_value", 0.25, 0.0, 1.0, "a side queen in a suit of five or fewer"),
            ParamSpec("trump_length", 4.0, 0.0, 13.0, "every spade beyond this many is a trick"),
        ),
        summary=(
            "The published guide's point count: a side ace is a trick (half in a suit of "
            "seven or more); a side king a quarter alone or in five or more, three quarters "
            "in two to four, plus a quarter with the ace, queen or jack in a suit under six; "
            "a side queen `queen_value` in a short suit (double with the ace and king); a "
            "trump honour is a trick when fewer unowned ranks lie above it than owned trumps "
            "below (half when equal); spades beyond `trump_length`; then voids, singletons "
            "and doubletons (1, 1/2, 1/4) ruffed by the spades not yet counted." + _NIL_TEXT
        ),
        source=(
            "the bidding chapter of *The Spades Book* (sharkfeeder.com/spadsbook/"
            "basicbidding.html), a guide to the standard rules published on pagat.com; "
            "named `pagat` after those rules"
        ),
    )
)
_add(
    PolicySpec(
        kind="bid",
        name="partner-aware",
        policy_id=3,
        lanes=True,
        readable=True,
        env=True,
        params=(
            *BID_COMMON,
            ParamSpec(
                "overbid_cut",
                0.5,
                0.0,
                2.0,
                "cut per trick the table (unbid seats at 3) is over 13",
            ),
            ParamSpec("nil_cover_bonus", 0.5, -2.0, 3.0, "added when the partner bid nil"),
            ParamSpec("opp_nil_bonus", 0.5, -2.0, 3.0, "added when an opponent bid nil"),
            ParamSpec("bag_push", 0.5, -2.0, 3.0, "added when the side's bags are near the limit"),
            ParamSpec("bag_margin", 3.0, 0.0, 20.0, "bags this close to the limit are near"),
            ParamSpec(
                "score_shade", 0.5, 0.0, 3.0, "taken off near the target, added when far behind"
            ),
            ParamSpec("score_margin", 100.0, 0.0, 1000.0, "points that count as near / far"),
        ),
        summary=(
            "The guide's count (as `pagat`), adjusted to the table and the game: a partner's "
            "nil adds `nil_cover_bonus` (the cover takes extra tricks), an opponent's nil "
            "`opp_nil_bonus`; when the bids so far plus this hand (three per seat still to "
            "bid) exceed 13 the estimate is cut by `overbid_cut` per trick over; bags near "
            "the limit push the bid up; a side close to the target and ahead shades down and "
            "nils less, a side far behind shades up and nils more; a partner bid of four or "
            "more makes nil easier." + _NIL_TEXT
        ),
        source=(
            "situational bidding as taught by Joe Andrews (*The Complete Win at Spades*; "
            "his columns at safeharborgames.net: score management, bidding with a nil "
            "partner) on top of the guide's count"
        ),
    )
)
_add(
    PolicySpec(
        kind="bid",
        name="monte-carlo",
        policy_id=4,
        sampling=True,
        params=(
            *BID_COMMON,
            ParamSpec(
                "samples", 16.0, 1.0, 1024.0, "deals of the unseen cards per bid", values="whole"
            ),
            ParamSpec(
                "bag_cost", -1.0, -1.0, 100.0, "points charged per bag (-1: penalty / limit)"
            ),
            ParamSpec("nil_bonus", 0.0, -200.0, 200.0, "points added to the nil option"),
            ParamSpec(
                "window",
                2.0,
                0.0,
                12.0,
                "number bids tried: the count's bid plus or minus this",
                values="whole",
            ),
            ParamSpec(
                "objective",
                0.0,
                0.0,
                1.0,
                "0: best score margin; 1: least |side tricks - contract|",
                values="choice",
            ),
            ParamSpec(
                "bid_tolerance",
                1.0,
                -1.0,
                13.0,
                "deals kept when each earlier bid is within this of the count's (-1: any deal)",
            ),
        ),
        summary=(
            "For its own hand, deals the unseen cards at random `samples` times, gives the "
            "seats still to bid the `count` bid for their sampled hand, plays every deal "
            "out with the `heuristic` play (once with a number bid, and once as nil when "
            "the nil risk is at most `nil_threshold` and the partner allows it) and bids "
            "the number, or nil, with the best average score margin under the table's "
            "scoring, bags charged at `bag_cost`. `bias` shifts the chosen number bid. The "
            "slow, strong reference bidder (thousands of hands per second); blind nil as "
            "the counting bidders."
        ),
        source=(
            "determinised Monte-Carlo sampling (perfect-information rollouts), as in "
            "Ginsberg's GIB for bridge (JAIR 14, 2001) and Cowling, Powley & Whitehouse, "
            "'Information Set Monte Carlo Tree Search' (IEEE TCIAIG 4, 2012)"
        ),
    )
)
# The race model's numbers fitted to the standard game's win table (every seat ``count``
# and ``heuristic``, 20,000 games): ``odds.equity.race_fit``, ``benchmarks/win_table.py --race``.
RACE_MEAN, RACE_SD, RACE_BAGS = 27.86, 41.68, 0.922
_ADVISE_NIL = {"nil_threshold": 50.0, "nil_partner_min": 0.0}  # the table weighs every nil

_add(
    PolicySpec(
        kind="bid",
        name="advise",
        policy_id=5,
        sampling=True,
        params=(
            *(
                replace(p, default=_ADVISE_NIL[p.name]) if p.name in _ADVISE_NIL else p
                for p in BID_COMMON
            ),
            ParamSpec(
                "n", 32.0, 1.0, 4096.0, "completions of the deal per bid decision", values="whole"
            ),
            ParamSpec(
                "objective",
                1.0,
                0.0,
                1.0,
                "0: the most points this hand; 1: the best chance to win the game",
                values="choice",
            ),
            ParamSpec(
                "window",
                4.0,
                0.0,
                17.0,
                "number bids weighed: the count's bid plus or minus this",
                values="whole",
            ),
            ParamSpec(
                "fit_tries",
                64.0,
                1.0,
                4096.0,
                "draws per completion until the earlier bids fit; then the best-fitting draw",
                values="whole",
            ),
            ParamSpec(
                "race_mean",
                RACE_MEAN,
                1.0,
                500.0,
                "race model: a side's mean points a hand before bag penalties",
            ),
            ParamSpec("race_sd", RACE_SD, 1.0, 500.0, "race model: their standard deviation"),
            ParamSpec("race_bags", RACE_BAGS, 0.0, 13.0, "race model: a side's bags a hand"),
        ),
        summary=(
            "What `spades_sim.advise` recommends, bid by bid: deals `n` completions of the "
            "unseen cards that fit the bids made before (each seat's seated bidder, as the "
            "sampling players read bids), and for nil and every number within `window` of "
            "the count's bid, on the same completions, lets the seats still to bid bid "
            "knowing it and plays the hand out with the `heuristic`; bids the one with the "
            "best mean: with `objective` 1 the side's chance to win the game from the score "
            "after the hand (exact when the hand ends the game, else a race model of the "
            "win table fitted in three numbers, `race_mean`, `race_sd`, `race_bags`: "
            "docs/win-table.md), with 0 the side's points. `bias` shifts the chosen number. "
            "Blind nil as the counting bidders."
        ),
        source=(
            "determinised Monte-Carlo bidding as `monte-carlo`, valued by the chance to win "
            "the match as backgammon programs value a move by match equity (Keith, "
            "'Match equity tables', bkgm.com; Kazaross-XG2 table), the win chance from a "
            "race formula as in backgammon's race models"
        ),
    )
)
_add(
    PolicySpec(
        kind="bid",
        name="random",
        policy_id=1,
        lanes=True,
        readable=True,
        env=True,
        params=(
            ParamSpec("nil_rate", 0.1, 0.0, 1.0, "probability of bidding nil"),
            ParamSpec("blind_nil_rate", 0.05, 0.0, 1.0, "probability of declaring blind nil"),
            ParamSpec(
                "max_bid",
                6.0,
                1.0,
                13.0,
                "bids are uniform on 1..max_bid otherwise",
                values="whole",
            ),
        ),
        summary="Random bids and nils: a baseline and a generator of unusual situations.",
        source="baseline",
    )
)

PLAY_COMMON = (
    ParamSpec(
        "bag_avoid",
        1.0,
        0.0,
        1.0,
        "1: once the side has made its bid, duck tricks",
        values="switch",
    ),
    ParamSpec(
        "set_push",
        4.0,
        0.0,
        13.0,
        "...but keep winning if this many more tricks set the others",
        values="whole",
    ),
    ParamSpec("cover_nil", 1.0, 0.0, 1.0, "1: cover a partner's nil", values="switch"),
    ParamSpec("attack_nil", 1.0, 0.0, 1.0, "1: try to set an opponent's nil", values="switch"),
    ParamSpec(
        "second_hand_trump", 0.0, 0.0, 1.0, "1: trump in second seat when void", values="switch"
    ),
    ParamSpec("cash_masters", 1.0, 0.0, 1.0, "1: lead and take with sure winners", values="switch"),
    ParamSpec(
        "draw_trumps", 1.0, 0.0, 1.0, "1: lead the top spade to draw trumps", values="switch"
    ),
    ParamSpec(
        "nil_shed",
        1.0,
        0.0,
        1.0,
        "1: against a nil, keep low cards and throw high ones when they cannot hurt it",
        values="switch",
    ),
    ParamSpec(
        "nil_pull",
        0.0,
        0.0,
        13.0,
        "against a nil, lead a spade of rank below this (2=0, ten=8) to pull its "
        "spades, and no higher one (0: off)",
    ),
    ParamSpec(
        "nil_lead",
        1.0,
        0.0,
        1.0,
        "1: against a nil, avoid leading suits its partner can ruff",
        values="switch",
    ),
    ParamSpec(
        "nil_spare",
        1.0,
        0.0,
        13.0,
        "attack a nil unless the side's own bid, still makeable, has fewer spare tricks than this",
    ),
    ParamSpec(
        "nil_under",
        1.0,
        0.0,
        1.0,
        "1: against a nil, before it plays, throw the highest card under the winning one",
        values="switch",
    ),
    ParamSpec(
        "nil_long",
        0.0,
        0.0,
        1.0,
        "1: against a nil, lead low from the longest suit it holds",
        values="switch",
    ),
    ParamSpec(
        "nil_escape",
        1.0,
        0.0,
        1.0,
        "1: against a nil, lead the low card with the fewest unseen cards of its suit below it",
        values="switch",
    ),
    ParamSpec(
        "nil_read",
        0.0,
        0.0,
        1.0,
        "1: against a nil, count only the cards its ducks have not shown it lacks "
        "(a nil that ducked with card c under winner w holds nothing between them)",
        values="switch",
    ),
)

_READ_BIDS_SUMMARY = (
    "a deal is kept only when every other seat's bid by the bidder `assume` names (by "
    "default the bidder seated there, with its parameters; or `count`, `pagat` or "
    "`partner-aware` with registry defaults for every seat), from the "
    "hand it held when it bid (its cards in the deal plus the cards it has played) and the "
    "bids before it, is the bid it made (blind nils and the seats of a nil exchange are not "
    "read); a deal is redrawn up to `fit_tries` times, and when none fits the best-fitting "
    "draw is kept (its misfit: 1 for each trick a bid is off, 3 more for a nil read as a "
    "number or the reverse)."
)

# The sampling players' reading of the bids (``_nb/rollout.py``, "Worlds that fit the bids").
_READ_BIDS = (
    ParamSpec(
        "read_bids",
        1.0,
        0.0,
        1.0,
        "1: keep only worlds in which every other seat's assumed bid is its bid; 0: bid-blind",
        values="switch",
    ),
    ParamSpec(
        "fit_tries",
        256.0,
        1.0,
        4096.0,
        "draws per world until the bids fit; then the best-fitting draw (a relaxed world)",
        values="whole",
    ),
    ParamSpec(
        "assume",
        3.0,
        0.0,
        3.0,
        "the bidder assumed for the other seats: 3 the bidders seated at the table, with their "
        "parameters (count's defaults for a monte-carlo or user-written one; a random "
        "bidder's bids are not read); 0 count, 1 pagat, 2 partner-aware (defaults)",
        values="choice",
    ),
)

_add(
    PolicySpec(
        kind="play",
        name="random",
        policy_id=0,
        lanes=True,
        env=True,
        params=(),
        summary="A uniformly random legal card.",
        source="baseline",
    )
)
_add(
    PolicySpec(
        kind="play",
        name="heuristic",
        policy_id=1,
        lanes=True,
        env=True,
        params=PLAY_COMMON,
        summary=(
            "Sound card play, deterministic and fast. Leading: cash a sure winner in a suit "
            "no opponent has shown out of, lead the top spade to draw trumps, else low from "
            "the weakest suit. Following: second hand low (unless holding the top card), "
            "third hand high but as cheaply as an equal card allows, last hand wins as "
            "cheaply as possible, never overtake a winning partner; void: trump in (over a "
            "trump if needed) when the trick matters, else discard from the weakest suit. "
            "Contract-aware: a side that has made its bid ducks to avoid bags (the highest "
            "card that still loses) unless `set_push` more tricks would set the opponents. "
            "Nil-aware: the nil bidder ducks with its highest losing card and sheds its "
            "most dangerous cards when void; its partner leads high (a suit the nil bidder "
            "is void in, else an unbeatable spade to draw its spades, else an unbeatable "
            "side card), sets the bar high but cheaply before the nil bidder plays and "
            "overtakes it after; the opponents lead low into the nil (a spade below "
            "`nil_pull` to pull its spades; with `nil_lead` not a suit its partner can "
            "ruff; with `nil_long` from the longest suit it holds; with `nil_escape` the "
            "low card the fewest unseen cards of its suit could duck under; with `nil_read` "
            "only the unseen cards the nil bidder's ducks have not ruled out count, there "
            "and for the spade pull), play low before "
            "it (with "
            "`nil_under` the highest card under the winning one) and never overtake it, and "
            "with `nil_shed` keep their low cards as ammunition (throwing high ones when void "
            "or once the nil bidder has lost the trick); they press the attack unless their "
            "own bid, still makeable, has fewer than `nil_spare` tricks to spare."
        ),
        source=(
            "the standard whist-family maxims (second hand low, third hand high) and the "
            "nil and bag advice of Joe Andrews' columns (safeharborgames.net) and the "
            "strategy pages linked from pagat.com's Spades page; the nil attack and cover "
            "after the rule-based bots TricksterBots (SpadesBot.cs: TryBustNil, "
            "TryProtectNil) and CardsWithCats (spades_ai.dart)"
        ),
    )
)
_add(
    PolicySpec(
        kind="play",
        name="lookahead",
        policy_id=2,
        sampling=True,
        params=(
            *PLAY_COMMON,
            ParamSpec(
                "samples",
                16.0,
                1.0,
                1024.0,
                "deals of the unseen cards per decision",
                values="whole",
            ),
            ParamSpec(
                "margin", 1.0, 0.0, 100.0, "points per deal a card must gain over the heuristic's"
            ),
            ParamSpec("bag_cost", 0.0, -1.0, 100.0, "points charged per bag (-1: penalty / limit)"),
            *_READ_BIDS,
        ),
        summary=(
            "Determinised lookahead: deals the unseen cards `samples` times (each seat gets "
            "as many as it holds and none of a suit it has shown out of), and for every "
            "distinct legal card (cards with no unseen card and no card of the trick between them "
            "count once) plays "
            "the deals out with the `heuristic` (its parameters are the first fourteen here) "
            "and scores the hand: the card with the best average score margin (each bag "
            "charged `bag_cost` on top of the scoring; -1 charges penalty / limit), unless "
            "it gains less than `margin` points per deal over the heuristic's own card. "
            "By default (`read_bids=1`) the deals are read from the bids: " + _READ_BIDS_SUMMARY
        ),
        source=(
            "perfect-information Monte-Carlo sampling (Ginsberg, 'GIB: Imperfect "
            "information in a computationally challenging game', JAIR 14, 2001)"
        ),
    )
)
_add(
    PolicySpec(
        kind="play",
        name="pimc",
        policy_id=3,
        sampling=True,
        needs_solver=True,
        two_sided=True,
        params=(
            *PLAY_COMMON,
            ParamSpec(
                "worlds", 8.0, 1.0, 1024.0, "deals of the unseen cards per decision", values="whole"
            ),
            ParamSpec(
                "early_worlds",
                2.0,
                0.0,
                1024.0,
                "worlds in the first early_tricks tricks (0: worlds throughout)",
                values="whole",
            ),
            ParamSpec(
                "early_tricks", 2.0, 0.0, 13.0, "tricks that use early_worlds", values="whole"
            ),
            ParamSpec(
                "nil_from",
                13.0,
                0.0,
                13.0,
                "solve live nils from this trick on, the heuristic playing before it (13: never)",
                values="whole",
            ),
            ParamSpec(
                "defend_from",
                13.0,
                0.0,
                13.0,
                "with only the other side's nils live, solve them from this trick on (13: never)",
                values="whole",
            ),
            *_READ_BIDS,
            ParamSpec(
                "nil_rollouts",
                16.0,
                0.0,
                1024.0,
                "defending a live nil before defend_from: worlds played out by the heuristic "
                "per card (0: the heuristic's card)",
                values="whole",
            ),
            ParamSpec(
                "solve_from",
                6.0,
                0.0,
                13.0,
                "before this trick play lookahead's card (its defaults, these heuristic and "
                "bid-reading parameters, lookahead_samples deals), from it on solve (0: "
                "solve every trick)",
                values="whole",
            ),
            ParamSpec(
                "nil_cover",
                2.0,
                0.0,
                2.0,
                "1: the partner of a live nil searches its cards by the nil rollouts too, "
                "the nil seat keeping the maxims (0: the partner plays the cover maxims; 2: "
                "as 1, but its searches, lookahead's included, never keep the nil in fewer "
                "worlds than the maxims' card)",
                values="choice",
            ),
            ParamSpec(
                "lookahead_samples",
                48.0,
                1.0,
                1024.0,
                "deals of the unseen cards per decision of lookahead's card before "
                "solve_from (lookahead's own samples)",
                values="whole",
            ),
            ParamSpec(
                "read_plays",
                0.27,
                0.0,
                0.5,
                "from solve_from on, draw 4 worlds a solved world and solve them by how well "
                "the heuristic explains the other seats' cards in each (eps: its error rate "
                "per decision, 0.27 as measured against pimc; 0: off)",
            ),
        ),
        summary=(
            "Perfect-information Monte Carlo: at each decision deals the cards the seat has not "
            "seen `worlds` times, consistent with everything it has seen (its hand, the cards "
            "played, never a card of a suit a seat has shown out of), values every legal card in "
            "every deal with the double-dummy solver and plays the best on average. The value is "
            "the hand's score margin, not a trick count: each side's final tricks (won so far "
            "plus the solver's) scored with the bids (contract made or set, bags and their "
            "penalty), and from trick `nil_from` every live nil solved after the card (covering "
            "the partner's, setting an opponent's, keeping its own). The first tricks are the "
            "expensive ones (the solver searches 52 cards), so the first `early_tricks` use "
            "`early_worlds`. The nil search values a nil as if every seat saw every card (worst "
            "for a nil) and has a heavy tail on real nil hands, so while a nil is live before "
            "trick `nil_from` (default: the whole hand) a pimc seat plays the `heuristic`'s card, "
            "its nil maxims (its parameters are the first fourteen here), and `pimc` plays the "
            "tricks of the hands with no live nil; with `nil_rollouts=R` a defender's live-nil "
            "decisions are searched instead by a player that sees only its seat: R worlds, "
            "each card played out by the `heuristic` for every seat and scored as the hand's "
            "score margin (bags at penalty / limit), the heuristic's card kept unless another "
            "gains a point a world; with `nil_cover=1` so does the partner of a live nil, the "
            "nil seat keeping the maxims, and with `nil_cover=2` (the default) the partner's "
            "searches never keep the nil in fewer worlds than the maxims' card. Slow beside "
            "the heuristic (hands a second, not thousands); a run with it compiles the solver "
            "and its kernels "
            "(minutes on a cold cache, once per machine). Counts are whole numbers. With "
            "`read_bids=1` (the default) the worlds are read from the bids: "
            + _READ_BIDS_SUMMARY
            + " Before trick `solve_from` (default 6: the first six tricks) the seat plays the "
            "card `lookahead` would (its registry defaults with this row's heuristic and "
            "bid-reading parameters and `lookahead_samples` deals): the first tricks, where "
            "the solver is slowest, go to the cheap heuristic rollouts (`solve_from=0` solves "
            "every trick, seconds a hand). "
            "With `read_plays=eps` (default 0.27) the worlds are also read from the play: "
            "a solving decision draws four worlds a solved world, replays the hand in each "
            "(the order of play, "
            "`InfoSlot.history`), weights it by (1 - eps) for every other seat's card that the "
            "`heuristic` would have played there and eps for every one it would not (decisions "
            "with a choice), and solves `worlds` of them drawn by weight (after Rebstock, "
            "Solinas, Buro and Sturtevant, 'Policy-based inference in trick-taking card "
            "games', 2019)."
        ),
        source=(
            "Ginsberg, 'GIB: Imperfect information in a computationally challenging game' "
            "(JAIR 14, 2001); the solver is this package's (`spades_sim.solve`, after "
            "Haglund and Hein's DDS)"
        ),
    )
)
DRAW_COMMON = (
    ParamSpec("side_rank", 9.0, 0.0, 13.0, "keep side cards of this rank or more (J=9)"),
    ParamSpec("spade_rank", 3.0, 0.0, 15.0, "keep spades of this rank or more (5=3)"),
    ParamSpec("nil_rank", 5.0, -1.0, 12.0, "going nil: keep side cards up to this rank"),
)
_add(
    PolicySpec(
        kind="draw",
        name="threshold",
        policy_id=0,
        params=DRAW_COMMON,
        summary=(
            "Two players: keep a drawn card when it is high enough (a spade or an honour), "
            "or, going for blind nil, when it is a low side card."
        ),
        source="the Frisian two-player sheet's advice",
    )
)
_add(
    PolicySpec(
        kind="draw",
        name="plan",
        policy_id=1,
        params=(
            *DRAW_COMMON,
            ParamSpec("nil_commit", 1.0, -1.0, 50.0, "after commit_after cards, go for nil..."),
            ParamSpec("commit_after", 4.0, 0.0, 13.0, "...when the nil risk kept is at most that"),
            ParamSpec("nil_spade_rank", 1.0, -1.0, 14.0, "going nil: keep spades up to this rank"),
        ),
        summary=(
            "Two players: plays for a strong hand or for nil. Until `commit_after` cards "
            "are kept it keeps high cards as `threshold` does; from then on a hand whose "
            "nil risk is at most `nil_commit` plays for nil, keeping only low side cards "
            "and the lowest spades, so the bidder can then bid nil; otherwise it keeps "
            "building tricks. A blind nil declarer always draws for nil."
        ),
        source=(
            "the Frisian two-player sheet's advice (keep high cards or aim for nil), "
            "with the nil risk of the four-player bidders"
        ),
    )
)


def names_with(kind: Kind, capability: Capability) -> tuple[str, ...]:
    """The names of the built-ins of ``kind`` that have ``capability``, in id order."""
    return tuple(s.name for s in by_id(kind) if getattr(s, capability))


def spec_of(kind: Kind, name: str) -> PolicySpec:
    """The built-in of this kind and name (``KeyError`` if none)."""
    for spec in BUILTINS:
        if spec.kind == kind and spec.name == name:
            return spec
    raise KeyError((kind, name))


def by_id(kind: Kind) -> tuple[PolicySpec, ...]:
    """The built-ins of ``kind`` in the order of their kernel ids (0, 1, ...)."""
    specs = sorted((s for s in BUILTINS if s.kind == kind), key=lambda s: s.policy_id)
    if [s.policy_id for s in specs] != list(range(len(specs))):
        raise ImportError(f"the {kind} policies' ids are not 0..{len(specs) - 1}")
    return tuple(specs)


def defaults(spec: PolicySpec) -> tuple[float, ...]:
    """The policy's kernel row up to its last parameter: its id, then its defaults."""
    return (float(spec.policy_id), *(p.default for p in spec.params))


BID_COMMON_NAMES = tuple(p.name for p in BID_COMMON)
PLAY_COMMON_NAMES = tuple(p.name for p in PLAY_COMMON)
DRAW_COMMON_NAMES = tuple(p.name for p in DRAW_COMMON)
