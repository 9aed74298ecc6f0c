"""The instructions a compiled rule becomes, each writing itself as Python.

A code unit (:class:`interpreter.runtime.code.Code`) is a flat list of instructions with jumps,
so that where the rules are paused is just ``(code unit, pc, locals)``: plain data (DESIGN
invariant 3). Each instruction keeps the source position of the statement it came from, and
writes itself as Python lines of the unit's one function (:mod:`.units`),
which is what runs: ``source(g, i)``, where ``g`` is the writer and ``i`` its pc.
"""
from __future__ import annotations

from ..runtime.code import PAUSE, Choice, Instr


class Exec(Instr):
    """A side effect (let, set, pay, add, remove, log, draw): ``source(g)`` gives its lines."""
    __slots__ = ("lines",)

    def __init__(self, pos, lines):
        self.pos, self.lines = pos, lines

    def source(self, g, i):
        return self.lines(g)


class Jump(Instr):
    __slots__ = ("target",)
    ends = True

    def __init__(self, pos, target=None):
        self.pos, self.target = pos, target

    def source(self, g, i):
        return g.goto(self.target)


class JumpIfNot(Instr):
    __slots__ = ("cond", "target")

    def __init__(self, pos, cond, target=None):
        self.pos, self.cond, self.target = pos, cond, target

    def source(self, g, i):
        return [*g.value(self.cond, "_v"), "if not _v:", *g.indent(g.goto(self.target))]


class IterInit(Instr):
    """Evaluate a loop's list (or repeat's count) once and keep it, with the loop index, in a
    hidden local: plain data."""
    __slots__ = ("slot", "source_fn")

    def __init__(self, pos, slot, source_fn):
        self.pos, self.slot, self.source_fn = pos, slot, source_fn

    def source(self, g, i):
        return [*g.value(self.source_fn, "_v"), f"L[{self.slot!r}] = [_loop_items(_v), 0]"]


class IterNext(Instr):
    __slots__ = ("slot", "var", "target")

    def __init__(self, pos, slot, var, target=None):
        self.pos, self.slot, self.var, self.target = pos, slot, var, target

    def source(self, g, i):
        # a new pair each time: stored values never change in place. A count (repeat N) gives
        # its numbers one at a time; a save made when loops kept the list of them still resumes.
        slot = repr(self.slot)
        take = [f"L[{self.var!r}] = _i if _v.__class__ is int else _v[_i]"] if self.var is not None else []
        return [f"_v, _i = L[{slot}]", "if _i < (_v if _v.__class__ is int else len(_v)):", *g.indent(take),
                f"    L[{slot}] = [_v, _i + 1]", "else:", f"    del L[{slot}]",
                *g.indent(g.goto(self.target))]


class CallProc(Instr):
    __slots__ = ("proc", "args", "dest")
    ends = True

    def __init__(self, pos, proc, args, dest=None):
        self.pos, self.proc, self.args, self.dest = pos, proc, args, dest

    def source(self, g, i):
        if g.straight([self.proc]):
            store = [f"L[{self.dest!r}] = _store(_v)"] if self.dest is not None else []
            return [*g.values(self.args), g.call(self.proc), *store, *g.goto(i + 1)]
        return [*g.values(self.args), f"F['pc'] = {i + 1}", g.push(self.proc, self.dest), "return 0"]


class Return(Instr):
    __slots__ = ("expr",)
    ends = True

    def __init__(self, pos, expr=None):
        self.pos, self.expr = pos, expr

    def source(self, g, i):
        value = g.value(self.expr, "_v") if self.expr else ["_v = None"]
        return [*value, "return _v"] if g.direct else [*value, "run.pop(_v)", "return 0"]


class Emit(Instr):
    __slots__ = ("event", "args")
    ends = True

    def __init__(self, pos, event, args):
        self.pos, self.event, self.args = pos, event, args

    def source(self, g, i):
        handlers = g.program.handlers.get(self.event, [])
        if g.straight(handlers):  # each runs to its end, in order
            return [*g.values(self.args), *(g.call(key) for key in handlers), *g.goto(i + 1)]
        return [*g.values(self.args), f"F['pc'] = {i + 1}",
                *(g.push(key, None) for key in reversed(handlers)), "return 0"]


class Assert(Instr):
    """A ``require`` that is not a choice's legality test: a broken one is a ruleset bug."""
    __slots__ = ("cond", "reason")

    def __init__(self, pos, cond, reason):
        self.pos, self.cond, self.reason = pos, cond, reason

    def source(self, g, i):
        return [*g.value(self.cond, "_v"), "if not _v:",
                *g.indent([*g.value(self.reason, "_v"), "_required(_v)"])]


class EndGame(Instr):
    __slots__ = ("reason",)
    ends = True

    def __init__(self, pos, reason):
        self.pos, self.reason = pos, reason

    def source(self, g, i):
        return [*g.value(self.reason, "_v"), "run.end_game([_v])", f"return {PAUSE}"]


class CheckEnd(Instr):
    def __init__(self, pos):
        self.pos = pos

    def source(self, g, i):
        return ["if run.check_end():", f"    return {PAUSE}"]


class Choose(Choice):
    __slots__ = ()

    def source(self, g, i):
        return [*g.value(self.player, "_v"), "run.state['turn'] = _v", "run.state['waiting'] = True",
                f"F['pc'] = {i}", f"return {PAUSE}"]
