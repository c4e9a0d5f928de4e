"""The public kernel API: write a policy of your own and run it like a built-in.

A policy is a function of one *context*, turned into a :class:`~spades_sim.policies.Policy`
by a decorator; every entry point that takes a built-in's name takes it (``simulate_hands``,
``simulate_games``, ``run_dataset``, aggregate mode, ``nil_odds``, ``duplicate``, Dask
runs, and the command line as ``--bidding path/to/file.py:my_bid``)::

    from spades_sim import nb

    @nb.bidder(params={"spade_length": 3.0, "nil_spades": 2.0})
    def my_bid(ctx):                       # a BidContext
        spades = nb.popcount_nb(ctx.hand & nb.SPADE_MASK)
        return max(1, spades - int(ctx.params.spade_length) + 1)   # 0..13, 0 = nil

    @nb.player()
    def my_play(ctx):                      # a PlayContext
        return nb.lowest_card_nb(ctx.legal)                          # a card of ctx.legal

    simulate_hands(10_000, seed=1, bidding=my_bid, play=my_play)
    simulate_hands(10_000, seed=1, bidding=my_bid.with_params(spade_length=4))

**The contexts** (named tuples; every field is read by name, and Numba compiles the
unread ones away). Cards are uint64 masks, bit ``suit * 13 + rank`` (clubs 0, diamonds 1,
hearts 2, spades 3; ranks 0 = deuce .. 12 = ace; ids 52..55 above the ace are spades:
the jokers 52 and 53, or with the deuces high 2S, 2D, LJ, BJ, docs/rules.md); seats
0..3 are N, E, S, W (two players: 0 and 1), side ``seat % 2``, partner ``seat ^ 2``;
in cutthroat (``partnerships`` false) the side is the seat itself, ``scores`` and
``bags`` have four entries and ``partner_bid`` is always -1 (no partner).

- :data:`BidContext`: ``hand``, ``seat``, ``side``, ``players``, ``dealer``,
  ``first_to_act``, ``bids`` (4 seats, -1 where not yet bid), ``nils`` (0 number, 1 nil,
  2 blind nil), ``partner_bid``, what the table's bid rule allows (``nil_allowed``, and
  the numbers ``min_bid`` .. ``max_bid``, none when ``min_bid > max_bid``), ``scores``
  and ``bags`` (per side, before the hand), ``rules``, ``params``, ``rand``.
- :data:`PlayContext`: ``hand``, ``legal`` (the cards it may play), ``seat``, ``side``,
  ``players``, ``trick_no`` (0..12), ``leader``, ``n_in_trick`` (cards played to this
  trick), ``trick`` (those cards in play order, -1 empty), ``led_suit``,
  ``winning_card``, ``winning_seat``, ``played`` (mask of every card played so far),
  ``played_by`` (per seat, the mask of the cards it has played), ``history`` (the cards
  played this hand in play order, -1 after the last: 54 entries, so
  ``history[k]`` was played by the seat whose ``played_by`` holds it),
  ``spades_broken``, ``tricks_won`` (per seat), ``bids``, ``nils``, ``voids`` (per seat,
  bit ``s`` when it has shown out of suit ``s``; under ``must_trump`` a discard shows
  out of spades too), ``scores``, ``bags``, ``rules``, ``params``, ``rand``. ``legal``
  already follows every rule of play, the trump rules included.
- :data:`BlindNilContext` (a bidder's own blind nil decision, ``blind_nil=``): the bid
  context without the hand (blind means before looking).

``ctx.rules.<field>`` is the table's ``Rules`` by field name (``ctx.rules.target``,
``ctx.rules.jokers``: 0, 1, or 2 with the deuces high; the two choices as
``first_lead_two_clubs`` and ``spades_any_time``, 0/1). ``ctx.params.<name>`` reads the
parameters declared in the decorator, given new values by
``policy.with_params(name=value)`` or on the command line
(``file.py:my_bid:spade_length=4``) without compiling anything again. ``ctx.rand`` is 64
random bits for this decision; draw from it with :func:`uniform_nb`,
:func:`randint_nb` and :func:`random_card_nb` (the ``k``-th draw of the decision's
stream), so a run is the same for any thread count. A policy sees only its own cards
and the public table.

**Bids the rule does not allow.** Under a bid rule (``Rules.bid_rule``, e.g. ``mirror``)
the engine replaces a bid it does not allow by the nearest allowed one, as it does for
the built-in bidders: a nil stays nil where nil is allowed, a number (or a nil that is
not allowed) is brought into ``min_bid .. max_bid``, and a bidder with no number allowed
bids nil. That is not an error (a forced bid is the bid); a bid outside 0..13 still is.

**Decisions a bidder owns.** ``nb.bidder(blind_nil=...)``: ``None`` (the default) never
bids blind nil; a function of a :data:`BlindNilContext` returning a bool decides it (only
where the rules allow blind nil); ``"builtin"`` names the built-in bidders' rule, with
the built-in ``count`` defaults. No built-in rule ever reads your parameters. The blind
nil exchange and the two-player draw are the built-in choices (they read no bidder's
parameters; the draw policy is chosen with ``draw=``).

**Building blocks** on the same contexts: :func:`count_bid_nb` (``count`` with its
defaults; ``count_bid_with_nb(ctx, vector)`` with a ``CountParam`` vector),
:func:`heuristic_play_nb` (``heuristic_play_with_nb(ctx, vector)``), :func:`random_play_nb`,
:func:`blind_nil_rule_nb`; and the card-mask helpers (``lowest_card_nb``,
``highest_card_nb``, ``suit_mask_nb``, ``above_nb``, ``popcount_nb`` ...).

**Compiled once per machine.** A run's kernels for your policies are generated and
cached on disk (``spades_sim.custom.kernels``), keyed on your code and what it calls: the
first run compiles them (announced on stderr), later processes load them in about a
second, and an edited policy compiles afresh.

A policy that wins a trick cheaply when it can, else plays low:

>>> from spades_sim import nb
>>> @nb.player()
... def win_cheaply(ctx):
...     if ctx.n_in_trick == 0:
...         return nb.lowest_card_nb(ctx.legal)
...     led = nb.suit_mask_nb(ctx.led_suit)
...     winners = ctx.legal & nb.above_nb(ctx.winning_card) & (led | nb.SPADE_MASK)
...     return nb.lowest_card_nb(winners if winners else ctx.legal)
>>> win_cheaply.kind, win_cheaply.name, win_cheaply.is_builtin
('play', 'win_cheaply', False)

``simulate_hands(64, seed=1, play={"ns": win_cheaply, "ew": "heuristic"})`` then plays
it for North-South (its first run compiles its kernels; the tests run policies like it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from spades_sim._nb.bitboard import (
    JOKER_DECK,
    NON_SPADE_MASK,
    SPADE_MASK,
    STANDARD_DECK,
    SUIT_MASKS,
    above_nb,
    below_mask_nb,
    bit_nb,
    deck_mask_nb,
    highest_card_nb,
    lowest_card_nb,
    popcount_nb,
    rank_of_nb,
    select_bit_nb,
    suit_mask_nb,
    suit_of_nb,
)
from spades_sim._nb.context import (
    BidContext,
    BlindNilContext,
    PlayContext,
    RulesView,
    blind_nil_rule_nb,
    count_bid_nb,
    count_bid_with_nb,
    heuristic_play_nb,
    heuristic_play_with_nb,
    randint_nb,
    random_card_nb,
    random_play_nb,
    uniform_nb,
)
from spades_sim._nb.enums import (
    COUNT_DEFAULTS,
    HEURISTIC_DEFAULTS,
    N_INFO,
    N_RULE_FIELDS,
    PARAM_SLOTS,
    BidParam,
    BidPolicy,
    CountParam,
    DrawPolicy,
    HeuristicParam,
    InfoSlot,
    LookaheadParam,
    PagatParam,
    PlayPolicy,
    RuleField,
)
from spades_sim._nb.rng import GOLDEN, LOW32, below_nb, draw_nb, mix64_nb, unit_nb
from spades_sim.policies import Policy


def bidder(
    function: Callable[..., Any] | None = None,
    *,
    params: Mapping[str, float] | None = None,
    blind_nil: Callable[..., Any] | str | None = None,
    name: str | None = None,
) -> Any:
    """Make a bidding :class:`~spades_sim.policies.Policy` of a function of a
    :data:`BidContext` returning 0..13 (0 = nil): ``@nb.bidder`` or
    ``@nb.bidder(params={...}, blind_nil=..., name=...)`` (see the module docstring)."""

    def make(fn: Callable[..., Any]) -> Policy:
        return Policy.custom(fn, "bid", params, name=name, blind_nil=blind_nil)

    return make(function) if function is not None else make


def player(
    function: Callable[..., Any] | None = None,
    *,
    params: Mapping[str, float] | None = None,
    name: str | None = None,
) -> Any:
    """Make a play :class:`~spades_sim.policies.Policy` of a function of a
    :data:`PlayContext` returning a card of ``ctx.legal``: ``@nb.player`` or
    ``@nb.player(params={...}, name=...)``."""

    def make(fn: Callable[..., Any]) -> Policy:
        return Policy.custom(fn, "play", params, name=name)

    return make(function) if function is not None else make


__all__ = [
    "COUNT_DEFAULTS",
    "GOLDEN",
    "HEURISTIC_DEFAULTS",
    "JOKER_DECK",
    "LOW32",
    "NON_SPADE_MASK",
    "N_INFO",
    "N_RULE_FIELDS",
    "PARAM_SLOTS",
    "SPADE_MASK",
    "STANDARD_DECK",
    "SUIT_MASKS",
    "BidContext",
    "BidParam",
    "BidPolicy",
    "BlindNilContext",
    "CountParam",
    "DrawPolicy",
    "HeuristicParam",
    "InfoSlot",
    "LookaheadParam",
    "PagatParam",
    "PlayContext",
    "PlayPolicy",
    "RuleField",
    "RulesView",
    "above_nb",
    "below_mask_nb",
    "below_nb",
    "bidder",
    "bit_nb",
    "blind_nil_rule_nb",
    "count_bid_nb",
    "count_bid_with_nb",
    "deck_mask_nb",
    "draw_nb",
    "heuristic_play_nb",
    "heuristic_play_with_nb",
    "highest_card_nb",
    "lowest_card_nb",
    "mix64_nb",
    "player",
    "popcount_nb",
    "randint_nb",
    "random_card_nb",
    "random_play_nb",
    "rank_of_nb",
    "select_bit_nb",
    "suit_mask_nb",
    "suit_of_nb",
    "uniform_nb",
    "unit_nb",
]
