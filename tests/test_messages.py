"""Messages that used to mislead, each now saying what is wrong and what to write instead
(word for word); the lint corpus holds the same cases (rules_exists_where_and,
rules_chained_comparison, rules_domain_where)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from railrules.interpreter import check_ruleset, load_ruleset
from railrules.tools.author.lint import lint_paths
from railrules.tools.cli import main
from test_language import COMPONENTS_YAML, line_col, write_ruleset

END_RULES = Path(__file__).with_name("end_rules")

GAME = 'game:\n    end_game "done"\n\nscore p = p.cash\n'


def _first(tmp_path, rules: str):
    """The first diagnostic of a ruleset whose main.rules is ``rules``."""
    _, diags = check_ruleset(str(write_ruleset(tmp_path, rules)))
    return diags[0]


def test_a_name_an_exists_bound_before_and_says_where_binds_more_tightly(tmp_path):
    rules = GAME + "\ndef high(xs) = exists x in xs where x.value > 1 and x.value < 9\n"
    d = _first(tmp_path, rules)
    assert (d.code, d.pos.line, d.pos.column) == ("RR102", *line_col(rules, "x.value < 9"))
    assert d.message == ("undefined name 'x': the 'exists x' before it ends at its first condition "
                         "('where' binds more tightly than 'and' and 'or')")
    assert d.hint == "put the whole condition in brackets: exists x in LIST where (A and B)"


def test_the_bracketed_condition_of_an_exists_is_whole(tmp_path):
    rules = GAME + "\nconst high = exists x in tokens where (x.value > 1 and x.value < 4)\n"
    ruleset = load_ruleset(str(write_ruleset(tmp_path, rules)))
    assert ruleset.constants["high"] is True   # blue: 5, red: 3


def test_an_undefined_name_after_an_exists_of_another_name_is_plain(tmp_path):
    rules = GAME + "\ndef high(xs) = exists x in xs where x.value > 1 and y > 2\n"
    d = _first(tmp_path, rules)
    assert (d.code, d.message) == ("RR102", "undefined name 'y'")


@pytest.mark.parametrize("expr, at", [("1 < x < 3", "< 3"), ("x in xs in ys", "in ys"),
                                      ("x == 1 not in xs", "not in")])
def test_a_chained_comparison_says_comparisons_do_not_chain(tmp_path, expr, at):
    rules = GAME + f"\ndef f(x, xs, ys) = {expr}\n"
    d = _first(tmp_path, rules)
    assert (d.code, d.pos.line, d.pos.column) == ("RR101", *line_col(rules, at))
    assert d.message == f"unexpected '{at.split()[0]}': comparisons do not chain"
    assert d.hint == "compare twice and join the two with 'and': write a < b < c as a < b and b < c"


def test_a_filter_on_an_option_domain_points_at_require(tmp_path):
    rules = GAME + ("\nprocedure sell(p):\n    choose by p:\n"
                    "        option sell(t in tokens where t.value > 3):\n            pass\n")
    d = _first(tmp_path, rules)
    assert (d.code, d.pos.line, d.pos.column) == ("RR101", *line_col(rules, "where t.value"))
    assert d.message == "unexpected 'where': an option's domain takes no filter, its values are the whole list"
    assert d.hint == ("give the whole list, and refuse the values you do not want with a require at the "
                      "head of the option's block: require CONDITION else \"the reason\"")


def test_an_entity_without_a_name_is_shown_by_its_id(tmp_path):
    """A board or kind default ``name: null`` leaves an entity with no name: its id, not None."""
    components = COMPONENTS_YAML.replace("blue: {name: Blue, value: 5}", "blue: {name: null, value: 5}")
    rules = 'game:\n    log "{blue} and {red}"\n    end_game "done"\n\nscore p = p.cash\n'
    game = load_ruleset(str(write_ruleset(tmp_path, rules, components))).new_game(1)
    assert list(game.messages)[0] == "blue and Red"


def test_a_scenario_outside_scenarios_runs_on_the_ruleset_above_it(capsys, tmp_path):
    root = tmp_path / "game"
    shutil.copytree(END_RULES, root)
    (root / "checks").mkdir()
    moved = root / "checks" / "cut_short.yaml"
    (root / "scenarios" / "cut_short_pays_nothing.yaml").rename(moved)
    assert main(["test", str(moved)]) == 0
    assert "1 passed, 0 failed" in capsys.readouterr().out


def test_a_scenario_with_no_ruleset_above_it_says_what_is_expected(capsys, tmp_path):
    alone = tmp_path / "cut_short.yaml"
    shutil.copy(END_RULES / "scenarios" / "cut_short_pays_nothing.yaml", alone)
    assert main(["test", str(alone)]) == 2
    assert capsys.readouterr().err == (
        f"railrules test: no ruleset.yaml in the folders above the scenario '{alone}': a scenario runs "
        "on the ruleset whose folder holds it (RULESET/scenarios/NAME.yaml)\n")


IGNORED = """\
game:
    cite "The rulebook: count, then end."
    set countr += 1  # lint: ignore[RR102]
    end_game "done"

score p = p.cash

metric m = counter + true  # lint: ignore[RR110]
"""


def test_an_ignore_cannot_silence_an_error_with_which_the_ruleset_does_not_load(tmp_path):
    root = write_ruleset(tmp_path, IGNORED)
    for diags in (lint_paths([str(root)]), lint_paths([str(root)], ignore=["RR102", "RR110"])):
        assert [(d.code, d.pos.line) for d in diags] == [("RR102", 3)]
        assert diags[0].hint == ("did you mean 'counter'?; an ignore cannot silence this error: the ruleset "
                                 "does not load with it (play, test and simulate refuse it)")


def test_an_ignore_silences_an_error_only_lint_finds(tmp_path):
    root = write_ruleset(tmp_path, IGNORED.replace("countr", "counter"))
    assert lint_paths([str(root)]) == []
    assert load_ruleset(str(root)).name == "tiny"


def test_the_language_server_shows_an_ignored_error_with_which_the_ruleset_does_not_load(tmp_path):
    from railrules.tools.author.lsp import Rules
    root = write_ruleset(tmp_path, IGNORED).resolve()
    rules = root / "main.rules"
    edited = IGNORED.replace("end_game", "set countr += 2  # lint: ignore\n    end_game")  # unsaved
    found = Rules(root).check({rules: edited})
    assert [(d.code, d.pos.line) for d in found[rules]] == [("RR102", 3), ("RR102", 4)]
    assert all("an ignore cannot silence this error" in d.hint for d in found[rules])
    assert Rules(root).check({rules: edited.replace("countr", "counter")}) == {}


def test_a_definition_that_does_not_parse_leaves_nothing_looking_unreached(tmp_path):
    """The definition with the syntax error used ``pay_bonus``: lint says nothing of reachability
    (RR108) until it parses, rather than that ``pay_bonus`` is never reached."""
    bonus = '\nprocedure pay_bonus(p):\n    cite "a bonus"\n    set p.cash += 1\n'
    rules = GAME.replace('    end_game "done"', '    call bonus(first(players))\n    end_game "done"') + (
        "\nprocedure bonus(p):\n    choose by p:\n"
        "        option take(t in tokens where t.value > 3):\n            call pay_bonus(p)\n"
        "        option skip:\n            pass\n" + bonus)
    _, diags = check_ruleset(str(write_ruleset(tmp_path / "broken", rules)))
    assert "RR101" in [d.code for d in diags] and "RR108" not in [d.code for d in diags]
    _, diags = check_ruleset(str(write_ruleset(tmp_path / "unused", GAME + bonus)))
    assert "RR108" in [d.code for d in diags]          # without a syntax error, it is said


def test_a_game_that_never_ends_says_what_to_look_for_at_the_game_block(tmp_path):
    from test_language import with_limits
    rules = "game:\n    while true:\n        choose by first(players):\n            option wait:\n                pass\n\nscore p = p.cash\n"
    game = load_ruleset(str(write_ruleset(tmp_path, rules, ruleset=with_limits(decisions=5)))).new_game(1)
    from railrules.interpreter import RulesRuntimeError
    with pytest.raises(RulesRuntimeError) as caught:
        for _ in range(6):
            game.apply("wait")
    d = caught.value.diagnostics[0]
    assert d.code == "RR303" and (d.pos.file.endswith("main.rules"), d.pos.line) == (True, 1)
    assert d.message == ("the game did not end within 5 decisions: does every way through the rules reach "
                         "an end_game, or a check_end whose end conditions can come true?")
    assert "limits.decisions" in d.hint


def test_a_rule_that_fails_is_named_as_the_rules_name_it(tmp_path):
    rules = ("game:\n    call pay_out(first(players))\n    end_game \"done\"\n\nprocedure pay_out(p):\n"
             "    pay 9 from p to bank\n\nscore p = p.cash\n")
    components = COMPONENTS_YAML.replace("kinds:", "kinds:\n  banks: {entities: {bank: {cash: 0}}}", 1)
    from railrules.interpreter import RulesRuntimeError
    with pytest.raises(RulesRuntimeError) as caught:
        load_ruleset(str(write_ruleset(tmp_path, rules, components))).new_game(1)
    assert caught.value.diagnostics[0].message.startswith("in procedure pay_out: ")


def test_unit_titles_read_as_the_rules_are_written():
    from railrules.interpreter.engine.machine import unit_title
    assert [unit_title(k) for k in ("proc:turn", "proc:after turn #2", "proc:turn (base)", "action:sell",
                                    "on:built:1", "game")] == \
        ["procedure turn", "after turn #2", "procedure turn (base)", "action sell", "on built", "game"]


def test_an_overlay_extends_a_bare_name_as_a_shipped_ruleset_wherever_it_is_run(tmp_path, monkeypatch):
    """``extends: NAME`` is a shipped ruleset (or a folder beside the overlay): not a folder of
    the working folder, which would make the overlay load in one place and not in another; the
    hint gives the path that names the folder beside it."""
    base = write_ruleset(tmp_path / "mine", GAME)
    over = tmp_path / "over"
    over.mkdir()
    (over / "ruleset.yaml").write_text("name: over\nextends: mine\ndescription: x\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)               # where a folder 'mine' is found by the working folder
    _, diags = check_ruleset(str(over))
    assert [(d.code, d.hint) for d in diags] == [("RR213", "a folder is named by its path from this one: "
                                                  "extends: ../mine")]
    (over / "ruleset.yaml").write_text("name: over\nextends: ../mine\ndescription: x\n", encoding="utf-8")
    assert [d.code for d in check_ruleset(str(over))[1] if d.severity == "error"] == [] and base.is_dir()
