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
