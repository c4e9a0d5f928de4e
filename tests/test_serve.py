"""The hand analyser page in a real browser: Playwright driving Debian's chromium against
the app served on a free port (one server and one browser for the module).

Needs the ``web`` extra and ``/usr/bin/chromium`` (``.ci/run`` installs it); the parsing
and safety rules are held below in plain tests too, without a browser.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from spades_sim.errors import SpadesError
from spades_sim.web.deals import run_path
from spades_sim.web.query import MAX_N, parse_analysis

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
HAND = "AKQ.J52.T84.9632"
HAND_CARDS = ["AS", "KS", "QS", "JH", "5H", "2H", "TD", "8D", "4D", "9C", "6C", "3C", "2C"]
server_runs: list[str] = []  # the module server's --runs directory, once it is up
N = 200  # completions per analysis here: the page's default is larger, the test only reads


# ---- parsing and the safety rules, without a browser ----


def test_parse_reads_the_issue_permalink_and_gives_it_back() -> None:
    q = {
        "hand": "AKQ.J52.T84.9632", "seat": "S", "dealer": "W", "bids": "N4,E3",
        "score": "420-380", "bags": "7-2", "rules": "standard",
    }  # fmt: skip
    a = parse_analysis(q)
    assert (a.seat, a.dealer, a.bids, a.scores, a.bags) == (
        2,
        3,
        ((0, 4), (1, 3)),
        (420, 380),
        (7, 2),
    )
    assert a.bids_by_seat() == {"N": 4, "E": 3}
    assert parse_analysis(a.query()) == a
    assert a.permalink() == (
        "/?hand=AKQ.J52.T84.9632&seat=S&dealer=W&bids=N4,E3&score=420-380&bags=7-2&rules=standard"
    )
    # the other notation, nil and blind nil bids and negative scores read the same way
    b = parse_analysis(
        {**q, "hand": " ".join(HAND_CARDS), "bids": "Nnil,Eblind", "score": "-120--40"}
    )
    assert (b.hand, b.bids, b.scores) == (a.hand, ((0, 0), (1, -1)), (-120, -40))
    assert parse_analysis(b.query()) == b


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"hand": "AKQ.J52.T84.963"}, "a hand holds 13 cards, got 12"),
        ({"hand": "AKQ.J52.T84.9633"}, "3C is given twice"),
        ({"bids": "N14,E3"}, "'N14': a number bid is 1..13"),
        ({"bids": "E3"}, "the bids before S are by N, E, in that order"),
        ({"bids": "N4"}, "bids: with W dealing, N, E bid before S: give their bids, as N3,E3"),
        ({"bids": ""}, "bids: with W dealing, N, E bid before S"),
        ({"seat": "X"}, "seat: expected N, E, S or W"),
        ({"score": "500-0"}, "score: 500 is out of range"),
        ({"bags": "10-0"}, "bags: 10 is out of range 0..9"),
        ({"bags": "7"}, "bags: expected N-S then E-W, as 7-2, got '7'"),
        ({"rules": "mercy", "score": "-200-0"}, "score: -200 is out of range -199..499"),
        ({"dealer": "E", "bids": "N4"}, "with E dealing, S bids first: no bid comes before"),
        ({"rules": "two-player"}, "not a preset this page offers"),
        ({"n": str(MAX_N + 1)}, "n: the completions to play"),
        ({"hand": "AS " * 700}, "longer than"),
        ({"evil": "1"}, "unknown field 'evil'"),
    ],
)
def test_parse_refuses_bad_input_in_one_line(change: dict[str, str], says: str) -> None:
    q = {"hand": HAND, "seat": "S", "dealer": "W", "bids": "N4,E3", **change}
    with pytest.raises(SpadesError, match=None) as error:
        parse_analysis(q)
    assert says in str(error.value) and "\n" not in str(error.value)


def test_run_path_reads_nothing_outside_the_runs_directory(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    (runs / "good").mkdir(parents=True)
    (runs / "good" / "_manifest.json").write_text("{}")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "_manifest.json").write_text("{}")
    os.symlink(outside, runs / "link")
    assert run_path(runs, "good") == (runs / "good").resolve()
    for name, says in [
        ("../outside", "without .."),
        ("good/../../outside", "without .."),
        (str(outside), "without .."),
        ("link", "outside the runs directory"),
        ("missing", "no run there"),
        ("", "give the run's path"),
    ]:
        with pytest.raises(SpadesError) as error:
            run_path(runs, name)
        assert says in str(error.value), name
    with pytest.raises(SpadesError, match="--runs"):
        run_path(None, "good")


def test_jobs_run_in_order_and_cancel_stops_before_the_next_step() -> None:
    from spades_sim.web.jobs import Jobs, Step

    jobs = Jobs()
    gate, ran = threading.Event(), []

    def slow() -> int:
        gate.wait(10)
        ran.append("slow")
        return 1

    first = jobs.submit(
        "tab", [Step("a", "slow step", slow), Step("b", "next", lambda: ran.append("b"))]
    )
    while first.state == "queued":
        time.sleep(0.01)
    assert first.status()["step"] == "slow step"
    # a second analysis from the same tab cancels the first at once
    second = jobs.submit("tab", [Step("c", "quick", lambda: 7)])
    assert first.state == "cancelled"
    gate.set()
    while second.state in ("queued", "running"):
        time.sleep(0.01)
    assert second.state == "done" and second.results == {"c": 7}
    assert ran == ["slow"] and first.results == {}  # b never ran; a's value was dropped
    # a step that raises ends its job with one line, never a traceback
    bad = jobs.submit("other", [Step("d", "bad", lambda: int("x"))])
    while bad.state in ("queued", "running"):
        time.sleep(0.01)
    assert bad.state == "failed" and bad.error.startswith("invalid literal")
    # anything else is a bug: the page hears that the step failed, the log gets the rest
    bug = jobs.submit("other", [Step("e", "trick distribution", lambda: 1 // 0)])
    while bug.state in ("queued", "running"):
        time.sleep(0.01)
    assert bug.error == "the trick distribution failed (the server's log says why)"
    jobs.shutdown()


def test_a_typed_deal_replays_with_values_and_nil_safety() -> None:
    from spades_sim.web.deals import replay, typed_deal

    suits = {"n": "AKQJT98765432...", "e": ".AKQJT98765432..", "s": "..AKQJT98765432."}
    deal = typed_deal({**suits, "w": "...AKQJT98765432", "dealer": "W", "bids": "N13,Enil",
                       "play": "AS 2H 2D 2C KS"})  # fmt: skip
    shown = replay(deal)
    # North's spades take every trick whatever it plays; East's nil cannot be set: every
    # card East holds is a heart, and North leads spades
    assert [s["values"]["AS"] for s in shown["steps"][:1]] == [13]
    assert all(s["nil_safe"] == {"E": True} for s in shown["steps"])
    assert shown["steps"][3]["winner"] == "N" and shown["steps"][3]["won"] == [1, 0]
    assert shown["next"] == {"seat": "E", "values": {c + "H": 0 for c in "AKQJT9876543"}}
    with pytest.raises(SpadesError, match="AS"):
        typed_deal({**suits, "w": "AS..AKQJT98765432", "dealer": "W"})
    with pytest.raises(SpadesError, match=r"play 2 \(E 2D\)"):
        replay(typed_deal({**suits, "w": "...AKQJT98765432", "play": "AS 2D"}))


def test_serve_refuses_a_runs_directory_that_is_not_one(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from spades_sim.cli import cli

    result = CliRunner().invoke(cli, ["serve", "--no-browser", "--runs", str(tmp_path / "none")])
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1].startswith("error: --runs: ")
    assert "Traceback" not in result.output


def test_serve_warns_off_loopback_and_hands_its_options_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from click.testing import CliRunner

    import spades_sim.web
    from spades_sim.cli import cli

    calls: list[dict[str, Any]] = []

    def fake_serve(**kw: Any) -> None:
        listening = kw.pop("listening")
        if listening is not None:  # as serve calls it, once bound
            listening()
        calls.append(kw)

    monkeypatch.setattr(spades_sim.web, "serve", fake_serve)
    quiet = CliRunner().invoke(cli, ["serve", "--no-browser", "--port", "8123"])
    assert quiet.exit_code == 0 and "warning" not in quiet.output
    loud = CliRunner().invoke(cli, ["serve", "--host", "0.0.0.0"])
    assert loud.exit_code == 0
    assert loud.output.startswith("warning: serving on 0.0.0.0: anyone who can reach")
    assert calls == [
        {"host": "127.0.0.1", "port": 8123, "runs": None, "browser": False},
        {"host": "0.0.0.0", "port": 0, "runs": None, "browser": True},
    ]


def test_serve_says_a_port_in_use_or_a_foreign_host_in_one_line_before_loading_kernels(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import socket

    from click.testing import CliRunner

    import spades_sim.web.server
    from spades_sim.cli import cli

    loaded: list[str] = []
    monkeypatch.setattr(spades_sim.web.server, "create_app", lambda **kw: loaded.append("app"))
    monkeypatch.setattr(spades_sim.web.server, "warm_up", lambda *a: loaded.append("warm"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(cli, ["serve", "--no-browser", "--port", str(port)])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        f"error: --port: port {port} is in use on 127.0.0.1; give another, or none for a free one"
    ]
    # an address of another machine (TEST-NET-1): one line on the host, no warning that
    # other machines could use a page that never starts
    other = CliRunner().invoke(cli, ["serve", "--no-browser", "--host", "192.0.2.1"])
    assert other.exit_code == 2, other.output
    lines = other.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --host: cannot listen on 192.0.2.1 (")
    assert loaded == [] and "Traceback" not in result.output + other.output


@pytest.mark.parametrize(
    "when",
    # serving: uvicorn's own shutdown, which stopped the worker already (slow tier)
    ["warming up", pytest.param("serving", marks=pytest.mark.slow), "analysing"],
)
def test_sigterm_stops_serve_and_its_worker_without_a_leak_or_traceback(when: str) -> None:
    import signal
    import subprocess
    import sys

    from spades_sim.web.server import free_port

    args = [sys.executable, "-m", "spades_sim.cli", "serve", "--no-browser"]
    port = free_port()
    proc = subprocess.Popen(
        [*args, "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: what outlives it is seen below
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        wanted = "loading the kernels" if when == "warming up" else "serving the hand analyser"
        out = ""
        while wanted not in out:
            line = proc.stdout.readline()
            assert line, f"serve ended before {when}: {out}"
            out += line
        if when == "analysing":  # a long one: the worker is stopped in the middle of it
            query = {"tab": "t", "hand": HAND, "n": str(MAX_N), "dd": "1"}
            status, _ = api(f"http://127.0.0.1:{port}", "/api/analyse", query)
            assert status == 200
        time.sleep(0.5)  # warming up or analysing: the worker is busy now
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) == 128 + signal.SIGTERM
        # the worker process and multiprocessing's tracker end with it
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.2)
        else:
            raise AssertionError(f"a process of serve outlived it, {when}")
        out += proc.stdout.read()
        err = proc.stderr.read()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    assert out.strip().splitlines()[-1] == "stopped", out
    assert "leaked semaphore" not in err and "Traceback" not in err, err


# ---- the page in a browser ----


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    import uvicorn

    from spades_sim.run import RunSpec, run_dataset
    from spades_sim.web import create_app, warm_up
    from spades_sim.web.server import free_port

    runs = tmp_path_factory.mktemp("runs")
    server_runs[:] = [str(runs)]
    run_dataset(RunSpec.build(seed=5), 8, runs / "small")
    os.symlink(tmp_path_factory.mktemp("elsewhere"), runs / "out")
    app = create_app(runs=runs)
    warm_up(lambda _line: None, app.state.pool)  # as `serve` does: no request waits on one
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    while not srv.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=30)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1000, "height": 1400})
    pg = context.new_page()
    pg.set_default_timeout(120_000)
    yield pg
    context.close()


def bids_shown(page: Any) -> list[str]:
    page.wait_for_selector("#bid-table tr[data-bid]")
    return [r.get_attribute("data-bid") for r in page.query_selector_all("#bid-table tr[data-bid]")]


def test_picking_13_cards_gives_every_legal_bid_and_the_permalink_reproduces_it(
    server: str, page: Any, record_property: Any
) -> None:
    page.goto(server + "/")
    for card in HAND_CARDS:
        page.click(f"[data-card='{card}']")
    assert page.input_value("#hand") == HAND
    page.fill("input[name=n]", str(N))
    started = time.monotonic()
    page.click("#analyse")
    bids = bids_shown(page)
    record_property("bid_table_seconds", round(time.monotonic() - started, 2))
    # standard rules, first to bid after the dealer: blind nil, nil and every number
    assert bids == ["blind nil", "nil", *map(str, range(1, 14))]
    best = page.query_selector_all("#bid-table tr.best")
    assert len(best) == 1 and "Bid " in page.inner_text("#bid-table .why")
    table = page.inner_text("#bid-table table")
    page.wait_for_selector("#tricks svg")  # the last step: the analysis is over
    link = page.get_attribute("#permalink", "href")
    assert link.startswith("/?hand=AKQ.J52.T84.9632&seat=S&dealer=E") and f"n={N}" in link
    page.goto(server + link)
    assert page.input_value("#hand") == HAND
    assert bids_shown(page) == bids
    assert page.inner_text("#bid-table table") == table  # same seed, same numbers
    # the issue's permalink: two bids before the seat, a score and bags
    issue = "/?hand=AKQ.J52.T84.9632&seat=S&dealer=W&bids=N4,E3&score=420-380&bags=7-2"
    page.goto(server + issue + f"&rules=standard&n={N}")
    assert page.input_value("input[name=bids]") == "N4,E3"
    assert {"nil", "1", "13"} <= set(bids_shown(page))
    assert page.inner_text("#bid-table table") != table


@pytest.mark.parametrize(
    ("hand", "bids", "says"),
    [
        (" ".join(HAND_CARDS[:12]), "N4,E3", "a hand holds 13 cards, got 12"),
        (HAND.replace("9632", "9633"), "N4,E3", "3C is given twice"),
        (HAND, "N14,E3", "'N14': a number bid is 1..13"),
    ],
)
def test_bad_input_shows_one_message_and_a_4xx_and_the_server_goes_on(
    server: str, page: Any, hand: str, bids: str, says: str
) -> None:
    page.goto(server + "/")
    page.fill("#hand", hand)
    page.select_option("select[name=dealer]", "W")
    page.fill("input[name=bids]", bids)
    with page.expect_response("**/api/analyse") as response:
        page.click("#analyse")
    assert 400 <= response.value.status < 500
    page.wait_for_selector("#message:not([hidden])")
    messages = [m for m in page.query_selector_all(".error") if m.is_visible()]
    assert len(messages) == 1 and says in messages[0].inner_text()
    # the server keeps serving: a good request still answers
    with urllib.request.urlopen(server + "/?hand=" + HAND) as answer:
        assert answer.status == 200


def test_an_analysis_shows_its_progress_and_can_be_cancelled(server: str, page: Any) -> None:
    # another tab's analysis keeps the worker busy (its trick distribution solves 40
    # deals), so this one waits in the queue, where a cancel must stop it for sure
    status, blocker = api(server, "/api/analyse", {"tab": "other", "hand": "Q73.J52.T84.9632"})
    assert status == 200
    page.goto(server + "/")
    page.fill("#hand", HAND)
    page.fill("input[name=n]", str(N))
    page.click("#analyse")
    page.wait_for_selector("#progress:not([hidden])")
    assert page.inner_text("#progress").strip() in ("queued…", "")
    page.click("#cancel")
    page.wait_for_selector("#message:not([hidden])")
    assert page.inner_text("#message") == "Cancelled."
    assert page.is_hidden("#progress") and page.is_hidden("#cancel")
    page.wait_for_timeout(500)  # a late poll must not bring results back
    assert page.query_selector_all("#bid-table") == []
    # the other tab's analysis goes on (queued still, when an analysis an earlier test
    # left running holds the worker), and shows where it is
    with urllib.request.urlopen(f"{server}/api/job/{blocker['job']}") as answer:
        other = json.load(answer)
    assert other["state"] in ("queued", "running", "done") and other["total"] == 2, other
    api(server, f"/api/job/{blocker['job']}/cancel", {})


def test_a_bad_permalink_is_a_4xx_page_with_one_message(server: str, page: Any) -> None:
    response = page.goto(server + "/?hand=AKQ.J52.T84.963&seat=S")
    assert response.status == 400
    assert page.inner_text("#message") == "hand: a hand holds 13 cards, got 12"
    assert page.query_selector_all("#bid-table") == []


def api(server: str, path: str, data: dict[str, str]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        server + path, json.dumps(data).encode(), {"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def finished(server: str, job_id: str) -> dict[str, Any]:
    """The job's status once it has ended."""
    while True:
        with urllib.request.urlopen(f"{server}/api/job/{job_id}") as answer:
            job = json.load(answer)
        if job["state"] not in ("queued", "running"):
            return job
        time.sleep(0.1)


def test_the_nil_view_is_the_bid_tables_nil_row(server: str) -> None:
    """Bids before the seat and bags near the penalty: the nil odds shown are the table's
    nil row (made, points) and its best number bid's points, not a second sampling."""
    query = {"tab": "nilrow", "hand": "Q73.J52.T84.9632", "dealer": "W", "bids": "N4,E3"}
    status, started = api(server, "/api/analyse", {**query, "score": "420-380", "bags": "7-2"})
    assert status == 200
    job = finished(server, started["job"])
    assert job["state"] == "done", job
    html = job["html"]

    def row(bid: str) -> tuple[float, str]:
        cells = html.split(f'<tr data-bid="{bid}"')[1].split("</tr>")[0].split("<td")
        made = re.search(r">(\d+)%<", cells[2])
        points = re.search(r"</svg> (-?\d+\.\d)", cells[3])
        assert made and points, cells
        return float(made.group(1)), points.group(1)

    section = html.split('id="nil-odds"')[1].split("</section>")[0]
    shown = re.search(
        r"Nil made <strong>([\d.]+)%</strong>.* scores (-?[\d.]+) a hand bidding nil, "
        r"(-?[\d.]+) bidding (\d+)",
        section,
        re.S,
    )
    assert shown, section
    made, points = row("nil")
    assert abs(float(shown.group(1)) - made) <= 0.5 and shown.group(2) == points
    assert shown.group(3) == row(shown.group(4))[1]


def test_requests_are_capped_and_runs_outside_are_refused(server: str) -> None:
    status, body = api(server, "/api/analyse", {"tab": "x", "hand": "AS" * 10_000})
    assert status == 413 and "larger than" in body["error"]
    for run in ("../small", "/etc", "out"):
        status, body = api(server, "/api/deal", {"tab": "x", "run": run, "deal": "0"})
        assert status == 400 and "runs directory" in body["error"], run
    status, body = api(server, "/api/analyse", {"tab": "x", "hand": HAND, "n": "1000000"})
    assert status == 400 and "n: the completions" in body["error"]


def test_perfect_defence_on_request_never_keeps_a_nil_holding_the_ace_of_spades(
    server: str,
) -> None:
    """The ace of spades wins whatever trick it is played to, and it must be played at
    last: such a nil is never safe, so the page's perfect-defence share is exactly 0."""
    hand = "A73.J52.T84.9632"
    status, started = api(server, "/api/analyse", {"tab": "dd", "hand": hand, "n": "6", "dd": "1"})
    assert status == 200 and started["permalink"].endswith("&n=6&dd=1")
    job = finished(server, started["job"])
    assert job["state"] == "done" and job["total"] == 3
    section = job["html"].split('id="perfect-defence"')[1].split("</section>")[0]
    assert "<strong>0.0%</strong>" in section and "first 6 deals" in section
    # and the bid table says the same of the nil against the bots
    assert '<tr data-bid="nil">' in job["html"]
    nil_row = job["html"].split('<tr data-bid="nil">')[1].split("</tr>")[0]
    assert "<td>0%</td>" in nil_row


def test_a_request_that_raises_answers_an_error_page_without_a_traceback(
    server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(query: object) -> None:
        raise RuntimeError("a bug, with a secret path /home/x")

    monkeypatch.setattr("spades_sim.web.app.parse_analysis", boom)
    try:
        urllib.request.urlopen(server + "/?hand=" + HAND)
        raise AssertionError("no error")
    except urllib.error.HTTPError as error:
        body = error.read().decode()
        assert error.code == 500 and "could not answer" in body
        assert "Traceback" not in body and "secret" not in body
    status, answer = api(server, "/api/analyse", {"tab": "x", "hand": HAND})
    assert status == 500 and answer == {
        "error": "the server could not answer this request (see its log)"
    }
    monkeypatch.undo()
    with urllib.request.urlopen(server + "/?hand=" + HAND) as ok:
        assert ok.status == 200


def test_the_deal_viewer_replays_a_run_deal_with_double_dummy_values(
    server: str, page: Any
) -> None:
    page.goto(server + "/deal?run=small&deal=1")  # North bids nil in this deal
    page.wait_for_selector("#viewer:not([hidden])")
    assert "run small, deal 1" in page.inner_text("#source")
    assert "bid nil nil safe" in page.inner_text(".seat-N") or "nil not safe" in page.inner_text(
        ".seat-N"
    )
    assert page.inner_text("#where") == "0 of 52 cards"
    # the leader's legal cards carry a value; at least one is marked best
    assert page.query_selector_all(".c.legal + sub")
    assert page.query_selector_all(".c.best")
    page.click("#nexttrick")
    assert page.inner_text("#where") == "4 of 52 cards"
    page.click("#last")
    assert "Score this hand" in page.inner_text(".trick")


def test_replay_values_agree_with_each_other_and_with_the_run(server: str) -> None:
    """Each step's best value is the side's tricks under perfect play from there; after a
    card worth ``v`` to its side, the next seat's best is ``v`` (same side) or the rest
    of the hand (the other side); the last step's tricks are the run's."""
    from spades_sim.dataset import load
    from spades_sim.web.deals import replay, run_deal

    runs = Path(server_runs[0])
    deal = run_deal(runs / "small", 5, "small")
    shown = replay(deal)
    steps = shown["steps"]
    assert len(steps) == 52
    for step, after in itertools.pairwise(steps):
        side, next_side = "NESW".index(step["seat"]) % 2, "NESW".index(after["seat"]) % 2
        assert after["best"] == (step["played"] if side == next_side else 13 - step["played"])
        assert step["played"] <= step["best"] == max(step["values"].values())
    rows = load(str(runs / "small"))
    tricks = rows[rows["deal"] == 5].sort_values("seat")["tricks"].to_numpy()
    assert steps[-1]["won"] == [int(tricks[0] + tricks[2]), int(tricks[1] + tricks[3])]
