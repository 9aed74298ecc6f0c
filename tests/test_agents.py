"""Agent-library adapters: the fixed action space and observation vector of every shipped
ruleset (plain Python), PettingZoo's own API test, OpenSpiel's own random simulation test, and an
OpenSpiel MCTS bot playing a whole game. The library tests skip, saying why, without the
``agents`` extra (pip install ".[agents]"); CI installs it."""
from __future__ import annotations

import json
import random
import shutil

import pytest

import railrules
from railrules.interpreter.paths import rulesets_dir, shipped_rulesets
from railrules.tools.common.encoding import encoding

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


def test_the_observation_is_that_of_the_players_view(coded):
    """observe() reads the state and hides secret fields itself: the same numbers as encoding the
    seat's game.view (the API's definition of what a player may see), for every seat and an onlooker."""
    ruleset, code = coded
    for k, game in enumerate(_states(ruleset, [104])):
        if k % 25:
            continue
        for p in game.players + [None]:
            view = game.view(p)
            expected = code.observe(game, p)[:code.header]
            for slot in code.slots:
                record = view["globals"] if slot.owner == "globals" else view["entities"].get(slot.owner, {})
                expected += slot.encode(record.get(slot.name))
            assert code.observe(game, p) == expected


def test_observing_several_seats_at_once_is_observing_each(coded):
    ruleset, code = coded
    for k, game in enumerate(_states(ruleset, [105])):
        if k % 40 == 0:
            assert code.observe_seats(game, game.players) == {p: code.observe(game, p) for p in game.players}


def test_the_listed_slices_cover_the_vector_exactly(coded):
    ruleset, code = coded
    slices = code.slices()
    assert slices[0].start == 0 and slices[-1].stop == code.width
    assert all(a.stop == b.start for a, b in zip(slices, slices[1:]))
    assert all(s.stop > s.start and s.encodes for s in slices)
    names = code.describe()    # each number's own name lies in the slice of its field
    for s in slices[3:]:
        assert all(n.startswith(s.name) for n in names[s.start:s.stop]), s


def test_changing_a_field_changes_only_its_slice(coded):
    """The slices say where observe() writes: a number field changed on a copy of a mid-game state
    changes the vector inside that field's slice and nowhere else."""
    ruleset, code = coded
    game = ruleset.new_game(3, 21)
    pick = random.Random(21)
    for _ in range(40):
        game.apply(pick.choice(game.legal_actions()))
    before = code.observe(game, None)

    def record(state, owner):
        return state["globals"] if owner == "globals" else state["entities"][owner]

    numbers = [s for s in code.slices()[3:] if s.stop == s.start + 1 and "a number as itself" in s.encodes
               and type(record(game.state, s.name.split(".", 1)[0]).get(s.name.split(".", 1)[1])) is int]
    checked = 0
    for s in random.Random(4).sample(numbers, min(12, len(numbers))):
        owner, field = s.name.split(".", 1)
        saved = json.loads(game.to_json())    # the state changed through a save, as a person could
        record(saved, owner)[field] += 7
        after = code.observe(railrules.Game.from_json(ruleset, json.dumps(saved)), None)
        changed = [i for i, (x, y) in enumerate(zip(before, after)) if x != y]
        assert changed == [s.start], s
        checked += 1
    assert checked >= 3


def test_observe_lists_the_slices(capsys):
    from railrules.tools.cli import main
    assert main(["observe", "chicago_express", "--players", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    code = encoding(railrules.load_ruleset("chicago_express"), 3)
    assert out["width"] == code.width and out["slices"] == [vars(s) for s in code.slices()]
    assert main(["observe", "chicago_express", "--players", "3"]) == 0
    text = capsys.readouterr().out
    assert f"({code.width} numbers" in text and all(s.name in text for s in code.slices())


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
    assert all((total[a] > 0) == (env.seat_of[a] in winners) for a in env.possible_agents)


def test_the_import_forms_and_the_agents_names():
    """PettingZoo's import form (``from pettingzoo.classic import chess_v6``) and OpenSpiel's;
    agents are player_0..., the seats' own names in infos; the attribute access still works."""
    pytest.importorskip("pettingzoo", reason='the agents extra is not installed: pip install ".[agents]"')
    pytest.importorskip("pyspiel", reason='the agents extra is not installed: pip install ".[agents]"')
    from railrules.openspiel import game
    from railrules.pettingzoo import env, parallel_env
    assert railrules.pettingzoo.env is env and railrules.openspiel.game is game
    aec = env("chicago_express", players=3)
    assert aec.possible_agents == ["player_0", "player_1", "player_2"]
    aec.reset(seed=3)
    assert [aec.infos[a]["seat"] for a in aec.possible_agents] == ["p1", "p2", "p3"]
    assert aec.infos[aec.agent_selection]["seat"] == aec.game.current_player
    par = parallel_env("chicago_express", players=3)
    assert par.possible_agents == aec.possible_agents and par.metadata["is_parallelizable"]
    assert game("chicago_express", players=3).num_players() == 3


@pytest.mark.parametrize("name", RULESETS)
def test_pettingzoo_parallel_api_test(name):
    pytest.importorskip("pettingzoo", reason='the agents extra is not installed: pip install ".[agents]"')
    from pettingzoo.test import parallel_api_test

    from railrules.pettingzoo import parallel_env
    parallel_api_test(parallel_env(name, players=3), num_cycles=300)


def test_the_parallel_env_plays_the_movers_action_and_matches_the_aec_env():
    """Same seed, same choices: the parallel env ends where the AEC env ends, with the same
    rewards; only the agent to move has a mask, and the others' actions are ignored."""
    np = pytest.importorskip("numpy", reason='the agents extra is not installed: pip install ".[agents]"')
    pytest.importorskip("pettingzoo", reason='the agents extra is not installed: pip install ".[agents]"')
    from railrules.pettingzoo import env, parallel_env
    aec, par = env("chicago_express", players=3), parallel_env("chicago_express", players=3)
    aec.reset(seed=5)
    obs, infos = par.reset(seed=5)
    pick, total = np.random.default_rng(5), dict.fromkeys(aec.possible_agents, 0.0)
    for agent in aec.agent_iter():
        a_obs, reward, terminated, truncated, _ = aec.last()
        total[agent] += reward
        if terminated or truncated:
            aec.step(None)
            continue
        assert infos[agent]["to_move"] == agent
        assert [a for a in obs if obs[a]["action_mask"].any()] == [agent]
        assert np.array_equal(obs[agent]["observation"], a_obs["observation"])
        action = int(pick.choice(np.flatnonzero(a_obs["action_mask"])))
        aec.step(action)
        others = {a: 0 for a in par.agents if a != agent}     # ignored: index 0 may be illegal for them
        obs, rewards, done, _, infos = par.step({agent: action, **others})
    assert not par.agents and all(done.values())
    assert rewards == pytest.approx(total) and par.game.to_json() == aec.game.to_json()
    with pytest.raises(ValueError, match="over"):
        par.step({})


def test_without_views_the_infos_leave_the_view_and_the_words_out_and_nothing_else_changes():
    pytest.importorskip("pettingzoo", reason='the agents extra is not installed: pip install ".[agents]"')
    np = pytest.importorskip("numpy", reason='the agents extra is not installed: pip install ".[agents]"')
    from railrules.pettingzoo import env
    full, bare = env("chicago_express", players=3), env("chicago_express", players=3, views=False)
    full.reset(seed=9)
    bare.reset(seed=9)
    for _ in range(30):
        agent = full.agent_selection
        a, b = full.observe(agent), bare.observe(agent)
        assert np.array_equal(a["observation"], b["observation"]) and np.array_equal(a["action_mask"], b["action_mask"])
        assert full.infos[agent]["view"] == full.game.view(full.infos[agent]["seat"])
        assert "view" not in bare.infos[agent] and "described" not in bare.infos[agent]
        assert {**bare.infos[agent], "view": None, "described": None} == {**full.infos[agent], "view": None, "described": None}
        said = full.infos[agent]["described"]   # each legal action in the game's words, beside its label
        assert [x.split(" — ")[0] for x in said] == full.infos[agent]["legal"] and all(" — " in x for x in said)
        action = int(np.flatnonzero(a["action_mask"])[-1])
        full.step(action)
        bare.step(action)


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


def test_the_adapter_speed_script_measures_every_path():
    pytest.importorskip("pettingzoo", reason='the agents extra is not installed: pip install ".[agents]"')
    pytest.importorskip("pyspiel", reason='the agents extra is not installed: pip install ".[agents]"')
    from railrules.tools.agents.adapter_speed import PATHS, measure
    root = str(rulesets_dir() / "templates" / "coin_race")
    ruleset = railrules.load_ruleset(root)
    for play in PATHS.values():      # every path plays a whole game, one decision a step
        assert play(ruleset, 2, 5) > 3
    r = measure(root, players=2, games=1)
    code = encoding(ruleset, 2)
    assert (r["observation"], r["actions"]) == (code.width, code.size)
    assert set(r["steps_per_second"]) == set(PATHS) and all(v > 0 for v in r["steps_per_second"].values())
    assert r["overhead"]["python API"] == 1.0


# ---------------------------------------------------------------------- OpenSpiel: secret choices
def test_openspiel_plays_sealed_bids_as_a_simultaneous_game():
    pyspiel = pytest.importorskip("pyspiel", reason='the agents extra is not installed: pip install ".[agents]"')
    sequential = railrules.openspiel.game("german_railways", players=3)
    sealed = railrules.openspiel.game("german_railways", players=3, variant="sealed_auctions")
    assert sequential.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert sealed.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert sealed.num_distinct_actions() == sequential.num_distinct_actions() + 1
    assert sealed.labels[-1] == "wait"
    pyspiel.random_sim_test(sealed, num_sims=1, serialize=False, verbose=False)


# Each player in turn names a first bidder; the others (not the first) bid at once, in secret,
# and the winner's revealed bid draws a bonus of 0 or 1 (a draw in the reveal: a chance node).
SECRET_ROUNDS = """\
procedure round(first):
    let bids = {q: 0 for q in players}
    choose secretly by p in [q for q in players where q != first]:
        option bid(x in range(1, p.cash + 1)):
            set bids[p] = x
        option pass:
            pass
    let best = max([bids[q] for q in players])
    if best > 0:
        let w = first([q for q in players where bids[q] == best])
        set w.cash -= best
        draw bonus from [0, 1]
        set w.pot += 1 + bonus

game:
    for first in players:
        call round(first)
    end_game "done"

score p = p.pot * 10 + p.cash
"""


def test_a_round_of_secret_choices_is_one_simultaneous_node(tmp_path):
    pyspiel = pytest.importorskip("pyspiel", reason='the agents extra is not installed: pip install ".[agents]"')
    root = tmp_path / "rounds"
    shutil.copytree(rulesets_dir() / "templates" / "coin_race", root)
    (root / "ruleset.yaml").write_text("name: rounds\ntitle: rounds\nplayers: {min: 2, max: 4}\n"
                                       "rules: [main.rules]\ncomponents: c.yaml\n", encoding="utf-8")
    (root / "c.yaml").write_text("player: {cash: 3, pot: 0}\nkinds: {}\n", encoding="utf-8")
    (root / "main.rules").write_text(SECRET_ROUNDS, encoding="utf-8")
    game = railrules.openspiel.game(str(root), players=3)
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    wait = game.num_distinct_actions() - 1
    state = game.new_initial_state()
    assert state.is_simultaneous_node()
    assert state.legal_actions(0) == [wait]                  # p1 names the first bidder: not asked
    bids = {game.labels[a]: a for a in state.legal_actions(1)}
    assert set(bids) == {"bid 1", "bid 2", "bid 3", "pass"} == {game.labels[a] for a in state.legal_actions(2)}
    with pytest.raises(ValueError, match="not legal for player 1"):
        state.clone().apply_actions([wait, wait, bids["pass"]])
    state.apply_actions([wait, bids["bid 2"], bids["bid 1"]])
    assert state.is_chance_node() and len(state.chance_outcomes()) == 2   # the winner's bonus
    state.apply_action(1)
    assert state.is_simultaneous_node() and state.legal_actions(1) == [wait]
    assert state.clone().game.evaluate("[p2.cash, p2.pot, p3.cash, p3.pot]") == [1, 2, 3, 0]
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)
