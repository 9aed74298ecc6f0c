"""A code unit's instructions written as ONE Python function ``unit(run, F)``.

The function runs frame ``F`` from ``F["pc"]`` until control leaves the unit: a call or an
event (a frame pushed, ``F["pc"]`` set to where it goes on: returns 0), a return (the frame
popped: 0), a choice or the end of the game (1, the machine pauses). Inside, the unit's basic
blocks are picked by ``pc`` in a ``while`` loop, so jumps and loops stay in Python; each block
counts its instructions against the step budget when it starts. Expressions are inlined as
their generated source (:mod:`interpreter.dsl.codegen`), each with its checked closure as the
fallback, and locals are ``L[...]``: no name a ruleset writes reaches Python.

Counting units (``Units(program, counting=True)``, run when ``Machine.counts`` is a Counter)
add one to ``run.counts[key]`` each time the unit is entered afresh (``pc`` 0), or, for a
trigger with a ``when`` guard, each time the guard holds: which rules fired, for coverage.

Where the rules are paused stays plain data: ``pc`` is an instruction's index, as before. A
fault's position is found from the line of the unit's function that raised it
(:func:`position`): each line of the source belongs to one instruction.
"""
from __future__ import annotations

import re

from ..dsl.codegen import add

_SAFE = re.compile(r"-?\d+|'[^'\\]*'|None|True|False|_k\d+")


class Units(dict):
    """A program's unit functions by code key, each written the first time it runs."""

    def __init__(self, program, counting: bool = False):
        super().__init__()
        self.program, self.counting = program, counting

    def __missing__(self, key):
        fn = self[key] = write(self.program.codes[key], self.program, self.counting)
        return fn


def write(code, program, counting: bool = False):
    """The function ``unit(run, F)`` of ``code`` (see the module's note)."""
    w = _Writer(code, program, counting)
    lines, owners = w.function()
    source = "\n".join(lines) + "\n"
    space = code.space
    exec(compile(source, f"<unit {code.key}>", "exec"), space)  # noqa: S102 - our own source
    fn = space.pop("unit")
    # for position(): the namespace knows its units' code objects, their Code and line owners
    space.setdefault("__units__", {})[fn.__code__] = (code, owners)
    return fn


def position(err):
    """The ruleset position of the instruction whose line of a unit raised ``err`` (None if no
    unit's line is in its traceback)."""
    tb, found = err.__traceback__, None
    while tb is not None:
        frame = tb.tb_frame
        where = frame.f_globals.get("__units__", {}).get(frame.f_code)
        if where is not None:
            code, owners = where
            found = code.instrs[owners[tb.tb_lineno - 1]].pos
        tb = tb.tb_next
    return found


class _Writer:
    """Writes the source; instructions call back (``value``, ``goto``, ``push``...)."""

    def __init__(self, code, program, counting: bool = False):
        self.code, self.program, self.space = code, program, code.space
        self.counting = counting
        self.names: dict = {}  # id(object) -> its name in the namespace

    # ------------------------------------------------------------ for the instructions
    def obj(self, x) -> str:
        """The name of a Python object (a checked closure, a target resolver) in the source."""
        name = self.names.get(id(x))
        if name is None:
            name = self.names[id(x)] = add(self.space, "_o", x)
        return name

    def value(self, fn, var: str) -> list:
        """Lines that set ``var`` to an expression's value: its generated source inline, falling
        back on its checked closure for any fault the source does not word itself."""
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

    def push(self, key: str, dest) -> str:
        """The line that pushes a frame of unit ``key`` with arguments ``_a0``, ``_a1``..."""
        params = ", ".join(f"{p!r}: _a{j}" for j, p in enumerate(self.program.codes[key].params))
        push = f"run.state['stack'].append({{'c': {key!r}, 'pc': 0, 'L': {{{params}}}, 'r': {dest!r}}})"
        if key in self.program.resets:   # the procedure's scoped variables start afresh
            return f"run.globals_w().update(run.program.resets[{key!r}]); {push}"
        return push

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
        entry = [("if pc == 0:", 0), ("    " + self.count(), 0)] \
            if self.counting and not self.code.guarded else []
        body = [("L = F['L']", 0), ("_E = run.ent", 0), ("_B = run.budget", 0), ("pc = F['pc']", 0),
                *entry, ("while True:", 0), *[("    " + line, i) for line, i in self.tree(blocks)]]
        lines = ["def unit(run, F):"] + ["    " + line for line, _ in body]
        owners = [0] + [i for _, i in body]
        return lines, owners
