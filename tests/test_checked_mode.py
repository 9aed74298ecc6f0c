"""The code generator's two modes against each other.

Every expression of the rules is written twice by one generator (interpreter/compile/expressions.py):
fast, taking the common path unchecked, and checked, every step through a helper that words
what is wrong. The fast code falls back on the checked code when anything goes wrong in it, so
a mistake of the fast mode would only show as a slowdown, and one of the checked mode only when
a rule faults. Here the shipped rulesets are played with every expression in checked mode and
no fast code at all (``load_all_checked``), and must play exactly as they play normally: the
same legal actions at every decision, the same messages, estimates and metrics, the same final
state. And every fault a rule can make is worded the same in both modes. Assignment targets too:
the fast code takes the common ones inline, the checked mode every one through its resolver.
"""
from __future__ import annotations

import functools
import random

import pytest

from test_language import COMPONENTS_YAML, write_ruleset   # tests/test_language.py

from railrules.interpreter import RulesRuntimeError, load_ruleset
from railrules.interpreter.data.ruleset import load_all_checked
from railrules.interpreter.paths import shipped_rulesets

SEEDS = (1, 2)
EVERY = 25   # estimates and metrics are compared every this many decisions


def play(ruleset, players: int, seed: int) -> dict:
    """One seeded random game: what it showed at each decision and how it ended."""
    game = ruleset.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    labels, figures = [], []
    while not game.is_over:
        legal = game.legal_actions()
        labels.append([a.label for a in legal])
        if len(labels) % EVERY == 0:
            figures.append(([game.estimate(p) for p in game.players], game.metrics()))
        game.apply(rng.choice(legal))
    return {"labels": labels, "figures": figures, "messages": list(game.messages),
            "digest": game.digest(), "result": game.result,
            "final": [game.estimate(p) for p in game.players]}


@functools.cache
def _both(name: str, variant: str | None = None) -> tuple:
    return load_ruleset(name, variant), load_all_checked(name, variant)


@pytest.mark.parametrize("name", shipped_rulesets())
def test_a_shipped_ruleset_plays_the_same_with_every_expression_checked(name):
    fast, checked = _both(name)
    assert checked.program.checked and not fast.program.checked
    for players in sorted({fast.players_min, fast.players_max}):
        for seed in SEEDS:
            want, got = play(fast, players, seed), play(checked, players, seed)
            for i, (a, b) in enumerate(zip(want["labels"], got["labels"])):
                assert a == b, f"{name}, {players} players, seed {seed}: decision {i + 1} differs"
            assert got == want, f"{name}, {players} players, seed {seed}"


@pytest.mark.parametrize("name, variant", [("baltimore_ohio", "coal_after_building"),
                                           ("baltimore_ohio", "pass_is_final"),
                                           ("german_railways", "badische_first_rural_free"),
                                           ("german_railways", "mwb_printed_start_income")])
def test_a_variant_with_rules_of_its_own_plays_the_same_checked(name, variant):
    fast, checked = _both(name, variant)
    assert play(checked, fast.players_max, 3) == play(fast, fast.players_max, 3)


# ------------------------------------------------------------------ faults
FAULT_RULES = """\
def loop(x) = loop(x + 1)
def holds(f) = f(1)
def two(a, b) = a
def pick(xs, i) = xs[i]

game:
    choose by players[0]:
        option stop:
            pass
    end_game "done"

score p = p.cash
"""

# an expression, and the words of its fault (RR302, after the expression quoted)
FAULTS = [
    ("1 / 0", "division by zero"),
    ("5 // 0", "division by zero"),
    ("5 % 0", "modulo by zero"),
    ("red + 1", "cannot compute 'red' + 1"),
    ("1 + true", "cannot compute 1 + true"),
    ("[1] * 2", "cannot compute a list * 2"),
    ('"a" - "b"', "cannot compute 'a' - 'b'"),
    ('"%d" % 3', "cannot compute '%d' % 3"),
    ('"a" / 2', "cannot divide 'a' by 2"),
    ('ceil("a" / 2)', "cannot divide 'a' by 2"),
    ("floor(1 / 0)", "division by zero"),
    ("range(0, 60000) + range(0, 60000)", "a list longer than 100000 items"),
    ('1 < "a"', "cannot compare 1 < 'a'"),
    ("true < 1", "cannot compare true < 1"),
    ('red.value >= "a"', "cannot compare 3 >= 'a'"),
    ('-"a"', "cannot negate 'a'"),
    ("-true", "cannot negate true"),
    ("red.colour", "red has no field 'colour'"),
    ("table.zz", "no key 'zz'"),
    ('"nobody".cash', "'nobody' is not an entity, so it has no '.cash'"),
    ("[1, 2][5]", "index 5 is outside a list of 2 items"),
    ('table["zz"]', "no entry 'zz'"),
    ("[1][true]", "a list index must be a number, not true"),
    ("3[0]", "3 cannot be indexed"),
    ("pick([1], 3)", "index 3 is outside a list of 1 items"),
    ("pick(table, 3)", "no entry 3"),
    ("3 in 4", "'in' needs a list, got 4"),
    ("[x for x in 3]", "'for x in' needs a list, got 3"),
    ("exists x in 3 where x > 1", "'exists x in' needs a list, got 3"),
    ("[t.zz for t in tokens]", "red has no field 'zz'"),
    ("[t for t in tokens where t.zz]", "red has no field 'zz'"),
    ("exists t in tokens where t.value.x", "3 has no field 'x'"),
    ('"{red.zz}"', "red has no field 'zz'"),
    ("1 if red.zz else 2", "red has no field 'zz'"),
    ("red.zz and true", "red has no field 'zz'"),
    ("{[1]: 2}", "a map's key is a name, an entity or a whole number, not a list"),
    ("{true: 2}", "a map's key is a name, an entity or a whole number, not true"),
    ("{[t]: 1 for t in tokens}", "a map's key is a name, an entity or a whole number, not a list"),
    ("{t.zz: 1 for t in tokens}", "red has no field 'zz'"),
    ("{t: t.zz for t in tokens where t.value > 4}", "green has no field 'zz'"),
    ("keys(3)", "keys() needs a map, got a number"),
    ('min([1, "a"])', "min() cannot order 'a' and a number together: compare numbers with numbers "
                      "and text with text"),
    ("max_by(tokens, t => t.zz)", "red has no field 'zz'"),
    ("holds(3)", "'f' is not a function: it holds 3"),
    ('holds("bump")', "'f' is not a function: it holds 'bump' (a procedure is run with 'call')"),
    ("holds(x => [x, x][5])", "index 5 is outside a list of 2 items"),
    ("sort([1], two)", "'two' takes 2 argument(s), 1 given"),
    ("loop(0)", "'loop' calls itself more than 200 deep"),
    ("sum([t.value > 4 for t in tokens])", "sum() needs a number, got a boolean"),
    ("sum([t.zz for t in tokens where t.value > 4])", "green has no field 'zz'"),
    ("sum([x for x in [1, none]])", "sum() needs a number, got none"),
    ("sum([x for x in 3])", "'for x in' needs a list, got 3"),
]


@functools.cache
def _fault_rulesets(root) -> tuple:
    path = str(write_ruleset(root, FAULT_RULES))
    return load_ruleset(path), load_all_checked(path)


def _fault(ruleset, text: str) -> str:
    with pytest.raises(RulesRuntimeError) as info:
        ruleset.new_game(players=2, seed=0).evaluate(text)
    d = info.value.diagnostics[0]
    assert d.code == "RR302"
    return d.message


@pytest.mark.parametrize("text, words", FAULTS, ids=[t for t, _ in FAULTS])
def test_a_fault_is_worded_the_same_fast_and_checked(tmp_path_factory, text, words):
    fast, checked = _fault_rulesets(tmp_path_factory.getbasetemp() / "faults")
    assert _fault(fast, text) == _fault(checked, text) == f"'{text}': {words}"


# statements that fault: the expression they compute, or what they do with its value
STATEMENT_FAULTS = [
    ("if false:\n        let x = 1\n    log x", "'x' is used before it is set"),
    ('repeat "a" times:\n        pass', "repeat needs a whole number of times, got 'a'"),
    ("repeat 0 - 1 times:\n        pass", "repeat needs a whole number of times, got -1"),
    ("let (a, b) = [1]", "cannot take 2 names from a list: it needs a list of 2 items"),
    ('for x in "a":\n        pass', "a loop needs a list, got 'a'"),
    ("set trace[5] = 1", "cannot assign to index 5 of a list"),
    ('set counter += "a"', "cannot apply += to 0 and 'a'"),
    ("set red.zz = 1", "'red' has no field 'zz'"),
    ("log red.zz", "red has no field 'zz'"),
    ('require red.value > "a" else "never"', "cannot compare 3 > 'a'"),
]


@pytest.mark.parametrize("statement, words", STATEMENT_FAULTS, ids=[s for s, _ in STATEMENT_FAULTS])
def test_a_statement_faults_with_the_same_words_fast_and_checked(tmp_path, statement, words):
    said = _fault_both_ways(tmp_path, statement, COMPONENTS_YAML)
    assert said[0] == said[1]
    assert said[0][0] == "RR302" and words in said[0][1], said[0]


def _fault_both_ways(tmp_path, statement: str, components: str) -> list:
    """The fault a game whose rules start with ``statement`` raises, fast and checked: (code,
    message, line, column) each."""
    rules = f"game:\n    {statement}\n    end_game \"done\"\n\nscore p = p.cash\n"
    path = str(write_ruleset(tmp_path, rules, components))
    said = []
    for load in (load_ruleset, load_all_checked):
        with pytest.raises(RulesRuntimeError) as info:
            load(path).new_game(players=2, seed=0)
        d = info.value.diagnostics[0]
        said.append((d.code, d.message, d.pos.line, d.pos.column))
    return said


# A rule's locals are Python locals of its unit's function while it runs, and the frame's plain
# data at a pause (interpreter/compile/units.py): a local set on some ways only is read with
# the same words as ever, in a unit called directly (it never pauses) and in one that pauses;
# and what a pause writes back to the frame is what the rules set, saved and loaded or not.
UNSET_LOCALS = [
    ("straight", "procedure show(a):\n    if a > 1:\n        let x = 1\n    log x\n\n"
                 "game:\n    call show(0)\n    end_game \"done\"\n", [], "'x' is used before it is set"),
    ("straight_index", "procedure put(a):\n    if a > 1:\n        let xs = [1]\n    set xs[0] = 2\n\n"
                       "game:\n    call put(0)\n    end_game \"done\"\n", [], "'xs' is used before it is set"),
    ("augmented", "procedure bump(a):\n    if a > 1:\n        let x = 1\n    set x += 1\n\n"
                  "game:\n    call bump(0)\n    end_game \"done\"\n", [], "'x' is used before it is set"),
    ("augmented_after_a_choice", "game:\n    let y = 2\n    if y > 5:\n        let x = 1\n"
                                 "    choose by players[0]:\n        option go:\n            log y\n"
                                 "    set x -= 1\n    end_game \"done\"\n", ["go"], "'x' is used before it is set"),
    ("after_a_choice", "game:\n    let y = 2\n    if y > 5:\n        let x = 1\n    choose by players[0]:\n"
                       "        option go:\n            log y\n    log x\n    end_game \"done\"\n",
     ["go"], "'x' is used before it is set"),
    ("in_a_loop", "procedure ask(p):\n    repeat 2 times:\n        choose by p:\n            option go:\n"
                  "                let seen = 1\n            option look:\n                log seen\n\n"
                  "game:\n    call ask(players[0])\n    end_game \"done\"\n", ["look"],
     "'seen' is used before it is set"),
]


@pytest.mark.parametrize("name, rules, actions, words", UNSET_LOCALS, ids=[c[0] for c in UNSET_LOCALS])
def test_a_local_read_before_it_is_set_faults_the_same_fast_and_checked(tmp_path, name, rules, actions, words):
    said = []
    for load in (load_ruleset, load_all_checked):
        path = str(write_ruleset(tmp_path / load.__name__, rules + "\nscore p = p.cash\n", COMPONENTS_YAML))
        with pytest.raises(RulesRuntimeError) as info:
            game = load(path).new_game(players=2, seed=0)
            for action in actions:
                game.apply(action)
        d = info.value.diagnostics[0]
        said.append((d.code, d.message, d.pos.line, d.pos.column))
    assert said[0] == said[1]
    assert said[0][0] == "RR302" and words in said[0][1], said[0]


LOOP_RULES = """\
procedure ask(p):
    let n = 0
    repeat 4 times:
        choose by p:
            option go(k in [1, 2]):
                let seen = k
                set n += k
            option look:
                log "seen {seen}, {n} so far"
    log "last seen {seen}, {n} in all"

game:
    for p in players:
        call ask(p)
    end_game "done"

score p = p.cash
"""


def test_what_a_pause_writes_back_is_what_the_rules_set(tmp_path):
    """Locals set on some ways only, in a loop that pauses: the game plays the same fast and
    checked, and the same again when it is saved and loaded at every pause."""
    from railrules.interpreter.engine.game import Game
    path = str(write_ruleset(tmp_path, LOOP_RULES, COMPONENTS_YAML))
    actions = ["go 2", "look", "go 1", "look"] * 2
    runs = []
    for load, reload in ((load_ruleset, False), (load_all_checked, False), (load_ruleset, True)):
        ruleset = load(path)
        game = ruleset.new_game(players=2, seed=0)
        saves, said = [], []
        for action in actions:
            if reload:
                game = Game.from_json(ruleset, game.to_json())
            saves.append(game.to_json())
            before = len(game.messages)
            game.apply(action)
            said += list(game.messages)[before:]
        runs.append((saves, said, game.digest(), game.result))
    assert runs[0] == runs[1] == runs[2]
    assert runs[0][1][:3] == ["seen 2, 2 so far", "seen 1, 3 so far", "last seen 1, 3 in all"]


# ------------------------------------------------------------------ assignment targets
# Every kind of target, fast and checked: the fast code takes an entity's field and an entry of
# an entity's map inline and anything else through the target's resolver; the checked mode
# takes every target through its resolver (and so is the other half of the differential).
TARGET_COMPONENTS = """\
constants:
  base: 10
variables:
  counter: 0
  trace: [1, 2]
  grid: [[1, 2], [3, 4]]
  book: {"a": 1}
player:
  cash: 5
  shares: {"red": 0}
kinds:
  tokens:
    fields: {value: 0, stock: {}, pairs: [], label: ""}
    entities:
      red: {name: Red, value: 3, stock: {"a": 1, "b": 2}, pairs: [[1, 2]]}
      green: {name: Green, value: 7, stock: {"a": 5}}
"""

TARGET_RULES = """\
procedure change(t, n):
    set t.value += n
    set t.stock["a"] -= n
    set t.pairs = t.pairs + [[n, n]]

game:
    set counter = 1
    set counter += 2
    set trace[0] = 9
    set trace[-1] += 1
    set grid[1][0] = 7
    set book["a"] += 4
    set red.value += 1
    set red.label = "r{red.value}"
    set red.stock["b"] += 3
    set red.pairs[0][1] = 5
    let t = green
    set t.value = 1
    set t.stock["a"] += 1
    let xs = [1, [2, 3]]
    set xs[1][0] = 8
    set xs[0] += 1
    let m = red.stock
    set m["a"] = 0
    let k = 0
    set k += 5
    for p in players:
        set p.cash -= 1
        set p.shares[red] = p.seat
        set p.shares[red] += 1
    for u in tokens:
        call change(u, 2)
    log "{counter} {trace} {grid} {book} {xs} {m} {k} {red.stock} {green.stock} {red.pairs} {green.pairs}"
    end_game "done"

score p = p.cash + p.shares[red]
"""


def _played(load, path) -> tuple:
    game = load(path).new_game(players=2, seed=0)
    return game.digest(), list(game.messages), game.result, game.to_json()


def test_every_target_changes_the_same_fast_and_checked(tmp_path):
    path = str(write_ruleset(tmp_path, TARGET_RULES, TARGET_COMPONENTS))
    fast, checked = _played(load_ruleset, path), _played(load_all_checked, path)
    assert fast == checked
    # (a map or list taken into a local is a copy: changing it leaves the field as it was)
    assert fast[1][-2] == "3 9, 3 1, 2, 7, 4 a 5 2, 8, 3 a 0, b 5 5 a -1, b 5 a 4 1, 5, 2, 2 2, 2"
    assert fast[2]["scores"] == {"p1": 6, "p2": 7}


def test_the_checked_mode_takes_every_target_through_its_resolver(tmp_path):
    from railrules.tools.author.generated import generated
    path = str(write_ruleset(tmp_path, TARGET_RULES, TARGET_COMPONENTS))
    fast = "".join(source for _, source in generated(path))
    checked = "".join(source for _, source in generated(path, checked=True))
    assert "= run.record(_o)" in fast and "run.record(" not in checked


# a target and the words of its fault (the statement `set TARGET = 1`)
TARGET_FAULTS = [
    ("red.zz", "'red' has no field 'zz'"),
    ("red.stock[\"zz\"]", "no entry 'zz' to change"),
    ("red.stock[1]", "no entry '1' to change"),
    ("red.stock[[1]]", "no entry '[1]' to change"),
    ("red.value.x", "3 has no field 'x'"),
    ("red.pairs[3]", "cannot assign to index 3 of a list"),
    ("red.pairs[0][\"a\"]", "cannot assign to index 'a' of a list"),
    ("trace[true]", "cannot assign to index true of a list"),
    ("grid[0][9]", "cannot assign to index 9 of a list"),
    ("book[\"zz\"]", "no entry 'zz' to change"),
    ("counter.x", "0 has no field 'x'"),
]


@pytest.mark.parametrize("target, words", TARGET_FAULTS, ids=[t for t, _ in TARGET_FAULTS])
def test_a_target_faults_with_the_same_words_fast_and_checked(tmp_path, target, words):
    said = _fault_both_ways(tmp_path, f"set {target} = 1", TARGET_COMPONENTS)
    assert said[0] == said[1]
    assert said[0][0] == "RR302" and words in said[0][1], said[0]
