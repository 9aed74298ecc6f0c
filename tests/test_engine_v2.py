"""Engine v2: derived values kept up to date, transactions with undo, cheap clones.

The toy rulesets come from test_language's ``write_ruleset``; the shipped games' property
checks (derived values against recomputation, undo to the start) live in game_checks.
"""
from __future__ import annotations

import random

import pytest

from railrules.interpreter import IllegalAction, RulesRuntimeError, load_ruleset
from railrules.interpreter.paths import shipped_rulesets
from railrules.interpreter.errors import RulesetError

from test_language import COMPONENTS_YAML, errors_of, write_ruleset

DERIVED_RULES = """\
derived total() = sum([t.value for t in tokens]) + counter
derived doubled(t) = t.value * 2
derived outer() = total() + 1
def plain(t) = doubled(t) + 0

game:
    while true:
        choose by players[0]:
            option bump(t in tokens):
                set t.value += 1
            option count_up:
                set counter += 1
            option touch_cash:
                set players[0].cash += 1
            option stop:
                break
    end_game "done"

score p = p.cash + outer() + plain(red)
"""


@pytest.fixture
def counted(tmp_path):
    """The derived ruleset, with every computation of a derived value counted by name."""
    ruleset = load_ruleset(str(write_ruleset(tmp_path, DERIVED_RULES)))
    calls: dict = {}
    for name in ("total", "doubled", "outer"):
        body = ruleset.tracked[name]

        def count(run, loc, body=body, name=name):
            calls[name] = calls.get(name, 0) + 1
            return body(run, loc)
        ruleset.tracked[name] = count
    return ruleset, calls


def test_a_derived_value_is_computed_once_while_nothing_it_read_changes(counted):
    ruleset, calls = counted
    game = ruleset.new_game(players=1, seed=0)
    assert game.evaluate("total()") == 3 + 7 + 5 + 0
    assert [game.evaluate("total()") for _ in range(5)] == [15] * 5
    assert calls == {"total": 1}
    game.apply("touch_cash")              # a field total() does not read
    assert game.evaluate("total()") == 15 and calls == {"total": 1}


@pytest.mark.parametrize("action, expected", [("bump red", 16), ("count_up", 16)])
def test_a_change_to_a_field_or_variable_it_read_recomputes_it(counted, action, expected):
    ruleset, calls = counted
    game = ruleset.new_game(players=1, seed=0)
    assert game.evaluate("outer()") == 16
    game.apply(action)
    assert game.evaluate("total()") == expected
    assert game.evaluate("outer()") == expected + 1   # outer read total's fields too
    assert calls == {"total": 2, "outer": 2}
    game.check_derived()


def test_derived_values_are_kept_per_argument(counted):
    ruleset, calls = counted
    game = ruleset.new_game(players=1, seed=0)
    assert [game.evaluate(f"doubled({t})") for t in ("red", "green", "red")] == [6, 14, 6]
    game.apply("bump green")
    assert [game.evaluate(f"plain({t})") for t in ("red", "green")] == [6, 16]
    assert calls == {"doubled": 3}        # red once, green before and after the bump


def test_undo_and_clone_keep_derived_values_right(counted):
    ruleset, calls = counted
    game = ruleset.new_game(players=1, seed=0)
    game.evaluate("total()")
    copy = game.clone()
    copy.apply("bump blue")
    assert copy.evaluate("total()") == 16 and game.evaluate("total()") == 15
    game.apply("count_up")
    game.undo()
    assert game.evaluate("total()") == 15
    copy.check_derived()
    game.check_derived()


def test_the_debug_check_finds_a_kept_value_that_went_stale(counted):
    ruleset, _ = counted
    game = ruleset.new_game(players=1, seed=0)
    game.evaluate("total()")
    (key, entry), = game.machine.cache.items()
    game.machine.cache[key] = (99, *entry[1:])  # as if the engine had missed a change
    with pytest.raises(RulesRuntimeError) as err:
        game.check_derived()
    assert err.value.diagnostics[0].code == "RR310"
    assert "total() is cached as 99 but is now 15" in err.value.diagnostics[0].message


def test_watching_finds_a_stale_value_where_it_is_given_out(counted):
    ruleset, _ = counted
    game = ruleset.new_game(players=1, seed=0)
    stale = game.watch_derived()
    game.evaluate("total()")
    assert stale == []                       # computed, not given from the cache: nothing to check
    (key, entry), = game.machine.cache.items()
    game.machine.cache[key] = (99, *entry[1:])  # as if the engine had missed a change
    game.evaluate("doubled(red)")
    assert stale == []                       # the stale value was not given out
    assert game.evaluate("outer()") == 100   # given out (wrong) inside another derived value
    assert stale == ["total() is cached as 99 but is now 15"]
    assert game.clone().machine.watched is None


THROUGH_DEFS = DERIVED_RULES.replace("def plain(t) = doubled(t) + 0\n", """def plain(t) = doubled(t) + 0
def small(t) = t.value + counter
def big(t) = (t.value * 3 + counter if t.value > counter else counter * 2 - t.value) + max([u.value for u in tokens where u != t], 0) + count([u for u in tokens where u.value > t.value]) + (players[0].cash if counter > 2 else 0)
derived through(t) = small(t) * 100 + big(t)
""")


def test_a_derived_value_calling_defs_notes_what_they_read(tmp_path):
    """A derived value whose defs are written in its code (a small one in place, a larger one as a
    Python function of its own, both noting the fields and variables they read): over random
    actions, every value given out equals its computation from scratch, and a kept value is
    given out again while nothing it read changed."""
    ruleset = load_ruleset(str(write_ruleset(tmp_path, THROUGH_DEFS)))
    source = ruleset.program.space["_typed"]
    assert any(tracking for (name, _, tracking) in source if name == "big"), source   # (its own function)
    rng = random.Random(3)
    for seed in range(4):
        game = ruleset.new_game(players=1, seed=seed)
        stale = game.watch_derived()
        for _ in range(40):
            for t in ("red", "green", "blue"):
                value = game.evaluate(f"through({t})")
                assert value == game.evaluate(f"through({t})") == game.evaluate(f"small({t}) * 100 + big({t})")
                _, fields, variables = game.machine.cache["through", (t,)]   # (given out the second time)
                assert {(e, f) for e, f, _ in fields} >= {(t, "value"), ("p1", "cash")} or \
                    game.evaluate("counter") <= 2   # (the cash is read only past 2)
                assert "counter" in dict(variables)
            game.apply(rng.choice([a for a in game.legal_actions() if a.name != "stop"]))
            assert stale == []
        game.check_derived()


def test_derived_is_a_keyword_and_a_derived_value_cannot_change_anything(tmp_path):
    bad = DERIVED_RULES + "\ndef derived(x) = x\n"
    assert [d.code for d in errors_of(write_ruleset(tmp_path / "kw", bad))] == ["RR101"]
    with pytest.raises(RulesetError):
        load_ruleset(str(write_ruleset(tmp_path / "stmt", DERIVED_RULES + "\nderived d() = set counter = 1\n")))


# ------------------------------------------------------------------ transactions
def _random_game(name, players, seed, steps):
    ruleset = load_ruleset(name)
    game = ruleset.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    states = [game.to_json()]
    for _ in range(steps):
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))
        states.append(game.to_json())
    return game, states


@pytest.mark.parametrize("name, players", [("chicago_express", 4), ("german_railways", 3),
                                           ("stephensons_rocket", 3)])
def test_undo_walks_back_through_every_state_exactly(name, players):
    game, states = _random_game(name, players, seed=5, steps=150)
    messages = len(game.messages)
    for before in reversed(states[:-1]):
        game.undo()
        assert game.to_json() == before
    assert len(game.messages) < messages
    with pytest.raises(IllegalAction):
        game.undo()
    # and forward again: the same actions give the same states
    rng = random.Random(5)
    for after in states[1:]:
        game.apply(rng.choice(game.legal_actions()))
        assert game.to_json() == after


@pytest.mark.parametrize("name", ["chicago_express", "baltimore_ohio"])
def test_a_game_that_keeps_no_undo_plays_the_same_game_and_refuses_undo(name):
    ruleset = load_ruleset(name)
    kept, playout = ruleset.new_game(4, 3), ruleset.new_game(4, 3, undo=False)
    rng = random.Random(3)
    for _ in range(120):
        action = rng.choice(kept.legal_actions())
        assert playout.legal_actions() == kept.legal_actions()
        kept.apply(action)
        playout.apply(action)
        assert playout.digest() == kept.digest()
    assert list(playout.messages) == list(kept.messages)
    with pytest.raises(IllegalAction, match="undo=False keeps none"):
        playout.undo()
    kept.undo(120)  # the game that keeps its undo walks back to the start
    assert kept.digest() == ruleset.new_game(4, 3).digest()


def test_a_clone_and_its_original_never_see_each_others_moves():
    game, _ = _random_game("chicago_express", 4, seed=9, steps=60)
    frozen = game.to_json()
    copy = game.clone()
    rng = random.Random(1)
    while not copy.is_over:
        copy.apply(rng.choice(copy.legal_actions()))
    assert game.to_json() == frozen
    game.apply(game.legal_actions()[-1])
    assert copy.is_over and copy.to_json() != game.to_json()


@pytest.mark.parametrize("undo", [True, False])
def test_a_failing_rule_leaves_the_state_byte_identical(tmp_path, undo):
    """Also in a game that keeps no undo (a playout's): the decision still rolls back."""
    rules = """\
    game:
        while true:
            choose by players[0]:
                option spend(n in range(1, 9)):
                    set counter += n
                    set red.value += n
                    add n to trace
                    pay n from players[0] to bank
                option stop:
                    break
        end_game "done"

    score p = p.cash
    """
    with_bank = COMPONENTS_YAML + "  banks:\n    entities:\n      bank: {name: Bank, cash: 0}\n"
    ruleset = load_ruleset(str(write_ruleset(tmp_path, rules, with_bank)))
    game = ruleset.new_game(players=1, seed=0, undo=undo)
    game.apply("spend 2")
    before, messages = game.to_json(), list(game.messages)
    with pytest.raises(RulesRuntimeError):
        game.apply("spend 8")               # the pay fails after three changes
    assert game.to_json() == before and game.messages == messages
    if undo:
        game.undo()
        assert game.evaluate("[counter, red.value, trace, players[0].cash]") == [0, 3, [], 5]
    else:
        game.apply("spend 1")               # and goes on from there
        assert game.evaluate("[counter, red.value, trace, players[0].cash]") == [3, 6, [2, 1], 2]


# ------------------------------------------------------------------ bounds
def test_each_evaluation_has_the_whole_step_budget(tmp_path):
    from test_language import with_limits
    ruleset = load_ruleset(str(write_ruleset(tmp_path, DERIVED_RULES, ruleset=with_limits(steps=5000))))
    game = ruleset.new_game(players=1, seed=0)
    # 100 evaluations of 1000 steps each: 100,000 steps in all, far beyond the budget of 5000
    assert all(game.evaluate("count([x for x in range(0, 1000)])") == 1000 for _ in range(100))
    with pytest.raises(RulesRuntimeError):
        game.evaluate("count([x for x in range(0, 6000)])")


def test_a_list_cannot_grow_past_the_cap_by_doubling(tmp_path):
    rules = """\
    game:
        set trace = [1]
        while true:
            set trace += trace
            if count(trace) > 200000:
                break
        end_game "done"

    score p = p.cash
    """
    ruleset = load_ruleset(str(write_ruleset(tmp_path, rules)))
    with pytest.raises(RulesRuntimeError) as err:
        ruleset.new_game(players=1, seed=0)
    assert "a list longer than 100000 items" in str(err.value)


def test_a_huge_product_of_domains_stops_with_a_clear_error(tmp_path):
    rules = """\
    game:
        choose by players[0]:
            option pick(a in range(0, 1000), b in range(0, 1000), c in range(0, 1000)):
                require a + b + c < 0 else "never"
            option stop:
                pass
        end_game "done"

    score p = p.cash
    """
    game = load_ruleset(str(write_ruleset(tmp_path, rules))).new_game(players=1, seed=0)
    with pytest.raises(RulesRuntimeError) as err:
        game.legal_actions()
    d = err.value.diagnostics[0]
    assert d.code == "RR303" and "option 'pick'" in d.message and d.pos.line == 3


def test_an_interpolated_constant_is_computed_or_refused_once(tmp_path):
    """`const greeting = "hello {x}"` with x undefined is one RR102 at x, no follow-on fault;
    with a known name it is computed when the ruleset loads."""
    ok = DERIVED_RULES + '\nconst greeting = "base {base}, {red}"\nend_condition greeted: greeting == ""\n'
    assert load_ruleset(str(write_ruleset(tmp_path / "ok", ok))).constants["greeting"] == "base 10, Red"
    bad = DERIVED_RULES + '\nconst greeting = "hello {x}"\nend_condition greeted: greeting == ""\n'
    diags = errors_of(write_ruleset(tmp_path / "bad", bad))
    assert [(d.code, d.message) for d in diags] == [("RR102", "undefined name 'x'")]


# ------------------------------------------------------------------ properties over many games
def _property_runs():
    """200 seeded games per shipped ruleset, spread over its player counts."""
    from railrules.interpreter.paths import shipped_rulesets
    for name in shipped_rulesets():
        ruleset = load_ruleset(name)
        counts = list(range(ruleset.players_min, ruleset.players_max + 1))
        yield name, [(counts[i % len(counts)], 1000 + i) for i in range(200)]


@pytest.mark.slow
@pytest.mark.parametrize("name, games", list(_property_runs()), ids=lambda x: x if isinstance(x, str) else "")
def test_engine_properties_over_200_games(name, games):
    """Every kept derived value the engine gives out equals its computation from scratch at that
    moment (watch_derived), and after every tenth action so does every kept value (check_derived,
    one kept value at a time: the costly part of this test when it ran after every action): the
    ruleset is loaded with every def made a derived value, so this checks that the engine
    notices every change any function of the rules reads. At the end, undo back to the start
    gives the first state byte for byte, and a clone taken mid-game and played out leaves its
    original untouched."""
    ruleset = load_ruleset(name, derive_all=True)
    kept = 0
    for players, seed in games:
        game = ruleset.new_game(players, seed)
        start = game.to_json()
        stale = game.watch_derived()
        rng = random.Random(seed)
        clone_at = None
        while not game.is_over:
            game.apply(rng.choice(game.legal_actions()))
            assert not stale, f"{name} {players}p seed {seed}, decision {game.decisions}: {stale[0]}"
            if game.decisions % 10 == seed % 10:
                game.check_derived()
            kept = max(kept, len(game.machine.cache))
            if clone_at is None and rng.random() < 0.02:
                clone_at = game.clone()
        if clone_at is not None:
            before = game.to_json()
            while not clone_at.is_over:
                clone_at.apply(rng.choice(clone_at.legal_actions()))
            assert game.to_json() == before
        game.undo(game.decisions)
        assert game.to_json() == start, f"{name} {players}p seed {seed}: undo to the start differs"
    assert kept > 10, f"{name} kept {kept} derived values: the check above proved little"


# ------------------------------------------------------------------ damaged saves
@pytest.mark.parametrize("damage, words", [
    (lambda s: s["entities"].pop("bank"), "missing bank"),
    (lambda s: s["entities"].__setitem__("p9", dict(s["entities"]["p1"])), "unknown p9"),
    (lambda s: s.__setitem__("turn", "p9"), "turn of 'p9'"),
    (lambda s: s.__setitem__("players", 99), "99 players"),
    (lambda s: s["kinds"]["players"].append("p5"), "players are damaged"),
    (lambda s: s["entities"]["NYC"].pop("income"), "entity NYC is damaged"),
    (lambda s: s["globals"].__setitem__("extra", 1), "variables do not match"),
    (lambda s: s["entities"]["NYC"].__setitem__("income", 10 ** 30), "a value a game cannot"),
    (lambda s: s["history"].append({"bid": 7}), "a value a game cannot"),
    (lambda s: s.__setitem__("rng", -1), "random generator"),
])
def test_a_damaged_save_is_refused_when_loaded_with_what_is_wrong(damage, words):
    import json
    from railrules.interpreter import BadSave, Game
    game, _ = _random_game("chicago_express", 4, seed=3, steps=20)
    state = json.loads(game.to_json())
    damage(state)
    with pytest.raises(BadSave) as err:
        Game.from_json(game.ruleset, json.dumps(state))
    d = err.value.diagnostics[0]
    assert d.code == "RR304" and words in d.message, d.message
    Game.from_json(game.ruleset, game.to_json())  # the undamaged save loads


# ------------------------------------------------------------------ straight procedures
STRAIGHT_RULES = """\
procedure add_twice(n):
    call add_once(n)
    call add_once(n)
    return counter

procedure add_once(n):
    set counter += n
    emit added(n)

on added(n):
    add n to trace

on added(n) when n > 2:
    set red.value += 1

procedure asks():
    choose by players[0]:
        option more:
            set counter += 100
        option less:
            pass

procedure countdown(n):
    if n > 0:
        set counter += 1
        call countdown(n - 1)

procedure broken(n):
    set counter += 1
    set blue.value = n // 0

procedure relay(then):
    call then(1)

game:
    while true:
        choose by players[0]:
            option go(x in range(1, 4)):
                let total = call add_twice(x)
                set green.value = total
            option ask:
                call asks()
            option down:
                call countdown(3)
            option relayed:
                call relay(add_once)
            option fail:
                call broken(1)
            option stop:
                break
    end_game "done"

score p = counter
"""


def test_procedures_that_never_pause_are_found(tmp_path):
    ruleset = load_ruleset(str(write_ruleset(tmp_path, STRAIGHT_RULES)))
    straight = ruleset.program.straight
    assert {"proc:add_twice", "proc:add_once", "proc:broken", "on:added:0", "on:added:1"} <= straight
    # a choice in it, a call of itself, a call of a procedure held by a local, or the game:
    # frames on the stack as before
    assert not {"proc:asks", "proc:countdown", "proc:relay", "game"} & straight


def test_a_straight_procedure_runs_as_a_frame_would(tmp_path):
    ruleset = load_ruleset(str(write_ruleset(tmp_path, STRAIGHT_RULES)))
    game = ruleset.new_game(players=1, seed=0, count_rules=True)
    for label in ["go 1", "go 3", "down", "ask", "more", "relayed"]:
        game.apply(label)
    assert game.evaluate("[counter, trace, red.value, green.value]") == [1 * 2 + 3 * 2 + 3 + 100 + 1, [1, 1, 3, 3, 1], 5, 8]
    # every call counted, the handlers' guards where they held
    counts = game.rule_counts
    assert (counts["proc:add_twice"], counts["proc:add_once"], counts["on:added:0"], counts["on:added:1"],
            counts["proc:countdown"]) == (2, 5, 5, 2, 4)
    # a save holds only the paused frames: it loads and plays on alike
    copy = type(game).from_json(ruleset, game.to_json())
    for g in (game, copy):
        g.apply("go 2")
    assert copy.to_json() == game.to_json()


def test_a_fault_in_a_straight_procedure_names_it_and_its_line(tmp_path):
    root = write_ruleset(tmp_path, STRAIGHT_RULES)
    game = load_ruleset(str(root)).new_game(players=1, seed=0)
    before = game.to_json()
    with pytest.raises(RulesRuntimeError) as caught:
        game.apply("fail")
    d = caught.value.diagnostics[0]
    line = STRAIGHT_RULES.splitlines().index("    set blue.value = n // 0") + 1
    assert d.code == "RR302" and "in procedure broken" in d.message and (d.pos.line, d.pos.file) == (line, str(root / "main.rules"))
    assert game.to_json() == before


# ------------------------------------------------------------------ requires tested early
EARLY_RULES = """\
game:
    choose by players[0]:
        option pick(a in range(0, 5), b in range(0, 5)):
            require a % 2 == 0 else "{a} is odd"
            require b > a else "{b} is not above {a}"
            require counter == 0 else "too late"
            require [x for x in [b] where x > 0] != [] or a > 9 else "never"
        option stop:
            pass
    end_game "done"

score p = counter
"""


def test_a_require_is_tested_as_soon_as_its_parameters_have_values(tmp_path):
    ruleset = load_ruleset(str(write_ruleset(tmp_path, EARLY_RULES)))
    spec = next(s for s in ruleset.program.codes["game"].instrs[0].options if s.name == "pick")
    # the first parameter's requires (and the one that reads none) with it; the others with b
    assert spec.levels == (0, 1, 0, 1)
    game = ruleset.new_game(players=1, seed=0)
    picks = [a.args for a in game.legal_actions() if a.name == "pick"]
    assert picks == [(a, b) for a in range(5) for b in range(5) if a % 2 == 0 and b > a and b > 0]
    # a refusal still gives the reason of the first require that fails, in the rules' order
    for label, words in (("pick 1 3", "1 is odd"), ("pick 2 1", "1 is not above 2")):
        with pytest.raises(IllegalAction, match=words):
            game.apply(label)


@pytest.mark.parametrize("name", shipped_rulesets())
def test_generated_code_never_falls_back_for_a_mistake_of_its_own(name):
    """Generated code falls back on its checked code for any error it does not word itself
    (a wrong type in the rules, worded properly by the checked code). A Python name error is never
    the rules' doing but a mistake of the generator, which the fallback would hide as a slowdown:
    here it is raised instead, over random games of each shipped ruleset."""
    ruleset = load_ruleset(name)
    space = ruleset.program.space
    said = space["_SAID"]
    space["_SAID"] = (*said, NameError)  # re-raised by every generated function, not fallen back on
    try:
        for seed in range(1, 4):
            game = ruleset.new_game(ruleset.players_min, seed)
            rng = random.Random(seed)
            while not game.is_over:
                game.apply(rng.choice(game.legal_actions()))
            for p in game.players:
                game.estimate(p)
    finally:
        space["_SAID"] = said


# ------------------------------------------------------------------ kept actions
KEPT_RULES = """\
game:
    while true:
        choose by players[0]:
            option pick(x in [1, true, 2, "a"]):
                set counter += 1
            option pair(x in [[1, 2], [1]]):
                set counter += 10
            option checked(x in [1, true, 3]):
                require counter < 100 or x == 3 else "only 3 past 100"
                set counter += 100
            option listed(x in [[1, 2], [3]]):
                require counter < 1000 else "no more"
                set counter += 1000
            option stop:
                break
    end_game "done"

score p = p.cash
"""


def test_an_action_listed_again_is_the_same_one_and_equal_values_keep_their_own(tmp_path):
    """An option's Actions are made once and listed again (OptionSpec.made), by the very value:
    1 and true are equal keys but stay two actions, and list values have no key at all. Options
    with and without requires are listed by different code (codegen's choices, the machine)."""
    game = load_ruleset(str(write_ruleset(tmp_path, KEPT_RULES))).new_game(players=1, seed=0)
    picks = ["pick 1", "pick true", "pick 2", "pick a", "pair [1, 2]", "pair [1]"]
    first = game.legal_actions()
    listed = ["listed [1, 2]", "listed [3]"]
    assert [a.label for a in first] == picks + ["checked 1", "checked true", "checked 3", *listed, "stop"]
    for label in ("pick true", "pick 1", "pair [1]", "checked true"):
        game.apply(next(a for a in game.legal_actions() if a.label == label))
    assert game.evaluate("counter") == 112
    again = game.legal_actions()
    assert [a.label for a in again] == picks + ["checked 3", *listed, "stop"]
    assert again[:6] == first[:6] and again[2] is first[2] and again[3] is first[3]
    # 1 and true share a key, so each listing makes them again (right, if not kept)
    assert [type(a.args[0]) for a in again[:2]] == [int, bool]
    game.apply(again[1])  # pick true, not pick 1
    assert game.state["history"][-1] == ["pick", True] and game.evaluate("counter") == 113


KEPT_ENTITY_RULES = """\
game:
    while true:
        choose by players[0]:
            option pick(t in trace):
                set counter += 1
            option grow(t in tokens):
                add t to trace
            option stop:
                break
    end_game "done"

score p = p.cash
"""


def test_the_actions_of_entities_kept_or_not_are_listed_in_the_domains_order(tmp_path):
    """An option without requires over entities lists an Action for each value, in the domain's
    order: new values among values already listed, and a value listed twice, too; an Action
    listed before is listed again as the very same one."""
    game = load_ruleset(str(write_ruleset(tmp_path, KEPT_ENTITY_RULES))).new_game(players=1, seed=0)
    grows = ["grow red", "grow green", "grow blue"]
    first = game.legal_actions()
    assert [a.label for a in first] == grows + ["stop"]
    game.apply(first[1])   # grow green
    second = game.legal_actions()
    assert [a.label for a in second] == ["pick green", *grows, "stop"]
    assert all(a is b for a, b in zip(second[1:4], first[:3]))
    game.apply(second[1])  # grow red: green is kept, red is new
    third = game.legal_actions()
    assert [a.label for a in third] == ["pick green", "pick red", *grows, "stop"]
    assert third[0] is second[0]
    game.apply(third[3])   # grow green again: every value kept, green twice
    fourth = game.legal_actions()
    assert [a.label for a in fourth] == ["pick green", "pick red", "pick green", *grows, "stop"]
    assert fourth[0] is third[0] and fourth[1] is third[1] and fourth[2] is third[0]
    game.apply(fourth[2])
    assert game.evaluate("counter") == 1 and game.state["history"][-1] == ["pick", "green"]
