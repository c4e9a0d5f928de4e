"""Double-dummy results of many deals on all cores: :func:`dd_table`.

Contract
--------
``dd_table(deals, ...)`` takes the deals as an array of hand masks (``deals x players``,
with ``dealers``), a per-seat frame with ``deal``, ``seat``, ``hand`` and ``dealer``
columns (the hands table of a run), or a run directory (its hands table and its rules),
and gives one row per deal: ``deal``, ``dealer``, ``leader`` (the opening leader), each
side's tricks from the opening position under double-dummy play (``tricks_ns``,
``tricks_ew``; two players ``tricks_p0``, ``tricks_p1``) and, for every seat, whether a
nil of that seat alone is safe (``nil_N`` ... or ``nil_P0``, ``nil_P1``).

The deals are cut into parts of ``part_size``; each part is solved by
``spades_sim.run.threads.run_blocks`` on the thread pool, one stripe of the part's deals per
thread, each thread with its own fixed-size transposition table (allocated once per
call, ``2**table_bits`` slots). With ``out``, each part is written as
``out/part-NNNNN.parquet`` (under a temporary name, then renamed) and a part already
there is read back instead of solved: an interrupted call resumes where it stopped (a
part there that holds other deals is refused).

``nil_table(hands, leaders, seat, rules=...)`` gives one verdict a deal, the nil of
``seat`` from each deal's opening position (hands as play begins, after any exchange),
on the same thread pool: what ``nil_odds(..., defense="double-dummy")`` asks of the
completions it plays.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from tqdm import tqdm

from spades_sim._nb import dd
from spades_sim.cards import check_deal
from spades_sim.dataset.dd import table_columns
from spades_sim.errors import SpadesError
from spades_sim.rules import FirstLead, Rules
from spades_sim.run.threads import current_threads, run_blocks
from spades_sim.solve.solver import (
    DEFAULT_TABLE_BITS,
    MAX_TABLE_BITS,
    play_rules,
    seat_nil_mask,
)

__all__ = ["dd_table", "nil_table", "table_columns"]

DEFAULT_PART_SIZE = 256
"""Deals a part holds (a few seconds of work on two cores)."""


def _from_frame(frame: pd.DataFrame, players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    missing = [c for c in ("deal", "seat", "hand", "dealer") if c not in frame.columns]
    if missing:
        raise SpadesError(f"deals: the frame lacks column(s) {', '.join(missing)}")
    rows = frame.sort_values(["deal", "seat"])
    ids = rows["deal"].to_numpy()
    deal_ids = ids[::players]
    if len(rows) % players or not np.all(ids.reshape(-1, players) == deal_ids[:, None]):
        raise SpadesError(f"deals: every deal needs one row per seat ({players} players)")
    hands = rows["hand"].to_numpy(dtype=np.uint64).reshape(-1, players)
    dealers = rows["dealer"].to_numpy(dtype=np.int64)[::players]
    return hands, dealers, deal_ids.astype(np.int64)


def _leaders(hands: np.ndarray, dealers: np.ndarray, rules: Rules) -> np.ndarray:
    players = rules.players
    leaders = (dealers + 1) % 4 if players == 4 else 1 - dealers
    if rules.first_lead is FirstLead.TWO_OF_CLUBS:
        leaders = np.argmax((hands & np.uint64(1)) != 0, axis=1)
    return leaders.astype(np.int64)


def _check_deals(hands: np.ndarray, rules: Rules) -> None:
    """Refuse a misdeal among ``hands`` (deals x players masks), naming the deal."""
    for d in range(hands.shape[0]):
        try:
            check_deal(
                [int(h) for h in hands[d]],
                players=rules.players,
                jokers=rules.jokers,
                deuces_high=rules.deuces_high,
            )
        except SpadesError as error:
            raise SpadesError(f"deal {d}: {error}") from None


def _tables(stripes: int, table_bits: int) -> tuple[np.ndarray, np.ndarray]:
    size = 1 << table_bits
    return (
        np.zeros((stripes, dd.KEY_WORDS, size), dtype=np.uint64),
        np.zeros((stripes, size), dtype=np.int64),
    )


def nil_table(
    hands: Any,
    leaders: Sequence[int] | np.ndarray,
    seat: int,
    *,
    rules: Rules,
    table_bits: int = DEFAULT_TABLE_BITS,
) -> np.ndarray:
    """Whether the nil of ``seat`` (an index) is safe in each deal from its opening
    position, ``leaders[d]`` to lead the first trick, every card seen (in cutthroat the
    seat alone against the other three): a bool array.

    ``hands`` is ``deals x players`` masks as play begins (after any exchange); each deal
    is checked as :func:`dd_table` checks them."""
    players = rules.players
    masks = np.asarray(hands, dtype=np.uint64)
    if masks.ndim != 2 or masks.shape[1] != players:
        raise SpadesError(f"hands: expected an array of deals x {players} hand masks")
    lead = np.asarray(leaders, dtype=np.int64)
    if lead.shape != (masks.shape[0],) or np.any((lead < 0) | (lead >= players)):
        raise SpadesError(f"leaders: expected one seat 0..{players - 1} per deal")
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)):
        raise SpadesError(f"seat: expected a seat index, got {seat!r}")
    if not 0 <= seat < players:
        raise SpadesError(f"seat: must be 0..{players - 1}, got {seat}")
    _check_deals(masks, rules)
    n = masks.shape[0]
    safe = np.zeros(n, dtype=np.int64)
    if n == 0:
        return safe.astype(bool)
    full = np.zeros((n, 4), dtype=np.uint64)
    full[:, :players] = masks
    stripes = max(1, min(current_threads(), n))
    keys, data = _tables(stripes, table_bits)
    stats = np.zeros((stripes, dd.STATS), dtype=np.int64)
    nil_masks = np.full(n, seat_nil_mask(int(seat), rules), dtype=np.int64)
    rule_bits = play_rules(rules, nil=True)
    run_blocks(
        dd.nil_table_nb, stripes, np.int64(stripes), full, np.ascontiguousarray(lead),
        nil_masks, np.int64(players), rule_bits, keys, data, safe, stats,
    )  # fmt: skip
    return safe.astype(bool)


def _resumed_part(path: Path, ids: np.ndarray, columns: list[str]) -> pd.DataFrame:
    """A part written by an earlier call, if it holds the deals ``ids`` (a part of other
    deals, from other deals or another ``part_size``, is refused: it is not this table)."""
    frame = pd.read_parquet(path)
    if list(frame.columns) != columns or not np.array_equal(frame["deal"].to_numpy(), ids):
        raise SpadesError(
            f"{path} holds other deals than this call's part {path.stem}: it was written "
            "for other deals or another part_size; give another out, or remove it"
        )
    return frame


def _write(path: Path, frame: pd.DataFrame) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    frame.to_parquet(temporary, index=False)
    os.replace(temporary, path)


def dd_table(
    deals: Any,
    dealers: Sequence[int] | np.ndarray | None = None,
    *,
    rules: Rules | None = None,
    out: str | os.PathLike[str] | None = None,
    part_size: int = DEFAULT_PART_SIZE,
    table_bits: int = DEFAULT_TABLE_BITS,
    progress: bool = False,
) -> pd.DataFrame:
    """Each deal's double-dummy tricks per side from the opening lead and the nil verdict
    of every seat, one row per deal (module docstring)."""
    deal_ids: np.ndarray | None = None
    if isinstance(deals, (str, os.PathLike)):
        # a run directory only: the run layer is not needed for arrays and frames (the
        # spec module itself, not the run package, which solves runs with this function)
        from spades_sim.dataset import load, read_manifest
        from spades_sim.run.spec import spec_from_meta

        spec = spec_from_meta(read_manifest(deals)["meta"])
        if rules is not None and rules != spec.rules:
            raise SpadesError("rules: a run's rules come from its manifest; give none")
        if spec.mode != "hands":
            raise SpadesError(f"{deals} is a games run: dd_table solves runs of hands")
        rules = spec.rules
        deals = load(deals, columns=["deal", "seat", "hand", "dealer"])
    rules = Rules() if rules is None else rules
    if not isinstance(rules, Rules):
        raise SpadesError(f"rules: expected a Rules, got {type(rules).__name__}")
    players = rules.players
    if isinstance(deals, pd.DataFrame):
        if dealers is not None:
            raise SpadesError("dealers: a frame of deals holds its own dealer column")
        hands, dealer_arr, deal_ids = _from_frame(deals, players)
    else:
        hands = np.asarray(deals, dtype=np.uint64)
        if hands.ndim != 2 or hands.shape[1] != players:
            raise SpadesError(f"deals: expected an array of deals x {players} hand masks")
        if dealers is None:
            raise SpadesError("dealers: give the dealer of each deal")
        dealer_arr = np.asarray(dealers, dtype=np.int64)
        if dealer_arr.shape != (hands.shape[0],) or np.any(
            (dealer_arr < 0) | (dealer_arr >= players)
        ):
            raise SpadesError(f"dealers: expected one seat 0..{players - 1} per deal")
    _check_deals(hands, rules)
    if isinstance(part_size, bool) or not isinstance(part_size, int) or part_size < 1:
        raise SpadesError(f"part_size: must be a positive int, got {part_size!r}")
    if (
        isinstance(table_bits, bool)
        or not isinstance(table_bits, int)
        or not (10 <= table_bits <= MAX_TABLE_BITS)
    ):
        raise SpadesError(f"table_bits: must be 10..{MAX_TABLE_BITS}, got {table_bits!r}")
    n = hands.shape[0]
    ids = np.arange(n, dtype=np.int64) if deal_ids is None else deal_ids
    leaders = _leaders(hands, dealer_arr, rules)
    full = np.zeros((n, 4), dtype=np.uint64)
    full[:, :players] = hands
    out_dir = Path(out) if out is not None else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    stripes = max(1, current_threads())
    tables: tuple[np.ndarray, np.ndarray] | None = None
    rule_bits = play_rules(rules)
    columns = table_columns(players)
    frames = []
    starts = range(0, n, part_size)
    bar = None
    if progress:
        bar = tqdm(total=n, unit="deal", desc="solving")
    try:
        for k, start in enumerate(starts):
            end = min(n, start + part_size)
            path = out_dir / f"part-{k:05d}.parquet" if out_dir is not None else None
            if path is not None and path.exists():
                frames.append(_resumed_part(path, ids[start:end], columns))
            else:
                if tables is None:
                    tables = _tables(stripes, table_bits)
                tricks = np.zeros((end - start, 2), dtype=np.int64)
                nil = np.zeros((end - start, 4), dtype=np.int64)
                stats = np.zeros((stripes, dd.STATS), dtype=np.int64)
                part_hands = np.ascontiguousarray(full[start:end])
                part_leaders = np.ascontiguousarray(leaders[start:end])
                run_blocks(
                    dd.dd_table_nb, stripes, np.int64(stripes), part_hands, part_leaders,
                    np.int64(players), rule_bits, tables[0], tables[1], tricks, nil, stats,
                )  # fmt: skip
                part = {
                    "deal": ids[start:end],
                    "dealer": dealer_arr[start:end].astype(np.int8),
                    "leader": leaders[start:end].astype(np.int8),
                    columns[3]: tricks[:, 0].astype(np.int8),
                    columns[4]: tricks[:, 1].astype(np.int8),
                }
                for s in range(players):
                    part[columns[5 + s]] = nil[:, s].astype(bool)
                frame = pd.DataFrame(part, columns=columns)
                if path is not None:
                    _write(path, frame)
                frames.append(frame)
            if bar is not None:
                bar.update(end - start)
    finally:
        if bar is not None:
            bar.close()
    if not frames:
        return pd.DataFrame({c: pd.Series(dtype="int64") for c in columns})
    return pd.concat(frames, ignore_index=True)
