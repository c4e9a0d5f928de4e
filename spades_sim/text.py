"""Text for people: rules, policies, sides, figures and one hand played out.

Contract
--------
The one place the package words its objects for a reader, so the command line, the run
summaries (:meth:`spades_sim.run.summary.RunSummary.format`), the nil odds and the reports say
them the same way:

- :func:`policy_text`: a policy as ``name[:param=value,...]``, parameters off their
  defaults only; :func:`sides_text` one text per side, or one for both when they agree;
- :func:`rules_text`: the rules as the closest preset plus the fields that differ;
- :func:`side_name`: ``N-S``/``E-W``, or the player with two players;
- :func:`percent`, :func:`number`: a figure, ``n/a`` for NaN;
- :func:`rules_listing`, :func:`policies_listing`: what ``spades-sim rules`` and
  ``spades-sim policies`` print;
- :func:`render_hand`: what ``spades-sim show`` prints for one deal.

Everything here takes plain values (meta dicts, a ``RunSpec``) and returns a string;
nothing prints. A mistake in the input (a hand number a game does not have) raises
``ValueError``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from spades_sim.cards import SIDE_NAMES, format_card, format_hand, seat_name, side_name
from spades_sim.policies import describe, lookup
from spades_sim.rules import BID_RULES, FIRST_LEADS, SHORTFALLS, SPADES_LEADS, Rules

__all__ = [
    "SIDE_NAMES",
    "number",
    "percent",
    "policies_listing",
    "policy_text",
    "render_hand",
    "rules_listing",
    "rules_text",
    "side_name",
    "sides_text",
    "value_text",
]


# --------------------------------------------------------------------------------------
# Figures and values
# --------------------------------------------------------------------------------------


def percent(x: float) -> str:
    """A share as a percentage with two decimals; ``n/a`` for NaN.

    >>> percent(0.12345), percent(float("nan"))
    ('12.35%', 'n/a')
    """
    return "n/a" if math.isnan(x) else f"{x:.2%}"


def number(x: float, spec: str) -> str:
    """``format(x, spec)``; ``n/a`` for NaN.

    >>> number(1234.5, ",.0f"), number(float("nan"), ".3f")
    ('1,234', 'n/a')
    """
    return "n/a" if math.isnan(x) else format(x, spec)


def value_text(value: Any) -> str:
    """A rule value as ``--set`` takes it: ``off`` for None, ``true``/``false`` for bools.

    >>> value_text(None), value_text(True), value_text(500)
    ('off', 'true', '500')
    """
    if value is None:
        return "off"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# --------------------------------------------------------------------------------------
# Policies and rules
# --------------------------------------------------------------------------------------


def policy_text(d: Mapping[str, Any], kind: str | None = None) -> str:
    """``name[:param=value,...]``, listing only the parameters off their defaults.

    ``d`` is a policy as the run meta stores it (``Policy.to_dict()``); with ``kind``
    (``"bid"``, ``"play"``, ``"draw"``) the defaults of a built-in are left out.

    >>> policy_text({"name": "count", "params": {"bias": 1.0, "nil_threshold": 2.5}}, "bid")
    'count:bias=1'
    """
    params = dict(d.get("params") or {})
    name = str(d.get("name", "?"))
    if kind is not None and d.get("builtin", True):
        try:
            defaults = {p.name: p.default for p in lookup(name, kind).params}  # type: ignore[arg-type]
        except ValueError:
            defaults = {}
        params = {k: v for k, v in params.items() if defaults.get(k) != v}
    if not params:
        return name
    return name + ":" + ",".join(f"{k}={v:g}" for k, v in params.items())


def sides_text(texts: Sequence[str], joiner: str = " / ") -> str:
    """One text for both sides when they agree, else ``A (N-S) / B (E-W)``.

    >>> sides_text(["count", "count"]), sides_text(["count", "pagat"], " vs ")
    ('count', 'count (N-S) vs pagat (E-W)')
    """
    a, b = texts
    return a if a == b else f"{a} ({SIDE_NAMES[0]}){joiner}{b} ({SIDE_NAMES[1]})"


def side_policies_text(pair: Sequence[Any], joiner: str = " / ") -> str:
    """Both sides' :class:`~spades_sim.policies.Policy` objects as :func:`sides_text`."""
    return sides_text([policy_text(p.to_dict(), p.kind) for p in pair], joiner)


def rules_text(rules: Mapping[str, Any]) -> str:
    """The rules as the closest preset plus the fields that differ from it.

    >>> rules_text({"target": 300})
    'standard target=300'
    """
    try:
        current = Rules(**rules).to_dict()
    except (TypeError, ValueError):
        return json.dumps(rules)
    best: tuple[int, str, dict[str, Any]] | None = None
    for name in Rules.PRESETS:
        base = Rules.preset(name).to_dict()
        diff = {k: v for k, v in current.items() if base.get(k) != v}
        if best is None or len(diff) < best[0]:
            best = (len(diff), name, diff)
    assert best is not None
    _, name, diff = best
    extra = " ".join(f"{k}={json.dumps(v)}" for k, v in diff.items())
    return f"{name} {extra}".strip()


def rules_listing() -> str:
    """The presets and every rule field with its default (``spades-sim rules``).

    >>> rules_listing().splitlines()[0]
    'presets (--rules NAME):'
    """
    default = Rules()
    lines = ["presets (--rules NAME):"]
    for name, changes in Rules.PRESETS.items():
        text = " ".join(f"{k}={value_text(v)}" for k, v in changes.items()) or "(the defaults)"
        lines.append(f"  {name:20s} {text}")
    lines.append("")
    lines.append("fields (--set FIELD=VALUE), with their defaults:")
    choices = {
        "first_lead": FIRST_LEADS,
        "spades_lead": SPADES_LEADS,
        "bid_rule": BID_RULES,
        "min_side_bid_shortfall": SHORTFALLS,
    }
    for f in dataclasses.fields(Rules):
        kind = {"bool": "true/false", "int": "whole number", "int | None": "whole number or off"}
        allowed = " | ".join(choices[f.name]) if f.name in choices else kind.get(str(f.type), "")
        value = value_text(getattr(default, f.name))
        lines.append(f"  {f.name:30s} {value:16s} {allowed}")
    return "\n".join(lines)


def policies_listing() -> str:
    """The built-in policies, their parameters and sources (``spades-sim policies``).

    >>> policies_listing().splitlines()[0]
    'bidding policies (--bidding / --ns-bidding / --ew-bidding NAME[:param=value,...]):'
    """
    heads = {
        "bid": "bidding policies (--bidding / --ns-bidding / --ew-bidding NAME[:param=value,...]):",
        "play": "play policies (--play / --ns-play / --ew-play NAME[:param=value,...]):",
        "draw": "draw policies (two players; --draw NAME[:param=value,...]):",
    }
    lines: list[str] = []
    for kind, head in heads.items():
        specs = describe(kind)  # type: ignore[arg-type]
        if not specs:
            continue
        if lines:
            lines.append("")
        lines.append(head)
        for spec in specs:
            lines.append(f"  {spec.name}")
            lines += textwrap.wrap(
                spec.summary, width=92, initial_indent="      ", subsequent_indent="      "
            )
            for prm in spec.params:
                lines.append(f"      {prm.name}={prm.default:g} ({prm.range_text()}): {prm.help}")
            lines.append(f"      source: {spec.source}")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------
# One hand played out
# --------------------------------------------------------------------------------------


def render_hand(spec: Any, index: int, hand_no: int = 0) -> str:
    """The text ``show`` prints for deal ``index`` (or hand ``hand_no`` of game ``index``).

    ``spec`` is a :class:`~spades_sim.run.spec.RunSpec` with ``record_play=True``; the
    deal is regenerated (the same as in any run of that spec). ``ValueError`` for a hand
    number the game does not have.

    >>> from spades_sim.simulate import RunSpec
    >>> text = render_hand(RunSpec.build(seed=1, record_play=True), 0)
    >>> text.splitlines()[0]
    'deal 0 of seed 1 · rules standard · bidding count · play heuristic'
    """
    # the run layer sits above this module (its summaries are worded here), so the deal
    # is regenerated through it at call time
    from spades_sim.run.chunks import run_chunk

    chunk = run_chunk(spec, 0, index, 1)
    assert chunk.plays is not None
    players = spec.rules.players
    h, p = chunk.hands, chunk.plays
    if spec.mode == "games":
        n_hands = len(p["hand_no"])
        if hand_no >= n_hands:
            raise ValueError(f"game {index} has {n_hands} hands (--hand 0..{n_hands - 1})")
        rows = np.flatnonzero(h["hand_no"] == hand_no)
        slot = int(np.flatnonzero(p["hand_no"] == hand_no)[0])
    else:
        if hand_no:
            raise ValueError("--hand is for games (with --game)")
        rows = np.arange(players)
        slot = 0

    def col(name: str) -> list[int]:
        return [int(v) for v in h[name][rows]]

    names = [seat_name(s, players) for s in range(players)]
    held = col("hand")
    dealt = [int(v) for v in p["dealt"][slot]]
    plays = [int(v) for v in p["plays"][slot]]
    winners = [int(v) for v in p["trick_winners"][slot]]
    dealer = col("dealer")[0]

    def pair(kind: str, pols: tuple[Any, Any]) -> str:
        return f"{kind} {side_policies_text(pols)}"

    what = (
        f"game {index}, hand {hand_no} of {len(p['hand_no'])}"
        if spec.mode == "games"
        else f"deal {index}"
    )
    lines = [
        f"{what} of seed {spec.seed} · rules {rules_text(spec.rules.to_dict())} · "
        f"{pair('bidding', spec.bidding)} · {pair('play', spec.play)}",
        f"dealer {names[dealer]}" + (" (drew first)" if players == 2 else ""),
        "hands dealt (PBN: spades.hearts.diamonds.clubs):",
    ]
    deuces = spec.rules.deuces_high
    lines += [f"  {names[s]}  {format_hand(dealt[s], deuces)}" for s in range(players)]
    if held != dealt:
        lines.append("hands held in play (after the blind nil exchange):")
        lines += [f"  {names[s]}  {format_hand(held[s], deuces)}" for s in range(players)]
    nil, blind = col("nil"), col("blind_nil")
    bids = col("bid")
    bid_text = [
        "blind nil" if blind[s] else ("nil" if nil[s] else str(bids[s])) for s in range(players)
    ]
    lines.append("bids: " + "  ".join(f"{names[s]} {bid_text[s]}" for s in range(players)))
    lines.append("play (leader first; -> winner):")
    owner = {c: s for s in range(players) for c in range(64) if held[s] >> c & 1}
    for t in range(spec.rules.tricks):  # 13, or 17 or 18 with three players
        cards = plays[t * players : (t + 1) * players]
        seats = [owner.get(c, -1) for c in cards]
        played = "  ".join(
            f"{names[s]} {format_card(c, deuces)}" for s, c in zip(seats, cards, strict=True)
        )
        lines.append(f"  {t + 1:2d}  {played}  -> {names[winners[t]]}")
    tricks = col("tricks")
    lines.append("tricks: " + "  ".join(f"{names[s]} {tricks[s]}" for s in range(players)))
    made = col("made")
    nil_made = col("nil_made")
    for side in range(spec.rules.sides):
        r = [s for s in range(players) if spec.rules.side_of(s) == side]
        first = rows[r[0]]
        label = spec.rules.side_name(side)
        contract = int(h["side_contract"][first])
        outcome = "no contract" if made[r[0]] < 0 else ("made" if made[r[0]] else "set")
        nils = [
            f"{names[s]} {'blind nil' if blind[s] else 'nil'} {'made' if nil_made[s] else 'failed'}"
            for s in r
            if nil_made[s] >= 0
        ]
        text = (
            f"{label}: contract {contract}, tricks {int(h['side_tricks'][first])}, {outcome}"
            + ("; " + ", ".join(nils) if nils else "")
            + f"; score {int(h['score_change'][first]):+d}, bags {int(h['bags_change'][first]):+d}"
        )
        if int(h["bag_penalty"][first]):
            text += f" (bag penalty -{int(h['bag_penalty'][first])})"
        if spec.mode == "games":
            text += (
                f"; total {int(h['score_before'][first])} -> {int(h['score_after'][first])}, "
                f"bags {int(h['bags_before'][first])} -> {int(h['bags_after'][first])}"
            )
        lines.append(text)
    return "\n".join(lines)
