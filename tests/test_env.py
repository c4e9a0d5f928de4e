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
@pytest.mark.parametrize("render_mode", [None, "ansi"])
def test_gymnasium_check_env_passes_without_a_warning(render_mode: str | None) -> None:
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(ENV_ID, seat=1, partner="random", opponents="heuristic",
                         illegal="substitute", render_mode=render_mode)  # fmt: skip
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []
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


@ENV_KERNELS
def test_an_action_that_is_not_a_whole_number_is_refused_and_nothing_moves() -> None:
    from spades_sim.env import LOOK_ACTION, SpadesEnv

    env = SpadesEnv()
    obs, _ = env.reset(seed=1)
    assert env.action_masks()[BLIND_NIL_ACTION] and env.action_masks()[LOOK_ACTION]
    for bad in (56.99, 76.9, 75.5, np.float32(75.5), np.inf, -np.inf, np.nan, "a", "76",
                True, np.bool_(True), None, [76], np.array([76]), 76 + 0j):  # fmt: skip
        with pytest.raises(IllegalAction, match=r"not a whole number .*seat N") as err:
            env.step(bad)
        assert isinstance(err.value, ValueError)
        assert np.array_equal(env.table.observe(0), obs) and env.action_masks()[LOOK_ACTION]
    # a whole number is one in any type: the same step as the int
    for whole in (LOOK_ACTION, np.int16(LOOK_ACTION), float(LOOK_ACTION), np.array(LOOK_ACTION)):
        env.reset(seed=1)
        after, *_ = env.step(whole)
        env.reset(seed=1)
        assert np.array_equal(after, env.step(LOOK_ACTION)[0])
    # substitution replaces an illegal whole number, never a value that is not one
    lenient = SpadesEnv(illegal="substitute")
    lenient.reset(seed=1)
    assert lenient.step(0)[-1]["substituted"]
    lenient.reset(seed=1)
    with pytest.raises(IllegalAction, match="not a whole number"):
        lenient.step(56.99)
    aec = aec_env("standard")
    aec.reset(seed=1)
    with pytest.raises(IllegalAction, match=r"action 75\.5 .*not a whole number"):
        aec.step(75.5)
    assert aec.table.history == []


@ENV_KERNELS
def test_vector_actions_that_are_not_whole_numbers_of_one_per_table_are_refused() -> None:
    vec = VectorSpades(4)
    vec.reset(seed=1)
    legal = vec.random_actions(seed=0).copy()
    before = vec.observations.copy()
    nan_at_2 = legal.astype(np.float64)
    nan_at_2[2] = np.nan
    inf_at_3 = legal.astype(np.float64)
    inf_at_3[3] = np.inf
    cases = [
        (legal + 0.5, r"action 7\d\.5 at table 0 is not a whole number"),
        (nan_at_2, r"action nan at table 2 is not a whole number"),
        (inf_at_3, r"action inf at table 3 is not a whole number"),
        (np.array(["a"] * 4), r"action 'a' at table 0 is not a whole number"),
        (legal.astype(bool), r"action True at table 0 is not a whole number"),
        (legal.reshape(2, 2), r"one action per table, shape \(4,\), got shape \(2, 2\)"),
        (legal[:3], r"one action per table, shape \(4,\), got shape \(3,\)"),
        (np.append(legal, 1), r"one action per table, shape \(4,\), got shape \(5,\)"),
        (legal.astype(np.uint64) - np.uint64(100), r"illegal action \d+ .* at table"),
        ([int(legal[0]), int(legal[1]), 2**70, int(legal[3])], r"illegal action 1180\d+ .*table 2"),
    ]
    for actions, message in cases:
        with pytest.raises(IllegalAction, match=message + ".*no table moved"):
            vec.step(actions)
        assert np.array_equal(vec.observations, before)
    # whole numbers in a float array, or a list, are the same step as the int array
    obs, *_ = vec.step(legal.astype(np.float64))
    first = obs.copy()
    vec.reset(seed=1)
    assert np.array_equal(vec.step(legal.tolist())[0], first)


@ENV_KERNELS
def test_every_environment_takes_the_same_seeds_and_refuses_the_rest() -> None:
    from spades_sim.env import SpadesEnv

    single, aec, vec = SpadesEnv(), aec_env("standard"), VectorSpades(2)
    for env in (single, aec, vec):
        for bad in (-1, 1.5, 1.0, np.float64(2.0), 2**63, 2**64, True, "1", [1]):
            with pytest.raises(ValueError, match=r"seed: must be a whole number 0 \.\. 2\*\*63-1"):
                env.reset(seed=bad)
        for good in (0, 2**63 - 1, np.uint64(2**63 - 1)):
            env.reset(seed=good)
    # a NumPy integer is the seed it holds
    vec.reset(seed=np.int64(3))
    three = vec.observations.copy()
    vec.reset(seed=3)
    assert np.array_equal(vec.observations, three)
    vec.reset(seed=1)
    assert not np.array_equal(vec.observations, three)
    single.reset(seed=np.int32(3))
    assert single.reset(seed=np.int32(3))[0].tolist() == single.reset(seed=3)[0].tolist()


@pytest.mark.parametrize("preset", [p for p in PRESETS if not Rules.preset(p).partnerships])
@ENV_KERNELS
def test_vector_rewards_are_the_learner_seats_own_score_in_cutthroat(preset: str) -> None:
    """Each seat scores alone: a learner at any seat is rewarded with its own score's
    change (game episodes keep the scores on the table between hands)."""
    rules = Rules.preset(preset)
    for seat in range(rules.players):
        vec = VectorSpades(6, rules=rules, seat=seat, opponents="random", episode="game")
        vec.reset(seed=seat)
        scores = vec.table_info[:, InfoSlot.scores : InfoSlot.scores + 4]
        compared = differed = 0
        for step in range(400):
            before = scores.copy()
            _, reward, done, _, _ = vec.step(vec.random_actions(seed=step))
            change = scores - before
            for i in np.flatnonzero(~done & change.any(axis=1)):  # a hand ended, the game not
                assert reward[i] == change[i, seat], (seat, step, i)
                compared += 1
                differed += change[i, seat] != change[i, seat & 1]
            assert (reward[~done & ~change.any(axis=1)] == 0).all()
        # many hands compared; at seats 2 and 3, many where seat & 1 scored otherwise
        assert compared >= 20 and (seat < 2 or differed >= 10), (compared, differed)


@ENV_KERNELS
def test_a_vector_table_auto_resets_to_its_next_episode() -> None:
    """After a table's episode ends its state is that of ``Table.reset(seed, episode + 1)``
    run to the learner's first decision: the next deal, not the same one again."""
    seat, seed = 1, 17
    vec = VectorSpades(3, seat=seat, opponents="random")
    vec.reset(seed=seed)
    table = Table(vec.config, agents=[seat])
    episodes = np.zeros(3, dtype=int)
    for step in range(200):
        _, _, done, _, _ = vec.step(vec.random_actions(seed=step))
        for i in np.flatnonzero(done):
            episodes[i] += 1
            table.reset(seed, int(episodes[i]), table=int(i))
            assert np.array_equal(vec.table_hidden[i], table.hid)
            assert np.array_equal(vec.table_info[i], table.info)
            assert np.array_equal(vec.table_state[i], table.ext)
            assert np.array_equal(vec.observations[i], table.observe(seat))
            assert np.array_equal(vec.masks[i], table.legal_mask())
    assert (episodes >= 3).all()


@pytest.mark.parametrize(
    "preset", ["standard", "no-bags", "ten-for-200", "cutthroat", "two-player"]
)
@pytest.mark.parametrize("episode", ["hand", "game"])
@ENV_KERNELS
def test_every_observation_lies_in_the_observation_space(preset: str, episode: str) -> None:
    """The spaces' bounds are finite and hold: 0..1 for the one-hot and card fields, the
    scores and bags within what the rules allow over an episode."""
    from spades_sim.env import OBSERVATION_FIELDS, SpadesEnv

    rules = Rules.preset(preset)
    vec = VectorSpades(8, rules=rules, seat=rules.players - 1, opponents="random",
                       episode=episode)  # fmt: skip
    space = vec.single_observation_space
    assert np.isfinite(space.low).all() and np.isfinite(space.high).all()
    assert np.array_equal(SpadesEnv(rules=rules, episode=episode).observation_space.low, space.low)
    assert aec_env(rules, episode=episode).observation_space("seat_0")["observation"] == space
    assert vec.observation_space.shape == (8, N_OBS)
    obs, _ = vec.reset(seed=4)
    seen = np.zeros(N_OBS, dtype=bool)
    steps = 1500 if episode == "game" else 300
    for step in range(steps):
        assert all(space.contains(o) for o in obs), step
        seen |= (obs != 0).any(axis=0)
        obs, *_ = vec.step(vec.random_actions(seed=step))
    first, length = OBSERVATION_FIELDS["scores"]
    # scores were there to check (a hand episode's own are in its last observation, which
    # the vector environment's auto-reset replaces)
    assert seen[first : first + length].any() == (episode == "game")
    first, length = OBSERVATION_FIELDS["hand"]
    assert (space.low[first : first + length] == 0).all()
    assert (space.high[first : first + length] == 1).all()


def seat_line(text: str, seat: str) -> str:
    """The line of ``seat`` (``N``, ``P0``, ...) in an ``ansi`` render."""
    lines = [line for line in text.splitlines() if line.split()[:1] == [seat]]
    assert len(lines) == 1, text
    return lines[0]


@ENV_KERNELS
def test_the_aec_render_shows_every_hand_the_bids_the_trick_and_the_score() -> None:
    from spades_sim.cards import format_card, format_hand
    from spades_sim.env import LOOK_ACTION

    env = aec_env("standard", render_mode="ansi")
    env.reset(seed=2)
    table = env.unwrapped.table
    blind = table.to_act
    env.step(BLIND_NIL_ACTION)
    while table.decision in ("blind", "bid"):
        if table.decision == "blind":
            env.step(LOOK_ACTION)
        else:
            env.step(BID_ACTION + 3 if table.legal_mask()[BID_ACTION + 3] else BID_ACTION)
    while table.decision == "pass" or (table.decision == "card" and table.info[InfoSlot.trick] < 2):
        env.step(int(np.flatnonzero(table.legal_mask())[0]))
    # two cards into the third trick
    played = []
    for _ in range(2):
        seat = table.to_act
        card = int(np.flatnonzero(table.legal_mask())[0])
        env.step(card)
        played.append(f"{'NESW'[seat]} {format_card(card)}")
    text = env.render()
    assert text is not None
    for s, name in enumerate("NESW"):
        hand = format_hand(int(table.hid[MaskSlot.work + s]))
        line = seat_line(text, name)
        assert hand in line  # every hand, as it is now
        assert ("blind nil" in line) == (s == blind)
        assert f"tricks {int(table.info[InfoSlot.tricks_won + s])}" in line
    assert "blind nil" in seat_line(text, "NESW"[blind])
    assert f"trick 3 of 13: {', '.join(played)}" in text
    assert "score: N-S 0 (bags 0), E-W 0 (bags 0)" in text
    assert f"to act: {'NESW'[table.to_act]} (a card)" in text
    # at the end of the hand: the score it made
    rewards = dict.fromkeys(env.possible_agents, 0.0)
    while not table.over:
        env.step(int(np.flatnonzero(table.legal_mask())[0]))
        for agent in env.possible_agents:
            rewards[agent] += env.rewards[agent]
    text = env.render()
    ns, ew = int(rewards["seat_0"]), int(rewards["seat_1"])
    bags = table.info[InfoSlot.bags : InfoSlot.bags + 2]
    assert f"score: N-S {ns} (bags {bags[0]}), E-W {ew} (bags {bags[1]})" in text
    assert "hand over" in text
    assert [seat_line(text, name).split()[1] for name in "NESW"] == ["-"] * 4  # all played


@ENV_KERNELS
@pytest.mark.parametrize("preset", ["standard", "cutthroat", "two-player"])
def test_the_one_seat_render_shows_the_learners_hand_only(preset: str) -> None:
    from spades_sim.cards import format_hand, seat_name
    from spades_sim.env import LOOK_ACTION, SpadesEnv

    rules = Rules.preset(preset)
    seat = rules.players - 1
    env = SpadesEnv(rules=rules, seat=seat, render_mode="ansi")
    env.reset(seed=3)
    table = env.table
    names = [seat_name(s, rules.players) for s in range(rules.players)]
    if table.decision == "blind":  # the learner has not looked at its cards
        unseen = "(before the draw)" if rules.players == 2 else "(not looked at)"
        assert unseen in seat_line(env.render(), names[seat])
        env.step(LOOK_ACTION)
    while table.decision != "card":
        env.step(int(np.flatnonzero(env.action_masks())[-1]))
    text = env.render()
    for s in range(rules.players):
        hand = format_hand(int(table.hid[MaskSlot.work + s]))
        line = seat_line(text, names[s])
        assert (hand in line) == (s == seat) and ("(hidden)" in line) == (s != seat)
        bid = int(table.info[InfoSlot.bids + s])
        assert ("nil" if bid == 0 else f"bid {bid}") in line
    sides = [names[0], names[1]] if rules.sides > 2 or rules.players < 4 else ["N-S", "E-W"]
    assert f"score: {sides[0]} 0 (bags 0), {sides[1]} 0 (bags 0)" in text
    assert env.render() == text  # rendering changes nothing


@ENV_KERNELS
def test_the_render_example_in_the_docs_is_what_the_table_shows() -> None:
    from pathlib import Path

    from spades_sim.env import LOOK_ACTION

    docs = (Path(__file__).resolve().parents[1] / "docs" / "env.md").read_text()
    section = docs[docs.index("## Rendering") : docs.index("## Decisions and actions")]
    example = section.split("```")[1].strip("\n")
    env = aec_env("standard", render_mode="ansi")
    env.reset(seed=2)
    table = env.unwrapped.table
    assert table.to_act == 1  # East
    env.step(BLIND_NIL_ACTION)
    while table.decision in ("blind", "bid"):
        env.step(LOOK_ACTION if table.decision == "blind" else BID_ACTION + 3)
    while table.info[InfoSlot.trick] < 2 or table.info[InfoSlot.n_in_trick] < 2:
        env.step(int(np.flatnonzero(table.legal_mask())[0]))
    assert env.render() == example
