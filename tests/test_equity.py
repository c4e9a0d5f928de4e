"""The win table of the score state (``spades_sim.odds.equity``).

- The kernel's value iteration against a plain-Python twin written from the rules (the
  target, the bag penalty, the loss threshold, a tie at the top) on small hand-made
  outcome distributions, every state the twin reaches compared.
- The table built from simulated games against the exact mode (whole games played from
  each state) on a set of score states: they agree within their intervals.
- Bad input: one line naming what is wrong.
"""

from __future__ import annotations

import numpy as np
import pytest

from spades_sim import simulate_games
from spades_sim.odds import equity
from spades_sim.odds.equity import WinTable, outcomes_of, win_exact, win_table
from spades_sim.rules import Rules

# (parity, points N-S, bags N-S, points E-W, bags E-W, probability), sorted by parity;
# points include the bags (one point each), as a hand scores them
OUTCOMES = [
    (0, 21, 1, -20, 0, 0.30),
    (0, 20, 0, 10, 0, 0.20),
    (0, -30, 0, 42, 2, 0.25),
    (0, -100, 0, 11, 1, 0.10),
    (0, 0, 0, 0, 0, 0.15),
    (1, 32, 2, 10, 0, 0.35),
    (1, -10, 0, 30, 0, 0.25),
    (1, 11, 1, -100, 0, 0.15),
    (1, 40, 0, 40, 0, 0.25),
]


def synthetic(rules: Rules) -> WinTable:
    """A table over :data:`OUTCOMES` (probabilities as counts out of 100)."""
    a = np.array(OUTCOMES)
    return WinTable(
        rules=rules,
        games=1,
        hands=100,
        parity=a[:, 0].astype(np.int64),
        points=a[:, [1, 3]].astype(np.int64),
        bags=a[:, [2, 4]].astype(np.int64),
        counts=np.round(a[:, 5] * 100).astype(np.int64),
    )


def twin_values(rules: Rules, starts: list[tuple[int, int, int, int, int]], low: int,
                unit: int, tie: float) -> dict[tuple[int, int, int, int, int], float]:  # fmt: skip
    """Side 0's chance to win from every state reachable from ``starts`` (score, bags of
    each side, then the next dealer's parity), by plain value iteration over a dict.

    Written from the rules: a hand adds its points and bags; each time a side's bags
    reach ``bag_limit`` it loses ``bag_penalty`` and the bags drop by ``bag_limit``; a
    side at or over the target wins if it alone has the higher score (a tie there is
    worth ``tie``, the table's stated estimate); with a loss threshold a side at or
    below it loses (both: the higher wins). Without a threshold a score less its bags
    below ``low`` is raised by whole score steps ``unit`` to ``low`` or just above (the
    table's stated floor; with the penalty off, bags are no part of the state and the
    score is raised to ``low``)."""
    by_parity: dict[int, list[tuple[int, int, int, int, float]]] = {0: [], 1: []}
    for d, p0, b0, p1, b1, p in OUTCOMES:
        by_parity[int(d)].append((int(p0), int(b0), int(p1), int(b1), float(p)))
    thr = rules.loss_threshold

    def end(s0: int, s1: int) -> float | None:
        if s0 >= rules.target or s1 >= rules.target:
            return 1.0 if s0 > s1 else 0.0 if s1 > s0 else tie
        if thr is not None and (s0 <= thr or s1 <= thr):
            return 1.0 if s0 > s1 else 0.0 if s1 > s0 else tie
        return None

    def one_side(score: int, bags: int, points: int, taken: int) -> tuple[int, int]:
        score += points
        if rules.bag_penalty == 0:
            return max(score, low), 0  # bags cost nothing: not part of the state
        bags += taken
        while bags >= rules.bag_limit:
            score -= rules.bag_penalty
            bags -= rules.bag_limit
        if thr is None:
            while score - bags < low:
                score += unit
        return score, bags

    def step(state: tuple[int, int, int, int, int]) -> list[tuple[float, tuple[int, ...]]]:
        s0, b0, s1, b1, d = state
        out = []
        for p0, t0, p1, t1, p in by_parity[d]:
            n0 = one_side(s0, b0, p0, t0)
            n1 = one_side(s1, b1, p1, t1)
            out.append((p, (n0[0], n0[1], n1[0], n1[1], 1 - d)))
        return out

    live: set[tuple[int, int, int, int, int]] = set()
    todo = list(starts)
    while todo:
        state = todo.pop()
        if state in live or end(state[0], state[2]) is not None:
            continue
        live.add(state)
        todo.extend(nxt for _, nxt in step(state))  # type: ignore[misc]
    value = dict.fromkeys(live, 0.0)
    for _ in range(5_000):
        change = 0.0
        for state in live:
            v = 0.0
            for p, nxt in step(state):
                e = end(nxt[0], nxt[2])
                v += p * (e if e is not None else value[nxt])  # type: ignore[index]
            change = max(change, abs(v - value[state]))
            value[state] = v
        if change < 1e-9:
            break
    return value


@pytest.mark.parametrize(
    "rules",
    [
        Rules(target=60, bag_limit=3, bag_penalty=23, loss_threshold=-40),
        Rules(target=60, bag_limit=3, bag_penalty=23),
        Rules(target=30, bag_penalty=0),
    ],
    ids=["threshold", "floor", "no-penalty"],
)
def test_the_kernel_solves_what_a_plain_twin_solves_from_the_rules(rules: Rules) -> None:
    table = synthetic(rules)
    # three layers of score residues (0-0, then 31 with 1 bag: 30, and 52: 2 over)
    starts = [(0, 0, 0, 0, d) for d in (0, 1)] + [(31, 1, 41, 2, 1), (52, 0, 12, 0, 0)]
    if rules.bag_penalty == 0:
        starts = [(s0 - b0, 0, s1 - b1, 0, d) for s0, b0, s1, b1, d in starts]
    values = twin_values(rules, starts, table.low, table.step, table.tie_value)
    assert len(values) > 100  # the walk reached well beyond the starts
    states = sorted(values)
    scores = np.array([[s[0], s[2]] for s in states])
    bags = np.array([[s[1], s[3]] for s in states])
    dealers = np.array([s[4] for s in states])
    got = table.win(scores, bags, dealers)
    want = np.array([values[s] for s in states])
    assert np.abs(got - want).max() < 1e-5
    assert 0.05 < want.mean() < 0.95  # not a degenerate game


def test_finished_states_are_won_or_lost_by_the_rules() -> None:
    table = synthetic(Rules(target=60, bag_limit=3, bag_penalty=23, loss_threshold=-40))
    got = table.win([[60, 59], [59, 61], [-40, 10], [-41, -45], [65, -50]], [[0, 0]] * 5, 0)
    assert got.tolist() == [1.0, 0.0, 0.0, 1.0, 1.0]


def test_nearest_reads_an_off_layer_state_at_the_nearest_score_of_the_home_layer() -> None:
    table = synthetic(Rules(target=60, bag_limit=3, bag_penalty=23, loss_threshold=-40))
    off = table.win([[13, 21], [-7, 0]], [[1, 0], [2, 0]], 1, nearest=True)
    # scores less bags: 12 -> 10, 21 -> 20, -9 -> -10
    home = table.win([[11, 20], [-8, 0]], [[1, 0], [2, 0]], 1)
    assert off.tolist() == home.tolist()
    assert len(table._layers) == 1  # nothing but the home layer solved


EXACT_RULES = Rules(target=200)
STATES = [(0, 0, 0, 0, 0), (150, 3, 100, 0, 1), (100, 0, 170, 8, 0), (180, 9, 120, 2, 2),
          (-60, 0, 40, 0, 3), (190, 0, 190, 0, 1)]  # fmt: skip


@pytest.mark.slow
def test_the_table_and_whole_games_from_each_state_agree() -> None:
    """The table from 4,000 games (its interval from four tables of 1,000 games each,
    the batch means) against 600 whole games from each state (Wilson); their intervals
    must meet."""
    hands, _ = simulate_games(4_000, seed=3, rules=EXACT_RULES)
    tables = []
    per = hands["game"].to_numpy() // 1_000
    for batch in [*range(4), None]:
        part = hands if batch is None else hands[per == batch]
        parity, points, bags, counts = outcomes_of(part)
        tables.append(WinTable(EXACT_RULES, 1_000, int(counts.sum()), parity, points, bags, counts))
    scores = np.array([[s[0], s[2]] for s in STATES])
    bag = np.array([[s[1], s[3]] for s in STATES])
    dealer = np.array([s[4] for s in STATES])
    batches = np.array([t.win(scores, bag, dealer) for t in tables[:4]])
    pooled = tables[4].win(scores, bag, dealer)
    half = 3.18 * batches.std(axis=0, ddof=1) / 2.0  # t(3) 97.5%, sd / sqrt(4)
    exact = win_exact(scores, bag, dealer, rules=EXACT_RULES, games=600, seed=5)
    low, high = exact.interval()
    assert (exact.unfinished == 0).all()
    for i in range(len(STATES)):
        assert pooled[i] - half[i] <= high[i] and low[i] <= pooled[i] + half[i], (
            STATES[i],
            pooled[i],
            half[i],
            exact.win[i],
            low[i],
            high[i],
        )
    # the states differ, so agreement is not agreement on one number
    assert exact.win.max() - exact.win.min() > 0.3


def test_the_exact_mode_deals_a_row_the_same_later_hands_whatever_its_state() -> None:
    a = win_exact([[0, 0], [0, 0]], [[0, 0]] * 2, 0, rules=EXACT_RULES, games=40, seed=2)
    b = win_exact([[0, 0], [50, 0]], [[0, 0]] * 2, 0, rules=EXACT_RULES, games=40, seed=2)
    assert a.wins[0] == b.wins[0]  # row 0 the same state, the same deals
    assert b.wins[1] >= a.wins[1]  # 50 points up on the same deals cannot lose a game won
    assert a.wins[0] != a.wins[1] or a.wins[0] == 0  # rows are dealt apart


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda t: t.win([[0, 0, 0]], [[0, 0, 0]], 0), "scores: expected shape"),
        (lambda t: t.win([[0, 0]], [[3, 0]], 0), "bags: must be below bag_limit 3"),
        (lambda t: t.win([[0, 0]], [[-1, 0]], 0), "bags: must be 0 or more"),
        (lambda t: t.win([[0, 0]], [[0, 0]], 4), "dealer: must be a seat 0..3"),
        (lambda t: t.win([[0.5, 0]], [[0, 0]], 0), "scores and bags: expected whole numbers"),
    ],
)
def test_bad_states_are_refused_with_one_line(call, message) -> None:  # type: ignore[no-untyped-def]
    table = synthetic(Rules(target=60, bag_limit=3, bag_penalty=23))
    with pytest.raises(ValueError, match=message):
        call(table)


def test_cutthroat_is_refused() -> None:
    with pytest.raises(ValueError, match="win table: cutthroat has 3 lone sides"):
        win_table(Rules.preset("cutthroat"), games=1)


def test_a_layer_another_process_saved_is_read_not_solved_again(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Two processes on one cache file (test workers, the page's worker): the second
    takes the layer the first solved and saved instead of spending minutes on it."""
    rules = Rules(target=60, bag_limit=3, bag_penalty=23, loss_threshold=-40)
    path = tmp_path / "table.npz"
    first = synthetic(rules)
    object.__setattr__(first, "path", path)
    states = ([[11, 20], [-8, 0]], [[1, 0], [2, 0]], 1)
    want = first.win(*states)
    second = synthetic(rules)
    object.__setattr__(second, "path", path)

    def solve_again(*args: object) -> None:
        raise AssertionError("solved a layer the file already holds")

    monkeypatch.setattr(second, "_solve", solve_again)
    assert second.win(*states).tolist() == want.tolist()


def test_shipped_layers_are_read_not_solved_to_within_their_quantum(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A layer shipped with the package under the cache's name for these outcomes is read
    (dequantised) instead of solved; another name is not taken."""
    rules = Rules(target=60, bag_limit=3, bag_penalty=23, loss_threshold=-40)
    solved = synthetic(rules)
    states = ([[11, 20], [-8, 0], [40, 50]], [[1, 0], [2, 0], [0, 2]], 1)
    want = solved.win(*states)
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    monkeypatch.setattr(equity, "SHIPPED", shipped)
    layers = {
        f"layer_{a}_{b}": np.round(v * equity.QUANTUM).astype(np.uint16)
        for (a, b), v in solved.solved_layers().items()
    }
    np.savez_compressed(shipped / "mine.npz", **layers)
    reader = synthetic(rules)
    object.__setattr__(reader, "path", tmp_path / "cache" / "mine.npz")

    def solve_again(*args: object) -> None:
        raise AssertionError("solved a layer the package ships")

    monkeypatch.setattr(reader, "_solve", solve_again)
    got = reader.win(*states)
    assert np.abs(got - want).max() <= 0.5 / equity.QUANTUM + 1e-12
    other = synthetic(rules)
    object.__setattr__(other, "path", tmp_path / "cache" / "other.npz")
    monkeypatch.setattr(other, "_solve", solve_again)
    with pytest.raises(AssertionError, match="solved a layer the package ships"):
        other.win(*states)


def test_the_package_ships_the_standard_games_table(capsys) -> None:  # type: ignore[no-untyped-def]
    """The layer of 0-0 of the table ``advise`` reads (the standard game, every seat
    ``count`` and ``heuristic``, 20,000 games) comes with the package, so a first use
    does not solve for minutes. When this fails, the policies play other games than when
    it was shipped: run ``python benchmarks/win_table.py --ship`` and commit the file."""
    table = win_table()
    assert table.path is not None
    assert (equity.SHIPPED / table.path.name).exists(), "run benchmarks/win_table.py --ship"
    even = table.win([[0, 0], [0, 0]], [[0, 0], [0, 0]], [0, 1], nearest=True)
    assert "solving" not in capsys.readouterr().err
    assert 0.4 < even[0] < 0.6 and 0.4 < even[1] < 0.6
