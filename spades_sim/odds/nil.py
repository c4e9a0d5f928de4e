"""Playing the completions: each one with the seat bidding nil and each number bid.

Contract
--------
:func:`nil_odds` builds the :class:`~.conditions.Conditions`, draws completions in
chunks (:class:`~.sampling.Sampler`), plays each once per scenario (nil or blind nil,
then each candidate number bid; the same completion, dealer and random streams in every
scenario, so the comparison is paired) with the kernels of ``_nb/odds.py``, and reduces
the outcomes to a :class:`~.answer.NilOdds`.

With ``defense="double-dummy"`` the first ``dd_completions`` completions are also asked
whether the nil could be kept at all against perfect defence, every card seen: the nil
scenario of each is replayed with its hands recorded as play begins (the same streams,
so the same exchange and opening leader), and ``spades_sim.solve.batch.nil_table``
solves the nil from that opening position. Both answers rest on the same completions,
so they are paired.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from tqdm import tqdm

from spades_sim._nb import odds as nb
from spades_sim._nb.enums import GIVEN_SHIFT, BidParam, BidPolicy
from spades_sim.analysis.stats import mean_ci_of_moments, proportion_ci
from spades_sim.cards import N_CARD_IDS, SPADE_MASK, Hand, format_card, format_hand, seat_name
from spades_sim.odds.answer import NilOdds
from spades_sim.odds.conditions import Conditions, seat_of
from spades_sim.odds.sampling import Sampler, check_sizes
from spades_sim.rules import BidRule, Rules
from spades_sim.run.chunks import PolicyError
from spades_sim.run.select import select_kernel, user_policy_kernels
from spades_sim.run.spec import PolicyArg, RunSpec, SidePolicies
from spades_sim.solve.solver import check_solvable_rules
from spades_sim.text import side_policies_text
from spades_sim.threads import kernel_threads, policy_compile_errors, run_blocks

__all__ = ["DEFENSES", "Played", "first_trick_cards", "nil_odds", "play_completions"]

DEFENSES = ("policies", "double-dummy")
"""What the nil is played against: the policies only, or also perfect defence."""
DEFAULT_DD_COMPLETIONS = 1_000
"""Completions solved double-dummy by default (a solve takes about 0.2 s on one core)."""

RANDOM_NIL_RATE = 1  # the random bidder's nil_rate slot (builtin_bid_nb)


def _no_nil(params: np.ndarray) -> np.ndarray:
    """A bidding parameter vector with its nil option switched off (built-in bidders)."""
    out = params.copy()
    if int(out[0]) == BidPolicy.random:
        out[RANDOM_NIL_RATE] = 0.0
    else:  # count, pagat, partner-aware and monte-carlo share the nil threshold slot
        out[BidParam.nil_threshold] = -1e9
    return out


def _own_number_bid(spec: RunSpec, hero: int, hand: int) -> int:
    """The hero's bidding policy's number bid for ``hand`` (first to bid, fresh table): a
    built-in's with its nil option switched off; a user bidder's as it bids (a nil, 0,
    then counts as 1: its own parameters are never rewritten)."""
    rules = spec.rules.lower()
    side = hero & 1
    policy = spec.bidding[side]
    if policy.is_builtin:
        side_params = _no_nil(spec.params()[side])
        return int(nb.number_bid_nb(rules, np.uint64(hand), hero, side_params))
    module = user_policy_kernels(spec)
    number_bid = module.number_bid_ew_nb if side else module.number_bid_ns_nb
    with policy_compile_errors(number_bid):
        return max(1, int(number_bid(rules, np.uint64(hand), hero, spec.params()[side])))


@dataclass
class Played:
    """The outcome of one chunk of completions, one row per completion, a column per
    scenario (for :func:`nil_odds` nil first, then each number bid); ``sides`` (when
    asked for) every side's outcome, (completions, scenarios, 4, ``SideOut`` fields)."""

    score: np.ndarray
    tricks: np.ndarray
    nil_made: np.ndarray
    first_won: np.ndarray
    dealers: np.ndarray
    held: np.ndarray | None = None
    moves: np.ndarray | None = None
    sides: np.ndarray | None = None


def _perfect_defense(
    spec: RunSpec,
    hero: int,
    deals: np.ndarray,
    start: int,
    bids: np.ndarray,
    kinds: np.ndarray,
    dealer: int,
) -> np.ndarray:
    """Whether the nil of each completion ``start ..`` can be kept against perfect
    defence: its nil scenario replayed with the hands recorded as play begins (after any
    exchange or two-player draw; the same streams, so the same deal and opening leader),
    then solved double-dummy from that opening position."""
    from spades_sim.solve.batch import nil_table  # the solver's kernels, on demand

    players = spec.rules.players
    recorded = play_completions(spec, hero, deals, start, bids[:1], kinds[:1], dealer, record=True)
    assert recorded.held is not None and recorded.moves is not None
    held = recorded.held[:, 0, :players]
    first_card = recorded.moves[:, 0, 8].astype(np.uint64)
    holds_it = (held >> first_card[:, None]) & np.uint64(1)
    leaders = np.argmax(holds_it, axis=1).astype(np.int64)
    return nil_table(held, leaders, hero, rules=spec.rules)


def first_trick_cards(counts: np.ndarray, failures: int, deuces_high: bool) -> dict[str, float]:
    """The cards that took failed nils' first trick (``counts`` by card id over
    ``failures`` failed nils), each with its share of the failures, most frequent first.

    >>> counts = np.zeros(N_CARD_IDS, dtype=np.int64)
    >>> counts[[51, 38]] = 3, 1  # the ace of spades 3 times, the ace of hearts once
    >>> first_trick_cards(counts, 4, False)
    {'AS': 0.75, 'AH': 0.25}
    """
    order = np.argsort(-counts, kind="stable")
    share = max(failures, 1)
    return {format_card(int(c), deuces_high): float(counts[c] / share) for c in order if counts[c]}


def play_completions(
    spec: RunSpec,
    hero: int,
    deals: np.ndarray,
    start: int,
    bids: np.ndarray,
    kinds: np.ndarray,
    dealer: int,
    scalar: bool = False,
    record: bool = False,
    before: np.ndarray | None = None,
    sides: bool = False,
) -> Played:
    """Play completions ``start ..`` (``deals``) once per scenario (``bids``/``kinds``:
    the hero's bid, with the bids given to seats before it above it in each ``bids`` entry,
    ``enums.GIVEN_SHIFT``), from the scores and bags ``before`` (8: the four side slots'
    scores, then bags; default 0-0); with ``sides`` every side's outcome too."""
    rules = spec.rules
    count = deals.shape[0]
    dealers = np.empty(count, dtype=np.int64)
    nb.draw_dealers_nb(int(spec.seed), start, count, rules.players, dealer, dealers)
    kernel = select_kernel(spec, "nil_odds")
    mode = nb.PLAY_SCALAR if scalar or record else kernel.variant
    if (bids >> GIVEN_SHIFT).any():  # the lock-step bidders take one forced bid, not more
        mode &= nb.PLAY_MODES
    shape = (count, bids.shape[0])
    tasks = count * bids.shape[0]
    score = np.empty(tasks, dtype=np.int64)
    tricks = np.empty(tasks, dtype=np.int8)
    nil_made = np.empty(tasks, dtype=np.int8)
    first_won = np.empty(tasks, dtype=np.int64)
    errors = np.zeros(tasks, dtype=np.int64)
    held = np.zeros((tasks if record else 0, 4), dtype=np.uint64)
    moves = np.zeros((tasks if record else 0, 8 + rules.tricks * rules.players), dtype=np.int64)
    table = np.zeros(8, dtype=np.int64) if before is None else before.astype(np.int64)
    side_out = np.zeros((tasks if sides else 0, 4, nb.N_SIDE_OUT), dtype=np.int64)
    builtin = spec.builtin
    run_blocks(
        kernel.entry, -(-tasks // kernel.per_block), rules.lower(), int(spec.seed), start, deals,
        dealers, hero, bids, kinds, spec.params(), mode, score, tricks, nil_made, first_won,
        errors, held, moves, table, side_out,
    )  # fmt: skip
    if errors.any():
        bad = start + int(np.flatnonzero(errors)[0]) // bids.shape[0]
        if builtin:  # built-in policies never err; this is a bug, not a user mistake
            raise RuntimeError(f"nil_odds: a built-in policy erred on completion {bad}")
        culprits = ", ".join(p.name for p in (*spec.bidding, *spec.play) if not p.is_builtin)
        raise PolicyError(
            f"completion {bad}: a policy ({culprits}) returned an illegal bid or card"
        )
    return Played(
        score.reshape(shape),
        tricks.reshape(shape),
        nil_made.reshape(shape),
        first_won.reshape(shape),
        dealers,
        held.reshape(*shape, 4) if record else None,
        moves.reshape(*shape, moves.shape[1]) if record else None,
        side_out.reshape(*shape, 4, nb.N_SIDE_OUT) if sides else None,
    )


def nil_odds(
    hand: Hand,
    *,
    seat: int | str | None = None,
    rules: Rules | None = None,
    bidding: SidePolicies = "count",
    play: SidePolicies = "heuristic",
    n: int = 100_000,
    seed: int = 0,
    partner: Hand | None = None,
    given: Mapping[int | str, Hand] | None = None,
    require: Mapping[int | str, Mapping[str, Any]] | None = None,
    blind: bool = False,
    number_bids: Sequence[int] | None = None,
    dealer: int | str | None = None,
    threads: int | None = None,
    max_tries: int = 200_000_000,
    draw: PolicyArg = "threshold",
    progress: bool = False,
    defense: str = "policies",
    dd_completions: int = DEFAULT_DD_COMPLETIONS,
) -> NilOdds:
    """How often ``hand`` held at ``seat`` (default South; two players: P0) makes nil.

    ``hand`` is text in either notation or a mask. The other cards are dealt at random
    ``n`` times, conditioned on ``partner`` (the partner's cards, four players), ``given``
    (cards known to be held by other seats: ``{"E": "AS KH"}``, a full or partial hand) and
    ``require`` (feature ranges of other seats: ``{"N": {"spades": (4, 13)}}`` or
    ``"4..13"``; features as the dataset's columns: ``FEATURES``). With ``blind`` the seat
    bids blind nil: the hand is as dealt, before the exchange of ``blind_nil_exchange``
    cards (or the two-player redraw), which the policies then make.

    Each completion is also played with the seat bidding each of ``number_bids``
    (default: the bidding policy's own number bid for the hand and one either side), for
    the paired comparison nil against the best of them. The dealer is drawn at random per
    completion unless ``dealer`` fixes it; the seats bid in turn from the dealer's left,
    so those after the nil bidder know of it. User-written policies run here as in
    ``simulate_hands`` (card by card: the lock-step play is the built-ins').
    ``progress`` shows a tqdm bar of the completions played on stderr (the command line
    does when stderr is a terminal).

    ``defense="double-dummy"`` (or ``"dd"``) also solves the first ``dd_completions``
    completions (at most ``n``) from their opening position: the share where the nil's
    side can keep it whatever the others do, every card seen (``dd_probability``, with
    its interval), and how the policies fared on those same completions (``dd_pairs``).

    >>> odds = nil_odds("Q73.J52.T84.9632", n=1_000, seed=2, require={"N": {"spades": "4.."}})
    >>> odds.n, odds.tried > 1_000
    (1000, True)
    """
    check_sizes(n, max_tries)
    defense = "double-dummy" if defense == "dd" else defense
    if defense not in DEFENSES:
        raise ValueError(f"defense: must be one of {', '.join(DEFENSES)} (or dd), got {defense!r}")
    if (
        isinstance(dd_completions, bool)
        or not isinstance(dd_completions, int)
        or dd_completions < 1
    ):
        raise ValueError(f"dd_completions: must be a positive int, got {dd_completions!r}")
    dd_n = min(n, dd_completions) if defense == "double-dummy" else 0
    spec = RunSpec.build(seed=seed, rules=rules, bidding=bidding, play=play, draw=draw)
    rules = spec.rules  # validated by RunSpec.build
    if defense == "double-dummy":
        check_solvable_rules(rules, nil=True)
    if rules.bid_rule is BidRule.MIRROR:
        raise ValueError(
            "rules: under bid_rule 'mirror' every bid is the spades held, so there is no "
            "choice of nil to weigh"
        )
    if blind and not rules.blind_nil:
        raise ValueError("blind: these rules do not allow blind nil (blind_nil = false)")
    if blind and rules.blind_nil_min_deficit > 0:
        raise ValueError(
            "blind: these rules allow blind nil only to a side behind by "
            f"{rules.blind_nil_min_deficit} points, and every completion starts at 0-0"
        )
    conditions = Conditions.build(
        hand, seat=seat, rules=rules, partner=partner, given=given, require=require
    )
    hero = conditions.hero
    fixed_dealer = -1 if dealer is None else seat_of(dealer, rules.players, "dealer")
    suicide = rules.bid_rule is BidRule.SUICIDE
    if suicide or rules.min_side_bid:
        # the first partner to bid is free (suicide: it chooses who nils); the other's
        # bid follows from it, so the seat must bid before its partner
        rule = "bid_rule 'suicide'" if suicide else "min_side_bid"
        if fixed_dealer < 0 or (hero - fixed_dealer - 1) % 4 >= 2:
            raise ValueError(
                f"dealer: under {rule} the second partner's bid depends on the first's; give "
                f"a dealer after whom {seat_name(hero, 4)} bids before its partner"
            )
    least = 4 if suicide else rules.min_number_bid
    if least > 1:
        if number_bids is None:
            own = max(_own_number_bid(spec, hero, conditions.hand), least)
            number_bids = [b for b in (own - 1, own, own + 1) if least <= b <= rules.tricks]
        if any(int(b) < least for b in number_bids):
            what = "bid_rule 'suicide'" if suicide else "min_number_bid"
            raise ValueError(
                f"number_bids: under {what} a number bid is at least {least}, got "
                f"{list(number_bids)}"
            )
    spades = (int(conditions.hand) & SPADE_MASK).bit_count()
    if rules.bid_rule is BidRule.WHIZ and number_bids is None:
        # nil or the spades held: the one number bid to weigh nil against
        number_bids = [spades] if spades else []
    if number_bids is None:
        own = _own_number_bid(spec, hero, conditions.hand)
        number_bids = [b for b in (own - 1, own, own + 1) if 1 <= b <= rules.tricks]
    candidates = sorted({int(b) for b in number_bids})
    if any(not 1 <= b <= rules.tricks for b in candidates):
        raise ValueError(f"number_bids: each must be 1..{rules.tricks}, got {list(number_bids)}")
    if rules.bid_rule is BidRule.WHIZ and candidates not in ([spades], []):
        raise ValueError(
            f"number_bids: under bid_rule 'whiz' the only number bid is the {spades} spades "
            f"held, got {list(number_bids)}"
        )
    bids = np.array([0, *candidates], dtype=np.int64)
    kinds = np.array([2 if blind else 1] + [0] * len(candidates), dtype=np.int64)
    sums = np.zeros(len(bids))
    squares = np.zeros(len(bids))
    diff_sums = np.zeros(len(bids))
    diff_squares = np.zeros(len(bids))
    made = tried = 0
    fatal = np.zeros(N_CARD_IDS, dtype=np.int64)
    pairs = np.zeros((2, 2), dtype=np.int64)  # [safe double-dummy, made by the policies]
    bar = tqdm(
        total=n,
        unit=" completions",
        unit_scale=True,
        dynamic_ncols=True,
        desc="nil-odds",
        disable=not progress,
        leave=False,
    )
    with kernel_threads(threads), bar:
        for start, deals, draws, _ in Sampler(conditions, seed, n, max_tries).chunks(n):
            tried += draws
            played = play_completions(spec, hero, deals, start, bids, kinds, fixed_dealer)
            score = played.score.astype(np.float64)
            sums += score.sum(axis=0)
            squares += (score**2).sum(axis=0)
            diff = score[:, :1] - score
            diff_sums += diff.sum(axis=0)
            diff_squares += (diff**2).sum(axis=0)
            nil = played.nil_made[:, 0]
            made += int((nil == 1).sum())
            fatal += np.bincount(played.first_won[nil == 0, 0], minlength=N_CARD_IDS)
            if start < dd_n:
                solved = min(dd_n - start, len(nil))
                safe = _perfect_defense(
                    spec, hero, deals[:solved], start, bids, kinds, fixed_dealer
                )
                np.add.at(pairs, (safe.astype(np.int64), (nil[:solved] == 1).astype(np.int64)), 1)
            bar.update(len(nil))
    ci = proportion_ci(made, n)
    estimates = [mean_ci_of_moments(n, sums[k], squares[k]) for k in range(len(bids))]
    number_scores = {bid: estimates[k + 1] for k, bid in enumerate(candidates)}
    best = max(number_scores, key=lambda b: number_scores[b].value) if candidates else None
    gain = None
    if best is not None:
        k = candidates.index(best) + 1
        gain = mean_ci_of_moments(n, diff_sums[k], diff_squares[k])
    fatal_cards = first_trick_cards(fatal, n - made, rules.deuces_high)
    dd: dict[str, Any] = {}
    if dd_n:
        safe_count = int(pairs[1].sum())
        dd_ci = proportion_ci(safe_count, dd_n)
        dd = {
            "defense": defense,
            "dd_n": dd_n,
            "dd_safe": safe_count,
            "dd_probability": dd_ci.value,
            "dd_ci_low": dd_ci.low,
            "dd_ci_high": dd_ci.high,
            "dd_pairs": {
                "safe_made": int(pairs[1, 1]),
                "safe_failed": int(pairs[1, 0]),
                "unsafe_made": int(pairs[0, 1]),
                "unsafe_failed": int(pairs[0, 0]),
            },
        }
    return NilOdds(
        **dd,
        hand=format_hand(conditions.hand, rules.deuces_high),
        seat=seat_name(hero, rules.players),
        blind=bool(blind),
        n=int(n),
        made=made,
        probability=ci.value,
        ci_low=ci.low,
        ci_high=ci.high,
        nil_score=estimates[0],
        number_scores=number_scores,
        best_number_bid=best,
        number_score=number_scores[best] if best is not None else None,
        nil_gain=gain,
        fatal_cards=fatal_cards,
        tried=tried,
        seed=int(seed),
        rules=rules,
        bidding=side_policies_text(spec.bidding),
        play=side_policies_text(spec.play),
        conditions=conditions.text,
    )
