"""`railrules test --mutate`: the mutants planted (where, what) and the verdicts on a small ruleset
whose one scenario pins the share price and nothing of the end."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from railrules.tools.author.mutants import _rules_mutants, _yaml_mutants, yaml_name
from railrules.tools.author.mutate import KILLED, SURVIVED, mutate, text_report

CORPUS = Path(__file__).parent / "lint_corpus" / "base"


def _edits(text: str) -> list[tuple]:
    return [(m.line, m.kind, m.before, m.after) for m in _rules_mutants(Path("x.rules"), "x.rules", text)]


@pytest.mark.parametrize("line, expected", [
    ("    require p.cash >= 2 else \"need 2 > 1\"", [
        (1, "comparison", ">=", ">"), (1, "number", "2", "3"), (1, "number", "2", "1"),
        (1, "require dropped", 'require p.cash >= 2 else "need 2 > 1"', "")]),
    ("    set x += 10  # costs 3 < 4", [(1, "number", "10", "11"), (1, "number", "10", "9")]),
    ("    if a == b and c != 0:", [
        (1, "comparison", "==", "!="), (1, "comparison", "!=", "=="), (1, "number", "0", "1"),
        (1, "and/or", "and", "or"), (1, "condition negated", "a == b and c != 0", "not (a == b and c != 0)")]),
    ("    cite \"Rulebook, page 3: at most 2\"", []),
    ("# a comment with 3 < 4 and 5", []),
    ("def f(p1, h) = h.cost * 0.5 + B4", []),   # names with digits and a decimal are left alone
])
def test_the_edits_planted_in_a_line(line, expected):
    assert _edits(line) == expected


def test_a_dropped_require_takes_its_continuation_and_keeps_every_line_where_it_was():
    text = "action a by p:\n    require p.cash > 0\n        else \"no\"\n    pay 1 from p to bank\n"
    dropped = [m for m in _rules_mutants(Path("x.rules"), "x.rules", text) if m.kind == "require dropped"]
    assert len(dropped) == 1
    assert dropped[0].text.split("\n") == ["action a by p:", "", "", "    pay 1 from p to bank", ""]
    assert dropped[0].definition == "action a"


def test_yaml_numbers_are_edited_in_place_with_the_name_the_rules_read():
    text = "constants:\n  start: {\"2\": 60, \"3\": 40}  # 99\nkinds:\n  companies:\n    entities:\n" \
           "      Red: {income: 7, name: \"7 up\"}\n"
    found = _yaml_mutants(Path("components.yaml"), "components.yaml", text)
    assert [(m.line, m.before, m.after, m.definition) for m in found] == [
        (2, "60", "61", "components.constants.start.2"), (2, "60", "59", "components.constants.start.2"),
        (2, "40", "41", "components.constants.start.3"), (2, "40", "39", "components.constants.start.3"),
        (6, "7", "8", "components.kinds.companies.entities.Red.income"),
        (6, "7", "6", "components.kinds.companies.entities.Red.income")]
    assert found[4].text.split("\n")[5] == "      Red: {income: 8, name: \"7 up\"}"
    assert [yaml_name(m.definition) for m in found[::2]] == ["start", "start", "income"]


@pytest.fixture
def small_game(tmp_path):
    """The lint corpus base with one scenario: a share costs the share price (2)."""
    root = tmp_path / "small"
    shutil.copytree(CORPUS, root)
    (root / "scenarios").mkdir()
    (root / "scenarios" / "share_price.yaml").write_text(
        'description: "a share costs the share price, 2"\nplayers: 2\nseed: 1\nsteps:\n'
        '  - do: "buy Red"\n  - expect: "p1.cash == 8"\n  - expect: "p1.shares[Red] == 1"\n',
        encoding="utf-8")
    return root


def _verdicts(report) -> dict:
    return {(o.mutant.shown, o.mutant.line, o.mutant.before, o.mutant.after): o.verdict for o in report.outcomes}


def test_the_scenario_kills_what_it_pins_and_the_end_survives(small_game):
    report = mutate(str(small_game), budget=None)
    verdicts = _verdicts(report)
    assert verdicts[("components.yaml", 5, "2", "3")] == KILLED          # share_price: 2
    assert verdicts[("components.yaml", 3, "10", "11")] == KILLED        # start_cash: 10
    assert verdicts[("rules/game.rules", 29, ">=", ">")] == SURVIVED     # the end: no scenario
    assert verdicts[("rules/game.rules", 29, "3", "4")] == SURVIVED
    assert report.score is not None and 0 < report.score < 1
    text = text_report(report)
    assert "end_condition big_network" in text and "rules/game.rules:29: comparison '>=' -> '>'" in text
    assert text.splitlines()[-1].startswith("mutation score ")


def test_seeded_games_kill_what_the_scenarios_miss(small_game):
    without = _verdicts(mutate(str(small_game), budget=None))
    with_games = _verdicts(mutate(str(small_game), budget=None, games=6))
    assert with_games[("rules/game.rules", 29, "3", "4")] == KILLED     # random games reach the end
    assert sum(v == KILLED for v in with_games.values()) > sum(v == KILLED for v in without.values())
    # a game never kills what the scenarios killed: the games only add
    assert all(with_games[k] == KILLED for k, v in without.items() if v == KILLED)


def test_a_budget_draws_the_same_mutants_for_the_same_seed(small_game):
    a = mutate(str(small_game), budget=5, seed=3)
    b = mutate(str(small_game), budget=5, seed=3)
    assert len(a.outcomes) == 5 and _verdicts(a) == _verdicts(b)
    assert a.planted > 5


def test_the_command_prints_json_and_refuses_a_wrong_call(small_game):
    done = subprocess.run([sys.executable, "-m", "railrules", "test", str(small_game), "--mutate", "--budget", "4",
                           "--json"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["judged"] == 4 and len(data["mutants"]) == 4
    assert {m["verdict"] for m in data["mutants"]} <= {"killed", "survived", "not lint clean"}
    wrong = subprocess.run([sys.executable, "-m", "railrules", "test", str(small_game), str(small_game),
                            "--mutate"], capture_output=True, text=True, timeout=120)
    assert wrong.returncode == 2 and "--mutate takes one ruleset" in wrong.stderr


def test_worker_processes_give_the_same_verdicts(small_game):
    one = mutate(str(small_game), budget=8, seed=2, games=2)
    two = mutate(str(small_game), budget=8, seed=2, games=2, jobs=2)
    assert _verdicts(one) == _verdicts(two) and len(two.outcomes) == 8 and not two.partial


def test_ctrl_c_keeps_what_finished(small_game, monkeypatch):
    from railrules.tools.author import mutate as module
    real, calls = module.judge, []

    def judge_then_stop(checks, mutant):
        calls.append(mutant)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(checks, mutant)
    monkeypatch.setattr(module, "judge", judge_then_stop)
    report = mutate(str(small_game), budget=6, seed=1)
    assert report.partial and len(report.outcomes) == 2
    assert "PARTIAL" in text_report(report)
