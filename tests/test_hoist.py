"""A generated loop reads once what does not change from item to item (compile/hoist.py): the
record of an entity a local holds, the fields read of it, and a variable before the loop, the
item's own record once an item has passed the first test; a text that looks like a read is left
as it is; the legal actions and the faults are those of the machine's own listing, one value at
a time."""
from __future__ import annotations

import re

import pytest

from railrules.interpreter import RulesRuntimeError, load_ruleset
from railrules.tools.author.generated import generated
from test_language import write_ruleset

COMPONENTS = """\
variables:
  mood: 1
  bag: [1, 2]
player:
  cash: 6
kinds:
  tokens:
    fields: {value: 0, label: "", spare: 0}
    entities:
      red: {name: Red, value: 3}
      green: {name: Green, value: 7, label: "run.glob['mood'] _E[v_t]"}
      blue: {name: Blue, value: 0}
"""

RULES = """\
game:
    let p = players[0]
    let k = none
    choose by p:
        option go(t in tokens):
            require t.value > 0 else "nothing"
            require t.value < p.cash and mood > 0 else "too much"
            require t.label != "run.glob['mood'] _E[v_t]" else "a text like a read"
            require t.spare == 0 or t.value > 1 else "spare"
            require k == none or k.value < t.value else "below k"
            pass
    set k = red
    choose by p:
        option again(t in tokens):
            require k.value < t.value + p.cash else "below k"
            require count(bag) > 0 and count([x for x in bag where x > t.value]) == 0 else "bag"
            pass
    set k = none
    choose by p:
        option last(t in tokens):
            require k.value < t.value else "below k"
            pass
    end_game "done"

score p = p.cash
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return str(write_ruleset(tmp_path_factory.mktemp("hoist"), RULES, COMPONENTS))


def _choices(folder, option: str) -> str:
    [source] = [s for _, s in generated(folder, f"option {option}(") if "def choices(" in s]
    return source


def test_a_listing_reads_once_what_every_item_shares(folder):
    code = _choices(folder, "go")
    before, _, loop = code.partition("for v_t in items:")
    assert "= _E[L['p']]" in before and "= run.glob['mood']" in before and "= _E[L['k']]" in before
    assert "_E[L['p']]" not in loop and "run.glob['mood']" not in loop.replace('"run.glob', "")
    # a field of such a record too (k's, read where k is none: left unset, never read)
    assert "= _E[L['p']]['cash']" in before and "= _E[L['k']]['value']" in before
    assert "['cash']" not in loop and "_h0['value']" in loop
    # the item's record: read once, past the first test (an item it turns away reads no more)
    assert loop.count("_h0 = _E[v_t]") == 1 and loop.index("if (_E[v_t]['value'] > 0):") < loop.index("_h0 =")
    assert loop.split("_h0 = _E[v_t]")[1].count("_E[v_t]") == 1   # only inside the text below
    assert "\"run.glob['mood'] _E[v_t]\"" in loop   # the text compared stays as written


def test_a_count_compared_with_0_is_tested_as_a_truth(folder):
    code = _choices(folder, "again")
    assert re.search(r"if len\(_h\d+\):", code) and "if not len(" in code and "> 0" not in code and "== 0" not in code


def test_the_listing_is_the_machines_own(folder):
    game = load_ruleset(folder).new_game(1, 1)
    # go: red (3 < 6) passes; green is turned away by its label; blue by its value
    assert [a.label for a in game.legal_actions()] == ["go red"]
    assert game.legal_actions() == game.machine._listed(*_waiting(game))
    game.apply(game.legal_actions()[0])
    assert [a.label for a in game.legal_actions()] == ["again red", "again green"]   # blue: the bag holds more
    assert game.legal_actions() == game.machine._listed(*_waiting(game))
    game.apply(game.legal_actions()[0])
    # k holds none: the record read before the loop is none, and the fault has the same words
    with pytest.raises(RulesRuntimeError) as listed:
        game.legal_actions()
    with pytest.raises(RulesRuntimeError) as one_by_one:
        game.machine._listed(*_waiting(game))
    assert str(listed.value) == str(one_by_one.value) and "value" in str(listed.value)


def _waiting(game):
    frame = game.state["stack"][-1]
    return game.machine.program.codes[frame["c"]].instrs[frame["pc"]], frame
