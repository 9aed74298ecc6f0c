"""The names an expression reads and calls, checked once before any code is written for it.

One walk over the expression with its scope (the locals of its unit, plus the names a
comprehension, an ``exists``, a ``let ... in`` or a lambda binds) reports what cannot run:

- RR102: an undefined name or function, with the closest known name as a hint;
- RR104: a def or a builtin called with the wrong number of arguments;
- RR105: a procedure called as a function (it is run with ``call``).

What each name means is :mod:`interpreter.dsl.scope`'s answer; the code generator
(:mod:`interpreter.dsl.codegen`) asks the same and writes nothing (or ``None``) where this
walk has reported a problem, so a ruleset that loads never meets an undefined name at run time.
"""
from __future__ import annotations

import difflib

from ..errors import Sink
from . import nodes as n
from .scope import Kind, Names, candidates, resolve, resolve_call


class Resolver:
    def __init__(self, names: Names, sink: Sink):
        self.names = names
        self.sink = sink

    def expression(self, e, locals_) -> None:
        """Report the problems of expression ``e``, whose rule locals are ``locals_``, in the
        order of the rules' text."""
        _RESOLVE[type(e)](self, e, locals_)

    def undefined(self, name, pos, known, code="RR102", what="name") -> None:
        """RR102 (or ``code``): ``name`` is none of the names ``known``; the closest is the hint."""
        if name in self.names.broken:
            return  # its definition has a syntax error, reported already
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
        self._all(e.items, locals_)

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
