"""How strong and how fast the built-in policies are, measured the way comparisons should be.

Prints, with 95% confidence intervals:

(a) ``heuristic`` play against ``random`` play, duplicate (same deals, sides swapped),
    both sides bidding ``count``: the heuristic side's mean score margin per hand;
(b) ``lookahead`` play against ``heuristic``, duplicate, likewise;
(c) the bid accuracy of every bidder, all four seats bidding with it and playing
    ``heuristic``: mean absolute error of a side's tricks against its contract;
(d) the success rate of the nils the built-in nil rules bid, under ``heuristic`` play
    (Wilson interval);
(f) the ladder: every play policy against every other in duplicate (``random``,
    ``heuristic``, ``lookahead`` bid-blind and reading the bids, ``lookahead:samples=48``,
    ``pimc`` at ``--pimc-worlds`` bid-blind, without its nil rollouts, with 16 deals in
    its first tricks, and with its defaults), both sides bidding
    ``count``: points per hand of the first against the second, and for each pair the
    share of the first's side's nils made (covering) and of the other side's nils it
    set (defending), with 95% intervals, and the ranking; ``--ladder-only`` runs it alone,
    ``--ladder-out FILE`` writes its table for ``spades-sim report RUN --ladder FILE``;
(g) with ``--outside``: the rung from outside (``outside_rung.py``), OpenSpiel's
    ``MCTSBot`` voting over sampled worlds against ``heuristic`` and against ``pimc`` in
    duplicate on OpenSpiel's rules (needs OpenSpiel, installed on first use);
(e) throughput on one thread (median of 5 runs after a warm-up): ``count`` +
    ``heuristic`` through the library (lock-step kernel; target: one million hands per
    second per core) and through the scalar kernel, and a user-written policy
    (``analyses/custom_policy.py: heuristic_twin``, which the scalar kernel runs) against
    its built-in twin.

Run from the repository root: ``python benchmarks/strength.py`` (about ten minutes on a
two-core machine, plus the solver's compile for the ladder's ``pimc`` on a cold cache;
``--deals`` scales (a)-(d), ``--ladder-deals`` (f), ``--quick`` is a smoke run).
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if __name__ == "__main__":  # run as a script: import the package from this checkout
    sys.path.insert(0, str(ROOT))

import numba  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from spades_sim._nb import loop  # noqa: E402
from spades_sim._nb.enums import N_OUT_I8, N_OUT_I32, OutI8, OutI32  # noqa: E402
from spades_sim.analysis import (  # noqa: E402
    Duplicate,
    Estimate,
    bid_accuracy,
    duplicate,
    estimate_of,
    mean_ci,
    nil_success,
    proportion_ci,
    write_ladder,
)
from spades_sim.analysis.ladder import ladder as play_ladder  # noqa: E402
from spades_sim.analysis.ladder import ranking  # noqa: E402
from spades_sim.report.words import ranking_sentence  # noqa: E402
from spades_sim.run.chunks import run_chunk  # noqa: E402
from spades_sim.simulate import RunSpec, simulate_hands  # noqa: E402
from spades_sim.threads import kernel_threads  # noqa: E402


def scalar_kernel(n: int, repeats: int = 5) -> tuple[float, float, bool]:
    """count + heuristic through the scalar kernel (``loop.hands_nb``, which the library
    uses for games, recorded play and mixed policies; hands runs with both sides on the
    heuristic go to the lock-step kernel instead): hands/s by wall clock and CPU time
    on one thread, and whether its rows equal the library's."""
    spec = RunSpec.build(seed=7, bidding="count", play="heuristic")
    rules = spec.rules.lower()
    params = np.stack([p.lower() for p in (*spec.bidding, *spec.play, spec.draw)])
    rows = spec.rules.players

    def run(count: int) -> tuple[np.ndarray, ...]:
        out = (
            np.empty(count * rows, np.uint64),
            np.empty((N_OUT_I8, count * rows), np.int8),
            np.empty((N_OUT_I32, count * rows), np.int32),
            np.zeros(count, np.int8),
            np.zeros(0, np.uint64),
            np.zeros((0, 13 * rows), np.int8),
            np.zeros((0, 13), np.int8),
        )
        loop.hands_nb(rules, np.int64(7), np.int64(0), np.int64(count), params, *out)
        return out

    with kernel_threads(1):
        run(256)
        wall, cpu = _timed(lambda: run(n), repeats)
        check = min(n, 20_000)
        out = run(check)
        library = run_chunk(spec, 0, 0, check).hands
    same = bool(
        np.array_equal(out[0], library["hand"])
        and np.array_equal(out[1][OutI8.tricks], library["tricks"])
        and np.array_equal(out[1][OutI8.bid], library["bid"])
        and np.array_equal(out[2][OutI32.score_change], library["score_change"])
    )
    return n / wall, n / cpu, same


BIDDERS = ("count", "pagat", "partner-aware", "monte-carlo", "monte-carlo:objective=1")


def _example() -> object:
    path = ROOT / "analyses" / "custom_policy.py"
    spec = importlib.util.spec_from_file_location("custom_policy", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # Numba's cache looks the module up by name
    spec.loader.exec_module(module)
    return module


def _timed(run: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Median wall-clock and CPU seconds of ``repeats`` calls (CPU time leaves out the
    time other processes took the core: on a shared machine it is the fairer figure)."""
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def throughput(bidding: object, play: object, n: int, repeats: int = 5) -> tuple[float, float]:
    """Hands per second on one thread, by wall clock and by CPU time: medians of
    ``repeats`` runs of ``n`` deals through the library's kernel."""
    spec = RunSpec.build(seed=7, bidding=bidding, play=play)  # type: ignore[arg-type]
    with kernel_threads(1):
        run_chunk(spec, 0, 0, 256)  # compile or load the kernel
        wall, cpu = _timed(lambda: run_chunk(spec, 0, 0, n), repeats)
    return n / wall, n / cpu


def paired_error_difference(first: pd.DataFrame, second: pd.DataFrame) -> Estimate:
    """Mean of |error| under ``first`` minus under ``second`` on the same deals and sides
    (sides with a contract in both runs), with its normal 95% interval."""
    keys = ["deal", "side"]

    def errors(df: pd.DataFrame) -> pd.Series:
        sides = df[(df.seat < 2) & (df.side_contract > 0)]
        error = (sides.side_tricks - sides.side_contract).abs().astype(float)
        return pd.Series(error.to_numpy(), index=pd.MultiIndex.from_frame(sides[keys]))

    a, b = errors(first).align(errors(second), join="inner")
    return mean_ci((a - b).to_numpy())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20_000, help="deals for (a)-(d)")
    parser.add_argument("--lookahead-deals", type=int, default=10_000, help="deals for (b)")
    parser.add_argument("--speed-deals", type=int, default=400_000, help="deals per speed run")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--ladder-deals", type=int, default=100, help="deals per ladder pair")
    parser.add_argument("--pimc-worlds", type=int, default=8, help="the ladder's pimc worlds")
    parser.add_argument("--ladder-only", action="store_true", help="run (f) (and (g)) alone")
    parser.add_argument(
        "--ladder-out", type=Path, help="write (f)'s table there (spades-sim report --ladder)"
    )
    parser.add_argument(
        "--outside", action="store_true", help="(g): the rung from outside (OpenSpiel's MCTS)"
    )
    parser.add_argument("--outside-deals", type=int, default=100, help="deals for (g)")
    parser.add_argument("--mcts-worlds", type=int, default=8, help="(g): MCTS worlds")
    parser.add_argument("--mcts-simulations", type=int, default=2000, help="(g): a world's")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for a smoke run")
    args = parser.parse_args(argv)
    if args.quick:
        args.deals, args.lookahead_deals, args.speed_deals = 400, 200, 4000
        args.ladder_deals, args.pimc_worlds = 4, 1
        args.outside_deals, args.mcts_worlds, args.mcts_simulations = 2, 2, 50
    print("$ python " + " ".join([Path(sys.argv[0]).as_posix(), *(argv or sys.argv[1:])]))
    threads = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    print(
        f"python {platform.python_version()}, numba {numba.__version__}, "
        f"{threads} threads available, {platform.machine()}"
    )
    n, seed = args.deals, args.seed
    if args.ladder_only:
        ladder(args.ladder_deals, args.pimc_worlds, seed, args.ladder_out)
        if args.outside:
            outside(
                args.outside_deals, args.mcts_worlds, args.mcts_simulations, args.pimc_worlds, seed
            )
        return

    t = time.perf_counter()
    r = duplicate("heuristic", "random", n, seed=seed, bidding="count")
    print(f"\n(a) heuristic vs random play, {n} deals x 2, duplicate, count bidding:")
    print(f"    heuristic's margin per hand {r.margin}  ({time.perf_counter() - t:.0f} s)")

    t = time.perf_counter()
    m = args.lookahead_deals
    r = duplicate("lookahead", "heuristic", m, seed=seed + 1, bidding="count")
    print(f"\n(b) lookahead vs heuristic play, {m} deals x 2, duplicate, count bidding:")
    print(f"    lookahead's margin per hand {r.margin}  ({time.perf_counter() - t:.0f} s)")

    print(f"\n(c) bid accuracy, {n} deals, all seats one bidder, heuristic play:")
    print("    bidder                   MAE |side tricks - contract| [95% CI]   made   score/hand")
    frames = {}
    for bidder in BIDDERS:
        t = time.perf_counter()
        df = simulate_hands(n, seed=seed + 2, bidding=bidder, play="heuristic")
        frames[bidder] = df
        sides = df[(df.seat < 2) & (df.side_contract > 0)]
        made = (sides.made == 1).mean()
        score = df[df.seat < 2].score_change.mean()
        mae = estimate_of(bid_accuracy(df), "abs_difference")
        print(
            f"    {bidder:24s} {mae!s:36s} {made:5.3f}  {score:6.1f}"
            f"  ({time.perf_counter() - t:.0f} s)"
        )

    mc = BIDDERS[3]
    print(f"    paired by deal and side, {mc} MAE minus the other's [95% CI]:")
    for bidder in BIDDERS:
        if bidder != mc:
            print(f"      vs {bidder:24s} {paired_error_difference(frames[mc], frames[bidder])}")

    print("\n(d) nils bid by the built-in nil rules, heuristic play (Wilson 95% CI):")
    for bidder in BIDDERS[:4]:
        nils = nil_success(frames[bidder])
        made, rate = estimate_of(nils, "success_rate"), estimate_of(nils, "nil_rate")
        print(f"    {bidder:24s} made {made}, nil bid by {rate.value:.3f} of seats")

    print(f"\n(e) throughput, one thread, median of 5 runs of {args.speed_deals} deals")
    print("    (hands/s by wall clock | by CPU time; the machine may be shared):")

    def show(label: str, rates: tuple[float, ...]) -> None:
        print(f"    {label:38s}{rates[0]:11,.0f} | {rates[1]:11,.0f}")

    library = throughput("count", "heuristic", args.speed_deals)
    show("count + heuristic (library: lock-step)", library)
    *scalar, same = scalar_kernel(args.speed_deals)
    show("count + heuristic (scalar kernel)", tuple(scalar))
    print(f"      (rows equal the library's: {same})")
    show("count + random (library: lock-step)", throughput("count", "random", args.speed_deals))
    twin = _example().heuristic_twin  # type: ignore[attr-defined]
    user = throughput("count", twin, args.speed_deals)
    show("count + heuristic_twin (user @njit)", user)
    print(
        "    user-written / built-in, the same scalar kernel work: "
        f"{user[0] / scalar[0]:.2f} | {user[1] / scalar[1]:.2f}"
    )
    ratio = f"{user[0] / library[0]:.2f} | {user[1] / library[1]:.2f}"
    print(f"    user-written / the lock-step built-in: {ratio}")
    ladder(args.ladder_deals, args.pimc_worlds, seed, args.ladder_out)
    if args.outside:
        outside(args.outside_deals, args.mcts_worlds, args.mcts_simulations, args.pimc_worlds, seed)


def ladder(deals: int, worlds: int, seed: int, out: Path | None = None) -> None:
    """(f): every pair of play policies in duplicate (``spades_sim.analysis.ladder``, the
    table ``spades-sim ladder`` writes), the higher rung first; with ``out``, the table is
    written there for ``spades-sim report RUN --ladder FILE``."""
    # each inference switch its own rung: lookahead bid-blind and reading the bids (the
    # default), and with pimc's 48 deals; pimc (lookahead's first tricks, then the
    # solver) bid-blind, without its nil rollouts, with lookahead's 16 deals in its first
    # tricks, and with its defaults
    rungs = (
        "random",
        "heuristic",
        "lookahead:read_bids=0",
        "lookahead",
        "lookahead:samples=48",
        f"pimc:worlds={worlds},read_bids=0",
        f"pimc:worlds={worlds},nil_rollouts=0",
        f"pimc:worlds={worlds},lookahead_samples=16",
        f"pimc:worlds={worlds}",
    )
    print(f"\n(f) the ladder: play policies in duplicate, {deals} deals x 2, count bidding")
    print("    A vs B: A's points per hand [95% CI]; nils of A's side made, B's nils A set")
    started = [time.perf_counter()]

    def show(a: str, b: str, r: Duplicate) -> None:
        made = "-" if r.nils_made is None else str(r.nils_made)
        set_ = "-" if r.nils_set is None else str(r.nils_set)
        took = time.perf_counter() - started[0]
        started[0] = time.perf_counter()
        print(f"    {a:>16s} vs {b:<10s} {r.margin!s:30s} ({took:.0f} s)")
        print(f"    {'':16s}    nils made {made}; set {set_}", flush=True)

    table = play_ladder(rungs, deals, seed=seed + 3, bidding="count", on_pair=show)
    order, ties = ranking(table)
    print("    " + ranking_sentence(order, ties))
    if out is not None:
        print(f"    wrote {write_ladder(table, out, force=True)} (spades-sim report RUN --ladder)")


def outside(deals: int, worlds: int, simulations: int, pimc_worlds: int, seed: int) -> None:
    """(g): the rung from outside (``outside_rung.py``): OpenSpiel's ``MCTSBot`` voting
    over sampled worlds against ``heuristic`` and against ``pimc``, in duplicate on
    OpenSpiel's rules, so that the ladder is tied to a search written elsewhere."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import outside_rung

    print(
        f"\n(g) the outside rung: OpenSpiel MCTSBot ({worlds} worlds x {simulations} "
        f"simulations) in duplicate, {deals} deals x 2, openspiel rules, count bidding"
    )
    for opponent in ("heuristic", "pimc"):
        args = outside_rung.arguments(
            ["--deals", str(deals), "--worlds", str(worlds), "--simulations", str(simulations),
             "--opponent", opponent, "--pimc-worlds", str(pimc_worlds), "--seed", str(seed)]
        )  # fmt: skip
        got = outside_rung.play_rung(args, progress=False)
        k, n = got["covering"]
        ks, ns = got["defending"]
        made = f"{k}/{n}" + (f" {proportion_ci(k, n)}" if n else "")
        set_ = f"{ks}/{ns}" + (f" {proportion_ci(ks, ns)}" if ns else "")
        print(f"    {'openspiel-mcts':>16s} vs {got['b']:<10s} {got['margin']!s:30s} "
              f"({got['seconds']:.0f} s)")  # fmt: skip
        print(f"    {'':16s}    nils made {made}; set {set_}; OpenSpiel's scores agree on "
              f"{got['scores_agree']}/{got['hands']} hands", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
