"""The legal actions of a choice point, listed by one generated function: ``lister(run, L, player)``.

For each option of the choice, in order, the function tests its requires (an option without
parameters) or lists the values of its one parameter that pass them (the option's generated
``choices``, :meth:`.expressions.Codegen.choices`), charging each value listed to the step
budget, as :meth:`interpreter.engine.machine.Machine.legal` does one option at a time. It has no
fallback of its own and words no fault: when anything in it raises, the machine lists the
actions again its own way, which says what is wrong (a domain that is not a list, a rule fault,
the budget spent). A choice with an option it cannot list (several parameters, or no generated
``choices``) has no lister (None): the machine lists it.
"""
from __future__ import annotations

from .sources import add, define
from .writer import Writer


def write(instr, program):
    """The lister of choice ``instr`` of ``program``, or None (see the module)."""
    if any(spec.domains and (len(spec.domains) > 1 or spec.choices is None) for spec in instr.options):
        return None
    space = program.space
    w = Writer()
    w.line("def lister(run, L, player):")
    with w.indent():
        w.line("out = []")
        for spec in instr.options:
            loc = "L"
            if spec.action:  # a used action's requires see its player alone
                w.line(f"_l = {{{spec.player_var!r}: player}}")
                loc = "_l"
            if not spec.domains:
                tests = " and ".join(f"{add(space, '_q', cond)}(run, {loc})" for cond in spec.tests)
                bare = f"out.append({add(space, '_q', spec.bare)})"
                if tests:
                    w.line(f"if {tests}:")
                    with w.indent():
                        w.line(bare)
                else:
                    w.line(bare)
                continue
            _, source = spec.domains[0]
            w.line(f"_v = {add(space, '_q', source)}(run, {loc})")
            w.line("if _v.__class__ is not list:")
            with w.indent():
                w.line("raise TypeError()")   # (the machine says what is wrong)
            w.line("run.steps = _s = run.steps + len(_v)")
            w.line("if _s > run.budget:")
            with w.indent():
                w.line("raise _OverBudget()")
            made = add(space, "_q", spec.made)
            w.line(f"_m = {made}.get(())")
            w.line("if _m is None:")
            with w.indent():
                w.line(f"_m = {made}[()] = {{}}")
            w.line(f"out += {add(space, '_q', spec.choices)}(run, {loc}, _v, {spec.name!r}, (), _m)")
        w.line("return out")
    define(space, w.source()[0], f"<rules {instr.pos.file}:{instr.pos.line}>")
    return space.pop("lister")
