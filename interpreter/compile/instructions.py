"""The instructions a compiled rule becomes, each writing itself as Python.

A code unit (:class:`interpreter.runtime.code.Code`) is a flat list of instructions with jumps,
so that where the rules are paused is just ``(code unit, pc, locals)``: plain data (DESIGN
invariant 3). Each instruction keeps the source position of the statement it came from, and
writes itself as Python lines of the unit's one function (:mod:`.units`),
which is what runs: ``write(g, i)``, where ``g`` is the unit's writer and ``i`` its pc. A rule's
locals are Python locals there, named by the writer (``g.local(name)``). ``flow(i)`` says where
control goes from pc ``i`` and which locals each way sets or drops (:mod:`.flow`).
"""
from __future__ import annotations

from ..runtime.code import Choice, Instr, SecretChoice
from ..runtime.values import RuleFault, word

_NONE: frozenset = frozenset()


def _on(i: int, sets=_NONE) -> list:
    return [(i + 1, frozenset(sets), _NONE)]


class Exec(Instr):
    """A side effect (let, set, pay, add, remove, log, draw): ``lines(g)`` writes its lines;
    ``sets``: the locals it sets, ``drops``: the hidden locals it drops."""
    __slots__ = ("lines", "sets", "drops")

    def __init__(self, pos, lines, sets=(), drops=()):
        self.pos, self.lines, self.sets, self.drops = pos, lines, frozenset(sets), frozenset(drops)

    def write(self, g, i):
        self.lines(g)

    def flow(self, i):
        return [(i + 1, self.sets, self.drops)]


class Jump(Instr):
    __slots__ = ("target",)
    ends = True

    def __init__(self, pos, target=None):
        self.pos, self.target = pos, target

    def write(self, g, i):
        g.goto(self.target)

    def flow(self, i):
        return [(self.target, _NONE, _NONE)]


class JumpIfNot(Instr):
    __slots__ = ("cond", "target")

    def __init__(self, pos, cond, target=None):
        self.pos, self.cond, self.target = pos, cond, target

    def write(self, g, i):
        g.line(f"if not ({g.test(self.cond)}):")
        with g.indent():
            g.goto(self.target)

    def flow(self, i):
        return [*_on(i), (self.target, _NONE, _NONE)]


class IterInit(Instr):
    """Evaluate a loop's list (or repeat's count) once and keep it, with the loop index, in a
    hidden local: plain data in the frame (a pair), two Python locals while the unit runs."""
    __slots__ = ("slot", "source_fn")

    def __init__(self, pos, slot, source_fn):
        self.pos, self.slot, self.source_fn = pos, slot, source_fn

    def write(self, g, i):
        items, at = g.loop_names(self.slot)
        g.value(self.source_fn, "_v")
        g.line(f"{items} = _loop_items(_v)")
        g.line(f"{at} = 0")

    def flow(self, i):
        return _on(i, (self.slot,))


class IterNext(Instr):
    __slots__ = ("slot", "var", "target", "listed")

    def __init__(self, pos, slot, var, target=None, listed: bool = False):
        self.pos, self.slot, self.var, self.target = pos, slot, var, target
        self.listed = listed   # it walks a list, never a count (proven: no test)

    def write(self, g, i):
        # A count (repeat N) gives its numbers one at a time; a save made when loops kept the
        # list of them still resumes. The exit drops the hidden local (the next instruction).
        items, at = g.loop_names(self.slot, read=True)
        if self.listed:
            g.line(f"if {at} < len({items}):")
        else:
            g.line(f"if {at} < ({items} if {items}.__class__ is int else len({items})):")
        with g.indent():
            if self.var is not None:
                g.assign(self.var, f"{items}[{at}]" if self.listed else f"{at} if {items}.__class__ is int else {items}[{at}]")
            g.line(f"{at} += 1")
        g.line("else:")
        with g.indent():
            g.goto(self.target)

    def flow(self, i):
        return [*_on(i, (self.slot, self.var) if self.var is not None else (self.slot,)), (self.target, _NONE, _NONE)]


class NextTurn(Instr):
    """The head of ``each p in turn``: the turn that ran ends and the next starts, its player in
    ``var`` (:func:`interpreter.dsl.turns.advance`, ``until``: when the loop ends); past the last turn, on to ``target``."""
    __slots__ = ("slot", "var", "until", "advance", "target")

    def __init__(self, pos, slot, var, until, advance, target=None):
        self.pos, self.slot, self.var, self.until, self.advance, self.target = pos, slot, var, until, advance, target

    def write(self, g, i):
        turn = g.local(self.slot, read=True)
        g.line(f"_v = {g.obj(self.advance)}({turn}, {self.until!r})")
        g.line("if _v is None:")
        with g.indent():
            g.goto(self.target)
        g.line(f"{turn} = _v")
        g.assign(self.var, "_v[4]")

    def flow(self, i):
        return [*_on(i, (self.slot, self.var)), (self.target, _NONE, _NONE)]


class CallProc(Instr):
    __slots__ = ("proc", "args", "dest")
    ends = True

    def __init__(self, pos, proc, args, dest=None):
        self.pos, self.proc, self.args, self.dest = pos, proc, args, dest

    def write(self, g, i):
        g.values(self.args)
        if g.straight([self.proc]):
            g.call(self.proc)
            if self.dest is not None:
                g.assign(self.dest, "_store(_v)")
            return  # on at i + 1, in the same block
        if g.resumes(self.proc):  # its function called here; when it returns, on at i + 1
            g.push(self.proc, self.dest, "_f")
            g.line(f"_v = {g.obj(g.program.counted_units if g.counting else g.program.units)}"
                   f"[{self.proc!r}](run, _f)")
            g.line("if _v.__class__ is _Signal:")  # it left the rules under way: this one too,
            with g.indent():                       # to go on at i + 1 later
                g.pause(i)
                g.line("return _v")
            g.line("run.state['stack'].pop()")    # its frame (it returned its value)
            if self.dest is not None:  # (measured by its return)
                g.assign(self.dest, "_v")
            g.goto(i + 1)
            return
        g.pause(i)
        g.push(self.proc, self.dest)
        g.line("return _GO_ON")

    def leaves(self, g) -> bool:
        return not g.straight([self.proc]) and not g.resumes(self.proc)

    def flow(self, i):
        return _on(i, (self.dest,) if self.dest is not None else ())


class Return(Instr):
    __slots__ = ("expr",)
    ends = True

    def __init__(self, pos, expr=None):
        self.pos, self.expr = pos, expr

    def write(self, g, i):
        if not self.expr:
            g.line("return None")
            return
        g.value(self.expr, "_v")
        if not g.direct:  # a value kept by the caller is measured here, where the rule returns it
            g.line("if F['r'] is not None:")
            with g.indent():
                g.line("_v = _store(_v)")
        g.line("return _v")

    def flow(self, i):
        return []


class Emit(Instr):
    __slots__ = ("event", "args")
    ends = True

    def __init__(self, pos, event, args):
        self.pos, self.event, self.args = pos, event, args

    def write(self, g, i):
        handlers = g.program.handlers.get(self.event, [])
        g.values(self.args)
        if g.straight(handlers):  # each runs to its end, in order
            for key in handlers:
                g.call(key)
            return  # on at i + 1, in the same block
        g.pause(i)
        for key in reversed(handlers):
            g.push(key, None)
        g.line("return _GO_ON")

    def leaves(self, g) -> bool:
        return not g.straight(g.program.handlers.get(self.event, []))

    def flow(self, i):
        return _on(i)


class Assert(Instr):
    """A ``require`` that is not a choice's legality test: a broken one is a ruleset bug."""
    __slots__ = ("cond", "reason")

    def __init__(self, pos, cond, reason):
        self.pos, self.cond, self.reason = pos, cond, reason

    def write(self, g, i):
        g.value(self.cond, "_v")
        g.line("if not _v:")
        with g.indent():
            g.value(self.reason, "_v")
            g.line("_required(_v)")

    def flow(self, i):
        return _on(i)


class EndGame(Instr):
    __slots__ = ("reason", "hidden")
    ends = True

    def __init__(self, pos, reason, hidden: bool = False):
        self.pos, self.reason, self.hidden = pos, reason, hidden

    def write(self, g, i):
        reason = "run.secret(_v, None)" if self.hidden else "_v"
        g.value(self.reason, "_v")
        g.line(f"run.end_game([{reason}])")
        g.line("return _PAUSE")

    def flow(self, i):
        return []


class CheckEnd(Instr):
    def __init__(self, pos):
        self.pos = pos

    def write(self, g, i):
        g.line("if run.check_end():")
        with g.indent():
            g.line("return _PAUSE")

    def flow(self, i):
        return _on(i)


class Choose(Choice):
    __slots__ = ()

    def write(self, g, i):
        g.value(self.player, "_v")
        g.line("run.state['turn'] = _v")
        g.line("run.state['waiting'] = True")
        g.pause(i, here=True)
        g.line("return _PAUSE")

    def leaves(self, g) -> bool:
        return True

    def flow(self, i):
        # an inline option goes on at its body with its parameters set (Machine.resume); a used
        # action at the end, once the action's own frame has returned
        out = [(spec.target, frozenset(spec.names), _NONE) for spec in self.options if spec.target is not None]
        if any(spec.action for spec in self.options):
            out.append((self.end, _NONE, _NONE))
        return out


def open_round(run, seats) -> list:
    """The seats of a secret choice, checked: a list of players, none twice."""
    players = run.state["kinds"]["players"]
    if seats.__class__ is not list:
        raise RuleFault(f"'choose secretly' needs a list of players, not {word(seats)}")
    for j, p in enumerate(seats):
        if p not in players:
            raise RuleFault(f"'choose secretly': {word(p)} is not a player")
        if p in seats[:j]:
            raise RuleFault(f"'choose secretly': {word(p)} is in the list twice")
    return seats


class SecretChoose(SecretChoice):
    """``choose secretly by VAR in SEATS``: opens the round (its hidden local ``slot``: the
    seats, their commitments, how far the reveal has gone) and pauses with the first seat
    asked; the machine takes the commitments (:meth:`Machine.decide`) and, once every seat has
    committed, goes on at ``reveal``. No seat: straight on to the reveal, which has none."""
    __slots__ = ()

    def write(self, g, i):
        slot, var = self.slot, self.var
        g.value(self.player, "_v")
        g.line(f"_v = {g.obj(open_round)}(run, _v)")
        g.line(f"L[{slot!r}] = {{'seats': _v, 'commits': {{}}, 'at': 0}}")
        g.pause(i)
        g.line("if _v:")
        with g.indent():
            g.line(f"L[{var!r}] = run.state['turn'] = _v[0]")
            g.line("run.state['waiting'] = True")
            g.line(f"F['pc'] = {i}")
            g.line("return _PAUSE")
        g.line("return _GO_ON")

    def leaves(self, g) -> bool:
        return True

    def flow(self, i):
        return _on(i)


class Reveal(Instr):
    """The head of a secret choice's reveal: the next seat of the round in ``var``, its
    committed option's parameters set, on to that option's body (which comes back here);
    past the last seat, the round's hidden local dropped, on to the choice's ``end``."""
    __slots__ = ("choice",)
    ends = True

    def __init__(self, pos, choice):
        self.pos, self.choice = pos, choice

    def write(self, g, i):
        c = self.choice
        slot = c.slot
        g.line(f"_r = L[{slot!r}]")
        g.line("_v = _r['at']")
        g.line("if _v < len(_r['seats']):")
        with g.indent():
            g.line(f"L[{slot!r}] = {{**_r, 'at': _v + 1}}")
            g.assign(c.var, "_r['seats'][_v]")
            g.line(f"_a = _r['commits'][{g.local(c.var)}]")
            for k, spec in enumerate(c.options):
                g.line(f"{'el' if k else ''}if _a[0] == {spec.name!r}:")
                with g.indent():
                    for j, name in enumerate(spec.names):
                        g.assign(name, f"_a[{j + 1}]")
                    g.goto(spec.target)
        g.line("else:")
        with g.indent():
            g.line(f"L.pop({slot!r}, None)")
            g.goto(c.end)

    def flow(self, i):
        c = self.choice
        return [*((spec.target, frozenset((c.var, *spec.names)), _NONE) for spec in c.options),
                (c.end, _NONE, _NONE)]
