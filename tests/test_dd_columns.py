"""Double-dummy columns in runs: ``dd_side_tricks`` and ``dd_nil_safe`` are the solver's
answer for the same deals (``dd_table`` of the hands as play began), whatever the path
(a run's second stage, a frame, ``spades-sim solve RUN``) and the thread count; the stage
resumes without solving a part twice; the analyses against the solver compute what
plain pandas computes on the same columns; mistakes are one line.

Solving compiles ``dd_table``'s own kernel, which the fast tier's solver tests do not,
so the checks against the real solver are in the slow tier (a few deals: a deal takes a
fraction of a second to a second on these machines). The fast ones replace the kernel
call with a stand-in whose answers are a function of the hands (the spades each seat
holds), so the stage, its resume and the join onto the rows are checked without the
solver; the analysis and report checks put made-up double-dummy columns on an ordinary
frame, testing the arithmetic and the words alone.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from spades_sim import Rules, simulate_hands
from spades_sim._nb import dd as dd_module
from spades_sim.analysis import bid_accuracy, nil_success
from spades_sim.analysis.source import NoDoubleDummy, sources
from spades_sim.cli import cli
from spades_sim.dataset import load, read_manifest
from spades_sim.errors import SpadesError
from spades_sim.run import RunInterrupted, RunSpec, dd_table, run_dataset
from spades_sim.run import dd_solve as table_module
from spades_sim.run.double_dummy import DD_NAMES, load_dd, solve_run
from spades_sim.solve import batch as batch_module

SEED = 1  # its first deals solve in about a second together
DEALS = 3


def read_dd_rows(run: Path) -> pd.DataFrame:
    """A run's rows as an analysis reads them, double-dummy columns joined."""
    (source,) = sources(run)
    batches = source.batches(["deal", "seat", "hand", "dealer", *DD_NAMES])
    return pd.concat([hands for hands, _ in batches], ignore_index=True)


def expected_columns(rows: pd.DataFrame, rules: Rules) -> pd.DataFrame:
    """``dd_table`` of the rows' hands, given as an array (not the frame or the run the
    columns were made from), spread over the seats by hand."""
    players = rules.players
    rows = rows.sort_values(["deal", "seat"])
    masks = rows["hand"].to_numpy(dtype=np.uint64).reshape(-1, players)
    dealers = rows["dealer"].to_numpy()[::players]
    table = dd_table(masks, dealers, rules=rules)
    sides = ("tricks_ns", "tricks_ew") if players == 4 else ("tricks_p0", "tricks_p1")
    nil_columns = [c for c in table.columns if c.startswith("nil_")]
    tricks = table[list(sides)].to_numpy()
    nils = table[nil_columns].to_numpy()
    seat = rows["seat"].to_numpy()
    deal = np.repeat(np.arange(len(table)), players)
    side = seat % 2 if players == 4 else seat
    return pd.DataFrame(
        {
            "deal": rows["deal"].to_numpy(),
            "seat": seat,
            "dd_side_tricks": tricks[deal, side].astype(np.int8),
            "dd_nil_safe": nils[deal, seat].astype(bool),
        }
    )


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["standard", "two-player", "nil-passing"])
def test_dd_columns_are_dd_table_of_the_same_deals_at_any_thread_count(
    tmp_path: Path, preset: str
) -> None:
    # two players: each player its own side; nil passing: cards change hands before play
    rules = Rules.preset(preset)
    spec = RunSpec.build(seed=SEED, rules=rules, record_play=True)
    summary = run_dataset(spec, DEALS, tmp_path / "run", chunk_size=2, dd=True, threads=2)
    assert summary.dd_complete and summary.dd_solved == DEALS and summary.complete
    assert "dd         every deal solved: 3 deals solved now" in summary.format()
    record = read_manifest(tmp_path / "run")["dd"]
    assert record == {"dir": "_dd", "part_size": 256, "deals": 3, "parts": 1, "complete": True}
    rows = read_dd_rows(tmp_path / "run")
    want = expected_columns(rows, spec.rules)
    pd.testing.assert_frame_equal(rows[want.columns].reset_index(drop=True), want)
    # a frame of the same seed, solved in memory on one thread: the same columns
    frame = simulate_hands(DEALS, seed=SEED, rules=rules, dd=True, threads=1)
    pd.testing.assert_frame_equal(frame[want.columns], want)
    # the solver started from the position play started from: its leader played first
    plays = load(tmp_path / "run", table="plays")
    first = plays["plays"].map(lambda cards: int(cards[0])).to_numpy()
    hands = rows["hand"].to_numpy(dtype=np.uint64).reshape(-1, rules.players)
    holder = np.argmax((hands >> first[:, None].astype(np.uint64)) & np.uint64(1), axis=1)
    assert load_dd(tmp_path / "run")["leader"].tolist() == holder.tolist()


SPADES = np.uint64(0x1FFF << 39)


def stand_in(first: object, end: object, n_stripes: object, hands: np.ndarray,
             leaders: np.ndarray, players: object, play_rules: object, keys: object,
             data: object, tricks: np.ndarray, nil: np.ndarray,
             stats: object) -> None:  # fmt: skip
    """``dd_table_nb``'s outputs as a function of the hands, no search: N-S "take" the
    spades N holds, a seat's nil is "safe" when it holds no spade."""
    spades = np.array([[bin(int(h & SPADES)).count("1") for h in deal] for deal in hands])
    tricks[:, 0] = spades[:, 0]
    tricks[:, 1] = 13 - spades[:, 0]
    nil[:, :] = spades == 0


def use_kernel(monkeypatch: pytest.MonkeyPatch, kernel: object) -> None:
    """``dd_table`` solves each deal with ``kernel`` (called as ``dd_table_nb`` is)."""
    monkeypatch.setattr(batch_module, "ensure_compiled", lambda *args: None)
    monkeypatch.setattr(dd_module, "dd_table_nb", kernel)


def interrupt_after_two_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    """``dd_table`` solves the deals in order on one thread with the stand-in, and Ctrl-C
    comes as it starts the third deal."""
    calls: list[int] = []

    def two_then_interrupt(*args: Any) -> None:
        if len(calls) == 2:
            raise KeyboardInterrupt
        calls.append(1)
        stand_in(*args)

    monkeypatch.setattr(table_module, "current_threads", lambda: 1)  # deals in order
    use_kernel(monkeypatch, two_then_interrupt)


def stand_in_columns(rows: pd.DataFrame) -> pd.DataFrame:
    """The columns the stand-in gives, worked out from each row's deal."""
    rows = rows.sort_values(["deal", "seat"])
    hands = rows["hand"].to_numpy(dtype=np.uint64).reshape(-1, 4)
    spades = np.vectorize(lambda h: bin(int(h & SPADES)).count("1"))(hands)
    north = np.repeat(spades[:, 0], 4)
    seat = rows["seat"].to_numpy()
    return pd.DataFrame(
        {
            "deal": rows["deal"].to_numpy(),
            "seat": seat,
            "dd_side_tricks": np.where(seat % 2 == 0, north, 13 - north).astype(np.int8),
            "dd_nil_safe": spades.reshape(-1) == 0,
        }
    )


def test_an_interrupted_dd_stage_resumes_without_solving_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = RunSpec.build(seed=SEED)
    run = tmp_path / "run"
    calls: list[int] = []

    def interrupt_at_once(*args: object) -> None:
        raise KeyboardInterrupt

    use_kernel(monkeypatch, interrupt_at_once)
    with pytest.raises(RunInterrupted) as stop:
        run_dataset(spec, DEALS, run, chunk_size=2, dd=True)
    assert stop.value.summary.dd_complete is False and not stop.value.summary.complete
    assert read_manifest(run)["dd"]["complete"] is False
    with pytest.raises(NoDoubleDummy, match=r"no double-dummy columns.*spades-sim solve RUN"):
        nil_success(run, by="dd_nil_safe")

    def solve_once_then_interrupt(*args: object) -> None:
        if calls:
            raise KeyboardInterrupt
        calls.append(1)
        stand_in(*args)  # type: ignore[arg-type]

    # the stage begun again with one deal a part (a run solved for the first time takes
    # any part size; the manifest then keeps it), stopped after its first part
    run_dataset(spec, DEALS, run, chunk_size=2, overwrite=True)
    use_kernel(monkeypatch, solve_once_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        solve_run(run, part_size=1)
    assert read_manifest(run)["dd"]["part_size"] == 1
    assert sorted(p.name for p in (run / "_dd").iterdir()) == ["part-00000.parquet"]

    def count(*args: object) -> None:
        calls.append(1)
        stand_in(*args)  # type: ignore[arg-type]

    calls.clear()
    use_kernel(monkeypatch, count)
    summary = run_dataset(spec, DEALS, run, resume=True, dd=True)
    assert len(calls) == 2 and summary.dd_solved == 2 and summary.dd_complete
    rows = read_dd_rows(run)
    want = stand_in_columns(rows)
    pd.testing.assert_frame_equal(rows[want.columns].reset_index(drop=True), want)
    assert load_dd(run)["deal"].tolist() == list(range(DEALS))
    # solving the finished run again solves nothing and keeps the columns
    calls.clear()
    result = CliRunner().invoke(cli, ["solve", str(run)])
    assert result.exit_code == 0, result.output
    assert "3 deals solved into" in result.output and "(0 now, 3 solved before)" in result.output
    assert not calls
    pd.testing.assert_frame_equal(read_dd_rows(run), rows)
    # a frame joins the same answers
    frame = simulate_hands(DEALS, seed=SEED, dd=True)
    pd.testing.assert_frame_equal(frame[want.columns], want)
    # overwriting the run deletes its double-dummy parts with its rows
    run_dataset(spec, DEALS, run, overwrite=True)
    assert not (run / "_dd").exists() and "dd" not in read_manifest(run)


def test_load_gives_a_solved_runs_dd_columns_and_the_documented_joins_agree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``dataset.load`` of a solved run has the double-dummy columns (and takes them in
    ``columns=``); the pandas and DuckDB joins docs/schema.md shows give the same."""
    use_kernel(monkeypatch, stand_in)
    run = tmp_path / "run"
    spec = RunSpec.build(seed=SEED)
    run_dataset(spec, DEALS, run, chunk_size=2)
    plain = load(run)
    assert not set(DD_NAMES) & set(plain.columns)  # not solved: the stored columns alone
    with pytest.raises(SpadesError, match=r"no double-dummy columns.*spades-sim solve RUN"):
        load(run, columns=["seat", "dd_nil_safe"])
    solve_run(run)
    rows = load(run)
    assert list(rows.columns) == [*plain.columns, *DD_NAMES]
    want = stand_in_columns(rows)
    pd.testing.assert_frame_equal(rows[want.columns], want)
    assert str(rows["dd_side_tricks"].dtype) == "int8" and rows["dd_nil_safe"].dtype == bool
    pd.testing.assert_frame_equal(load(run.as_uri()), rows)  # a run given as a URI too
    # asked by name, in the order asked, the join's keys not added; filters still work
    picked = load(run, columns=["dd_nil_safe", "bid"], filters=[("seat", "==", 2)])
    assert list(picked.columns) == ["dd_nil_safe", "bid"]
    north_south = want[want.seat == 2].reset_index(drop=True)
    assert picked["dd_nil_safe"].tolist() == north_south["dd_nil_safe"].tolist()
    for columns in (None, ["deal"]):
        with pytest.raises(ValueError, match="dd_nil_safe is joined after the read"):
            load(run, columns=columns, filters=[("dd_nil_safe", "==", True)])
    # docs/schema.md's pandas join
    hands = pd.read_parquet(run)
    dd = pd.read_parquet(run / "_dd")
    df = hands.merge(dd, on=["deal", "dealer"])
    df["dd_side_tricks"] = np.where(df.seat % 2 == 0, df.tricks_ns, df.tricks_ew)
    df["dd_nil_safe"] = np.choose(df.seat, [df.nil_N, df.nil_E, df.nil_S, df.nil_W])
    got = df.sort_values(["deal", "seat"])[list(want.columns)].reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want, check_dtype=False)
    # and its DuckDB join
    duckdb = pytest.importorskip("duckdb")
    query = f"""
        SELECT h.deal, h.seat,
               IF(h.seat % 2 = 0, d.tricks_ns, d.tricks_ew) AS dd_side_tricks,
               [d.nil_N, d.nil_E, d.nil_S, d.nil_W][h.seat + 1] AS dd_nil_safe
        FROM '{run}/*.parquet' h JOIN '{run}/_dd/*.parquet' d USING (deal)
        ORDER BY h.deal, h.seat"""
    sql = duckdb.sql(query).df()
    pd.testing.assert_frame_equal(sql, want, check_dtype=False)


def test_dd_mistakes_are_one_line(tmp_path: Path) -> None:
    runner = CliRunner()
    cases = {
        ("simulate", "--games", "2", "--dd"): (2, "--dd solves runs of hands"),
        ("simulate", "--hands", "2", "--dd", "--aggregate"): (2, "drop --dd"),
    }
    for args, (code, message) in cases.items():
        result = runner.invoke(cli, [*args, "--out", str(tmp_path / "x")])
        assert result.exit_code == code and message in result.output, result.output
    assert not (tmp_path / "x").exists()
    run_dataset(RunSpec.build(seed=1, mode="games"), 2, tmp_path / "games")
    run_dataset(RunSpec.build(seed=1), 2, tmp_path / "agg", aggregate="seat")
    spec = RunSpec.build(seed=1)
    with pytest.raises(RunInterrupted):
        run_dataset(spec, 4, tmp_path / "cut", chunk_size=2, progress=_interrupt_after_one)
    for name, message in (
        ("games", "is a games run: double-dummy columns are for runs of hands"),
        ("agg", "is an aggregate run"),
        ("cut", "is unfinished: resume it"),
        ("none", "not found"),
    ):
        result = runner.invoke(cli, ["solve", str(tmp_path / name)])
        assert result.exit_code == 1 and message in result.output, result.output
        assert result.output.startswith("error: ") and result.output.count("\n") == 1
    with pytest.raises(ValueError, match="dd: aggregate mode counts in kernels"):
        simulate_hands(2, seed=1, aggregate="seat", dd=True)
    with pytest.raises(ValueError, match="dd: double-dummy columns are for runs of hands"):
        run_dataset(RunSpec.build(seed=1, mode="games"), 2, tmp_path / "g2", dd=True)
    with pytest.raises(NoDoubleDummy, match="an aggregate, counted in kernels that never call"):
        nil_success(tmp_path / "agg", by="dd_nil_safe")


def _interrupt_after_one(progress: object) -> None:
    if getattr(progress, "parts", 0) >= 1:
        raise KeyboardInterrupt


# --------------------------------------------------------------------------------------
# The analyses against the solver, on made-up columns (nothing solved)
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def with_columns() -> pd.DataFrame:
    """An ordinary frame with double-dummy columns made up from its own play: side tricks
    moved by a deal-seeded noise, and nils called safe for hands with few spades."""
    df = simulate_hands(800, seed=4)
    rng = np.random.default_rng(0)
    noise = rng.integers(-2, 3, size=df["deal"].max() + 1)
    side_noise = np.where(df["side"] == 0, noise[df["deal"]], -noise[df["deal"]])
    partner_tricks = df.groupby(["deal", "side"])["tricks"].transform("sum")
    dd_tricks = np.clip(partner_tricks + side_noise, 0, 13).astype(np.int8)
    out = df.assign(dd_side_tricks=dd_tricks, dd_nil_safe=(df["spades"] <= 2).to_numpy())
    out.attrs = dict(df.attrs)
    return out


def test_bid_accuracy_against_dd_is_the_plain_computation(with_columns: pd.DataFrame) -> None:
    df = with_columns
    side_nil = (df["nil"] | df["blind_nil"]).groupby([df["deal"], df["side"]]).transform("any")
    sides = df[(df["seat"] < 2) & (df["side_contract"] > 0) & ~side_nil]
    difference = sides["dd_side_tricks"].astype(int) - sides["side_contract"].astype(int)
    table = bid_accuracy(df, against="dd").set_index("measure")
    assert table.loc["difference", "n"] == len(sides)
    assert table.loc["difference", "estimate"] == pytest.approx(difference.mean())
    assert table.loc["set", "total"] == (difference < 0).sum()
    assert table.loc["exact", "total"] == (difference == 0).sum()
    level = bid_accuracy(df, "side_contract", against="dd")
    got = level[level.measure == "over"].set_index("side_contract")["total"]
    want = (difference > 0).groupby(sides["side_contract"]).sum()
    assert got.to_dict() == want.astype(float).to_dict()
    dist = bid_accuracy(df, view="distribution", against="dd")
    assert dist["total"].sum() == len(sides)
    # the plain view still measures the play
    assert bid_accuracy(df).equals(bid_accuracy(df.drop(columns=list(DD_NAMES))))
    with pytest.raises(ValueError, match="'calibration' compares a seat's bid"):
        bid_accuracy(df, view="calibration", against="dd")
    with pytest.raises(ValueError, match="against: must be one of played, dd"):
        bid_accuracy(df, against="cards")  # type: ignore[arg-type]
    with pytest.raises(NoDoubleDummy, match=r"--dd .* or solve it with spades-sim solve RUN"):
        bid_accuracy(df.drop(columns=list(DD_NAMES)), against="dd")


def test_nil_success_by_dd_verdict_is_the_plain_computation(with_columns: pd.DataFrame) -> None:
    df = with_columns
    table = nil_success(df, by="dd_nil_safe").set_index(["measure", "dd_nil_safe"])
    nils = df[df["nil"] | df["blind_nil"]]
    for safe in (True, False):
        bids = nils[nils["dd_nil_safe"] == safe]
        assert table.loc[("success_rate", safe), "n"] == len(bids)
        assert table.loc[("success_rate", safe), "total"] == bids["nil_made"].sum()
        seats = df[df["dd_nil_safe"] == safe]
        assert table.loc[("nil_rate", safe), "n"] == len(seats)
    with pytest.raises(NoDoubleDummy, match="no double-dummy columns"):
        nil_success(df.drop(columns=list(DD_NAMES)), by="dd_nil_safe")


@pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None, reason="the report needs matplotlib"
)
def test_the_report_has_the_dd_sections_in_words_from_the_numbers(
    with_columns: pd.DataFrame, tmp_path: Path
) -> None:
    from spades_sim import report
    from spades_sim.report import words as w

    html = report.write(with_columns, tmp_path / "dd.html").read_text(encoding="utf-8")
    for heading in ("Bids against double-dummy play", "Nil against double-dummy play"):
        assert f">{heading}</h2>" in html
    summary = bid_accuracy(with_columns, against="dd").set_index("measure")
    assert f"n = {int(summary.loc['difference', 'n']):,} side-hands without a nil" in html
    nil = nil_success(with_columns, by="dd_nil_safe").set_index(["measure", "dd_nil_safe"])
    safe = nil.loc[("success_rate", True)]
    assert f"{w.pct(1 - safe.estimate)}, 95% CI" in html
    assert f"n = {int(safe.n):,} nil bids): the nil bidder" in html
    # without the columns the report has neither section
    plain = report.write(with_columns.drop(columns=list(DD_NAMES)), tmp_path / "plain.html")
    assert "double-dummy play</h2>" not in plain.read_text(encoding="utf-8")


def test_a_part_of_other_deals_is_refused(tmp_path: Path) -> None:
    table_dir = tmp_path / "dd"
    table_dir.mkdir()
    pd.DataFrame({"deal": [7]}).to_parquet(table_dir / "part-00000.parquet")
    hands = np.zeros((1, 4), dtype=np.uint64)
    for card in range(52):
        hands[0, card % 4] |= np.uint64(1 << card)
    with pytest.raises(SpadesError, match="is not a part of a double-dummy table"):
        dd_table(hands, [0], out=table_dir)
    assert pd.read_parquet(table_dir / "part-00000.parquet")["deal"].tolist() == [7]


def test_solve_out_refuses_the_table_of_another_run_or_other_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table directory answers only for the deals and rules it was solved from: another
    run's (another seed) is refused in one line and the directory is left as it was."""
    use_kernel(monkeypatch, stand_in)
    for name, seed in (("a", 1), ("b", 2)):
        run_dataset(RunSpec.build(seed=seed), DEALS, tmp_path / name)
    out = tmp_path / "table"
    runner = CliRunner()
    first = runner.invoke(cli, ["solve", str(tmp_path / "a"), "--out", str(out)])
    assert first.exit_code == 0 and "3 deals solved into" in first.output, first.output
    assert "solving" not in first.output  # a progress bar on a terminal only, not in logs
    before = (out / "part-00000.parquet").read_bytes()
    again = runner.invoke(cli, ["solve", str(tmp_path / "b"), "--out", str(out)])
    assert again.exit_code == 1, again.output
    assert again.output.startswith("error: ") and again.output.count("\n") == 1
    assert "holds the table of other deals or other rules" in again.output
    assert str(tmp_path / "a") in again.output
    assert (out / "part-00000.parquet").read_bytes() == before
    # the same deals under other rules are other answers too
    table = dd_table(tmp_path / "a")
    rows = load(tmp_path / "a", columns=["deal", "seat", "hand", "dealer"])
    masks = rows.sort_values(["deal", "seat"])["hand"].to_numpy(np.uint64).reshape(-1, 4)
    dealers = rows.sort_values(["deal", "seat"])["dealer"].to_numpy()[::4]
    with pytest.raises(SpadesError, match="other deals or other rules"):
        dd_table(masks, dealers, rules=Rules.preset("must-trump"), out=out)
    # the run's own table reads back unchanged
    pd.testing.assert_frame_equal(dd_table(tmp_path / "a", out=out), table)


def test_solve_out_refuses_an_unfinished_run_as_solve_run_does(tmp_path: Path) -> None:
    with pytest.raises(RunInterrupted):
        run_dataset(
            RunSpec.build(seed=1), 4, tmp_path / "cut", chunk_size=2,
            progress=_interrupt_after_one,
        )  # fmt: skip
    for args in (["--out", str(tmp_path / "t")], []):
        result = CliRunner().invoke(cli, ["solve", str(tmp_path / "cut"), *args])
        assert result.exit_code == 1 and "is unfinished: resume it" in result.output
        assert result.output.count("\n") == 1, result.output
    assert not (tmp_path / "t").exists()


def test_ctrl_c_while_solving_stops_the_deals_in_flight_and_keeps_every_deal_solved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C stops the deals in flight (the kernels poll the abort flag), not the part;
    the deals solved so far are kept in the part's partial file and the resume solves
    only the others."""
    import _thread
    import signal
    import threading
    import time

    solved: list[int] = []
    pressed: list[float] = []
    lock = threading.Lock()

    def slow(*args: Any) -> None:
        stats = args[-1]
        with lock:
            if len(solved) >= 2 and not pressed:
                # Ctrl-C in the calling thread, which waits while the threads solve:
                # raised there by Python's own handler (set below, whatever an earlier
                # test in the worker left)
                pressed.append(time.perf_counter())
                _thread.interrupt_main()
        for _ in range(20):  # a deal of the real solver, polling the abort flag
            if stats[0, dd_module.S_ABORT]:
                return
            time.sleep(0.01)
        stand_in(*args)
        solved.append(1)

    use_kernel(monkeypatch, slow)
    run_dataset(RunSpec.build(seed=1), 40, tmp_path / "run")
    out = tmp_path / "t"
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            dd_table(tmp_path / "run", out=out, part_size=40)
    finally:
        signal.signal(signal.SIGINT, previous)
    stopped = time.perf_counter() - pressed[0]
    assert stopped < 1.5, f"took {stopped:.2f} s to stop (a part takes 4 s or more)"
    kept = pd.read_parquet(out / "part-00000.partial.parquet")
    assert 2 <= len(kept) == len(solved) < 40
    assert not (out / "part-00000.parquet").exists()
    first = len(solved)
    solved.clear()
    table = dd_table(tmp_path / "run", out=out, part_size=40)
    assert len(solved) == 40 - first
    assert sorted(p.name for p in out.iterdir()) == ["part-00000.parquet"]
    rows = load(tmp_path / "run", columns=["deal", "seat", "hand", "dealer"])
    pd.testing.assert_frame_equal(table, dd_table(rows, rules=Rules()))


def test_a_partial_file_of_another_run_or_other_rules_is_refused_on_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deals an interrupt kept in a part's partial file answer only for the deals and
    rules they were solved from: resuming into that directory from another run (the same
    deal ids, other hands) or under other rules is refused, the partial file kept."""
    for name, seed in (("a", 1), ("b", 2)):
        run_dataset(RunSpec.build(seed=seed), 5, tmp_path / name)
    interrupt_after_two_deals(monkeypatch)
    out = tmp_path / "table"
    with pytest.raises(KeyboardInterrupt):
        dd_table(tmp_path / "a", out=out)
    partial = out / "part-00000.partial.parquet"
    kept = partial.read_bytes()
    assert len(pd.read_parquet(partial)) == 2
    use_kernel(monkeypatch, stand_in)
    with pytest.raises(SpadesError, match=r"other deals or other rules \(of .*a\)"):
        dd_table(tmp_path / "b", out=out)
    rows = load(tmp_path / "a", columns=["deal", "seat", "hand", "dealer"])
    rows = rows.sort_values(["deal", "seat"])
    masks = rows["hand"].to_numpy(np.uint64).reshape(-1, 4)
    dealers = rows["dealer"].to_numpy()[::4]
    with pytest.raises(SpadesError, match="other deals or other rules"):
        dd_table(masks, dealers, rules=Rules.preset("must-trump"), out=out)
    assert partial.read_bytes() == kept and not (out / "part-00000.parquet").exists()
    # the run's own resume takes the partial file and gives what solving in one go gives
    pd.testing.assert_frame_equal(dd_table(tmp_path / "a", out=out), dd_table(tmp_path / "a"))


@pytest.mark.parametrize("into", ["out", "run"])
def test_an_interrupted_solve_says_what_it_kept_and_the_resume_what_it_solved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, into: str
) -> None:
    """``solve RUN`` and ``solve RUN --out DIR``, interrupted, say how many deals are kept
    where and how to go on (exit 130); the resume says how many it solved now and before."""
    run = tmp_path / "run"
    run_dataset(RunSpec.build(seed=1), 5, run)
    out = tmp_path / "table" if into == "out" else run / "_dd"
    args = ["solve", str(run), *(["--out", str(out)] if into == "out" else [])]
    interrupt_after_two_deals(monkeypatch)
    stopped = CliRunner().invoke(cli, args)
    assert stopped.exit_code == 130, stopped.output
    assert stopped.output.count("\n") == 1, stopped.output
    assert f"interrupted: 2 of 5 deals solved are kept in {out}" in stopped.output
    assert "run the same command again to solve the other 3" in stopped.output
    use_kernel(monkeypatch, stand_in)
    done = CliRunner().invoke(cli, args)
    assert done.exit_code == 0, done.output
    assert f"5 deals solved into {out} (3 now, 2 solved before)" in done.output, done.output
    again = CliRunner().invoke(cli, args)
    assert f"5 deals solved into {out} (0 now, 5 solved before)" in again.output, again.output


def test_an_interrupted_simulate_dd_says_the_rows_are_complete_and_the_deals_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``simulate --dd`` stopped while solving says, in one line, that the rows are all
    there and how many deals solved are kept where (exit 130), not only that its parts
    of rows are complete; ``--resume`` then solves the others."""
    run = tmp_path / "run"
    args = ["simulate", "--hands", "5", "--seed", "1", "--dd", "--out", str(run), "--quiet"]
    interrupt_after_two_deals(monkeypatch)
    stopped = CliRunner().invoke(cli, args)
    assert stopped.exit_code == 130, stopped.output
    assert stopped.output.count("\n") == 1, stopped.output
    assert (
        f"interrupted: the rows are complete (5 hands) and 2 of 5 deals solved are kept in "
        f"{run / '_dd'}; run the same command with --resume" in stopped.output
    ), stopped.output
    solved: list[int] = []
    use_kernel(monkeypatch, lambda *a: (solved.append(1), stand_in(*a)))
    done = CliRunner().invoke(cli, [*args, "--resume"])
    assert done.exit_code == 0, done.output
    assert len(solved) == 3 and load_dd(run)["deal"].tolist() == list(range(5))


def test_a_resumed_solve_counts_the_deals_an_interrupt_kept_as_solved_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dataset(RunSpec.build(seed=1), 5, tmp_path / "run")
    interrupt_after_two_deals(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        solve_run(tmp_path / "run")
    use_kernel(monkeypatch, stand_in)
    result = CliRunner().invoke(cli, ["solve", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert "5 deals solved into" in result.output and "(3 now, 2 solved before)" in result.output
