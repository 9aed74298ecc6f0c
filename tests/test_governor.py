"""The resource governor (DESIGN invariant 9): every growth path and every
builtin's work is charged or bounded wherever rules run (load and constants, play, lint,
simulate), and each limit hit is an RR error with the rule's position, never an internal error.

Each hostile ruleset of the issue runs under small limits; memory is measured with tracemalloc
(the peak of what the run allocates), work with the step budget. No test asserts a time.
"""
from __future__ import annotations

import json
import tracemalloc

import pytest

from railrules.interpreter import RulesRuntimeError, check_ruleset, load_ruleset
from railrules.interpreter.engine.game import Game
from railrules.interpreter.errors import BadSave
from railrules.interpreter.runtime.governor import MAX_DEPTH, MAX_NODES, MAX_TEXT, OverLimit, check_storable
from railrules.interpreter.runtime.rationals import Fraction
from railrules.interpreter.runtime.values import RuleFault
from railrules.tools.author.scenarios import run_scenario
from test_hostile import RULESET, cli, ruleset

META = RULESET.replace("steps: 1000,", "steps: %d,")   # the hostile ruleset's, its budget given


def game_rules(*body: str) -> str:
    """A game block of ``body`` lines (line 3 is the first), then the end."""
    return ("game:\n    cite \"Hostile rulebook: it ends.\"\n" + "".join(f"    {line}\n" for line in body)
            + "    end_game \"done\"\n\nscore p = p.cash\n")


def failure(tmp_path, rules: str, steps: int = 1_000_000):
    """The diagnostic with which a game of these rules fails to start, and the peak of memory
    (bytes) allocated while it ran."""
    rs = load_ruleset(str(ruleset(tmp_path, rules=rules, meta=META % steps)))
    tracemalloc.start()
    try:
        with pytest.raises(RulesRuntimeError) as info:
            rs.new_game(1, 0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return info.value.diagnostics[0], peak


DOUBLING_TEXT = game_rules('let s = "ab"', "while true:", '    set s = "{s}{s}"')
DOUBLING_LIST = game_rules("let xs = [1]", "repeat 30 times:", "    set xs = [xs, xs]")
NESTING = game_rules("let xs = [1]", "repeat 5000 times:", "    set xs = [xs]")
HUGE_REPEAT = game_rules("repeat 10000000 times:", "    pass")
SORTS = game_rules("let xs = range(0, 100000)", "repeat 1000 times:", "    let ys = sort(xs, x => 0 - x)")
BIG_LOG = game_rules("let xs = range(0, 100000)", 'log "{[xs, xs, xs, xs, xs, xs, xs, xs]}"')
# a template's values are measured as the entry is stored, a list among numbers and words too
BIG_ENTRY = game_rules("let xs = range(0, 100000)", 'log "{1} and {[xs, xs, xs, xs, xs, xs, xs, xs]}"')


@pytest.mark.parametrize("rules, code, line, words", [
    (DOUBLING_TEXT, "RR312", 5, f"a text longer than {MAX_TEXT} characters"),
    (DOUBLING_LIST, "RR312", 5, f"more than {MAX_NODES} items"),
    (NESTING, "RR312", 5, f"nested more than {MAX_DEPTH} deep"),
    (BIG_LOG, "RR312", 4, f"a text longer than {MAX_TEXT} characters"),
    (BIG_ENTRY, "RR312", 4, f"a text longer than {MAX_TEXT} characters"),
    (SORTS, "RR303", 5, "steps without a decision"),
    (HUGE_REPEAT, "RR303", 3, "steps without a decision"),
], ids=["interpolation", "shared-list", "nesting", "log-line", "log-entry", "sorts", "repeat"])
def test_each_growth_path_of_the_issue_is_an_rr_error_at_its_rule(tmp_path, rules, code, line, words):
    diag, peak = failure(tmp_path, rules)
    assert (diag.code, diag.pos.line) == (code, line) and words in diag.message
    assert diag.pos.file.endswith("main.rules") and diag.pos.column > 0
    assert "Error" not in diag.message   # no Python exception's name reaches the author
    assert peak < 64 * 2 ** 20            # repeat 10^7 once built 10^7 numbers (over 300 MB)


def test_repeat_walks_its_numbers_one_by_one(tmp_path):
    """A repeat of 10^7 numbers allocates nothing per number: its budget is what stops it, and
    the loop variable of a for over a count is each number in turn."""
    rules = game_rules("let total = 0", "for i in 5:", "    set total += i", "require total == 10 else \"sum\"",
                       "repeat 10000000 times:", "    pass")
    diag, peak = failure(tmp_path, rules, steps=5000)
    assert (diag.code, diag.pos.line) == ("RR303", 7) and peak < 2 ** 20


PAUSED_IN_REPEAT = """\
game:
    cite "Hostile rulebook: three rounds."
    repeat 3 times:
        choose by players[0]:
            option again:
                set x += 1
    end_game "done"

score p = p.cash
"""


def test_a_game_paused_inside_repeat_saves_plain_data_and_an_old_save_with_the_list_resumes(tmp_path):
    rs = load_ruleset(str(ruleset(tmp_path, rules=PAUSED_IN_REPEAT, meta=META % 1000)))
    game = rs.new_game(1, 0)
    game.apply("again")
    saved = json.loads(game.to_json())
    slots = [v for f in saved["stack"] for k, v in f["locals"].items() if k.startswith("$")]
    assert slots == [[3, 2]]   # the count and where the loop is (its second round), not a list
    # a save made when repeat kept the list of its numbers resumes the same way
    for frame in saved["stack"]:
        for k, v in frame["locals"].items():
            if k.startswith("$"):
                frame["locals"][k] = [[0, 1, 2], v[1]]
    for text in (game.to_json(), json.dumps(saved)):
        again = Game.from_json(rs, text)
        again.apply("again")
        again.apply("again")
        assert again.is_over and json.loads(again.to_json())["globals"]["x"] == 5


def test_a_sort_is_charged_for_its_items_and_its_key_calls(tmp_path):
    """3000 items sorted by a key: the range (3000), the sort (3000 + 3000*12/16) and its 3000
    key calls are more than 5000 steps; with no charge they were 5 steps."""
    diag, _ = failure(tmp_path, game_rules("let ys = sort(range(0, 3000), x => 0 - x)"), steps=5000)
    assert (diag.code, diag.pos.line) == ("RR303", 3)


@pytest.mark.parametrize("expr", ["unique(range(0, 3000) + range(0, 3000))", "flatten([range(0, 3000), range(0, 3000)])",
                                  "without(range(0, 3000), range(0, 3000))", "count_of(range(0, 3000), 7) + sum(range(0, 3000))"])
def test_the_builtins_that_walk_lists_are_charged(tmp_path, expr):
    diag, _ = failure(tmp_path, game_rules(f"let y = {expr}"), steps=5000)
    assert (diag.code, diag.pos.line) == ("RR303", 3)


@pytest.mark.parametrize("expr", ["[x for x in xs]", "{x: 1 for x in xs}", "exists x in xs where x < 0",
                                  "[x for x in ys]", "exists x in ys where x < 0"])
def test_a_loop_in_an_expression_is_charged_an_item_a_step(tmp_path, expr):
    """A list of 3000 (3000 steps), walked once more by a comprehension, a map or an exists
    (3000 steps): past 5000, whether the list is proven one (xs) or not (ys, a local set from a
    list's item)."""
    rules = game_rules("let xs = range(0, 3000)", "let ys = [xs, 0][0]", f"let z = {expr}")
    diag, _ = failure(tmp_path, rules, steps=5000)
    assert (diag.code, diag.pos.line) == ("RR303", 5)


def test_min_and_max_of_a_list_are_charged(tmp_path):
    """A list of 3000 (3000 steps), then its min and max: 6000 steps more, past 5000; with no
    charge for them the game stayed under 3010. min(a, b) of two numbers stays inline, uncharged."""
    diag, _ = failure(tmp_path, game_rules("let xs = range(0, 3000)", "let y = min(xs) + max(xs, 0)"), steps=5000)
    assert (diag.code, diag.pos.line) == ("RR303", 4)


@pytest.mark.parametrize("body, words", [
    (['let s = "{range(0, 10000)}"', 'set s = s + s + s'], "a text longer than"),
    (["let xs = range(0, 1000000)"], "range() of more than"),
    (["let xs = range(0, 60000) + range(0, 60000)"], "a list longer than"),
    (["let xs = flatten([range(0, 60000), range(0, 60000)])"], "flatten() of more than"),
])
def test_the_size_limits_are_rr312(tmp_path, body, words):
    diag, _ = failure(tmp_path, game_rules(*body))
    assert (diag.code, diag.pos.line) == ("RR312", 2 + len(body)) and words in diag.message


def test_a_constant_is_governed_at_load(tmp_path):
    rules = ('const shown = "{range(0, 99999)}"\nconst sorted_once = sort(range(0, 60000), x => 0 - x)\n'
             + game_rules())   # constants share one budget: 99999 + 60000 steps, then the sort's 180000
    root = ruleset(tmp_path, rules=rules, meta=META % 200_000)
    loaded, diags = check_ruleset(str(root))
    found = sorted((d.code, d.pos.line) for d in diags if d.severity == "error")
    assert loaded is None and found == [("RR302", 2), ("RR312", 1)]
    assert any("200000 steps" in d.message for d in diags)


def test_lint_play_and_simulate_report_the_limits(tmp_path):
    root = ruleset(tmp_path, rules=DOUBLING_LIST, meta=META % 1_000_000)
    code, out, _ = cli("lint", str(root), "--play", "1", "--format", "json")
    found = [(d["code"], d["line"]) for d in json.loads(out)]
    assert code == 1 and ("RR312", 5) in found
    code, out, err = cli("simulate", str(root), "--games", "2", "--players", "1", "--json")
    assert code == 1 and "main.rules:5:9: error RR312" in err and "Traceback" not in err
    code, out, err = cli("play", str(ruleset(tmp_path, rules=NESTING, meta=META % 1_000_000)),
                         "--bots", "random", "--players", "1")
    assert code == 1 and "RR312" in err and "RecursionError" not in err and "Traceback" not in err


def test_a_save_holding_a_value_past_the_limits_is_refused(tmp_path):
    rs = load_ruleset(str(ruleset(tmp_path, rules=PAUSED_IN_REPEAT, meta=META % 1000)))
    saved = json.loads(rs.new_game(1, 0).to_json())
    deep: list = [1]
    for _ in range(MAX_DEPTH + 1):
        deep = [deep]
    saved["globals"]["xs"] = deep
    with pytest.raises(BadSave) as info:
        Game.from_json(rs, json.dumps(saved))
    assert info.value.diagnostics[0].code == "RR304" and "nested more than" in info.value.diagnostics[0].message


def test_storing_checks_a_shared_list_once():
    """A value that doubles by sharing is measured as a save would write it (each appearance),
    but walked once per list: 2^40 items are refused at once."""
    xs: list = [1]
    stored = []
    with pytest.raises(OverLimit):
        for _ in range(40):
            xs = check_storable([xs, xs])
            stored.append(xs)
    assert 18 <= len(stored) < 21  # 2^20 items is the first over MAX_NODES
    assert check_storable(stored[-1]) is stored[-1]   # kept as it is, shared


@pytest.mark.parametrize("body", [
    ["let xs = range(0, 2000)", "let ys = range(0, 2000)", "let same = xs == ys"],
    ["let xs = range(0, 2000)", "let ys = range(0, 2000)", "let other = xs != ys"],
    ["let xs = range(0, 2000)", "let ys = range(0, 2000)", "let less = xs < ys"],
    ["let xs = range(0, 2000)", "let ys = range(0, 2000)", "let m = {\"a\": xs} == {\"a\": ys}"],
    ["let xs = range(0, 2000)", "let n = count(xs + [])", "let k = count(xs + xs)"],
    ["let xs = range(0, 2000)", "let ys = []", "set ys += xs", "set ys += xs"],
    ["let xs = range(0, 1500)", "let xss = [xs, xs, xs]", "let biggest = max(xss)"],
    ["let xs = range(0, 1500)", "let xss = [xs, xs, xs]", "let ys = sort(xss)"],
    ["let xs = range(0, 1500)", "let xss = [xs, xs, xs]", "let ys = unique(xss)"],
    ["let xs = range(0, 1500)", "let xss = [xs, xs, xs]", "let n = count_of(xss, xs)"],
    ["let xs = range(0, 1500)", "let xss = [xs, xs, xs]", "let found = xs in xss"],
    ["let xs = range(0, 1500)", "let xss = [0, xs, xs, xs]", "let ys = without(xss, [xs])"],
    ["let xs = range(0, 1500)", "let ys = sort([1, 2, 3], k => xs)"],
    ["let xs = range(0, 1500)", "let z = max_by([1, 2, 3], k => xs)"],
], ids=["==", "!=", "<", "maps", "copies", "+=", "max", "sort", "unique", "count_of", "in", "without", "sort-keys",
        "max_by-keys"])
def test_comparisons_and_copies_of_lists_are_charged(tmp_path, body):
    """Each of these walks or copies about 4,500 values at C speed (under 4,100 steps before
    it): charged a step a value, the game passes its 5,000 steps at the last line. With one
    step each, a loop of them ran for minutes with no RR303."""
    diag, _ = failure(tmp_path, game_rules(*body), steps=5000)
    assert (diag.code, diag.pos.line) == ("RR303", 2 + len(body))


def test_add_and_remove_are_charged_for_the_list_they_copy(tmp_path):
    """A list of 1,500 (1,500 steps), an item added (a copy of 1,500) and removed again: the
    second add passes 5,000 steps; each cost one step before."""
    rules = game_rules("let ys = range(0, 1500)", "repeat 3 times:", "    add 1 to ys", "    remove 1 from ys")
    diag, _ = failure(tmp_path, rules, steps=5000)
    assert (diag.code, diag.pos.line) == ("RR303", 5)


def test_a_loop_of_list_comparisons_stops_at_the_budget(tmp_path):
    """The issue's loop: 100,000-item lists compared again and again under the default budget."""
    rules = game_rules("let xs = range(0, 100000)", "let ys = range(0, 100000)", "repeat 1000000 times:",
                       "    let same = xs == ys and not (xs < ys) and count(xs + []) > 0")
    diag, _ = failure(tmp_path, rules)
    assert (diag.code, diag.pos.line) == ("RR303", 6)


SELF_APPLIED = ["let z = w(w)", "let z = ap(ap, 0)", "let z = w(x => x(x))"]
SELF_APPLYING_DEFS = "def w(g) = g(g)\ndef ap(f, n) = f(f, n + 1)\n"


@pytest.mark.parametrize("body", SELF_APPLIED, ids=["w(w)", "ap(ap, 0)", "lambda"])
def test_recursion_through_a_function_value_stops_with_rr302(tmp_path, body):
    """A def that calls itself through a function value reaches Python's depth limit before
    its own 200 calls: the fast code no longer runs its checked code again at every level
    (work that doubled with each level: RR303 after minutes, or never under the default
    budget), and the fault says what calls itself."""
    diag, _ = failure(tmp_path, SELF_APPLYING_DEFS + game_rules(body), steps=100_000)
    assert (diag.code, diag.pos.line) == ("RR302", 5)
    assert ("calls itself" if "x =>" not in body else "calls nested too deeply") in diag.message


def test_recursion_through_a_function_value_in_lint_play_and_a_scenario(tmp_path):
    root = ruleset(tmp_path, rules=SELF_APPLYING_DEFS + game_rules("let z = w(w)"), meta=META % 1_000_000)
    code, out, _ = cli("lint", str(root), "--play", "1", "--format", "json")
    assert code == 1 and ("RR302", 5) in [(d["code"], d["line"]) for d in json.loads(out)]
    code, _, err = cli("play", str(root), "--bots", "random", "--players", "1")
    assert code == 1 and "RR302" in err and "calls itself" in err and "Traceback" not in err
    root = ruleset(tmp_path, rules=SELF_APPLYING_DEFS + game_rules(), meta=META % 1_000_000)
    scenario = tmp_path / "loop.yaml"
    scenario.write_text('description: "x"\nplayers: 1\nsteps:\n  - expect: "w(w) == 1"\n', encoding="utf-8")
    result = run_scenario(str(root), scenario)
    assert not result.passed and "calls itself" in result.failures[0].message


@pytest.mark.parametrize("reason", ["range(0, 60000)", '{"a": range(0, 60000)}'])
def test_an_end_reason_is_held_to_the_text_limit(tmp_path, reason):
    """A reason of 400,000 characters (a list shown) was kept in the result, every save and log."""
    rules = ("game:\n    cite \"Hostile rulebook: it ends.\"\n"
             f"    end_game {reason}\n\nscore p = p.cash\n")
    diag, _ = failure(tmp_path, rules)
    assert (diag.code, diag.pos.line) == ("RR312", 3) and "text longer than" in diag.message


def _one_by_one(value, level: int = 1):
    """What storing ``value`` must do, item by item (the rule the fast check of a list or map
    keeps): whole-number fractions become integers; a number past the bounds, a fraction that is
    not whole, a function or a list nested too deep is refused."""
    if value.__class__ is list or value.__class__ is dict:
        if level > MAX_DEPTH:
            raise OverLimit("too deep")
        pairs = value.items() if value.__class__ is dict else enumerate(value)
        out = [(k, _one_by_one(v, level + 1)) for k, v in pairs]
        return dict(out) if value.__class__ is dict else [v for _, v in out]
    if value.__class__ is Fraction:
        if value.denominator != 1:
            raise OverLimit("not whole")
        return int(value)
    if value.__class__ is int and not -10 ** 18 <= value <= 10 ** 18 or callable(value):
        raise OverLimit("cannot be stored")
    return value


@pytest.mark.parametrize("value", [
    ["a", 1, True, None, "b" * 50, -10 ** 18, 10 ** 18],
    {"a": 1, "b": [1, 2, {"c": 3}], "d": None},
    [1, 2, 3, 10 ** 18 + 1],
    ["x", 4, -10 ** 18 - 1, "y"],
    [1, 2, Fraction(6, 3), "z", [Fraction(4, 2)]],
    {"a": 1, "b": Fraction(1, 2)},
    [1, [2, [3, [4, lambda: 0]]]],
    [[[[1, 2, 3]]]] * 3,
    [True, False, None, 0],
], ids=["plain", "nested-map", "too-big", "too-small", "whole-fractions", "half", "function",
        "shared", "flags"])
def test_a_stored_list_or_map_is_checked_as_item_by_item(value):
    """The items of a list or map are read at C speed (their kinds, the largest number), and only
    the lists and maps among them entered: the outcome is the item-by-item rule's."""
    try:
        want = _one_by_one(value)
    except OverLimit:
        with pytest.raises((OverLimit, RuleFault)):
            check_storable(value)
        return
    got = check_storable(value)
    assert got == want and [type(x) for x in (got if isinstance(got, list) else got.values())] \
        == [type(x) for x in (want if isinstance(want, list) else want.values())]


def test_a_list_nested_past_the_depth_limit_is_refused_by_the_fast_check():
    deep: list = ["a", 1, 2]
    for _ in range(MAX_DEPTH):
        deep = ["a", 1, deep]
    with pytest.raises(OverLimit, match="nested more than"):
        check_storable(deep)
