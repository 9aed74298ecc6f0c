"""The legal actions of a choice point, listed by one generated function: ``lister(run, L, player)``.

For each option of the choice, in order, the function tests its requires (an option without
parameters) or lists the values of its parameters that pass them: a loop for each parameter but
the last, testing the requires that read no later one, and the option's generated ``choices``
for the last (:meth:`.expressions.Codegen.choices`), charging each value listed to the step
budget, as :meth:`interpreter.engine.machine.Machine.legal` does one option at a time
(``Machine._enumerate``: the same calls, on the same locals, in the same order). It has no
fallback of its own and words no fault: when anything in it raises, the machine lists the
actions again its own way, which says what is wrong (a domain that is not a list, a rule fault,
the budget spent, a list among the values before the last, which has no key in ``made``). A
choice with an option that has no generated ``choices`` has no lister (None): the machine
lists it.
"""
from __future__ import annotations

import re

from .sources import Objects, define, where
from .writer import Writer


def write(instr, program):
    """The lister of choice ``instr`` of ``program``, or None (see the module)."""
    if any(spec.domains and spec.choices is None for spec in instr.options):
        return None
    space = program.space
    name = Objects(space, "_q", where(instr.pos))   # (the objects it calls)
    w = Writer()
    w.line("def lister(run, L, player):")
    with w.indent():
        w.line("_E = run.ent")   # (dropped below if nothing reads it)
        w.line("out = []")
        for spec in instr.options:
            loc = "L"
            if spec.action:  # a used action's requires see its player alone
                w.line(f"_l = {{{spec.player_var!r}: player}}")
                loc = "_l"
            if not spec.domains:
                tests = " and ".join(_call(name, cond, loc) for cond in spec.tests)
                bare = f"out.append({name(spec.bare)})"
                if tests:
                    w.line(f"if {tests}:")
                    with w.indent():
                        w.line(bare)
                else:
                    w.line(bare)
                continue
            _values(w, name, spec, 0, loc, ())
        w.line("return out")
    source = w.source()[0]
    if not _READS_E.search(source.split("\n", 2)[2]):
        source = source.replace("    _E = run.ent\n", "", 1)
    define(space, source, f"<rules {instr.pos.file}:{instr.pos.line}>")
    return space.pop("lister")


_READS_E = re.compile(r"\b_E\b")


def _call(name: Objects, fn, loc: str) -> str:
    """The value of ``fn(run, loc)``: the source of its generated code written in place where
    it has one and reads the choice's own locals ``L`` (nothing here falls back: see the
    module), else a call."""
    inline = getattr(fn, "inline", None)
    if inline is not None and loc == "L":
        return f"({inline})"
    return f"{name(fn)}(run, {loc})"


def _values(w: Writer, name: Objects, spec, i: int, loc: str, head: tuple) -> None:
    """The lines that list the actions of ``spec`` from its parameter ``i`` on, the values
    before it being the Python names ``head`` and set in the locals ``loc``."""
    _, source = spec.domains[i]
    w.line(f"_v{i} = {_call(name, source, loc)}")
    if i >= len(spec.listed) or not spec.listed[i]:   # (proven a list, or none: len raises)
        w.line(f"if _v{i}.__class__ is not list:")
        with w.indent():
            w.line("raise TypeError()")   # (the machine says what is wrong)
    w.line(f"run.steps = _s = run.steps + len(_v{i})")
    w.line("if _s > run.budget:")
    with w.indent():
        w.line("raise _OverBudget()")
    if i + 1 == len(spec.domains):   # the last parameter: its generated choices
        made = name(spec.made)
        key = f"({''.join(x + ', ' for x in head)})"
        w.line(f"_m = {made}.get({key})")   # (a list among the values: no key, TypeError)
        w.line("if _m is None:")
        with w.indent():
            w.line(f"if len({made}) >= 4096:")
            with w.indent():
                w.line(f"{made}.clear()")
            w.line(f"_m = {made}[{key}] = {{}}")
        w.line(f"out += {name(spec.choices)}(run, {loc}, _v{i}, {spec.name!r}, {key}, _m)")
        return
    var = spec.domains[i][0]
    w.line(f"_d{i} = dict({loc})")
    w.line(f"for _x{i} in _v{i}:")
    with w.indent():
        w.line(f"_d{i}[{var!r}] = _x{i}")
        tests = " and ".join(_call(name, cond, f"_d{i}") for cond in spec.tests_at[i])
        if tests:
            w.line(f"if {tests}:")
            with w.indent():
                _values(w, name, spec, i + 1, f"_d{i}", (*head, f"_x{i}"))
        else:
            _values(w, name, spec, i + 1, f"_d{i}", (*head, f"_x{i}"))
