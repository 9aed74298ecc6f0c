"""Compiled rule code touches the game only through the members of the ``Run`` protocol
(interpreter/runtime/run.py): the generated Python of every shipped ruleset and the helpers it
calls name no other member of ``run``, and the engine's machine has them all."""
from __future__ import annotations

import io
import tokenize
from pathlib import Path

import pytest

from railrules.interpreter import load_ruleset
from railrules.interpreter.engine.machine import ConstantRun
from railrules.interpreter.paths import shipped_rulesets
from railrules.interpreter.runtime.run import MEMBERS, ExpressionRun, Run
from railrules.tools.author.generated import generated

PACKAGE = Path(__file__).resolve().parents[1] / "interpreter"
# the code that receives ``run`` from generated code, and the generators that write it
HELPERS = ["runtime/helpers.py", "runtime/values.py", "runtime/code.py", "dsl/builtins.py",
           "dsl/functions.py", "dsl/turns.py", "compile/instructions.py", "compile/units.py",
           "compile/expressions.py", "compile/statements.py"]


def members_used(source: str) -> set[str]:
    """The attributes read or written of the name ``run`` in Python source."""
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
              if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT,
                                tokenize.DEDENT)]
    return {c.string for a, b, c in zip(tokens, tokens[1:], tokens[2:])
            if a.type == tokenize.NAME and a.string == "run" and b.string == "." and c.type == tokenize.NAME}


def _in_strings(source: str) -> set[str]:
    """Members of ``run`` named inside the string literals of a generator's source (the code it
    writes), as well as in its own code."""
    found = members_used(source)
    for t in tokenize.generate_tokens(io.StringIO(source).readline):
        if t.type == tokenize.STRING or t.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            text = t.string
            for k in range(len(text)):
                if text.startswith("run.", k) and (k == 0 or not (text[k - 1].isalnum() or text[k - 1] == "_")):
                    name = ""
                    for ch in text[k + 4:]:
                        if not (ch.isalnum() or ch == "_"):
                            break
                        name += ch
                    if name:
                        found.add(name)
    return found


def test_members_used_reads_the_attributes_of_run_only():
    assert members_used("x = run.ent['a'] + runs.glob + run . steps\nrun.tick(1)  # run.nothing\n") \
        == {"ent", "steps", "tick"}
    assert _in_strings('out = f"run.steps = _s = run.steps + {n}"; y = "srun.no"') == {"steps"}


@pytest.mark.parametrize("name", shipped_rulesets())
def test_generated_code_touches_only_the_protocol(name):
    sources = generated(name)
    assert sources
    used = set().union(*(members_used(source) for _, source in sources))
    assert {"ent", "steps", "record"} <= used          # the scan sees the generated code
    assert used <= MEMBERS, f"not in runtime/run.py's Run: {sorted(used - MEMBERS)}"


def test_the_helpers_and_generators_touch_only_the_protocol():
    used = {name: _in_strings((PACKAGE / name).read_text(encoding="utf-8")) for name in HELPERS}
    assert used["runtime/helpers.py"] and used["compile/units.py"] and used["compile/expressions.py"]
    strays = {name: sorted(found - MEMBERS) for name, found in used.items() if found - MEMBERS}
    assert not strays, f"members of run not in runtime/run.py's Run: {strays}"


def test_every_member_is_documented_and_some_code_uses_it():
    everything = set().union(*(_in_strings((PACKAGE / name).read_text(encoding="utf-8")) for name in HELPERS))
    assert MEMBERS <= everything, f"in the protocol but used nowhere: {sorted(MEMBERS - everything)}"
    for proto in (ExpressionRun, Run):
        for member, value in vars(proto).items():
            if not member.startswith("_"):
                doc = value.fget.__doc__ if isinstance(value, property) else value.__doc__
                assert doc and doc.strip(), member


def test_the_machine_and_the_constants_run_have_the_members():
    game = load_ruleset(shipped_rulesets()[0]).new_game(4, 1)
    missing = [m for m in MEMBERS if not hasattr(game.machine, m)]
    assert not missing
    expression = {m for m in MEMBERS if hasattr(ExpressionRun, m) or m in ExpressionRun.__annotations__}
    constants = ConstantRun({}, None, 10)
    assert [m for m in expression if not hasattr(constants, m)] == []
    assert expression < MEMBERS
