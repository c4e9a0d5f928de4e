"""A user-written policy against the same logic as a built-in, and its cold and warm start.

The built-in ``count`` bidding and ``heuristic`` play written through the context API
(``analyses/custom_policy.py``: ``count_twin``, ``heuristic_twin``; the tests hold their
rows equal to the built-ins') are timed against the built-ins, alternately, in one run,
on one thread, by CPU time (medians of ``--rounds``):

(a) the same kernel work: the scalar hands kernel (``_nb.loop.hands_nb``) with the
    built-ins against the generated kernel of the twins (the API's cost: target 0.95x);
(b) ``simulate_games`` (whole games; both go through the scalar kernels);
(c) ``simulate_hands``: the built-ins run in the lock-step kernels, the twins in theirs;
(d) a fresh process running the example's policies on 1,000 hands: with an empty cache
    directory for the policies' kernels (``SPADES_SIM_CACHE_DIR``; the package's own
    kernels already cached), then again (warm).

    python benchmarks/user_policy.py                    # 400,000 hands, 5 rounds
    python benchmarks/user_policy.py --hands 100000 --rounds 3
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from spades_sim import simulate_games, simulate_hands  # noqa: E402
from spades_sim._nb import loop  # noqa: E402
from spades_sim._nb.enums import N_OUT_I8, N_OUT_I32  # noqa: E402
from spades_sim.custom.kernels import kernels_for  # noqa: E402
from spades_sim.simulate import RunSpec  # noqa: E402
from spades_sim.threads import kernel_threads as threads  # noqa: E402


def _example():  # type: ignore[no-untyped-def]
    path = ROOT / "analyses" / "custom_policy.py"
    spec = importlib.util.spec_from_file_location("custom_policy", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _kernel_call(spec: RunSpec, kernel: object, n: int) -> Callable[[], None]:
    rows = n * 4
    outs = (
        np.empty(rows, np.uint64), np.empty((N_OUT_I8, rows), np.int8),
        np.empty((N_OUT_I32, rows), np.int32), np.zeros(n, np.int8), np.zeros(0, np.uint64),
        np.zeros((0, 52), np.int8), np.zeros((0, 13), np.int8),
    )  # fmt: skip
    params = np.stack([p.lower() for p in (*spec.bidding, *spec.play, spec.draw)])
    args = (spec.rules.lower(), np.int64(spec.seed), np.int64(0), np.int64(n), params, *outs)

    def call() -> None:
        kernel(np.int64(0), np.int64(-(-n // loop.BLOCK)), *args)  # type: ignore[operator]

    return call


def alternate(a: Callable[[], object], b: Callable[[], object], rounds: int) -> tuple[float, float]:
    """Median CPU seconds of ``a`` and of ``b``, timed in turn after a warm-up."""
    a(), b()
    ta, tb = [], []
    for _ in range(rounds):
        for f, out in ((a, ta), (b, tb)):
            start = time.process_time()
            f()
            out.append(time.process_time() - start)
    return statistics.median(ta), statistics.median(tb)


def report(label: str, n: int, builtin: float, user: float) -> None:
    print(
        f"{label:46s} built-in {n / builtin:11,.0f}/s   API {n / user:11,.0f}/s   "
        f"API / built-in {builtin / user:.3f}"
    )


def cold_and_warm(hands: int) -> tuple[float, float]:
    script = (
        "import sys, time; start = time.perf_counter(); sys.path.insert(0, 'analyses'); "
        "import custom_policy as c; from spades_sim import simulate_hands; "
        f"simulate_hands({hands}, seed=1, bidding=c.quick_tricks_bid, "
        "play=c.cheapest_winner_play); print(time.perf_counter() - start)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "SPADES_SIM_CACHE_DIR": tmp}
        times = []
        for _ in range(2):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, check=True,
                           capture_output=True)  # fmt: skip
            times.append(time.perf_counter() - start)
    return times[0], times[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=400_000)
    parser.add_argument("--games", type=int, default=5_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    ex = _example()
    twins = {"bidding": ex.count_twin, "play": ex.heuristic_twin}
    builtin = RunSpec.build(seed=1, bidding="count", play="heuristic")
    twin_spec = RunSpec.build(seed=1, **twins)
    user_kernels = kernels_for((*twin_spec.bidding, *twin_spec.play))
    print(f"one thread, CPU time, medians of {args.rounds} rounds, timed alternately")
    with threads(1):
        a, b = alternate(
            _kernel_call(builtin, loop.hands_nb, args.hands),
            _kernel_call(twin_spec, user_kernels.hands_nb, args.hands),
            args.rounds,
        )
        report("(a) scalar hands kernel, count + heuristic", args.hands, a, b)
        a, b = alternate(
            lambda: simulate_games(args.games, seed=1),
            lambda: simulate_games(args.games, seed=1, **twins),
            args.rounds,
        )
        report("(b) simulate_games (games)", args.games, a, b)
        a, b = alternate(
            lambda: simulate_hands(args.hands, seed=1),
            lambda: simulate_hands(args.hands, seed=1, **twins),
            args.rounds,
        )
        report("(c) simulate_hands (built-ins in lock-step)", args.hands, a, b)
        a, b = alternate(
            lambda: simulate_hands(args.hands, seed=1, bidding=ex.count_twin),
            lambda: simulate_hands(args.hands, seed=1),
            args.rounds,
        )
        report("(c') user bidder, built-in heuristic play", args.hands, b, a)
    cold, warm = cold_and_warm(1000)
    print(f"(d) a fresh process, the example's policies, 1,000 hands: cold {cold:.1f} s, "
          f"warm {warm:.1f} s")  # fmt: skip


if __name__ == "__main__":
    main()
