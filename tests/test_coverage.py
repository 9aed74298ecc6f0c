"""Rule coverage: which rules fire, counted by the engine (`count_rules`), and `railrules coverage`."""
import json
from collections import Counter

from test_language import RULESET_YAML, line_col, write_ruleset

from railrules.interpreter import load_ruleset
from railrules.tools.cli import main

RULES = """\
on ping(n):
    add "A{n}" to trace

on ping(n) when n > 1:
    add "B{n}" to trace
    emit pong(n)

on pong(n):
    add "P{n}" to trace

procedure spin(k):
    let i = 0
    while i < k:
        add "S" to trace
        set i += 1

game:
    for n in range(0, 4):
        emit ping(n)
        call spin(n)
    choose by players[0]:
        option again:
            emit ping(5)
        option stop:
            pass
    end_game "done"

score p = p.cash
"""


def _game(tmp_path, count_rules=True):
    return load_ruleset(str(write_ruleset(tmp_path, RULES))).new_game(1, 0, count_rules=count_rules)


def test_counts_agree_with_what_the_rules_did(tmp_path):
    game = _game(tmp_path)
    game.apply("again")
    trace = Counter(x[0] for x in game.evaluate("trace"))
    counts = game.rule_counts
    assert counts["on:ping:0"] == trace["A"]
    # a trigger whose `when` fails has not fired: only n > 1 counts
    assert counts["on:ping:1"] == trace["B"] == counts["on:pong:0"] == trace["P"]
    assert counts["on:ping:1"] < counts["on:ping:0"]
    # a procedure whose body starts with a loop counts once per call, not once per turn of the loop
    assert counts["proc:spin"] == 4 and trace["S"] == 0 + 1 + 2 + 3
    assert counts["game"] == 1


def test_counting_is_off_by_default_and_clones_do_not_count(tmp_path):
    assert _game(tmp_path, count_rules=False).rule_counts is None
    game = _game(tmp_path)
    before = dict(game.rule_counts)
    twin = game.clone()
    twin.apply("again")
    assert twin.rule_counts is None and dict(game.rule_counts) == before
    # counting does not change the game
    plain = _game(tmp_path, count_rules=False)
    plain.apply("again")
    game.apply("again")
    assert plain.to_json() == game.to_json()


def test_coverage_lists_every_rule_and_explains_the_unfired(tmp_path, capsys):
    ruleset = RULESET_YAML + "coverage:\n  unfired:\n    again: bots never choose it here\n"
    root = write_ruleset(tmp_path, RULES.replace("option again:", "option again:\n            require false else \"never\""),
                         ruleset=ruleset)
    assert main(["coverage", str(root), "--games", "3", "--players", "1", "--json"]) == 0
    cov = json.loads(capsys.readouterr().out)
    rows = {(r["kind"], r["name"]): r for r in cov["rules"]}
    assert rows[("procedure", "spin")]["fired"] == 3 * 4 and rows[("procedure", "spin")]["games"] == 3
    assert rows[("trigger", "on ping #2")]["fired"] == 3 * 2
    assert rows[("option", "stop")]["games"] == 3
    assert cov["never"] == [{"name": "again", "kind": "option", "why": "bots never choose it here"}]
    assert cov["unexplained"] == 0


def test_an_unknown_name_in_coverage_is_a_lint_warning(tmp_path, capsys):
    ruleset = RULESET_YAML + "coverage:\n  unfired:\n    agian: typo\n"
    root = write_ruleset(tmp_path, RULES, ruleset=ruleset)
    main(["lint", str(root)])
    out = capsys.readouterr().out
    line, col = line_col(ruleset, "agian")
    assert f"ruleset.yaml:{line}:{col}: warning RR209" in out and "'agian'" in out


def test_shipped_rulesets_name_only_rules_they_have(capsys):
    assert main(["lint"]) == 0
    assert "RR209" not in capsys.readouterr().out

