"""A code unit's instructions written as ONE Python function ``unit(run, F)``.

The function runs frame ``F`` from ``F["pc"]`` until control leaves the unit: a call or an
event (a frame pushed, ``F["pc"]`` set to where it goes on: returns 0), a return (the frame
popped: 0), a choice or the end of the game (1, the machine pauses). Inside, the unit's basic
blocks are picked by ``pc`` in a ``while`` loop, so jumps and loops stay in Python; each block
counts its instructions against the step budget when it starts. Expressions are inlined as
their generated source (:mod:`.expressions`), each with its checked code as the fallback.

A rule's locals are Python locals of the function while it runs: ``v_NAME`` for a local
``NAME`` (the prefix keeps every name a ruleset writes apart from Python's and the helpers'),
``_eachN``/``_atN`` for what a loop walks and where it stands, ``_turnN`` for the state of
an ``each ... in turn``. Where the rules are paused they are plain data, the frame's ``L``,
as ever: entering the function at ``pc`` loads from ``F["L"]`` the locals it may read from there
(at the top of the block, or before the loop for a block that is also jumped to), and leaving
it to go on later (a frame pushed, a choice) writes back those it has set on every way since it
was entered; one it has set on some ways only is written to the frame where it is set. A return
or the end of the game drops the frame. Saves, clones, undo and pickling see the same frames as
when locals were only ``L[...]``. What is set where is worked out per unit (:mod:`.flow`): a
local set on every way to an instruction is read there without a test; one that may not be
set is read as a Python local that may be unbound, and its fault (``'x' is used before it is
set``) comes from the checked code, which reads the locals that are set from ``locals()``
(``_live``), as do targets' resolvers.

Counting units (``Units(program, counting=True)``, run when ``Machine.counts`` is a Counter)
add one to ``run.counts[key]`` each time the unit is entered afresh (``pc`` 0), or, for a
trigger with a ``when`` guard, each time the guard holds: which rules fired, for coverage.

A *straight* unit (:func:`straight`: one that can never pause, because neither it nor anything
it calls or emits chooses or ends the game) is also written as ``unit(run, v_PARAM...)``, called
directly by the units that call it (``Units(program, direct=True)``): its parameters and locals
are Python's from start to end, it returns its value, and there is no frame on the stack. A
pause can never find it under way, so where the rules are paused, and every save, is the same
either way.

Where the rules are paused stays plain data: ``pc`` is an instruction's index, as before. A
fault's position is found from the line of the unit's function that raised it
(:func:`interpreter.runtime.code.fault_site`): each line of the source belongs to one
instruction.
"""
from __future__ import annotations

import re

from ..dsl import nodes as n
from ..dsl.turns import SLOT
from . import flow
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
        callees[key] = None if any(map(_pauses, code.instrs)) else out
    known: dict = {}  # key -> straight or not; None while being looked at (a cycle back to it)

    def visit(key) -> bool:
        if key in known:
            return known[key] is True
        known[key] = None
        calls = callees.get(key)
        known[key] = ok = calls is not None and all([visit(k) for k in calls])
        return ok

    return frozenset(k for k in codes if visit(k))


def _pauses(ins) -> bool:
    """A choice, an end, or any other instruction that leaves the unit (a call whose procedure
    is known only when it runs): it may pause, whatever the units it calls do."""
    return isinstance(ins, (Choose, EndGame, CheckEnd)) or (
        ins.ends and not isinstance(ins, (Jump, CallProc, Emit, Return)))


def first_pause(code, straight_keys: frozenset, handlers: dict):
    """The first instruction of ``code`` that may pause (a choice, an end, a call or an event
    of a unit that is not straight), for a message; None if there is none (a unit that is not
    straight only because it is in a cycle of calls)."""
    for ins in code.instrs:
        if isinstance(ins, CallProc):
            if ins.proc not in straight_keys:
                return ins
        elif isinstance(ins, Emit):
            if not set(handlers.get(ins.event, [])) <= straight_keys:
                return ins
        elif _pauses(ins):
            return ins
    return None


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
    """Writes the source; instructions call back (``value``, ``local``, ``goto``, ``pause``...)."""

    def __init__(self, code, program, counting: bool = False, direct: bool = False):
        self.code, self.program, self.space = code, program, code.space
        self.counting, self.direct = counting, direct
        self.names: dict = {}  # id(object) -> its name in the namespace
        instrs = code.instrs
        self.leaves = set() if direct else {i for i, x in enumerate(instrs) if getattr(x, "leaves", None) and x.leaves(self)}
        self.must, self.may = flow.assignment(instrs, code.params)
        self.dirty = flow.dirty(instrs, self.leaves)
        self.keys = set(code.params).union(*self.may)
        # the order in which the locals are first set, parameters first: a pause writes back
        # new ones in it, so the frame's dict lists them as it did when locals were L[...]
        self.order: dict = dict.fromkeys(code.params)
        for i, x in enumerate(instrs):
            for _, sets, _ in x.flow(i):
                self.order.update(dict.fromkeys(k for k in sorted(sets) if k not in self.order))
        self.order = {k: j for j, k in enumerate(self.order)}
        self.reads: list = [set() for _ in instrs]  # what each instruction reads, noted as it is written
        # where the function is entered, and which of those only from outside (no jump to them)
        self.entries = sorted({0} | {j for i in self.leaves for j, _, _ in instrs[i].flow(i) if j < len(instrs)})
        inside = {j for i, x in enumerate(instrs) if i not in self.leaves for j, _, _ in x.flow(i)}
        self.outside = set() if direct else set(self.entries) - inside
        # A local that a pause finds set on some ways since the entry but not on all is written
        # to the frame where it is set ("through"): written back at the pause, it would have to
        # be loaded at every entry in case it was not set. A loop's state is written back.
        surely = flow.surely_set(instrs, self.leaves, self.entries)
        self.through = {k for q in self.leaves for k in (self.dirty[q] & self.may[q]) - surely[q]
                        if not k.startswith("$")}
        self.at = 0  # the instruction being written
        self._loads: dict = {}  # an entry's loads (once reads are known)

    # ------------------------------------------------------------ locals
    def local(self, key: str, read: bool = False) -> str:
        """The Python name of local ``key`` (``read``: the instruction being written reads it)."""
        if read:
            self.reads[self.at].add(key)
        if key.startswith(SLOT):
            return f"_turn{_number(key, SLOT)}"
        return f"v_{key}"

    def loop_names(self, slot: str, read: bool = False) -> tuple[str, str]:
        """The two Python locals of a loop's hidden local: what it walks and where it stands."""
        if read:
            self.reads[self.at].add(slot)
        k = _number(slot, "$")
        return f"_each{k}", f"_at{k}"

    def read(self, names) -> None:
        """The instruction being written reads the locals among ``names`` (by its own code)."""
        self.reads[self.at].update(set(names) & self.keys)

    def set_here(self, key: str) -> bool:
        """Whether local ``key`` is set on every way to the instruction being written."""
        return key in self.must[self.at]

    def _load(self, key: str) -> str:
        if _is_loop(key):
            return "{}, {} = L[{!r}]".format(*self.loop_names(key), key)
        return f"{self.local(key)} = L[{key!r}]"

    def assign(self, key: str, value: str) -> list:
        """Lines that set local ``key`` to the Python expression ``value``."""
        name = self.local(key)
        return [f"{name} = {value}", *([f"L[{key!r}] = {name}"] if key in self.through else [])]

    def _store(self, key: str) -> str:
        if _is_loop(key):
            return "L[{2!r}] = [{0}, {1}]".format(*self.loop_names(key), key)
        return f"L[{key!r}] = {self.local(key)}"

    # ------------------------------------------------------------ for the instructions
    def obj(self, x) -> str:
        """The name of a Python object (an expression's checked code, a target resolver) in the source."""
        name = self.names.get(id(x))
        if name is None:
            name = self.names[id(x)] = add(self.space, "_o", x)
        return name

    def live(self, names=None) -> str:
        """The rule's locals as a dict, from the Python locals set now, for code that reads them
        by name (an expression's checked code, a target's resolver); only ``names`` if they are
        given and set on every way here."""
        if names is not None:
            names = sorted(set(names) & self.keys)
            if set(names) <= self.must[self.at]:
                return "{" + ", ".join(f"{k!r}: {self.local(k)}" for k in names) + "}"
        return "_live(locals())"

    def value(self, fn, var: str) -> list:
        """Lines that set ``var`` to an expression's value: its generated source inline, falling
        back on its checked code for any fault the source does not word itself (a local not
        set yet among them: Python's unbound local)."""
        e = getattr(fn, "e", None)
        if e is not None:
            self.read(x.name for x in n.walk(e) if isinstance(x, (n.Var, n.Call)))
        source = getattr(fn, "source", None)
        if source is None:
            return [f"{var} = {self.obj(fn)}(run, {self.live()})"]
        if _SAFE.fullmatch(source) or (source.startswith("v_") and source[2:] in self.must[self.at]):
            return [f"{var} = {source}"]  # a literal, a constant or a local set here cannot fail
        return ["try:", f"    {var} = {source}", "except _SAID:", "    raise",
                "except Exception:", f"    {var} = {self.obj(fn)}(run, {self.live()})"]

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

    def pause(self, i: int, here: bool = False) -> list:
        """Lines that leave the function at instruction ``i`` to go on later at ``i + 1`` (at
        ``i`` if ``here``): the locals it set written back to the frame, and where it stands."""
        back = sorted((self.dirty[i] & self.may[i]) - self.through, key=self.order.__getitem__)
        assert set(back) <= self.must[i], (self.code.key, i)  # a loop's state is set all through its body
        self.reads[i].update(back)
        return [*map(self._store, back), f"F['pc'] = {i if here else i + 1}"]

    def drop(self, key: str) -> list:
        """Lines that drop a hidden local at the end of its loop: from the frame as well when a
        pause inside the loop may have written it there."""
        if any(key in self.may[i] for i in self.leaves):
            return [f"L.pop({key!r}, None)"]
        return []

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
        args = "".join(f", _a{j}" for j in range(len(program.codes[key].params)))
        return self._resets(key) + f"_v = {units}[{key!r}](run{args})"

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
        if start in self.outside:  # entered only from outside: the locals it reads from the frame
            out.append((_LOADS, start))  # (known once the whole body is written)
        instrs = self.code.instrs
        for i in range(start, stop):
            self.at = i
            out += [(line, i) for line in instrs[i].source(self, i)]
            if i == 0 and self.counting and self.code.guarded:  # past the guard: it held
                out.append((self.count(), 0))
        if not instrs[stop - 1].ends:
            out += [(line, stop - 1) for line in self.goto(stop)]
        return out

    def tree(self, blocks: list, write) -> list:
        """Pick the block of ``pc`` by halves (a unit has few blocks; this keeps it log n)."""
        if len(blocks) == 1:
            return write(*blocks[0])
        half = len(blocks) // 2
        return [(f"if pc < {blocks[half][0]}:", blocks[half][0]),
                *[("    " + line, i) for line, i in self.tree(blocks[:half], write)],
                ("else:", blocks[half][0]),
                *[("    " + line, i) for line, i in self.tree(blocks[half:], write)]]

    def entry(self, pc: int, live: list) -> list:
        """Lines that load, on entering the function at ``pc``, the locals it may read."""
        lines = []
        for key in sorted(live[pc] & self.may[pc]):
            if key in self.must[pc]:
                lines.append(self._load(key))
            else:
                lines += [f"if {key!r} in L:", "    " + self._load(key)]
        return lines

    def count(self) -> str:
        return f"run.counts[{self.code.key!r}] += 1"

    def function(self) -> tuple[list, list]:
        instrs = self.code.instrs
        starts = self.leaders()
        blocks = list(zip(starts, starts[1:] + [len(instrs)]))
        # the body is written first: what each instruction reads says what an entry loads
        body = self.tree(blocks, self.block)
        if not self.direct:
            live = flow.live(instrs, self.leaves, self.reads)
            self._loads = {pc: self.entry(pc, live) for pc in self.entries}
            body = [(indent + line, i) for text, i in body
                    for indent, line in ([(text[:-len(_LOADS)], x) for x in self._loads[i]]
                                         if text.endswith(_LOADS) else [("", text)])]
        loop = [("while True:", 0), *[("    " + line, i) for line, i in body]]
        count = self.counting and not self.code.guarded
        if self.direct:  # always entered afresh, its parameters Python's
            head = [("L = None", 0), ("pc = 0", 0), *([(self.count(), 0)] if count else [])]
        else:  # entered where it stopped: an entry that is also jumped to loads here
            load: list = []
            for pc in self.entries:
                if pc not in self.outside and self._loads[pc]:
                    load += [(f"{'el' if load else ''}if pc == {pc}:", pc),
                             *[("    " + line, pc) for line in self._loads[pc]]]
            head = [("L = F['L']", 0), ("pc = F['pc']", 0), *load,
                    *([("if pc == 0:", 0), ("    " + self.count(), 0)] if count else [])]
        body = [("_E = run.ent", 0), ("_B = run.budget", 0), *head, *loop]
        params = "".join(f", {self.local(p)}" for p in self.code.params) if self.direct else ", F"
        lines = [f"def unit(run{params}):"] + ["    " + line for line, _ in body]
        owners = [0] + [i for _, i in body]
        return lines, owners


_LOADS = "<loads>"  # where an entry's loads go in its block


def _is_loop(key: str) -> bool:
    return key.startswith("$") and not key.startswith(SLOT)


def _number(slot: str, prefix: str) -> str:
    """A hidden local's number (``$3@12``: 3), unique in its unit."""
    return slot[len(prefix):].split("@")[0]
