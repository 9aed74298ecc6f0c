"""What a store site checks (compile/storing.py): a value the proof settles is stored as it
is, a whole number is bounded inline, a value of a proven shape is measured for what the proof
leaves open (governor.shaped); whatever the governor refuses is still refused, at the same
statement, with the same code and message."""
from __future__ import annotations

import random
import re

import pytest

from railrules.interpreter import load_ruleset
from railrules.interpreter.errors import RulesRuntimeError
from railrules.interpreter.runtime import governor
from railrules.interpreter.runtime.governor import MAX_NODES, OverLimit, check_storable, shaped, walked
from railrules.interpreter.runtime.rationals import Fraction
from railrules.interpreter.runtime.values import RuleFault
from railrules.tools.author.generated import generated
from test_governor import META, failure, game_rules
from test_hostile import ruleset

BEYOND = "a number beyond 1000000000000000000 cannot be stored"
FUNCTION = "a function (x => ...) cannot be stored"


@pytest.mark.parametrize("body, line, code, words", [
    # a whole number proven by its type, bounded inline
    (["let y = 0", "set y = 100000000000000 * 100000000"], 4, "RR302", BEYOND),
    (["let y = 100000000000000", "let z = y * y"], 4, "RR302", BEYOND),
    # += and -= on whole numbers and lists: the result (the items added) checked
    (["set x = 100000000000000", "repeat 3 times:", "    set x += x * 100000"], 5, "RR302", BEYOND),
    (["set x = 0 - 100000000000000", "repeat 3 times:", "    set x -= 100000000000000 * 100000"], 5, "RR302", BEYOND),
    (["set xs += [x => x]"], 3, "RR302", FUNCTION),
    (["set xs += [1 / 2]"], 3, "RR302", "1/2 is not a whole number"),
    # (its values: 11, then 3n + 1 each time: past a million at the eleventh)
    (["let ys = range(0, 10)"] + ["set ys += [[ys, ys]]"] * 12, 14, "RR312", f"more than {MAX_NODES} items"),
    # a comprehension of list literals (rows) and a list literal (items), whole numbers in them
    (["let xs = [[i * 100000000000000 * 100000, \"a\"] for i in range(0, 3)]"], 3, "RR302", BEYOND),
    (["let n = 100000000000000", "let xs = [1, n * 100000, \"a\"]"], 4, "RR302", BEYOND),
    # a list of lists counted at C speed
    (["let xs = range(0, 60000)", "let xss = [xs for i in range(0, 20)]"], 4, "RR312", f"more than {MAX_NODES} items"),
    # a def's list literal, a part of no proven shape in it
    (["let xs = pair(x => x)"], 3, "RR302", FUNCTION),
    (["let xs = pair(1 / 2)"], 3, "RR302", "1/2 is not a whole number"),
    # a text measured where it is stored, whatever else the expression may give
    (["let xs = range(0, 30000)", "let s = \"{xs}\" if x > 0 else 1"], 4, "RR312", "a text longer than"),
    # a loop's variable taken apart is no checked local: its items are checked
    (["for (a, b) in [[x => x, 1]]:", "    pass"], 3, "RR302", FUNCTION),
    (["add (x => x) to xs"], 3, "RR302", FUNCTION),
    # a drawn item, of any list
    (["draw f from [x => x]"], 3, "RR302", FUNCTION),
], ids=["set-whole", "let-whole", "+=-whole", "-=-whole", "+=-function", "+=-fraction", "+=-shared",
        "rows", "items", "lists", "text-or-number", "def-function", "def-fraction", "unpacked-loop", "add", "draw"])
def test_what_the_governor_refuses_is_still_refused_at_its_statement(tmp_path, body, line, code, words):
    rules = game_rules(*body) + "\ndef pair(v) = [1, v]\n"
    diag, _ = failure(tmp_path, rules)
    assert (diag.code, diag.pos.line) == (code, line) and words in diag.message


def test_pay_refuses_cash_past_the_bounds_on_either_side(tmp_path):
    """An unlimited payer pays any amount: the payee's cash past the bounds is refused at the
    pay, and so is the payer's below them."""
    components = ("constants: {base: 10}\nvariables: {x: 2, xs: [1]}\nplayer: {cash: 0}\n"
                  "kinds:\n  banks:\n    entities:\n      bank: {cash: 0, unlimited: true}\n")
    big = "100000000 * 10000000000"   # (the most a rule may store)
    for k, second in enumerate(["pay 1 from bank to players[0]", "pay 1 from bank to players[1]"]):
        folder = tmp_path / str(k)
        folder.mkdir()
        rs = load_ruleset(str(ruleset(folder, rules=game_rules(f"pay {big} from bank to players[0]", second),
                                      components=components, meta=META % 100_000)))
        with pytest.raises(RulesRuntimeError) as info:
            rs.new_game(2, 0)
        diag = info.value.diagnostics[0]
        assert (diag.code, diag.pos.line) == ("RR302", 4) and BEYOND in diag.message


@pytest.mark.parametrize("pay, words", [
    ("pay 5 from \"nowhere\" to players[0]", "pay needs two entities with cash, got 'nowhere' and 'p1'"),
    ("pay 5 from players[0] to \"nowhere\"", "pay needs two entities with cash, got 'p1' and 'nowhere'"),
    ("pay 5 from players[0] to box", "pay needs two entities with cash, got 'p1' and 'box'"),
    ("pay 5 from players[0] to bank", "p1 cannot pay 5: it has 3"),
    ("pay 0 - 1 from bank to players[0]", "cannot pay -1: an amount is a whole number >= 0"),
], ids=["payer", "payee", "no-cash", "short", "negative"])
def test_pay_refuses_at_its_statement(tmp_path, pay, words):
    components = ("player: {cash: 3}\nkinds:\n  banks:\n    entities:\n      bank: {cash: 0, unlimited: true}\n"
                  "  boxes:\n    entities:\n      box: {size: 1}\n")
    rs = load_ruleset(str(ruleset(tmp_path, rules=game_rules(pay), components=components, meta=META % 100_000)))
    with pytest.raises(RulesRuntimeError) as info:
        rs.new_game(1, 0)
    diag = info.value.diagnostics[0]
    assert (diag.code, diag.pos.line) == ("RR302", 3) and words in diag.message, diag.message


def test_pay_to_itself_and_from_an_unlimited_payer(tmp_path):
    """Paying oneself leaves one's cash as it was; an unlimited payer goes below 0."""
    components = "player: {cash: 3}\nkinds:\n  banks:\n    entities:\n      bank: {cash: 0, unlimited: true}\n"
    rules = game_rules("pay 2 from players[0] to players[0]", "pay 7 from bank to players[0]")
    game = load_ruleset(str(ruleset(tmp_path, rules=rules, components=components, meta=META % 100_000))).new_game(1, 0)
    assert game.state["entities"]["p1"]["cash"] == 10 and game.state["entities"]["bank"]["cash"] == -7


def test_a_whole_number_fraction_added_to_a_list_is_stored_as_an_integer(tmp_path):
    rs = load_ruleset(str(ruleset(tmp_path, rules=game_rules("set xs += [3 / 3, 4]"), meta=META % 100_000)))
    game = rs.new_game(1, 0)
    assert game.state["globals"]["xs"] == [1, 1, 4] and type(game.state["globals"]["xs"][1]) is int


def test_values_the_proof_settles_are_stored_without_a_check(tmp_path):
    rules = game_rules("let e = []", "let ps = [p for p in players]", "let n = 3", "let k = count(ps)",
                       "let s = \"a text\"", "let (a, b) = [1, 2]", "let c = a", "add ps[0] to ps",
                       "let m = [[p, 1] for p in players]")
    root = ruleset(tmp_path, rules=rules, meta=META % 100_000)
    [(_, source)] = [f for f in generated(str(root), "game") if f[1].startswith("# unit ")]
    stores = [line.strip() for line in source.splitlines() if "_store(" in line]
    # k: a whole number (a count: never none), bounded inline with no test of its type; m: a
    # list of lists, measured; the rest as they are
    assert len(stores) == 1 and stores[0].startswith("v_k = (_v if _v in _o"), stores
    assert re.search(r"\bv_m = _o\w+\(_v\)", source)
    assert "_edit(run, _c, _k, _v, True, False)" in source and "v_c = v_a" in source   # (as it is: set at once)
    assert load_ruleset(str(root)).new_game(1, 0).state is not None


SHAPES = ["int", "flat", "ints", ("list", "flat"), ("list", "ints"), ("list", ("list", "flat")),
          ("items", ("safe", "int", "any", "flat")), ("list", ("items", ("int", "flat", "any"))),
          ("items", ("ints", ("list", "ints"), "safe")), ("list", ("items", ("any", ("list", "int"))))]


SCALARS = [0, 7, -3, 10 ** 18, 10 ** 18 + 1, "a", None, True, Fraction(4, 2), Fraction(1, 3), lambda: 0]


def _value(rng: random.Random, depth: int = 0):
    """A random value: plain data, sometimes past a bound, a fraction, a function or deep."""
    pick = rng.random()
    if pick < 0.3 or depth > 4:
        return rng.choice(SCALARS)
    if pick < 0.85:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    return {k: _value(rng, depth + 1) for k in "ab"[:rng.randrange(0, 3)]}


def _shaped_value(rng: random.Random, shape, depth: int = 0):
    """A value of ``shape``, now and then one that does not fit it: anything where the shape
    leaves it open (a whole number, a part of no proven shape), else something that is not a
    list (the proof is trusted for what it settles: a list of entities holds no function)."""
    if rng.random() < 0.1 and shape != "safe":
        return _value(rng, depth) if shape in ("int", "ints", "any") else rng.choice(SCALARS)
    if shape == "safe":
        return rng.choice(["a", None, True])
    if shape == "int":
        return rng.choice([1, -5, 10 ** 18, None])
    if shape == "any":
        return _value(rng, depth)
    if shape in ("flat", "ints"):
        items = [rng.choice([1, 2, -7] if shape == "ints" else ["a", None, False]) for _ in range(rng.randrange(0, 70))]
        return items if rng.random() < 0.8 else dict(zip(map(str, range(len(items))), items))
    head, inner = shape
    if head == "items":
        return [_shaped_value(rng, s, depth + 1) for s in inner]
    return [_shaped_value(rng, inner, depth + 1) for _ in range(rng.randrange(0, 30))]


def _outcome(check, value):
    try:
        got = check(value)
    except (OverLimit, RuleFault) as err:
        return type(err), str(err)
    return got, repr(got), walked(got, 10 ** 9)


@pytest.mark.parametrize("shape", SHAPES, ids=map(str, SHAPES))
def test_a_shaped_check_is_the_governors_whole_check(shape):
    """For values of its shape and values that do not fit it, a shaped check gives what
    check_storable gives: the value as stored (its items' types too), or the same fault; and
    a walk of what it stored counts the same."""
    rng = random.Random(str(shape))
    check = shaped(shape)
    for _ in range(300):
        value = _shaped_value(rng, shape)
        governor._CHECKED.clear()
        want = _outcome(check_storable, value)
        governor._CHECKED.clear()
        got = _outcome(check, value)
        assert got[1:] == want[1:] and got[0] == want[0], (shape, value)


def test_a_walk_counts_what_storing_counts_whether_or_not_it_was_remembered():
    """What a comparison of a nested list is charged does not depend on what the governor
    happens to remember."""
    inner = list(range(40))
    value = [inner, [inner, [1, 2]], "a", [[inner] * 3]]
    governor._CHECKED.clear()
    before = walked(value, 10 ** 9)
    check_storable(value)
    assert (id(value) in governor._CHECKED) and governor._CHECKED[id(value)][2] == before == walked(value, 10 ** 9)
    assert walked(value, 10) <= before
