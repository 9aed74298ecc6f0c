"""Rules-language snippets of a game (``Game.evaluate`` and ``Game.execute``: scenarios, the
play prompt, tests), compiled by the loader's compiler so that the engine never imports it."""
from __future__ import annotations

from ..compile.instructions import Exec, Return
from ..compile.statements import Compiler, _Scope
from ..dsl.parser import parse_expression, parse_rules
from ..errors import Diagnostic, Pos, RulesetError, Sink
from ..runtime.code import Code


def expression(names, text: str, params: tuple, where: Pos, checked: bool = False):
    """``fn(run, values)``: expression ``text`` over ``names`` with parameters ``params``
    (``checked``: in checked mode only, as every expression of an all-checked program);
    RulesetError when it does not compile."""
    sink = Sink()
    fn = Compiler(names, sink, checked=checked).expr(parse_expression(text, where), _Scope(set(params)))
    if sink.errors:
        raise RulesetError(sink.diagnostics)
    return fn


def statements(names, text: str, where: Pos) -> tuple:
    """``(code, program)``: simple statements (set, pay, add, remove) as a code unit ending in a
    return, to set up a position; RulesetError when they do not compile or are not simple."""
    sink = Sink()
    module = parse_rules(f"procedure _setup():\n    {text}\n", where.file, sink,
                         line_offset=where.line - 2)
    if sink.errors or not module.definitions:
        raise RulesetError(sink.diagnostics or [Diagnostic("RR101", f"cannot parse '{text}'", where)])
    compiler = Compiler(names, sink)
    code = Code("<setup>", [], where, space=compiler.space)
    compiler.block(module.definitions[0].body, _Scope(set()), code.instrs)
    if sink.errors or not all(isinstance(i, Exec) for i in code.instrs):
        raise RulesetError(sink.diagnostics or [Diagnostic(
            "RR105", "a position is set up with set, pay, add and remove only", where)])
    code.instrs.append(Return(where))
    compiler.program.codes[code.key] = code   # the program writes its function when it runs
    return code, compiler.program
