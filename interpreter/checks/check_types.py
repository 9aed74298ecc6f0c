"""Static types for the linter (RR110): numbers where entities are needed, unknown fields.

Types are strings: ``int``, ``bool``, ``str``, ``fraction``, ``none``, ``fn``, ``any``,
``entity:KIND``, ``list:T`` and ``map:T``. What cannot be known is ``any`` and never
reported: the checker only speaks when it is sure. What a name means is
:mod:`interpreter.dsl.scope`'s answer, the compiler's.
"""
from __future__ import annotations

import difflib
from typing import Any

from ..dsl import nodes as n
from ..dsl.scope import Kind, resolve, resolve_call, resolve_procedure

def _words(t: str) -> str:
    if t.startswith("entity:"):
        return f"an entity of kind {t[7:]}"
    if t.startswith("list"):
        return "a list"
    if t.startswith("map"):
        return "a mapping"
    return {"int": "a number", "bool": "true/false", "str": "a string", "fraction": "a fraction",
            "none": "none", "fn": "a function", "proc": "a procedure"}.get(t, t)


class _Types:
    def __init__(self, ruleset) -> None:
        self.rs = ruleset
        self.sink: Any = None    # a new Sink for each pass of check_types
        self.ids: dict[str, str] = {}
        for kind, ids in ruleset.kinds.items():
            for i in ids:
                self.ids[i] = kind
        self.fields = {kind: self._kind_fields(ids) for kind, ids in ruleset.kinds.items()}
        self.fields["players"] = {k: self.of_value(v) for k, v in ruleset.player_fields.items()}
        self.fields["players"].update({"id": "str", "kind": "str", "name": "str", "seat": "int"})
        self.names = ruleset.names
        self.calls: dict = {}    # procedure, function or event -> [argument types of each call]
        self.params: dict = {}   # the same -> parameter types agreed by every call

    def _kind_fields(self, ids) -> dict:
        out: dict = {}
        for i in ids:
            for f, v in self.rs.entities[i].items():
                t = self.of_value(v)
                out[f] = t if out.get(f, t) == t else "any"
        return out

    def of_value(self, v) -> str:
        if isinstance(v, bool):
            return "bool"
        if isinstance(v, int):
            return "int"
        if isinstance(v, str):
            return f"entity:{self.ids[v]}" if v in self.ids else "str"
        if isinstance(v, list):
            kinds = {self.of_value(x) for x in v}
            return f"list:{kinds.pop()}" if len(kinds) == 1 else "list"
        if isinstance(v, dict):
            kinds = {self.of_value(x) for x in v.values()}
            return f"map:{kinds.pop()}" if len(kinds) == 1 else "map"
        return "any"

    def error(self, node, message, hint=None):
        self.sink.add("RR110", message, node.pos, hint)

    # -------------------------------------------------------------- expressions
    def expr(self, e, scope) -> str:
        method = _EXPR.get(type(e))
        return method(self, e, scope) if method else "any"

    def t_Int(self, e, scope):
        return "int"

    def t_Str(self, e, scope):
        for p in e.parts:
            if not isinstance(p, str):
                self.expr(p, scope)
        return "str"

    def t_Const(self, e, scope):
        return {True: "bool", False: "bool", None: "none"}[e.value]

    def t_Var(self, e, scope):
        name = e.name
        kind, v = resolve(self.names, name, scope)
        if kind is Kind.LOCAL:
            return scope[name]
        if kind is Kind.VARIABLE:
            value = self.rs.variables.get(name)
            return self.of_value(value) if value is not None else "any"
        if kind is Kind.CONSTANT:
            return self.of_value(v)
        if kind is Kind.ENTITY:
            return f"entity:{self.ids.get(v, 'any')}"
        if kind is Kind.PLAYERS or kind is Kind.KIND:
            return f"list:entity:{name}"
        if kind is Kind.FUNCTION:
            return "fn"
        if kind is Kind.PROCEDURE:
            return "proc"
        if kind is Kind.END:
            return "bool"
        return "any"

    def t_Attr(self, e, scope):
        t = self.expr(e.obj, scope)
        if t.startswith("entity:"):
            kind = t[7:]
            fields = self.fields.get(kind)
            if fields is not None and e.name not in fields:
                close = difflib.get_close_matches(e.name, sorted(fields), n=1)
                self.error(e, f"{kind} have no field '{e.name}'",
                           f"did you mean '{close[0]}'?" if close else None)
                return "any"
            return fields.get(e.name, "any") if fields else "any"
        if t in ("int", "bool", "str", "none", "fraction") or t.startswith("list"):
            self.error(e, f"'.{e.name}' of {_words(t)}: only entities have fields")
        return "any"

    def t_Index(self, e, scope):
        t = self.expr(e.obj, scope)
        self.expr(e.key, scope)
        if t.startswith("map:") or t.startswith("list:"):
            return t.split(":", 1)[1]
        if t in ("int", "bool", "none") or t.startswith("entity:"):
            self.error(e, f"{_words(t)} cannot be indexed with [...]")
        return "any"

    def t_ListLit(self, e, scope):
        kinds = {self.expr(x, scope) for x in e.items}
        return f"list:{kinds.pop()}" if len(kinds) == 1 else "list"

    def t_Comprehension(self, e, scope):
        src = self.expr(e.source, scope)
        self._need_list(e.source, src, "'for ... in'")
        inner = {**scope, e.var: _elem(src)}
        if e.where:
            self.expr(e.where, inner)
        return f"list:{self.expr(e.expr, inner)}"

    def t_MapOf(self, e, scope):
        pairs = self.expr(e.pairs, scope)
        value = pairs.split(":", 2)[2] if pairs.startswith("list:list:") else "any"
        return f"map:{value}" if value != "any" else "map"

    def t_Unpack(self, e, scope):
        t = self.expr(e.expr, scope)
        self._need_list(e.expr, t, "'let (a, b) ='")
        return t

    def t_Exists(self, e, scope):
        src = self.expr(e.source, scope)
        self._need_list(e.source, src, "'exists ... in'")
        self.expr(e.cond, {**scope, e.var: _elem(src)})
        return "bool"

    def t_LetIn(self, e, scope):
        return self.expr(e.body, {**scope, e.var: self.expr(e.value, scope)})

    def t_Lambda(self, e, scope):
        self.expr(e.body, {**scope, e.var: "any"})
        return "fn"

    def t_BinOp(self, e, scope):
        a, b = self.expr(e.left, scope), self.expr(e.right, scope)
        if e.op == "+":
            joined = [t for t in (a, b) if t.startswith("list") or t == "str"]
            if joined and all(t == "any" or t.startswith("list") or t == "str" for t in (a, b)):
                return joined[0] if len(set(joined)) == 1 else "any"
        for side, t in ((e.left, a), (e.right, b)):
            if t not in ("int", "fraction", "any"):
                self.error(side, f"'{e.op}' needs numbers, not {_words(t)}")
                return "any"
        if e.op == "/" or "fraction" in (a, b):
            return "fraction"
        return "int" if a == b == "int" else "any"

    def t_Neg(self, e, scope):
        t = self.expr(e.expr, scope)
        if t not in ("int", "fraction", "any"):
            self.error(e, f"'-' needs a number, not {_words(t)}")
        return t

    def t_Compare(self, e, scope):
        a, b = self.expr(e.left, scope), self.expr(e.right, scope)
        if e.op in ("in", "not in"):
            self._need_list(e.right, b, f"'{e.op}'", allow_map=True)
        elif e.op in ("==", "!="):
            if _clash(a, b):
                self.error(e, f"comparing {_words(a)} with {_words(b)} is always "
                           f"{'false' if e.op == '==' else 'true'}")
        else:
            for side, t in ((e.left, a), (e.right, b)):
                if t not in ("int", "fraction", "any"):
                    self.error(side, f"'{e.op}' orders numbers, not {_words(t)}")
        return "bool"

    def t_BoolOp(self, e, scope):
        for x in e.items:
            self.expr(x, scope)
        return "bool"

    def t_Not(self, e, scope):
        self.expr(e.expr, scope)
        return "bool"

    def t_Conditional(self, e, scope):
        self.expr(e.cond, scope)
        a, b = self.expr(e.then, scope), self.expr(e.otherwise, scope)
        return a if a == b else "any"

    def t_Call(self, e, scope):
        args = [self.expr(a, scope) for a in e.args]
        kind, sig = resolve_call(self.names, e.name, scope)
        if kind is Kind.FUNCTION:
            self.calls.setdefault(e.name, []).append(args)
            return "any"
        if kind is Kind.LOCAL:   # a local holding a function: key(x)
            t = scope[e.name]
            if t not in ("fn", "any"):
                self.error(e, f"'{e.name}' is called, but it holds {_words(t)}, not a function",
                           "a procedure is run with 'call'" if t == "proc" else None)
            return "any"
        if kind is not Kind.BUILTIN:
            return "any"
        if e.name in ("min", "max"):  # of a list, or of the arguments
            return _elem(args[0]) if len(args) == 1 else "int"
        result = sig.result
        for node, want, got in zip(e.args, sig.args, args):
            if want == "list":
                self._need_list(node, got, f"{e.name}()")
            elif want == "num" and got not in ("int", "fraction", "any"):
                self.error(node, f"{e.name}() needs a number here, not {_words(got)}")
            elif want == "hex" and got != "any" and got != "entity:hexes":
                self.error(node, f"{e.name}() needs a hex here, not {_words(got)}")
        if result is None:
            return args[0] if args else "any"
        if result == "elem":
            return _elem(args[0]) if args else "any"
        return result

    def _need_list(self, node, t, what, allow_map=False):
        if t == "any" or t.startswith("list") or (allow_map and t.startswith("map")):
            return
        self.error(node, f"{what} needs a list, not {_words(t)}")

    # -------------------------------------------------------------- statements
    def block(self, stmts, scope):
        for s in stmts:
            self.stmt(s, scope)

    def stmt(self, s, scope):
        _STMT[type(s)](self, s, scope)   # every statement has its method (a KeyError if not)

    def s_Let(self, s, scope):
        t = self.expr(s.expr, scope)
        self._not_a_function(s.expr, t, "kept in a local")
        scope[s.name] = t if scope.get(s.name, t) == t else "any"

    def s_LetCall(self, s, scope):
        self._call(s, scope)
        scope[s.name] = "any"

    def s_Set(self, s, scope):
        target = self.target(s.target, scope)
        value = self.expr(s.expr, scope)
        if s.op != "=" and target not in ("any", "int") and not target.startswith("list"):
            self.error(s, f"'{s.op}' on {_words(target)}")
        if s.op != "=" and value not in ("any", "int") and not value.startswith("list"):
            self.error(s.expr, f"'{s.op}' needs a number, not {_words(value)}")
        if s.op == "=" and _clash(target, value) and target != "none":
            self.error(s.expr, f"this stores {_words(value)} where {_words(target)} was")
        self._not_a_function(s.expr, value, "stored")

    def s_Pay(self, s, scope):
        amount = self.expr(s.amount, scope)
        if amount not in ("int", "any"):
            self.error(s.amount, f"pay needs a whole number, not {_words(amount)}",
                       "round fractions with ceil() or floor()" if amount == "fraction" else None)
        for side in (s.payer, s.payee):
            t = self.expr(side, scope)
            if t != "any" and not t.startswith("entity:"):
                self.error(side, f"pay moves money between entities, not {_words(t)}")

    def s_Add(self, s, scope):
        self.expr(s.item, scope)
        t = self.target(s.target, scope)
        self._need_list(s.target, t, "add/remove")

    s_Remove = s_Add

    def s_For(self, s, scope):
        src = self.expr(s.source, scope)
        self._need_list(s.source, src, "for")
        scope[s.var] = _elem(src)
        self.block(s.body, scope)

    def s_Turns(self, s, scope):
        src = self.expr(s.source, scope) if s.source is not None else "list:entity:players"
        self._need_list(s.source or s, src, "'each ... in turn of'")
        if s.first is not None:
            self.expr(s.first, scope)
        scope[s.var] = _elem(src)
        self.block(s.body, scope)

    def s_Draw(self, s, scope):
        src = self.expr(s.source, scope)
        self._need_list(s.source, src, "draw")
        scope[s.name] = _elem(src)

    def s_While(self, s, scope):
        self.expr(s.cond, scope)
        self.block(s.body, scope)

    def s_Repeat(self, s, scope):
        self.expr(s.count, scope)
        self.block(s.body, scope)

    def s_If(self, s, scope):
        for cond, body in s.branches:
            self.expr(cond, scope)
            self.block(body, scope)
        self.block(s.otherwise or [], scope)

    def s_Choose(self, s, scope):
        seats = self.expr(s.player, scope)
        if s.secret is not None:
            self._need_list(s.player, seats, "'choose secretly by ... in'")
            scope[s.secret] = _elem(seats)
        for o in s.options:
            if isinstance(o, n.Option):
                self.domains(o.domains, scope)
                self.block(o.body, scope)

    def s_Require(self, s, scope):
        self.expr(s.cond, scope)
        self.expr(s.reason, scope)

    def s_Return(self, s, scope):
        if s.expr is not None:
            self.expr(s.expr, scope)

    def s_Log(self, s, scope):
        self.expr(s.expr, scope)

    def s_Show(self, s, scope):
        self.expr(s.expr, scope)

    def s_EndGame(self, s, scope):
        self.expr(s.reason, scope)

    def s_CallStmt(self, s, scope):
        self._call(s, scope)

    def s_Emit(self, s, scope):
        args = [self.expr(a, scope) for a in s.args]
        for node, t in zip(s.args, args):
            self._not_a_function(node, t, "passed to a handler")
        self.calls.setdefault(f"on:{s.event}", []).append(args)

    def _nothing(self, s, scope):
        """A statement with no expression to type."""

    s_Break = s_Continue = s_Pass = s_CheckEnd = s_Cite = s_PassTurn = s_DropOut = _nothing

    def _call(self, s, scope):
        """``call f(args)``: a procedure's arguments wait in the saved game: no function among them."""
        args = [self.expr(a, scope) for a in s.args]
        for node, t in zip(s.args, args):
            self._not_a_function(node, t, "passed to a procedure")
        kind = resolve_procedure(self.names, s.proc, scope).kind
        if kind is Kind.PROCEDURE:
            self.calls.setdefault(s.proc, []).append(args)
        elif kind is Kind.LOCAL and scope[s.proc] not in ("proc", "str", "any"):
            self.error(s, f"'call {s.proc}(...)': {s.proc} holds {_words(scope[s.proc])}, not a procedure")

    def _not_a_function(self, node, t, what):
        if t == "fn":
            self.error(node, f"a function cannot be {what}: the saved game holds only data",
                       "pass a procedure's name to 'call', or use the function where it is needed")

    def domains(self, domains, scope):
        for d in domains:
            src = self.expr(d.source, scope)
            self._need_list(d.source, src, "a choice's domain")
            if d.about is not None:
                self.expr(d.about, scope)
            scope[d.var] = _elem(src)

    def target(self, t: n.Target, scope) -> str:
        return self.expr(t.read(), scope)


_EXPR = n.handlers(_Types, "t_", n.EXPRESSIONS)   # expression node -> _Types.t_...
_STMT = n.handlers(_Types, "s_", n.STATEMENTS)    # statement node -> _Types.s_... (every one)


def _elem(t: str) -> str:
    return t.split(":", 1)[1] if t.startswith("list:") else "any"


def _clash(a: str, b: str) -> bool:
    """True when two known types can never be equal."""
    if "any" in (a, b) or "none" in (a, b) or a == b:
        return False
    simple = {"int", "bool", "str", "fraction"}
    if a.startswith("entity:") and b.startswith("entity:"):
        return a != b
    if {a, b} <= {"int", "fraction"}:
        return False
    if a.startswith("entity:") and b == "str" or b.startswith("entity:") and a == "str":
        return False
    return a in simple | {x for x in (a, b) if x.startswith("entity:")} and b != a and (
        a in simple or a.startswith("entity:")) and (b in simple or b.startswith("entity:"))


def _agreed(calls: list, arity: int) -> list:
    """Each parameter's type when every call passes the same known type, else any."""
    out = []
    for i in range(arity):
        seen = {c[i] for c in calls if len(c) == arity}
        out.append(seen.pop() if len(seen) == 1 else "any")
    return out


def check_types(ruleset, sink) -> None:
    """Learn parameter types from the calls, pass after pass, until they settle (at most six
    passes); report what the last pass found. A pass checks again only the definitions whose
    parameter types the calls of the pass before changed: the others would find the same."""
    from ..errors import Sink
    types = _Types(ruleset)
    defs = ruleset.definitions
    keys = [_calls_key(d) for d in defs]

    def typed(i, calls):  # the parameter types definition i is checked with
        return keys[i] and _agreed(calls.get(keys[i], []), len(defs[i].params))

    found: list = [((), {})] * len(defs)   # each definition's diagnostics and calls
    params: dict = {}
    todo: list = list(range(len(defs)))
    for _ in range(6):
        for i in todo:
            types.sink, types.calls, types.params = Sink(), {}, params
            _check(types, defs[i])
            found[i] = (types.sink.diagnostics, types.calls)
        calls: dict = {}
        for _, made in found:
            for name, args in made.items():
                calls.setdefault(name, []).extend(args)
        todo = [i for i in range(len(defs)) if typed(i, calls) != typed(i, params)]
        params = calls
        if not todo:
            break
    sink.diagnostics += [d for said, _ in found for d in said]


def _calls_key(d) -> str | None:
    """The key of the calls whose arguments give definition ``d``'s parameters their types."""
    if isinstance(d, (n.ProcDef, n.FuncDef)):
        return d.name
    return f"on:{d.event}" if isinstance(d, n.HandlerDef) else None


def _param_scope(types, key, params) -> dict:
    agreed = _agreed(types.params.get(key, []), len(params))
    return dict(zip(params, agreed))


def _check(types, d) -> None:
    if isinstance(d, n.ProcDef):
        types.block(d.body, _param_scope(types, d.name, d.params))
    elif isinstance(d, n.ActionDef):
        scope = {d.player: "entity:players"}
        types.domains(d.domains, scope)
        types.block(d.body, scope)
    elif isinstance(d, n.HandlerDef):
        scope = _param_scope(types, f"on:{d.event}", d.params)
        if d.when:
            types.expr(d.when, scope)
        types.block(d.body, scope)
    elif isinstance(d, n.GameDef):
        types.block(d.body, {})
    elif isinstance(d, n.FuncDef):
        types.expr(d.expr, _param_scope(types, d.name, d.params))
    elif isinstance(d, (n.EndDef, n.ConstDef, n.MetricDef)):
        types.expr(d.expr, {})
        about = getattr(d, "about", None)   # an end condition's words
        if about is not None:
            types.expr(about, {})
    elif isinstance(d, n.ScoreDef):
        types.expr(d.expr, {d.player: "entity:players"})
