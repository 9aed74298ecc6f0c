"""What a name means is said once (interpreter/dsl/scope.py), and its three users agree on it.

For a name of each kind of LANGUAGE.md §7, and a call of each kind, the checked code
(compiler), the generated fast code (codegen) and the type checker must give the same answer: the
same value from the first two, a type of it from the third. A kind added to the resolver
and not to these tables fails here, and so does a lookup written again outside the resolver.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from railrules.interpreter import load_ruleset
from railrules.interpreter.checks.check_types import _Types
from railrules.interpreter.compile.expressions import Codegen
from railrules.interpreter.compile.statements import Compiler, _Scope
from railrules.interpreter.dsl.parser import parse_expression
from railrules.interpreter.dsl.scope import Kind, resolve, resolve_call
from railrules.interpreter.errors import Pos, Sink
from test_language import COMPONENTS_YAML, write_ruleset

RULES = """\
def double(x) = x * 2

procedure bump(n):
    set counter += n

game:
    choose by players[0]:
        option stop:
            pass
    end_game "done"

end_condition crowded: counter > 2

score p = p.cash
"""

# the locals each expression sees: their values, and their types for the checker
LOCALS = {"here": 4, "f": lambda x: x + 1}
LOCAL_TYPES = {"here": "int", "f": "fn"}

# name -> (its kind, the value the compiled code gives, the type the checker gives)
NAMES = {
    "here": (Kind.LOCAL, 4, "int"),
    "counter": (Kind.VARIABLE, 0, "int"),
    "base": (Kind.CONSTANT, 10, "int"),
    "red": (Kind.ENTITY, "red", "entity:tokens"),
    "Scarlet": (Kind.ENTITY, "red", "entity:tokens"),   # an alias is its entity
    "players": (Kind.PLAYERS, ["p1", "p2"], "list:entity:players"),
    "tokens": (Kind.KIND, ["red", "green", "blue"], "list:entity:tokens"),
    "double": (Kind.FUNCTION, ("fn", 14), "fn"),         # a def as a value, called with 7
    "bump": (Kind.PROCEDURE, "bump", "proc"),            # a procedure as a value: its name
    "crowded": (Kind.END, False, "bool"),                # whether the game ended for it: not yet
    "nowhere": (Kind.UNDEFINED, "RR102 undefined name 'nowhere'", "any"),
}

# call -> (the kind of its name, the value, the checker's type)
CALLS = {
    "double(3)": (Kind.FUNCTION, 6, "any"),
    "len(tokens)": (Kind.BUILTIN, 3, "int"),
    "f(2)": (Kind.LOCAL, 3, "any"),                      # a local holding a function
    "bump(1)": (Kind.PROCEDURE, "RR105 'bump' is a procedure: use 'call bump(...)' as a statement "
                "or 'let x = call ...'", "any"),
    "doubel(1)": (Kind.UNDEFINED, "RR102 undefined function 'doubel'", "any"),
}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    components = COMPONENTS_YAML.replace("red: {name: Red,", "red: {name: Red, alias: Scarlet,")
    return load_ruleset(str(write_ruleset(tmp_path_factory.mktemp("scope"), RULES, components)))


def _answers(ruleset, text: str) -> tuple:
    """What the compiler's checked code, the generated fast code and the checker make of ``text``: a
    value, or the first diagnostic's code and message; None where the generator declines."""
    e = parse_expression(text, Pos("<test>", 1, 1))
    run = ruleset.new_game(players=2, seed=0).machine
    sink = Sink()
    slow = Compiler(ruleset.names, sink, generate=False).expr(e, _Scope(set(LOCALS)))

    def fell_back(run, loc):
        raise AssertionError(f"the generated code of {text!r} failed")
    fast = Codegen(ruleset.names, False, ruleset.program.space).function(e, set(LOCALS), fell_back)
    types = _Types(ruleset)
    types.sink, types.calls, types.params = Sink(), {}, {}
    typed = types.expr(e, dict(LOCAL_TYPES))
    if sink.diagnostics:
        d = sink.diagnostics[0]
        return f"{d.code} {d.message}", fast, typed
    return _plain(slow(run, dict(LOCALS))), fast and _plain(fast(run, dict(LOCALS))), typed


def _plain(value):
    return ("fn", value(7)) if callable(value) else value


@pytest.mark.parametrize("name", NAMES)
def test_a_name_means_the_same_to_compiler_generated_code_and_checker(tiny, name):
    kind, value, typed = NAMES[name]
    assert resolve(tiny.names, name, LOCALS).kind is kind
    slow, fast, checked = _answers(tiny, name)
    assert slow == value
    assert fast == (None if kind is Kind.UNDEFINED else value)  # undefined: left to the checked code
    assert checked == typed


@pytest.mark.parametrize("call", CALLS)
def test_a_call_means_the_same_to_compiler_generated_code_and_checker(tiny, call):
    kind, value, typed = CALLS[call]
    assert resolve_call(tiny.names, call.split("(")[0], LOCALS).kind is kind
    slow, fast, checked = _answers(tiny, call)
    assert slow == value
    assert fast == (None if isinstance(value, str) else value)  # a fault: left to the checked code
    assert checked == typed


def test_every_kind_is_in_the_tables():
    assert {k for k, _, _ in NAMES.values()} == set(Kind) - {Kind.BUILTIN}
    assert {k for k, _, _ in CALLS.values()} == {Kind.FUNCTION, Kind.BUILTIN, Kind.LOCAL,
                                                 Kind.PROCEDURE, Kind.UNDEFINED}


# a name looked up in the ruleset's names, or a builtin looked up, by hand
_GLOBAL = r"(variables|constants|entities|kinds|functions|procedures|ends)"
_LOOKUP = re.compile(rf"\bin (self\.)?(names|rs)\.{_GLOBAL}\b(?![.\[])|names\.{_GLOBAL}(\[|\.get\b)"
                     r"|builtins\.ALL(\[|\.get\b)|\bin builtins\.ALL\b(?!\.)")


@pytest.mark.parametrize("module", ["compile/statements.py", "compile/expressions.py", "checks/check_types.py"])
def test_names_are_resolved_only_by_the_scope_module(module):
    text = (Path(__file__).resolve().parents[1] / "interpreter" / module).read_text(encoding="utf-8")
    found = [m.group(0) for m in _LOOKUP.finditer(text)]
    assert found == [], f"{module} looks names up itself; ask interpreter.dsl.scope instead"
