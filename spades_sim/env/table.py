"""One table for learning agents: configuration, the action space, the table itself.

Contract. :class:`TableConfig` (frozen, validated here, at the boundary) holds the rules,
what an episode is (``"hand"`` or ``"game"``) and the built-in policies that play the seats
no agent plays. :class:`Table` owns one table's arrays and calls the kernels of
``spades_sim._nb.env`` (which hold every rule through the engine's own kernels: legal bids
and cards, the deal, the exchanges, the score); it adds only the check of an action
against the pending decision's mask, refused with :class:`IllegalAction` (a
``ValueError``) naming the action and the seat, as is anything that is not a whole number
(:func:`whole_number`: nothing is truncated). Seeds are 0 .. 2**63-1 (:func:`check_seed`).
Nothing here reads a hidden card on a
seat's behalf: :meth:`Table.observe` writes what that seat may know, and
:meth:`Table.render` (the ``ansi`` text) shows a hidden hand only when asked for a
spectator's view.

The action space (``N_ACTIONS`` actions, one ``Discrete`` space for every decision):
card ids ``0 .. 55`` (``spades_sim.cards``; 52 and 53 the jokers, 52..55 the deuces-high
pack's remapped trumps: a card to play, or in a four-player exchange one to pass), then
``BID_ACTION + b`` for a bid of ``b`` tricks (0 is nil), then ``BLIND_NIL_ACTION`` and
``LOOK_ACTION`` (the blind nil turn: declare it, or look at the cards and bid). The
observation's fields are ``OBSERVATION_FIELDS`` (docs/env.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from spades_sim._nb import env as kernels
from spades_sim._nb.enums import N_INFO, PARAM_SLOTS, InfoSlot, MaskSlot
from spades_sim.cards import cards_of, format_card, format_hand, seat_name, side_name
from spades_sim.errors import SpadesError
from spades_sim.policies import Policy, parse_policy, seated_bidders
from spades_sim.policy_table import names_with
from spades_sim.rules import Rules

N_ACTIONS = kernels.N_ACTIONS
N_CARD_ACTIONS = kernels.N_CARD_ACTIONS
BID_ACTION = kernels.BID_ACTION
BLIND_NIL_ACTION = kernels.BLIND_NIL_ACTION
LOOK_ACTION = kernels.LOOK_ACTION
N_OBS = kernels.N_OBS

# field name -> (first index, length): the observation, field by field (docs/env.md)
OBSERVATION_FIELDS: dict[str, tuple[int, int]] = {
    "phase": (kernels.O_PHASE, 5),
    "dealer": (kernels.O_DEALER, 4),
    "hand": (kernels.O_HAND, N_CARD_ACTIONS),
    "passing": (kernels.O_PASSING, N_CARD_ACTIONS),
    "bids": (kernels.O_BIDS, 4 * kernels.BID_WIDTH),
    "tricks_won": (kernels.O_TRICKS_WON, 4),
    "leader": (kernels.O_LEADER, 4),
    "trick": (kernels.O_TRICK, 4 * N_CARD_ACTIONS),
    "previous_trick": (kernels.O_PREV_TRICK, 4 * N_CARD_ACTIONS),
    "played": (kernels.O_PLAYED, 4 * N_CARD_ACTIONS),
    "scores": (kernels.O_SCORES, 4),
    "bags": (kernels.O_BAGS, 4),
    "spades_broken": (kernels.O_BROKEN, 1),
    "trick_number": (kernels.O_TRICK_NO, 1),
    "to_act": (kernels.O_TO_ACT, 4),
}

PHASES = {
    kernels.STAGE_BLIND: "blind nil turns",
    kernels.STAGE_BID: "bidding",
    kernels.STAGE_EXCHANGE: "exchange",
    kernels.STAGE_PLAY: "play",
    kernels.STAGE_OVER: "over",
}
ASKED = {"blind": "blind nil or look", "bid": "a bid", "pass": "a card to pass", "card": "a card"}

DECISIONS = {
    kernels.DECIDE_BLIND: "blind",
    kernels.DECIDE_BID: "bid",
    kernels.DECIDE_PASS: "pass",
    kernels.DECIDE_CARD: "card",
}

# the built-in policies a kernel can call for one decision (no sampling ones)
TABLE_BIDDERS = names_with("bid", "env")
TABLE_PLAYERS = names_with("play", "env")

Episode = Literal["hand", "game"]

MAX_SEED = 2**63 - 1  # the seeds the engine takes (``run.spec.RunSpec``), its int64 streams


def observation_bounds(rules: Rules, episode: Episode) -> tuple[np.ndarray, np.ndarray]:
    """The least and greatest value of every observation entry (``N_OBS`` float32 each),
    the environments' observation spaces: 0 and 1 for every field but the scores and bags,
    which are bounded by what the rules let a side win, lose or collect in the hands of an
    episode (one, or ``max_hands``): per hand at most ten points a contract trick (times
    the big bid multiplier), a bag a trick, both nils, the Boston bonus and a bag penalty
    for every ``bag_limit`` bags a hand could bring on top of those carried."""
    tricks = rules.tricks
    hands = 1 if episode == "hand" else rules.max_hands
    multiplier = rules.big_bid_multiplier if rules.big_bid_threshold is not None else 1
    per_hand = (
        10 * 2 * tricks * multiplier
        + tricks
        + 2 * max(rules.nil_value, rules.blind_nil_value)
        + rules.boston_bonus
        + rules.bag_penalty * ((rules.bag_limit - 1 + tricks) // rules.bag_limit)
    )
    low = np.zeros(N_OBS, dtype=np.float32)
    high = np.ones(N_OBS, dtype=np.float32)
    first, length = OBSERVATION_FIELDS["scores"]
    low[first : first + length] = -hands * per_hand / rules.target
    high[first : first + length] = hands * per_hand / rules.target
    if rules.bag_penalty == 0:  # bags are never reduced
        first, length = OBSERVATION_FIELDS["bags"]
        high[first : first + length] = max(hands * tricks / rules.bag_limit, 1.0)
    return low, high


class IllegalAction(SpadesError):
    """An action the pending decision does not allow (a ``ValueError``)."""


def whole_number(value: object) -> int | None:
    """``value`` as an int if it is a whole number (an int or NumPy integer, a finite
    float with no fraction, or a 0-d array of one; never a bool), else None.

    >>> whole_number(76), whole_number(76.0), whole_number(75.5), whole_number(True)
    (76, 76, None, None)
    """
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if isinstance(value, bool | np.bool_):
        return None
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating) and np.isfinite(value) and value == int(value):
        return int(value)
    return None


def shown(value: object) -> str:
    """A value as an error message quotes it: NumPy scalars as the Python value they hold,
    anything long cut short."""
    if isinstance(value, np.generic):
        value = value.item()
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_seed(seed: object) -> int | None:
    """``seed`` as an int (None stays None) if it is a whole number 0 .. 2**63-1, else a
    ValueError naming it: the environments' ``reset(seed=...)``."""
    if seed is None:
        return None
    value = whole_number(seed) if not isinstance(seed, float | np.floating) else None
    if value is None or not 0 <= value <= MAX_SEED:
        raise ValueError(f"seed: must be a whole number 0 .. 2**63-1, got {shown(seed)}")
    return value


def action_name(action: int, rules: Rules | None = None) -> str:
    """The text of an action: a card (``AS``), a bid (``bid 4``, ``nil``), ``blind nil``
    or ``look``.

    >>> action_name(51), action_name(BID_ACTION + 4), action_name(BID_ACTION)
    ('AS', 'bid 4', 'nil')
    """
    action = int(action)
    if 0 <= action < N_CARD_ACTIONS:
        deuces = rules is not None and rules.deuces_high
        try:
            return format_card(action, deuces_high=deuces)
        except ValueError:
            return f"card {action}"
    if action == BID_ACTION:
        return "nil"
    if BID_ACTION < action < BLIND_NIL_ACTION:
        return f"bid {action - BID_ACTION}"
    if action == BLIND_NIL_ACTION:
        return "blind nil"
    if action == LOOK_ACTION:
        return "look"
    return f"action {action} (outside 0..{N_ACTIONS - 1})"


def table_policy(value: str | Policy, kind: Literal["bid", "play"]) -> Policy:
    """A built-in policy the table's kernels can call for one decision; refuses the
    sampling and user-written ones with a ValueError naming the allowed."""
    policy = parse_policy(value, kind)
    allowed = TABLE_BIDDERS if kind == "bid" else TABLE_PLAYERS
    if not policy.is_builtin or policy.name not in allowed:
        raise ValueError(
            f"{kind} policy {policy.name!r} cannot play a seat of the environment "
            f"(built-in {kind} policies it can: {', '.join(allowed)})"
        )
    return policy


@dataclass(frozen=True)
class TableConfig:
    """What a table plays: ``rules``, the episode (``"hand"``: one hand from a fresh
    score; ``"game"``: hands until the game ends), and the built-in bid and play policy
    of each seat (used for the seats and decisions no agent takes; names or
    :class:`~spades_sim.policies.Policy`, checked by :func:`table_policy`)."""

    rules: Rules = field(default_factory=Rules)
    episode: Episode = "hand"
    bidding: tuple[str | Policy, ...] = ("count", "count", "count", "count")
    play: tuple[str | Policy, ...] = ("heuristic", "heuristic", "heuristic", "heuristic")

    def __post_init__(self) -> None:
        if not isinstance(self.rules, Rules):
            raise ValueError(f"rules: expected a Rules, got {self.rules!r}")
        if self.episode not in ("hand", "game"):
            raise ValueError(f"episode: must be 'hand' or 'game', got {self.episode!r}")
        if len(self.bidding) != 4 or len(self.play) != 4:
            raise ValueError("bidding and play: one policy per seat (four entries)")
        for value in self.bidding:
            table_policy(value, "bid")
        for value in self.play:
            table_policy(value, "play")

    def params(self) -> np.ndarray:
        """The kernels' parameter rows: bid policy of seats 0..3, play policy of seats
        0..3, the two-player draw policy (its default); each followed by the seats'
        bidders (``policies.seated_bidders``), which the sampling players read the bids by."""
        out = np.zeros((9, PARAM_SLOTS), dtype=np.float64)
        bidders = [table_policy(self.bidding[s], "bid") for s in range(4)]
        for s in range(4):
            out[s] = bidders[s].lower()
            out[4 + s] = table_policy(self.play[s], "play").lower()
        out[8] = Policy.of("threshold", "draw").lower()
        return seated_bidders(out, bidders)


class Table:
    """One table advanced by the kernels; ``agents`` are the seats whose decisions come
    from :meth:`apply` (a set of seats; ``bids`` false leaves the agents' blind nil turns
    and bids to their built-in bidder)."""

    def __init__(self, config: TableConfig, agents: Sequence[int], bids: bool = True) -> None:
        self.config = config
        self.rules = config.rules
        self.players = config.rules.players
        self._lowered = config.rules.lower()
        self._params = config.params()
        bits = 0
        for seat in agents:
            if not 0 <= seat < self.players:
                raise ValueError(f"seat {seat} is not at a table of {self.players} players")
            bits |= 1 << seat
            if bids:
                bits |= 1 << (seat + 4)
        self._agents = bits
        self._scratch = kernels.new_env_scratch_nb(self._lowered)
        self.info = np.zeros(N_INFO, dtype=np.int64)
        self.hid = np.zeros(kernels.N_HID, dtype=np.uint64)
        self.ext = np.zeros(kernels.N_EXT, dtype=np.int64)
        self._mask = np.zeros(N_ACTIONS, dtype=np.bool_)
        # (seat, decision, action) of the episode's hands, in order
        self.history: list[tuple[int, str, int]] = []

    def reset(self, seed: int, episode: int, table: int = 0) -> None:
        """Start episode ``episode`` of table ``table`` from ``seed`` and run it to the
        first agent decision."""
        game = self.config.episode == "game"
        kernels.reset_nb(self._lowered, self.info, self.hid, self.ext, self._scratch,
                         self._params, seed, table, episode, game)  # fmt: skip
        self.history = []
        self._advance()

    def _advance(self) -> None:
        kernels.advance_nb(self._lowered, self.info, self.hid, self.ext, self._scratch,
                           self._params, self._agents)  # fmt: skip
        kernels.legal_actions_nb(self._lowered, self.info, self.hid, self.ext, self._mask)

    @property
    def to_act(self) -> int:
        """The seat whose decision is pending (-1 when the episode is over)."""
        return int(self.ext[kernels.E_TO_ACT])

    @property
    def decision(self) -> str | None:
        """What the seat to act decides: ``"blind"`` (its blind nil turn), ``"bid"``,
        ``"pass"`` (a card to pass in an exchange) or ``"card"`` (a card to play); None
        when the episode is over."""
        return DECISIONS.get(int(self.ext[kernels.E_DECISION]))

    @property
    def over(self) -> bool:
        return bool(self.ext[kernels.E_STAGE] == kernels.STAGE_OVER and self.ext[kernels.E_OVER])

    @property
    def hands_played(self) -> int:
        return int(self.ext[kernels.E_HANDS])

    def legal_mask(self) -> np.ndarray:
        """The pending decision's legal actions (a copy, ``N_ACTIONS`` bools)."""
        return self._mask.copy()

    def check(self, action: int) -> int:
        """``action`` as an int if the pending decision allows it, else IllegalAction."""
        seat = self.to_act
        value = whole_number(action)
        if value is None:
            who = f"seat {seat_name(seat, self.players)} to act" if seat >= 0 else "episode over"
            raise IllegalAction(
                f"action {shown(action)} is not a whole number ({who}; actions are "
                f"0 .. {N_ACTIONS - 1})"
            )
        if seat < 0:
            raise IllegalAction(f"action {value} ({action_name(value)}): the episode is over")
        if not (0 <= value < N_ACTIONS and self._mask[value]):
            legal = ", ".join(action_name(int(a), self.rules) for a in np.flatnonzero(self._mask))
            raise IllegalAction(
                f"illegal action {value} ({action_name(value, self.rules)}) for seat "
                f"{seat_name(seat, self.players)}; legal: {legal}"
            )
        return value

    def apply(self, action: int) -> None:
        """Apply a legal action of the seat to act (IllegalAction otherwise), then run the
        table to the next agent decision or the end of the episode."""
        value = self.check(action)
        self.history.append((self.to_act, self.decision or "", value))
        kernels.apply_nb(self._lowered, self.info, self.hid, self.ext, value)
        self._advance()

    def take_rewards(self) -> np.ndarray:
        """Points each side scored since the last call (int64, one per side slot, 4)."""
        out = self.ext[kernels.E_REWARD : kernels.E_REWARD + 4].copy()
        self.ext[kernels.E_REWARD : kernels.E_REWARD + 4] = 0
        return out

    def observe(self, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """What ``seat`` may know, as ``N_OBS`` float32 (``OBSERVATION_FIELDS``)."""
        if out is None:
            out = np.zeros(N_OBS, dtype=np.float32)
        kernels.observe_nb(self._lowered, self.info, self.hid, self.ext, seat, out)
        return out

    def hands_at_play(self) -> list[int]:
        """The hands as play began (after any exchange): the engine's hidden state, for
        checks against the reference engine, never for an observation."""
        return [int(self.hid[MaskSlot.hands + s]) for s in range(self.players)]

    def side_of(self, seat: int) -> int:
        return self.rules.side_of(seat)

    def render(self, seats: Sequence[int], as_seen: bool) -> str:
        """The table as text (the environments' ``ansi`` render): a header (hand, dealer,
        phase), a line per seat (its hand, its bid, blind nil marked, its tricks), the
        trick in play and the last one, the score and bags of every side, who acts. The
        hands of ``seats`` are written: with ``as_seen`` as each sees its own
        (nothing before it has looked), else as they are (a spectator's view); the others
        are ``(hidden)``. It reads the table only."""
        info, ext, players, rules = self.info, self.ext, self.players, self.rules
        deuces = rules.deuces_high

        def card(c: int) -> str:
            return format_card(int(c), deuces_high=deuces)

        def field(obs: np.ndarray, name: str) -> int:
            first, length = OBSERVATION_FIELDS[name]
            return sum(1 << int(c) for c in np.flatnonzero(obs[first : first + length]))

        stage = int(ext[kernels.E_STAGE])
        number = self.hands_played + (stage != kernels.STAGE_OVER)
        dealer = seat_name(int(ext[kernels.E_DEALER]), players)
        lines = [f"hand {number}, dealer {dealer}, {PHASES[stage]}"]
        names = [seat_name(s, players) for s in range(players)]
        rows = []
        for s in range(players):
            passing = 0
            if s not in seats:
                hand = "(hidden)"
            else:
                obs = self.observe(s)
                passing = field(obs, "passing")
                held = field(obs, "hand")
                if not as_seen or stage == kernels.STAGE_OVER:  # over: the cards left
                    slot = (
                        MaskSlot.work
                        if stage in (kernels.STAGE_PLAY, kernels.STAGE_OVER)
                        else MaskSlot.hands
                    )
                    held = int(self.hid[slot + s]) & ~passing
                if held or passing:
                    hand = format_hand(held, deuces_high=deuces) if held else "-"
                elif stage == kernels.STAGE_BLIND:
                    hand = "(before the draw)"
                elif stage == kernels.STAGE_BID:
                    hand = "(not looked at)"
                else:
                    hand = "-"
            bid = int(info[InfoSlot.bids + s])
            kind = int(info[InfoSlot.nil + s])
            said = ("no bid yet" if bid < 0 else "blind nil" if kind == 2
                    else "nil" if kind == 1 else f"bid {bid}")  # fmt: skip
            won = f"tricks {int(info[InfoSlot.tricks_won + s])}"
            if passing:
                won += ", passing " + " ".join(card(c) for c in cards_of(passing))
            rows.append((names[s], hand, said, won))
        widths = [max(len(row[k]) for row in rows) for k in range(3)]
        for row in rows:
            lines.append("  ".join(f"{row[k]:<{widths[k]}}" for k in range(3)) + "  " + row[3])
        if stage == kernels.STAGE_PLAY:
            leader = int(info[InfoSlot.leader])
            n_in = int(info[InfoSlot.n_in_trick])
            cards = [f"{names[(leader + i) % players]} {card(info[InfoSlot.trick_cards + i])}"
                     for i in range(n_in)]  # fmt: skip
            now = ", ".join(cards) if cards else f"{names[leader]} to lead"
            lines.append(f"trick {int(info[InfoSlot.trick]) + 1} of {rules.tricks}: {now}")
        prev = int(ext[kernels.E_PREV_LEADER])
        if prev >= 0:
            cards = [f"{names[(prev + i) % players]} "
                     f"{card(ext[kernels.E_PREV_TRICK + (prev + i) % players])}"
                     for i in range(players)]  # fmt: skip
            winner = names[int(info[InfoSlot.leader])]
            lines.append(f"last trick: {', '.join(cards)}; won by {winner}")
        sides = []
        for side in range(rules.sides):
            name = side_name(side, players) if rules.sides == 2 else seat_name(side, players)
            score = int(info[InfoSlot.scores + side])
            sides.append(f"{name} {score} (bags {int(info[InfoSlot.bags + side])})")
        lines.append("score: " + ", ".join(sides))
        if self.to_act >= 0:
            lines.append(f"to act: {names[self.to_act]} ({ASKED[self.decision or '']})")
        elif self.over:
            lines.append("game over" if self.config.episode == "game" else "hand over")
        return "\n".join(lines)


def as_rules(rules: Rules | str | None) -> Rules:
    """A :class:`~spades_sim.rules.Rules`, a preset's name, or None for the standard."""
    if rules is None:
        return Rules()
    if isinstance(rules, str):
        return Rules.preset(rules)
    if not isinstance(rules, Rules):
        raise ValueError(f"rules: expected a Rules or a preset name, got {rules!r}")
    return rules


def learner_seats(rules: Rules, seat: int, side: bool) -> list[int]:
    """The seats the learner plays: ``seat``, and with ``side`` its partner too (four
    players in partnerships only; a ValueError otherwise)."""
    if not side:
        return [seat]
    if rules.players != 4 or not rules.partnerships:
        raise ValueError("side: a learner side needs four players in partnerships")
    return [seat, seat ^ 2]


def learner_config(
    rules: Rules | str | None = None,
    seat: int = 0,
    partner: str | Policy = "heuristic",
    opponents: str | Policy = "heuristic",
    bidding: str | Policy = "count",
    episode: Episode = "hand",
) -> TableConfig:
    """The table of one learner at ``seat``: its partner (``seat ^ 2`` with four players in
    partnerships) plays ``partner``, every other seat ``opponents``, and every seat bids
    by ``bidding`` when no agent bids for it (the learner's own bids too, when it leaves
    them to the engine)."""
    rules = as_rules(rules)
    if not isinstance(seat, int | np.integer) or not 0 <= seat < rules.players:
        raise ValueError(f"seat: must be 0..{rules.players - 1}, got {seat!r}")
    has_partner = rules.players == 4 and rules.partnerships
    play = tuple(partner if has_partner and s == seat ^ 2 else opponents for s in range(4))
    return TableConfig(rules=rules, episode=episode, bidding=(bidding,) * 4, play=play)
