"""A code unit's instructions written as ONE Python function ``unit(run, F)``.

The function runs frame ``F`` from ``F["pc"]`` until control leaves the unit: a call or an
event that the machine runs (a frame pushed, ``F["pc"]`` set to where it goes on: returns
``GO_ON``), a return (returns the value), a choice or the end of the game (``PAUSE``: the
machine pauses). Inside, the unit's basic blocks are picked by ``pc`` in a ``while`` loop, so
jumps and loops stay in Python; each block counts its instructions against the step budget when
it starts. Expressions are inlined as their generated source (:mod:`.expressions`), each with
its checked code as the fallback where it may raise what that code words
(:meth:`.expressions.Codegen.total`). Every line is written through the one writer
(:mod:`.writer`), which records the instruction each line is for; ``_E`` (the entities) is read
at the top only by a unit that reads or writes one.

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

A call of a unit that may pause but is in no cycle of calls (``Program.acyclic``) pushes the
callee's frame as any call does and then runs the callee's function itself. When that returns
a value (its ``return``), the caller pops the frame and goes on at the next instruction in the
same Python call, the value in a Python local: its own locals were never written back to its
frame. When it returns a :class:`~interpreter.runtime.code.Signal` (``PAUSE``: a choice or the
end; ``GO_ON``: frames pushed for the machine to run) the caller writes back its locals and where
it goes on, as a pause does, and returns the same: only the chain of calls that reached the
pause writes its state to the frames, and the machine resumes the caller at the next
instruction later, as before. A unit that the machine runs (its frame on top of the stack)
returns its value to the machine, which pops the frame and hands the value to the frame below
(``Machine.pop``). A value kept by the caller is measured (``_store``) at the ``return`` that
gives it, whichever way it is returned. Python's stack never grows with the rules' recursion: a
unit in a cycle keeps its calls on the machine's.

Blocks are picked by ``pc`` only where control may jump or come back from outside: a call of a
straight unit does not end its block, and an ``if``-test that skips forward to a leader that
nothing else reaches is written as a Python ``if`` around what it skips (:meth:`_UnitWriter.inlined`);
each block picked by ``pc`` counts its instructions against the budget where it starts, those
of the leaders written in line in it included (a way that leaves the unit before them, a
``return`` inside such an ``if``, is charged them all the same).

Where the rules are paused stays plain data: ``pc`` is an instruction's index, as before. A
fault's position is found from the line of the unit's function that raised it
(:func:`interpreter.runtime.code.fault_site`): each line of the source belongs to one
instruction.
"""
from __future__ import annotations

import re

from ..dsl import nodes as n
from ..dsl.turns import SLOT
from ..runtime.code import GO_ON, PAUSE, Signal
from . import flow
from .instructions import CallProc, CheckEnd, Choose, Emit, EndGame, IterNext, Jump, JumpIfNot, Return
from .sources import Objects, define
from .writer import Writer


_SIGNALS = {"_PAUSE": PAUSE, "_GO_ON": GO_ON, "_Signal": Signal}   # what a unit returns when it leaves


class Units(dict):
    """A program's unit functions by code key, each written the first time it runs."""

    def __init__(self, program, counting: bool = False, direct: bool = False):
        super().__init__()
        self.program, self.counting, self.direct = program, counting, direct

    def __missing__(self, key):
        fn = self[key] = write(self.program.codes[key], self.program, self.counting, self.direct)
        return fn


def _callees(code, handlers: dict) -> list:
    """The units ``code`` calls: its procedures, and the handlers of the events it emits."""
    out: list = []
    for ins in code.instrs:
        if isinstance(ins, CallProc):
            out.append(ins.proc)
        elif isinstance(ins, Emit):
            out += handlers.get(ins.event, [])
    return out


def straight(codes: dict, handlers: dict) -> frozenset:
    """The keys of the units that can never pause: no choice, end of the game, end test or call
    of a procedure held by a local in them, nor in any unit they call or any handler of an event
    they emit; and in no cycle of calls (a recursive procedure keeps its frames)."""
    # key -> the units it calls, or None when it pauses itself
    callees = {key: None if any(map(_pauses, code.instrs)) else _callees(code, handlers)
               for key, code in codes.items()}
    known: dict = {}  # key -> straight or not; None while being looked at (a cycle back to it)

    def visit(key) -> bool:
        if key in known:
            return known[key] is True
        known[key] = None
        calls = callees.get(key)
        known[key] = ok = calls is not None and all([visit(k) for k in calls])
        return ok

    return frozenset(k for k in codes if visit(k))


def acyclic(codes: dict, handlers: dict) -> frozenset:
    """The keys of the units that are in no cycle of calls and events (a unit that may call
    itself again, however indirectly, keeps its calls on the machine's stack, not Python's)."""
    calls = {key: set(_callees(code, handlers)) & set(codes) for key, code in codes.items()}
    cyclic: set = set()
    for start in codes:   # start is in a cycle if it is among the units reachable from it
        seen: set = set()
        todo = list(calls[start])
        while todo and start not in seen:
            k = todo.pop()
            if k not in seen:
                seen.add(k)
                todo.extend(calls[k])
        if start in seen:
            cyclic.add(start)
    return frozenset(codes) - cyclic


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
    source, owners = _UnitWriter(code, program, counting, direct).function()
    space = code.space
    space.update(_SIGNALS)
    define(space, source, f"<unit {code.key}>")
    fn = space.pop("unit")
    # for position(): the namespace knows its units' code objects, their Code and line owners
    space.setdefault("__units__", {})[fn.__code__] = (code, owners)
    return fn


class _UnitWriter(Writer):
    """Writes a unit's function, each line owned by the instruction it is written for
    (``at``); instructions write themselves through it (``value``, ``assign``, ``goto``,
    ``pause``...)."""

    def __init__(self, code, program, counting: bool = False, direct: bool = False):
        super().__init__(0)  # at: the instruction being written
        self.code, self.program, self.space = code, program, code.space
        self.counting, self.direct = counting, direct
        self.names = Objects(self.space, "_o", f"{code.key} {counting:d}{direct:d}")   # (see obj)
        instrs = code.instrs
        self.leaves = set() if direct else {i for i, x in enumerate(instrs) if getattr(x, "leaves", None) and x.leaves(self)}
        # the calls whose function runs here and may pause there: this one's locals are written
        # back before them as before a pause, and it is entered again after them on a resume
        self.resumed = set() if direct else {
            i for i, x in enumerate(instrs) if isinstance(x, CallProc) and x.proc not in program.straight
            and self.resumes(x.proc)}
        pauses = self.leaves | self.resumed
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
        self.entries = sorted({0} | {j for i in pauses for j, _, _ in instrs[i].flow(i) if j < len(instrs)})
        inside = {j for i, x in enumerate(instrs) if i not in self.leaves for j, _, _ in x.flow(i)}
        self.outside = set() if direct else set(self.entries) - inside
        # A local that a pause finds set on some ways since the entry but not on all is written
        # to the frame where it is set ("through"): written back at the pause, it would have to
        # be loaded at every entry in case it was not set. A loop's state is written back.
        surely = flow.surely_set(instrs, self.leaves, self.entries)
        self.through = {k for q in pauses for k in (self.dirty[q] & self.may[q]) - surely[q]
                        if not k.startswith("$")}
        self._live: list | None = None  # what may be read from each instruction on (once the body is written)
        self.loop: tuple | None = None  # (head, exit) of the loop of one block being written

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

    def assign(self, key: str, value: str) -> None:
        """Set local ``key`` to the Python expression ``value``."""
        name = self.local(key)
        self.line(f"{name} = {value}")
        if key in self.through:
            self.line(f"L[{key!r}] = {name}")

    def let(self, key: str, fn) -> None:
        """Set local ``key`` to the value of expression ``fn`` as it is (:meth:`value`)."""
        name = self.local(key)
        self.value(fn, name)
        if key in self.through:
            self.line(f"L[{key!r}] = {name}")

    def _store(self, key: str) -> str:
        if _is_loop(key):
            return "L[{2!r}] = [{0}, {1}]".format(*self.loop_names(key), key)
        return f"L[{key!r}] = {self.local(key)}"

    # ------------------------------------------------------------ for the instructions
    def obj(self, x) -> str:
        """The name of a Python object (an expression's checked code, a target resolver) in the source."""
        return self.names(x)

    def live(self, names=None) -> str:
        """The rule's locals as a dict, from the Python locals set now, for code that reads them
        by name (an expression's checked code, a target's resolver); only ``names`` if they are
        given and set on every way here."""
        if names is not None:
            names = sorted(set(names) & self.keys)
            if set(names) <= self.must[self.at]:
                return "{" + ", ".join(f"{k!r}: {self.local(k)}" for k in names) + "}"
        return "_live(locals())"

    def value(self, fn, var: str) -> None:
        """Set ``var`` to an expression's value: its generated source inline, falling back on
        its checked code for any fault the source does not word itself (a local not set yet
        among them: Python's unbound local)."""
        e = getattr(fn, "e", None)
        if e is not None:
            self.read(x.name for x in n.walk(e) if isinstance(x, (n.Var, n.Call)))
        source = getattr(fn, "source", None)
        if source is None:
            self.line(f"{var} = {self.obj(fn)}(run, {self.live()})")
        elif fn.total is not None and fn.total <= self.must[self.at]:
            self.line(f"{var} = {source}")  # it can raise nothing its checked code would word
        else:
            self.attempt(f"{var} = {source}", f"{var} = {self.obj(fn)}(run, {self.live()})")

    def test(self, fn) -> str:
        """A jump's condition as a Python test: its source itself where it can raise nothing
        its checked code would word, else ``_v`` set as :meth:`value` sets it."""
        source = getattr(fn, "source", None)
        if source is None or fn.total is None or not fn.total <= self.must[self.at]:
            self.value(fn, "_v")
            return "_v"
        self.read(x.name for x in n.walk(fn.e) if isinstance(x, (n.Var, n.Call)))
        return source

    def values(self, fns) -> None:
        """Set ``_a0``, ``_a1``... to the values of ``fns``."""
        for j, fn in enumerate(fns):
            self.value(fn, f"_a{j}")

    def goto(self, target: int) -> None:
        """Go on at leader ``target``: a block that only jumps on is gone through here (its
        step counted), and one that only returns none is run here, not picked by ``pc``.
        Inside a loop of one block (:meth:`loops`), back to its head or out to its exit."""
        if self.loop is not None:
            head, out = self.loop
            if target == head:
                self.line("continue")
                return
            assert target == out, (self.code.key, self.at, target)
            self.line(f"pc = {out}")
            self.line("break")
            return
        instrs, at, steps, seen = self.code.instrs, self.at, 0, {self.at}
        while target and self.sizes.get(target) == 1 and target not in seen:
            seen.add(target)
            ins = instrs[target]
            if ins.__class__ is Jump:
                self.at, steps, target = target, steps + 1, ins.target
            elif ins.__class__ is Return and not ins.expr:
                self.at = target
                self._charge(steps + 1)
                self.line("return None")
                self.at = at
                return
            else:
                break
        if steps:
            self._charge(steps)
        self.at = at
        self.jumps += 1
        self.line(f"pc = {target}")
        self.line("continue")

    def pause(self, i: int, here: bool = False) -> None:
        """Leave the function at instruction ``i`` to go on later at ``i + 1`` (at ``i`` if
        ``here``): the locals it set written back to the frame, and where it stands."""
        back = sorted((self.dirty[i] & self.may[i]) - self.through, key=self.order.__getitem__)
        assert set(back) <= self.must[i], (self.code.key, i)  # a loop's state is set all through its body
        self.reads[i].update(back)
        self.lines(map(self._store, back))
        self.line(f"F['pc'] = {i if here else i + 1}")

    def drop(self, key: str) -> None:
        """Drop a hidden local at the end of its loop: from the frame as well when a pause
        inside the loop may have written it there."""
        if any(key in self.may[i] for i in self.leaves | self.resumed):
            self.line(f"L.pop({key!r}, None)")

    def _args(self, key: str) -> str:
        """The locals of a call of unit ``key`` with arguments ``_a0``, ``_a1``..., as a dict."""
        return "{" + ", ".join(f"{p!r}: _a{j}" for j, p in enumerate(self.program.codes[key].params)) + "}"

    def _resets(self, key: str) -> str:
        """What starts a call of ``key``: its scoped variables afresh, if it has any."""
        return f"run.globals_w().update(run.program.resets[{key!r}]); " if key in self.program.resets else ""

    def push(self, key: str, dest, var: str | None = None) -> None:
        """Push a frame of unit ``key`` with arguments ``_a0``, ``_a1``... (kept in ``var`` too,
        if given)."""
        frame = f"{{'c': {key!r}, 'pc': 0, 'L': {self._args(key)}, 'r': {dest!r}}}"
        if var is not None:
            self.line(f"{var} = {frame}")
            frame = var
        self.line(self._resets(key) + f"run.state['stack'].append({frame})")

    def straight(self, keys) -> bool:
        """Whether the units ``keys`` are called directly (they never pause)."""
        return all(k in self.program.straight for k in keys)

    def resumes(self, key: str) -> bool:
        """Whether a call of unit ``key``, which may pause, runs its function here on the frame
        it pushes, and goes on in this function when it returns (see the module's note)."""
        return not self.direct and key in self.program.acyclic

    def call(self, key: str) -> None:
        """Run straight unit ``key`` to its end, its value in ``_v``."""
        program = self.program
        units = self.obj(program.counted_direct if self.counting else program.direct_units)
        args = "".join(f", _a{j}" for j in range(len(program.codes[key].params)))
        self.line(self._resets(key) + f"_v = {units}[{key!r}](run{args})")

    def ends(self, i: int) -> bool:
        """Whether control leaves the straight line after instruction ``i``: a call or an event
        whose units run to their end in Python goes on at ``i + 1`` in the same block."""
        ins = self.code.instrs[i]
        return ins.ends and (i in self.leaves or i in self.resumed or not isinstance(ins, (CallProc, Emit)))

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
            if self.ends(i):
                starts.add(i + 1)
            for spec in getattr(ins, "options", ()):
                if spec.target is not None:
                    starts.add(spec.target)
            if getattr(ins, "end", None) is not None:
                starts.add(ins.end)
        return sorted(s for s in starts if s < len(instrs))

    def inlined(self, starts: list) -> set:
        """The leaders written in line with the block before them, not picked by ``pc``: those
        that control reaches only by falling through from the instruction before and by
        ``if``-tests of that block that skip forward to them (each such test is written as an
        ``if`` around the instructions it skips, :meth:`run_of`); never an entry, nor one whose
        skipped instructions hold a block picked by ``pc`` or cross another's."""
        instrs = self.code.instrs
        preds: dict = {}   # pc -> the pcs control goes to it from
        self.preds = preds
        for i, x in enumerate(instrs):
            for j, _, _ in x.flow(i):
                preds.setdefault(j, set()).add(i)
        inline: set = set()
        skips: list = []   # (test, target) of the tests written as an ``if``
        for t in starts:
            if t == 0 or t in self.entries:
                continue
            tests = []
            for q in preds.get(t, ()):
                x = instrs[q]
                if q == t - 1 and (not self.ends(q) or (x.__class__ is Jump and x.target == t)):
                    continue
                if x.__class__ is JumpIfNot and x.target == t and q < t:
                    tests.append(q)
                    continue
                break
            else:
                low = min(tests, default=t - 1)
                if all(s in inline for s in starts if low < s < t) and \
                        not any(i < q < u for i, u in skips for q in tests):
                    inline.add(t)
                    skips += [(q, t) for q in tests]
        return inline

    def charge(self, start: int) -> None:
        """Count the instructions from leader ``start`` to the next leader picked by ``pc``
        against the step budget (those of the leaders written in line among them included:
        every way through the block reaches them, unless it leaves the unit first)."""
        self.at = start
        self._charge(self.sizes[start])
        if start in self.outside:  # entered only from outside: the locals it reads from the frame
            self.later(lambda w: self.loads(w, start))  # (known once the whole body is written)

    def _charge(self, steps: int) -> None:
        self.line(f"run.steps = _s = run.steps + {steps}")
        self.line("if _s > _B:")
        with self.indent():
            self.line("raise _OverBudget()")

    def loops(self, picked: list) -> dict:
        """The loops of one block: head pc -> exit pc of each ``for``/``repeat``/``while`` whose
        head is a block picked by ``pc`` that reaches, with the tests written in line, to the
        jump back at the end of the body, and that nothing outside enters but by its head. Each
        is written as a Python ``while`` around its block (:meth:`block`): a way back to the
        head is a ``continue`` there, without going round the unit's loop, and the exit a
        ``break`` into the block after it."""
        instrs, out = self.code.instrs, {}
        for h in picked:
            ins = instrs[h]
            if ins.__class__ not in (IterNext, JumpIfNot):
                continue
            e = ins.target
            if not (h < e < len(instrs) and self.sizes[h] == e - h):
                continue
            back = instrs[e - 1]
            if not (back.__class__ is Jump and back.target == h):
                continue
            if all(h - 1 <= i < e for i in self.preds[h]) and \
                    all(h <= j <= e for i in range(h, e) for j, _, _ in instrs[i].flow(i)):
                out[h] = e
        return out

    def run_of(self, start: int, stop: int) -> None:
        """The instructions [start, stop), a test that skips to a leader written in line as an
        ``if`` around what it skips."""
        instrs = self.code.instrs
        i = start
        while i < stop:
            if i in self.sizes:
                self.charge(i)
            self.at = i
            ins = instrs[i]
            if ins.__class__ is JumpIfNot and ins.target in self.inline and i < ins.target:
                self.line(f"if {self.test(ins.cond)}:")
                with self.indent():
                    if i == 0 and self.counting and self.code.guarded:  # past the guard: it held
                        self.count()
                    size = len(self._items)
                    self.run_of(i + 1, ins.target)
                    if len(self._items) == size:
                        self.line("pass")
                i = ins.target
                continue
            if not (ins.__class__ is Jump and ins.target == i + 1 and ins.target in self.inline):
                ins.write(self, i)
            if i == 0 and self.counting and self.code.guarded:  # past the guard: it held
                self.count()
            i += 1

    def block(self, start: int, stop: int) -> None:
        """The block [start, stop), picked by ``pc``. One that goes on to the next block at its
        end falls into it (:meth:`tree`), without going round the loop. A loop of one block
        is a ``while`` of its own (:meth:`loops`)."""
        out = self.looped.get(start)
        if out is not None:
            self.at = start
            self.line("while True:")
            with self.indent():
                self.loop = (start, out)
                self.run_of(start, stop)
                self.loop = None
            return
        self.run_of(start, stop)
        if not self.ends(stop - 1):
            self.at = stop - 1
            self.goto(stop)
        items = self._items
        if items[-1][:2] == (self._depth, "continue") and items[-2][:2] == (self._depth, f"pc = {stop}"):
            del items[-1]
            self.jumps -= 1

    def tree(self, blocks: list) -> None:
        """Pick the block of ``pc`` by halves (a unit has few blocks; this keeps it log n): the
        first half under ``if pc < MIDDLE``, the second after it, so that the last block of the
        first half falls into the second with ``pc`` at its first block (:meth:`block`)."""
        if len(blocks) == 1:
            self.block(*blocks[0])
            return
        half = len(blocks) // 2
        self.at = blocks[half][0]
        self.line(f"if pc < {blocks[half][0]}:")
        with self.indent():
            self.tree(blocks[:half])
        self.tree(blocks[half:])

    def _loaded(self, pc: int) -> list:
        """The locals an entry at ``pc`` loads from the frame: those it may read, that may be
        set (the body is written by now: what each instruction reads says what an entry loads)."""
        if self._live is None:
            self._live = flow.live(self.code.instrs, self.leaves, self.reads)
        return sorted(self._live[pc] & self.may[pc])

    def loads(self, w: Writer, pc: int) -> None:
        """Load, on entering the function at ``pc``, the locals it may read (into writer ``w``)."""
        w.at = pc
        for key in self._loaded(pc):
            if key in self.must[pc]:
                w.line(self._load(key))
            else:
                w.line(f"if {key!r} in L:")
                with w.indent():
                    w.line(self._load(key))

    def jumped_to_loads(self, w: Writer) -> None:
        """The loads of each entry that is also jumped to, picked by ``pc``."""
        first = True
        for pc in self.entries:
            if pc not in self.outside and self._loaded(pc):
                w.at = pc
                w.line(f"{'' if first else 'el'}if pc == {pc}:")
                with w.indent():
                    self.loads(w, pc)
                first = False

    def count(self) -> None:
        self.line(f"run.counts[{self.code.key!r}] += 1")

    def function(self) -> tuple[str, list]:
        """The source of the unit's function, and the instruction each of its lines is for."""
        instrs = self.code.instrs
        starts = self.leaders()
        self.inline = self.inlined(starts)
        picked = [a for a in starts if a not in self.inline]
        self.sizes = {a: b - a for a, b in zip(picked, picked[1:] + [len(instrs)])}
        self.looped = self.loops(picked)
        blocks = list(zip(picked, picked[1:] + [len(instrs)]))
        params = "".join(f", {self.local(p)}" for p in self.code.params) if self.direct else ", F"
        self.at = 0
        self.line(f"def unit(run{params}):")
        with self.indent():
            entities = len(self._items)
            self.line("_E = run.ent")
            self.line("_B = run.budget")
            count = self.counting and not self.code.guarded
            if self.direct:  # always entered afresh, its parameters Python's
                self.line("L = None")
                self.line("pc = 0")
                if count:
                    self.count()
            else:  # entered where it stopped: an entry that is also jumped to loads here
                self.line("L = F['L']")
                self.line("pc = F['pc']")
                self.later(self.jumped_to_loads)
                if count:
                    self.line("if pc == 0:")
                    with self.indent():
                        self.count()
            self.jumps = 0   # the ``continue`` written
            loop = len(self._items)
            self.line("while True:")
            with self.indent():
                self.tree(blocks)
            if not self.jumps:  # one block that never jumps: no loop around it
                del self._items[loop]
                self._items[loop:] = [(depth - 1, item, at) for depth, item, at in self._items[loop:]]
            if not any(item.__class__ is str and _ENTITIES.search(item) for _, item, _ in self._items[entities + 1:]):
                del self._items[entities]   # no entity read or written here
        return self.source()


_ENTITIES = re.compile(r"\b_E\b")


def _is_loop(key: str) -> bool:
    return key.startswith("$") and not key.startswith(SLOT)


def _number(slot: str, prefix: str) -> str:
    """A hidden local's number (``$3@12``: 3), unique in its unit."""
    return slot[len(prefix):].split("@")[0]
