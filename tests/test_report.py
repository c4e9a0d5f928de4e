"""Strategy reports: the sentences say what the numbers say, duplicate pairs are found
and paired as the in-memory duplicate comparison pairs them, and the HTML is one
self-contained file whose every image decodes and is not blank, in headless Chromium too.

The rendering tests need matplotlib (the ``report`` extra) and skip without it; the
browser check needs Debian's ``chromium`` and skips, saying so, where it is missing.
"""

from __future__ import annotations

import base64
import importlib.util
import io
import re
import shutil
import subprocess
from html import escape as html_escape
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from spades_sim import Rules, simulate_hands
from spades_sim.analysis import bid_accuracy, duplicate, nil_success
from spades_sim.analysis.stats import Estimate
from spades_sim.cli import cli
from spades_sim.report import words as w
from spades_sim.report.games import game_outcomes
from spades_sim.report.runs import NotAPair, compare_runs, detect_pair
from spades_sim.report.sections import _shape_sentences
from spades_sim.run import run_dataset
from spades_sim.simulate import RunSpec

HAS_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None
needs_matplotlib = pytest.mark.skipif(
    not HAS_MATPLOTLIB,
    reason="the report needs matplotlib (the report extra): pip install -e '.[test,report]'",
)
CHROMIUM = shutil.which("chromium")


def est(p: float, half: float, n: int) -> Estimate:
    return Estimate(p, p - half, p + half, n)


# --------------------------------------------------------------------------------------
# Sentences from known numbers
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("estimate", "words"),
    [
        (est(0.9, 0.01, 4000), "9 times in 10"),
        (est(0.5, 0.03, 900), "once in 2"),
        (est(0.666, 0.02, 2000), "2 times in 3"),
        (est(0.04, 0.001, 10**6), "once in 25"),
        (est(0.745, 0.001, 10**6), "about 3 times in 4"),  # 0.75 is out of the interval
        (est(0.62, 0.01, 9000), "62% of the time"),
        (Estimate(0.0, 0.0, 0.01, 300), "never"),
    ],
)
def test_how_often_says_a_fraction_only_where_it_fits(estimate: Estimate, words: str) -> None:
    assert w.how_often(estimate) == words


def test_the_best_nil_shapes_are_named_from_the_table() -> None:
    """A known table in, the sentences name its best shapes with their own numbers."""
    rows = [
        # spades, high, shortest, n, made
        (2, 0, 0, 1000, 930),  # best: 93%
        (3, 0, 1, 800, 640),
        (1, 0, 2, 500, 420),
        (4, 1, 3, 400, 120),  # worst: 30%
        (0, 0, 0, 50, 50),  # too few bids to be named
    ]
    table = pd.DataFrame(
        [
            {
                "measure": "success_rate",
                "blind": False,
                "spades": s,
                "high_spades": h,
                "shortest_suit": k,
                "n": n,
                "total": float(m),
                "estimate": m / n,
                "ci_low": m / n - 0.02,
                "ci_high": m / n + 0.02,
            }
            for s, h, k, n, m in rows
        ]
    )
    said = _shape_sentences(table, [("all seats", False)], "these policies")
    assert len(said) == 4
    assert said[0] == (
        "A hand with two spades, none above the jack and a void makes nil 19 times in 20 "
        "under these policies (95% CI 91.0–95.0%, n = 1,000 nil bids)."
    )
    assert "four spades, one of them queen or higher and no suit shorter than three" in said[-1]
    assert "n = 400 nil bids" in said[-1] and "3 times in 10" in said[-1]
    assert not any("no spades" in s for s in said)


def test_trend_sentences_follow_the_interval() -> None:
    apart = [(0, est(0.8, 0.02, 900)), (4, est(0.3, 0.05, 300))]
    assert w.trend_sentence("Nil success", "spades", apart).startswith(
        "Nil success falls from 80.0% with no spades to 30.0% with four spades"
    )
    close = [(0, est(0.7, 0.1, 60)), (3, est(0.65, 0.1, 60))]
    assert "cannot tell them apart" in w.trend_sentence("Nil success", "spades", close)
    assert "too few" in w.trend_sentence("x", "spades", [(0, est(0.5, 0.3, 5))])


def test_contract_sentence_states_the_bid_accuracy_table() -> None:
    df = simulate_hands(1500, seed=7)
    t = bid_accuracy(df).set_index("measure")

    def e(m: str) -> Estimate:
        r = t.loc[m]
        return Estimate(r.estimate, r.ci_low, r.ci_high, int(r.n))

    text = w.contract_sentence(e("exact"), e("over"), e("set"), e("difference"))
    assert f"{t.loc['difference'].estimate:.2f} tricks more than it bid" in text
    assert f"n = {int(t.loc['exact'].n):,} side-hands" in text
    assert w.how_often(e("set")) in text


def test_calibration_sentence_counts_bids_that_run_high_and_low() -> None:
    rows = [(1, est(2.0, 0.1, 500)), (3, est(3.02, 0.05, 2000)), (7, est(6.5, 0.2, 300))]
    text = w.calibration_sentence(rows)
    assert text.startswith("The most common bid, 3, takes 3.02 tricks (95% CI 2.97–3.07")
    assert "1 takes more tricks than they say (most: bids of 1, +1.00)" in text
    assert "1 takes fewer (most: bids of 7, -0.50)" in text
    assert "1 is right within its interval" in text


def test_games_sentence_from_a_hand_built_games_table() -> None:
    """Four games: N-S wins three (one at the loss threshold), one is unfinished."""
    games = pd.DataFrame(
        {
            "game": np.arange(4),
            "winner": np.array([0, 0, 0, -1], dtype=np.int8),
            "reason": np.array([1, 1, 2, 3], dtype=np.int8),
            "hands": np.array([8, 10, 6, 200], dtype=np.int16),
            "score_ns": [510, 500, 100, 0],
            "score_ew": [300, 420, -210, 0],
        }
    )
    hands = pd.DataFrame({"game": np.repeat(np.arange(4), 4), "seat": np.tile(np.arange(4), 4)})
    from spades_sim.report.runs import run_info

    outcomes = game_outcomes((hands, games), run_info((hands, games)), "four games")
    assert outcomes.wins["N-S"].value == 0.75 and outcomes.wins["E-W"].value == 0.0
    assert outcomes.length.value == pytest.approx(56.0)
    text = w.games_sentence(outcomes.wins, outcomes.length, outcomes.endings)
    assert text.startswith("N-S won 75.0% of 4 games")
    assert (
        "50.0% of games ended at the target, 25.0% ended at the loss threshold and 25.0% " in text
    )
    assert w.quantile_sentence(outcomes.half_over, outcomes.most_over) == (
        "Half the games are over by hand 8 and nine in ten by hand 200."
    )


def test_narrowing_and_ranking_sentences() -> None:
    text = w.narrowing_sentence(est(2.0, 0.5, 100), est(2.0, 1.5, 100))
    assert "from ±1.50 to ±0.50 (3.0 times narrower)" in text and "9.0 times as many" in text
    assert "widened" in w.narrowing_sentence(est(2.0, 1.5, 100), est(2.0, 0.5, 100))
    assert w.ranking_sentence(["a", "b", "c"], [("b", "c")]).startswith("Ranking: a > b ≈ c")


# --------------------------------------------------------------------------------------
# Duplicate pairs
# --------------------------------------------------------------------------------------


def test_a_pair_is_found_and_other_runs_are_refused() -> None:
    def run(seed: int = 1, n: int = 20, **kw: object) -> pd.DataFrame:
        args: dict[str, object] = {"bidding": ("count", "pagat"), **kw}
        return simulate_hands(n, seed=seed, **args)  # type: ignore[arg-type]

    a = run()
    info = detect_pair(a, run(bidding=("pagat", "count")))
    assert (info.a, info.b, info.differs) == ("count/heuristic", "pagat/heuristic", "bidding")
    refusals = {
        "seeds differ (1 and 2)": run(seed=2, bidding=("pagat", "count")),
        "sizes differ (20 and 30 hands)": run(n=30, bidding=("pagat", "count")),
        "rules differ": run(bidding=("pagat", "count"), rules=Rules(target=300)),
        "not swapped": run(bidding=("count", "pagat")),
    }
    for why, other in refusals.items():
        with pytest.raises(NotAPair, match=re.escape(why)):
            detect_pair(a, other)
    with pytest.raises(NotAPair, match="same policies"):
        detect_pair(simulate_hands(5, seed=1), simulate_hands(5, seed=1))


def test_pairing_runs_agrees_with_the_in_memory_duplicate() -> None:
    n = 400
    expected = duplicate("count", "random", n, seed=3, kind="bid")
    a = simulate_hands(n, seed=3, bidding=("count", "random"))
    b = simulate_hands(n, seed=3, bidding=("random", "count"))
    got = compare_runs(a, b)
    assert got.margin == expected.margin
    # each seating's estimate from the runs' rows and from duplicate's own sums: the same
    # numbers added in another order, so equal to the last bits, not bit for bit
    for mine, theirs in ((got.a_as_ns, expected.a_as_ns), (got.a_as_ew, expected.a_as_ew)):
        assert (mine.n, mine.level) == (theirs.n, theirs.level)
        for field in ("value", "low", "high"):
            assert getattr(mine, field) == pytest.approx(getattr(theirs, field), rel=1e-12)
    assert got.unpaired.value == pytest.approx(got.margin.value)
    # the seatings' luck cancels: pairing narrows the interval
    assert got.margin.half_width < got.unpaired.half_width


def test_pairing_games_agrees_with_duplicate_and_counts_2n_games(tmp_path: Path) -> None:
    n = 40
    expected = duplicate("count", "random", n, seed=5, kind="bid", mode="games")
    spec = {"seed": 5, "mode": "games"}
    a, b = tmp_path / "a", tmp_path / "b"
    run_dataset(RunSpec.build(bidding=("count", "random"), **spec), n, a, chunk_size=15)
    run_dataset(RunSpec.build(bidding=("random", "count"), **spec), n, b, chunk_size=7)
    got = compare_runs(a, b)  # parts of different sizes: paired after gathering
    assert got.wins == expected.wins and got.wins.n == 2 * n
    assert got.margin == expected.margin
    assert got.outcomes is not None and sum(got.outcomes) == n
    assert got.wins_paired is not None and got.wins_paired.n == n
    assert got.wins_paired.value == pytest.approx(got.wins.value)


# --------------------------------------------------------------------------------------
# The HTML, end to end
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A hands run's report (the API) and a duplicate games pair's report (the CLI)."""
    if not HAS_MATPLOTLIB:
        pytest.skip("the report needs matplotlib (the report extra)")
    from spades_sim import report

    root = tmp_path_factory.mktemp("report")
    run_dataset(RunSpec.build(seed=1), 3000, root / "hands", chunk_size=1000)
    made = CliRunner().invoke(
        cli,
        ["ladder", "random", "heuristic", "lookahead", "--deals", "40", "--seed", "4",
         "--out", str(root / "ladder.parquet")],
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    hands_html = report.write(root / "hands", root / "hands.html", ladder=root / "ladder.parquet")
    result = CliRunner().invoke(
        cli,
        ["compare", "count", "random", "--games", "80", "--seed", "2", "--out",
         str(root / "pair"), "--chunk-size", "30", "--report", str(root / "pair.html")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return {"root": root, "hands": hands_html, "pair": root / "pair.html"}


def images(html: str) -> list[bytes]:
    sources = re.findall(r'<img src="([^"]+)"', html)
    prefix = "data:image/png;base64,"
    assert all(s.startswith(prefix) for s in sources), "an image is not embedded"
    return [base64.b64decode(s[len(prefix) :]) for s in sources]


@needs_matplotlib
@pytest.mark.parametrize("name", ["hands", "pair"])
def test_the_report_is_one_self_contained_file(reports: dict[str, Path], name: str) -> None:
    html = reports[name].read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert not re.search(r"https?://", html), "a link to the network"
    assert not re.search(r"<(script|link|iframe|object)\b", html, re.I)
    assert not re.search(r'\bsrc="(?!data:)', html) and "url(" not in html
    assert len(html) < 600_000, f"{len(html):,} characters: images too large"


@needs_matplotlib
@pytest.mark.parametrize("name", ["hands", "pair"])
def test_every_image_decodes_and_is_not_blank(reports: dict[str, Path], name: str) -> None:
    import matplotlib.image

    html = reports[name].read_text(encoding="utf-8")
    pngs = images(html)
    assert len(pngs) == html.count("<figure>") >= 5
    for png in pngs:
        pixels = matplotlib.image.imread(io.BytesIO(png), format="png")
        assert pixels.ndim == 3 and pixels.shape[0] > 150 and pixels.shape[1] > 500
        assert float(pixels[..., :3].var()) > 0.001, "a blank image"


@needs_matplotlib
def test_the_report_states_n_intervals_and_the_run(reports: dict[str, Path]) -> None:
    html = reports["hands"].read_text(encoding="utf-8")
    for heading in ("Nil bids", "Bids and contracts", "Bags"):
        assert f">{heading}</h2>" in html
    assert ">Games</h2>" not in html  # a hands run has no games table
    for fact in ("standard", "bidding count, play heuristic", ">1<", "3,000 hands", "0.1.0"):
        assert fact in html
    # the words carry the analyses' numbers
    nil = nil_success(reports["root"] / "hands").set_index("measure")
    assert f"bid nil in {w.pct(nil.loc['nil_rate'].estimate)} of hands" in html
    assert f"n = {int(nil.loc['success_rate'].n):,} bids" in html
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", html)
    legends_say_n = html.count("95% CI")
    assert captions and legends_say_n >= 5

    # the ladder's section says what its table says
    from spades_sim.analysis import read_ladder
    from spades_sim.analysis.ladder import estimate, ranking

    assert ">The strength ladder</h2>" in html
    table = read_ladder(reports["root"] / "ladder.parquet")
    order, ties = ranking(table)
    assert html_escape(w.ranking_sentence(order, ties), quote=False) in html
    top = order[0]
    against = [(o, e) for o in order[1:] if (e := estimate(table, top, o)) is not None]
    assert html_escape(w.ladder_top_sentence(top, against), quote=False) in html
    assert "same 40 deals twice (seed 4)" in html

    pair = reports["pair"].read_text(encoding="utf-8")
    for heading in ("count/heuristic against random/heuristic, on the same deals", "Games"):
        assert f">{heading}</h2>" in pair
    assert "n = 80 games played both ways" in pair
    assert "Pairing the two seatings of each" in pair
    assert "Counted as 160 independent games" in pair and "n = 160)" in pair


@needs_matplotlib
def test_report_mistakes_are_one_line(
    reports: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = reports["root"]
    runner = CliRunner()
    cases = {
        (str(root / "nope"),): "no such run directory",
        (str(root / "hands"), str(root / "pair" / "a-ns")): "not a duplicate pair: their modes",
        (str(root / "pair" / "a-ns"), str(root / "pair" / "a-ns")): "not swapped",
        (str(root / "hands"), "--ladder", str(root / "hands.html")): "is not a ladder",
        (str(root / "hands"), "--ladder", str(root / "none.parquet")): "no such file",
    }
    for args, message in cases.items():
        result = runner.invoke(cli, ["report", *args, "--out", str(root / "x.html")])
        assert result.exit_code == 1 and message in result.output
        assert result.output.startswith("error: ") and result.output.count("\n") == 1

    from spades_sim.report import figures

    def missing() -> None:
        raise figures.ReportUnavailable(
            f"the report needs matplotlib, which is not installed: {figures.EXTRA_HINT}"
        )

    monkeypatch.setattr(figures, "require_matplotlib", missing)
    monkeypatch.setattr("spades_sim.report.require_matplotlib", missing)
    result = runner.invoke(cli, ["report", str(root / "hands"), "--out", str(root / "y.html")])
    assert result.exit_code == 1
    assert result.output == (
        "error: the report needs matplotlib, which is not installed: "
        "pip install 'spades_sim[report]'\n"
    )


@needs_matplotlib
@pytest.mark.skipif(
    CHROMIUM is None,
    reason="no browser: install Debian's chromium (apt-get install chromium) to check the "
    "report renders",
)
def test_the_report_renders_in_headless_chromium(reports: dict[str, Path], tmp_path: Path) -> None:
    import matplotlib.image

    assert CHROMIUM is not None
    shot = tmp_path / "shot.png"
    command = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}",
        f"--screenshot={shot}", "--window-size=1200,2400", reports["pair"].as_uri(),
    ]  # fmt: skip
    subprocess.run(command, check=True, timeout=120, capture_output=True)
    pixels = matplotlib.image.imread(shot)
    assert pixels.shape[:2] == (2400, 1200)
    # the page is drawn: text, tables and the embedded figures, not a blank window
    rows_drawn = (pixels[..., :3].std(axis=1) > 0.01).mean(axis=-1)
    assert float((rows_drawn > 0).mean()) > 0.5
    # and the images load: many distinct colours (a broken image icon has few)
    colours = np.unique((pixels[..., :3] * 255).astype(np.uint8).reshape(-1, 3), axis=0)
    assert len(colours) > 200


@needs_matplotlib
def test_figures_draw_every_kind_of_panel() -> None:
    """Bars and lines in one figure, panels counting different things (a legend in each),
    a forest of intervals and a heatmap of points: each a decodable, non-blank PNG."""
    import matplotlib.image

    from spades_sim.report.figures import Panel, Series, forest_png, heatmap_png, panels_png

    games = Series.of("penalty", [(0, est(20.0, 1.0, 800)), (1, est(14.0, 0.5, 800))])
    hands = Series.of("penalty", [(0, est(1.9, 0.05, 8000)), (1, est(1.7, 0.04, 8000))])
    pngs = [
        panels_png(
            [
                Panel("per game", "", "bags", [games], kind="bar", n_word="side-games"),
                Panel("per hand", "", "bags", [hands], n_word="side-hands"),
            ]
        ),
        forest_png([("paired", est(5.0, 1.0, 100)), ("unpaired", est(5.0, 3.0, 100))], "t", "x"),
        heatmap_png(
            np.array([[12.0, -30.0]]),
            np.array([[10.0, -33.0]]),
            np.array([[14.0, -27.0]]),
            np.array([[5000, 4000]]),
            ["0", "1"],
            ["0"],
            "gain",
            "x",
            "y",
            percent=False,
        ),
    ]
    for png in pngs:
        pixels = matplotlib.image.imread(io.BytesIO(png), format="png")
        assert float(pixels[..., :3].var()) > 0.001


def test_compare_mistakes_are_one_line(tmp_path: Path) -> None:
    runner = CliRunner()
    out = str(tmp_path / "cmp")
    cases = {
        ("count", "pagat", "--out", out): "say how much to play",
        ("count", "nosuch", "--hands", "5", "--out", out): "Invalid value for 'B'",
        ("count", "pagat", "--hands", "5", "--ns-play", "random", "--out", out): "give no --ns",
        ("count", "pagat", "--hands", "5", "--games", "2", "--out", out): "not both",
    }
    for args, message in cases.items():
        result = runner.invoke(cli, ["compare", *args])
        assert result.exit_code == 2, result.output
        assert result.output.startswith("error: ") and message in result.output
        assert result.output.count("\n") == 1
    assert not (tmp_path / "cmp").exists()


@needs_matplotlib
def test_percent_axes_label_each_tick_with_its_own_value() -> None:
    """A share axis (22.5% to 32.5%, where matplotlib's default ticks fall on half
    percents) reads each tick's label as the tick's value, not a rounded one."""
    # matplotlib imported here: the report extra may be absent (needs_matplotlib)
    import matplotlib
    import matplotlib.pyplot as plt

    from spades_sim.report.figures import percent_axis

    matplotlib.use("Agg")

    fig, ax = plt.subplots()
    ax.plot([0, 1, 2, 3], [0.19, 0.21, 0.26, 0.325])
    percent_axis(ax.yaxis)
    fig.canvas.draw()
    labelled = [(t.get_loc(), t.label1.get_text()) for t in ax.yaxis.get_major_ticks()]
    plt.close(fig)
    assert len(labelled) >= 3
    for loc, label in labelled:
        assert float(label.rstrip("%").replace("\u2212", "-")) == pytest.approx(100 * loc)
