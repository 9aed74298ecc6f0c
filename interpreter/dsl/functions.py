"""Definitions used as values: ``sort(xs, income)``, ``best(cs, income)``, ``call then(p)``.

A ``def`` named where a value is read is a function value, as a lambda ``x => e`` is: a
builtin that takes a function (``sort``, ``max_by``...) calls it, and so does a ``def`` whose
parameter holds it (``def best(xs, key) = max_by(xs, key)``, or ``key(x)`` in its body). A
function value lives only while an expression runs: it is never stored (RR302), so nothing in
the saved game holds one.

A ``procedure`` named where a value is read is its name, plain data like an entity's id, so
that it may wait in a paused frame: ``call f(args)`` where ``f`` is a local runs the procedure
that ``f`` names (:func:`procedure_key`).
"""
from __future__ import annotations

from ..runtime.helpers import call_def
from ..runtime.values import RuleFault, describe


class DefValue:
    """A ``def`` as a value: calling it with its arguments runs the def (one step, as a call)."""
    __slots__ = ("run", "name", "params", "derived", "tracking")

    def __init__(self, run, name: str, params: list, derived: bool, tracking: bool):
        self.run, self.name, self.params, self.derived, self.tracking = run, name, params, derived, tracking

    def __call__(self, *args):
        if len(args) != len(self.params):
            raise RuleFault(f"'{self.name}' takes {len(self.params)} argument(s), {len(args)} given")
        run = self.run
        if self.derived:
            run.tick(1)
            return run.derived(self.name, tuple(args))
        return call_def(run, run.tracked_functions if self.tracking else run.program_functions,
                        self.name, dict(zip(self.params, args)))

    def __str__(self) -> str:
        return f"the function {self.name}"


def def_value(d, tracking: bool):
    """``fn(run)`` -> def ``d`` as a value in that run."""
    name, params, derived = d.name, list(d.params), d.derived
    return lambda run: DefValue(run, name, params, derived, tracking)


def call_value(name: str, f, args: list):
    """``name(args)`` where the local ``name`` holds ``f``: a def's value, or a lambda (one value)."""
    if isinstance(f, DefValue):
        return f(*args)
    if callable(f) and not isinstance(f, type):
        if len(args) != 1:
            raise RuleFault(f"'{name}' holds a function of one value (x => ...), called with {len(args)}")
        return f(args[0])
    raise RuleFault(f"'{name}' is not a function: it holds {describe(f)}"
                    + (" (a procedure is run with 'call')" if isinstance(f, str) else ""))


def procedure_key(run, value, name: str, count: int) -> str:
    """The code unit of ``call name(...)`` where the local ``name`` holds ``value``, a procedure's
    name; its number of arguments checked."""
    code = run.program.codes.get(f"proc:{value}") if isinstance(value, str) else None
    if code is None:
        raise RuleFault(f"'call {name}(...)': {name} holds {describe(value)}, which is not a procedure")
    if len(code.params) != count:
        raise RuleFault(f"procedure '{value}' takes {len(code.params)} argument(s), {count} given")
    return code.key
