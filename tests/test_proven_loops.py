"""Proven lists and entities in a unit: a for loop that walks a proven list (never a count)
steps through it with no test of whether its hidden local holds a count (a save whose hidden
local holds anything but a list there is refused, RR314); a choice's domain proven a list is
listed with no test that it is one; a field or a map's entry of a proven entity is changed with
no test that the entity or the key is a text; a whole number proven one (or none) is added
to or stored with a test that it is not none only, one that is surely a number with none."""
from __future__ import annotations

import json
import linecache
import re

import pytest

from railrules.interpreter import BadSave, Game, RulesRuntimeError, load_ruleset
from railrules.tools.author.generated import generated
from test_language import write_ruleset

COMPONENTS = """\
variables:
  counter: 0
  many: 2
player:
  cash: 5
  held: {red: 0, green: 0}
  mark: 0
kinds:
  tokens:
    fields: {value: 0, mark: 0}
    entities:
      red: {name: Red, value: 3}
      green: {name: Green, value: 7}
"""

RULES = """\
game:
    for k in tokens:
        choose by players[0]:
            option go(t in tokens):
                set counter += k.value
                let q = players[0]
                set q.held[t] += 1
                set t.value -= 1
                set t.mark = true
                let twice = counter * 2
                set counter += twice
    for i in many:
        set counter += i
    end_game "done"

score p = p.cash
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return str(write_ruleset(tmp_path_factory.mktemp("loops"), RULES, COMPONENTS))


def test_a_field_set_through_a_proven_entity_is_written_in_its_kind_alone(folder):
    fields = load_ruleset(folder).proven["fields"]
    assert "mark" not in fields["tokens"] and fields["players"]["mark"] == "int"   # (t: a token)


def test_a_loop_over_a_proven_list_tests_no_count_and_one_over_a_count_does(folder):
    ruleset = load_ruleset(folder)
    assert ruleset.proven["lists"] == {"game": ["2"]}   # (many: a whole number, counted)
    [unit] = [s for _, s in generated(folder, "game") if s.startswith("# unit game\n")]
    assert "if _at1 < len(_each1):" in unit and "v_k = _each1[_at1]" in unit
    assert "_each1.__class__" not in unit and "_each2.__class__ is int" in unit
    game = ruleset.new_game(players=2, seed=0)
    for _ in range(2):
        game.apply(game.legal_actions()[0])
    assert game.is_over and game.evaluate("counter") == (3 * 3 + 7) * 3 + 0 + 1   # (twice: triples it)
    assert game.evaluate("[players[0].held, red.value]") == [{"red": 2, "green": 0}, 1]


def test_a_proven_domain_and_target_are_not_tested(folder):
    ruleset = load_ruleset(folder)
    game = ruleset.new_game(players=2, seed=0)
    assert [a.label for a in game.legal_actions()] == ["go red", "go green"]
    space = ruleset.program.space
    [lister] = [s for s in map(lambda x: "".join(linecache.getlines(x)), space["__sources__"]) if "def lister(" in s]
    assert "_v0 = " in lister and "__class__" not in lister
    [unit] = [s for _, s in generated(folder, "game") if s.startswith("# unit game\n")]
    assert "if 'value' in _E.get(_o, ()):" in unit   # t: a token
    assert "if (_c := _E.get(_o, _EMPTY).get('held')).__class__ is dict and _k in _c:" in unit
    assert "_o.__class__" not in unit and "_k.__class__" not in unit


def test_a_save_with_a_count_where_the_rules_walk_a_list_is_refused(folder):
    ruleset = load_ruleset(folder)
    game = ruleset.new_game(players=2, seed=0)   # paused in the loop over the tokens
    saved = json.loads(game.to_json())
    [slot] = [k for k in saved["stack"][0]["locals"] if k.startswith("$")]
    assert saved["stack"][0]["locals"][slot] == [["red", "green"], 1]
    saved["stack"][0]["locals"][slot] = [2, 1]
    with pytest.raises(BadSave) as err:
        Game.from_json(ruleset, json.dumps(saved))
    d = err.value.diagnostics[0]
    assert d.code == "RR314" and f"locals.{slot}: [2, 1] is not a loop over a list" in d.message
    assert Game.from_json(ruleset, game.to_json()).digest() == game.digest()


def test_a_proven_whole_number_is_added_and_stored_with_no_type_test(folder):
    [unit] = [s for _, s in generated(folder, "game") if s.startswith("# unit game\n")]
    lines = " ".join(unit.split())
    # t.value -= 1: a whole number (or none) less a number; counter += k.value: two whole
    # numbers or none; twice: surely a whole number (none in the product faults)
    assert "_store(_n)) if (_o := _c[_k]) is not None else _augment(run, _o, _v, '-=')" in lines
    assert "_store(_n)) if (_o := _c[_k]) is not None and _v is not None else _augment(run, _o, _v, '+=')" in lines
    assert re.search(r"v_twice = \(_v if _v in _o\w+ else _store\(_v\)\)", lines)
    # (i: a number a count gives, not proven: tested)
    assert lines.count("_v.__class__ is int") == 1 and "(_o := _c[_k]).__class__" not in lines


def test_none_where_a_whole_number_is_proven_faults_in_the_rules_words(folder):
    ruleset = load_ruleset(folder)
    game = ruleset.new_game(players=2, seed=0)
    game.execute("set red.value = none")
    with pytest.raises(RulesRuntimeError) as err:
        game.apply(game.legal_actions()[0])   # counter += k.value, k red
    d = err.value.diagnostics[0]
    assert d.code == "RR302" and d.message == "in game: cannot apply += to 0 and none" and d.pos.line == 5
    game = ruleset.new_game(players=2, seed=0)
    game.execute("set counter = none")
    with pytest.raises(RulesRuntimeError) as err:
        game.apply(game.legal_actions()[0])
    d = err.value.diagnostics[0]
    assert d.message == "in game: cannot apply += to none and 3" and d.pos.line == 5
