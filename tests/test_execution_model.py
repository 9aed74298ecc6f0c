"""The execution model of the generated code: which calls run their unit's function from the
caller's (interpreter/compile/units.py), each choice point's generated lister of legal actions
(interpreter/compile/legal.py), and saves taken where those calls are under way."""
from __future__ import annotations

import random

import pytest

from railrules.interpreter import load_ruleset
from railrules.interpreter.compile.instructions import CallProc, Emit, Return
from railrules.interpreter.compile.units import acyclic
from railrules.interpreter.engine.game import Game
from railrules.interpreter.engine.machine import Machine
from railrules.interpreter.errors import Pos, RulesRuntimeError
from railrules.interpreter.paths import shipped_rulesets
from railrules.interpreter.runtime.code import Code
from railrules.tools.author.generated import generated
from test_governor import META, game_rules
from test_hostile import ruleset

_AT = Pos("t.rules", 1, 1)


def _code(key: str, *instrs) -> Code:
    return Code(key, [], _AT, [*instrs, Return(_AT)])


def test_a_unit_in_a_cycle_of_calls_or_events_is_not_called_from_its_caller():
    codes = {k: c for k, c in (
        ("game", _code("game", CallProc(_AT, "proc:a", []), CallProc(_AT, "proc:self", []))),
        ("proc:a", _code("proc:a", CallProc(_AT, "proc:b", []))),
        ("proc:b", _code("proc:b", Emit(_AT, "moved", []))),
        ("on:moved:0", _code("on:moved:0", CallProc(_AT, "proc:a", []))),   # a -> b -> on moved -> a
        ("proc:self", _code("proc:self", CallProc(_AT, "proc:self", []))),
        ("proc:leaf", _code("proc:leaf")),
    )}
    assert acyclic(codes, {"moved": ["on:moved:0"]}) == {"game", "proc:leaf"}
    assert acyclic(codes, {}) == {"game", "proc:a", "proc:b", "proc:leaf", "on:moved:0"}


def _played(name: str, decisions: int, seed: int = 3):
    """A game of ``name`` and each of its first ``decisions`` positions, played at random."""
    ruleset = load_ruleset(name)
    players = min(max(3, ruleset.players_min), ruleset.players_max)
    game = ruleset.new_game(players, seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        if game.is_over:
            break
        yield game
        game.apply(rng.choice(game.legal_actions()))


@pytest.mark.parametrize("name", shipped_rulesets())
def test_the_generated_lister_lists_what_the_machine_lists_one_option_at_a_time(name):
    listed = several = 0
    for game in _played(name, 150):
        machine = game.machine
        frame = game.state["stack"][-1]
        instr = machine.question()
        fast = machine.legal()
        charged = machine.steps
        assert instr.lister is not None   # asked for once, then kept (False: the machine's way)
        listed += bool(instr.lister)
        several += bool(instr.lister) and any(len(spec.domains) > 1 for spec in instr.options)
        machine.steps = 0
        assert fast == machine._listed(instr, frame)
        assert charged == machine.steps   # the same steps charged: the limits hit at the same points
    assert listed   # the shipped games' choices have listers
    if any(len(spec.domains) > 1 for code in game.ruleset.program.codes.values()
           for instr in code.instrs if hasattr(instr, "options") for spec in instr.options):
        assert several   # an option of several parameters is listed by generated code too


@pytest.mark.parametrize("name", shipped_rulesets())
def test_a_save_taken_at_any_choice_goes_on_as_the_game_would(name):
    """A choice inside a procedure that its caller's function called (not the machine's loop)
    is saved as any other: the frames and their locals are the whole of where the rules stand."""
    first = None
    for game in _played(name, 120, seed=5):
        if first is None:
            first = game
        loaded = Game.from_json(game.ruleset, game.to_json())
        assert loaded.state == game.state
        assert loaded.legal_actions() == game.legal_actions()
        action = game.legal_actions()[-1]
        twin = game.clone()
        loaded.apply(action)
        twin.apply(action)
        assert loaded.digest() == twin.digest()
    assert first is not None


_TWICE = """\
game:
    cite "c"
    let y = call twice(N)
    choose by players[0]:
        option go:
            log "y is {y}"
    end_game "done"

procedure twice(n):
    cite "c"
    if n > 5:
        choose by players[0]:
            option stop:
                pass
    return n * 2

score p = p.cash
"""


def _twice(tmp_path, monkeypatch, n: int):
    """A game whose block keeps what a procedure that may pause returns for ``n``, and the
    values the machine popped (handed from a returning frame to the one below)."""
    from test_hostile import ruleset
    popped: list = []
    pop = Machine.pop
    monkeypatch.setattr(Machine, "pop", lambda self, value: (popped.append(value), pop(self, value))[1])
    game = load_ruleset(str(ruleset(tmp_path, rules=_TWICE.replace("N", str(n))))).new_game(1, 0)
    return game, popped


def test_a_call_that_may_pause_but_returns_is_popped_by_its_caller_with_its_locals_unwritten(tmp_path, monkeypatch):
    game, popped = _twice(tmp_path, monkeypatch, 3)
    assert popped == []   # returned to its caller's function: no frame for the machine to pop
    [frame] = game.state["stack"]
    assert frame["c"] == "game" and frame["L"] == {"y": 6}   # written back at the choice only
    game.apply(game.legal_actions()[0])
    assert "y is 6" in game.messages and game.is_over


def test_a_call_that_paused_returns_its_value_through_the_machine(tmp_path, monkeypatch):
    game, popped = _twice(tmp_path, monkeypatch, 7)
    assert [f["c"] for f in game.state["stack"]] == ["game", "proc:twice"]
    assert game.state["stack"][0]["L"] == {} and game.state["stack"][1]["L"] == {"n": 7}
    loaded = Game.from_json(game.ruleset, game.to_json())
    for g in (game, loaded):
        g.apply(g.legal_actions()[0])
        g.apply(g.legal_actions()[0])
        assert "y is 14" in g.messages and g.is_over
    assert popped == [14, 14]


def test_a_value_returned_past_the_limits_is_refused_at_the_return(tmp_path):
    """Measured where the rule returns it (RR312 at the procedure's return), not where the
    caller keeps it."""
    from test_hostile import ruleset
    from railrules.interpreter import RulesRuntimeError
    from railrules.interpreter.runtime.governor import MAX_DEPTH
    rules = _TWICE.replace("N", "3").replace("return n * 2", "let xs = [n]\n"
                                             f"    repeat {MAX_DEPTH - 2} times:\n        set xs = [xs]\n"
                                             "    return [[xs]]")
    with pytest.raises(RulesRuntimeError) as info:
        load_ruleset(str(ruleset(tmp_path, rules=rules))).new_game(1, 0)
    diag = info.value.diagnostics[0]
    assert (diag.code, diag.pos.line) == ("RR312", 18) and "in procedure twice" in diag.message



def _loop_ruleset(tmp_path, n: int, steps: int = 1_000_000, body: tuple = ("set x += i",)) -> str:
    """The folder of a game that walks ``range(0, n)`` with ``body``, its budget ``steps``."""
    folder = tmp_path / f"{n}-{steps}-{len(body)}"
    folder.mkdir()
    rules = game_rules(f"for i in range(0, {n}):", *(f"    {line}" for line in body))
    return str(ruleset(folder, rules=rules, meta=META % steps))


def _unit(root: str) -> str:
    [unit] = [s for _, s in generated(root, "game") if s.startswith("# unit game\n")]
    return unit


def test_a_loop_of_one_block_is_its_own_while_and_counts_its_steps_each_time_round(tmp_path):
    """A ``for`` whose body is one block (compile/units.py: ``loops``) goes round without the
    unit's dispatch, its head's steps counted each time round (the test past the last
    included), and one too long for the budget stops at the loop; one that leaves early by a
    ``break`` is such a loop as well."""
    spent = {}
    for n in (0, 1, 7):
        root = _loop_ruleset(tmp_path, n)
        game = load_ruleset(root).new_game(1, 0)
        assert game.is_over and game.state["globals"]["x"] == 2 + sum(range(n))
        spent[n] = game.machine.steps
    assert spent[7] - spent[0] == 7 * (spent[1] - spent[0]) > 0
    unit = _unit(root)
    assert unit.count("while True:") == 1 and "pc = 3\n" not in unit and "continue" in unit
    with pytest.raises(RulesRuntimeError) as info:
        load_ruleset(_loop_ruleset(tmp_path, 100_000, steps=5000)).new_game(1, 0)
    [d] = info.value.diagnostics
    assert d.code == "RR303" and d.pos.line == 3
    root = _loop_ruleset(tmp_path, 7, body=("if i > 2:", "    break"))
    assert load_ruleset(root).new_game(1, 0).is_over
    assert "break" in _unit(root)
