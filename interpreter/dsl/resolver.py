"""The names the rules read and call, and what their statements may say where they stand,
checked in one walk before any code is written for them.

One walk over the definitions, their statements and expressions, with the scope of each (the
locals of its unit, plus the names a comprehension, an ``exists``, a ``let ... in`` or a lambda
binds; the loops and turn loops around a statement) reports what cannot run:

- RR102: an undefined name, function, variable or action, with the closest known name as a
  hint; an event that nothing handles (a warning);
- RR103: an option twice in one choice;
- RR104: a def, a builtin, a procedure or an event's handlers given the wrong number of
  arguments (``on game_end`` none);
- RR105: a procedure called as a function (it is run with ``call``), a constant changed,
  ``break`` or ``continue`` outside a loop, ``pass turn`` or ``drop out`` outside a turn loop,
  ``reveals`` that names no field, an ``emit game_end`` (the engine's);
- RR106: an undefined procedure;
- RR112: a turn loop that ends when all pass with nothing in it that passes, a ``pass turn``
  that cannot count (warnings).

What each name means is :mod:`interpreter.dsl.scope`'s answer; the compiler
(:mod:`interpreter.compile`) asks the same and writes nothing (or ``None``) where this walk has
reported a problem, so a ruleset that loads never meets an undefined name at run time. The walk
visits the definitions in the order the compiler writes them (the actions' domains and requires
first, the game last), so its reports come in that order.
"""
from __future__ import annotations

import difflib

from ..errors import Sink
from . import nodes as n
from .scope import Kind, Names, candidates, resolve, resolve_call, resolve_procedure
from .turns import ALL, OTHERS
from ..runtime.memo import of_object


class Resolver:
    def __init__(self, names: Names, sink: Sink):
        self.names = names
        self.sink = sink
        self._loops = 0         # the loops around the statement being looked at
        self._turns: list = []  # the ends of the turn loops around it, innermost last
        self._after_exists: dict = {}  # name -> the `exists` before it in an and/or that binds it no more

    # ------------------------------------------------------------------ definitions
    def definitions(self, definitions: list) -> None:
        """Report the problems of a ruleset's definitions (their statements and expressions)."""
        for d in definitions:
            if isinstance(d, n.ActionDef):
                self._option(d.domains, d.body, {d.player} | {dom.var for dom in d.domains})
        for d in definitions:
            if isinstance(d, n.ProcDef):
                self._unit(d.params, d.body)
            elif isinstance(d, n.ActionDef):
                self._unit([d.player] + [dom.var for dom in d.domains], strip_requires(d.body))
            elif isinstance(d, n.HandlerDef):
                if d.event == n.GAME_END and d.params:
                    self.sink.add("RR104", f"'on {n.GAME_END}' takes no values: the engine emits it when "
                                  "the game ends (an end condition's name says whether it ended the game)", d.pos)
                self._unit(d.params, d.body, d.when)
            elif isinstance(d, (n.EndDef, n.MetricDef)):
                self.expression(d.expr, set())
                about = getattr(d, "about", None)   # an end condition's words
                if about is not None:
                    self.expression(about, set())
            elif isinstance(d, n.ScoreDef):  # score, tiebreak or estimate
                self.expression(d.expr, {d.player})
        game = [d for d in definitions if isinstance(d, n.GameDef)]
        if game:
            self._unit([], game[0].body)

    def _unit(self, params, body: list, when=None) -> None:
        """A code unit's statements (after a trigger's ``when`` guard)."""
        locals_ = set(params) | assigned(body)
        if when is not None:
            self.expression(when, locals_)
        self.statements(body, locals_)

    def _option(self, domains: list, body: list, locals_) -> None:
        """What makes an option legal: its domains, then its leading requires."""
        self._all([d.source for d in domains] + [d.about for d in domains if d.about is not None], locals_)
        for r in leading_requires(body):
            self.s_Require(r, locals_)

    # ------------------------------------------------------------------ statements
    def statements(self, stmts: list, locals_) -> None:
        """Report the problems of statements ``stmts`` of a unit whose locals are ``locals_``."""
        for s in stmts:
            _STATEMENT[type(s)](self, s, locals_)

    def _loop_body(self, body: list, locals_) -> None:
        self._loops += 1
        try:
            self.statements(body, locals_)
        finally:
            self._loops -= 1

    def s_Let(self, s, locals_):
        self.expression(s.expr, locals_)

    def s_LetCall(self, s, locals_):
        self._call(s, locals_)

    def s_CallStmt(self, s, locals_):
        self._call(s, locals_)

    def _call(self, s, locals_):
        self._all(s.args, locals_)
        kind, d = resolve_procedure(self.names, s.proc, locals_)
        if kind is Kind.UNDEFINED:
            self.undefined(s.proc, s.pos, candidates(self.names, kind=Kind.PROCEDURE), code="RR106",
                           what="procedure")
        elif kind is not Kind.LOCAL and len(d.params) != len(s.args):
            self.sink.add("RR104", f"procedure '{s.proc}' takes {len(d.params)} argument(s), "
                          f"{len(s.args)} given", s.pos)

    def s_Set(self, s, locals_):
        self._target(s.target, locals_)
        self.expression(s.expr, locals_)

    def s_Pay(self, s, locals_):
        self._all([s.amount, s.payer, s.payee], locals_)

    def s_Add(self, s, locals_):
        self._target(s.target, locals_)
        self.expression(s.item, locals_)

    s_Remove = s_Add

    def _target(self, t: n.Target, locals_) -> None:
        """What an assignment changes: a variable or a local, or a part of one, never a constant."""
        name = t.name
        meaning = resolve(self.names, name, locals_).kind
        if not t.path:
            if meaning is Kind.CONSTANT:
                self.sink.add("RR105", f"'{name}' is a constant and cannot be changed", t.pos)
            elif meaning not in (Kind.VARIABLE, Kind.LOCAL):
                self.undefined(name, t.pos, candidates(self.names, locals_, Kind.VARIABLE), what="variable")
            return
        self.expression(n.Var(t.pos, name), locals_)
        if meaning is Kind.CONSTANT:
            self.sink.add("RR105", f"'{name}' is a constant and cannot be changed", t.pos,
                          hint="declare it under variables: in components.yaml if the rules change it")
        self._all([x for kind, x in t.path if kind == "index"], locals_)

    def s_Return(self, s, locals_):
        if s.expr is not None:
            self.expression(s.expr, locals_)

    def s_Break(self, s, locals_):
        if not self._loops:
            self.sink.add("RR105", "'break' outside a loop", s.pos)

    def s_Continue(self, s, locals_):
        if not self._loops:
            self.sink.add("RR105", "'continue' outside a loop", s.pos)

    def s_Pass(self, s, locals_):
        pass

    def s_Cite(self, s, locals_):
        pass

    def s_Show(self, s, locals_):
        self.expression(s.expr, locals_)

    def s_CheckEnd(self, s, locals_):
        pass

    def s_Require(self, s, locals_):
        self._all([s.cond, s.reason], locals_)

    def s_Emit(self, s, locals_):
        if s.event == n.GAME_END:
            self.sink.add("RR105", f"'{n.GAME_END}' is emitted by the engine, once the game has ended",
                          s.pos, hint="end the game with end_game or check_end: its handlers then run")
        handlers = self.names.events.get(s.event, [])
        if not handlers and s.event not in self.names.broken:  # (a handler that did not parse: said)
            self.sink.add("RR102", f"no 'on {s.event}(...)' handles this event", s.pos, severity="warning")
        for h in handlers:
            if len(h.params) != len(s.args):
                self.sink.add("RR104", f"'on {s.event}' takes {len(h.params)} argument(s), "
                              f"{len(s.args)} given", s.pos)
        self._all(s.args, locals_)

    def s_Draw(self, s, locals_):
        self.expression(s.source, locals_)

    def s_EndGame(self, s, locals_):
        self.expression(s.reason, locals_)

    def s_Log(self, s, locals_):
        if s.reveals is not None:  # an entity's field that the entry gives away
            t = s.reveals
            if not t.path or t.path[-1][0] != "attr":
                self.sink.add("RR105", "'reveals' names an entity's field, as in: reveals p.cash", t.pos)
                return
            self.expression(n.Var(t.pos, t.name), locals_)
            self._all([x for kind, x in t.path[:-1] if kind == "index"], locals_)
        self.expression(s.expr, locals_)

    def s_If(self, s, locals_):
        for cond, body in s.branches:
            self.expression(cond, locals_)
            self.statements(body, locals_)
        if s.otherwise:
            self.statements(s.otherwise, locals_)

    def s_For(self, s, locals_):
        self.expression(s.source, locals_)
        self._loop_body(s.body, locals_)

    def s_Repeat(self, s, locals_):
        self.expression(s.count, locals_)
        self._loop_body(s.body, locals_)

    def s_While(self, s, locals_):
        self.expression(s.cond, locals_)
        self._loop_body(s.body, locals_)

    def s_Turns(self, s, locals_):
        self._all([x for x in (s.source, s.first) if x is not None], locals_)
        if s.end in (ALL, OTHERS) and not any(
                isinstance(x, (n.PassTurn, n.DropOut, n.Break, n.Return, n.EndGame)) for x in n.walk(s.body)):
            self.sink.add("RR112", f"this loop ends when all{' others' if s.end == OTHERS else ''} pass, "
                          "but nothing in it says 'pass turn' or 'drop out'", s.pos, severity="warning",
                          hint="say 'pass turn' where a player passes")
        self._turns.append(s.end)
        try:
            self._loop_body(s.body, locals_)
        finally:
            self._turns.pop()

    def s_PassTurn(self, s, locals_):
        if self._in_turn(s, "pass turn") and self._turns[-1] not in (ALL, OTHERS):
            self.sink.add("RR112", "'pass turn' counts only in a loop that ends 'until all pass' or "
                          "'until all others pass'", s.pos, severity="warning")

    def s_DropOut(self, s, locals_):
        self._in_turn(s, "drop out")

    def _in_turn(self, s, word: str) -> bool:
        if not self._turns:
            self.sink.add("RR105", f"'{word}' outside an 'each ... in turn' loop", s.pos,
                          hint="it says what the turn of an 'each p in turn' loop did")
        return bool(self._turns)

    def s_Choose(self, s, locals_):
        self.expression(s.player, locals_)
        seen = set()
        for opt in s.options:
            name = opt.action if isinstance(opt, n.UseOption) else opt.name
            if name in seen:
                self.sink.add("RR103", f"option '{name}' appears twice in this choice", opt.pos)
            seen.add(name)
            if isinstance(opt, n.UseOption):
                if s.secret is not None:
                    self.sink.add("RR105", f"'use {opt.action}' in a secret choice: its options are "
                                  "written in it", opt.pos,
                                  hint="write an option whose body calls a procedure")
                    continue
                if opt.action not in self.names.actions:
                    self.undefined(opt.action, opt.pos, self.names.actions, what="action")
                continue
            self._option(opt.domains, opt.body, locals_)
            self.statements(strip_requires(opt.body), locals_)

    # ------------------------------------------------------------------ expressions
    def expression(self, e, locals_) -> None:
        """Report the problems of expression ``e``, whose rule locals are ``locals_``, in the
        order of the rules' text."""
        _RESOLVE[type(e)](self, e, locals_)

    def undefined(self, name, pos, known, code="RR102", what="name") -> None:
        """RR102 (or ``code``): ``name`` is none of the names ``known``; the closest is the hint."""
        if name in self.names.broken:
            return  # its definition has a syntax error, reported already
        if name in self._after_exists and what == "name":  # exists c in cs where c.open and c.price > 2
            self.sink.add(code, f"undefined name '{name}': the 'exists {name}' before it ends at its first "
                          "condition ('where' binds more tightly than 'and' and 'or')", pos,
                          f"put the whole condition in brackets: exists {name} in LIST where (A and B)")
            return
        close = difflib.get_close_matches(name, sorted(map(str, known)), n=1)
        hint = f"did you mean '{close[0]}'?" if close else None
        self.sink.add(code, f"undefined {what} '{name}'", pos, hint)

    def _all(self, items, locals_) -> None:
        for x in items:
            self.expression(x, locals_)

    def r_Int(self, e, locals_):
        pass

    def r_Const(self, e, locals_):
        pass

    def r_Str(self, e, locals_):
        self._all([p for p in e.parts if not isinstance(p, str)], locals_)

    def r_Var(self, e, locals_):
        if resolve(self.names, e.name, locals_).kind is Kind.UNDEFINED:
            self.undefined(e.name, e.pos, candidates(self.names, locals_))

    def r_Attr(self, e, locals_):
        self.expression(e.obj, locals_)

    def r_Index(self, e, locals_):
        self._all([e.obj, e.key], locals_)

    def r_ListLit(self, e, locals_):
        self._all(e.items, locals_)

    def r_Comprehension(self, e, locals_):
        inner = {*locals_, e.var}
        self.expression(e.expr, inner)
        self.expression(e.source, locals_)
        if e.where is not None:
            self.expression(e.where, inner)

    def r_MapOf(self, e, locals_):
        self.expression(e.pairs, locals_)

    def r_Unpack(self, e, locals_):
        self.expression(e.expr, locals_)

    def r_Exists(self, e, locals_):
        self.expression(e.cond, {*locals_, e.var})
        self.expression(e.source, locals_)

    def r_LetIn(self, e, locals_):
        self.expression(e.value, locals_)
        self.expression(e.body, {*locals_, e.var})

    def r_Lambda(self, e, locals_):
        self.expression(e.body, {*locals_, e.var})

    def r_BinOp(self, e, locals_):
        self._all([e.left, e.right], locals_)

    def r_Compare(self, e, locals_):
        self._all([e.left, e.right], locals_)

    def r_BoolOp(self, e, locals_):
        outer = self._after_exists
        try:
            for item in e.items:
                self.expression(item, locals_)
                while isinstance(item, n.Not):
                    item = item.expr
                if isinstance(item, n.Exists) and item.var not in locals_:
                    self._after_exists = {**self._after_exists, item.var: item}
        finally:
            self._after_exists = outer

    def r_Not(self, e, locals_):
        self.expression(e.expr, locals_)

    def r_Neg(self, e, locals_):
        self.expression(e.expr, locals_)

    def r_Conditional(self, e, locals_):
        self._all([e.then, e.cond, e.otherwise], locals_)

    def r_Call(self, e, locals_):
        name, given = e.name, len(e.args)
        self._all(e.args, locals_)
        kind, found = resolve_call(self.names, name, locals_)
        if kind is Kind.FUNCTION:
            if len(found.params) != given:
                self.sink.add("RR104", f"'{name}' takes {len(found.params)} argument(s), {given} given", e.pos)
        elif kind is Kind.PROCEDURE:
            self.sink.add("RR105", f"'{name}' is a procedure: use 'call {name}(...)' as a "
                          "statement or 'let x = call ...'", e.pos)
        elif kind is Kind.UNDEFINED:
            self.undefined(name, e.pos, candidates(self.names, kind=Kind.FUNCTION), what="function")
        elif kind is Kind.BUILTIN and not found.lo <= given <= found.hi:
            want = str(found.lo) if found.lo == found.hi else f"{found.lo} to {found.hi}"
            self.sink.add("RR104", f"'{name}' takes {want} argument(s), {given} given", e.pos)


_RESOLVE = n.handlers(Resolver, "r_", n.EXPRESSIONS)   # expression node -> Resolver.r_...
_STATEMENT = n.handlers(Resolver, "s_", n.STATEMENTS)  # statement node -> Resolver.s_...


def leading_requires(body: list) -> list:
    """The ``require`` lines an action or an option starts with (citations between them): what
    makes it legal."""
    out = []
    for s in body:
        if isinstance(s, n.Cite):
            continue
        if not isinstance(s, n.Require):
            break
        out.append(s)
    return out


def strip_requires(body: list) -> list:
    """An action's or an option's body without its leading requires (what it does once chosen)."""
    lead = leading_requires(body)
    return [s for s in body if not any(s is r for r in lead)]


_ASSIGNED: dict = {}  # id(block) -> (the block, kept alive so its id stays its own; its names)


def assigned(body) -> frozenset:
    """Every local name a block binds (let, for, draw, choose domains, let ... = call). Kept
    for each block (parsed blocks never change; the resolver, the compiler and the proof of
    types each ask for every unit's)."""
    return of_object(_ASSIGNED, body, _assigned_names, 4096)   # (an editor parses edit after edit)


def _assigned_names(body) -> frozenset:
    return frozenset(_bound_names(body))


def _bound_names(body) -> set:
    found = set()
    for node in n.walk(body):
        if isinstance(node, (n.Let, n.LetCall, n.Draw)):
            found.add(node.name)
        elif isinstance(node, (n.For, n.Turns)):
            found.add(node.var)
        elif isinstance(node, n.Choose) and node.secret is not None:
            found.add(node.secret)
        elif isinstance(node, n.Option):
            found.update(d.var for d in node.domains)
    return found
