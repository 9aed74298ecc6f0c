"""An estimate learned by self-play (tools/bots/learned.py, `railrules learn`), and the greedy
bot's look through its own following decisions."""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from railrules.interpreter import load_ruleset
from railrules.tools.bots import learned
from railrules.tools.bots.players import BotSpecError, GreedyBot, make_bot, seat_bots, play_out
from railrules.tools.cli import main

pytest.importorskip("numpy")

GAME = Path(__file__).parent / "learning_game"   # factories: a naive estimate (cash alone)
SMALL = learned.Settings(games=12, rounds=2)


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RAILRULES_CACHE_DIR", str(tmp_path / "cache"))
    learned._MODELS.clear()


def _copy(tmp_path, name="factories", change=None) -> str:
    root = tmp_path / name
    shutil.copytree(GAME, root)
    if change:
        path = root / "components.yaml"
        path.write_text(path.read_text(encoding="utf-8").replace(*change), encoding="utf-8")
    return str(root)


def _value(model, ruleset, seat_fields: dict, round_: int) -> float:
    game = ruleset.new_game(2, 1)
    for field, value in seat_fields.items():
        game.execute(f"set p1.{field} = {value}")
    game.execute(f"set round = {round_}")
    return model.value(game)["p1"]


def test_a_fit_on_a_tiny_game_recovers_the_value_ordering(tmp_path):
    """A factory early is worth more than the coins it cost (it pays every round after), a
    coin more is worth more, and a factory is worth less late than early."""
    ruleset = load_ruleset(str(GAME))
    model = learned.learn(ruleset, 2, SMALL)
    early_factory = _value(model, ruleset, {"cash": 3, "factories": 1}, 2)
    early_coins = _value(model, ruleset, {"cash": 6, "factories": 0}, 2)
    assert early_factory > early_coins
    assert _value(model, ruleset, {"cash": 7}, 2) > _value(model, ruleset, {"cash": 6}, 2)
    late_factory = _value(model, ruleset, {"cash": 3, "factories": 1}, 9)
    late_coins = _value(model, ruleset, {"cash": 6, "factories": 0}, 9)
    assert late_factory - late_coins < early_factory - early_coins
    assert model.positions > 0 and model.games == SMALL.games * SMALL.rounds


def test_the_model_is_kept_under_the_rules_hash_and_learned_again_when_they_change(tmp_path):
    ruleset = load_ruleset(_copy(tmp_path))
    assert learned.cached(ruleset, 2) is None
    model = learned.learn(ruleset, 2, SMALL)
    kept = learned.cached(ruleset, 2)
    assert kept is not None and kept.weights == model.weights and kept.settings == SMALL
    assert learned.cached(ruleset, 3) is None                     # another player count
    changed = load_ruleset(_copy(tmp_path, "changed", ("rounds: 10", "rounds: 12")))
    assert changed.hash != ruleset.hash
    assert learned.cached(changed, 2) is None                     # changed rules: learn again
    assert learned.cached(load_ruleset(_copy(tmp_path, "same")), 2) is not None  # same content


def test_learned_estimate_mcts_beats_the_naive_estimate(tmp_path):
    """On a game whose estimate is cash alone, mcts standing by the learned estimate outscores
    mcts standing by the naive one, in both seats."""
    ruleset = load_ruleset(str(GAME))
    learned.model(ruleset, 2)          # learned once, as the bots would on first use
    wins = {"learned": 0, "rules": 0}
    for seed in range(4):
        specs = ["mcts:iterations=30:estimate=learned", "mcts:iterations=30:estimate=rules"]
        if seed % 2:
            specs.reverse()
        game = ruleset.new_game(2, seed)
        play_out(game, seat_bots(",".join(specs), game.players, seed))
        for seat, spec in zip(game.players, specs):
            if game.result["winners"] == [seat]:
                wins[spec.rsplit("=", 1)[1]] += 1
    assert wins["learned"] > wins["rules"]


def test_estimate_learned_is_refused_clearly_without_numpy(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "numpy", None)   # import numpy fails, as when not installed
    with pytest.raises(BotSpecError, match=r"needs numpy.*pip install"):
        make_bot("mcts:estimate=learned", 1)
    assert main(["learn", str(GAME), "--players", "2", "--games", "2"]) == 2
    assert "pip install" in capsys.readouterr().err
    # without numpy, mcts on a ruleset without estimate plays as before (random playouts)
    root = _copy(tmp_path)
    rules = Path(root) / "rules" / "game.rules"
    rules.write_text(rules.read_text(encoding="utf-8").replace("estimate p = p.cash\n", ""), encoding="utf-8")
    game = load_ruleset(root).new_game(2, 1)
    assert make_bot("mcts:iterations=5", 1).choose(game) in game.legal_actions()


def test_a_wrong_estimate_setting_is_refused():
    with pytest.raises(BotSpecError, match="estimate must be one of auto, rules, learned"):
        make_bot("greedy:estimate=smart", 1)


def test_mcts_learns_by_default_when_the_ruleset_has_no_estimate(tmp_path):
    root = _copy(tmp_path)
    rules = Path(root) / "rules" / "game.rules"
    rules.write_text(rules.read_text(encoding="utf-8").replace("estimate p = p.cash\n", ""), encoding="utf-8")
    ruleset = load_ruleset(root)
    game = ruleset.new_game(2, 1)
    make_bot("mcts:iterations=5", 1).choose(game)
    assert learned.cached(ruleset, 2) is not None


def test_learn_verb_learns_then_finds_the_kept_model(tmp_path, capsys):
    args = ["learn", _copy(tmp_path), "--players", "2", "--games", "3", "--rounds", "1", "--json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["learned_now"] and first["games"] == 3 and first["positions"] > 0
    assert main(args) == 0
    again = json.loads(capsys.readouterr().out)
    assert not again["learned_now"] and again["positions"] == first["positions"]
    assert main(args[:5] + ["4", "--rounds", "1", "--json"]) == 0      # other settings: learned again
    other = json.loads(capsys.readouterr().out)
    assert other["learned_now"] and other["games"] == 4


# ------------------------------------------------------------------ greedy's own following decisions
TWO_STEP = '''
game:
    cite "Test rules: players take turns until one reaches the goal."
    each p in turn:
        call turn(p)

procedure turn(p):
    cite "Test rules: take a coin now, or open the safe and then take three."
    choose by p:
        option take:
            pay 1 from bank to p
        option open_safe:
            choose by p:
                option empty_safe:
                    pay 3 from bank to p
    if p.cash >= goal:
        end_game "{p} reached {goal}"

score p = p.cash
estimate p = p.cash
'''


def test_greedy_rates_an_action_by_where_its_own_next_decisions_lead(tmp_path):
    """Opening the safe changes nothing by itself; the same player's next decision takes three
    coins. One decision ahead, take (+1) looks best; through the seat's own next decision,
    open_safe does."""
    root = tmp_path / "safe"
    shutil.copytree(load_ruleset("chicago_express").root.parent / "templates" / "coin_race", root)
    (root / "rules" / "game.rules").write_text(TWO_STEP, encoding="utf-8")
    game = load_ruleset(str(root)).new_game(2, 1)
    picks = {GreedyBot(seed).choose(game).name for seed in range(6)}
    assert picks == {"open_safe"}


def test_mcts_with_follow_credits_an_action_by_where_its_own_next_decisions_lead(tmp_path):
    """Two iterations: the root's two actions are each tried once. Credited where the seat's
    own next decision leads (follow), opening the safe (+3 next) beats taking a coin (+1);
    credited as it stands, taking the coin wins."""
    root = tmp_path / "safe"
    shutil.copytree(load_ruleset("chicago_express").root.parent / "templates" / "coin_race", root)
    (root / "rules" / "game.rules").write_text(TWO_STEP, encoding="utf-8")
    game = load_ruleset(str(root)).new_game(2, 1)
    for seat in game.players:    # (from nothing, +1 and +3 lead by the same share of the mean)
        game.execute(f"set {seat}.cash = 4")
    assert {make_bot("mcts:iterations=2:follow=2", s).choose(game).name for s in range(4)} == {"open_safe"}
    assert {make_bot("mcts:iterations=2", s).choose(game).name for s in range(4)} == {"take"}


def test_mcts_with_follow_tries_first_what_greedy_rates_best(tmp_path):
    """One iteration tries only the root's first action: ordered through the seat's own next
    decision (follow), that is opening the safe (+3 next), as greedy rates it; ordered one
    decision ahead alone, taking the coin (+1)."""
    root = tmp_path / "safe"
    shutil.copytree(load_ruleset("chicago_express").root.parent / "templates" / "coin_race", root)
    (root / "rules" / "game.rules").write_text(TWO_STEP, encoding="utf-8")
    game = load_ruleset(str(root)).new_game(2, 1)
    assert {make_bot("mcts:iterations=1:follow=2", s).choose(game).name for s in range(4)} == {"open_safe"}
    assert {make_bot("mcts:iterations=1:follow=0", s).choose(game).name for s in range(4)} == {"take"}
