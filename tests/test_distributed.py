"""The Dask backend (spades_sim.run.cluster): the same dataset as the threaded local run.

- A local cluster of 2 worker processes writes, for the same spec, part files identical
  byte for byte to the local run's (hands with the lock-step kernel, games with play
  recorded), and the same manifest; with another chunk size, the same rows. The
  analyses read it unchanged (the same tables as from the local run).
- A resume on the cluster skips the parts a local run finished (their files untouched);
  an interrupted cluster run keeps its parts, those in flight included, and resumes; so
  does the command line stopped by Ctrl-C with ``local:2`` workers (slow tier).
- An output given as a ``file://`` URI works end to end, readers included.
- A task that fails is retried and its part rewritten (a write fault injected in the
  workers); a worker killed mid-run loses and duplicates nothing (slow tier).
- The command line: ``--scheduler local:2`` and ``--scheduler tcp://...`` runs, and one
  ``error:`` line for a bad value, an unreachable scheduler or a missing dask extra.

Policies are explicit (``play=``): the tests do not depend on the library's defaults.
"""

from __future__ import annotations

import contextlib
import filecmp
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import spades_sim

pytest.importorskip(
    "distributed", reason="the dask extra is not installed: pip install 'spades_sim[dask]'"
)

import cloudpickle
from click.testing import CliRunner
from distributed import Client, LocalCluster

from spades_sim.analysis import bag_accumulation, bid_accuracy, nil_success
from spades_sim.cli import cli
from spades_sim.dataset import load, load_games, part_files, read_manifest
from spades_sim.policies import parse_policy
from spades_sim.rules import Rules
from spades_sim.run import Progress, RunInterrupted, run_dataset
from spades_sim.run.cluster import Scheduler, local_cluster, run_distributed
from spades_sim.simulate import RunSpec

ROOT = Path(__file__).resolve().parent.parent

# Functions the tests run inside the workers travel by value (the workers need not import
# this test module).
cloudpickle.register_pickle_by_value(sys.modules[__name__])

HANDS = RunSpec.build(seed=11, bidding=("count", "random"), play="heuristic")
"""Hands mode on the lock-step kernel (both sides heuristic, play not recorded)."""
GAMES = RunSpec.build(
    seed=12,
    rules=Rules.preset("mercy"),
    play=("random", "heuristic"),
    mode="games",
    record_play=True,
)


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def child_env() -> dict[str, str]:
    """Environment for a child Python that must import this checkout of spades_sim."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def start_cluster(workers: int = 2) -> tuple[LocalCluster, Client]:
    cluster = local_cluster(workers)  # as --scheduler local:2 starts it
    return cluster, Client(cluster, set_as_default=False)


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    """One local cluster of 2 worker processes for the module (starting one takes seconds)."""
    cluster, client = start_cluster()
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def run_files(out: Path) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())


def assert_identical_runs(a: Path, b: Path) -> None:
    """The same files with the same bytes (the manifest included)."""
    files = run_files(a)
    assert files == run_files(b)
    for name in files:
        assert filecmp.cmp(a / name, b / name, shallow=False), name


def assert_same_rows(a: Path | str, b: Path | str) -> None:
    pd.testing.assert_frame_equal(load(a), load(b), obj="hands")
    if read_manifest(a)["meta"]["mode"] == "games":
        pd.testing.assert_frame_equal(load_games(a), load_games(b), obj="games")
    if read_manifest(a)["meta"]["record_play"]:
        pd.testing.assert_frame_equal(load(a, table="plays"), load(b, table="plays"))


# --------------------------------------------------------------------------------------
# The same dataset as the local run
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec, total, chunk, other_chunk", [(HANDS, 6000, 1300, 2048), (GAMES, 50, 12, 17)]
)
def test_same_dataset_as_the_threaded_local_run(
    tmp_path: Path, client: Client, spec: RunSpec, total: int, chunk: int, other_chunk: int
) -> None:
    local = run_dataset(spec, total, tmp_path / "local", chunk_size=chunk, threads=2)
    seen: list[Progress] = []
    cluster = run_distributed(
        spec,
        total,
        tmp_path / "cluster",
        scheduler=client,
        chunk_size=chunk,
        progress=seen.append,
    )
    assert_identical_runs(tmp_path / "local", tmp_path / "cluster")
    assert cluster.complete and read_manifest(tmp_path / "cluster")["complete"] is True
    same = ("hands", "games", "rows", "parts", "nil_rate", "made_rate", "bags_per_hand")
    assert [getattr(cluster, k) for k in same] == [getattr(local, k) for k in same]
    assert cluster.new_hands == local.hands and cluster.hands_per_second > 0
    assert [p.parts for p in seen] == list(range(local.parts + 1))
    assert seen[-1].done == total and {p.parts_total for p in seen} == {local.parts}
    for analysis in (nil_success, bag_accumulation, bid_accuracy):  # they read it unchanged
        table = analysis(tmp_path / "cluster")
        pd.testing.assert_frame_equal(table, analysis(tmp_path / "local"))
        assert len(table) > 0

    # run_dataset(scheduler=...) is the same backend; another chunk size, the same rows
    run_dataset(spec, total, tmp_path / "other", chunk_size=other_chunk, scheduler=client)
    assert_same_rows(tmp_path / "local", tmp_path / "other")


def interrupt_after_two_parts(p: Progress) -> None:
    """A progress callback that presses Ctrl-C once two parts are done."""
    if p.parts == 2:
        raise KeyboardInterrupt


def test_resume_on_the_cluster_skips_finished_parts(tmp_path: Path, client: Client) -> None:
    out = tmp_path / "run"
    with pytest.raises(RunInterrupted):
        run_dataset(GAMES, 40, out, chunk_size=8, progress=interrupt_after_two_parts)
    kept = {name: os.stat(out / name) for name in run_files(out) if "part-" in name}
    assert len(kept) == 2 * 3  # two parts: hands, games and plays files

    seen: list[Progress] = []
    resumed = run_distributed(GAMES, 40, out, scheduler=client, resume=True, progress=seen.append)
    assert resumed.complete and resumed.parts_skipped == 2 and resumed.parts == 5
    assert resumed.games == 40 and resumed.new_hands < resumed.hands
    assert (seen[0].done, seen[0].parts) == (16, 2)
    for name, before in kept.items():  # skipped, not rewritten
        after = os.stat(out / name)
        assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    run_dataset(GAMES, 40, tmp_path / "one_go", chunk_size=8)
    assert_identical_runs(tmp_path / "one_go", out)

    again = run_distributed(GAMES, 40, out, scheduler=client, resume=True)
    assert again.parts_skipped == 5 and again.new_hands == 0 and again.complete


def test_an_interrupted_run_keeps_its_parts_and_resumes(tmp_path: Path, client: Client) -> None:
    out = tmp_path / "run"
    with pytest.raises(RunInterrupted) as info:
        run_distributed(
            HANDS, 8000, out, scheduler=client, chunk_size=1000, progress=interrupt_after_two_parts
        )
    stopped = info.value.summary
    manifest = read_manifest(out)
    assert not stopped.complete and not manifest["complete"]
    assert 2 <= stopped.parts == len(manifest["parts"]) < 8  # the parts in flight landed too
    assert len(part_files(out)) == stopped.parts  # and nothing else was written
    resumed = run_distributed(HANDS, 8000, out, scheduler=client, resume=True)
    assert resumed.complete and resumed.parts_skipped == stopped.parts
    run_dataset(HANDS, 8000, tmp_path / "one_go", chunk_size=1000)
    assert_identical_runs(tmp_path / "one_go", out)


def test_output_as_a_file_uri(tmp_path: Path, client: Client) -> None:
    uri = (tmp_path / "uri-run").as_uri()
    assert uri.startswith("file:///")
    summary = run_distributed(HANDS, 3000, uri, scheduler=client, chunk_size=1000)
    assert summary.out == uri and summary.complete and summary.parts == 3
    run_dataset(HANDS, 3000, tmp_path / "local", chunk_size=1000)
    assert_identical_runs(tmp_path / "local", tmp_path / "uri-run")
    assert_same_rows(uri, tmp_path / "local")  # the readers take the URI too
    assert read_manifest(uri)["parts"].keys() == {"00000", "00001", "00002"}
    assert [p.name for p in part_files(uri)] == [f"part-0000{k}.parquet" for k in range(3)]
    with pytest.raises(FileExistsError, match="--resume"):
        run_distributed(HANDS, 3000, uri, scheduler=client, chunk_size=1000)


# --------------------------------------------------------------------------------------
# Failures
# --------------------------------------------------------------------------------------


def fail_first_write(part: int, flag: str) -> None:
    """(In a worker) the first write of ``part``, across all workers, fails half-way."""
    import spades_sim.dataset.store as sio

    real = sio._write_parquet

    def flaky(table: Any, path: Path, **options: Any) -> None:
        if path.name.startswith(f".part-{part:05d}.parquet."):
            try:
                os.close(os.open(flag, os.O_CREAT | os.O_EXCL))  # once, whoever comes first
            except FileExistsError:
                pass
            else:
                path.write_bytes(b"PAR1 half a file")
                raise OSError("injected: no space left on device")
        real(table, path, **options)

    flaky.real = real  # type: ignore[attr-defined]
    sio._write_parquet = flaky


def restore_write() -> None:
    import spades_sim.dataset.store as sio

    sio._write_parquet = getattr(sio._write_parquet, "real", sio._write_parquet)


def test_a_failed_task_is_retried_and_its_part_rewritten(tmp_path: Path, client: Client) -> None:
    flag = tmp_path / "fault-fired"
    client.run(fail_first_write, 1, str(flag))
    try:
        summary = run_distributed(HANDS, 4000, tmp_path / "run", scheduler=client, chunk_size=1000)
    finally:
        client.run(restore_write)
    assert flag.exists(), "the fault was never injected"
    assert summary.complete and summary.parts == 4
    assert not [n for n in run_files(tmp_path / "run") if n.endswith(".tmp")]
    run_dataset(HANDS, 4000, tmp_path / "local", chunk_size=1000)
    assert_identical_runs(tmp_path / "local", tmp_path / "run")

    client.run(fail_first_write, 0, str(tmp_path / "again"))  # no retries: the error surfaces
    try:
        with pytest.raises(OSError, match="injected"):
            run_distributed(
                HANDS, 4000, tmp_path / "no", scheduler=client, retries=0, chunk_size=1000
            )
    finally:
        client.run(restore_write)
    manifest = read_manifest(tmp_path / "no")  # the other parts landed; a resume finishes
    assert "00000" not in manifest["parts"] and not manifest["complete"]
    done = run_distributed(HANDS, 4000, tmp_path / "no", scheduler=client, resume=True)
    assert done.complete and done.parts_skipped == len(manifest["parts"])
    assert_identical_runs(tmp_path / "local", tmp_path / "no")


def test_an_output_the_workers_do_not_see_is_named(tmp_path: Path, client: Client) -> None:
    from spades_sim.dataset import PartFormat
    from spades_sim.run.cluster import write_part

    with pytest.raises(FileNotFoundError, match="a filesystem the client and every worker"):
        write_part(HANDS, str(tmp_path / "nowhere"), 0, 0, 10, meta={}, fmt=PartFormat(),
                   threads=1, version=spades_sim.__version__)  # fmt: skip


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    spec = RunSpec.build(seed=21, play="random", record_play=True)
    total, chunk = 150_000, 1500  # 100 parts of a few tens of ms each
    cluster, client = start_cluster()
    try:
        pids = client.run(os.getpid)
        victim = sorted(pids.values())[0]
        killed_at: list[int] = []

        def kill_a_worker(p: Progress) -> None:
            if p.parts >= 10 and not killed_at:
                os.kill(victim, signal.SIGKILL)
                killed_at.append(p.parts)

        summary = run_distributed(
            spec,
            total,
            tmp_path / "run",
            scheduler=client,
            chunk_size=chunk,
            progress=kill_a_worker,
        )
        assert killed_at and killed_at[0] < 100 - 10, "the run ended before the kill"
        assert victim not in client.run(os.getpid).values()
    finally:
        client.close()
        cluster.close()
    assert summary.complete and summary.parts == 100 and summary.hands == total
    assert not [n for n in run_files(tmp_path / "run") if n.endswith(".tmp")]
    run_dataset(spec, total, tmp_path / "one_go", chunk_size=chunk, fsync=False)
    assert_identical_runs(tmp_path / "one_go", tmp_path / "run")


@pytest.mark.slow
def test_ctrl_c_with_a_local_cluster_keeps_the_parts_and_resumes(tmp_path: Path) -> None:
    """Ctrl-C reaches the whole process group, the local workers included: they ignore it,
    the command lets the parts in flight land and exits 130; a resume completes the run."""
    out = tmp_path / "run"
    args = ["--hands", "1000000", "--chunk-size", "20000", "--seed", "4", "--play", "random"]
    code = "from spades_sim.cli import main; main()"
    command = [sys.executable, "-c", code, "simulate", *args, "--scheduler", "local:2"]
    child = subprocess.Popen(
        [*command, "--out", str(out), "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, as a terminal's foreground job
        # and, as such a job, Ctrl-C's default action even when the tests run in a
        # background job, which starts with SIGINT ignored (children inherit that)
        preexec_fn=_default_sigint,
        env=child_env(),
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and child.poll() is None:
            with contextlib.suppress(OSError, ValueError, KeyError):
                if len(read_manifest(out)["parts"]) >= 3:
                    break
            time.sleep(0.02)
        os.killpg(child.pid, signal.SIGINT)
        _, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
    assert child.returncode == 128 + signal.SIGINT, err.decode()
    assert "--resume" in err.decode().strip().splitlines()[-1]
    listed = read_manifest(out)["parts"]
    assert 3 <= len(listed) < 50 and len(part_files(out)) == len(listed)
    spec = RunSpec.build(seed=4, bidding="count", play="random")
    resumed = run_dataset(spec, 1_000_000, out, resume=True)
    assert resumed.parts_skipped == len(listed) and resumed.complete
    run_dataset(spec, 1_000_000, tmp_path / "one_go", chunk_size=20000, fsync=False)
    assert_identical_runs(tmp_path / "one_go", out)


# --------------------------------------------------------------------------------------
# The command line
# --------------------------------------------------------------------------------------

CLI_RUN = ["simulate", "--hands", "2000", "--seed", "5", "--chunk-size", "600", "--quiet"]
CLI_RUN += ["--bidding", "count", "--play", "random"]


def test_cli_local_cluster(tmp_path: Path) -> None:
    out = tmp_path / "cli"
    result = CliRunner().invoke(cli, [*CLI_RUN, "--scheduler", "local:2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["complete"] and summary["hands"] == 2000 and summary["parts"] == 4
    spec = RunSpec.build(seed=5, bidding="count", play="random")
    run_dataset(spec, 2000, tmp_path / "local", chunk_size=600)
    assert_identical_runs(tmp_path / "local", out)


def test_cli_running_scheduler(tmp_path: Path, client: Client) -> None:
    address = client.scheduler.address
    out = (tmp_path / "cli").as_uri()
    result = CliRunner().invoke(cli, [*CLI_RUN, "--scheduler", address, "--out", out])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["out"] == out
    again = CliRunner().invoke(cli, [*CLI_RUN, "--scheduler", address, "--out", out, "--resume"])
    assert again.exit_code == 0 and json.loads(again.output)["parts_skipped"] == 4


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(
    "value, code, message",
    [
        ("nonsense", 2, "expected tcp://HOST:PORT"),
        ("10.0.0.5:8786", 2, "expected tcp://HOST:PORT"),
        ("local:0", 2, "local:N needs a number of workers N >= 1"),
        ("local:two", 2, "local:N needs a number of workers N >= 1"),
        ("tcp://127.0.0.1:{port}", 1, "cannot reach the Dask scheduler at tcp://127.0.0.1:"),
    ],
)
def test_cli_scheduler_errors(tmp_path: Path, value: str, code: int, message: str) -> None:
    import dask

    out = tmp_path / "never"
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        value = value.format(port=free_port())
        result = CliRunner().invoke(cli, [*CLI_RUN, "--scheduler", value, "--out", str(out)])
    assert result.exit_code == code
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines
    assert not out.exists()  # nothing written before the cluster is reached


def test_cli_without_the_dask_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    args = [*CLI_RUN, "--scheduler", "local:2", "--out", str(tmp_path / "x")]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "error: running on a Dask cluster needs the dask extra: pip install 'spades_sim[dask]'"
    ]


def test_scheduler_values() -> None:
    assert Scheduler.parse(" tls://[::1]:8786/ ") == Scheduler(address="tls://[::1]:8786")
    assert str(Scheduler.parse("local:3")) == "local:3"
    with pytest.raises(ValueError, match="expected tcp://HOST:PORT"):
        Scheduler.parse("http://host:8786")
    with pytest.raises(ValueError, match="retries"):
        run_distributed(HANDS, 10, "never", scheduler="local:1", retries=-1)


@pytest.mark.slow
# the example's generated module, which tests/test_user_policies.py compiles: its worker
@pytest.mark.xdist_group("user_policies")
def test_user_written_policies_on_the_cluster(tmp_path: Path, client: Client) -> None:
    """A policy from a file reaches the workers by reference (its file, name and code
    digest): the same dataset as the threaded local run."""
    spec = RunSpec.build(
        seed=13,
        bidding=parse_policy(f"{ROOT / 'analyses/custom_policy.py'}:quick_tricks_bid", "bid"),
        play=parse_policy("analyses/custom_policy.py:cheapest_winner_play", "play"),
    )
    run_dataset(spec, 3000, tmp_path / "local", chunk_size=700, threads=2)
    run_distributed(spec, 3000, tmp_path / "cluster", scheduler=client, chunk_size=700)
    assert_identical_runs(tmp_path / "local", tmp_path / "cluster")
