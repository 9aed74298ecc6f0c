"""Proven types: the loader proves the type of fields and variables from
the YAML and every write of the rules; the fast code leaves out its tests of a proven value's
type; a write from outside the rules (a scenario's set:, a save) of another type is refused."""
from __future__ import annotations

import json
import random
import re

import pytest

from railrules.interpreter import BadSave, Game, RulesRuntimeError, load_ruleset
from railrules.interpreter.paths import shipped_rulesets
from railrules.tools.author.generated import generated
from test_language import write_ruleset

COMPONENTS = """\
variables:
  counter: 0
  trace: []
  mood: 0
player:
  cash: 5
kinds:
  tokens:
    fields: {value: 0, label: "", keeper: null, owner: null}
    entities:
      red: {name: Red, value: 3}
      green: {name: Green, value: 7}
"""

RULES = """\
game:
    set counter += 2
    add 1 to trace
    let y = 2
    set mood = [y, "y"][y - 2]
    set red.keeper = green
    for k in tokens:
        set counter += k.value
    choose by players[0]:
        option go(t in tokens):
            require t.value < 100 else "too much"
            set t.label = "picked"
            let x = [t.label, 0][y - 2]
            set green.label = x
            set t.owner = [players[0], 0][y - 2]
            set t.value += 1
        option stop:
            pass
    end_game "done"

def strong() = [t for t in tokens where t.value > 4]
def sure() = red.value + counter
def unsure() = mood + 1
def labelled() = [t for t in tokens where t.owner.cash > 1]
def kept() = red.keeper.value * 2
def summed() = sum([t.value for t in tokens]) + max(1, red.value)
def values() = {t: t.value for t in tokens}
def keepers() = {t.keeper: 1 for t in tokens}
def joined() = [t for t in tokens] + [t for t in tokens where t.value > 4]
def among() = green in strong() and red not in joined()
def above() = [t for t in tokens where t.value > red.value]
def guarded():
    let k = red.keeper
    return [t for t in tokens where t.value > 100 and k.value > 0]

score p = p.cash
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return str(write_ruleset(tmp_path_factory.mktemp("proven"), RULES, COMPONENTS))


@pytest.fixture(scope="module")
def ruleset(folder):
    return load_ruleset(folder)


def test_the_loader_proves_what_every_write_keeps(ruleset):
    fields, variables = ruleset.proven["fields"], ruleset.proven["variables"]
    assert fields["tokens"]["value"] == "int"            # += keeps a whole number one
    assert fields["tokens"]["keeper"] == "entity:tokens"  # none at first, then only tokens
    assert fields["tokens"]["name"] == "str"
    # label, owner, mood: written with an item of a list of a text and a number, at an index
    # not written in the rules: not known
    assert "label" not in fields["tokens"] and "owner" not in fields["tokens"]
    assert variables == {"counter": "int", "trace": "list:int"}   # trace: a number added
    assert fields["players"]["cash"] == "int"
    # x: an item of a list; k: a for loop's variable, an item of its list (the loop's state,
    # which a save holds, is checked as it loads)
    assert ruleset.proven["locals"]["game"] == {"y": "int", "t": "entity:tokens", "k": "entity:tokens"}


def test_a_proven_local_is_not_tested(folder):
    [unit] = [s for _, s in generated(folder, "game") if s.startswith("# unit game\n")]
    assert "_E[v_t]['label']" in unit and "v_t.__class__" not in unit   # t: a Python local


def _source(folder, name: str) -> str:
    """The generated code of def ``name`` (as an expression and as a function; kept as
    ``_def_NAME`` only when generated code calls it)."""
    found = [s for _, s in generated(folder, name) if s.splitlines()[1].startswith(f"# def {name}() =")]
    assert len(found) >= 2, name
    return "\n".join(found)


def test_a_proven_value_is_not_tested_an_unproven_one_is(folder):
    strong = _source(folder, "strong")   # t of tokens: an entity; its value a whole number
    assert "_E[v_t]['value'] > 4" in strong and "__class__" not in strong
    sure = _source(folder, "sure")       # an entity written in the rules, a variable
    assert "(_E['red']['value'] + run.glob['counter'])" in sure and "__class__" not in sure
    assert "'red'.__class__" not in sure
    unsure = _source(folder, "unsure")   # mood is not proven: tested a number (a sum: or a fraction)
    assert "__class__ in _NUMBERS" in unsure
    labelled = _source(folder, "labelled")   # owner is not proven an entity: tested
    assert "__class__ is str" in labelled and "_get_attr(run, " in labelled
    kept = _source(folder, "kept")       # keeper is proven a token: its value too
    assert "_E[_E['red']['keeper']]['value'] * 2" in kept and "__class__" not in kept


def test_a_loop_over_a_proven_list_charges_it_itself_and_tests_no_type(folder):
    strong = _source(folder, "strong")   # tokens: a list, charged a step an item where it is walked
    assert "run.steps += len(xs)" in strong and "_items(" not in strong and "xs.__class__" not in strong
    unsure = _source(folder, "labelled")
    assert "_items(" not in unsure


def test_in_and_a_join_of_proven_lists_are_written_inline(folder, ruleset):
    among = _source(folder, "among")   # an entity in a list: compared at once while the list is short
    assert "('green' in " in among and "'green'.__class__" not in among
    joined = _source(folder, "joined")   # two lists: joined, no test for whole numbers
    assert "_add(run, " in joined and "__class__ is int" not in joined
    game = ruleset.new_game(players=2, seed=0)
    assert game.evaluate("joined()") == ["red", "green", "green"] and game.evaluate("among()") is False
    assert game.evaluate("red in [green] + [red]") is True


def test_the_record_of_an_entity_that_is_the_same_in_every_round_is_read_once(folder, ruleset):
    above = _source(folder, "above")   # red's value: read before the loop, as a hand-written one would
    assert "_h1 = _E['red']['value']" in above and "_E[v_t]['value'] > _h1)" in above
    guarded = "\n".join(s for _, s in generated(folder, "k"))   # (its lines name k)
    assert re.search(r"_h1 = _E\[_t\d+\]\['value'\]\n", guarded) and "(_h1 > 0)" in guarded
    game = ruleset.new_game(players=2, seed=0)
    assert game.evaluate("above()") == ["green"] and game.evaluate("guarded()") == []
    # k is none: its value, read before the loop, raises; the rules never read it (no token is
    # worth more than 100), and the checked code, which reads only what they read, says so
    game.execute("set red.keeper = none")
    assert game.evaluate("guarded()") == []


def test_the_choices_of_a_domain_of_entities_test_no_type(folder):
    [choices] = [s for _, s in generated(folder, "option go(") if "def choices(" in s]
    assert "if (_E[v_t]['value'] < 100):" in choices and "__class__" not in choices


def test_proven_code_computes_what_checked_code_does(ruleset):
    game = ruleset.new_game(players=2, seed=0)
    assert game.evaluate("sure()") == 15 and game.evaluate("kept()") == 14
    assert game.evaluate("strong()") == ["green"]
    game.execute("set red.keeper = none")   # none fits every type: the checked code words it
    with pytest.raises(RulesRuntimeError) as err:
        game.evaluate("kept()")
    assert err.value.diagnostics[0].code == "RR302"


@pytest.mark.parametrize("statement, where", [
    ("set red.value = true", "entities.red.value: true is not a whole number"),
    ("set red.keeper = p1", "entities.red.keeper: \"p1\" is not the id of an entity of kind tokens"),
    ("set counter = \"x\"", "globals.counter: \"x\" is not a whole number"),
    ("set trace = 3", "globals.trace: 3 is not a list"),
])
def test_a_scenario_set_of_another_type_is_refused_and_changes_nothing(ruleset, statement, where):
    game = ruleset.new_game(players=2, seed=0)
    before = game.to_json()
    with pytest.raises(RulesRuntimeError) as err:
        game.execute(statement)
    d = err.value.diagnostics[0]
    assert d.code == "RR314" and where in d.message and d.hint
    assert game.to_json() == before


def test_a_scenario_set_of_an_unproven_field_or_a_fitting_value_is_taken(ruleset):
    game = ruleset.new_game(players=2, seed=0)
    game.execute("set red.label = 3")     # not proven: anything the language allows
    game.execute("set mood = true")
    game.execute("set red.keeper = green")
    game.execute("set red.value = none")
    assert game.evaluate("[red.label, mood, red.keeper, red.value]") == [3, True, "green", None]


def test_a_scenario_file_names_its_line(tmp_path):
    from railrules.tools.author.scenarios import run_scenario
    root = write_ruleset(tmp_path / "game", RULES, COMPONENTS)
    path = tmp_path / "bad.yaml"
    path.write_text("description: a bad set\nplayers: 2\nseed: 1\nsteps:\n"
                    "  - set: \"set red.value = 2\"\n  - set: \"set red.value = [1]\"\n", encoding="utf-8")
    [d] = run_scenario(str(root), path).failures
    assert (d.code, d.pos.line) == ("RR314", 6) and d.pos.file.endswith("bad.yaml")
    assert "entities.red.value: [1] is not a whole number" in d.message


def test_a_save_with_a_value_the_rules_never_store_is_refused(ruleset):
    game = ruleset.new_game(players=2, seed=0)
    saved = json.loads(game.to_json())
    saved["entities"]["red"]["keeper"] = "p2"   # a string, as it starts: only the proof refuses it
    with pytest.raises(BadSave) as err:
        Game.from_json(ruleset, json.dumps(saved))
    assert err.value.diagnostics[0].code == "RR314"
    assert "entities.red.keeper" in err.value.diagnostics[0].message
    saved["entities"]["red"]["keeper"] = "green"
    assert Game.from_json(ruleset, json.dumps(saved)).state["entities"]["red"]["keeper"] == "green"
    saved["stack"][0]["locals"]["y"] = "two"   # a paused rule's local, proven a whole number
    with pytest.raises(BadSave) as err:
        Game.from_json(ruleset, json.dumps(saved))
    assert err.value.diagnostics[0].code == "RR314"
    assert "stack[0].locals.y: \"two\" is not a whole number" in err.value.diagnostics[0].message


@pytest.mark.parametrize("name", shipped_rulesets())
def test_every_state_of_random_games_fits_the_proof(name):
    """A wrong proof would let the fast code compute what the checked code refuses: every
    position random games reach holds values of the proven types, and loads back from its save."""
    ruleset = load_ruleset(name)
    rng = random.Random(25)
    for seed in range(2):
        game = ruleset.new_game(players=ruleset.players_max, seed=seed)
        for _ in range(400):
            assert ruleset.misfit(game.state) is None
            if game.is_over:
                break
            game.apply(rng.choice(game.legal_actions()))
        assert Game.from_json(ruleset, game.to_json()).digest() == game.digest()


def test_a_unit_local_given_a_python_name_keeps_its_proven_type(ruleset):
    """Where the locals of a unit are Python names (``bound``), their proven types (a dict of
    them as the unit's locals) go with the names."""
    from railrules.interpreter.compile.expressions import Codegen
    from railrules.interpreter.dsl.parser import parse_expression
    from railrules.interpreter.errors import Pos
    e = parse_expression("x + 1", Pos("<test>", 1, 1))
    space = ruleset.program.space
    assert Codegen(ruleset.names, False, space).source(e, {"x": "int"}, {"x": "v_x"}) == "(v_x + 1)"
    assert "__class__ in _NUMBERS" in Codegen(ruleset.names, False, space).source(e, {"x": "any"}, {"x": "v_x"})
    assert "__class__ in _NUMBERS" in Codegen(ruleset.names, False, space).source(e, {"x"}, {"x": "v_x"})


LISTS = """\
game:
    let strong = [t for t in tokens where t.value > 4]
    let mixed = [t for t in tokens]
    add 3 to mixed
    let grown = [t for t in tokens]
    set grown[0] = red
    let ranked = sort(strong, t => t.value)
    choose by players[0]:
        option go(t in strong):
            set counter += t.value + count(ranked)
        option stop:
            pass
    set counter += sum([x.value for x in ranked])
    end_game "done"

score p = p.cash
"""


@pytest.fixture(scope="module")
def lists_folder(tmp_path_factory):
    return str(write_ruleset(tmp_path_factory.mktemp("proven_lists"), LISTS, COMPONENTS))


def test_the_items_of_a_local_list_are_proven_and_not_tested(lists_folder):
    """A comprehension's items have its expression's type, sort's those of its list; an item
    added or set of another type makes them any."""
    ruleset = load_ruleset(lists_folder)
    assert ruleset.proven["locals"]["game"] == {
        "strong": "list:entity:tokens", "mixed": "list", "grown": "list:entity:tokens",
        "ranked": "list:entity:tokens", "t": "entity:tokens"}
    [loop] = [s for _, s in generated(lists_folder, "sum") if "def loop(" in s]
    assert "_E[v_x]['value']" in loop and "__class__" not in loop
    game = ruleset.new_game(players=1, seed=0)
    game.apply(game.legal_actions()[0])
    assert game.is_over and game.evaluate("counter") == 7 + 1 + 7


def test_a_save_with_an_item_the_rules_never_store_is_refused(lists_folder):
    ruleset = load_ruleset(lists_folder)
    saved = json.loads(ruleset.new_game(players=1, seed=0).to_json())
    saved["stack"][0]["locals"]["strong"] = ["green", "p1"]
    with pytest.raises(BadSave) as err:
        Game.from_json(ruleset, json.dumps(saved))
    assert err.value.diagnostics[0].code == "RR314"
    assert "stack[0].locals.strong[1]: \"p1\" is not the id of an entity of kind tokens" in \
        err.value.diagnostics[0].message
    saved["stack"][0]["locals"]["strong"] = ["green", None]   # none fits every type
    assert Game.from_json(ruleset, json.dumps(saved)).evaluate("counter") == 0


LOOPS = """\
game:
    for k in tokens:
        choose by players[0]:
            option go:
                set counter += k.value
    each p in turn once around:
        choose by p:
            option take:
                set p.cash += counter
    end_game "done"

score p = p.cash
"""


def test_a_loop_variable_is_proven_and_a_save_with_an_item_of_another_type_is_refused(tmp_path):
    """A loop's variable has the type of its list's items (a turn loop's: players), and the
    values it is given next come from the loop's hidden local, which a save holds: checked."""
    ruleset = load_ruleset(str(write_ruleset(tmp_path, LOOPS, COMPONENTS)))
    assert ruleset.proven["locals"]["game"] == {"k": "entity:tokens", "p": "entity:players"}
    [unit] = [s for _, s in generated(str(tmp_path), "game") if s.startswith("# unit game\n")]
    assert "_E[v_k]['value']" in unit and "v_k).__class__" not in unit and "_get_attr" not in unit

    def refused(game, change) -> str:
        saved = json.loads(game.to_json())
        [slot] = [k for k in saved["stack"][0]["locals"] if k.startswith("$")]
        change(saved["stack"][0]["locals"][slot])
        with pytest.raises(BadSave) as err:
            Game.from_json(ruleset, json.dumps(saved))
        assert err.value.diagnostics[0].code == "RR314"
        return err.value.diagnostics[0].message
    game = ruleset.new_game(players=2, seed=0)   # paused in the for loop, at red
    assert "is not the id of an entity of kind tokens" in refused(game, lambda v: v[0].append("p1"))
    assert "locals.$1@2: 5 is not the id of an entity" in refused(game, lambda v: v.__setitem__(0, ["red", 5]))
    assert Game.from_json(ruleset, game.to_json()).digest() == game.digest()
    for _ in range(2):   # red, green: paused at the first turn
        game.apply(game.legal_actions()[0])
    assert "is not the id of an entity of kind players" in refused(game, lambda v: v[0].append("red"))
    assert "is not the id of an entity of kind players" in refused(game, lambda v: v.__setitem__(4, 3))
    game.apply(game.legal_actions()[0])
    game.apply(game.legal_actions()[0])
    assert game.is_over and game.state["entities"]["p1"]["cash"] == 5 + 10


HELD = """\
player:
  cash: 5
  held: {red: 0, green: 0}
kinds:
  tokens:
    fields: {value: 0, bag: []}
    entities:
      red: {name: Red, value: 3}
      green: {name: Green, value: 1}
"""

ITEMS = """\
game:
    for t in tokens:
        add t to red.bag
        set players[0].held[t] = t.value
    choose by players[0]:
        option go(t in red.bag):
            require players[0].held[t] > 2 else "too little"
            set players[0].cash += players[0].held[t]
    end_game "done"

score p = p.cash
"""


def test_the_items_of_a_field_list_or_map_are_proven_and_checked_as_a_save_loads(tmp_path):
    """A field's list has the type of every item added or set, a map the type of every value
    set: read back, they are not tested; a save holding one of another type is refused."""
    ruleset = load_ruleset(str(write_ruleset(tmp_path, ITEMS, HELD)))
    fields = ruleset.proven["fields"]
    assert fields["tokens"]["bag"] == "list:entity:tokens" and fields["players"]["held"] == "map:int"
    [choices] = [s for _, s in generated(str(tmp_path), "option go(") if "def choices(" in s]
    assert "['held'][v_t] > 2)" in choices and "__class__" not in choices
    game = ruleset.new_game(players=1, seed=0)
    assert [a.label for a in game.legal_actions()] == ["go red"]
    saved = json.loads(game.to_json())
    saved["entities"]["p1"]["held"]["red"] = "three"
    with pytest.raises(BadSave) as err:
        Game.from_json(ruleset, json.dumps(saved))
    assert "entities.p1.held['red']: \"three\" is not a whole number" in err.value.diagnostics[0].message
    saved["entities"]["p1"]["held"]["red"] = 3
    saved["entities"]["red"]["bag"] = ["red", 4]
    with pytest.raises(BadSave) as err:
        Game.from_json(ruleset, json.dumps(saved))
    assert "entities.red.bag[1]: 4 is not the id of an entity of kind tokens" in err.value.diagnostics[0].message
    game.apply(game.legal_actions()[0])
    assert game.is_over and game.state["entities"]["p1"]["cash"] == 5 + 3


def test_sums_of_whole_numbers_and_maps_keyed_by_entities_are_not_tested(ruleset, folder):
    """sum, min and max of whole numbers are whole numbers; a map made with keys proven texts
    is filled without a test of each key, and a none key still gets the checked code's words."""
    summed = _source(folder, "summed")
    assert "__class__ in _NUMBERS" in _source(folder, "unsure") and "__class__" not in summed
    assert "out[v_t] = _E[v_t]['value']" in _source(folder, "values")
    game = ruleset.new_game(players=2, seed=0)
    assert game.evaluate("summed()") == 3 + 7 + 3
    assert game.evaluate("values()") == {"red": 3, "green": 7}
    with pytest.raises(RulesRuntimeError) as err:   # green's keeper is none
        game.evaluate("keepers()")
    assert "a map's key is a name, an entity or a whole number, not none" in err.value.diagnostics[0].message


def test_a_value_the_governor_would_give_back_unchanged_is_stored_without_its_check(folder):
    """A whole number written in the rules, an entity: stored as they are; a text is checked."""
    [unit] = [s for _, s in generated(folder, "game") if s.startswith("# unit game\n")]
    assert "v_y = 2\n" in unit                        # let y = 2: set as it is
    assert unit.count("_c[_k] = _v\n") >= 1           # set red.keeper = green
    assert "_c[_k] = _store(_v)" in unit              # set t.label = "picked": a text's length


def test_two_lists_added_hold_the_items_of_both(tmp_path):
    """`xs + [none]`: a list of the items of both (an entity's kind, none never proven apart)."""
    rules = """\
game:
    let r = first([t for t in tokens where t.value > 5] + [none])
    let both = [red] + [green, red]
    let mixed = [red] + [1]
    end_game "done"

score p = p.cash
"""
    proven = load_ruleset(str(write_ruleset(tmp_path, rules, COMPONENTS))).proven["locals"]["game"]
    assert proven["r"] == "entity:tokens" and proven["both"] == "list:entity:tokens"
    assert proven["mixed"] == "list"


def test_a_value_made_of_values_not_known_yet_is_proven_when_they_are(tmp_path):
    """The proof meets a procedure's parameter before the calls that give it its type: what it
    computes from it (arithmetic, max, a comprehension, first) waits for that type instead of
    giving up, so a field written with it keeps its type."""
    rules = """\
game:
    call grow(red)
    end_game "done"

procedure grow(t):
    set t.value = max(t.value, 2) + 1
    set mood = -t.value
    set trace = [x.value * 2 for x in [t]]
    set green.keeper = first([t] + [none])

score p = p.cash
"""
    ruleset = load_ruleset(str(write_ruleset(tmp_path, rules, COMPONENTS)))
    assert ruleset.proven["fields"]["tokens"]["value"] == "int"
    assert ruleset.proven["fields"]["tokens"]["keeper"] == "entity:tokens"
    assert ruleset.proven["variables"] == {"counter": "int", "mood": "int", "trace": "list:int"}
    game = ruleset.new_game(players=1, seed=0)
    assert game.is_over and game.evaluate("[red.value, mood, trace, green.keeper]") == [4, -4, [8], "red"]
