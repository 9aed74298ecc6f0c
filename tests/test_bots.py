"""Bots (issue 12): the ruleset's estimate, bot specs, greedy and MCTS choices, and that a bot
decides only on what its seat may see."""
from __future__ import annotations

import json
import random
import shutil

import pytest

from railrules.interpreter import load_ruleset
from railrules.interpreter.errors import RulesetError, RulesRuntimeError
from railrules.interpreter.paths import rulesets_dir
from railrules.interpreter.runtime.rationals import Fraction
from railrules.tools.bots import BotSpecError, GreedyBot, MctsBot, make_bot, seat_bots
from railrules.tools.cli import main
from railrules.tools.search import imagine, standings


def _coin_race(tmp_path, estimate: str | None = "estimate p = p.cash", extra: str = ""):
    """The coin race template (take 1-3 coins, first to the goal wins), with an estimate."""
    root = tmp_path / "coin_race"
    shutil.copytree(rulesets_dir() / "templates" / "coin_race", root)
    rules = root / "rules" / "game.rules"
    rules.write_text(rules.read_text(encoding="utf-8") + (f"\n{estimate}\n" if estimate else "") + extra,
                     encoding="utf-8")
    return root


def _mid_game(name, players, decisions, seed=1):
    game = load_ruleset(name).new_game(players, seed)
    rng = random.Random(seed)
    while game.decisions < decisions and not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    return game


# ------------------------------------------------------------------ estimate
@pytest.mark.parametrize("name", ["chicago_express", "german_railways", "stephensons_rocket"])
def test_every_shipped_ruleset_has_an_estimate_that_is_a_number(name):
    game = _mid_game(name, 3, 60)
    for p in game.players:
        value = game.estimate(p)
        assert isinstance(value, (int, Fraction)) and not isinstance(value, bool)
        assert value >= game.state["entities"][p]["cash"]  # cash plus what holdings will bring


def test_estimate_is_none_without_one_and_the_score_once_over(tmp_path):
    game = load_ruleset(str(_coin_race(tmp_path, None))).new_game(2, 1)
    assert game.estimate("p1") is None
    rng = random.Random(1)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    assert [game.estimate(p) for p in game.players] == [game.result["scores"][p] for p in game.players]


def test_a_failing_estimate_says_where(tmp_path):
    game = load_ruleset(str(_coin_race(tmp_path, "estimate p = p.cash // 0"))).new_game(2, 1)
    with pytest.raises(RulesRuntimeError) as err:
        game.estimate("p1")
    d = err.value.diagnostics[0]
    assert d.code == "RR302" and d.pos.line > 1 and d.pos.file.endswith("game.rules")


def test_two_estimates_are_refused(tmp_path):
    root = _coin_race(tmp_path, "estimate p = p.cash\nestimate q = 0")
    with pytest.raises(RulesetError) as err:
        load_ruleset(str(root))
    assert "RR103" in {d.code for d in err.value.diagnostics}


def test_estimate_is_a_keyword(tmp_path):
    root = _coin_race(tmp_path, "def estimate(x) = x")
    with pytest.raises(RulesetError):
        load_ruleset(str(root))


def test_standings_rank_the_seats_by_estimate(tmp_path):
    game = load_ruleset(str(_coin_race(tmp_path))).new_game(3, 1)
    game.execute("set p1.cash = 5")
    game.execute("set p2.cash = 2")
    game.execute("set p3.cash = 2")
    assert standings(game) == {"p1": 1.0, "p2": 0.25, "p3": 0.25}


# ------------------------------------------------------------------ specs
@pytest.mark.parametrize("spec, words", [
    ("clever", "no bot 'clever'"), ("mcts:foo=1", "no setting 'foo=1'"),
    ("mcts:iterations=many", "iterations must be a int"), ("mcts:iterations=0", "at least 1"),
    ("greedy:playouts", "no setting 'playouts'"), ("random:seconds=1", "its settings: none"),
])
def test_a_wrong_bot_spec_says_what_is_wrong(spec, words):
    with pytest.raises(BotSpecError, match=words):
        make_bot(spec, 1)


def test_specs_give_settings_and_one_bot_per_seat():
    bot = make_bot("mcts:iterations=7:depth=0:explore=1.5", 1)
    assert (bot.search.iterations, bot.search.depth, bot.search.explore) == (7, 0, 1.5)
    seats = seat_bots("greedy,random", ["p1", "p2"], 5)
    assert isinstance(seats["p1"], GreedyBot) and type(seats["p2"]).__name__ == "RandomBot"
    one = seat_bots("random", ["p1", "p2"], 5)
    assert one["p1"] is one["p2"]
    with pytest.raises(BotSpecError, match="3 bots for 2 seats"):
        seat_bots("random,random,random", ["p1", "p2"], 5)


def test_the_command_refuses_a_wrong_spec_without_a_traceback(capsys):
    with pytest.raises(SystemExit) as stop:  # argparse: usage, then the message
        main(["simulate", "chicago_express", "--bots", "mcts:turbo=1", "--games", "1"])
    assert stop.value.code == 2 and "no setting 'turbo=1'" in capsys.readouterr().err
    assert main(["simulate", "chicago_express", "--bots", "random,random", "--games", "1",
                 "--players", "3"]) == 2
    assert "2 bots for 3 seats" in capsys.readouterr().err


# ------------------------------------------------------------------ choices
def test_greedy_takes_the_action_its_estimate_rates_best(tmp_path):
    game = load_ruleset(str(_coin_race(tmp_path))).new_game(2, 1)
    assert make_bot("greedy", 1).choose(game).label == "take 3"
    game.execute("set p1.cash = 8")  # 2 reach the goal of 10 and win: better than any other
    assert make_bot("greedy", 1).choose(game).label == "take 2"


def test_greedy_without_an_estimate_plays_the_actions_out(tmp_path):
    game = load_ruleset(str(_coin_race(tmp_path, None))).new_game(2, 1)
    game.execute("set p1.cash = 7")  # taking 3 wins at once; anything else lets p2 play on
    assert make_bot("greedy", 1).choose(game).label == "take 3"


def test_mcts_beats_random_players_at_the_coin_race(tmp_path):
    ruleset = load_ruleset(str(_coin_race(tmp_path, extra="")))
    wins = 0
    for i in range(12):
        game = ruleset.new_game(2, i)
        seat = game.players[i % 2]
        bots = {p: make_bot("mcts:iterations=60" if p == seat else "random", 100 + i) for p in game.players}
        while not game.is_over:
            game.apply(bots[game.current_player].choose(game))
        wins += seat in game.result["winners"]
    assert wins >= 10


def test_same_seed_same_choice():
    game = _mid_game("chicago_express", 3, 30)
    picks = {make_bot("mcts:iterations=30", 9).choose(game) for _ in range(2)}
    assert len(picks) == 1 and picks <= set(game.legal_actions())


# ------------------------------------------------------------------ what a bot may see
def _with_other_cash(game, seat, amount):
    """The same game with every other player's (secret) cash set to ``amount``."""
    other = game.clone()
    ents = other.state["entities"]
    for p in other.players:
        if p != seat:
            ents[p] = {**ents[p], "cash": amount}
    return other


def test_an_imagined_game_does_not_depend_on_what_the_seat_cannot_see():
    game = _mid_game("stephensons_rocket", 3, 40)
    seat = game.current_player
    rich, poor = _with_other_cash(game, seat, 90000), _with_other_cash(game, seat, 0)
    assert rich.view(seat) == poor.view(seat)
    a = imagine(rich, seat, random.Random(3))
    b = imagine(poor, seat, random.Random(3))
    assert json.dumps(a.state, sort_keys=True) == json.dumps(b.state, sort_keys=True)
    assert a.state["rng"] != rich.state["rng"]  # the future of chance is drawn afresh
    own = game.state["entities"][seat]["cash"]
    assert all(a.state["entities"][p]["cash"] == own for p in game.players)
    assert rich.state["entities"][game.players[(game.players.index(seat) + 1) % 3]]["cash"] == 90000


@pytest.mark.parametrize("spec", ["greedy", "mcts:iterations=25"])
def test_a_bots_choice_does_not_change_with_hidden_information(spec):
    game = _mid_game("stephensons_rocket", 3, 40)
    seat = game.current_player
    picks = {make_bot(spec, 4).choose(_with_other_cash(game, seat, cash)) for cash in (0, 5000, 90000)}
    assert len(picks) == 1


def test_simulate_times_each_bot_and_counts_every_choice(chicago):
    from railrules.tools.simulate import simulate
    r = simulate(chicago, 2, 5, 3, "greedy,random,random")
    assert set(r["bots"]) == {"greedy", "random"}
    # every decision was one bot's choice; each bot's time is its own
    assert sum(b["choices"] for b in r["bots"].values()) == r["decisions_mean"] * r["finished"]
    assert all(b["seconds_per_game"] > 0 for b in r["bots"].values())
    forced = simulate(chicago, 2, 5, 3, "random", forced=True)
    assert forced["bots"]["random"]["choices"] < forced["decisions_mean"] * forced["finished"]


# ------------------------------------------------------------------ how the search ranks and credits
def test_credits_are_standings_with_a_bounded_lead_that_breaks_ties(tmp_path):
    from railrules.tools.search import credits
    game = load_ruleset(str(_coin_race(tmp_path))).new_game(3, 1)
    game.execute("set p1.cash = 9")
    game.execute("set p2.cash = 1")
    game.execute("set p3.cash = 0")
    assert credits(game, 0.0) == standings(game)
    near, far = credits(game, 0.5), None
    assert all(0 <= v <= 1 for v in near.values())
    assert near["p1"] > near["p2"] > near["p3"]
    game.execute("set p2.cash = 0")
    far = credits(game, 0.5)
    # p2 and p3 both trail p1 (rank alone: the same for both games); the lead term tells that p2
    # trails by less in the first
    assert standings(game)["p2"] == 0.25 and near["p2"] > far["p2"]


@pytest.mark.parametrize("cash, best", [(0, "take 3"), (8, "take 2")])
def test_mcts_tries_first_what_a_one_decision_look_ahead_rates_best(tmp_path, cash, best):
    game = load_ruleset(str(_coin_race(tmp_path))).new_game(2, 1)
    game.execute(f"set p1.cash = {cash}")
    for seed in range(5):
        assert make_bot("mcts:iterations=1", seed).choose(game).label == best
        assert make_bot("mcts:iterations=3", seed).choose(game).label == best
    # without the ranking (widen=0) one iteration tries a random action
    picks = {make_bot("mcts:iterations=1:widen=0", seed).choose(game).label for seed in range(12)}
    assert len(picks) > 1


@pytest.mark.parametrize("name", ["baltimore_ohio", "chicago_express", "stephensons_rocket"])
def test_with_one_iteration_mcts_plays_as_greedy_rates(name):
    from railrules.tools.search import rating
    game = _mid_game(name, 3, 40)
    while len(game.legal_actions()) < 2:
        game.apply(game.legal_actions()[0])
    seat = game.current_player

    def rated(action):
        after = game.clone()
        after.apply(action)
        return rating(after, seat)
    top = max(rated(a) for a in game.legal_actions())
    assert rated(make_bot("mcts:iterations=1", 3).choose(game)) == top


def test_mcts_is_the_same_for_the_same_seed_with_every_setting():
    game = _mid_game("baltimore_ohio", 3, 40)
    for spec in ("mcts:iterations=40", "mcts:iterations=40:depth=4:lead=0:widen=0"):
        assert len({make_bot(spec, 5).choose(game) for _ in range(3)}) == 1


def test_lead_must_be_a_weight():
    with pytest.raises(BotSpecError, match="between 0 and 1"):
        make_bot("mcts:lead=2", 1)
