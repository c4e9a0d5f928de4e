"""The nil defence's double-dummy leak on a fixed set of nil seats, solved once.

Whether a nil can be set by perfect defence (``spades_sim.solve.batch.nil_table`` from
the opening lead, every card seen) depends on the deal and the bids, not on the
defence, so each nil seat is solved once and its verdict kept in a file; every defence
is then played on the same deals and held against the same verdicts:

- the **leak**: the share of the nils perfect defence sets that the played defence let
  through (made);
- the **cover loss**: the share of the nils perfect play keeps that were lost.

``solve`` takes the first ``--nils`` nil seats (not blind) of
``simulate_hands(--hands, seed=--seed)`` under the default bidder (the bids do not
depend on the play) and solves them one at a time in a worker process, appending each
verdict to ``--cache`` (JSON lines, resumable). Some nils take minutes: a nil still
unsolved after ``--cap`` CPU seconds is recorded as capped (the worker is stopped and
started again on the next one), and capped nils are left out of every measure::

    nohup python benchmarks/nil_leak.py solve --cache nil_leak.jsonl --nils 800 &

The verdicts of those 800 seats (``--hands 20000 --seed 5``, ``--cap 15``) are kept in
``benchmarks/data/nil_leak.jsonl`` (with its positions, ``nil_leak.npz``), so
``measure --cache benchmarks/data/nil_leak.jsonl`` needs no solving (about 1,500 s
of it on two cores).

``measure`` replays the hands under each ``--play`` given (``heuristic:...``; the
default play when none) and prints a Markdown row for each: the leak and the loss
(Wilson 95% intervals, n), the nils made over all of them, and with ``--duplicate N``
the setting's duplicate margin a hand against the default play (``N`` deals, seed 11)::

    python benchmarks/nil_leak.py measure --cache nil_leak.jsonl --duplicate 100000 \\
        --play heuristic --play heuristic:nil_under=0
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from spades_sim import simulate_hands
from spades_sim.analysis import duplicate, realism
from spades_sim.analysis.stats import proportion_ci
from spades_sim.rules import Rules
from spades_sim.solve.batch import nil_table


def nil_seats(hands: pd.DataFrame, count: int) -> pd.DataFrame:
    """The first ``count`` nil seats (not blind) of ``hands``, in row order."""
    return hands[hands["nil"] & ~hands["blind_nil"]].head(count)


def positions(hands: pd.DataFrame, nils: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Each nil's deal as four hand masks and its opening leader (the dealer's left)."""
    by_deal = hands.sort_values(["deal", "seat"]).groupby("deal")
    masks = {d: g["hand"].to_numpy(np.uint64) for d, g in by_deal}
    dealers = hands.groupby("deal")["dealer"].first()
    deals = nils["deal"].to_numpy()
    return (
        np.stack([masks[d] for d in deals]),
        ((dealers.loc[deals].to_numpy() + 1) % 4).astype(np.int64),
    )


def read_cache(path: Path) -> dict[int, dict]:
    """The verdicts so far: index -> its last complete line (``safe`` or ``capped``)."""
    out: dict[int, dict] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            row = json.loads(line)
            if "safe" in row or "capped" in row:
                out[row["i"]] = row
    return out


def work(args: argparse.Namespace) -> None:
    """The worker: solve the unsolved nils in order, a line before and after each."""
    data = np.load(args.positions)
    done = read_cache(Path(args.cache))
    rules = Rules()
    # compile (or load) the solver before the first timed nil: a compile after a change
    # of the kernels' sources must not count against the cap
    quick = min(done, key=lambda i: done[i].get("seconds", 1e9), default=0)
    warm = slice(quick, quick + 1)
    nil_table(data["masks"][warm], data["leaders"][warm], int(data["seat"][quick]), rules=rules)
    with open(args.cache, "a", encoding="utf-8") as f:
        for i in range(len(data["seat"])):
            if i in done:
                continue
            f.write(json.dumps({"i": i, "start": time.time()}) + "\n")
            f.flush()
            started = time.perf_counter()
            safe = nil_table(
                data["masks"][i : i + 1], data["leaders"][i : i + 1], int(data["seat"][i]),
                rules=rules,
            )  # fmt: skip
            row = {"i": i, "deal": int(data["deal"][i]), "seat": int(data["seat"][i]),
                   "safe": bool(safe[0]), "seconds": time.perf_counter() - started}  # fmt: skip
            f.write(json.dumps(row) + "\n")
            f.flush()


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) process ``pid`` has used so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def solve(args: argparse.Namespace) -> None:
    """The supervisor: run the worker, stopping it on a nil past the cap (CPU seconds,
    not wall time: on a shared machine the wall time says more about the others)."""
    cache = Path(args.cache)
    where = cache.with_suffix(".npz")
    if not where.exists():
        hands = simulate_hands(args.hands, seed=args.seed)
        nils = nil_seats(hands, args.nils)
        masks, leaders = positions(hands, nils)
        np.savez(where, masks=masks, leaders=leaders, seat=nils["seat"].to_numpy(),
                 deal=nils["deal"].to_numpy())  # fmt: skip
    total = len(np.load(where)["seat"])
    while len(read_cache(cache)) < total:
        worker = subprocess.Popen(
            [sys.executable, __file__, "work", "--cache", str(cache), "--positions", str(where)]
        )
        current, cpu_at_start = -1, 0.0
        while worker.poll() is None:
            time.sleep(1)
            lines = cache.read_text().splitlines() if cache.exists() else []
            last = json.loads(lines[-1]) if lines else {}
            try:
                cpu = cpu_seconds(worker.pid)
            except (OSError, IndexError):
                continue
            if "start" not in last:
                continue
            if last["i"] != current:
                current, cpu_at_start = last["i"], cpu
            elif cpu - cpu_at_start > args.cap:
                worker.kill()
                worker.wait()
                with open(cache, "a", encoding="utf-8") as f:
                    f.write(json.dumps({"i": current, "capped": args.cap}) + "\n")
        if worker.returncode not in (0, -9):
            raise SystemExit(f"worker failed ({worker.returncode})")


def measure(args: argparse.Namespace) -> None:
    cache = Path(args.cache)
    data = np.load(cache.with_suffix(".npz"))
    verdicts = read_cache(cache)
    solved = [i for i in sorted(verdicts) if "safe" in verdicts[i]]
    capped = [i for i in sorted(verdicts) if "capped" in verdicts[i]]
    safe = np.array([verdicts[i]["safe"] for i in solved])
    keys = pd.MultiIndex.from_arrays([data["deal"][solved], data["seat"][solved]])
    print(f"{len(solved)} nils solved, {len(capped)} capped (left out), "
          f"{int((~safe).sum())} settable")  # fmt: skip
    print("| defence | leak | cover loss | nils made | duplicate a hand |")
    print("|---|---|---|---|---|")
    made_by: dict[str, np.ndarray] = {}
    for play in args.play or ["heuristic"]:
        hands = simulate_hands(args.hands, seed=args.seed, play=play)
        nils = hands[hands["nil"] & ~hands["blind_nil"]].set_index(["deal", "seat"])
        made = nils["nil_made"].reindex(keys).to_numpy()
        if pd.isna(made).any():
            raise SystemExit(f"{play}: the nil seats differ from the cached ones")
        made = made.astype(bool)
        cells = []
        for chosen, hit in ((~safe, made), (safe, ~made)):
            e = proportion_ci(int((hit & chosen).sum()), int(chosen.sum()))
            cells.append(f"{100 * e.value:.1f}% [{100 * e.low:.1f}, {100 * e.high:.1f}] "
                         f"(n={int(chosen.sum())})")  # fmt: skip
        e = proportion_ci(int(made.sum()), len(made))
        cells.append(f"{100 * e.value:.1f}% [{100 * e.low:.1f}, {100 * e.high:.1f}]")
        if args.duplicate and play != "heuristic":
            m = duplicate(play, "heuristic", args.duplicate, seed=11).margin
            cells.append(f"{m.value:+.2f} [{m.low:+.2f}, {m.high:+.2f}] (n={m.n:,})")
        else:
            cells.append("")
        print(f"| `{play}` | " + " | ".join(cells) + " |", flush=True)
        made_by[play] = made
    # what perfect defence could do by the highest spade held: the share of each class of
    # nils that double-dummy play keeps, beside the share each defence let through
    seat_masks = data["masks"][solved, data["seat"][solved]].astype(np.uint64)
    spades = (seat_masks >> np.uint64(39)) & np.uint64(0x1FFF)
    top = np.array([int(x).bit_length() - 1 for x in spades])  # -1: no spade, 8: the ten
    classes = {"none or 2-9": top < 8, "ten": top == 8, "jack": top == 9, "queen+": top >= 10,
               "clean (no J+)": top < 9, "J+": top >= 9}  # fmt: skip
    print("\n| highest spade | n | safe double-dummy | " + " | ".join(made_by) + " |")
    print("|---|---|---|" + "---|" * len(made_by))
    for name, chosen in classes.items():
        cells = []
        for hit in (safe, *made_by.values()):
            e = proportion_ci(int((hit & chosen).sum()), int(chosen.sum()))
            cells.append(f"{100 * e.value:.1f}% [{100 * e.low:.1f}, {100 * e.high:.1f}]")
        print(f"| {name} | {int(chosen.sum())} | " + " | ".join(cells) + " |")
    # where the leak of the first defence lies: the settable nils it let through, by the
    # nil's spades, its seat after the opening leader and its shortest side suit
    first = next(iter(made_by.values()))
    count = np.array([int(x).bit_count() for x in spades])
    after = (data["seat"][solved] - data["leaders"][solved]) % 4
    short = np.array(
        [min(int((int(m) >> (13 * k)) & 0x1FFF).bit_count() for k in range(3)) for m in seat_masks]
    )
    groups = {
        **{f"highest spade {k}": v for k, v in classes.items() if k in ("clean (no J+)", "J+")},
        "no spade": count == 0, "1-2 spades": (count >= 1) & (count <= 2), "3+ spades": count >= 3,
        **{f"{k} after the opening leader": after == k for k in range(4)},
        "a side void": short == 0, "a side singleton": short == 1,
        "no side suit under 2": short >= 2,
    }  # fmt: skip
    print(f"\n| settable nils of `{next(iter(made_by))}` | settable | let through |")
    print("|---|---|---|")
    for name, chosen in groups.items():
        mask = chosen & ~safe
        e = proportion_ci(int((first & mask).sum()), int(mask.sum()))
        print(f"| {name} | {int(mask.sum())} | {100 * e.value:.1f}% "
              f"[{100 * e.low:.1f}, {100 * e.high:.1f}] |")  # fmt: skip


GRADIENT = ("nil_made", "nil_made_clean", "nil_made_high_spade", "nil_made_top_low",
            "nil_made_top_ten", "nil_made_top_jack", "nil_made_top_queen_up")  # fmt: skip


def play(args: argparse.Namespace) -> None:
    """Each setting's duplicate margin a hand against the default play (``--duplicate``
    deals, seed 11) and its nils made by the highest spade held
    (``realism(simulate_hands(--gradient, seed=5))``), a JSON line each to ``--out``."""
    for setting in args.play:
        row: dict = {"play": setting}
        if args.duplicate and setting != "heuristic":
            m = duplicate(setting, "heuristic", args.duplicate, seed=11).margin
            row["duplicate"] = (m.value, m.low, m.high, m.n)
        if args.gradient:
            table = realism(simulate_hands(args.gradient, seed=5, play=setting))
            for r in table.itertuples():
                if r.measure in GRADIENT:
                    row[r.measure] = (r.estimate, r.ci_low, r.ci_high, int(r.n))
        with open(args.out, "a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
        print(json.dumps(row), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("solve")
    s.add_argument("--cache", required=True)
    s.add_argument("--nils", type=int, default=800)
    s.add_argument("--hands", type=int, default=20_000)
    s.add_argument("--seed", type=int, default=5)
    s.add_argument("--cap", type=float, default=15.0, help="CPU seconds a nil may take")
    w = sub.add_parser("work")
    w.add_argument("--cache", required=True)
    w.add_argument("--positions", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--cache", required=True)
    m.add_argument("--hands", type=int, default=20_000)
    m.add_argument("--seed", type=int, default=5)
    m.add_argument("--play", action="append")
    m.add_argument("--duplicate", type=int, default=0, help="deals in duplicate (0: none)")
    p = sub.add_parser("play")
    p.add_argument("--play", action="append", required=True)
    p.add_argument("--duplicate", type=int, default=100_000)
    p.add_argument("--gradient", type=int, default=200_000)
    p.add_argument("--out", required=True)
    args = parser.parse_args()
    {"solve": solve, "work": work, "measure": measure, "play": play}[args.command](args)


if __name__ == "__main__":
    main()
