"""One rung of the ladder from outside: OpenSpiel's ``MCTSBot`` against ``heuristic`` or ``pimc``.

OpenSpiel's spades has no information-state resampling, so its ISMCTS bot cannot play it;
its ``MCTSBot`` (UCT with random rollouts, C++, OpenSpiel 2.0.2) searches perfect-
information states. Side A therefore votes: at each decision it samples ``--worlds``
deals consistent with what its seat has seen (``openspiel_adapter``), runs one
``MCTSBot`` of ``--simulations`` simulations on each determinized OpenSpiel state, and
plays the card most worlds chose. Side B plays our ``heuristic`` (``--opponent pimc``:
``pimc`` at ``--pimc-worlds``, its kernel called on the same view). Both sides bid with our
``count`` bidder (the bids come from ``simulate_hands``, so only the play differs), under
our ``openspiel`` rules preset. Every deal is played twice with the sides swapped
(duplicate); a deal's value is A's score margin over B, averaged over both seatings.

The true game runs in our reference engine (``spades_sim.reference.play_out``), which
checks every card; each decision gets only a :class:`openspiel_adapter.SeatView`, built
from its seat's cards and the public plays. OpenSpiel runs in its own virtual environment
(``benchmarks/.openspiel-venv``, created on first use as ``benchmarks/vs_openspiel.py``
does) as a worker process that only replays action sequences and searches them; at start
it reports pyspiel's own card names, which must be the adapter's, and after every hand
OpenSpiel scores the finished hand too, which must agree with our score.

Prints A's mean points per hand with its 95% interval, the nils A's side made when
covering and the nils of B's side A set when defending (Wilson intervals), OpenSpiel's
agreement on the scores, and the MCTS side's searched decisions per second.

    python benchmarks/outside_rung.py --quick          # 2 deals, a smoke run
    python benchmarks/outside_rung.py                  # 100 deals, about 5 minutes
    python benchmarks/outside_rung.py --opponent pimc  # about 7 (plus pimc's compile)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[1]
if __name__ == "__main__":  # run as a script: import the package from this checkout
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from openspiel_adapter import (  # noqa: E402
    SeatView,
    card_of_openspiel,
    openspiel_actions,
    openspiel_name,
    openspiel_player,
    sample_world,
    seat_view,
    table_info,
    vote,
)
from vs_openspiel import OPENSPIEL, yardstick_python  # noqa: E402

from spades_sim._nb.heuristic import heuristic_play_nb  # noqa: E402
from spades_sim._nb.pimc import pimc_decide_nb  # noqa: E402
from spades_sim.analysis import mean_ci  # noqa: E402
from spades_sim.analysis.stats import proportion_ci  # noqa: E402
from spades_sim.policies import Policy  # noqa: E402
from spades_sim.reference import play_out  # noqa: E402
from spades_sim.rules import Rules  # noqa: E402
from spades_sim.simulate import simulate_hands  # noqa: E402

WORKER = r"""
import json, sys, pyspiel
game = pyspiel.load_game("spades")
state = game.new_initial_state()
names = [state.action_to_string(a) for a in range(52)]
for a in range(52):
    state.apply_action(a)
bids = [state.action_to_string(a) for a in range(52, 66)]
print(json.dumps({"cards": names, "bids": bids}), flush=True)
for line in sys.stdin:
    job = json.loads(line)
    if "score" in job:  # a finished hand: OpenSpiel's returns for it
        state = game.new_initial_state()
        for a in job["score"]:
            state.apply_action(a)
        print(json.dumps({"returns": state.returns(), "terminal": state.is_terminal()}),
              flush=True)
        continue
    chosen = []
    for actions, seed in zip(job["worlds"], job["seeds"]):
        state = game.new_initial_state()
        for a in actions:
            state.apply_action(a)
        if state.current_player() != job["player"]:
            raise SystemExit(f"world for player {job['player']}, {state.current_player()} to act")
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        bot = pyspiel.MCTSBot(game, evaluator, job["uct_c"], job["simulations"], 256, False,
                              seed, False)
        chosen.append(bot.step(state))
    print(json.dumps({"actions": chosen}), flush=True)
"""


class Worker:
    """The OpenSpiel process: action sequences in, MCTS choices or returns out."""

    def __init__(self, python: Path) -> None:
        self.process = subprocess.Popen(
            [str(python), "-c", WORKER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "OMP_NUM_THREADS": "1"},
        )
        names = self.read()
        # the adapter's card encoding is pyspiel's, checked by name rather than assumed
        if names["cards"] != [openspiel_name(a) for a in range(52)]:
            raise SystemExit(f"pyspiel's card names differ from the adapter's: {names['cards']}")
        if names["bids"] != ["Nil", *(str(b) for b in range(1, 14))]:
            raise SystemExit(f"pyspiel's bid actions differ from the adapter's: {names['bids']}")

    def read(self) -> Any:
        stdout: IO[str] = self.process.stdout  # type: ignore[assignment]
        line = stdout.readline()
        if not line:
            raise SystemExit("the OpenSpiel worker stopped")
        return json.loads(line)

    def ask(self, job: dict[str, Any]) -> Any:
        stdin: IO[str] = self.process.stdin  # type: ignore[assignment]
        stdin.write(json.dumps(job) + "\n")
        stdin.flush()
        return self.read()

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(timeout=30)


def key_of(*parts: int) -> int:
    """A 64-bit key from public numbers only (seed, deal, seating, cards played)."""
    return int(np.random.SeedSequence(list(parts)).generate_state(1, np.uint64)[0])


class Rung:
    """Plays deals in duplicate and keeps the tallies."""

    def __init__(self, worker: Worker, rules: Rules, args: argparse.Namespace) -> None:
        self.worker, self.rules, self.args = worker, rules, args
        self.rule_array = rules.lower()
        if args.opponent == "heuristic":
            self.opponent_row = Policy.of("heuristic", "play").lower()
        else:
            self.opponent_row = Policy.of("pimc", "play", {"worlds": args.pimc_worlds}).lower()
        self.searched = 0
        self.search_seconds = 0.0
        self.forced = 0
        self.scores_agree = 0
        self.hands = 0

    def mcts_card(self, view: SeatView, legal: int, deal: int, seating: int) -> int:
        if legal & (legal - 1) == 0:  # one legal card: nothing to search
            self.forced += 1
            return legal.bit_length() - 1
        key = key_of(self.args.seed, deal, seating, len(view.plays))
        worlds = [sample_world(view, self.rules, key, w) for w in range(self.args.worlds)]
        job = {
            "worlds": [openspiel_actions(view, world) for world in worlds],
            "seeds": [key_of(key, w) % 2**31 for w in range(self.args.worlds)],
            "player": openspiel_player(view.seat, view.first_seat),
            "simulations": self.args.simulations,
            "uct_c": self.args.uct_c,
        }
        start = time.perf_counter()
        chosen = self.worker.ask(job)["actions"]
        self.search_seconds += time.perf_counter() - start
        self.searched += 1
        card = card_of_openspiel(vote(chosen))
        if not legal >> card & 1:
            raise SystemExit(f"MCTS chose {card}, not legal under our openspiel rules")
        return card

    def our_card(self, view: SeatView, legal: int, deal: int, seating: int) -> int:
        """Side B's card: our ``heuristic`` or ``pimc`` kernel on the view's ``info``."""
        info = table_info(view, self.rules)
        hand, legal_mask = np.uint64(view.hand), np.uint64(legal)
        if self.args.opponent == "heuristic":
            row = self.opponent_row
            return int(heuristic_play_nb(hand, legal_mask, view.seat, info, self.rule_array, row))
        rand = np.uint64(key_of(self.args.seed + 1, deal, seating, len(view.plays)))
        return int(
            pimc_decide_nb(
                hand, legal_mask, view.seat, info, self.rule_array, self.opponent_row, rand
            )
        )

    def play(
        self, hands: list[int], dealer: int, bids: tuple[int, ...], mcts_side: int, deal: int
    ) -> tuple[Any, list[tuple[int, int]]]:
        plays: list[tuple[int, int]] = []
        now = list(hands)  # the truth, which only ``seat_view`` reads

        def choose(seat: int, hand: int, legal: int, trick: tuple[int, ...]) -> int:
            view = seat_view(seat, now, dealer, bids, plays)
            if seat % 2 == mcts_side:
                card = self.mcts_card(view, legal, deal, mcts_side)
            else:
                card = self.our_card(view, legal, deal, mcts_side)
            plays.append((seat, card))
            now[seat] &= ~(1 << card)
            return card

        _, result = play_out(hands, dealer, bids, self.rules, choose)
        self.check_score(dealer, bids, plays, result)
        return result, plays

    def check_score(
        self, dealer: int, bids: tuple[int, ...], plays: list[tuple[int, int]], result: Any
    ) -> None:
        """OpenSpiel scores the same hand: its returns (by its player) must be our sides'."""
        # a finished hand: every card is among the plays, so no seat holds any now
        ended = SeatView(0, 0, dealer, (dealer + 1) % 4, bids, tuple(plays))
        actions = openspiel_actions(ended, [0, 0, 0, 0])
        answer = self.worker.ask({"score": actions})
        ours = [result.score_change[(ended.first_seat + p) % 2] for p in range(4)]
        self.hands += 1
        self.scores_agree += int(answer["terminal"] and list(answer["returns"]) == ours)


def parser() -> argparse.ArgumentParser:
    """The rung's options (``strength.py --outside`` builds its arguments from them)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100, help="deals, each played twice")
    parser.add_argument("--worlds", type=int, default=8, help="determinizations per decision")
    parser.add_argument("--simulations", type=int, default=2000, help="MCTS simulations a world")
    parser.add_argument(
        "--uct-c", type=float, default=100.0,
        help="UCT exploration constant (returns are points, tens to hundreds, not +-1)",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--opponent", choices=("heuristic", "pimc"), default="heuristic", help="side B's play"
    )
    parser.add_argument("--pimc-worlds", type=int, default=8, help="side B's worlds as pimc")
    parser.add_argument("--quick", action="store_true", help="2 deals, 2 worlds, 50 simulations")
    return parser


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    args = parser().parse_args(argv)
    if args.quick:
        args.deals, args.worlds, args.simulations = 2, 2, 50
    return args


def play_rung(args: argparse.Namespace, progress: bool = True) -> dict[str, Any]:
    """Play the rung: A (the MCTS voter) against B over ``args.deals`` deals both ways.

    Returns ``b`` (B's policy text), ``margin`` (A's points a hand, an ``Estimate``),
    ``covering`` and ``defending`` ((k, n): A's side's nils made, B's nils A set),
    ``scores_agree`` and ``hands`` (OpenSpiel's score against ours), ``searched``,
    ``forced``, ``rate`` (searched decisions a second) and ``seconds``."""
    print(
        f"deals {args.deals} x 2 seatings, worlds {args.worlds}, simulations {args.simulations}"
        f" per world, uct_c {args.uct_c}, seed {args.seed}, B plays {args.opponent}"
        f" (pimc worlds {args.pimc_worlds}); {OPENSPIEL}, rules preset openspiel"
    )
    python = yardstick_python()
    if python is None:
        raise SystemExit(f"{OPENSPIEL} could not be installed; the rung needs it")

    rules = Rules.preset("openspiel")
    table = simulate_hands(
        args.deals, seed=args.seed, bidding="count", play="heuristic", rules=rules
    )
    worker = Worker(python)
    rung = Rung(worker, rules, args)
    margins = []
    covering = [0, 0]  # A's side's nils: made, bid
    defending = [0, 0]  # B's side's nils: set by A, bid
    start = time.perf_counter()
    try:
        for deal in range(args.deals):
            rows = table[table.deal == deal].sort_values("seat")
            hands = [int(h) for h in rows.hand]
            dealer = int(rows.dealer.iloc[0])
            bids = tuple(int(b) for b in rows.bid)
            margin = 0.0
            for mcts_side in (0, 1):
                result, _ = rung.play(hands, dealer, bids, mcts_side, deal)
                change = result.score_change
                margin += (change[mcts_side] - change[1 - mcts_side]) / 2
                for seat in range(4):
                    if bids[seat] != 0:
                        continue
                    made = bool(result.nil_made[seat])
                    if seat % 2 == mcts_side:
                        covering[0] += made
                        covering[1] += 1
                    else:
                        defending[0] += not made
                        defending[1] += 1
            margins.append(margin)
            if progress:
                print(f"  deal {deal}: A's margin {margin:+.1f}", flush=True)
    finally:
        worker.close()
    return {
        "b": "heuristic" if args.opponent == "heuristic" else f"pimc:worlds={args.pimc_worlds}",
        "margin": mean_ci(margins),
        "covering": tuple(covering),
        "defending": tuple(defending),
        "scores_agree": rung.scores_agree,
        "hands": rung.hands,
        "searched": rung.searched,
        "forced": rung.forced,
        "rate": rung.searched / rung.search_seconds if rung.search_seconds else float("nan"),
        "seconds": time.perf_counter() - start,
    }


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    print("$ python " + " ".join([Path(sys.argv[0]).as_posix(), *(argv or sys.argv[1:])]))
    got = play_rung(args)
    b = got["b"]
    print(f"\nMCTS voter (A) vs {b} (B), {args.deals} deals x 2, duplicate, count bidding:")
    print(f"    A's points per hand {got['margin']}")
    for label, (k, n) in (
        ("A's nils made (covering)", got["covering"]),
        ("B's nils A set", got["defending"]),
    ):
        print(f"    {label}: {k}/{n}" + (f" {proportion_ci(k, n)}" if n else ""))
    print(
        f"    OpenSpiel's score of the hand equals ours: {got['scores_agree']}/{got['hands']} hands"
    )
    rate = got["rate"]
    print(
        f"    A searched {got['searched']} decisions ({got['forced']} forced, not searched):"
        f" {rate:.2f} decisions/s, {rate * args.worlds:.1f} worlds/s; {got['seconds']:.0f} s in all"
    )


if __name__ == "__main__":
    main()
