"""How strong and how fast the built-in policies are, measured the way comparisons should be.

Prints, with 95% confidence intervals:

(a) ``heuristic`` play against ``random`` play, duplicate (same deals, sides swapped),
    both sides bidding ``count``: the heuristic side's mean score margin per hand;
(b) ``lookahead`` play against ``heuristic``, duplicate, likewise;
(c) the bid accuracy of every bidder, all four seats bidding with it and playing
    ``heuristic``: mean absolute error of a side's tricks against its contract;
(d) the success rate of the nils the built-in nil rules bid, under ``heuristic`` play
    (Wilson interval);
(e) throughput on one thread (median of 5 runs after a warm-up): ``count`` +
    ``heuristic`` (target: one million hands per second per core), and a user-written
    policy (``analyses/custom_policy.py: heuristic_twin``) against its built-in twin.

Run from the repository root: ``python benchmarks/strength.py`` (about five minutes on a
two-core machine; ``--deals`` scales (a)-(d), ``--quick`` is a smoke run).
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
from numba import njit, prange  # noqa: E402

from spades_sim._nb import layout as L  # noqa: E402
from spades_sim._nb import loop  # noqa: E402
from spades_sim._nb import policies as nbp  # noqa: E402
from spades_sim._nb.lockstep import F_HAND, F_LEADER, F_TRICKS, LANES  # noqa: E402
from spades_sim._nb.rng import KIND_HANDS, stream_key_nb  # noqa: E402
from spades_sim.analysis import (  # noqa: E402
    Estimate,
    bid_accuracy,
    duplicate,
    mean_ci,
    nil_success,
)
from spades_sim.simulate import (  # noqa: E402
    RunSpec,
    numba_threads,
    run_chunk,
    simulate_hands,
)


@njit(cache=True)
def _heuristic_block(block, rules, seed, deal_start, n, params, out_hand, out_i8, out_i32, errs):
    """``loop.hands_random_block_nb`` with the lock-step heuristic instead of random play:
    what ``loop.py`` would add to run heuristic play in lock-step (see the report)."""
    players = rules[L.R_PLAYERS]
    scratch = loop.new_scratch_nb(rules)
    infos = np.zeros((LANES, L.N_INFO), dtype=np.int64)
    masks = np.zeros((LANES, loop.N_MASKS), dtype=np.uint64)
    st = np.zeros(nbp.N_HEURISTIC_FIELDS * LANES, dtype=np.uint64)
    side_out = np.zeros((2, 10), dtype=np.int64)
    lo = block * LANES
    hi = min(n, lo + LANES)
    for b in range(LANES):
        i = lo + b if lo + b < hi else lo
        deal = deal_start + i
        key = stream_key_nb(seed, KIND_HANDS, deal, 0)
        leader, _counter, errors = loop.prepare_hand_nb(
            rules, scratch, key, deal % players, params, infos[b], masks[b]
        )
        if lo + b < hi:
            errs[i] = errors
        for s in range(4):
            st[(F_HAND + s) * LANES + b] = masks[b, loop.M_HANDS + s]
            st[(F_TRICKS + s) * LANES + b] = 0
            st[(nbp.H_BIDS + s) * LANES + b] = max(infos[b, L.I_BIDS + s], 0)
            st[(nbp.H_NILS + s) * LANES + b] = infos[b, L.I_NIL + s] != 0
        st[F_LEADER * LANES + b] = leader
    nbp.play_heuristic_lockstep_nb(
        st, players, rules[L.R_FIRST_LEAD_TWO_CLUBS] != 0, rules[L.R_SPADES_ANY_TIME] != 0,
        rules[L.R_JOKERS] != 0, rules[L.R_NIL_TRICKS_FOR_PARTNER] != 0,
        params[loop.P_PLAY], params[loop.P_PLAY + 1],
    )  # fmt: skip
    for b in range(hi - lo):
        info = infos[b]
        for s in range(4):
            info[L.I_TRICKS_WON + s] = st[(F_TRICKS + s) * LANES + b]
        loop.score_hand_nb(rules, info, side_out)
        deal = deal_start + lo + b
        loop.write_rows_nb(
            rules, (lo + b) * players, deal % players, info, masks[b], side_out,
            out_hand, out_i8, out_i32,
        )  # fmt: skip


@njit(cache=True, parallel=True)
def _hands_heuristic_lockstep(rules, seed, deal_start, n, params, out_hand, out_i8, out_i32, errs):
    for block in prange((n + LANES - 1) // LANES):
        _heuristic_block(block, rules, seed, deal_start, n, params, out_hand, out_i8, out_i32, errs)


def lockstep_prototype(n: int, repeats: int = 5) -> tuple[float, float, bool]:
    """Hands per second on one thread of count + heuristic played in lock-step by
    ``_hands_heuristic_lockstep`` (median of ``repeats``), and whether its rows equal the
    library's scalar kernel's on the same deals."""
    spec = RunSpec.build(seed=7, bidding="count", play="heuristic")
    rules = spec.rules.lower()
    params = np.stack([p.lower() for p in (*spec.bidding, *spec.play, spec.draw)])

    def run(count: int) -> tuple[np.ndarray, ...]:
        out = (
            np.empty(count * spec.rules.players, np.uint64),
            np.empty((L.N_OUT_I8, count * spec.rules.players), np.int8),
            np.empty((L.N_OUT_I32, count * spec.rules.players), np.int32),
            np.zeros(count, np.int8),
        )
        _hands_heuristic_lockstep(rules, np.int64(7), np.int64(0), np.int64(count), params, *out)
        return out

    with numba_threads(1):
        run(LANES)
        wall, cpu = _timed(lambda: run(n), repeats)
        check = min(n, 20_000)
        out = run(check)
        reference = run_chunk(spec, 0, 0, check).hands
    same = bool(
        np.array_equal(out[0], reference["hand"])
        and np.array_equal(out[1][L.O_TRICKS], reference["tricks"])
        and np.array_equal(out[1][L.O_BID], reference["bid"])
        and np.array_equal(out[2][L.O_SCORE_CHANGE], reference["score_change"])
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
    with numba_threads(1):
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
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for a smoke run")
    args = parser.parse_args(argv)
    if args.quick:
        args.deals, args.lookahead_deals, args.speed_deals = 400, 200, 4000
    print("$ python " + " ".join([Path(sys.argv[0]).as_posix(), *(argv or sys.argv[1:])]))
    threads = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    print(
        f"python {platform.python_version()}, numba {numba.__version__}, "
        f"{threads} threads available, {platform.machine()}"
    )
    n, seed = args.deals, args.seed

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
        print(
            f"    {bidder:24s} {bid_accuracy(df)!s:36s} {made:5.3f}  {score:6.1f}"
            f"  ({time.perf_counter() - t:.0f} s)"
        )

    mc = BIDDERS[3]
    print(f"    paired by deal and side, {mc} MAE minus the other's [95% CI]:")
    for bidder in BIDDERS:
        if bidder != mc:
            print(f"      vs {bidder:24s} {paired_error_difference(frames[mc], frames[bidder])}")

    print("\n(d) nils bid by the built-in nil rules, heuristic play (Wilson 95% CI):")
    for bidder in BIDDERS[:4]:
        df = frames[bidder]
        print(f"    {bidder:24s} made {nil_success(df)}, nil bid by {df.nil.mean():.3f} of seats")

    print(f"\n(e) throughput, one thread, median of 5 runs of {args.speed_deals} deals")
    print("    (hands/s by wall clock | by CPU time; the machine may be shared):")

    def show(label: str, rates: tuple[float, ...]) -> None:
        print(f"    {label:38s}{rates[0]:11,.0f} | {rates[1]:11,.0f}")

    builtin = throughput("count", "heuristic", args.speed_deals)
    show("count + heuristic (built-in)", builtin)
    show("count + random (built-in, lock-step)", throughput("count", "random", args.speed_deals))
    twin = _example().twin_policy()  # type: ignore[attr-defined]
    user = throughput("count", twin, args.speed_deals)
    show("count + heuristic_twin (user @njit)", user)
    print(f"    user-written / built-in: {user[0] / builtin[0]:.2f} | {user[1] / builtin[1]:.2f}")
    *rates, same = lockstep_prototype(args.speed_deals)
    show("count + heuristic, lock-step play", tuple(rates))
    print(
        "      (a kernel in this script: loop.py's lock-step block with the library's\n"
        f"      play_heuristic_lockstep_nb; its rows equal the library kernel's: {same})"
    )


if __name__ == "__main__":
    main()
