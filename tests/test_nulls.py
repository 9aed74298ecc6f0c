"""Null comparisons (tools/lab/nulls.py): a variant that changes nothing random bots can tell
(a choose's options in reverse order), and how often compare gives a false verdict about it."""
from __future__ import annotations

import json
import re

import pytest

from railrules.interpreter import load_ruleset
from railrules.tools.lab import nulls

RULES = """\
# a toy

procedure turn(p):
    let x = 1
    choose by p:
        # the first option's comment
        option take(n in range(1, 4)):
            pay n from bank to p
            choose by p:
                option inner_a:
                    pass
                option inner_b:
                    pass
        option wait:
            pass

        # about the last
        option give:
            pay 1 from p to bank
    log "{p} played"

# the next part
procedure other(p):
    choose by p:
        option one:
            pass
"""


def test_the_first_choose_of_the_procedure_lists_its_options_in_reverse():
    assert nulls.reverse_choose(RULES, "turn") == """\
procedure turn(p):
    let x = 1
    choose by p:
        # about the last
        option give:
            pay 1 from p to bank
        option wait:
            pass

        # the first option's comment
        option take(n in range(1, 4)):
            pay n from bank to p
            choose by p:
                option inner_a:
                    pass
                option inner_b:
                    pass
    log "{p} played"
"""


@pytest.mark.parametrize("procedure, words", [("missing", "no 'procedure missing('"),
                                              ("other", "fewer than two options")])
def test_a_procedure_that_cannot_be_reversed_is_said(procedure, words):
    with pytest.raises(nulls.NullError, match=re.escape(words)):
        nulls.reverse_choose(RULES, procedure)


# the procedure of each shipped game whose first choose is the turn's choice of action
TURNS = {"chicago_express": "turn", "german_railways": "take_turn", "stephensons_rocket": "one_action",
         "baltimore_ohio": "market_turn"}


@pytest.mark.parametrize("game", sorted(TURNS))
def test_the_null_variant_of_each_game_loads_and_changes_only_that_procedure(game, tmp_path):
    folder = nulls.reversed_options(game, TURNS[game], tmp_path)
    base, null = load_ruleset(folder), load_ruleset(folder, variant=nulls.VARIANT)
    assert null.changed_since(base.fingerprints) == [f"changed procedure {TURNS[game]}"]


def test_the_command_counts_false_verdicts_and_says_the_headline(capsys):
    argv = ["chicago_express", "--procedure", "turn", "--comparisons", "2", "--games", "12", "--runs", "1",
            "--block", "6", "--max-games", "12", "--json"]
    assert nulls.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    fixed, until = out["fixed"], out["until verdict"]
    assert fixed["comparisons"] == 2 and fixed["Holm"]["interval"][1] > 0.8 and fixed["first headline"]
    assert until["runs"] == 1 and until["max games"] == 12


def test_a_procedure_the_ruleset_lacks_is_refused_before_any_game(capsys):
    with pytest.raises(SystemExit) as stop:
        nulls.main(["chicago_express", "--procedure", "missing"])
    assert stop.value.code == 2
    assert "no file of" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(TURNS))
def test_a_small_null_of_each_game_gives_no_false_verdict(game, capsys):
    """Three comparisons of 30 paired random games and one --until-verdict run (blocks of 30 up to
    90) per game, seeded: at most one comparison with a corrected verdict (under the 5 % the
    correction keeps, two or more of three come with a chance of 0.7 %; uncorrected tests give
    verdicts in most comparisons) and no stop (python -m railrules.tools.lab.nulls runs the full
    20 + 20, see BENCHMARKS-HISTORY.md)."""
    argv = [game, "--procedure", TURNS[game], "--comparisons", "3", "--games", "30", "--runs", "1",
            "--block", "30", "--max-games", "90", "--json"]
    assert nulls.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["fixed"]["Holm"]["with a verdict"] <= 1 and out["until verdict"]["with a verdict"] == 0


def test_a_stop_says_so_and_exits_130_without_a_traceback(monkeypatch, capsys):
    monkeypatch.setattr(nulls.compare, "play", lambda *a, **k: ({}, True))   # as Ctrl-C leaves it
    assert nulls.main(["chicago_express", "--procedure", "turn", "--comparisons", "1", "--games", "2"]) == 130
    assert "stopped early" in capsys.readouterr().err
