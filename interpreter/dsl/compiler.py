"""Compiler: syntax tree -> Python closures and flat instruction lists, once per load.

Expressions become closures ``fn(run, locals)``; statements become the instructions of
:mod:`interpreter.engine.instructions`. Every name is resolved here (what it means is
:mod:`interpreter.dsl.scope`'s answer) and every call's arguments counted, so a loaded ruleset
never meets an undefined name at run time. Problems go to the sink.
"""
from __future__ import annotations

import difflib
import operator
from dataclasses import dataclass, field
from functools import cached_property

from ..engine import instructions as ins
from ..engine.units import Units, straight
from ..errors import Sink
from ..runtime.rationals import Fraction
from ..runtime.values import MAX_LIST, RuleFault, describe, get_attr, get_index, map_key
from . import builtins, functions as _functions, nodes as n, turns as _turns
from ..runtime.helpers import (call_def, floor_div as _floor_div, fraction_div as _fraction_div, map_of,
                               modulo as _mod, numbers as _numbers, tracked_attr, tracked_variable, unpack)
from .codegen import Checked, Codegen, inlinable, namespace
from .scope import Kind, Names, candidates, resolve, resolve_call, resolve_procedure


@dataclass
class Program:
    """A compiled ruleset's rules: code units and the compiled pieces the engine asks for."""
    codes: dict = field(default_factory=dict)        # key -> Code
    handlers: dict = field(default_factory=dict)     # event -> [code key]
    end_conditions: list = field(default_factory=list)  # (name, fn)
    score: object = None                             # fn(run, player) -> int
    estimate: object = None                          # fn(run, player) -> number, or None
    estimate_pos: object = None
    tiebreak: object = None                          # fn(run, player) -> int, or None
    metrics: list = field(default_factory=list)      # (name, fn, pos)
    actions: dict = field(default_factory=dict)      # name -> OptionSpec template
    space: dict = field(default_factory=namespace)   # where all its generated code runs
    units: dict | None = None                        # key -> the code unit as one function
    counted_units: dict | None = None                      # the same, counting entries (Machine.counts)
    direct_units: dict | None = None                 # key -> a straight unit, called directly
    counted_direct: dict | None = None               # the same, counting entries
    resets: dict = field(default_factory=dict)       # procedure's code key -> {scoped variable: start}
    checked: bool = False                            # every expression in checked mode (tests)

    def __post_init__(self):
        self.units = Units(self)
        self.counted_units = Units(self, counting=True)
        self.direct_units = Units(self, direct=True)
        self.counted_direct = Units(self, counting=True, direct=True)

    @cached_property
    def straight(self) -> frozenset:
        """The code units that never pause, called directly (units.py); worked out when the
        first unit is written, once every unit is compiled."""
        return straight(self.codes, self.handlers)


class _Scope:
    def __init__(self, locals_: set, loops: list | None = None):
        self.locals = locals_
        self.loops = loops if loops is not None else []
        self.turns: list = []   # the enclosing `each ... in turn` loops: (hidden slot, end)
        self.counter = 0


_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "%": operator.mod}
_CMP = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
        ">": operator.gt, ">=": operator.ge}


class Compiler:
    def __init__(self, names: Names, sink: Sink, generate: bool = True, checked: bool = False):
        self.names = names
        self.sink = sink
        self.generate = generate  # False: checked closures only (lint, where nothing runs long)
        # True: every expression in codegen's checked mode, no fast code at all (a test plays
        # the rules both ways and compares)
        self.checked = checked
        self.program = Program(checked=checked)
        self.space = self.program.space
        # True while compiling the variant of a def that a derived value runs: it also notes
        # every entity field and variable it reads (Machine.derived)
        self.tracking = False

    # ------------------------------------------------------------------ entry
    def compile(self, definitions: list) -> Program:
        p = self.program
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
                self._code(f"action:{d.name}", scope_vars, _strip_requires(d.body), d.pos)
            elif isinstance(d, n.HandlerDef):
                key = f"on:{d.event}:{len(p.handlers.get(d.event, []))}"
                p.handlers.setdefault(d.event, []).append(key)
                self._code(key, d.params, d.body, d.pos, when=d.when)
            elif isinstance(d, n.EndDef):
                p.end_conditions.append((d.name, self.expr(d.expr, _Scope(set()))))
            elif isinstance(d, n.MetricDef):
                p.metrics.append((d.name, self.expr(d.expr, _Scope(set())), d.pos))
            elif isinstance(d, n.ScoreDef):  # score, tiebreak or estimate
                fn = self.expr(d.expr, _Scope({d.player}))
                var = d.player
                fn = lambda run, player, fn=fn, var=var: fn(run, {var: player})  # noqa: E731
                if isinstance(d, n.EstimateDef):
                    p.estimate, p.estimate_pos = fn, d.pos
                elif isinstance(d, n.TiebreakDef):
                    p.tiebreak = fn
                else:
                    p.score = fn
        if game:
            self._code("game", [], game[0].body, game[0].pos)
        return p

    def _action_template(self, d: n.ActionDef) -> ins.OptionSpec:
        scope = _Scope({d.player} | {dom.var for dom in d.domains})
        domains = [(dom.var, self.expr(dom.source, scope)) for dom in d.domains]
        requires = [self._require(r, scope) for r in _leading_requires(d.body)]
        return self._with_choices(
            ins.OptionSpec(d.name, domains, requires, None, f"action:{d.name}", d.player, d.pos),
            d.domains, _leading_requires(d.body), scope)

    def _with_choices(self, spec, domains, requires, scope):
        """Say which parameters each require reads (:attr:`OptionSpec.tests_at`), and give the
        option generated code that lists its last parameter's legal values."""
        params = [d.var for d in domains]
        spec.levels = tuple(max((params.index(x.name) for x in n.walk(r.cond)
                                 if isinstance(x, n.Var) and x.name in params), default=0) for r in requires)
        last = [r.cond for r, level in zip(requires, spec.levels) if level == len(domains) - 1]
        if domains and last and self.generate and not self.checked:
            spec.choices = Codegen(self.names, False, self.space).choices(
                domains[-1].var, last, scope.locals, spec.pos)
        return spec

    def _code(self, key, params, body, pos, when=None):
        scope = _Scope(set(params) | _assigned(body))
        code = ins.Code(key, list(params), pos, space=self.space)
        self.program.codes[key] = code
        out = code.instrs
        if when is not None:
            skip = ins.JumpIfNot(when.pos, self.value(when, scope))
            out.append(skip)
            code.guarded = True
        self.block(body, scope, out)
        out.append(ins.Return(pos))
        if when is not None:
            skip.target = len(out) - 1

    # ------------------------------------------------------------------ statements
    def block(self, stmts: list, scope: _Scope, out: list) -> None:
        for s in stmts:
            self.stmt(s, scope, out)

    def stmt(self, s, scope, out):
        _STATEMENT[type(s)](self, s, scope, out)

    def s_Let(self, s, scope, out):
        fn, name = self.value(s.expr, scope), s.name
        out.append(ins.Exec(s.pos, lambda g: [*g.value(fn, "_v"), f"L[{name!r}] = _store(_v)"]))

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
        if kind is Kind.UNDEFINED:
            self._undefined(s.proc, s.pos, candidates(self.names, kind=Kind.PROCEDURE), code="RR106",
                            what="procedure")
        elif len(d.params) != len(args):
            self.sink.add("RR104", f"procedure '{s.proc}' takes {len(d.params)} argument(s), "
                          f"{len(args)} given", s.pos)
        out.append(ins.CallProc(s.pos, f"proc:{s.proc}", args, dest))

    def s_Set(self, s, scope, out):
        target, fn, op = self.target(s.target, scope), self.value(s.expr, scope), s.op
        if op == "=":
            change = ["_c[_k] = _store(_v)"]
        else:  # two whole numbers inline; the rest (lists, faults) in a helper
            change = [f"_c[_k] = _o {op[0]} _v if (_o := _c[_k]).__class__ is int and _v.__class__ is int "
                      f"else _augment(_o, _v, {op!r})"]
        out.append(ins.Exec(s.pos, lambda g: [*g.value(fn, "_v"), *target(g), *change]))

    def s_Pay(self, s, scope, out):
        fns = [self.value(x, scope) for x in (s.amount, s.payer, s.payee)]
        out.append(ins.Exec(s.pos, lambda g: [*g.values(fns), "_pay(run, _a0, _a1, _a2)"]))

    def s_Add(self, s, scope, out):
        self._list_edit(s, scope, out, add=True)

    def s_Remove(self, s, scope, out):
        self._list_edit(s, scope, out, add=False)

    def _list_edit(self, s, scope, out, add):
        target, item = self.target(s.target, scope), self.value(s.item, scope)
        out.append(ins.Exec(s.pos, lambda g: [*g.value(item, "_v"), *target(g), f"_edit(_c, _k, _v, {add})"]))

    def s_Return(self, s, scope, out):
        out.append(ins.Return(s.pos, self.value(s.expr, scope) if s.expr else None))

    def s_Break(self, s, scope, out):
        self._loop_jump(s, scope, out, 0)

    def s_Continue(self, s, scope, out):
        self._loop_jump(s, scope, out, 1)

    def _loop_jump(self, s, scope, out, which):
        if not scope.loops:
            word = "break" if which == 0 else "continue"
            self.sink.add("RR105", f"'{word}' outside a loop", s.pos)
            return
        j = ins.Jump(s.pos)
        scope.loops[-1][which].append(j)
        out.append(j)

    def s_Pass(self, s, scope, out):
        pass

    def s_Cite(self, s, scope, out):
        pass

    def s_Require(self, s, scope, out):
        cond, reason, _ = self._require(s, scope)
        out.append(ins.Assert(s.pos, cond, reason))

    def _require(self, s: n.Require, scope):
        return self.expr(s.cond, scope), self.expr(s.reason, scope), s.pos

    def s_Emit(self, s, scope, out):
        handlers = self.names.events.get(s.event, [])
        if not handlers:
            self.sink.add("RR102", f"no 'on {s.event}(...)' handles this event", s.pos,
                          severity="warning")
        for h in handlers:
            if len(h.params) != len(s.args):
                self.sink.add("RR104", f"'on {s.event}' takes {len(h.params)} argument(s), "
                              f"{len(s.args)} given", s.pos)
        out.append(ins.Emit(s.pos, s.event, [self.value(a, scope) for a in s.args]))

    def s_Draw(self, s, scope, out):
        source, name = self.value(s.source, scope), s.name
        out.append(ins.Exec(s.pos, lambda g: [*g.value(source, "_v"), f"L[{name!r}] = _draw(run, _v)"]))

    def s_EndGame(self, s, scope, out):
        out.append(ins.EndGame(s.pos, self.value(s.reason, scope)))

    def s_CheckEnd(self, s, scope, out):
        out.append(ins.CheckEnd(s.pos))

    def s_Log(self, s, scope, out):
        """A template is logged as its parts and values, written out when read (engine/log.py)."""
        reveals, field = None, None
        if s.reveals is not None:  # an entry that gives away a field: shown only to whoever may see it
            t = s.reveals
            if not t.path or t.path[-1][0] != "attr":
                self.sink.add("RR105", "'reveals' names an entity's field, as in: reveals p.cash", t.pos)
                return
            entity, field = n.Var(t.pos, t.name), t.path[-1][1]
            for kind, x in t.path[:-1]:
                entity = n.Attr(t.pos, entity, x) if kind == "attr" else n.Index(t.pos, entity, x)
            reveals = self.value(entity, scope)
        extra = f", (_w, {field!r})" if reveals else ""

        def owner(g):
            return g.value(reveals, "_w") if reveals else []
        e = s.expr
        if isinstance(e, n.Str) and len(e.parts) > 1:
            parts = tuple(p if isinstance(p, str) else None for p in e.parts)
            fns = [self.value(p, scope) for p in e.parts if not isinstance(p, str)]
            values = "".join(f"_a{j}, " for j in range(len(fns)))
            out.append(ins.Exec(s.pos, lambda g: [*g.values(fns), *owner(g),
                                                  f"run.say_entry({parts!r}, ({values}){extra})"]))
        else:
            fn = self.value(e, scope)
            out.append(ins.Exec(s.pos, lambda g: [*g.value(fn, "_v"), *owner(g), f"run.say(_v{extra})"]))

    def s_If(self, s, scope, out):
        ends = []
        for cond, body in s.branches:
            test = ins.JumpIfNot(cond.pos, self.value(cond, scope))
            out.append(test)
            self.block(body, scope, out)
            j = ins.Jump(s.pos)
            out.append(j)
            ends.append(j)
            test.target = len(out)
        if s.otherwise:
            self.block(s.otherwise, scope, out)
        for j in ends:
            j.target = len(out)

    def _body_and_back(self, s, scope, out, head) -> int:
        """Compile a loop body, jump back to ``head``, patch break/continue; return the exit pc."""
        scope.loops.append(([], []))
        self.block(s.body, scope, out)
        breaks, continues = scope.loops.pop()
        out.append(ins.Jump(s.pos, head))
        for j in breaks:
            j.target = len(out)
        for j in continues:
            j.target = head
        return len(out)

    def _loop(self, s, scope, out, source, var):
        scope.counter += 1
        slot = f"${scope.counter}@{s.pos.line}"
        out.append(ins.IterInit(s.pos, slot, source))
        head = len(out)
        step = ins.IterNext(s.pos, slot, var)
        out.append(step)
        # the exit clears the hidden iterator (a break leaves it behind)
        step.target = self._body_and_back(s, scope, out, head)
        out.append(ins.Exec(s.pos, lambda g: [f"L.pop({slot!r}, None)"]))

    def s_For(self, s, scope, out):
        self._loop(s, scope, out, self.value(s.source, scope), s.var)

    def s_Repeat(self, s, scope, out):
        count = self.value(s.count, scope)

        def times(run, loc):
            k = count(run, loc)
            if not isinstance(k, int) or isinstance(k, bool) or k < 0:
                raise RuleFault(f"repeat needs a whole number of times, got {describe(k)}")
            return k
        self._loop(s, scope, out, times, None)

    def s_While(self, s, scope, out):
        head = len(out)
        test = ins.JumpIfNot(s.pos, self.value(s.cond, scope))
        out.append(test)
        test.target = self._body_and_back(s, scope, out, head)

    def s_Turns(self, s, scope, out):
        """``each p in turn ...``: its state in a hidden local (see :mod:`interpreter.dsl.turns`),
        a test at the head of each turn that ends the last one and picks the next player."""
        scope.counter += 1
        slot, var, end = f"{_turns.SLOT}{scope.counter}@{s.pos.line}", s.var, s.end
        source = self.value(s.source, scope) if s.source is not None else None
        first = self.value(s.first, scope) if s.first is not None else None
        start = (lambda g: g.value(source, "_a0")) if source else (lambda g: ["_a0 = run.state['kinds']['players']"])
        pick = (lambda g: g.value(first, "_a1")) if first else (lambda g: ["_a1 = None"])
        out.append(ins.Exec(s.pos, lambda g: [*start(g), *pick(g), f"L[{slot!r}] = {g.obj(_turns.start)}"
                                              f"(_a0, _a1, {first is not None}, {end!r})"]))
        head = len(out)
        step = ins.JumpIfNot(s.pos, lambda run, loc: _turns.next_turn(loc, slot, var, end))
        out.append(step)
        if end in (_turns.ALL, _turns.OTHERS) and not any(
                isinstance(x, (n.PassTurn, n.DropOut, n.Break, n.Return, n.EndGame)) for x in n.walk(s.body)):
            self.sink.add("RR112", f"this loop ends when all{' others' if end == _turns.OTHERS else ''} pass, "
                          "but nothing in it says 'pass turn' or 'drop out'", s.pos, severity="warning",
                          hint="say 'pass turn' where a player passes")
        scope.turns.append((slot, end))
        step.target = self._body_and_back(s, scope, out, head)
        scope.turns.pop()
        out.append(ins.Exec(s.pos, lambda g: [f"L.pop({slot!r}, None)"]))

    def s_PassTurn(self, s, scope, out):
        self._turn_mark(s, scope, out, "pass turn", _turns.pass_turn)

    def s_DropOut(self, s, scope, out):
        self._turn_mark(s, scope, out, "drop out", _turns.drop_out)

    def _turn_mark(self, s, scope, out, word, fn):
        if not scope.turns:
            self.sink.add("RR105", f"'{word}' outside an 'each ... in turn' loop", s.pos,
                          hint="it says what the turn of an 'each p in turn' loop did")
            return
        slot, end = scope.turns[-1]
        if word == "pass turn" and end not in (_turns.ALL, _turns.OTHERS):
            self.sink.add("RR112", "'pass turn' counts only in a loop that ends 'until all pass' or "
                          "'until all others pass'", s.pos, severity="warning")
        out.append(ins.Exec(s.pos, lambda g: [f"L[{slot!r}] = {g.obj(fn)}(L[{slot!r}])"]))

    def s_Choose(self, s, scope, out):
        choose = ins.Choose(s.pos, self.value(s.player, scope), [])
        out.append(choose)
        jumps = []
        seen = set()
        for opt in s.options:
            name = opt.action if isinstance(opt, n.UseOption) else opt.name
            if name in seen:
                self.sink.add("RR103", f"option '{name}' appears twice in this choice", opt.pos)
            seen.add(name)
            if isinstance(opt, n.UseOption):
                template = self.program.actions.get(opt.action)
                if template is None:
                    self._undefined(opt.action, opt.pos, self.names.actions, what="action")
                    continue
                choose.options.append(template)
                continue
            domains = [(d.var, self.expr(d.source, scope)) for d in opt.domains]
            requires = [self._require(r, scope) for r in _leading_requires(opt.body)]
            spec = self._with_choices(ins.OptionSpec(opt.name, domains, requires, len(out), None, None,
                                                     opt.pos), opt.domains, _leading_requires(opt.body), scope)
            choose.options.append(spec)
            self.block(_strip_requires(opt.body), scope, out)
            j = ins.Jump(opt.pos)
            out.append(j)
            jumps.append(j)
        choose.end = len(out)
        for j in jumps:
            j.target = len(out)

    # ------------------------------------------------------------------ targets
    def target(self, t: n.Target, scope):
        """Compile an assignment target to the lines of a unit (``g`` its writer) that set
        ``_c, _k`` to the container and key to change, the container ready to be changed: an
        entity's record or the globals copied once per transaction (:meth:`Machine.record`), and
        every list or map on the way copied, since stored values are never changed in place."""
        name = t.name
        meaning = resolve(self.names, name, scope.locals).kind
        if not t.path:
            if meaning is Kind.CONSTANT:
                self.sink.add("RR105", f"'{name}' is a constant and cannot be changed", t.pos)
            elif meaning is Kind.VARIABLE:
                return lambda g: [f"_c, _k = run.globals_w(), {name!r}"]
            elif meaning is not Kind.LOCAL:
                self._undefined(name, t.pos, candidates(self.names, scope.locals, Kind.VARIABLE),
                                what="variable")
            return lambda g: [f"_c, _k = L, {name!r}"]
        base = self.value(n.Var(t.pos, name), scope)
        locate = self._resolver(t, scope, base, meaning)
        if len(t.path) == 1 and t.path[0][0] == "attr":
            # an entity's field, the common case, inline; anything else through the resolver
            field = t.path[0][1]
            return lambda g: [*g.value(base, "_o"), f"_c, _k = (run.record(_o), {field!r}) if "
                              f"_o.__class__ is str and {field!r} in _E.get(_o, ()) else {g.obj(locate)}(run, L)"]
        if len(t.path) == 2 and t.path[0][0] == "attr" and t.path[1][0] == "index":
            # an entry of an entity's map (p.shares[c]) inline, the map copied into the record
            field, key = t.path[0][1], self.value(t.path[1][1], scope)
            return lambda g: [*g.value(base, "_o"), *g.value(key, "_k"),
                              f"if _o.__class__ is str and _k.__class__ is str and "
                              f"(_c := _E.get(_o, _EMPTY).get({field!r})).__class__ is dict and _k in _c:",
                              f"    _c = run.record(_o)[{field!r}] = dict(_c)",
                              "else:", f"    _c, _k = {g.obj(locate)}(run, L)"]
        return lambda g: [f"_c, _k = {g.obj(locate)}(run, L)"]

    def _resolver(self, t: n.Target, scope, base, meaning: Kind):
        """``fn(run, loc) -> (container, key)`` for a target with a path (see :meth:`target`)."""
        name = t.name
        if meaning is Kind.CONSTANT:
            self.sink.add("RR105", f"'{name}' is a constant and cannot be changed", t.pos,
                          hint="declare it under variables: in components.yaml if the rules change it")
        steps = [(kind, x if kind == "attr" else self.expr(x, scope)) for kind, x in t.path]
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
        """An expression as ``fn(run, locals)``: generated Python code (codegen), which falls
        back on its checked closure when anything goes wrong."""
        slow = self._closure(e, scope)
        if self.checked:
            return Checked(self.names, self.tracking, self.space, e, scope.locals).function()
        if not self.generate:
            return slow
        return Codegen(self.names, self.tracking, self.space).function(e, scope.locals, slow) or slow

    def value(self, e, scope):
        """An expression a code unit computes (:mod:`interpreter.engine.units`): its checked
        closure, carrying in ``.source`` the generated source the unit inlines."""
        slow = self._closure(e, scope)
        if self.checked:
            return Checked(self.names, False, self.space, e, scope.locals).function()
        if self.generate:
            slow.source = Codegen(self.names, False, self.space).source(e, scope.locals)
        return slow

    def _closure(self, e, scope):
        return _EXPRESSION[type(e)](self, e, scope)

    def e_Int(self, e, scope):
        v = e.value
        return lambda run, loc: v

    def e_Const(self, e, scope):
        v = e.value
        return lambda run, loc: v

    def e_Str(self, e, scope):
        if len(e.parts) == 1:
            text = e.parts[0]
            return lambda run, loc: text
        parts = [p if isinstance(p, str) else self._closure(p, scope) for p in e.parts]

        def fmt(run, loc):
            return "".join(p if isinstance(p, str) else run.show(p(run, loc)) for p in parts)
        return fmt

    def e_Var(self, e, scope):
        name = e.name
        kind, v = resolve(self.names, name, scope.locals)
        if kind is Kind.LOCAL:
            def local(run, loc):
                try:
                    return loc[name]
                except KeyError:
                    raise RuleFault(f"'{name}' is used before it is set") from None
            return local
        if kind is Kind.VARIABLE:
            if self.tracking:
                return lambda run, loc: tracked_variable(run, name)
            return lambda run, loc: run.glob[name]
        if kind is Kind.CONSTANT or kind is Kind.ENTITY:
            return lambda run, loc: v
        if kind is Kind.PLAYERS:
            return lambda run, loc: run.state["kinds"]["players"]
        if kind is Kind.KIND:
            return lambda run, loc: list(v)
        if kind is Kind.FUNCTION:   # a def as a value: sort(xs, income)
            make = _functions.def_value(v, self.tracking)
            return lambda run, loc: make(run)
        if kind is Kind.PROCEDURE:  # a procedure as a value: its name, for `call f(...)`
            return lambda run, loc: name
        self._undefined(name, e.pos, candidates(self.names, scope.locals))
        return lambda run, loc: None

    def e_Attr(self, e, scope):
        obj, name = self._closure(e.obj, scope), e.name
        if self.tracking:
            return lambda run, loc: tracked_attr(run, obj(run, loc), name)

        def attr(run, loc):
            o = obj(run, loc)
            try:
                return run.ent[o][name]      # the common case: a field of an entity
            except (KeyError, TypeError):
                return get_attr(run, o, name)  # maps, and the errors, said properly
        return attr

    def e_Index(self, e, scope):
        obj, key = self._closure(e.obj, scope), self._closure(e.key, scope)
        return lambda run, loc: get_index(obj(run, loc), key(run, loc))

    def e_ListLit(self, e, scope):
        items = [self._closure(x, scope) for x in e.items]
        return lambda run, loc: [f(run, loc) for f in items]

    def e_Comprehension(self, e, scope):
        inner = _Scope(scope.locals | {e.var}, scope.loops)
        body, source, var = self._closure(e.expr, inner), self._closure(e.source, scope), e.var
        where = self._closure(e.where, inner) if e.where else None

        def comp(run, loc):
            items = source(run, loc)
            if not isinstance(items, list):
                raise RuleFault(f"'for {var} in' needs a list, got {describe(items)}")
            loc2 = dict(loc)
            out = []
            run.tick(len(items))
            for x in items:
                loc2[var] = x
                if where is None or where(run, loc2):
                    out.append(body(run, loc2))
            return out
        return comp

    def e_MapOf(self, e, scope):
        pairs = self._closure(e.pairs, scope)
        return lambda run, loc: map_of(pairs(run, loc))

    def e_Unpack(self, e, scope):
        value, count = self._closure(e.expr, scope), e.count
        return lambda run, loc: unpack(value(run, loc), count)

    def e_Exists(self, e, scope):
        inner = _Scope(scope.locals | {e.var}, scope.loops)
        cond, source, var = self._closure(e.cond, inner), self._closure(e.source, scope), e.var

        def exists(run, loc):
            items = source(run, loc)
            if not isinstance(items, list):
                raise RuleFault(f"'exists {var} in' needs a list, got {describe(items)}")
            run.tick(len(items))
            loc2 = dict(loc)
            for x in items:
                loc2[var] = x
                if cond(run, loc2):
                    return True
            return False
        return exists

    def e_LetIn(self, e, scope):
        value, var = self._closure(e.value, scope), e.var
        body = self._closure(e.body, _Scope(scope.locals | {var}, scope.loops))

        def let_in(run, loc):
            loc2 = dict(loc)
            loc2[var] = value(run, loc)
            return body(run, loc2)
        return let_in

    def e_Lambda(self, e, scope):
        inner = _Scope(scope.locals | {e.var}, scope.loops)
        body, var = self._closure(e.body, inner), e.var

        def make(run, loc):
            def fn(x):
                loc2 = dict(loc)
                loc2[var] = x
                return body(run, loc2)
            return fn
        return make

    def e_BinOp(self, e, scope):
        a, b = self._closure(e.left, scope), self._closure(e.right, scope)
        if e.op == "/":
            return lambda run, loc: _fraction_div(a(run, loc), b(run, loc))
        if e.op == "//":
            return lambda run, loc: _floor_div(a(run, loc), b(run, loc))
        if e.op == "%":
            return lambda run, loc: _mod(a(run, loc), b(run, loc))
        op = _ARITH[e.op]
        sym = e.op

        def arith(run, loc):
            x, y = a(run, loc), b(run, loc)
            if type(x) is int and type(y) is int:   # the common case, first
                return op(x, y)
            if sym == "+" and type(x) is type(y) and isinstance(x, (list, str)):
                if len(x) + len(y) > MAX_LIST:
                    raise RuleFault(f"a list or string longer than {MAX_LIST} items")
                return x + y
            _numbers(x, y, sym)
            return op(x, y)
        return arith

    def e_Compare(self, e, scope):
        a, b = self._closure(e.left, scope), self._closure(e.right, scope)
        if e.op in ("in", "not in"):
            want = e.op == "in"

            def member(run, loc):
                x, xs = a(run, loc), b(run, loc)
                if not isinstance(xs, (list, dict)):
                    raise RuleFault(f"'in' needs a list, got {describe(xs)}")
                return (map_key(x) in xs if isinstance(xs, dict) else x in xs) == want
            return member
        op, sym = _CMP[e.op], e.op
        if sym in ("==", "!="):
            return lambda run, loc: op(a(run, loc), b(run, loc))

        def order(run, loc):
            x, y = a(run, loc), b(run, loc)
            if type(x) is int and type(y) is int:
                return op(x, y)
            try:
                if isinstance(x, bool) or isinstance(y, bool):
                    raise TypeError
                return op(x, y)
            except TypeError:
                raise RuleFault(f"cannot compare {describe(x)} {sym} {describe(y)}") from None
        return order

    def e_BoolOp(self, e, scope):
        items = [self._closure(x, scope) for x in e.items]
        if len(items) == 2:
            f, g = items
            if e.op == "and":
                return lambda run, loc: bool(f(run, loc) and g(run, loc))
            return lambda run, loc: bool(f(run, loc) or g(run, loc))
        if e.op == "and":
            return lambda run, loc: all(f(run, loc) for f in items)
        return lambda run, loc: any(f(run, loc) for f in items)

    def e_Not(self, e, scope):
        f = self._closure(e.expr, scope)
        return lambda run, loc: not f(run, loc)

    def e_Neg(self, e, scope):
        f = self._closure(e.expr, scope)

        def neg(run, loc):
            x = f(run, loc)
            if isinstance(x, bool) or not isinstance(x, (int, Fraction)):
                raise RuleFault(f"cannot negate {describe(x)}")
            return -x
        return neg

    def e_Conditional(self, e, scope):
        then, cond, other = (self._closure(x, scope) for x in (e.then, e.cond, e.otherwise))
        return lambda run, loc: then(run, loc) if cond(run, loc) else other(run, loc)

    def e_Call(self, e, scope):
        name = e.name
        args = [self._closure(a, scope) for a in e.args]
        kind, found = resolve_call(self.names, name, scope.locals)
        if kind is Kind.FUNCTION:
            if len(found.params) != len(args):
                self.sink.add("RR104", f"'{name}' takes {len(found.params)} argument(s), "
                              f"{len(args)} given", e.pos)
                return lambda run, loc: None
            return self._user_function(found, args)
        if kind is Kind.LOCAL:   # a local holding a function: key(x)
            f = self._closure(n.Var(e.pos, name), scope)
            return lambda run, loc: _functions.call_value(name, f(run, loc), [a(run, loc) for a in args])
        if kind is Kind.PROCEDURE:
            self.sink.add("RR105", f"'{name}' is a procedure: use 'call {name}(...)' as a "
                          "statement or 'let x = call ...'", e.pos)
            return lambda run, loc: None
        if kind is Kind.UNDEFINED:
            self._undefined(name, e.pos, candidates(self.names, kind=Kind.FUNCTION), what="function")
            return lambda run, loc: None
        fn, lo, hi = found.fn, found.lo, found.hi
        if not lo <= len(args) <= hi:
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            self.sink.add("RR104", f"'{name}' takes {want} argument(s), {len(args)} given", e.pos)
            return lambda run, loc: None
        if name in builtins.CONTEXT:
            if len(args) == 1:
                (a0,) = args
                return lambda run, loc: fn(run, a0(run, loc))
            return lambda run, loc: fn(run, *[a(run, loc) for a in args])
        if len(args) == 1:
            (a0,) = args
            return lambda run, loc: fn(a0(run, loc))
        return lambda run, loc: fn(*[a(run, loc) for a in args])

    def _user_function(self, d: n.FuncDef, args):
        key = d.name
        params = d.params
        if d.derived:
            def derived(run, loc):
                run.tick(1)
                return run.derived(key, tuple([a(run, loc) for a in args]))
            return derived
        tracking = self.tracking

        def call(run, loc):
            return call_def(run, run.tracked_functions if tracking else run.program_functions, key,
                            dict(zip(params, [a(run, loc) for a in args])))
        return call

    def functions(self) -> tuple[dict, dict]:
        """Compile every ``def`` body (done after all names are known: defs may recurse), twice:
        as it runs anywhere, and as it runs inside a derived value, noting what it reads."""
        out = []
        sink = self.sink
        for tracking in (False, True):
            self.tracking = tracking
            out.append({name: self.expr(d.expr, _Scope(set(d.params)))
                        for name, d in self.names.functions.items()})
            self.sink = Sink()  # the tracking variant's problems are the same: said once
        self.tracking, self.sink = False, sink
        if self.generate and not self.checked:  # and a third time, as the Python function generated code calls
            for d in self.names.functions.values():
                Codegen(self.names, False, self.space).define(d, self._closure(d.expr, _Scope(set(d.params))))
        return out[0], out[1]

    # ------------------------------------------------------------------ errors
    def _undefined(self, name, pos, known, code="RR102", what="name"):
        """RR102 (or ``code``): ``name`` is none of the names ``known``; the closest is the hint."""
        if name in self.names.broken:
            return  # its definition has a syntax error, reported already
        close = difflib.get_close_matches(name, sorted(map(str, known)), n=1)
        hint = f"did you mean '{close[0]}'?" if close else None
        self.sink.add(code, f"undefined {what} '{name}'", pos, hint)


class _CallValue(ins.Instr):
    """``call f(args)`` where the local ``f`` holds a procedure's name: the procedure is found
    (and its arguments counted) when the call runs."""
    __slots__ = ("name", "fn", "args", "dest")
    ends = True

    def __init__(self, pos, name, fn, args, dest=None):
        self.pos, self.name, self.fn, self.args, self.dest = pos, name, fn, args, dest

    def source(self, g, i):
        values = ", ".join(f"_a{j}" for j in range(len(self.args)))
        return [*g.values(self.args), *g.value(self.fn, "_v"),
                f"_u = {g.obj(_functions.procedure_key)}(run, _v, {self.name!r}, {len(self.args)})",
                f"F['pc'] = {i + 1}", f"run.push(_u, [{values}], {self.dest!r})", "return 0"]


def _leading_requires(body: list) -> list:
    out = []
    for s in body:
        if isinstance(s, n.Cite):
            continue
        if not isinstance(s, n.Require):
            break
        out.append(s)
    return out


_STATEMENT = n.handlers(Compiler, "s_", n.STATEMENTS)    # statement node -> Compiler.s_...
_EXPRESSION = n.handlers(Compiler, "e_", n.EXPRESSIONS)  # expression node -> Compiler.e_...


def _strip_requires(body: list) -> list:
    lead = _leading_requires(body)
    return [s for s in body if not any(s is r for r in lead)]


def _assigned(body) -> set:
    """Every local name a block binds (let, for, draw, choose domains, let ... = call)."""
    found = set()
    for node in n.walk(body):
        if isinstance(node, (n.Let, n.LetCall, n.Draw)):
            found.add(node.name)
        elif isinstance(node, (n.For, n.Turns)):
            found.add(node.var)
        elif isinstance(node, n.Option):
            found.update(d.var for d in node.domains)
    return found
