"""The learning environments (spades_sim.env): PettingZoo's and Gymnasium's own checks,
hidden cards, rewards against the reference engine, illegal actions, seeding."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
gymnasium = pytest.importorskip("gymnasium")

from pettingzoo.test import api_test  # noqa: E402

from spades_sim import Rules, reference  # noqa: E402
from spades_sim._nb.enums import MAX_PLAYS, InfoSlot, MaskSlot  # noqa: E402
from spades_sim.env import (  # noqa: E402
    BID_ACTION,
    BLIND_NIL_ACTION,
    ENV_ID,
    N_ACTIONS,
    N_OBS,
    IllegalAction,
    Table,
    TableConfig,
    VectorSpades,
    aec_env,
)

PRESETS = tuple(Rules.PRESETS)

ENV_KERNELS = pytest.mark.xdist_group("env_kernels")
"""On every test here but the linear player's (grouped with docs/env.md): under
``--dist loadgroup`` one worker runs them all, so the environment's kernels are compiled
once, not by both workers at once when each starts on this file."""


@pytest.mark.parametrize("preset", PRESETS)
@ENV_KERNELS
def test_pettingzoo_api_test_passes_on_every_preset(preset: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(aec_env(preset), num_cycles=200)


@pytest.mark.parametrize("preset", ["standard", "two-player", "cutthroat"])
@ENV_KERNELS
def test_pettingzoo_api_test_passes_with_game_episodes(preset: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(aec_env(preset, episode="game"), num_cycles=400)


@ENV_KERNELS
def test_gymnasium_check_env_passes() -> None:
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(ENV_ID, seat=1, partner="random", opponents="heuristic",
                         illegal="substitute")  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)
    assert env.unwrapped.action_masks().dtype == np.bool_


def play_random_hand(rules: Rules, seed: int, episode: int = 0) -> tuple[Table, np.ndarray]:
    """A whole hand at a table of agents only, every action random from the mask; returns
    the table and the points each side was rewarded."""
    table = Table(TableConfig(rules=rules), agents=range(rules.players))
    table.reset(seed, episode)
    rng = np.random.default_rng(seed * 1000 + episode)
    points = np.zeros(4, dtype=np.int64)
    while not table.over:
        table.apply(int(rng.choice(np.flatnonzero(table.legal_mask()))))
        points += table.take_rewards()
    return table, points


@pytest.mark.parametrize("preset", PRESETS)
@ENV_KERNELS
def test_a_hands_rewards_are_the_reference_engines_score_of_its_plays(preset: str) -> None:
    rules = Rules.preset(preset)
    for episode in range(3):
        table, points = play_random_hand(rules, seed=11, episode=episode)
        bids = [0] * rules.players
        blind = []
        plays = []
        for seat, decision, action in table.history:
            if action == BLIND_NIL_ACTION:
                blind.append(seat)
            elif decision == "bid":
                bids[seat] = action - BID_ACTION
            elif decision == "card":
                plays.append(action)
        assert len(plays) == rules.tricks * rules.players
        dealer = int(table.info[1])  # InfoSlot.dealer
        result = reference.replay_hand(
            table.hands_at_play(), dealer, bids, plays, rules, blind_nil=blind
        )
        assert tuple(points[: rules.sides]) == result.score_change


@ENV_KERNELS
@pytest.mark.parametrize("preset", ["standard", "two-player", "cutthroat", "jokers-deuces"])
def test_the_table_history_is_every_play_in_order(preset: str) -> None:
    """After every card the table's ``history`` is the hand's cards so far in play order
    (-1 after), each in the ``played_by`` of the seat that played it; the whole hand
    replays in the reference engine to the tricks the table counted."""
    rules = Rules.preset(preset)
    table = Table(TableConfig(rules=rules), agents=range(rules.players))
    for episode in range(2):
        table.reset(7, episode)
        rng = np.random.default_rng(episode)
        plays: list[int] = []
        bids = [0] * rules.players
        blind = []
        while not table.over:
            seat, decision = table.to_act, table.decision
            action = int(rng.choice(np.flatnonzero(table.legal_mask())))
            table.apply(action)
            if action == BLIND_NIL_ACTION:
                blind.append(seat)
            elif decision == "bid":
                bids[seat] = action - BID_ACTION
            if decision != "card":
                continue
            plays.append(action)
            history = [int(c) for c in table.info[InfoSlot.history : InfoSlot.history + MAX_PLAYS]]
            assert history == plays + [-1] * (MAX_PLAYS - len(plays))
            assert table.info[InfoSlot.played_by + seat] >> action & 1
        result = reference.replay_hand(
            table.hands_at_play(), int(table.info[InfoSlot.dealer]), bids, plays, rules,
            blind_nil=blind,
        )  # fmt: skip
        tricks = tuple(int(t) for t in table.info[InfoSlot.tricks_won : InfoSlot.tricks_won + 4])
        assert result.tricks == tricks[: rules.players]


@ENV_KERNELS
def test_a_game_episode_rewards_add_up_to_the_final_scores() -> None:
    env = aec_env("standard", episode="game")
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    table = env.unwrapped.table
    assert table.hands_played > 1
    scores = table.info[26:28]  # InfoSlot.scores
    assert totals["seat_0"] == scores[0] and totals["seat_1"] == scores[1]


@pytest.mark.parametrize("preset", ["standard", "two-player", "cutthroat", "jokers-deuces"])
@ENV_KERNELS
def test_no_observation_changes_when_only_hidden_cards_change(preset: str) -> None:
    rules = Rules.preset(preset)
    table = Table(TableConfig(rules=rules), agents=range(rules.players))
    table.reset(3, 0)
    rng = np.random.default_rng(1)
    changed_own = 0
    checked = 0
    while not table.over:
        seat = table.to_act
        before = table.observe(seat).copy()
        saved = table.hid.copy()
        # swap one card between the two hands the seat cannot see (or, with two
        # players, move one of the other player's cards to the unseen pile)
        others = [s for s in range(rules.players) if s != seat]
        for slot in (MaskSlot.work, MaskSlot.hands, MaskSlot.dealt):
            a = int(table.hid[slot + others[0]])
            if not a:
                continue
            low = a & -a
            if len(others) > 1:
                b = int(table.hid[slot + others[1]])
                if b:
                    lb = b & -b
                    table.hid[slot + others[0]] = np.uint64((a & ~low) | lb)
                    table.hid[slot + others[1]] = np.uint64((b & ~lb) | low)
            else:
                table.hid[slot + others[0]] = np.uint64(a & ~low)
        assert np.array_equal(table.observe(seat), before)
        checked += 1
        # the seat's own hand is part of what it sees (the check is not vacuous)
        own = int(table.hid[MaskSlot.work + seat]) or int(table.hid[MaskSlot.hands + seat])
        if own and before[8:64].any():
            slot = MaskSlot.work if int(table.hid[MaskSlot.work + seat]) else MaskSlot.hands
            table.hid[slot + seat] = np.uint64(own & (own - 1))
            changed_own += not np.array_equal(table.observe(seat), before)
        table.hid[:] = saved
        table.apply(int(rng.choice(np.flatnonzero(table.legal_mask()))))
    assert checked >= rules.tricks * rules.players and changed_own > 0


@ENV_KERNELS
def test_an_illegal_action_raises_one_clear_error() -> None:
    env = aec_env("standard")
    env.reset(seed=1)
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalAction, match=rf"illegal action {illegal} \(") as err:
        env.step(illegal)
    assert isinstance(err.value, ValueError)
    vec = VectorSpades(3, seat=2)
    vec.reset(seed=1)
    actions = np.array([np.flatnonzero(m)[0] for m in vec.action_masks()])
    actions[1] = N_ACTIONS  # outside the space
    before = vec.observations.copy()
    with pytest.raises(IllegalAction, match=rf"illegal action {N_ACTIONS} .* at table 1"):
        vec.step(actions)
    assert np.array_equal(vec.observations, before)


def run_vector(num_envs: int, seed: int, steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    vec = VectorSpades(num_envs, seat=0, partner="heuristic", opponents="random")
    obs, _ = vec.reset(seed=seed)
    observations, rewards, dones = [obs[:2].copy()], [], []
    for t in range(steps):
        masks = vec.action_masks()
        # a deterministic learner: the k-th legal action, k from the step number
        acts = [np.flatnonzero(m)[t % m.sum()] for m in masks]
        obs, reward, done, _, _ = vec.step(acts)
        observations.append(obs[:2].copy())
        rewards.append(reward[:2].copy())
        dones.append(done[:2].copy())
    return np.array(observations), np.array(rewards), np.array(dones)


@ENV_KERNELS
def test_same_seed_same_episodes_at_any_num_envs() -> None:
    small = run_vector(2, seed=9, steps=150)
    large = run_vector(7, seed=9, steps=150)
    for a, b in zip(small, large, strict=True):
        assert np.array_equal(a, b)
    assert small[2].sum() >= 2  # whole episodes were compared
    other = run_vector(2, seed=10, steps=150)
    assert not np.array_equal(small[0], other[0])


@ENV_KERNELS
def test_vector_env_rewards_and_spaces() -> None:
    vec = VectorSpades(4, seat=1, learner_bids=False)
    obs, _ = vec.reset(seed=2)
    assert obs.shape == (4, N_OBS) and obs.dtype == np.float32
    episodes = 0
    for _ in range(60):
        masks = vec.action_masks()
        assert not masks[:, BID_ACTION:].any()  # the engine bids for the learner
        acts = vec.random_actions(seed=3)
        assert masks[np.arange(4), acts].all()
        _, reward, done, trunc, _ = vec.step(acts)
        assert not trunc.any()
        assert (reward[~done] == 0).all()
        episodes += int(done.sum())
    assert episodes >= 4


@ENV_KERNELS
def test_linear_player_round_trips_its_file(tmp_path) -> None:
    from spades_sim.env.linear import N_CARD_FEATURES, LinearPlayer

    player = LinearPlayer(tuple(np.linspace(-1.5, 2.0, N_CARD_FEATURES)))
    path = tmp_path / "player.json"
    player.save(path)
    assert LinearPlayer.load(path) == player
    assert player.policy().params["w3"] == player.weights[3]
    path.write_text('{"kind": "something else"}')
    with pytest.raises(ValueError, match="not a linear player file"):
        LinearPlayer.load(path)
    with pytest.raises(ValueError, match="expected 16 numbers"):
        LinearPlayer((1.0, 2.0))


def test_a_bad_linear_player_file_is_one_line_naming_it(tmp_path) -> None:
    """Whatever is wrong with a player's file, ``load`` says so in one ``ValueError`` line
    naming the file; only numbers are weights; ``save`` replaces no file of another
    kind (a player's own file it does replace)."""
    import json

    from spades_sim.env.linear import CARD_FEATURES, FILE_KIND, N_CARD_FEATURES, LinearPlayer

    good = {"kind": FILE_KIND, "features": list(CARD_FEATURES), "weights": [0.5] * 16}
    numbers = [0.5] * N_CARD_FEATURES
    cases = {
        "no weights": ({k: v for k, v in good.items() if k != "weights"}, "weights"),
        "null": ({**good, "weights": None}, "weights"),
        "nested": ({**good, "weights": [numbers[:8], numbers[8:]]}, "weights"),
        "strings": ({**good, "weights": ["0.5"] * 16}, "'0.5' is not a number"),
        "a boolean": ({**good, "weights": [True, *numbers[1:]]}, "True is not a number"),
        "one short": ({**good, "weights": numbers[1:]}, "expected 16 numbers, got 15"),
        "null features": ({**good, "features": None}, "features"),
        "infinite": ({**good, "weights": [float("inf"), *numbers[1:]]}, "finite"),
    }
    for name, (record, what) in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(record))
        with pytest.raises(ValueError) as err:
            LinearPlayer.load(path)
        message = str(err.value)
        assert str(path) in message and what in message and "\n" not in message, (name, message)
    (tmp_path / "binary.json").write_bytes(b"\xff\xfe\x00")
    for path in (tmp_path, tmp_path / "binary.json", tmp_path / "missing.json"):
        with pytest.raises(ValueError, match=f"^{path}: "):
            LinearPlayer.load(path)
    with pytest.raises(ValueError, match="is not a number"):
        LinearPlayer(("1",) * N_CARD_FEATURES)  # type: ignore[arg-type]
    player = LinearPlayer(tuple(np.float32(k) for k in range(N_CARD_FEATURES)))
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    for path in (notes, tmp_path):
        with pytest.raises(ValueError, match=f"^{path}: .*not a linear player file"):
            player.save(path)
    assert notes.read_text() == "my notes\n"
    mine = tmp_path / "player.json"
    LinearPlayer(tuple(numbers)).save(mine)
    player.save(mine)  # a player's file is replaced by the new weights
    assert LinearPlayer.load(mine) == player
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


@ENV_KERNELS
def test_the_trained_player_plays_the_card_training_scores_highest() -> None:
    from numba import njit

    from spades_sim._nb import env as kernels
    from spades_sim.env.linear import N_CARD_FEATURES

    @njit
    def choose(hand, legal, seat, info, rules, weights):
        return kernels.linear_card_nb(hand, legal, seat, info, rules, weights)

    weights = np.random.default_rng(4).normal(size=N_CARD_FEATURES)
    vec = VectorSpades(16, seat=3, learner_bids=False)
    vec.reset(seed=8)
    features = np.zeros((16, 56, N_CARD_FEATURES))
    compared = 0
    for _ in range(30):
        kernels.vec_card_features_nb(vec.lowered_rules, vec.table_info, vec.table_hidden,
                                     vec.table_state, features)  # fmt: skip
        for i in range(16):
            legal = vec.masks[i, :56]
            hand = vec.table_hidden[i, MaskSlot.work + 3]
            legal_bits = np.uint64(sum(1 << int(c) for c in np.flatnonzero(legal)))
            scores = np.where(legal, features[i] @ weights, -np.inf)
            card = choose(hand, legal_bits, 3, vec.table_info[i], vec.lowered_rules, weights)
            assert card == int(np.argmax(scores))
            compared += 1
        vec.step(vec.random_actions(seed=1))
    assert compared == 480


@ENV_KERNELS
def test_a_short_training_run_learns() -> None:
    from spades_sim.env.linear import train_linear_player

    player, history = train_linear_player(24_000, num_envs=256, seed=3, every=8_000)
    assert len(history) == 3 and history[-1].player == player
    # the mean points a hand of the sampled (exploring) player rise as it learns
    assert history[-1].mean_reward > history[0].mean_reward + 3


@pytest.mark.slow
@pytest.mark.xdist_group("linear_player")  # with docs/env.md: the player's kernels, once
def test_a_trained_player_from_its_file_plays_in_simulate_hands(tmp_path) -> None:
    from spades_sim import simulate_hands
    from spades_sim.env.linear import N_CARD_FEATURES, LinearPlayer

    player = LinearPlayer(tuple(np.linspace(1.0, -1.0, N_CARD_FEATURES)))
    player.save(tmp_path / "p.json")
    # against the heuristic: the module of the ladder's seatings below (a built-in side's
    # play is read from its parameters), not one of the player on all four seats
    a = simulate_hands(300, seed=2, play={"ns": player.policy(), "ew": "heuristic"})
    loaded = LinearPlayer.load(tmp_path / "p.json").policy()
    b = simulate_hands(300, seed=2, play={"ns": loaded, "ew": "heuristic"})
    assert a.equals(b)
    c = simulate_hands(300, seed=2, play="heuristic")
    assert not a["tricks"].equals(c["tricks"])
    from spades_sim.analysis import ladder

    table = ladder(["random", player.policy()], 200, seed=3)
    margin = table[table["measure"] == "margin"]
    assert len(margin) == 1 and margin["a"].iloc[0].startswith("linear")


@ENV_KERNELS
def test_make_vec_gives_the_vector_environment() -> None:
    vec = gymnasium.make_vec(ENV_ID, num_envs=3, vectorization_mode="vector_entry_point",
                             seat=1, opponents="random")  # fmt: skip
    obs, _ = vec.reset(seed=4)
    assert isinstance(vec.unwrapped, VectorSpades) and obs.shape == (3, N_OBS)
    assert vec.unwrapped.config.play[0] == "random"


@ENV_KERNELS
def test_a_seat_sees_no_card_before_its_blind_nil_turn_is_over() -> None:
    from spades_sim.env import LOOK_ACTION, OBSERVATION_FIELDS

    first, length = OBSERVATION_FIELDS["hand"]
    table = Table(TableConfig(), agents=range(4))
    table.reset(1, 0)
    seen_before = []
    while table.to_act >= 0 and table.legal_mask()[BLIND_NIL_ACTION]:
        seat = table.to_act
        seen_before.append(table.observe(seat)[first : first + length].sum())
        table.apply(LOOK_ACTION)
        assert table.observe(seat)[first : first + length].sum() == 13  # now it has looked
        table.apply(int(np.flatnonzero(table.legal_mask())[-1]))  # bids
    assert seen_before == [0, 0, 0, 0]


@pytest.mark.slow
@pytest.mark.xdist_group("linear_player")  # with docs/env.md: the player's kernels, once
def test_the_learning_example_runs_short(tmp_path) -> None:
    import importlib.util
    import json
    from pathlib import Path

    from spades_sim.env.linear import LinearPlayer

    path = Path(__file__).resolve().parents[1] / "analyses" / "learn_play.py"
    spec = importlib.util.spec_from_file_location("learn_play", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(["--out", str(tmp_path), "--hands", "30000", "--points", "2", "--deals", "2000"])
    curve = json.loads((tmp_path / "curve.json").read_text())["curve"]
    assert curve[0]["hands"] == 0 and len(curve) == 2
    # trained, it beats random play by a clear interval, and gained on heuristic
    assert curve[-1]["margin"]["random"][1] > 0
    assert curve[-1]["margin"]["heuristic"][0] > curve[0]["margin"]["heuristic"][0]
    LinearPlayer.load(tmp_path / "player.json")


@ENV_KERNELS
def test_a_blind_nil_exchange_is_the_agents_decisions() -> None:
    from spades_sim.env import LOOK_ACTION, OBSERVATION_FIELDS

    rules = Rules.preset("blind-nil-exchange")  # 3 cards each way
    table = Table(TableConfig(rules=rules), agents=range(4))
    table.reset(2, 0)
    nil_seat = table.to_act
    table.apply(BLIND_NIL_ACTION)
    while table.decision in ("blind", "bid"):
        if table.decision == "blind":
            table.apply(LOOK_ACTION)
        else:  # a number, never nil
            table.apply(
                int(np.flatnonzero(table.legal_mask()[BID_ACTION + 1 :])[0]) + BID_ACTION + 1
            )
    first, length = OBSERVATION_FIELDS["passing"]
    passed = {}
    for chooser in (nil_seat, nil_seat ^ 2):
        hand_before = table.hands_at_play()[chooser]
        chosen = []
        for _ in range(3):
            assert table.decision == "pass" and table.to_act == chooser
            legal = np.flatnonzero(table.legal_mask())
            assert all(hand_before >> int(c) & 1 for c in legal) and len(legal) == 13 - len(chosen)
            chosen.append(int(legal[-1]))
            table.apply(chosen[-1])
            if table.decision == "pass":  # until the swap, which the last card makes
                shown = np.flatnonzero(table.observe(chooser)[first : first + length])
                assert sorted(shown) == sorted(chosen)
        # the other partner does not see what was chosen
        assert not table.observe(chooser ^ 2)[first : first + length].any()
        passed[chooser] = chosen
    assert table.decision == "card"
    hands = table.hands_at_play()
    for seat in (nil_seat, nil_seat ^ 2):
        assert all(hands[seat] >> c & 1 for c in passed[seat ^ 2])
        assert not any(hands[seat] >> c & 1 for c in passed[seat])


@ENV_KERNELS
def test_same_seed_same_episodes_at_any_thread_count() -> None:
    def run(threads: int) -> list[np.ndarray]:
        vec = VectorSpades(7, seat=2, opponents="random", threads=threads)
        obs, _ = vec.reset(seed=21)
        out = [obs.copy()]
        for step in range(60):
            acts = vec.random_actions(seed=step)
            obs, reward, done, _, _ = vec.step(acts)
            out += [obs.copy(), reward.copy(), done.copy()]
        return out

    one, three = run(1), run(3)
    assert all(np.array_equal(a, b) for a, b in zip(one, three, strict=True))
    assert sum(d.sum() for d in one[3::3]) >= 7  # whole episodes were compared
    vec = VectorSpades(4, threads=2)
    vec.reset(seed=1)
    acts = vec.random_actions()
    acts[3] = 0 if not vec.masks[3, 0] else int(np.flatnonzero(~vec.masks[3])[0])
    before = vec.observations.copy()
    with pytest.raises(IllegalAction, match="at table 3"):
        vec.step(acts)
    assert np.array_equal(vec.observations, before)


@ENV_KERNELS
def test_a_learner_side_plays_both_partners() -> None:
    from spades_sim._nb import env as kernels
    from spades_sim.env import OBSERVATION_FIELDS, SpadesEnv

    first, _ = OBSERVATION_FIELDS["to_act"]
    vec = VectorSpades(6, seat=1, side=True, opponents="random")
    obs, _ = vec.reset(seed=5)
    seats = set()
    for step in range(120):
        seats |= set(vec.table_state[:, kernels.E_TO_ACT].tolist())
        assert (obs[:, first] == 1).all()  # always the seat to act's own view
        obs, *_ = vec.step(vec.random_actions(seed=step))
    assert seats == {1, 3}
    env = SpadesEnv(seat=0, side=True)
    env.reset(seed=3)
    assert env.action_masks().any()
    with pytest.raises(ValueError, match="four players in partnerships"):
        VectorSpades(2, rules="cutthroat", side=True)
