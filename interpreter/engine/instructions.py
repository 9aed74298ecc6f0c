"""The instructions a compiled rule becomes, and the code units that hold them.

A code unit is a flat list of instructions with jumps, so that where the rules are paused
is just ``(code unit, pc, locals)``: plain data (DESIGN invariant 3). Each instruction
keeps the source position of the statement it came from.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from ..errors import Pos

PAUSE = 1  # returned by an instruction that stops the machine (a choice, the end)


@dataclass
class Code:
    key: str
    params: list
    pos: Pos
    instrs: list = field(default_factory=list)


class Instr:
    __slots__ = ("pos",)
    pos: Pos


class Exec(Instr):
    """Run a side effect (let, set, pay, add, remove, log, draw), then go on."""
    __slots__ = ("fn",)

    def __init__(self, pos, fn):
        self.pos, self.fn = pos, fn

    def run(self, vm, frame):
        self.fn(vm, frame["L"])
        frame["pc"] += 1


class Jump(Instr):
    __slots__ = ("target",)

    def __init__(self, pos, target=None):
        self.pos, self.target = pos, target

    def run(self, vm, frame):
        frame["pc"] = self.target


class JumpIfNot(Instr):
    __slots__ = ("cond", "target")

    def __init__(self, pos, cond, target=None):
        self.pos, self.cond, self.target = pos, cond, target

    def run(self, vm, frame):
        frame["pc"] = frame["pc"] + 1 if self.cond(vm, frame["L"]) else self.target


class IterInit(Instr):
    """Evaluate a loop's list once and keep it, with the loop index, in a hidden local."""
    __slots__ = ("slot", "source")

    def __init__(self, pos, slot, source):
        self.pos, self.slot, self.source = pos, slot, source

    def run(self, vm, frame):
        items = self.source(vm, frame["L"])
        if isinstance(items, int) and not isinstance(items, bool):
            items = list(range(items))  # repeat N times
        if not isinstance(items, list):
            from .values import RuleFault, describe
            raise RuleFault(f"a loop needs a list, got {describe(items)}")
        frame["L"][self.slot] = [list(items), 0]
        frame["pc"] += 1


class IterNext(Instr):
    __slots__ = ("slot", "var", "target")

    def __init__(self, pos, slot, var, target=None):
        self.pos, self.slot, self.var, self.target = pos, slot, var, target

    def run(self, vm, frame):
        loc = frame["L"]
        items, i = loc[self.slot]
        if i < len(items):
            if self.var is not None:
                loc[self.var] = items[i]
            loc[self.slot] = [items, i + 1]  # a new pair: stored values never change in place
            frame["pc"] += 1
        else:
            del loc[self.slot]
            frame["pc"] = self.target


class CallProc(Instr):
    __slots__ = ("proc", "args", "dest")

    def __init__(self, pos, proc, args, dest=None):
        self.pos, self.proc, self.args, self.dest = pos, proc, args, dest

    def run(self, vm, frame):
        values = [a(vm, frame["L"]) for a in self.args]
        frame["pc"] += 1
        vm.push(self.proc, values, self.dest)


class Return(Instr):
    __slots__ = ("expr",)

    def __init__(self, pos, expr=None):
        self.pos, self.expr = pos, expr

    def run(self, vm, frame):
        value = self.expr(vm, frame["L"]) if self.expr else None
        vm.pop(value)


class Emit(Instr):
    __slots__ = ("event", "args")

    def __init__(self, pos, event, args):
        self.pos, self.event, self.args = pos, event, args

    def run(self, vm, frame):
        values = [a(vm, frame["L"]) for a in self.args]
        frame["pc"] += 1
        for key in reversed(vm.program.handlers.get(self.event, [])):
            vm.push(key, values, None)


class Assert(Instr):
    """A ``require`` that is not a choice's legality test: a broken one is a ruleset bug."""
    __slots__ = ("cond", "reason")

    def __init__(self, pos, cond, reason):
        self.pos, self.cond, self.reason = pos, cond, reason

    def run(self, vm, frame):
        if not self.cond(vm, frame["L"]):
            from .values import RuleFault
            raise RuleFault(f"requirement failed: {self.reason(vm, frame['L'])}")
        frame["pc"] += 1


class EndGame(Instr):
    __slots__ = ("reason",)

    def __init__(self, pos, reason):
        self.pos, self.reason = pos, reason

    def run(self, vm, frame):
        vm.end_game([self.reason(vm, frame["L"])])
        return PAUSE


class CheckEnd(Instr):
    def __init__(self, pos):
        self.pos = pos

    def run(self, vm, frame):
        frame["pc"] += 1
        reasons = [name for name, cond in vm.program.end_conditions if cond(vm, {})]
        if reasons:
            vm.end_game(reasons)
            return PAUSE


@dataclass
class OptionSpec:
    """One option of a choice: its parameters' domains and the requires that make it legal."""
    name: str
    domains: list          # of (var, fn)
    requires: list         # of (fn, reason_fn, pos)
    target: int | None     # pc of an inline body, or
    action: str | None     # the key of a used action's code unit
    player_var: str | None  # the action's `by p` name
    pos: Pos
    # generated code for the last parameter: its values that pass every require (or None)
    choices: object = None

    @cached_property
    def names(self) -> tuple:
        return tuple(var for var, _ in self.domains)


class Choose(Instr):
    __slots__ = ("player", "options", "end", "_by_name")

    def __init__(self, pos, player, options, end=None):
        self.pos, self.player, self.options, self.end = pos, player, options, end
        self._by_name = None

    def option(self, name: str) -> OptionSpec:
        """The option called ``name`` (a legal action's)."""
        if self._by_name is None:
            self._by_name = {s.name: s for s in self.options}
        return self._by_name[name]

    def run(self, vm, frame):
        vm.state["turn"] = self.player(vm, frame["L"])
        vm.state["waiting"] = True
        return PAUSE
