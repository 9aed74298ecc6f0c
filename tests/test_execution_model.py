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
from railrules.interpreter.errors import Pos
from railrules.interpreter.paths import shipped_rulesets
from railrules.interpreter.runtime.code import Code

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
