"""The compiler: syntax tree -> generated expressions and flat instruction lists, once per load.

Expressions become ``fn(run, locals)``: the fast Python code of :mod:`.expressions`, which runs
the expression's checked code (the same generator's checked mode) when anything goes wrong in
it; statements become the instructions of :mod:`.instructions`, each unit written as one Python
function by :mod:`.units`. Everything is resolved first, in one walk
(:mod:`interpreter.dsl.resolver`, asking :mod:`interpreter.dsl.scope`): every name, every call's
arguments, every statement where it stands; its problems go to the sink, so a loaded ruleset
never meets an undefined name at run time, and the compiler only writes code.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from ..dsl import functions as _functions, nodes as n, turns as _turns
from ..dsl.resolver import Resolver, assigned, leading_requires, strip_requires
from ..dsl.scope import Kind, Names, resolve, resolve_procedure
from ..errors import Sink
from ..runtime.code import SECRET_SLOT, Code, OptionSpec
from ..runtime.governor import WHOLE_NUMBERS
from ..runtime.values import RuleFault, describe, map_key
from . import instructions as ins, legal as _legal
from .expressions import Checked, Codegen, inlinable, namespace
from .proven import ANY, types_for
from .storing import AS_IT_IS, CHECKED, SURE, WHOLE, checked_locals, plan
from .units import Units, acyclic, first_pause, straight


@dataclass
class Program:
    """A compiled ruleset's rules: code units and the compiled pieces the engine asks for."""
    codes: dict = field(default_factory=dict)        # key -> Code
    handlers: dict = field(default_factory=dict)     # event -> [code key]
    end_conditions: list = field(default_factory=list)  # (name, fn)
    score: object = None                             # fn(run, player) -> int
    score_pos: object = None
    estimate: object = None                          # fn(run, player) -> number, or None
    estimate_pos: object = None
    tiebreak: object = None                          # fn(run, player) -> int, or None
    metrics: list = field(default_factory=list)      # (name, fn, pos)
    actions: dict = field(default_factory=dict)      # name -> OptionSpec template
    end_words: dict = field(default_factory=dict)    # end condition -> fn of its `as` text
    space: dict = field(default_factory=namespace)   # where all its generated code runs
    units: dict | None = None                        # key -> the code unit as one function
    counted_units: dict | None = None                      # the same, counting entries (Machine.counts)
    direct_units: dict | None = None                 # key -> a straight unit, called directly
    counted_direct: dict | None = None               # the same, counting entries
    resets: dict = field(default_factory=dict)       # procedure's code key -> {scoped variable: start}
    at_end: list = field(default_factory=list)       # the code keys of `on game_end`, run when the game ends
    checked: bool = False                            # every expression in checked mode (tests)

    def __post_init__(self):
        self.units = Units(self)
        self.counted_units = Units(self, counting=True)
        self.direct_units = Units(self, direct=True)
        self.counted_direct = Units(self, counting=True, direct=True)

    @cached_property
    def secret_choices(self) -> bool:
        """Whether the rules have a secret choice (``choose secretly``)."""
        return any(i.secret for code in self.codes.values() for i in code.instrs if isinstance(i, ins.Choice))

    @cached_property
    def straight(self) -> frozenset:
        """The code units that never pause, called directly (units.py); worked out when the
        first unit is written, once every unit is compiled."""
        return straight(self.codes, self.handlers)

    def lister(self, instr):
        """The function that lists the legal actions of choice ``instr`` (compile/legal.py), or
        False when the machine lists them itself."""
        return _legal.write(instr, self) or False

    def write_all(self) -> None:
        """Every code unit (and a straight one's direct code) and legal-actions lister written
        now, as a game writes each the first time it runs: a ruleset kept in the user cache is
        kept with them (:func:`..data.ruleset.load_ruleset`), so that a process reading it
        writes and compiles none of them. (Written on first use in each process, they were
        about half the instructions of its first four games.) Only the counting units of
        ``coverage`` stay written on first use. The names the code gives what it reads do not
        depend on the order it is written in (:func:`.sources.add`)."""
        units, direct = self.units, self.direct_units
        assert units is not None and direct is not None   # (made by __post_init__)
        for key in self.codes:
            units[key]
            if key in self.straight:
                direct[key]
        for code in self.codes.values():
            for instr in code.instrs:
                if isinstance(instr, ins.Choice) and instr.lister is None:
                    instr.lister = self.lister(instr)

    @cached_property
    def acyclic(self) -> frozenset:
        """The code units in no cycle of calls: a call of one runs its function from the
        caller's, even if it may pause (units.py)."""
        return acyclic(self.codes, self.handlers)


def _stored(how, g) -> str:
    """The value ``_v`` as a rule stores it, ``how`` the store site's plan (compile/storing.py):
    as it is, a whole number tested against the bounds, through a shaped check, or through the
    governor's whole check (``_store``), which words every fault."""
    if how == AS_IT_IS:
        return "_v"
    if how == CHECKED:
        return "_store(_v)"
    if how == WHOLE:   # (only an int itself is looked up in a range at once: none, or a subclass, walks it)
        return f"(_v if _v.__class__ is int and _v in {g.obj(WHOLE_NUMBERS)} else _store(_v))"
    if how == SURE:   # (arithmetic, a count, a number written: an int itself)
        return f"(_v if _v in {g.obj(WHOLE_NUMBERS)} else _store(_v))"
    return f"{g.obj(how)}(_v)"


class _Scope:
    def __init__(self, locals_: set | dict, loops: list | None = None, kept: frozenset = frozenset(),
                 key: str = ""):
        self.key = key          # the code unit's key (its for loops that walk a proven list)
        self.locals = locals_   # the names, or a unit's names -> their proven types (_typed)
        self.kept = kept        # the locals that hold only checked values (storing.checked_locals)
        self.loops = loops if loops is not None else []
        self.turns: list = []   # the enclosing `each ... in turn` loops: (hidden slot, end)
        self.counter = 0


class Compiler:
    def __init__(self, names: Names, sink: Sink, generate: bool = True, checked: bool = False):
        self.names = names
        self.generate = generate  # False: checked code only, written when it runs (lint)
        # True: every expression in codegen's checked mode, no fast code at all (a test plays
        # the rules both ways and compares)
        self.checked = checked
        self.program = Program(checked=checked)
        self.resolver = Resolver(names, sink)   # the one that reports; the compiler writes code
        self.space = self.program.space
        # True while compiling the variant of a def that a derived value runs: it also notes
        # every entity field and variable it reads (Machine.derived)
        self.tracking = False

    # ------------------------------------------------------------------ entry
    def compile(self, definitions: list, drawn: frozenset = frozenset()) -> Program:
        """The program of the definitions. ``drawn``: the fields something besides the rules
        writes (a bot's imagined copy draws the secret ones afresh: tools/bots/search.imagine)."""
        p = self.program
        self.resolver.definitions(definitions)
        self.names.written = fields_written(definitions) | drawn
        if self.generate:  # from now on generated code writes small defs in place (codegen.inline)
            self.space["_inlinable"] = inlinable(self.names.functions)
        game = [d for d in definitions if isinstance(d, n.GameDef)]
        for d in definitions:
            if isinstance(d, n.ActionDef):
                p.actions[d.name] = self._action_template(d)
        for d in definitions:
            if isinstance(d, n.ProcDef):
                self._code(f"proc:{d.name}", d.params, d.body, d.pos)
            elif isinstance(d, n.ActionDef):
                scope_vars = [d.player] + [dom.var for dom in d.domains]
                self._code(f"action:{d.name}", scope_vars, strip_requires(d.body), d.pos)
            elif isinstance(d, n.HandlerDef):
                key = f"on:{d.event}:{len(p.handlers.get(d.event, []))}"
                p.handlers.setdefault(d.event, []).append(key)
                self._code(key, d.params, d.body, d.pos, when=d.when)
            elif isinstance(d, n.EndDef):
                p.end_conditions.append((d.name, self._expr(d.expr, _Scope(set()))))
                if d.about is not None:
                    p.end_words[d.name] = self._expr(d.about, _Scope(set()))
            elif isinstance(d, n.MetricDef):
                p.metrics.append((d.name, self._expr(d.expr, _Scope(set())), d.pos))
            elif isinstance(d, n.ScoreDef):  # score, tiebreak or estimate
                fn = self._expr(d.expr, _Scope(self._typed(n.DEFINITION_KINDS[type(d)], {d.player})))
                var = d.player
                fn = lambda run, player, fn=fn, var=var: fn(run, {var: player})
                if isinstance(d, n.EstimateDef):
                    p.estimate, p.estimate_pos = fn, d.pos
                elif isinstance(d, n.TiebreakDef):
                    p.tiebreak = fn
                else:
                    p.score, p.score_pos = fn, d.pos
        if game:
            self._code("game", [], game[0].body, game[0].pos)
        p.at_end = p.handlers.get(n.GAME_END, [])
        if p.at_end and not set(p.at_end) <= p.straight:
            self._at_end_runs_straight(p)
        return p

    def _at_end_runs_straight(self, p: Program) -> None:
        """RR105 where `on game_end` (which runs to its end, once the game has ended) may pause."""
        for key in p.at_end:
            if key not in p.straight:
                ins = first_pause(p.codes[key], p.straight, p.handlers)
                self.resolver.sink.add(
                    "RR105", f"'on {n.GAME_END}' runs to its end once the game has ended: nothing in it, "
                    "or in what it calls or emits, may choose, end the game, check_end, call itself "
                    "or call a procedure through a local", ins.pos if ins is not None else p.codes[key].pos)

    def _action_template(self, d: n.ActionDef) -> OptionSpec:
        scope = _Scope(self._typed(f"action:{d.name}", {d.player} | {dom.var for dom in d.domains}))
        domains = [(dom.var, self._expr(dom.source, scope)) for dom in d.domains]
        requires = [self._require(r, scope) for r in leading_requires(d.body)]
        return self._with_choices(
            OptionSpec(d.name, domains, requires, None, f"action:{d.name}", d.player, d.pos),
            d.domains, leading_requires(d.body), scope)

    def _with_choices(self, spec, domains, requires, scope):
        """Say which parameters each require reads (:attr:`OptionSpec.tests_at`), and give the
        option generated code that lists its last parameter's legal values: with the requires
        that test it in fast code, or all of them when none does (in any mode)."""
        params = [d.var for d in domains]
        spec.about = tuple(None if d.about is None else self._expr(d.about, scope) for d in domains)
        types = None if self.checked else types_for(self.names)
        if types is not None and isinstance(scope.locals, dict):
            spec.listed = tuple(types.of(d.source, {}, scope.locals).startswith("list") for d in domains)
        spec.levels = tuple(max((params.index(x.name) for x in n.walk(r.cond)
                                 if isinstance(x, n.Var) and x.name in params), default=0) for r in requires)
        last = [r.cond for r, level in zip(requires, spec.levels) if level == len(domains) - 1]
        if domains and (not last or self.generate and not self.checked):
            spec.choices = Codegen(self.names, False, self.space).choices(
                domains[-1].var, last, scope.locals, spec.pos, domains[-1].source)
        return spec

    def _typed(self, key: str, locals_: set) -> dict:
        """The locals of unit ``key`` -> their proven types (compile/proven.py; any where not
        proven): what its scope holds, for the generated code to leave out tests."""
        proven = self.names.proven.get("locals", {}).get(key, {})
        return {x: proven.get(x, "any") for x in locals_}

    def _code(self, key, params, body, pos, when=None):
        scope = _Scope(self._typed(key, set(params) | assigned(body)), kept=checked_locals(params, body), key=key)
        code = Code(key, list(params), pos, space=self.space)
        self.program.codes[key] = code
        out = code.instrs
        if when is not None:
            skip = ins.JumpIfNot(when.pos, self.value(when, scope, truth=True))
            out.append(skip)
            code.guarded = True
        self._block(body, scope, out)
        code.shows = [self._expr(s.expr, scope) for s in n.walk(body) if isinstance(s, n.Show)]
        out.append(ins.Return(pos))
        if when is not None:
            skip.target = len(out) - 1

    # ------------------------------------------------------------------ statements
    def block(self, stmts: list, scope: _Scope, out: list) -> None:
        """Statements ``stmts`` resolved, then compiled onto the instructions ``out``."""
        self.resolver.statements(stmts, scope.locals)
        self._block(stmts, scope, out)

    def _block(self, stmts: list, scope: _Scope, out: list) -> None:
        for s in stmts:
            _STATEMENT[type(s)](self, s, scope, out)

    def s_Let(self, s, scope, out):
        fn, name = self.value(s.expr, scope), s.name
        how = self._storing(s.expr, fn, scope)

        def lines(g):
            if how == AS_IT_IS:
                g.let(name, fn)
                return
            g.value(fn, "_v")
            g.assign(name, _stored(how, g))
        out.append(ins.Exec(s.pos, lines, sets=(name,)))

    def _storing(self, e, fn, scope):
        """How a unit stores the value of ``e`` (compiled to ``fn``): its plan
        (compile/storing.py), the governor's whole check in checked mode or where no fast
        code computes it."""
        types = types_for(self.names)
        if self.checked or not self.generate or fn.source is None or types is None:
            return CHECKED
        return plan(types, e, scope.locals if isinstance(scope.locals, dict) else {}, scope.kept)

    def s_LetCall(self, s, scope, out):
        self._call(s, scope, out, s.name)

    def s_CallStmt(self, s, scope, out):
        self._call(s, scope, out, None)

    def _call(self, s, scope, out, dest):
        args = [self.value(a, scope) for a in s.args]
        kind, d = resolve_procedure(self.names, s.proc, scope.locals)
        if kind is Kind.LOCAL:
            # `call f(...)` where the local f holds a procedure's name (a procedure as a value)
            out.append(_CallValue(s.pos, s.proc, self.value(n.Var(s.pos, s.proc), scope), args, dest))
            return
        out.append(ins.CallProc(s.pos, f"proc:{s.proc}", args, dest))

    def s_Set(self, s, scope, out):
        target, fn, op, name = self.target(s.target, scope), self.value(s.expr, scope), s.op, s.target.name
        local = not s.target.path and resolve(self.names, name, scope.locals).kind is Kind.LOCAL
        how = self._storing(s.expr, fn, scope) if op == "=" else None
        tests = self._whole_tests(s, fn, scope) if op != "=" else ""

        def lines(g):
            if op == "=":  # the new value of what ({}) is changed
                new = _stored(how, g)
            elif tests is None:   # a list proven one (or none): items added, or a fault, in the helper
                new = f"_augment(run, {{}}, _v, {op!r})"
            else:  # two whole numbers inline, the result within the bounds; the rest (lists, faults) in a helper
                new = (f"(_n if (_n := _o {op[0]} _v) in {g.obj(WHOLE_NUMBERS)} else _store(_n)) "
                       f"if {tests} else _augment(run, _o, _v, {op!r})")
            g.value(fn, "_v")
            if local and (op == "=" or g.set_here(name)):  # a Python local, set directly
                g.assign(name, new.format(g.local(name, read=op != "=")))
                return
            old = "_local(_c, _k)" if local else "_c[_k]"   # a local set on some ways only: worded
            target(g, "_c[_k] = " + new.format(old))
        out.append(ins.Exec(s.pos, lines, sets=(name,) if self._local_root(s.target, scope) else ()))

    def _whole_tests(self, s, fn, scope) -> str | None:
        """The test that ``set target += value`` (or ``-=``) adds two whole numbers, the old
        value in ``_o`` (set by the test from ``{}``, the target), the value in ``_v``: of each,
        that it is a whole number, or where it is proven one (or none) that it is not none, or
        nothing where it is surely one (:meth:`.proven.Types.whole`). None where the target is
        proven a list (never a whole number)."""
        types = types_for(self.names)
        if self.checked or not self.generate or fn.source is None or types is None:
            return "(_o := {}).__class__ is int and _v.__class__ is int"
        locals_ = scope.locals if isinstance(scope.locals, dict) else {}
        held = types.of(s.target.read(), {}, locals_)
        if held.startswith("list"):
            return None
        old = "(_o := {}) is not None" if held == "int" else "(_o := {}).__class__ is int"
        if types.whole(s.expr, locals_):
            return old
        value = "_v is not None" if types.of(s.expr, {}, locals_) == "int" else "_v.__class__ is int"
        return f"{old} and {value}"

    def s_Pay(self, s, scope, out):
        fns = [self.value(x, scope) for x in (s.amount, s.payer, s.payee)]

        def lines(g):
            g.values(fns)
            g.line("_pay(run, _a0, _a1, _a2)")
        out.append(ins.Exec(s.pos, lines))

    def s_Add(self, s, scope, out):
        self._list_edit(s, scope, out, add=True)

    def s_Remove(self, s, scope, out):
        self._list_edit(s, scope, out, add=False)

    def _list_edit(self, s, scope, out, add):
        target, item = self.target(s.target, scope), self.value(s.item, scope)
        check = ", False" if self._storing(s.item, item, scope) == AS_IT_IS else ""

        def lines(g):
            g.value(item, "_v")
            target(g, f"_edit(run, _c, _k, _v, {add}{check})")
        out.append(ins.Exec(s.pos, lines, sets=(s.target.name,) if self._local_root(s.target, scope) else ()))

    def s_Return(self, s, scope, out):
        out.append(ins.Return(s.pos, self.value(s.expr, scope) if s.expr else None))

    def s_Break(self, s, scope, out):
        self._loop_jump(s, scope, out, 0)

    def s_Continue(self, s, scope, out):
        self._loop_jump(s, scope, out, 1)

    def _loop_jump(self, s, scope, out, which):
        if not scope.loops:  # reported by the resolver
            return
        j = ins.Jump(s.pos)
        scope.loops[-1][which].append(j)
        out.append(j)

    def s_Pass(self, s, scope, out):
        pass

    def s_Cite(self, s, scope, out):
        pass

    s_Show = s_Cite   # read by the tools where the unit waits for a choice (Code.shows)

    def s_Require(self, s, scope, out):
        out.append(ins.Assert(s.pos, self.value(s.cond, scope), self.value(s.reason, scope)))

    def _require(self, s: n.Require, scope):
        return self._expr(s.cond, scope), self._expr(s.reason, scope), s.pos

    def s_Emit(self, s, scope, out):
        out.append(ins.Emit(s.pos, s.event, [self.value(a, scope) for a in s.args]))

    def s_Draw(self, s, scope, out):
        source, name = self.value(s.source, scope), s.name

        def lines(g):
            g.value(source, "_v")
            g.assign(name, "_store(_draw(run, _v))")   # (an item of any list: checked)
        out.append(ins.Exec(s.pos, lines, sets=(name,)))

    def s_EndGame(self, s, scope, out):
        # a reason lint finds built from a secret (RR116) is a Secret: no seat reads it
        hidden = bool(self.names.secrecy) and id(s) in self.names.secrecy.get("ends", ())
        out.append(ins.EndGame(s.pos, self.value(s.reason, scope), hidden))

    def s_CheckEnd(self, s, scope, out):
        out.append(ins.CheckEnd(s.pos))

    def s_Log(self, s, scope, out):
        """A template is logged as its parts and values, written out when read (engine/log.py)."""
        reveals, field = None, None
        if s.reveals is not None:  # an entry that gives away a field: shown only to whoever may see it
            t = s.reveals
            if not t.path or t.path[-1][0] != "attr":  # reported by the resolver
                return
            field = t.path[-1][1]
            reveals = self.value(t.read(-1), scope)
        extra = f", (_w, {field!r})" if reveals else ""

        def owner(g):
            if reveals:
                g.value(reveals, "_w")
        hide = self.names.secrecy.get("logs", {}).get(id(s)) if self.names.secrecy else None
        if hide:
            return self._log_hiding(s, scope, out, hide, owner, extra)
        e = s.expr
        if isinstance(e, n.Str) and len(e.parts) > 1:
            parts = tuple(p if isinstance(p, str) else None for p in e.parts)
            fns = [self.value(p, scope) for p in e.parts if not isinstance(p, str)]
            values = "".join(f"_a{j}, " for j in range(len(fns)))

            def entry(g):
                g.values(fns)
                owner(g)
                g.line(f"run.say_entry({parts!r}, ({values}){extra})")
            out.append(ins.Exec(s.pos, entry))
        else:
            fn = self.value(e, scope)

            def said(g):
                g.value(fn, "_v")
                owner(g)
                g.line(f"run.say(_v{extra})")
            out.append(ins.Exec(s.pos, said))

    def _log_hiding(self, s, scope, out, hide, owner, extra):
        """A log that prints a secret lint refuses (RR116, checks/check_secrets.py): each such
        value is logged as a Secret, which a seat's log shows only to the one seat the rules
        name as its owner (a local of the rule), if any (engine/secrecy.py)."""
        e = s.expr
        templated = isinstance(e, n.Str) and len(e.parts) > 1
        parts = tuple(p if isinstance(p, str) else None for p in e.parts) if templated else (None,)
        fns = [self.value(p, scope) for p in (e.parts if templated else [e]) if not isinstance(p, str)]
        seats = {}   # value index -> the owner's value, or None: no seat reads it
        for i in range(len(fns)):
            key = i if templated else None
            if key in hide:
                who = hide[key]
                seats[i] = self.value(n.Var(s.pos, who), scope) if who is not None and who in scope.locals else None
        values = "".join(f"run.secret(_a{j}, _o{j}), " if j in seats else f"_a{j}, " for j in range(len(fns)))

        def code(g):
            g.values(fns)
            owner(g)
            for j, who in seats.items():
                if who is not None:
                    g.value(who, f"_o{j}")
                else:
                    g.line(f"_o{j} = None")
            g.line(f"run.say_entry({parts!r}, ({values}){extra})")
        out.append(ins.Exec(s.pos, code))

    def s_If(self, s, scope, out):
        ends = []
        for cond, body in s.branches:
            test = ins.JumpIfNot(cond.pos, self.value(cond, scope, truth=True))
            out.append(test)
            self._block(body, scope, out)
            j = ins.Jump(s.pos)
            out.append(j)
            ends.append(j)
            test.target = len(out)
        if s.otherwise:
            self._block(s.otherwise, scope, out)
        for j in ends:
            j.target = len(out)

    def _body_and_back(self, s, scope, out, head) -> int:
        """Compile a loop body, jump back to ``head``, patch break/continue; return the exit pc."""
        scope.loops.append(([], []))
        self._block(s.body, scope, out)
        breaks, continues = scope.loops.pop()
        out.append(ins.Jump(s.pos, head))
        for j in breaks:
            j.target = len(out)
        for j in continues:
            j.target = head
        return len(out)

    def _loop(self, s, scope, out, source, var, listed: bool = False):
        """``listed``: the loop walks a list, never a count (proven: its hidden local, which a
        save holds, is checked as the save loads, saves.first_misfit)."""
        scope.counter += 1
        slot = f"${scope.counter}@{s.pos.line}"
        out.append(ins.IterInit(s.pos, slot, source))
        head = len(out)
        step = ins.IterNext(s.pos, slot, var, listed=listed)
        out.append(step)
        # the exit clears the hidden iterator (a break leaves it behind)
        step.target = self._body_and_back(s, scope, out, head)
        out.append(ins.Exec(s.pos, lambda g: g.drop(slot), drops=(slot,)))

    def s_For(self, s, scope, out):
        listed = not self.checked and str(s.pos.line) in self.names.proven.get("lists", {}).get(scope.key, ())
        self._loop(s, scope, out, self.value(s.source, scope), s.var, listed)

    def s_Repeat(self, s, scope, out):
        self._loop(s, scope, out, self.value(s.count, scope, around="_times"), None)

    def s_While(self, s, scope, out):
        head = len(out)
        test = ins.JumpIfNot(s.pos, self.value(s.cond, scope, truth=True))
        out.append(test)
        test.target = self._body_and_back(s, scope, out, head)

    def s_Turns(self, s, scope, out):
        """``each p in turn ...``: its state in a hidden local (see :mod:`interpreter.dsl.turns`),
        a test at the head of each turn that ends the last one and picks the next player."""
        scope.counter += 1
        slot, var, end = f"{_turns.SLOT}{scope.counter}@{s.pos.line}", s.var, s.end
        source = self.value(s.source, scope) if s.source is not None else None
        first = self.value(s.first, scope) if s.first is not None else None

        def begin(g):
            if source:
                g.value(source, "_a0")
            else:
                g.line("_a0 = run.state['kinds']['players']")
            if first:
                g.value(first, "_a1")
            else:
                g.line("_a1 = None")
            g.line(f"{g.local(slot)} = {g.obj(_turns.start)}(_a0, _a1, {first is not None}, {end!r})")
        out.append(ins.Exec(s.pos, begin, sets=(slot,)))
        head = len(out)
        step = ins.NextTurn(s.pos, slot, var, end, _turns.advance)
        out.append(step)
        scope.turns.append((slot, end))
        step.target = self._body_and_back(s, scope, out, head)
        scope.turns.pop()
        out.append(ins.Exec(s.pos, lambda g: g.drop(slot), drops=(slot,)))

    def s_PassTurn(self, s, scope, out):
        self._turn_mark(scope, s.pos, out, _turns.pass_turn)

    def s_DropOut(self, s, scope, out):
        self._turn_mark(scope, s.pos, out, _turns.drop_out)

    def _turn_mark(self, scope, pos, out, fn):
        if not scope.turns:  # reported by the resolver
            return
        slot, _ = scope.turns[-1]
        out.append(ins.Exec(pos, lambda g: g.line(f"{g.local(slot)} = {g.obj(fn)}({g.local(slot, read=True)})"),
                            sets=(slot,)))

    def s_Choose(self, s, scope, out):
        if s.secret is not None:
            return self._secret_choose(s, scope, out)
        choose = ins.Choose(s.pos, self.value(s.player, scope), [])
        out.append(choose)
        self._options(s, scope, out, choose)

    def _secret_choose(self, s, scope, out):
        """``choose secretly by p in seats``: the round's pause, then its reveal, a loop over
        the seats whose body is the committed option's (see :class:`ins.SecretChoose`)."""
        scope.counter += 1
        choose = ins.SecretChoose(s.pos, self.value(s.player, scope), [], s.secret,
                                  f"{SECRET_SLOT}{scope.counter}@{s.pos.line}")
        out.append(choose)
        choose.reveal = len(out)
        out.append(ins.Reveal(s.pos, choose))
        self._options(s, scope, out, choose, back=choose.reveal)

    def _options(self, s, scope, out, choose, back=None):
        """The options of ``choose``, each body followed by a jump to ``back`` (by default
        past them all: the choice's ``end``)."""
        jumps = []
        for opt in s.options:
            if isinstance(opt, n.UseOption):
                template = self.program.actions.get(opt.action)
                if template is not None:  # else reported by the resolver
                    choose.options.append(template)
                continue
            domains = [(d.var, self._expr(d.source, scope)) for d in opt.domains]
            requires = [self._require(r, scope) for r in leading_requires(opt.body)]
            spec = self._with_choices(OptionSpec(opt.name, domains, requires, len(out), None, None,
                                                 opt.pos), opt.domains, leading_requires(opt.body), scope)
            choose.options.append(spec)
            self._block(strip_requires(opt.body), scope, out)
            j = ins.Jump(opt.pos, back)
            out.append(j)
            jumps.append(j)
        choose.end = len(out)
        for j in jumps:
            j.target = len(out) if back is None else back

    # ------------------------------------------------------------------ targets
    def target(self, t: n.Target, scope):
        """Compile an assignment target to ``write(g, change)`` for a unit (``g`` its writer):
        it sets ``_c, _k`` to the container and key to change, the container ready to be
        changed: an entity's record or the globals copied once per transaction
        (:meth:`Machine.record`), and every list or map on the way copied, since stored values
        are never changed in place; then writes the line ``change``; and, when the target is in
        a rule local, sets that local again (a local is a Python local of the unit: the resolver
        changes a dict of them)."""
        name = t.name
        meaning = resolve(self.names, name, scope.locals).kind
        reads = {name} | {x.name for kind, e in t.path if kind == "index"
                          for x in n.walk(e) if isinstance(x, (n.Var, n.Call))}

        def by_name(g) -> None:
            """Find the target by its name (through its resolver if it has a path), the rule's
            locals in a dict ``_d``."""
            g.read(reads)
            g.line(f"_d = {g.live(reads)}")
            g.line(f"_c, _k = {g.obj(locate)}(run, _d)" if locate else f"_c, _k = _d, {name!r}")

        def found(g) -> None:
            if meaning is Kind.LOCAL:
                g.assign(name, f"_d[{name!r}]")
        if not t.path and meaning is Kind.VARIABLE:
            return lambda g, change: g.lines([f"_c, _k = run.globals_w(), {name!r}", change])
        if not t.path:
            locate = inline = None
        else:
            base = self.value(n.Var(t.pos, name), scope)
            locate = self._resolver(t, scope, base, meaning)
            inline = self._inline_target(t, scope, base)

        def write(g, change) -> None:
            if locate is None or inline is None or self.checked:  # checked: all through the resolver
                by_name(g)
                g.line(change)
                found(g)
                return
            test, take = inline(g)
            g.line(f"if {test}:")
            with g.indent():
                g.line(take)
            g.line("else:")
            with g.indent():
                by_name(g)
                found(g)
            g.line(change)
        return write

    def _inline_target(self, t: n.Target, scope, base):
        """For the commonest targets, ``fn(g) -> (test, take)``: the test that the target is
        there, and the line that takes it without the resolver (``_c, _k`` set), after the
        values they use are written; None for any other target. A root or a key proven a
        text (an entity's id, or none: not found, the resolver words it) is not tested one."""
        types = types_for(self.names)
        locals_ = scope.locals if isinstance(scope.locals, dict) else {}

        def text(e) -> str:   # the test that the value in ``x`` is a text, unless proven
            t = ANY if types is None else types.of(e, {}, locals_)
            return "" if t == "str" or t.startswith("entity:") else "{}.__class__ is str and "
        root = text(n.Var(t.pos, t.name)).format("_o")
        if len(t.path) == 1 and t.path[0][0] == "attr":
            # an entity's field, the common case, inline; anything else through the resolver
            field = t.path[0][1]

            def attr(g):
                g.value(base, "_o")
                return (f"{root}{field!r} in _E.get(_o, ())",
                        f"_c, _k = run.record(_o), {field!r}")
            return attr
        if len(t.path) == 2 and t.path[0][0] == "attr" and t.path[1][0] == "index":
            # an entry of an entity's map (p.shares[c]) inline, the map copied into the record
            field, key = t.path[0][1], self.value(t.path[1][1], scope)
            keyed = text(t.path[1][1]).format("_k")

            def entry(g):
                g.value(base, "_o")
                g.value(key, "_k")
                return (f"{root}{keyed}"
                        f"(_c := _E.get(_o, _EMPTY).get({field!r})).__class__ is dict and _k in _c",
                        f"_c = run.record(_o)[{field!r}] = dict(_c)")
            return entry
        return None

    def _local_root(self, t: n.Target, scope) -> bool:
        """Whether target ``t`` is in a rule local (which the change sets again)."""
        return resolve(self.names, t.name, scope.locals).kind is Kind.LOCAL

    def _resolver(self, t: n.Target, scope, base, meaning: Kind):
        """``fn(run, loc) -> (container, key)`` for a target with a path (see :meth:`target`)."""
        name = t.name
        steps = [(kind, x if kind == "attr" else self._expr(x, scope)) for kind, x in t.path]
        root0 = {Kind.LOCAL: "L", Kind.VARIABLE: "G"}.get(meaning)

        def locate(run, loc):
            obj = base(run, loc)
            root, keys = root0, [name]
            for kind, x in steps:
                if kind == "attr" and isinstance(obj, str):
                    record = run.ent.get(obj)
                    if record is None or x not in record:
                        raise RuleFault(f"{describe(obj)} has no field '{x}'")
                    root, keys, obj = obj, [x], record[x]
                    continue
                key = x if kind == "attr" else x(run, loc)
                if isinstance(obj, dict):
                    key = key if kind == "attr" else map_key(key)
                    if key not in obj:
                        raise RuleFault(f"{describe(obj)} has no field '{key}'" if kind == "attr"
                                        else f"no entry {describe(key)} to change")
                elif kind == "attr" or not isinstance(obj, list) or not isinstance(key, int) \
                        or isinstance(key, bool) or not -len(obj) <= key < len(obj):
                    raise RuleFault(f"{describe(obj)} has no field '{key}'" if kind == "attr"
                                    else f"cannot assign to index {describe(key)} of {describe(obj)}")
                keys.append(key)
                obj = obj[key]
            if root is None:
                raise RuleFault(f"'{name}' is not a variable: its parts cannot be changed")
            container = loc if root == "L" else run.globals_w() if root == "G" else run.record(root)
            for key in keys[:-1]:
                child = container[key].copy()
                container[key] = child
                container = child
            return container, keys[-1]
        return locate

    # ------------------------------------------------------------------ expressions
    def expr(self, e, scope):
        """An expression resolved, then compiled (:meth:`_expr`)."""
        self.resolver.expression(e, scope.locals)
        return self._expr(e, scope)

    def _expr(self, e, scope):
        """An expression as ``fn(run, locals)``: its fast generated code (codegen), which runs the
        expression's checked code when anything goes wrong in it."""
        slow = self._checked(e, scope, self.tracking)
        if self.checked:
            return slow.function()
        if not self.generate:
            return slow
        return Codegen(self.names, self.tracking, self.space).function(e, scope.locals, slow) or slow

    def value(self, e, scope, around: str | None = None, truth: bool = False):
        """An expression a code unit computes (:mod:`.units`): its checked code
        (written when first called), carrying in ``.source`` the fast source the unit inlines.
        ``around``: a helper the value goes through (``_times``: a repeat's count). ``truth``: a
        condition a jump tests, whose fast source need only be as true as its value."""
        slow = self._checked(e, scope, False, around)
        if self.checked:
            return slow
        if self.generate:  # the unit's locals are its Python locals (units.py)
            codegen = Codegen(self.names, False, self.space)
            bound = {x: f"v_{x}" for x in scope.locals}
            source = codegen.source(e, scope.locals, bound, unit=True, truth=truth)
            slow.source = f"{around}({source})" if around and source else source
            slow.total = codegen.total()
        return slow

    def _checked(self, e, scope, tracking: bool, around: str | None = None) -> Checked:
        return Checked(self.names, tracking, self.space, e, scope.locals, around)

    def functions(self) -> tuple[dict, dict]:
        """Compile every ``def`` body (done after all names are known: defs may recurse), twice:
        as it runs anywhere, and as it runs inside a derived value, noting what it reads. (With
        fast code, the Python functions ``_def_NAME`` generated code calls are written when a
        call needs one: Codegen.typed.)"""
        defs = self.names.functions
        for d in defs.values():  # the problems of a body are the same in each: said once
            self.resolver.expression(d.expr, set(d.params))
        out = []
        for tracking in (False, True):
            bodies = {name: Checked(self.names, tracking, self.space, d.expr, d.params) for name, d in defs.items()}
            if self.checked:
                out.append({name: body.function() for name, body in bodies.items()})
            elif not self.generate:
                out.append(_Bodies(bodies))
            else:
                out.append({name: Codegen(self.names, tracking, self.space).function(
                    defs[name].expr, set(defs[name].params), body) or body for name, body in bodies.items()})
        return out[0], out[1]


def fields_written(definitions: list) -> frozenset:
    """The entity fields the rules or the engine may ever write: every field an assignment,
    ``add`` or ``remove`` names on its way to what it changes (an entity's fields are written
    only by name: Compiler._resolver), and the cash ``pay`` moves (helpers._pay)."""
    return frozenset({"cash"} | {x for node in n.walk(definitions) if node.__class__ is n.Target
                                 for kind, x in node.path if kind == "attr"})


class _Bodies(dict):
    """Def name -> its body's checked code as a function, written the first time a call needs
    it (lint, which writes no fast code, plays a few games that call few of the defs)."""

    def __init__(self, bodies: dict):
        super().__init__()
        self.bodies = bodies

    def __missing__(self, name):
        fn = self[name] = self.bodies[name].function()
        return fn


class _CallValue(ins.Instr):
    """``call f(args)`` where the local ``f`` holds a procedure's name: the procedure is found
    (and its arguments counted) when the call runs."""
    __slots__ = ("name", "fn", "args", "dest")
    ends = True

    def __init__(self, pos, name, fn, args, dest=None):
        self.pos, self.name, self.fn, self.args, self.dest = pos, name, fn, args, dest

    def write(self, g, i):
        values = ", ".join(f"_a{j}" for j in range(len(self.args)))
        g.values(self.args)
        g.value(self.fn, "_v")
        g.line(f"_u = {g.obj(_functions.procedure_key)}(run, _v, {self.name!r}, {len(self.args)})")
        g.pause(i)
        g.line(f"run.push(_u, [{values}], {self.dest!r})")
        g.line("return _GO_ON")

    def leaves(self, g) -> bool:
        return True

    def flow(self, i):
        return [(i + 1, frozenset((self.dest,) if self.dest is not None else ()), frozenset())]


_STATEMENT = n.handlers(Compiler, "s_", n.STATEMENTS)    # statement node -> Compiler.s_...
