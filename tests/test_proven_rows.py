"""Proven rows: a list written out in the rules (``[c, n]``) is proven a list of that many
items, each of its own type, so that taking it apart (``for (c, n) in pairs``) and reading an
item at a number written in the rules (``p[0]``) need no test; a row whose length may change
(an item removed, items added) is a list again; a value from outside the rules that is not
such a row is refused. A procedure's result has the join of the types of what it returns, a
def that calls itself the type its body gives (typed again until it stays the same)."""
from __future__ import annotations

import pytest

from railrules.interpreter import RulesRuntimeError, load_ruleset
from railrules.tools.author.generated import generated
from test_language import write_ruleset

COMPONENTS = """\
variables:
  pairs: []
  total: 0
  cut: []
  grown: []
  swapped: []
  names: []
  blank: null
player:
  cash: 5
kinds:
  cities:
    fields: {open: true}
    entities:
      a: {name: A}
      b: {name: B, open: false}
      c: {name: C}
"""

RULES = """\
game:
    for x in cities:
        add [x, 2] to pairs
    set pairs = [[x, k + 1] for (x, k) in pairs where x.open]
    for (x, k) in pairs:
        set total += k
    set cut = [1, a]
    remove 1 from cut
    set grown = [1, a]
    set grown += [a, 1]
    set swapped = [1, a]
    set swapped[0] = a
    set names = flatten([[x.name] for x in cities])
    set blank = [a, none]
    call shrink()
    let (y, j) = call pick()
    let got = [y]
    set got += [j]
    set total += j + count(got)
    end_game "done"

procedure pick():
    for x in cities where not x.open:
        return [x, 5]
    return [a, 1]

procedure shrink():
    let q = [1, a]
    remove 1 from q
    let r = [1, a]
    log "{q} {r}"

def opened() = [x for (x, k) in pairs where x.open]
def firsts() = [p[0].open for p in pairs]
def worth() = sum([k for (x, k) in pairs])
def most() = max([k for (x, k) in pairs], 0)
def depth(i) = 0 if i <= 0 else 1 + depth(i - 1)
def deeper() = depth(3) + 1

score p = p.cash
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return str(write_ruleset(tmp_path_factory.mktemp("rows"), RULES, COMPONENTS))


@pytest.fixture(scope="module")
def ruleset(folder):
    return load_ruleset(folder)


def _source(folder, name: str) -> str:
    found = [s for _, s in generated(folder, name) if s.splitlines()[1].startswith(f"# def {name}() =")]
    assert found, name
    return "\n".join(found)


def test_a_list_written_out_is_a_row_and_one_that_may_change_length_is_not(ruleset):
    variables = ruleset.proven["variables"]
    assert variables["pairs"] == "list:list(entity:cities,int)"
    assert variables["names"] == "list:str"   # flatten: the items of the lists of its list
    # an item removed, items added, an item set: a list of the items' join (a number and a
    # city: not known)
    assert variables["cut"] == variables["grown"] == variables["swapped"] == "list"
    assert ruleset.proven["locals"]["proc:shrink"] == {"q": "list", "r": "list(int,entity:cities)"}
    game = ruleset.proven["locals"]["game"]
    assert game["__y_j"] == "list(entity:cities,int)" and game["y"] == "entity:cities" and game["j"] == "int"
    assert game["got"] == "list"   # (a city and a number)


def test_a_proven_row_is_taken_apart_and_read_with_no_test(folder):
    for name in ("opened", "worth"):
        code = _source(folder, name)
        assert "_unpack(" not in code and "__class__" not in code, name
    most = _source(folder, "most")   # max of a list and a number: no test for two numbers
    assert "_b_max(run, " in most and "__class__" not in most
    firsts = _source(folder, "firsts")   # p[0]: a city, read directly
    assert "_E[v_p[0]]['open']" in firsts and "__class__" not in firsts
    [unit] = [s for _, s in generated(folder, "game") if s.startswith("# unit game\n")]
    assert "_unpack(" not in unit and "__y_j.__class__" not in unit and "_get_index" not in unit
    assert "v_j = v___y_j[1]" in unit
    assert "v_got = _augment(run, v_got, _v, '+=')" in unit   # a list: no test for a number


def test_a_def_that_calls_itself_gives_what_its_body_gives(folder, ruleset):
    deeper = _source(folder, "deeper")   # depth(3): a whole number, added with no test
    assert "__class__" not in deeper and "(_def" in deeper and ") + 1)" in deeper
    assert ruleset.new_game(players=2, seed=0).evaluate("deeper()") == 4


def test_rows_compute_what_checked_code_does(ruleset):
    game = ruleset.new_game(players=2, seed=0)
    assert game.is_over
    assert game.evaluate("[opened(), firsts(), worth(), total]") == [["a", "c"], [True, True], 6, 6 + 5 + 2]
    assert game.evaluate("[cut, grown, swapped]") == [["a"], [1, "a", "a", 1], ["a", "a"]]
    assert game.evaluate("[names, most()]") == [["A", "B", "C"], 3]


@pytest.mark.parametrize("statement, where", [
    ("set pairs = [[a, 1, 2]]", "globals.pairs[0]: [\"a\", 1, 2] is not a list of 2 items"),
    ("set pairs = [[a, b]]", "globals.pairs[0][1]: \"b\" is not a whole number"),
    ("set pairs = [a]", "globals.pairs[0]: \"a\" is not a list"),
])
def test_a_scenario_set_of_another_row_is_refused(ruleset, statement, where):
    game = ruleset.new_game(players=2, seed=0)
    with pytest.raises(RulesRuntimeError) as err:
        game.execute(statement)
    d = err.value.diagnostics[0]
    assert d.code == "RR314" and where in d.message


def test_a_fitting_row_is_taken(ruleset):
    game = ruleset.new_game(players=2, seed=0)
    game.execute("set pairs = [[b, 7]]")
    assert game.evaluate("[opened(), firsts(), worth()]") == [[], [False], 7]


def test_a_row_item_only_none_yet_takes_any_value_from_outside(ruleset):
    assert ruleset.proven["variables"]["blank"] == "list(entity:cities,none)"
    game = ruleset.new_game(players=2, seed=0)
    game.execute("set blank = [b, 3]")   # (nothing is proven of its second item)
    assert game.evaluate("blank") == ["b", 3]
    with pytest.raises(RulesRuntimeError) as err:
        game.execute("set blank = [3, 3]")
    assert err.value.diagnostics[0].code == "RR314" and "globals.blank[0]: 3 is not the id" in err.value.diagnostics[0].message
