"""Learner decisions a second: ``VectorSpades`` against OpenSpiel's spades from Python.

What is measured (issue 39): a one-seat learner loop. In ``VectorSpades`` (the
``openspiel`` rules preset, the closest to OpenSpiel's game: no blind nil, so both have
the same 14 learner decisions a hand) the learner acts at random from the mask
(``VectorSpades.random_actions``, one kernel call for every table), the other seats play
``random`` (bids and cards) inside the kernel, and every step writes the observations
(``N_OBS`` float32 each), masks, rewards and done flags of all tables. In OpenSpiel
2.0.2's ``spades``, stepped from Python one state at a time, seat 0 reads its observation
tensor (578 floats) and legal actions at each of its decisions, and every seat (seat 0
too) acts at random from its legal actions; the deal is the game's chance actions,
sampled at random. Both run on one core, in the same process, taking turns for
``--rounds`` rounds; the medians of both rates (by the wall clock and by CPU time) and
their ratios are printed, and the memory written per learner decision (observation and
mask) with the rate it implies.

    python benchmarks/env.py                   # 1024 tables, 2 s per path per round, 3 rounds
    python benchmarks/env.py --num-envs 1024 --seconds 3 --rounds 5

Needs the ``rl`` extra; without ``pip install open_spiel==2.0.2`` only our rate prints.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from spades_sim.env import N_ACTIONS, N_OBS, VectorSpades


def vector_rate(num_envs: int, seconds: float, seed: int) -> tuple[float, float]:
    """Learner decisions a second at ``num_envs`` tables, random learner and seats: by
    the wall clock and by the process's CPU time."""
    vec = VectorSpades(
        num_envs, rules="openspiel", partner="random", opponents="random", bidding="random"
    )
    vec.reset(seed=seed)
    steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while True:
        vec.step(vec.random_actions(seed))  # uniform over each table's legal actions
        steps += 1
        if steps % 4 == 0 and time.perf_counter() - start >= seconds:
            break
    decisions = steps * num_envs
    return decisions / (time.perf_counter() - start), decisions / (time.process_time() - cpu)


def openspiel_rate(game: object, seconds: float, seed: int) -> tuple[float, float]:
    """Seat 0's decisions a second in OpenSpiel's spades stepped from Python (wall, CPU)."""
    rnd = random.Random(seed)
    decisions = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()  # type: ignore[attr-defined]
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rnd.randrange(len(outcomes))][0])
                continue
            player = state.current_player()
            legal = state.legal_actions()
            if player == 0:
                state.observation_tensor(0)
                decisions += 1
            state.apply_action(legal[rnd.randrange(len(legal))])
    return decisions / (time.perf_counter() - start), decisions / (time.process_time() - cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    try:
        import pyspiel

        game = pyspiel.load_game("spades")
        os_obs = game.observation_tensor_size()
    except ImportError:
        game, os_obs = None, 0
    vector_rate(args.num_envs, 0.2, args.seed)  # compile (or load) the kernels
    ours: list[tuple[float, float]] = []
    theirs: list[tuple[float, float]] = []
    for r in range(args.rounds):
        ours.append(vector_rate(args.num_envs, args.seconds, args.seed + r))
        if game is not None:
            theirs.append(openspiel_rate(game, args.seconds, args.seed + r))
    wall = statistics.median(x[0] for x in ours)
    cpu = statistics.median(x[1] for x in ours)
    per_decision = N_OBS * 4 + N_ACTIONS  # float32 observation, bool mask
    print(
        f"VectorSpades ({args.num_envs} tables): {wall:,.0f} learner decisions/s "
        f"({cpu:,.0f} per CPU second)"
    )
    print(
        f"  writes {per_decision} bytes a decision (observation {N_OBS} float32, mask "
        f"{N_ACTIONS} bools): {wall * per_decision / 1e9:.2f} GB/s"
    )
    if theirs:
        base_wall = statistics.median(x[0] for x in theirs)
        base_cpu = statistics.median(x[1] for x in theirs)
        print(
            f"OpenSpiel 2.0.2 spades from Python: {base_wall:,.0f} learner decisions/s "
            f"({base_cpu:,.0f} per CPU second), observation {os_obs} floats"
        )
        print(
            f"ratio: {wall / base_wall:.1f}x by the wall clock, {cpu / base_cpu:.1f}x by CPU "
            f"time (medians of {args.rounds} rounds)"
        )
    else:
        print("OpenSpiel not installed (pip install open_spiel==2.0.2): no ratio")


if __name__ == "__main__":
    main()
