"""User-written policies through the context API (``spades_sim.nb``): they decide what they
claim and nothing else reads their parameters; the same logic as a built-in gives the
built-in's rows; parameters change without compiling; their code is digested, so edits
recompile and a changed policy is refused; they run everywhere a built-in runs.

The example module (``analyses/custom_policy.py``) holds the policies most tests use, so
its kernels are compiled once for the whole file (and cached on disk after that).
"""

from __future__ import annotations

import ast
import builtins
import importlib.util
import json
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numba import njit

from spades_sim import nb, nil_odds, simulate_games, simulate_hands
from spades_sim import threads as kernels
from spades_sim.custom import kernels as custom_kernels
from spades_sim.custom.function import PolicyCodeError, code_digest, load_reference
from spades_sim.policies import Policy, parse_policy
from spades_sim.rules import Rules
from spades_sim.simulate import RunSpec, record_hands

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "analyses" / "custom_policy.py"


def _example():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("custom_policy", EXAMPLE)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


example = _example()

# Every test here on one worker (under --dist loadgroup): most share a generated module
# (the example's policies, or the ones below), compiled once rather than once a worker.
pytestmark = pytest.mark.xdist_group("user_policies")

# Presets where any bid 0..13 stands: under a bid rule the engine replaces a bid it does
# not allow (tests/test_variants.py), so "always 3" is not 3 there.
FREE_BIDDING = [name for name in Rules.PRESETS if Rules.preset(name).bid_rule == "free"]


@nb.bidder
def always_three(ctx):  # type: ignore[no-untyped-def]
    return 3


@nb.bidder(blind_nil=lambda ctx: True)
def always_blind(ctx):  # type: ignore[no-untyped-def]
    return 3


# parameters that, read by the built-in blind nil rule as its own (slot by slot: the
# deficit, bags, partner thresholds at 0, the opponents' reach at 1e9), say "blind nil
# whenever the partner has bid": what the bug did with a user bidder's row
@nb.bidder(params={**{f"p{k}": 0.0 for k in range(9)}, "reach": 1e9})
def three_with_params(ctx):  # type: ignore[no-untyped-def]
    return 3


# --- A user policy decides what it claims -------------------------------------------------


@pytest.mark.parametrize("preset", FREE_BIDDING)
def test_a_user_bidder_bids_blind_nil_exactly_when_it_decides_to(preset: str) -> None:
    """N-S bid 3 and declare no blind nil decision: never a blind nil (nor a nil). E-W
    always want blind nil: they get it wherever the rules allow it, nowhere else."""
    rules = Rules.preset(preset)
    bidding = {"ns": always_three, "ew": always_blind}
    df = simulate_hands(300, seed=5, rules=rules, bidding=bidding, play="random")
    ns, ew = df[df.side == 0], df[df.side == 1]
    assert not ns.blind_nil.any() and not ns.nil.any() and (ns.bid == 3).all()
    assert ew.blind_nil.all() if rules.blind_nil else not ew.blind_nil.any()
    assert (ew[~ew.blind_nil].bid == 3).all()


@pytest.mark.slow
def test_nor_in_whole_games() -> None:
    for preset in FREE_BIDDING:
        rules = Rules.preset(preset)
        hands, _ = simulate_games(6, seed=5, rules=rules, bidding=always_three, play="random")
        assert not hands.blind_nil.any() and (hands.bid == 3).all()


@pytest.mark.slow
@pytest.mark.parametrize("preset", FREE_BIDDING)
def test_alone_on_every_seat(preset: str) -> None:
    rules = Rules.preset(preset)
    df = simulate_hands(200, seed=5, rules=rules, bidding=always_three, play="random")
    assert not df.blind_nil.any() and (df.bid == 3).all()
    df = simulate_hands(200, seed=6, rules=rules, bidding=always_blind, play="random")
    assert df.blind_nil.all() if rules.blind_nil else not df.blind_nil.any()


@pytest.mark.slow
def test_blind_nil_waits_for_the_deficit_the_rules_ask() -> None:
    rules = Rules(blind_nil_min_deficit=100, target=300)
    hands, _ = simulate_games(40, seed=7, rules=rules, bidding=always_blind, play="heuristic")
    side_behind = (hands.score_before - hands.groupby(["game", "hand_no"]).score_before.transform(
        "max"
    )) <= -100  # fmt: skip
    assert (hands.blind_nil == side_behind).all()
    assert hands.blind_nil.any() and not hands.blind_nil.all()


@pytest.mark.slow
def test_mutation_the_built_in_rule_on_a_user_bidder_is_caught(tmp_path: Path) -> None:
    """The bug this guards against: the built-in blind nil rule run for a user bidder,
    reading the user's parameter row as its thresholds. A generated module with that
    mutation makes a bidder that always bids 3 declare blind nil, so the first test above
    would fail on it."""
    policies = (
        three_with_params,
        three_with_params,
        Policy.of("random", "play"),
        Policy.of("random", "play"),
    )
    key = custom_kernels.module_key(policies) + "mutant"
    text = custom_kernels.source(key, policies).replace(" = never_blind_nil_nb", " = blind_nil_nb")
    assert text != custom_kernels.source(key, policies)
    path = tmp_path / f"mutant_{key}.py"
    custom_kernels.REGISTRY[key] = (three_with_params.function.compiled,) * 2 + (None,) * 4
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(f"spades_sim_policies_{key}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    run = RunSpec.build(seed=5, bidding=three_with_params, play="random")
    out = _run_module_hands(module, run, 300)
    assert (out == 2).mean() > 0.2  # blind nil kinds: the mutant bids them
    real = simulate_hands(300, seed=5, bidding=three_with_params, play="random")
    assert not real.blind_nil.any() and (real.bid == 3).all()  # the real module never


def _unbound_names(text: str) -> set[str]:
    """The names a module's functions read that neither the function nor the module
    binds (imports, assignments, definitions) nor Python does."""
    tree = ast.parse(text)
    bound = set(dir(builtins))
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Assign):
            bound |= {n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.FunctionDef):
            bound.add(node.name)
    unbound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            names = [n for n in ast.walk(node) if isinstance(n, ast.Name)]
            local = {a.arg for a in node.args.args}
            local |= {n.id for n in names if isinstance(n.ctx, ast.Store)}
            unbound |= {n.id for n in names if n.id not in local | bound}
    return unbound


@pytest.mark.parametrize(
    "bidding, play",
    [
        ((example.quick_tricks_bid, "count"), (example.cheapest_winner_play, "pimc")),
        ((example.quick_tricks_bid, example.quick_tricks_bid), ("heuristic", "heuristic")),
        ((always_blind, "monte-carlo"), ("random", "lookahead")),
        (("count", "pagat"), ("pimc", "pimc")),
    ],
)
def test_a_generated_module_uses_only_names_it_binds(bidding, play) -> None:  # type: ignore[no-untyped-def]
    """Renaming a kernel that a generated module calls breaks this test (the module is
    imported, not compiled), not a user's first run: every name its kernels read is
    imported or defined in it, and its imports resolve."""
    spec = RunSpec.build(seed=1, bidding=bidding, play=play)
    policies = (*spec.bidding, *spec.play)
    text = custom_kernels.source(custom_kernels.module_key(policies), policies)
    assert not _unbound_names(text)
    module = custom_kernels.kernels_for(policies)  # its imports run; nothing compiles
    assert callable(module.hands_nb) and module.lane_play_nb is not None


def _run_module_hands(module, spec: RunSpec, n: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    from spades_sim._nb.enums import N_OUT_I8, N_OUT_I32, OutI8

    rows = n * 4
    outs = (
        np.empty(rows, np.uint64),
        np.empty((N_OUT_I8, rows), np.int8),
        np.empty((N_OUT_I32, rows), np.int32),
        np.zeros(n, np.int8),
        np.zeros(0, np.uint64),
        np.zeros((0, 52), np.int8),
        np.zeros((0, 13), np.int8),
    )
    params = np.stack([p.lower() for p in (*spec.bidding, *spec.play, spec.draw)])
    kernels.run_blocks(
        module.hands_nb, -(-n // 64), spec.rules.lower(), np.int64(spec.seed), np.int64(0),
        np.int64(n), params, *outs,
    )  # fmt: skip
    return outs[1][OutI8.nil_kind]


# --- The same logic through the API is the built-in ----------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "preset", ["standard", "two-player", "jokers", "mercy", "blind-nil-exchange"]
)
def test_twins_of_the_builtins_give_the_builtins_rows(preset: str) -> None:
    rules = Rules.preset(preset)
    mine = simulate_hands(
        400, seed=12, rules=rules, bidding=example.count_twin, play=example.heuristic_twin
    )
    builtin = simulate_hands(400, seed=12, rules=rules, bidding="count", play="heuristic")
    pd.testing.assert_frame_equal(mine, builtin, check_like=False, check_exact=True)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["standard", "two-player"])
@pytest.mark.parametrize("play", ["user", "heuristic"])
def test_batches_give_the_scalar_kernels_rows(preset: str, play: str) -> None:
    """User policies in hands runs take the batch kernels (deal, scoring and rows in
    lock-step; the play in lock-step when it is a built-in's); with the play recorded
    they take the scalar kernel: the rows are the same."""
    player = example.cheapest_winner_play if play == "user" else play
    rules = Rules.preset(preset)
    policies = {"rules": rules, "bidding": example.quick_tricks_bid, "play": player}
    batched = simulate_hands(300, seed=8, **policies)
    scalar = record_hands(300, seed=8, **policies).hands
    for name in batched.columns:  # nullable booleans travel as int8 1/0/-1 in a chunk
        values = batched[name].astype("float64").fillna(-1).to_numpy()
        assert np.array_equal(values, np.asarray(scalar[name], dtype=np.float64)), name


@pytest.mark.slow
def test_twins_play_whole_games_as_the_builtins() -> None:
    mine = simulate_games(20, seed=4, bidding=example.count_twin, play=example.heuristic_twin)
    builtin = simulate_games(20, seed=4, bidding="count", play="heuristic")
    for a, b in zip(mine, builtin, strict=True):
        pd.testing.assert_frame_equal(a, b)


def test_the_sampling_players_read_a_user_bidder_as_count() -> None:
    """A user-written bidder's bids come from code the sampling players' kernels cannot
    call, and its parameter row is not a built-in's (``three_with_params``' row, read as
    one, would be count with odd parameters): seated, the default ``assume`` (the seated
    bidders) reads its seat as ``count`` at its defaults, the run of ``assume=0``."""
    bidding = {"ns": "count", "ew": three_with_params}
    play = "lookahead:samples=4,fit_tries=16"
    seated = simulate_hands(8, seed=2, bidding=bidding, play=play)
    assert seated.equals(simulate_hands(8, seed=2, bidding=bidding, play=play + ",assume=0"))
    # either seating of the two bidders is one generated module, which must hand each
    # seat its own bidder whichever way round the run seats them
    turned = simulate_hands(8, seed=2, bidding={"ns": three_with_params, "ew": "count"}, play=play)
    for frame, user_side in ((seated, 1), (turned, 0)):
        assert (frame[frame.side == user_side].bid == 3).all()


@pytest.mark.slow
def test_a_side_of_user_policies_against_builtins() -> None:
    mixed = simulate_hands(
        200, seed=3, bidding={"ns": example.count_twin, "ew": "pagat"}, play="heuristic"
    )
    builtin = simulate_hands(200, seed=3, bidding={"ns": "count", "ew": "pagat"}, play="heuristic")
    pd.testing.assert_frame_equal(mixed, builtin)


@pytest.mark.slow
def test_the_context_reads_the_table() -> None:
    """A player that writes back what its context said (as the card it would not be
    allowed to play is refused, it plays legally and checks the fields in the kernel)."""

    @nb.player(params={"lowest": 1.0})
    def checked(ctx):  # type: ignore[no-untyped-def]
        ok = (
            ctx.legal & ~ctx.hand == 0
            and ctx.players == 4
            and ctx.rules.target == 350
            and ctx.rules.jokers == 0
            and ctx.params.lowest == 1.0
            and (ctx.n_in_trick == 0) == (ctx.trick[0] == -1)
            and ctx.bids[ctx.seat] >= 0
            and ctx.tricks_won[0] + ctx.tricks_won[1] + ctx.tricks_won[2] + ctx.tricks_won[3]
            == ctx.trick_no
            and ctx.played & ctx.hand == 0
        )
        return nb.lowest_card_nb(ctx.legal) if ok else 60  # 60: not a card, an error

    df = simulate_hands(100, seed=2, rules=Rules(target=350), play=checked)
    assert len(df) == 400


@njit
def history_fits_nb(ctx):  # type: ignore[no-untyped-def]
    """Whether ``ctx.history`` is the hand's plays in order as the rest of the table tells
    them: replayed trick by trick from the first card's seat (the ``played_by`` that holds
    it), every card is played by the seat whose turn it was, the tricks go to the seats
    ``tricks_won`` counts, the current trick is ``ctx.trick`` led by ``ctx.leader``, and
    the slots after the last card are -1."""
    n = nb.popcount_nb(ctx.played)
    players = ctx.players
    won = np.zeros(4, dtype=np.int64)
    seen = np.uint64(0)
    seat = ctx.seat  # the first to play when nothing is played
    for s in range(players):
        if n and (np.uint64(ctx.played_by[s]) >> np.uint64(ctx.history[0])) & np.uint64(1):
            seat = s
    win_seat = seat
    win_card = -1
    led = -1
    for k in range(n):
        card = ctx.history[k]
        if card < 0 or not (np.uint64(ctx.played_by[seat]) >> np.uint64(card)) & np.uint64(1):
            return False
        seen |= np.uint64(1) << np.uint64(card)
        suit = 3 if card >= 39 else card // 13
        j = k % players
        if j == 0:
            led, win_card, win_seat = suit, card, seat
        elif card > win_card and (suit == led or card >= 39):
            win_card, win_seat = card, seat
        if j == players - 1:
            won[win_seat] += 1
            seat = win_seat
        else:
            seat = (seat + 1) % players
    for k in range(n, ctx.history.shape[0]):
        if ctx.history[k] != -1:
            return False
    start = n - ctx.n_in_trick
    for j in range(ctx.n_in_trick):
        if ctx.trick[j] != ctx.history[start + j]:
            return False
    for s in range(4):
        if won[s] != ctx.tricks_won[s]:
            return False
    return (
        seen == ctx.played
        and seat == ctx.seat
        and (n == 0 or (ctx.n_in_trick > 0 or seat == ctx.leader))
    )


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["standard", "two-player", "cutthroat", "jokers-deuces", "18"])
def test_the_history_is_the_plays_in_order(preset: str) -> None:
    """At every play the context's ``history`` replays into the table it sees (seats in
    turn, trick winners, the trick in progress); a mismatch plays a non-card, an error."""

    @nb.player
    def replaying(ctx):  # type: ignore[no-untyped-def]
        return nb.lowest_card_nb(ctx.legal) if history_fits_nb(ctx) else 60

    # "18": three players with the jokers, the most cards a hand plays (54)
    rules = (
        Rules(players=3, partnerships=False, jokers=True)
        if preset == "18"
        else Rules.preset(preset)
    )
    df = simulate_hands(60, seed=4, rules=rules, play=replaying)
    assert len(df) == 60 * rules.players


@pytest.mark.slow
def test_random_draws_are_reproducible_across_threads() -> None:
    @nb.player
    def lucky(ctx):  # type: ignore[no-untyped-def]
        return nb.random_card_nb(ctx, ctx.legal, 3)

    @nb.bidder
    def dice(ctx):  # type: ignore[no-untyped-def]
        return 1 + nb.randint_nb(ctx, 6, 0) if nb.uniform_nb(ctx, 1) < 0.9 else 0

    one = simulate_hands(500, seed=9, bidding=dice, play=lucky, threads=1)
    two = simulate_hands(500, seed=9, bidding=dice, play=lucky, threads=2, chunk_size=77)
    pd.testing.assert_frame_equal(one, two)
    assert one.bid.nunique() == 7


# --- Parameters, digests, references ------------------------------------------------------


@pytest.mark.slow
def test_parameters_change_without_compiling() -> None:
    bidder = example.quick_tricks_bid
    # compiled (or loaded) here: the runs watched below take the same module, whose key
    # holds the play (the default, heuristic, as for the batches test's runs above)
    simulate_hands(64, seed=1, bidding=bidder)
    with kernels.watch_compiles() as watch:
        low = simulate_hands(2000, seed=1, bidding=bidder.with_params(spade_length=1))
        high = simulate_hands(2000, seed=1, bidding=bidder.with_params(spade_length=6))
        text = simulate_hands(
            2000, seed=1, bidding=parse_policy(f"{EXAMPLE}:quick_tricks_bid:spade_length=6", "bid")
        )
    assert low.bid.mean() > high.bid.mean()
    pd.testing.assert_frame_equal(high, text)
    assert not [c for c in watch.compiles if "hands" in c.kernel and "policies" in c.kernel]
    with pytest.raises(ValueError, match="no parameter 'spades'"):
        bidder.with_params(spades=3)
    with pytest.raises(ValueError, match="must be a number"):
        bidder.with_params(spade_length="many")


def test_the_code_digest_follows_what_the_policy_calls(tmp_path: Path) -> None:
    def module(body: str) -> object:
        path = tmp_path / f"m{abs(hash(body))}.py"
        path.write_text(textwrap.dedent(body))
        return load_reference(f"{path}:bid")

    base = """
        from spades_sim import nb
        LIMIT = {limit}
        def helper(x):
            return x + {add}
        def bid(ctx):
            return helper(nb.popcount_nb(ctx.hand)) % LIMIT
    """
    a = code_digest(module(base.format(limit=13, add=1)))
    assert a == code_digest(module(base.format(limit=13, add=1)))
    assert a != code_digest(module(base.format(limit=12, add=1)))  # a constant it reads
    assert a != code_digest(module(base.format(limit=13, add=2)))  # a helper it calls


def test_references_and_mistakes(tmp_path: Path) -> None:
    policy = parse_policy("analyses/custom_policy.py:cheapest_winner_play:spare_partner=0", "play")
    assert policy.params == {"spare_partner": 0.0} and policy.name == "cheapest_winner_play"
    with pytest.raises(PolicyCodeError, match="no such file"):
        parse_policy("nowhere.py:bid", "bid")
    with pytest.raises(PolicyCodeError, match="has no 'nothing'"):
        parse_policy(f"{EXAMPLE}:nothing", "bid")
    with pytest.raises(ValueError, match="is a play policy"):
        parse_policy(f"{EXAMPLE}:heuristic_twin", "bid")
    with pytest.raises(PolicyCodeError, match="takes 6 arguments"):

        def old(hand, seat, info, rules, params, rand):  # type: ignore[no-untyped-def]
            return 3

        nb.bidder(old)
    with pytest.raises(ValueError, match="draw policies are not supported"):
        Policy.custom(lambda ctx: 1, "draw")
    with pytest.raises(PolicyCodeError, match="must be a Python name"):
        nb.bidder(params={"spade length": 3})(lambda ctx: 3)


def test_a_policy_pickles_by_reference_and_refuses_changed_code(tmp_path: Path) -> None:
    path = tmp_path / "mine.py"
    path.write_text("def bid(ctx):\n    return 4\n")
    policy = parse_policy(f"{path}:bid", "bid")
    assert pickle.loads(pickle.dumps(policy)) == policy
    blob = pickle.dumps(policy)
    path.write_text("def bid(ctx):\n    return 5\n")
    sys.modules.pop(
        next(k for k, m in sys.modules.items() if getattr(m, "__file__", "") == str(path))
    )
    with pytest.raises(PolicyCodeError, match="changed"):
        pickle.loads(blob)


def test_the_manifest_records_the_policy_code() -> None:
    spec = RunSpec.build(seed=1, bidding=example.quick_tricks_bid)
    entry = spec.meta()["policies"]["bidding"]["ns"]
    assert entry["builtin"] is False and entry["function"] == "quick_tricks_bid"
    assert entry["module"] == str(EXAMPLE) and len(entry["code_sha256"]) == 64
    assert Policy.from_dict(json.loads(json.dumps(entry)), "bid") == example.quick_tricks_bid


def test_both_seatings_of_two_sides_are_one_module() -> None:
    """A duplicate seats A and B both ways round: one module for the two seatings (the
    run seated the other way round says so in ``SEATING_SLOT`` of its four policy rows),
    and a module of its own where the sides differ in anything but their order."""
    from spades_sim._nb.enums import SEATING_SLOT  # the slot only this test reads

    one = RunSpec.build(seed=1, bidding=example.quick_tricks_bid, play=("heuristic", "random"))
    play_ab = RunSpec.build(seed=1, play=(example.cheapest_winner_play, "heuristic"))
    play_ba = RunSpec.build(seed=1, play=("heuristic", example.cheapest_winner_play))
    side_ab = RunSpec.build(seed=1, bidding=(example.quick_tricks_bid, "count"),
                            play=(example.cheapest_winner_play, "random"))  # fmt: skip
    side_ba = RunSpec.build(seed=1, bidding=("count", example.quick_tricks_bid),
                            play=("random", example.cheapest_winner_play))  # fmt: skip
    key = custom_kernels.module_key
    for ab, ba in ((play_ab, play_ba), (side_ab, side_ba)):
        assert key((*ab.bidding, *ab.play)) == key((*ba.bidding, *ba.play))
        flags = {
            float(ab.params()[:4, SEATING_SLOT].sum()),
            float(ba.params()[:4, SEATING_SLOT].sum()),
        }
        assert flags == {0.0, 4.0}  # one seating the module's own, the other turned
        assert (ab.params()[4, SEATING_SLOT], ba.params()[4, SEATING_SLOT]) == (0, 0)
    assert (one.params()[:, SEATING_SLOT] == 0).all()  # the same policy both sides: no turn
    assert key((*play_ab.bidding, *play_ab.play)) != key((*side_ab.bidding, *side_ab.play))


# --- Everywhere a built-in runs -------------------------------------------------------------


@pytest.mark.slow
def test_nil_odds_with_user_policies() -> None:
    mine = nil_odds("Q73.J52.T84.9632", n=400, seed=1, bidding=example.count_twin,
                    play=example.heuristic_twin)  # fmt: skip
    builtin = nil_odds("Q73.J52.T84.9632", n=400, seed=1)
    assert mine.made == builtin.made and mine.number_scores.keys() == builtin.number_scores.keys()
    other = nil_odds("Q73.J52.T84.9632", n=400, seed=1, bidding=example.quick_tricks_bid,
                     play=example.cheapest_winner_play)  # fmt: skip
    assert 0 < other.probability < 1


@pytest.mark.slow
def test_aggregate_mode_with_user_policies() -> None:
    # the twins' module, whose batch kernel the twins' rows test above compiled already
    agg = simulate_hands(
        500, seed=2, bidding=example.count_twin, play=example.heuristic_twin, aggregate=["seat"]
    )
    builtin = simulate_hands(500, seed=2, bidding="count", play="heuristic", aggregate=["seat"])
    assert agg == builtin


@pytest.mark.slow
def test_the_command_line_takes_a_policy_file(tmp_path: Path) -> None:
    out = tmp_path / "run"
    command = [
        sys.executable, "-m", "spades_sim.cli", "simulate", "--hands", "300", "--seed", "2",
        "--bidding", f"{EXAMPLE}:quick_tricks_bid:spade_length=4", "--play",
        "analyses.custom_policy:cheapest_winner_play", "--out", str(out),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((out / "_manifest.json").read_text())
    bidding = manifest["meta"]["policies"]["bidding"]["ns"]
    assert bidding["params"] == {"spade_length": 4.0, "nil_spades": 2.0}
    assert bidding["function"] == "quick_tricks_bid"
    wrong = [*command[:-2], "--bidding", "nowhere.py:bid", "--out", str(tmp_path / "x")]
    bad = subprocess.run(wrong,
                         capture_output=True, text=True, cwd=ROOT)  # fmt: skip
    assert (
        bad.returncode != 0 and bad.stderr.startswith("error: ") and "Traceback" not in bad.stderr
    )


@pytest.mark.slow
def test_a_second_process_loads_the_kernels_from_disk(tmp_path: Path) -> None:
    """A fresh cache directory: the first process compiles the policies' kernels (and
    says so), the second loads them without a word."""
    script = (
        "import sys; sys.path.insert(0, 'analyses'); import custom_policy as c; "
        "from spades_sim import simulate_hands; "
        "simulate_hands(100, seed=1, bidding=c.quick_tricks_bid, play=c.cheapest_winner_play)"
    )
    env = {**__import__("os").environ, "SPADES_SIM_CACHE_DIR": str(tmp_path)}
    first = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           cwd=ROOT, env=env)  # fmt: skip
    assert first.returncode == 0, first.stderr
    assert "compiling kernels for your policies" in first.stderr
    second = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            cwd=ROOT, env=env)  # fmt: skip
    assert second.returncode == 0 and "compiling" not in second.stderr, second.stderr


@pytest.mark.slow
def test_resume_refuses_a_changed_policy(tmp_path: Path) -> None:
    from spades_sim.run import run_dataset

    path = tmp_path / "mine.py"
    path.write_text("def bid(ctx):\n    return 4\n")
    spec = RunSpec.build(seed=3, bidding=parse_policy(f"{path}:bid", "bid"), play="random")
    run_dataset(spec, 2000, tmp_path / "run", chunk_size=1000)
    path.write_text("def bid(ctx):\n    return 5\n")
    for name in [k for k, m in sys.modules.items() if getattr(m, "__file__", "") == str(path)]:
        del sys.modules[name]  # as a new process would load it
    changed = RunSpec.build(seed=3, bidding=parse_policy(f"{path}:bid", "bid"), play="random")
    with pytest.raises(ValueError, match="code_sha256"):
        run_dataset(changed, 4000, tmp_path / "run", chunk_size=1000, resume=True)


def test_a_policy_numba_cannot_type_is_one_line_naming_the_file(tmp_path: Path) -> None:
    """A user's mistake Numba finds is the user's: one ``error:`` line with Numba's reason
    and the user's file and line, a non-zero exit, no traceback."""
    from click.testing import CliRunner

    from spades_sim.cli import cli

    path = tmp_path / "typo.py"
    path.write_text("def bid(ctx):\n    return ctx.hand.spades\n")
    result = CliRunner().invoke(
        cli, ["simulate", "--hands", "64", "--seed", "1", "--bidding", f"{path}:bid",
              "--out", str(tmp_path / "run")],
    )  # fmt: skip
    assert result.exit_code != 0
    errors = [line for line in result.output.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "Traceback" not in result.output, result.output
    assert "Unknown attribute 'spades'" in errors[0] and "typo.py, line 2" in errors[0]
    assert not (tmp_path / "run").exists()  # nothing left: the same command can be rerun


def star_args(*cards):  # type: ignore[no-untyped-def]
    return 0


def keywords_only(**named):  # type: ignore[no-untyped-def]
    return 0


def nothing():  # type: ignore[no-untyped-def]
    return 0


def needs_keyword(ctx, *, extra):  # type: ignore[no-untyped-def]
    return 0


@pytest.mark.parametrize(
    ("func", "message"),
    [
        (star_args, r"'star_args' takes any number of arguments \(\*cards\); a policy is a "
                    r"function of one context"),
        (keywords_only, r"'keywords_only' takes no positional argument \(\*\*named\)"),
        (nothing, r"'nothing' takes no argument \(\)"),
        (needs_keyword, r"'needs_keyword' needs the keyword argument 'extra', which"),
        (lambda *a: 0, r"'<lambda>' takes any number of arguments \(\*a\)"),
    ],
)  # fmt: skip
def test_a_function_the_engine_cannot_call_with_one_context_is_named_as_it_is(
    func, message: str
) -> None:
    with pytest.raises(PolicyCodeError, match=r"^player " + message) as err:
        simulate_hands(2, seed=1, play=func)
    assert "takes 0 arguments" not in str(err.value) and "\n" not in str(err.value)
