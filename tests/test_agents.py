"""Agent-library adapters: the fixed action space and observation vector of every shipped
ruleset (plain Python), PettingZoo's own API test, OpenSpiel's own random simulation test, and an
OpenSpiel MCTS bot playing a whole game. The library tests skip, saying why, without the
``agents`` extra (pip install ".[agents]"); CI installs it."""
from __future__ import annotations

import random
import shutil

import pytest

import railrules
from railrules.interpreter.paths import rulesets_dir, shipped_rulesets
from railrules.tools.agents.encoding import encoding

# Stephenson's Rocket's action space (2,195) and observation (9,117 numbers) make the libraries'
# own checks of it take most of a minute: they run in the full suite, not in `-m "not slow"`.
_LARGE = {"stephensons_rocket"}
NAMES = shipped_rulesets()
RULESETS = [pytest.param(name, marks=pytest.mark.slow) if name in _LARGE else name for name in NAMES]


@pytest.fixture(scope="module", params=RULESETS)
def coded(request):
    ruleset = railrules.load_ruleset(request.param)
    return ruleset, encoding(ruleset, 3)


def _states(ruleset, seeds):
    """Every state of random games with other seeds than the ones the layout learned from."""
    for seed in seeds:
        game, pick = ruleset.new_game(3, seed), random.Random(seed)
        while not game.is_over:
            yield game
            game.apply(pick.choice(game.legal_actions()))
        yield game


def test_every_legal_action_has_its_own_index_and_comes_back(coded):
    ruleset, code = coded
    labels = code.labels()
    assert len(labels) == code.size
    mapped = total = 0
    for game in _states(ruleset, [101, 102]):
        legal = game.legal_actions() if not game.is_over else []
        indices, unmapped = code.legal(game)
        assert len(indices) + unmapped == len(legal)
        assert len(set(indices)) == len(indices) and indices == sorted(indices)
        for action in legal:
            i = code.index(action)
            if i is not None:
                assert code.action_at(i) == action
                assert labels[i] == action.label
        mapped += len(indices)
        total += len(legal)
    assert mapped >= 0.99 * total, f"only {mapped} of {total} legal actions have an index"


def test_the_observation_has_one_width_and_follows_the_state(coded):
    ruleset, code = coded
    assert len(code.describe()) == code.width
    seen = set()
    for game in _states(ruleset, [103]):
        for p in game.players:
            vector = code.observe(game, p)
            assert len(vector) == code.width
            assert vector[game.players.index(p)] == 1.0            # the observer's seat
        seen.add(tuple(code.observe(game, None)))
    assert len(seen) > 10      # the vector changes as the game goes on


def test_an_index_outside_the_space_is_refused(coded):
    _, code = coded
    with pytest.raises(IndexError):
        code.action_at(code.size)


def test_secret_fields_of_others_are_minus_one():
    ruleset = railrules.load_ruleset("stephensons_rocket")
    secret = ruleset.meta.get("secret") or {}
    assert secret, "this test needs a ruleset with secret fields"
    code = encoding(ruleset, 3)
    game = ruleset.new_game(3, 5)
    kind, fields = next(iter(secret.items()))
    names = code.describe()
    for f in fields:
        own = names.index(f"p1.{f}")
        assert code.observe(game, "p1")[own] != -1.0
        assert code.observe(game, "p2")[own] == -1.0


# ---------------------------------------------------------------------- PettingZoo
@pytest.mark.parametrize("name", RULESETS)
def test_pettingzoo_api_test(name):
    pytest.importorskip("pettingzoo", reason='the agents extra is not installed: pip install ".[agents]"')
    from pettingzoo.test import api_test
    env = railrules.pettingzoo.env(name, players=3)
    with pytest.warns(UserWarning):   # PettingZoo recommends Box observations; ours is a Dict with the mask
        api_test(env, num_cycles=300)


def test_pettingzoo_plays_a_whole_game_to_the_standings():
    np = pytest.importorskip("numpy", reason='the agents extra is not installed: pip install ".[agents]"')
    pytest.importorskip("pettingzoo", reason='the agents extra is not installed: pip install ".[agents]"')
    env = railrules.pettingzoo.env("chicago_express", players=3)
    env.reset(seed=11)
    pick = np.random.default_rng(11)
    total = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        total[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        assert info["legal"] and len(info["legal"]) >= int(obs["action_mask"].sum())
        env.step(int(pick.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.game.is_over
    winners = env.game.result["winners"]
    assert abs(sum(total.values())) < 1e-9
    assert all((total[p] > 0) == (p in winners) for p in env.possible_agents)


def test_pettingzoo_refuses_an_illegal_index():
    pytest.importorskip("pettingzoo", reason='the agents extra is not installed: pip install ".[agents]"')
    env = railrules.pettingzoo.env("chicago_express", players=3)
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(list(mask).index(0))
    with pytest.raises(ValueError, match="is not legal"):
        env.step(illegal)


# ---------------------------------------------------------------------- OpenSpiel
@pytest.mark.parametrize("name", RULESETS)
def test_openspiel_random_simulation_test(name):
    pyspiel = pytest.importorskip("pyspiel", reason='the agents extra is not installed: pip install ".[agents]"')
    game = railrules.openspiel.game(name, players=3)
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_openspiel_draws_are_chance_nodes():
    pyspiel = pytest.importorskip("pyspiel", reason='the agents extra is not installed: pip install ".[agents]"')
    draws = [n for n in NAMES if railrules.openspiel.game(n, players=3).get_type().chance_mode
             == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC]
    assert draws, "no shipped ruleset draws: nothing to check"
    state = railrules.openspiel.game(draws[0], players=3).new_initial_state()
    while not state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    outcomes = state.chance_outcomes()
    assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
    a, b = state.clone(), state.clone()
    a.apply_action(outcomes[0][0])
    b.apply_action(outcomes[-1][0])
    assert state.is_chance_node()                       # the clones changed, not the original


def test_a_draw_before_the_first_decision_is_a_chance_node_at_the_start(tmp_path):
    pyspiel = pytest.importorskip("pyspiel", reason='the agents extra is not installed: pip install ".[agents]"')
    root = tmp_path / "drawn_start"
    shutil.copytree(rulesets_dir() / "templates" / "coin_race", root)
    game_rules = next((root / "rules").glob("*.rules"))
    text = game_rules.read_text(encoding="utf-8")
    game_rules.write_text(text.replace("    each p in turn:\n", "    draw first from players\n    each p in turn from first:\n"), encoding="utf-8")
    game = railrules.openspiel.game(str(root), players=3)
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 3
    assert state.clone().is_chance_node() and state.observation_string(0) == ""
    state.apply_action(2)                    # the third player starts
    assert state.current_player() == 2
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_an_openspiel_mcts_bot_plays_a_whole_game():
    np = pytest.importorskip("numpy", reason='the agents extra is not installed: pip install ".[agents]"')
    pytest.importorskip("pyspiel", reason='the agents extra is not installed: pip install ".[agents]"')
    from open_spiel.python.algorithms import mcts
    game = railrules.openspiel.game("chicago_express", players=3)
    rng = np.random.RandomState(3)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=8, random_state=rng,
                       evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng))
    state, bot_moves = game.new_initial_state(), 0
    while not state.is_terminal():
        if state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            bot_moves += 1
        else:
            action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
    assert bot_moves > 10
    assert abs(sum(state.returns())) < 1e-9 and max(state.returns()) > 0


def test_the_readme_example_runs():
    pytest.importorskip("pettingzoo", reason='the agents extra is not installed: pip install ".[agents]"')
    pytest.importorskip("pyspiel", reason='the agents extra is not installed: pip install ".[agents]"')
    from pathlib import Path
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Agent libraries", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    scope: dict = {}
    exec(compile(code, "README.md (agent libraries)", "exec"), scope)
    assert scope["env"].game.decisions == 1 and not scope["state"].is_terminal()
