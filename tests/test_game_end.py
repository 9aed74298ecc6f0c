"""The rules of the game's end (``on game_end``) and an end condition's name read as a value,
played on the test ruleset ``tests/end_rules`` (a secret objective card shown at the end, its
bonus paid after a full game only) and on small broken rules."""
from __future__ import annotations

from pathlib import Path

import pytest

from railrules.interpreter import Game, check_ruleset, load_ruleset
from railrules.tools.author.lint import lint_paths
from railrules.tools.author.scenarios import run_scenario, scenario_files
from test_language import COMPONENTS_YAML, errors_of, line_col, write_ruleset

END_RULES = Path(__file__).with_name("end_rules")


@pytest.fixture(scope="module")
def ruleset():
    return load_ruleset(str(END_RULES))


def test_the_test_ruleset_lints_clean():
    assert [str(d) for d in lint_paths([str(END_RULES)])] == []


@pytest.mark.parametrize("path", scenario_files(END_RULES), ids=lambda p: p.stem)
def test_the_scenarios_of_the_end_pass(path):
    result = run_scenario(str(END_RULES), path)
    assert result.passed, "\n".join(str(f) for f in result.failures)
    assert result.steps > 0


def _full_game(ruleset) -> Game:
    game = ruleset.new_game(2, seed=2)
    for _ in range(5):
        game.apply("take 1")
    return game


def test_the_end_rules_run_after_the_end_and_before_the_scores(ruleset):
    game = _full_game(ruleset)
    assert game.view("p2")["entities"]["p1"]["objective"] == "hidden"
    assert not game.evaluate("after_last_round"), "the game has not ended yet"
    shown = len(game.messages)
    game.apply("take 1")
    assert list(game.messages)[shown:] == [
        "Player 2 takes 1", "game over (after_last_round)",
        "Player 1 shows objective card 2", "Player 1 receives the bonus of 2",
        "Player 2 shows objective card 3", "Player 2 receives the bonus of 3"]
    # the bonuses count in the scores: 3 coins taken each, then 2 and 3
    assert game.result == {"reasons": ["after_last_round"], "scores": {"p1": 5, "p2": 6}, "winners": ["p2"]}
    assert game.view("p2")["entities"]["p1"]["shown"] == 2
    assert game.view("p2")["entities"]["p1"]["objective"] == "hidden"


def test_a_guarded_end_rule_runs_only_when_its_condition_holds(ruleset):
    game = ruleset.new_game(2, seed=2)
    for label in ["take 2", "take 1", "take 2", "take 1", "take 2"]:
        game.apply(label)
    assert game.result["reasons"] == ["someone_rich"]
    assert list(game.messages)[-4:] == [
        "game over (someone_rich)", "Player 1 shows objective card 2",
        "Player 2 shows objective card 3", "the game was cut short: no objective is paid"]
    assert game.result["scores"] == {"p1": 6, "p2": 2}


def test_undo_puts_back_what_the_end_rules_changed(ruleset):
    game = _full_game(ruleset)
    before = game.to_json()
    game.apply("take 1")
    assert game.is_over and game.evaluate("p1.shown") == 2
    game.undo(1)
    assert not game.is_over and game.evaluate("p1.shown") is None
    assert game.to_json() == before


END_GAME = """\
game:
    end_game "done"

score p = p.cash
"""


@pytest.mark.parametrize("rules, needle, code", [
    # a choice after the end: nobody is asked any more
    (END_GAME + "\non game_end:\n    choose by players[0]:\n        option ok:\n            pass\n",
     "choose by", "RR105"),
    # ... nor through a procedure it calls (reported at the call)
    (END_GAME + "\non game_end:\n    call ask()\n\nprocedure ask():\n    choose by players[0]:\n"
     "        option ok:\n            pass\n", "call ask", "RR105"),
    (END_GAME + "\non game_end:\n    check_end\n", "check_end", "RR105"),
    (END_GAME + "\non game_end(reason):\n    pass\n", "on game_end", "RR104"),
    ('game:\n    emit game_end()\n    end_game "done"\n\nscore p = p.cash\n', "emit", "RR105"),
])
def test_end_rules_that_cannot_run_are_refused_where_they_are_written(tmp_path, rules, needle, code):
    diags = errors_of(write_ruleset(tmp_path, rules))
    assert [(d.code, d.pos.line, d.pos.column) for d in diags] == [(code, *line_col(rules, needle))], \
        [str(d) for d in diags]


def test_an_end_condition_name_misspelt_is_rr102_with_the_name_meant(tmp_path):
    rules = END_GAME + "\nend_condition out_of_time: counter > 3\n\nmetric by_time = out_of_tme\n"
    diags = errors_of(write_ruleset(tmp_path, rules))
    assert [(d.code, d.hint) for d in diags] == [("RR102", "did you mean 'out_of_time'?")]


def test_an_end_condition_name_is_a_true_false_value_to_the_type_check(tmp_path):
    rules = END_GAME + "\nend_condition out_of_time: counter > 3\n\nmetric m = out_of_time + 1\n"
    _, diags = check_ruleset(str(write_ruleset(tmp_path, rules)))
    assert [d.code for d in diags if d.severity == "error"] == ["RR110"], [str(d) for d in diags]


def test_a_metric_and_the_score_read_why_the_game_ended(tmp_path):
    rules = """\
game:
    set counter = 5
    check_end
    end_game "never"

end_condition out_of_time: counter > 3
end_condition never: false

score p = 10 if out_of_time else 0
metric by_time = out_of_time
metric by_never = never
"""
    game = load_ruleset(str(write_ruleset(tmp_path, rules, COMPONENTS_YAML))).new_game(1)
    assert game.result["reasons"] == ["out_of_time"] and game.result["scores"] == {"p1": 10}
    assert game.metrics() == {"by_time": True, "by_never": False}

