"""Scenario tests kept as data: every ``rulesets/*/scenarios/*.yaml`` of every shipped ruleset
is one test; a failing scenario reports its failures with their file:line:column."""
from __future__ import annotations

from pathlib import Path

import pytest

from railrules.interpreter import load_ruleset
from railrules.interpreter.data.yaml_source import load_yaml
from railrules.interpreter.errors import Sink
from railrules.interpreter.paths import rulesets_dir, shipped_rulesets
from railrules.tools.author.scenarios import run_scenario, scenario_files


def _all_scenarios() -> list:
    out = []
    for name in shipped_rulesets():
        for path in scenario_files(rulesets_dir() / name):
            out.append(pytest.param(name, path, id=f"{name}/{path.stem}"))
    return out


SCENARIOS = _all_scenarios()
_CACHE: dict = {}   # compiled rulesets shared by the scenarios of one run


def test_scenarios_are_discovered():
    names = {p.values[0] for p in SCENARIOS}
    assert "chicago_express" in names, "no scenario found for chicago_express"


@pytest.mark.parametrize(("ruleset", "path"), SCENARIOS)
def test_scenario(ruleset: str, path: Path):
    result = run_scenario(ruleset, path, _CACHE)
    if not result.passed:
        pytest.fail(f"{result.description}\n" + "\n".join(str(f) for f in result.failures),
                    pytrace=False)
    assert result.steps > 0


WRONG = """\
description: "a deliberately wrong expectation: the runner must report it"
players: 3
seed: 1
steps:
  - do: "bid 7; pass; pass"
  - expect: "p1.shares[PRR] == 1"
  - expect: "p1.cash == 41"
  - expect: "p1.cash == 33"
"""


def test_wrong_expectation_is_a_failure_with_its_line(tmp_path: Path):
    path = tmp_path / "wrong.yaml"
    path.write_text(WRONG, encoding="utf-8")
    result = run_scenario("chicago_express", path)
    assert not result.passed
    assert len(result.failures) == 1
    failure = result.failures[0]
    assert failure.code == "RR306"
    assert failure.pos.file == str(path)
    assert failure.pos.line == 7            # the line of `- expect: "p1.cash == 41"`
    assert "p1.cash == 41" in failure.message and "33" in failure.message
    assert f"{path}:7:" in str(failure.pos)
    # the runner stops at the first failure: the (true) step after it is not run
    assert result.steps == 3


def test_refused_action_and_wrong_reason_are_failures(tmp_path: Path):
    path = tmp_path / "refused.yaml"
    path.write_text(
        'description: "refusals"\nplayers: 3\nsteps:\n'
        '  - do: "bid 6"\n', encoding="utf-8")
    result = run_scenario("chicago_express", path)
    assert not result.passed and result.failures[0].pos.line == 4
    assert "'bid 6' was refused" in result.failures[0].message

    path.write_text(
        'description: "wrong reason"\nplayers: 3\nsteps:\n'
        '  - illegal: "bid 6"\n    reason: "no such reason"\n', encoding="utf-8")
    result = run_scenario("chicago_express", path)
    assert not result.passed and result.failures[0].pos.line == 4


def test_tied_richest_players_share_the_victory():
    """The scenario format can check `over` but not the winners: replay end_house_supply.yaml
    and read the result ("In caso di parità i giocatori in questione vincono a pari merito")."""
    path = rulesets_dir() / "chicago_express" / "scenarios" / "end_house_supply.yaml"
    data, _ = load_yaml(path.read_text(encoding="utf-8"), str(path), Sink())
    game = load_ruleset("chicago_express").new_game(data["players"], data.get("seed", 0))
    for step in data["steps"]:
        if "do" in step:
            for label in [x.strip() for x in step["do"].split(";") if x.strip()]:
                game.apply(label)
        elif "set" in step:
            game.execute(step["set"])
    assert game.is_over
    assert game.result["scores"] == {"p1": 40, "p2": 40, "p3": 38}
    assert game.result["winners"] == ["p1", "p2"]
    assert game.result["reasons"] == ["house_supply_low"]


def test_a_scenario_may_not_name_a_variant_file(tmp_path: Path):
    """Scenarios are a ruleset's own data (maybe a stranger's): a variant there is a name of the
    ruleset's variants/ folder, never a file elsewhere, which --variant PATH alone may read."""
    outside = tmp_path / "outside.yaml"
    outside.write_text('description: "x"\nconstants:\n  house_end_threshold: 9\n', encoding="utf-8")
    path = tmp_path / "s.yaml"
    path.write_text(f'description: "x"\nplayers: 3\nvariant: "{outside}"\nsteps:\n'
                    '  - expect: "house_end_threshold == 9"\n', encoding="utf-8")
    result = run_scenario("chicago_express", path)
    assert not result.passed and result.steps == 0
    assert result.failures[0].code == "RR205" and result.failures[0].pos.line == 3


def test_a_logged_step_passes_on_a_line_of_the_log_and_says_the_last_lines_when_none_holds_it(tmp_path: Path):
    path = tmp_path / "s.yaml"
    path.write_text('description: "x"\nplayers: 3\nsteps:\n  - do: "bid 7"\n'
                    '  - logged: "Player 1 bids 7"\n  - logged: "Player 1 bids 7"\n    seat: p2\n'
                    '  - logged: "Player 1 bids 8"\n', encoding="utf-8")
    result = run_scenario("chicago_express", path)
    assert [f.pos.line for f in result.failures] == [8]
    assert "'Player 1 bids 8' should be in an onlooker's log" in result.failures[0].message
    assert "'Player 1 bids 7'" in result.failures[0].message   # the last lines, to compare


def test_an_illegal_step_after_the_end_says_the_game_is_over(tmp_path: Path):
    """A scenario (or a mutant of its rules) that ends the game before an ``illegal:`` step gets a
    failure or a pass, never an internal error: with no choice pending, the reason is the end."""
    path = tmp_path / "s.yaml"
    path.write_text('description: "x"\nplayers: 2\nseed: 1\nsteps:\n  - set: "pay 9 from bank to p1"\n'
                    '  - do: "take 1"\n  - over: true\n'
                    '  - illegal: "take 1"\n    reason: "the game is over"\n'
                    '  - illegal: "take 2"\n    reason: "no"\n', encoding="utf-8")
    result = run_scenario(str(rulesets_dir() / "templates" / "coin_race"), path)
    assert [f.pos.line for f in result.failures] == [10]
    assert "refused with 'the game is over'" in result.failures[0].message
