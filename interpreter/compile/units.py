"""A code unit's instructions written as ONE Python function ``unit(run, F)``.

The function runs frame ``F`` from ``F["pc"]`` until control leaves the unit: a call or an
event (a frame pushed, ``F["pc"]`` set to where it goes on: returns 0), a return (the frame
popped: 0), a choice or the end of the game (1, the machine pauses). Inside, the unit's basic
blocks are picked by ``pc`` in a ``while`` loop, so jumps and loops stay in Python; each block
counts its instructions against the step budget when it starts. Expressions are inlined as
their generated source (:mod:`.expressions`), each with its checked code as the
fallback, and locals are ``L[...]``: no name a ruleset writes reaches Python.

Counting units (``Units(program, counting=True)``, run when ``Machine.counts`` is a Counter)
add one to ``run.counts[key]`` each time the unit is entered afresh (``pc`` 0), or, for a
trigger with a ``when`` guard, each time the guard holds: which rules fired, for coverage.

A *straight* unit (:func:`straight`: one that can never pause, because neither it nor anything
it calls or emits chooses or ends the game) is also written as ``unit(run, L)``, called directly
by the units that call it (``Units(program, direct=True)``): it runs to its end and returns its
value, with no frame on the stack. A pause can never find it under way, so where the rules are
paused, and every save, is the same either way.

Where the rules are paused stays plain data: ``pc`` is an instruction's index, as before. A
fault's position is found from the line of the unit's function that raised it
(:func:`interpreter.runtime.code.fault_site`): each line of the source belongs to one
instruction.
"""
from __future__ import annotations

import re

from .instructions import CallProc, CheckEnd, Choose, Emit, EndGame, Jump, Return
from .sources import add, define

_SAFE = re.compile(r"-?\d+|'[^'\\]*'|None|True|False|_k\d+")


class Units(dict):
    """A program's unit functions by code key, each written the first time it runs."""

    def __init__(self, program, counting: bool = False, direct: bool = False):
        super().__init__()
        self.program, self.counting, self.direct = program, counting, direct

    def __missing__(self, key):
        fn = self[key] = write(self.program.codes[key], self.program, self.counting, self.direct)
        return fn


def straight(codes: dict, handlers: dict) -> frozenset:
    """The keys of the units that can never pause: no choice, end of the game, end test or call
    of a procedure held by a local in them, nor in any unit they call or any handler of an event
    they emit; and in no cycle of calls (a recursive procedure keeps its frames)."""
    callees: dict = {}  # key -> the units it calls, or None when it pauses itself
    for key, code in codes.items():
        out: list = []
        for ins in code.instrs:
            if isinstance(ins, CallProc):
                out.append(ins.proc)
            elif isinstance(ins, Emit):
                out += handlers.get(ins.event, [])
        # a choice, an end, or any other instruction that leaves the unit (a call whose
        # procedure is known only when it runs) may pause
        pauses = any(isinstance(ins, (Choose, EndGame, CheckEnd))
                     or (ins.ends and not isinstance(ins, (Jump, CallProc, Emit, Return))) for ins in code.instrs)
        callees[key] = None if pauses else out
    known: dict = {}  # key -> straight or not; None while being looked at (a cycle back to it)

    def visit(key) -> bool:
        if key in known:
            return known[key] is True
        known[key] = None
        calls = callees.get(key)
        known[key] = ok = calls is not None and all([visit(k) for k in calls])
        return ok

    return frozenset(k for k in codes if visit(k))


def write(code, program, counting: bool = False, direct: bool = False):
    """The function of ``code``: ``unit(run, F)``, or ``unit(run, L)`` when ``direct`` (see the
    module's note)."""
    w = _Writer(code, program, counting, direct)
    lines, owners = w.function()
    source = "\n".join(lines) + "\n"
    space = code.space
    define(space, source, f"<unit {code.key}>")
    fn = space.pop("unit")
    # for position(): the namespace knows its units' code objects, their Code and line owners
    space.setdefault("__units__", {})[fn.__code__] = (code, owners)
    return fn


class _Writer:
    """Writes the source; instructions call back (``value``, ``goto``, ``push``...)."""

    def __init__(self, code, program, counting: bool = False, direct: bool = False):
        self.code, self.program, self.space = code, program, code.space
        self.counting, self.direct = counting, direct
        self.names: dict = {}  # id(object) -> its name in the namespace

    # ------------------------------------------------------------ for the instructions
    def obj(self, x) -> str:
        """The name of a Python object (an expression's checked code, a target resolver) in the source."""
        name = self.names.get(id(x))
        if name is None:
            name = self.names[id(x)] = add(self.space, "_o", x)
        return name

    def value(self, fn, var: str) -> list:
        """Lines that set ``var`` to an expression's value: its generated source inline, falling
        back on its checked code for any fault the source does not word itself."""
        source = getattr(fn, "source", None)
        if source is None:
            return [f"{var} = {self.obj(fn)}(run, L)"]
        if _SAFE.fullmatch(source):  # a literal or a constant cannot fail
            return [f"{var} = {source}"]
        return ["try:", f"    {var} = {source}", "except _SAID:", "    raise",
                "except Exception:", f"    {var} = {self.obj(fn)}(run, L)"]

    def values(self, fns) -> list:
        """Lines that set ``_a0``, ``_a1``... to the values of ``fns``."""
        lines = []
        for j, fn in enumerate(fns):
            lines += self.value(fn, f"_a{j}")
        return lines

    @staticmethod
    def indent(lines) -> list:
        return ["    " + line for line in lines]

    @staticmethod
    def goto(target: int) -> list:
        return [f"pc = {target}", "continue"]

    def _args(self, key: str) -> str:
        """The locals of a call of unit ``key`` with arguments ``_a0``, ``_a1``..., as a dict."""
        return "{" + ", ".join(f"{p!r}: _a{j}" for j, p in enumerate(self.program.codes[key].params)) + "}"

    def _resets(self, key: str) -> str:
        """What starts a call of ``key``: its scoped variables afresh, if it has any."""
        return f"run.globals_w().update(run.program.resets[{key!r}]); " if key in self.program.resets else ""

    def push(self, key: str, dest) -> str:
        """The line that pushes a frame of unit ``key`` with arguments ``_a0``, ``_a1``..."""
        return (self._resets(key) + f"run.state['stack'].append({{'c': {key!r}, 'pc': 0, "
                f"'L': {self._args(key)}, 'r': {dest!r}}})")

    def straight(self, keys) -> bool:
        """Whether the units ``keys`` are called directly (they never pause)."""
        return all(k in self.program.straight for k in keys)

    def call(self, key: str) -> str:
        """The line that runs straight unit ``key`` to its end, its value in ``_v``."""
        program = self.program
        units = self.obj(program.counted_direct if self.counting else program.direct_units)
        return self._resets(key) + f"_v = {units}[{key!r}](run, {self._args(key)})"

    # ------------------------------------------------------------ the function
    def leaders(self) -> list:
        """The pcs where a block starts: the first, every target, and every pc control may come
        back to (after a call or an event, a choice's options and end)."""
        instrs = self.code.instrs
        starts = {0}
        for i, ins in enumerate(instrs):
            target = getattr(ins, "target", None)
            if target is not None:
                starts.add(target)
            if ins.ends:
                starts.add(i + 1)
            for spec in getattr(ins, "options", ()):
                if spec.target is not None:
                    starts.add(spec.target)
            if getattr(ins, "end", None) is not None:
                starts.add(ins.end)
        return sorted(s for s in starts if s < len(instrs))

    def block(self, start: int, stop: int) -> list:
        """Lines and owners of the block [start, stop)."""
        out = [(f"run.steps = _s = run.steps + {stop - start}", start),
               ("if _s > _B:", start), ("    raise _OverBudget()", start)]
        instrs = self.code.instrs
        for i in range(start, stop):
            out += [(line, i) for line in instrs[i].source(self, i)]
            if i == 0 and self.counting and self.code.guarded:  # past the guard: it held
                out.append((self.count(), 0))
        if not instrs[stop - 1].ends:
            out += [(line, stop - 1) for line in self.goto(stop)]
        return out

    def tree(self, blocks: list) -> list:
        """Pick the block of ``pc`` by halves (a unit has few blocks; this keeps it log n)."""
        if len(blocks) == 1:
            return self.block(*blocks[0])
        half = len(blocks) // 2
        return [(f"if pc < {blocks[half][0]}:", blocks[half][0]),
                *[("    " + line, i) for line, i in self.tree(blocks[:half])],
                ("else:", blocks[half][0]),
                *[("    " + line, i) for line, i in self.tree(blocks[half:])]]

    def count(self) -> str:
        return f"run.counts[{self.code.key!r}] += 1"

    def function(self) -> tuple[list, list]:
        starts = self.leaders()
        blocks = list(zip(starts, starts[1:] + [len(self.code.instrs)]))
        count = self.counting and not self.code.guarded
        if self.direct:  # always entered afresh
            head = [("pc = 0", 0), *([(self.count(), 0)] if count else [])]
        else:
            head = [("L = F['L']", 0), ("pc = F['pc']", 0),
                    *([("if pc == 0:", 0), ("    " + self.count(), 0)] if count else [])]
        body = [("_E = run.ent", 0), ("_B = run.budget", 0), *head,
                ("while True:", 0), *[("    " + line, i) for line, i in self.tree(blocks)]]
        lines = [f"def unit(run, {'L' if self.direct else 'F'}):"] + ["    " + line for line, _ in body]
        owners = [0] + [i for _, i in body]
        return lines, owners
