"""The nil atlas's double-dummy stage (``analyses/nil_atlas.py``): its verdicts are the
public solver's, the pairings are counted on the same deals, and a larger request solves
only the deals not yet solved."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from spades_sim import Rules
from spades_sim.solve import Position, nil_safe

ROOT = Path(__file__).resolve().parents[1]


def _atlas():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("nil_atlas", ROOT / "analyses" / "nil_atlas.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # compiles the solver's nil kernels
def test_dd_stage_equals_the_solver_and_resumes(tmp_path: Path) -> None:
    atlas = _atlas()
    runs = tmp_path / "runs"
    atlas.simulate(runs, 40, seed=7, threads=None)
    first = atlas.dd_stage(runs, tmp_path, 12)
    assert len(first) == 12 and (tmp_path / "dd.parquet").exists()
    more = atlas.dd_stage(runs, tmp_path, 30)
    assert len(more) == 30 and more.head(12).equals(first)
    bidders = atlas.nil_bidders(runs, 30).set_index("deal")
    for row in more.itertuples():
        b = bidders.loc[row.deal]
        hands = [int(b[f"hand_{s}"]) for s in range(4)]
        pos = Position(hands, int(b.leader), first_trick=True, rules=Rules())
        assert row.dd_safe == nil_safe(pos, int(row.seat)), row.deal
        assert row.made == b.made
    (overall,) = atlas.dd_rows(more, None, min_n=1)
    pairs = ("safe_made", "safe_lost", "unsafe_made", "unsafe_lost")
    assert sum(overall[k] for k in pairs) == 30
    assert (
        overall["safe"].n == 30
        and overall["safe_made"] + overall["safe_lost"] == more.dd_safe.sum()
    )
    section, headline = atlas.dd_section(more)
    assert section.title == "Against perfect defence" and headline["dd_deals"] == 30


def test_a_run_too_small_for_the_shape_tables_reports_without_them(tmp_path: Path) -> None:
    # no shape of 40 deals reaches the 2,000 deals the shape tables take
    _atlas().main(["--out", str(tmp_path), "--hands", "40", "--dd-deals", "0"])
    headline = json.loads((tmp_path / "headline.json").read_text())
    assert headline["deals"] == 40 and headline["best_shape"] is None
    assert headline["best_sentences"] == []
    assert "No shape has the 2,000 deals the shape tables take" in (
        tmp_path / "report.html"
    ).read_text(encoding="utf-8")
