"""Generated code shaped as a hand-written engine would write it (compile/expressions.py,
compile/hoist.py): a test takes a condition's truth as Python does, and computes the same as
the checked mode, which takes every step through its helpers."""
from __future__ import annotations

import re

import pytest

from railrules.interpreter import RulesRuntimeError, load_ruleset
from railrules.interpreter.compile import expressions
from railrules.interpreter.data.ruleset import load_all_checked
from railrules.interpreter.runtime.rationals import Fraction
from railrules.tools.author.generated import generated
from test_language import write_ruleset

COMPONENTS = """\
constants:
  favourites: [red]
  bonus: {"1": 10, "3": 30, "7": 70}
variables:
  flag: true
  shut: false
  none_yet: null
  limit: 1
player:
  cash: 5
kinds:
  tokens:
    fields: {value: 0, open: false}
    entities:
      red: {name: Red, value: 3, open: true}
      green: {name: Green, value: 7}
"""

RULES = """\
game:
    end_game "done"

def tested(t) = "yes" if not (t.open and flag) else "no"
def loose(t) = "yes" if not t.open and flag else "no"
def either(t) = [u for u in tokens where not (u.open or shut) and u != t]
def ranked() = sort(tokens, t => 0 - t.value)
def floored(t) = max(0, t.value - 5)
def floors() = [floored(t) for t in tokens]
def over() = [t for t in tokens where t.value > limit and red.value > 0]
def refusal(t) = "{t} is too low at {limit}" if t.value < 4 else "{t.value} is too high" if t.value > 100 else none
def allowed() = [t for t in tokens where refusal(t) == none]
def refused() = [t for t in tokens where refusal(t) != none]
def liked() = [t for t in tokens where t in favourites]
def bonuses() = [bonus[t.value] for t in tokens]
def best() = max_by([t for t in tokens where t.value > 0], t => t.value * 2)
def total() = sum([t.value for t in tokens where t.value > limit])
def halves() = sum([t.value / 2 for t in tokens])
def thirds(t) = t.value / 3 + green.value / 2 * (red.value / 7) - limit
def below(t) = t.value / 3 < green.value / 4

score p = p.cash
"""

EXPRESSIONS = [
    ("tested(red)", "no"), ("tested(green)", "yes"), ("loose(red)", "no"), ("loose(green)", "yes"),
    ("either(red)", ["green"]), ("either(green)", []), ("not (flag and shut)", True),
    ("not flag and shut", False), ("flag and (shut or not none_yet)", True), ("[red.open or 3]", [True]),
    ("floored(red)", 0), ("floors()", [0, 2]), ("over()", ["red", "green"]),
    ("allowed()", ["green"]), ("refused()", ["red"]), ("refusal(red)", "Red is too low at 1"),
    ("liked()", ["red"]), ("bonuses()", [30, 70]), ("min(red.value, 2)", 2), ("max(green.value - 1, 3)", 6),
    ("ranked()", ["green", "red"]), ("best()", "green"), ("min_by(tokens, t => t.value)", "red"),
    ("total()", 10), ("halves()", 5), ("sum([t.value / 3 for t in tokens])", Fraction(10, 3)),
    ("sum([t.value for t in tokens where t.value > 10])", 0),
    ("thirds(red)", Fraction(3, 2)), ("thirds(green)", Fraction(17, 6)), ("below(red)", True), ("below(green)", False),
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return str(write_ruleset(tmp_path_factory.mktemp("shaped"), RULES, COMPONENTS))


@pytest.mark.parametrize("text, value", EXPRESSIONS)
def test_a_condition_is_worth_the_same_fast_and_checked(folder, text, value):
    for ruleset in (load_ruleset(folder), load_all_checked(folder)):
        assert ruleset.new_game(players=1, seed=0).evaluate(text) == value


def test_a_condition_tested_is_not_made_a_truth_value_first(folder):
    sources = [source for _, source in generated(folder, "def tested")]
    assert sources and all("True if" not in s and "if (not ((" in s for s in sources)


def test_a_key_called_with_the_items_of_a_proven_list_tests_no_type(folder):
    """sort's, max_by's and min_by's key is called with the list's items: its variable has
    their proven type (an entity: its fields read at once)."""
    for name in ("ranked", "best"):
        keyed = [s for _, s in generated(folder, f"def {name}") if "(lambda v_t: " in s and "_tracked" not in s]
        assert keyed and all("v_t.__class__" not in s and "_E[v_t]['value']" in s for s in keyed)


def test_a_number_written_in_the_rules_is_compared_as_it_is(folder):
    """max(0, x) of whole numbers (a def written in place in a loop over entities): 0 is not
    put in a temporary first."""
    [loop, *_] = [s for _, s in generated(folder, "def floors") if "def loop(" in s and "_tracked" not in s]
    assert "if 0 >= (_t" in loop and "__class__" not in loop


LARGE = """\
game:
    end_game "done"

# a def larger than those written in place anywhere: written in place in a loop over items
def grade(t) = (
    "none" if t.value == 0 else "low" if t.value < 2 else "some" if t.value < 4
    else "fair" if t.value < 6 else "good" if t.value < 8 else "high" if t.value < 10
    else "rare" if t.value < 12 else "top" if t.value < 14 else "max")
def grades() = [grade(t) for t in tokens]
def risky(t) = (
    "none" if t.value == 0 else "low" if t.value < 2 else "some" if t.value < 4
    else "fair" if t.value < 6 else "good" if t.value < 8 else "high" if t.value < 10
    else "rare" if t.value < 12 else "top" if t.value < 14 else "max") + "{t.value // (t.value - 3)}"
def risks() = [risky(t) for t in tokens]

score p = p.cash
"""


def test_a_larger_def_is_written_in_place_in_a_loop_and_faults_as_when_called(tmp_path, monkeypatch):
    """A def too large to be written in place anywhere is written in place in the body of a loop
    over items (called once an item); its fault is the one the def called, or checked, makes."""
    folder = str(write_ruleset(tmp_path / "large", LARGE, COMPONENTS))
    [loop, *_] = [s for _, s in generated(folder, "def grades") if "def loop(" in s and "_tracked" not in s]
    assert "_def" not in loop and "'fair'" in loop   # written in place, not called
    faults = []
    for load in (load_ruleset, load_all_checked, "called"):
        if load == "called":   # (the def called, as it is outside a loop)
            monkeypatch.setattr(expressions, "INLINE_LOOP_NODES", expressions.INLINE_NODES)
            write_ruleset(tmp_path / "called", LARGE, COMPONENTS)
            [loop, *_] = [s for _, s in generated(str(tmp_path / "called"), "def grades") if "def loop(" in s]
            assert "_def" in loop
            ruleset = load_ruleset(str(tmp_path / "called"))
        else:
            ruleset = load(folder)
        game = ruleset.new_game(players=1, seed=0)
        assert game.evaluate("grades()") == ["some", "good"] and game.evaluate("grade(green)") == "good"
        with pytest.raises(RulesRuntimeError) as err:   # red: 3 // 0
            game.evaluate("risks()")
        faults.append([(d.code, d.message) for d in err.value.diagnostics])
    assert faults[0] == faults[1] == faults[2] and "division by zero" in faults[0][0][1]


def test_a_sum_of_a_comprehension_adds_as_it_loops(folder):
    """``sum([... for ...])`` is one loop that adds its values as it goes: no list is made and
    no sum called; a value proven a whole number is added untested, any other is tested a
    number first (the checked code words what is not). Its steps are the comprehension's and
    the sum's: a step an item of each."""
    [total, *_] = [s for _, s in generated(folder, "def total") if "def loop(" in s and "_tracked" not in s]
    assert "_total += _E[v_t]['value']" in total and "out" not in total and "__class__" not in total
    assert "run.steps += _added" in total
    [halves, *_] = [s for _, s in generated(folder, "def halves") if "def loop(" in s and "_tracked" not in s]
    assert "_item.__class__ is not _Fraction" in halves and "_sum" not in halves.replace("_total", "")
    steps = []
    for ruleset in (load_ruleset(folder), load_all_checked(folder)):   # (checked: a list, then sum)
        game = ruleset.new_game(players=1, seed=0)
        game.machine.steps = 0
        game.evaluate("total()")
        steps.append(game.machine.steps)
    assert steps[0] == steps[1]


def test_fractions_are_added_multiplied_and_ordered_inline(folder):
    """A sum, difference, product or order of two numbers that are not proven whole is worked out
    inline when each is found to be a whole number or a fraction (Python's exact arithmetic on
    both), without a helper's call; anything else goes to the helper, which words the fault."""
    for name, ops in (("thirds", ("_add(", "_mul(", "_sub(")), ("below", ("_o_0(",))):
        [fast, *_] = [s for _, s in generated(folder, f"def {name}") if "_tracked" not in s]
        assert fast.count(".__class__ in _NUMBERS") >= 2 and all(op in fast for op in ops)
    faults = []
    for ruleset in (load_ruleset(folder), load_all_checked(folder)):
        game = ruleset.new_game(players=1, seed=0)
        for bad in ("red.value / 3 + flag", "red.value / 3 * [1]", "red.value / 3 < shut", "none_yet - red.value / 3"):
            with pytest.raises(RulesRuntimeError) as err:
                game.evaluate(bad)
            faults.append([(d.code, d.message) for d in err.value.diagnostics])
    assert faults[:4] == faults[4:] and all(f[0][0] == "RR302" for f in faults)


def test_a_refusal_compared_with_none_makes_no_text_it_can_do_without(folder):
    """``refusal(t) == none`` where refusal gives a text or none: the comparison is taken into
    its branches, and a text that shows only names that cannot fault is not made (one that
    shows a field still is: reading it could fault, as the checked code would say)."""
    [loop, *_] = [s for _, s in generated(folder, "def allowed") if "def loop(" in s and "_tracked" not in s]
    assert "is too low" not in loop and "is too high" in loop and "(False" in loop


def test_a_constant_short_list_and_a_map_by_a_number_are_read_at_once(folder):
    [liked, *_] = [s for _, s in generated(folder, "def liked") if "def loop(" in s and "_tracked" not in s]
    assert re.search(r"\(v_t in _k\w+\)", liked) and "< 16" not in liked
    [bonuses, *_] = [s for _, s in generated(folder, "def bonuses") if "def loop(" in s and "_tracked" not in s]
    assert re.search(r"_k\w+\[str\(_E\[v_t\]\['value'\]\)\]", bonuses) and "__class__" not in bonuses
