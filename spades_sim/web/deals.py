"""The deal viewer's data: a deal from a run under ``--runs`` (or typed in), replayed card
by card with each card's double-dummy value.

Contract
--------
:func:`run_path` resolves a run named by the page against the runs directory the server
was started with, refusing (one :class:`~spades_sim.errors.SpadesError` line) an absolute
path, a ``..`` component, anything that resolves outside the directory (a symlink out
included) and a missing run; nothing outside the directory is read. :func:`run_deal`
regenerates deal ``K`` of a hands run from its manifest (as ``spades-sim show`` does),
with its bids, tricks and score; :func:`typed_deal` checks a deal typed in (four hands,
the dealer, optional bids and cards played). :func:`replay` walks the play: before each
card, every legal card of the seat to play with the tricks its side ends the hand with
if it plays that card and everyone plays perfectly after (the side's tricks so far plus
:func:`~spades_sim.solve.dd_cards`), as bridge viewers mark cards; after each card, for
each nil seat, whether the nil is still safe against best defence
(:func:`~spades_sim.solve.nil_safe`; a nil that has taken a trick is lost).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from spades_sim.cards import SEAT_NAMES, SIDE_NAMES, cards_of, check_deal, format_card, parse_cards
from spades_sim.dataset import read_manifest
from spades_sim.errors import SpadesError
from spades_sim.rules import Rules
from spades_sim.run import spec_from_meta
from spades_sim.run.chunks import run_chunk
from spades_sim.solve import Position, dd_cards, nil_safe
from spades_sim.web.query import BLIND, PRESETS, bid_text, parse_bid

__all__ = ["DealView", "replay", "run_deal", "run_path", "typed_deal"]

MAX_RUN_PATH = 300


@dataclass(frozen=True)
class DealView:
    """One deal to replay: hands as play began (masks, by seat), dealer, bids (nil 0,
    blind nil -1, or ``None`` where unknown), the cards in play order, the rules, and
    where it came from (words for the page); ``scores`` the side's points this hand where
    known."""

    hands: tuple[int, ...]
    dealer: int
    bids: tuple[int | None, ...]
    plays: tuple[int, ...]
    rules: Rules
    source: str
    scores: tuple[int, int] | None = None


def run_path(runs: Path | None, name: str) -> Path:
    """The run directory ``name`` names under ``runs`` (module docstring)."""
    if runs is None:
        raise SpadesError("no runs directory: start the server with --runs DIR to open runs")
    if not name or len(name) > MAX_RUN_PATH or "\x00" in name:
        raise SpadesError("run: give the run's path under the runs directory")
    pure = PurePosixPath(name.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts or name.startswith("~"):
        raise SpadesError(f"run {name!r}: give a path inside the runs directory, without ..")
    root = runs.resolve()
    path = (root / pure).resolve()
    if not path.is_relative_to(root):
        raise SpadesError(f"run {name!r}: it leads outside the runs directory")
    if not (path / "_manifest.json").is_file():
        raise SpadesError(f"run {name!r}: no run there (no _manifest.json)")
    return path


def run_deal(path: Path, index: int, label: str) -> DealView:
    """Deal ``index`` of the hands run at ``path`` (already resolved by :func:`run_path`)."""
    meta = read_manifest(str(path))["meta"]
    spec = spec_from_meta(meta)
    if spec.mode != "hands":
        raise SpadesError(f"run {label!r} is a games run: the viewer shows deals of hands runs")
    if spec.rules.players != 4 or not spec.rules.partnerships or spec.rules.jokers:
        raise SpadesError(f"run {label!r}: the viewer shows four-player partnership runs only")
    total = meta.get("total")
    if isinstance(total, int) and not 0 <= index < total:
        raise SpadesError(f"deal: run {label!r} holds deals 0..{total - 1}, got {index}")
    spec = dataclasses.replace(spec, record_play=True)
    chunk = run_chunk(spec, 0, index, 1)
    assert chunk.plays is not None
    h = chunk.hands
    bids = tuple(
        BLIND if int(h["blind_nil"][s]) else 0 if int(h["nil"][s]) else int(h["bid"][s])
        for s in range(4)
    )
    return DealView(
        hands=tuple(int(v) for v in h["hand"][:4]),
        dealer=int(h["dealer"][0]),
        bids=bids,
        plays=tuple(int(v) for v in chunk.plays["plays"][0]),
        rules=spec.rules,
        source=f"run {label}, deal {index}",
        scores=(int(h["score_change"][0]), int(h["score_change"][1])),
    )


def typed_deal(query: Mapping[str, str]) -> DealView:
    """A deal typed into the viewer: ``n``, ``e``, ``s``, ``w`` (hands), ``dealer``,
    optional ``bids`` (``N4,E3,Snil,W2``), ``play`` (cards in order) and ``rules``."""
    preset = query.get("rules", "standard").strip() or "standard"
    if preset not in PRESETS:
        raise SpadesError(f"rules: {preset!r} is not a preset this page offers")
    rules = Rules.preset(preset)
    hands = check_deal([query.get(k, "") for k in "nesw"], players=4)
    dealer_text = query.get("dealer", "W").strip().upper()[:1]
    if dealer_text not in SEAT_NAMES:
        raise SpadesError(f"dealer: expected N, E, S or W, got {query.get('dealer')!r}")
    bids: list[int | None] = [None] * 4
    for item in (i.strip() for i in query.get("bids", "").split(",")):
        if not item:
            continue
        seat = item[0].upper()
        if seat not in SEAT_NAMES:
            raise SpadesError(f"bid {item!r}: start with the seat, as N4 or Snil")
        bids[SEAT_NAMES.index(seat)] = parse_bid(item[1:].lstrip("=:"), rules, item)
    try:
        plays = tuple(parse_cards(query.get("play", "").strip())) if query.get("play") else ()
    except ValueError as error:
        raise SpadesError(f"play: {error}") from None
    if len(plays) > 52:
        raise SpadesError(f"play: a hand has 52 cards to play, got {len(plays)}")
    return DealView(
        hands=tuple(hands),
        dealer=SEAT_NAMES.index(dealer_text),
        bids=tuple(bids),
        plays=plays,
        rules=rules,
        source="a deal typed in",
    )


def _names(mask: int) -> list[str]:
    return [format_card(c) for c in sorted(cards_of(mask), key=lambda c: (-(c // 13), -c))]


def replay(deal: DealView) -> dict[str, Any]:
    """The replay the viewer steps through (module docstring), as plain values."""
    pos = Position.start(list(deal.hands), deal.dealer, deal.rules)
    nils = [s for s in range(4) if deal.bids[s] is not None and deal.bids[s] in (0, BLIND)]
    won = [0, 0]  # tricks by side so far
    seat_tricks = [0, 0, 0, 0]
    safe = {s: nil_safe(pos, s) for s in nils}
    steps = []
    opening = {SEAT_NAMES[s]: ok for s, ok in safe.items()}
    trick: list[tuple[int, int]] = []
    for k, card in enumerate(deal.plays):
        seat = pos.to_play
        side = seat % 2
        values = {name: won[side] + v for name, v in dd_cards(pos).items()}
        name = format_card(card)
        try:
            # the position after the last card holds no card, which Position refuses
            nxt = pos.play(card) if k + 1 < 52 else None
        except SpadesError as error:
            raise SpadesError(f"play {k + 1} ({SEAT_NAMES[seat]} {name}): {error}") from None
        if nxt is None and card not in pos.legal_cards():
            raise SpadesError(f"play 52 ({SEAT_NAMES[seat]} {name}): not the card left")
        trick.append((seat, card))
        winner = None
        if len(trick) == 4:
            winner = nxt.to_play if nxt is not None else _last_winner(trick)
            won[winner % 2] += 1
            seat_tricks[winner] += 1
            trick = []
        for s in nils:
            if seat_tricks[s]:
                safe[s] = False
            elif nxt is not None and (safe[s] or seat % 2 != s % 2):
                # a defender's error can make a lost nil safe again: ask again after theirs
                safe[s] = nil_safe(nxt, s)
        steps.append(
            {
                "seat": SEAT_NAMES[seat],
                "card": name,
                "values": values,
                "best": max(values.values()),
                "played": values[name],
                "winner": None if winner is None else SEAT_NAMES[winner],
                "won": list(won),
                "nil_safe": {SEAT_NAMES[s]: safe[s] for s in nils},
            }
        )
        if nxt is not None:
            pos = nxt
    final_values = (
        {name: won[pos.to_play % 2] + v for name, v in dd_cards(pos).items()}
        if len(deal.plays) < 52
        else {}
    )
    return {
        "source": deal.source,
        "dealer": SEAT_NAMES[deal.dealer],
        "leader": SEAT_NAMES[(deal.dealer + 1) % 4],
        "hands": {SEAT_NAMES[s]: _names(deal.hands[s]) for s in range(4)},
        "bids": {
            SEAT_NAMES[s]: (None if b is None else bid_text(b)) for s, b in enumerate(deal.bids)
        },
        "nil_safe_opening": opening,
        "steps": steps,
        "next": {"seat": SEAT_NAMES[pos.to_play], "values": final_values},
        "sides": list(SIDE_NAMES),
        "scores": None if deal.scores is None else list(deal.scores),
    }


def _last_winner(trick: list[tuple[int, int]]) -> int:
    """The winner of a finished trick: the highest spade, else the highest of the suit led."""
    spades = [(c, s) for s, c in trick if c // 13 == 3]
    led = trick[0][1] // 13
    pool = spades or [(c, s) for s, c in trick if c // 13 == led]
    return max(pool)[1]
