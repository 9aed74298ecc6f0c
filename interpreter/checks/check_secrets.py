"""A secret that reaches what another seat reads (RR116): an information-flow (taint) check.

**Sources** are the fields ruleset.yaml declares ``secret`` (``secret: {players: [objective]}``),
read as ``x.objective``. **Sinks** are what a seat reads: a ``log`` line; an option's or an
action's parameters (its label, which every seat reads once it is chosen); a ``require``'s
reason (at an option's head, the reason ``why`` gives its chooser; anywhere else, the message
of a fault everyone reads); an ``end_game`` reason; a metric; a public variable or field set
from it (every view shows it); ruleset.yaml's ``render`` expressions (the board and its
displays) and ``costs`` (what an option is said to cost).

A value is followed through operators, builtins, lists, maps, comprehensions (their filters
too), ``x if c else y`` (its condition too), locals, the parameters and result of a def or a
procedure, an event's arguments and a handler's parameters. The branch a secret decides
(``if p.cash > 9: log "rich"``) is not followed: a statement is not a value.

What the rules of the game's end (``on game_end``) show is no leak: the game is over. What is
allowed, because the owner alone reads it: a line that says it ``reveals`` a field is
read only by whoever may see that field (``log "{p.cash}" reveals p.cash`` is read by ``p``;
a field secret from everyone, by no seat); a chooser's own secret in their options'
parameters and legality reasons. An option's parameter, once chosen, is public: the label of
the action taken is.

The leaks found are also what the loader marks for the engine to redact (:func:`leaks`).
"""
from __future__ import annotations

import re
from typing import NamedTuple

from ..dsl import nodes as n
from ..dsl.resolver import leading_requires
from ..errors import RailrulesError
from ..paths import in_ruleset

CODE = "RR116"
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
ALL = ("all",)       # a sink no seat reads: anything may reach it
NONE = ("none",)     # a sink every seat reads

# what each kind of sink is, as a message names it
SINKS = {
    "log": "this log line prints",
    "label": "this option's label (every seat reads it once chosen) shows",
    "message": "this require's message (a fault every seat reads) prints",
    "why": "this option's legality reason (why shows it) prints",
    "about": "this parameter's description (the chooser's refusals and options say it) prints",
    "show": "this show line (every seat's panel of what is in progress) prints",
    "end": "this end reason prints",
    "metric": "this metric reports",
    "state": "this sets a public {what} (every seat's view shows it) from",
    "render": "this render expression draws",
    "cost": "this cost (play shows it beside the option) shows",
}
_HINTS = {
    "log": "if only its owner may read the line, say so: log ... reveals {obj}.{field}",
    "state": "keep it in a field declared secret, or in a local",
}
_HINT = ("show it where the rules reveal it (a log line that says `reveals`); "
         "a seat's own secret may reach only its own options")


class Leak(NamedTuple):
    """A secret reaching a sink: ``node`` the sink's statement (or expression), ``part`` the
    index of a logged template's value (None: the whole), ``field`` and ``kinds`` the source,
    ``whose`` the local naming its owner at the sink, ``trail`` the way it went."""
    kind: str
    pos: object
    node: object
    part: int | None
    field: str
    whose: str | None
    trail: tuple
    what: str = ""


class _Sink(NamedTuple):
    kind: str
    pos: object
    node: object
    part: int | None
    taint: dict
    allow: tuple
    what: str = ""


def _merge(into: dict, key, trail: tuple) -> None:
    old = into.get(key)
    if old is None or len(trail) < len(old):
        into[key] = trail


def _union(*taints) -> dict:
    out: dict = {}
    for t in taints:
        for k, tr in t.items():
            _merge(out, k, tr)
    return out


class _Summary(NamedTuple):
    ret: dict       # taint of the result (keys ("p", i): the parameter's own)
    sinks: list     # _Sink, whose taint may hold ("p", i) keys: the callers' arguments reach them


class _Flow:
    """The flow of one ruleset's secrets. Only the definitions a secret can reach are
    followed: those that read one, and from them along calls both ways (a result flows to the
    callers, an argument to the callee); a ruleset whose rules read no secret costs one walk."""

    def __init__(self, meta: dict, names, definitions: list, places=None) -> None:
        self.meta = meta
        self.places = places
        self.fields: dict = {}    # secret field -> the kinds that declare it
        for kind, fields in (meta.get("secret") or {}).items():
            for f in fields or ():
                self.fields.setdefault(f, []).append(kind)
        self.names = names
        self.summaries: dict = {}
        self.places_of: dict = {}
        self.units: list = []
        self.handlers: dict = {}
        for d in definitions:
            if isinstance(d, n.HandlerDef) and d.event == n.GAME_END:
                continue   # the end rules run when the game is over: they may show a secret (LANGUAGE.md)
            if isinstance(d, (n.FuncDef, n.ProcDef, n.ActionDef, n.GameDef, n.MetricDef, n.HandlerDef)):
                self.units.append(d)
            if isinstance(d, n.HandlerDef):
                self.handlers.setdefault(d.event, []).append(d)
        self.relevant = self._reached()

    def _reached(self) -> list:
        """The units a secret can reach, in definition order."""
        callees: dict = {}
        readers = []
        for d in self.units:
            out = callees[id(d)] = []
            for x in n.walk(d):
                t = type(x)
                if t is n.Attr and x.name in self.fields:
                    readers.append(d)
                elif t is n.Call or t is n.CallStmt or t is n.LetCall:
                    target = self.names.procedures.get(x.proc) if t is not n.Call else self.names.functions.get(x.name)
                    if target is not None:
                        out.append(target)
                elif t is n.Emit:
                    out += self.handlers.get(x.event, [])
        linked: dict = {}
        for d in self.units:
            for c in callees[id(d)]:
                linked.setdefault(id(d), []).append(c)
                linked.setdefault(id(c), []).append(d)
        seen = {id(d) for d in readers}
        todo = list(readers)
        while todo:
            for c in linked.get(id(todo.pop()), ()):
                if id(c) not in seen:
                    seen.add(id(c))
                    todo.append(c)
        return [d for d in self.units if id(d) in seen]

    # ------------------------------------------------------------------ the fixpoint
    def run(self) -> None:
        for _ in range(30):   # each round carries summaries one call further
            changed = False
            for d in self.relevant:
                s = _Unit(self, d).summary()
                if _shape(s) != _shape(self.summaries.get(id(d))):
                    changed = True
                self.summaries[id(d)] = s
            if not changed:
                break

    def summary_of(self, d) -> _Summary:
        """``d``'s summary; one that no secret reaches is worked out when first asked (a
        render expression may pass a secret to any def)."""
        s = self.summaries.get(id(d))
        if s is None:
            self.summaries[id(d)] = _Summary({}, [])   # a def that calls itself
            s = self.summaries[id(d)] = _Unit(self, d).summary()
        return s

    def where(self, d) -> str:
        """``d``'s file and line as the ruleset names them (asked at every call followed)."""
        if id(d) not in self.places_of:
            self.places_of[id(d)] = in_ruleset(d.pos.file, d.pos.line)
        return self.places_of[id(d)]

    def players_secret(self, field: str) -> bool:
        return "players" in self.fields.get(field, ())

    def leaks(self) -> list:
        out: list = []
        for d in self.relevant:
            for s in self.summary_of(d).sinks:
                out += self._leaking(s)
        for s in self._yaml_sinks():
            out += self._leaking(s)
        return out

    def _leaking(self, s: _Sink) -> list:
        found = []
        for key, trail in s.taint.items():
            if key[0] != "s" or self._allowed(key, s.allow):
                continue
            found.append(Leak(s.kind, s.pos, s.node, s.part, key[1], key[2], trail, s.what))
        return found

    def _allowed(self, key, allow) -> bool:
        if allow is ALL:
            return True
        if allow is NONE:
            return False
        _, field, whose = key
        return whose is not None and whose == allow[1] and self.players_secret(field)

    # ------------------------------------------------------------------ ruleset.yaml's expressions
    def _yaml_sinks(self) -> list:
        from ..dsl.parser import parse_expression
        places = self.places
        if places is None:
            return []
        out = []
        # a secret reaches an expression by a secret field's name or by a def that reads one
        sources = set(self.fields) | {d.name for d in self.relevant if isinstance(d, n.FuncDef)}
        for kind, path, text in _yaml_expressions(self.meta):
            if sources.isdisjoint(_WORD.findall(text)):
                continue
            try:
                e = parse_expression(text, places.value_of(*path))
            except RailrulesError:
                continue   # not this check's to report
            taint = _Unit(self, None).expr(e, {})
            if taint:
                out.append(_Sink(kind, e.pos, path, None, taint, NONE))
        return out


def _shape(s: _Summary | None):
    if s is None:
        return None
    return (frozenset(s.ret), tuple((x.kind, id(x.node), x.part, frozenset(x.taint), x.allow) for x in s.sinks))


_RENDER_KEYS = ("hex", "terrain", "fill", "name", "label", "track", "marks", "at", "colour")


def _yaml_expressions(meta: dict):
    """(sink kind, path in ruleset.yaml, text) of every rules expression of ruleset.yaml that
    a seat reads the value of."""
    render: dict = meta["render"] if isinstance(meta.get("render"), dict) else {}
    for key in _RENDER_KEYS:
        if isinstance(render.get(key), str):
            yield "render", ("render", key), render[key]
    for name, piece in (render.get("pieces") or {}).items():
        if isinstance(piece, dict) and isinstance(piece.get("owners"), str):
            yield "render", ("render", "pieces", name, "owners"), piece["owners"]
    for name, edge in (render.get("edges") or {}).items():
        for key in ("between", "label"):
            if isinstance(edge, dict) and isinstance(edge.get(key), str):
                yield "render", ("render", "edges", name, key), edge[key]
    for k, display in enumerate(render.get("displays") or []):
        for kind, spec in (display.items() if isinstance(display, dict) else ()):
            for key, text in (spec.items() if isinstance(spec, dict) else ()):
                if isinstance(text, str):
                    yield "render", ("render", "displays", k, kind, key), text
    for name, text in (meta.get("costs") or {}).items():
        if isinstance(text, str):
            yield "cost", ("costs", name), text


class _Unit:
    """One definition's flow: its locals (flow-insensitive), its result, its sinks."""

    def __init__(self, flow: _Flow, d) -> None:
        self.flow = flow
        self.d = d
        self.params: list = []
        if isinstance(d, (n.FuncDef, n.ProcDef, n.HandlerDef)):
            self.params = list(d.params)
        self.env: dict = {p: {("p", i): ()} for i, p in enumerate(self.params)}
        self.at_end = isinstance(d, n.HandlerDef) and d.event == "game_end"
        self.ret: dict = {}
        self.sinks: list = []

    def summary(self) -> _Summary:
        d = self.d
        for _ in range(20):   # locals set in loops: until nothing new reaches them
            before = {k: frozenset(v) for k, v in self.env.items()}
            self.ret, self.sinks = {}, []
            if isinstance(d, n.FuncDef):
                self.ret = self.expr(d.expr, {})
            elif isinstance(d, n.MetricDef):
                self.sink("metric", d.pos, d, None, self.expr(d.expr, {}), NONE)
            elif isinstance(d, n.ActionDef):
                self.choice(d.name, d.domains, d.body, d.player)
            else:
                self.block(d.body)
            if {k: frozenset(v) for k, v in self.env.items()} == before:
                break
        return _Summary(self.ret, self.sinks)

    def sink(self, kind, pos, node, part, taint, allow, what="") -> None:
        if self.at_end:
            allow = ALL   # the game is over: its end rules show what was secret
        if taint:
            self.sinks.append(_Sink(kind, pos, node, part, taint, allow, what))

    def assign(self, name: str, taint: dict) -> None:
        cur = self.env.setdefault(name, {})
        for k, tr in taint.items():
            _merge(cur, k, tr)

    # ------------------------------------------------------------------ statements
    def block(self, stmts) -> None:
        for s in stmts:
            m = getattr(self, "s_" + type(s).__name__, None)
            if m is not None:
                m(s)

    def s_Let(self, s):
        self.assign(s.name, self.expr(s.expr, {}))

    def s_LetCall(self, s):
        self.assign(s.name, self.call(s.proc, s.args, s.pos))

    def s_CallStmt(self, s):
        self.call(s.proc, s.args, s.pos)

    def s_Emit(self, s):
        for h in self.flow.handlers.get(s.event, []):
            self.lift(h, s.args, {}, f"on {s.event}")

    def s_Set(self, s):
        self.store(s.target, self.expr(s.expr, {}), s.pos)

    def s_Add(self, s):
        self.store(s.target, self.expr(s.item, {}), s.pos)

    def store(self, t: n.Target, taint: dict, pos) -> None:
        if not t.path:
            if t.name in self.env or t.name not in self.flow.names.variables:
                self.assign(t.name, taint)
            else:
                self.sink("state", pos, ("variable", t.name), None, taint, NONE, f"variable '{t.name}'")
            return
        field = next((x for kind, x in reversed(t.path) if kind == "attr"), None)
        if field is not None and field not in self.flow.fields:
            self.sink("state", pos, ("field", field), None, taint, NONE, f"field '{field}'")

    def s_For(self, s):
        self.assign(s.var, self.expr(s.source, {}))
        self.block(s.body)

    def s_Turns(self, s):
        if s.source is not None:
            self.assign(s.var, self.expr(s.source, {}))
        self.block(s.body)

    def s_Draw(self, s):
        self.assign(s.name, self.expr(s.source, {}))

    def s_While(self, s):
        self.block(s.body)

    s_Repeat = s_While

    def s_If(self, s):
        for _, body in s.branches:
            self.block(body)
        if s.otherwise:
            self.block(s.otherwise)

    def s_Return(self, s):
        if s.expr is not None:
            self.ret = _union(self.ret, self.expr(s.expr, {}))

    def s_Require(self, s, kind="message", allow=NONE):
        self.sink(kind, s.pos, s, None, self.expr(s.reason, {}), allow)

    def s_EndGame(self, s):
        self.sink("end", s.pos, s, None, self.expr(s.reason, {}), NONE)

    def s_Show(self, s):
        self.sink("show", s.pos, s, None, self.expr(s.expr, {}), NONE)

    def s_Log(self, s):
        allow = self.revealed(s.reveals)
        e = s.expr
        if isinstance(e, n.Str) and len(e.parts) > 1:
            values = [p for p in e.parts if not isinstance(p, str)]
            for i, p in enumerate(values):
                self.sink("log", s.pos, s, i, self.expr(p, {}), allow)
        else:
            self.sink("log", s.pos, s, None, self.expr(e, {}), allow)

    def revealed(self, t) -> tuple:
        """Who reads a line that says ``reveals t``: its owner, or nobody."""
        if t is None or not t.path or t.path[-1][0] != "attr":
            return NONE
        kinds = self.flow.fields.get(t.path[-1][1], ())
        if not kinds:
            return NONE    # a public field: everyone reads the line
        if "players" not in kinds:
            return ALL     # secret from every seat: no seat reads the line
        return ("owner", t.name if len(t.path) == 1 else None)

    def s_Choose(self, s):
        chooser = s.player.name if isinstance(s.player, n.Var) else None
        for opt in s.options:
            if isinstance(opt, n.Option):
                self.choice(opt.name, opt.domains, opt.body, chooser)

    def choice(self, name, domains, body, chooser) -> None:
        allow = ("owner", chooser)
        outside = {d.var: self.env.pop(d.var) for d in domains if d.var in self.env}
        for dom in domains:
            taint = self.expr(dom.source, {})
            self.sink("label", dom.source.pos, dom, None, taint, allow, name)
            if dom.about is not None:
                self.sink("about", dom.about.pos, dom, None, self.expr(dom.about, {}), allow)
            # once chosen, the parameter is public (the action's label): the chooser's own
            # secret no longer holds it
            self.env[dom.var] = {k: tr for k, tr in taint.items()
                                 if not (k[0] == "s" and self.flow._allowed(k, allow))}
        heads = leading_requires(body)
        for r in heads:
            self.s_Require(r, "why", allow)
        rest = list(body)
        while heads and rest and isinstance(rest[0], (n.Require, n.Cite)):
            rest.pop(0)
        self.block(rest)
        for d in domains:   # an option's parameters are its own
            self.env.pop(d.var, None)
        self.env.update(outside)

    # ------------------------------------------------------------------ calls
    def call(self, name: str, args: list, pos) -> dict:
        d = self.flow.names.procedures.get(name) or self.flow.names.functions.get(name)
        if d is None:
            return _union(*(self.expr(a, {}) for a in args))
        kind = "procedure" if isinstance(d, n.ProcDef) else "def"
        return self.lift(d, args, {}, f"{kind} {name}")

    def lift(self, d, args: list, bound: dict, noun: str) -> dict:
        """The result of calling ``d`` with ``args``; its sinks that its parameters reach are
        this unit's too, reached by the arguments."""
        s = self.flow.summary_of(d)
        taints = [self.expr(a, bound) for a in args]
        params = list(d.params)
        rename = {p: (a.name if isinstance(a, n.Var) and a.name not in bound else None)
                  for p, a in zip(params, args)}
        hop = f"{noun} ({self.flow.where(d)})"
        for x in s.sinks:
            inner = {k: tr for k, tr in x.taint.items() if k[0] == "p"}
            if not inner:
                continue
            taint = _subst(inner, taints, params, rename, hop, through=True)
            allow = x.allow if x.allow in (ALL, NONE) else ("owner", rename.get(x.allow[1]))
            self.sink(x.kind, x.pos, x.node, x.part, taint, allow, x.what)
        return _subst(s.ret, taints, params, rename, hop)

    # ------------------------------------------------------------------ expressions
    def expr(self, e, bound: dict) -> dict:
        m = getattr(self, "e_" + type(e).__name__, None)
        if m is not None:
            return m(e, bound)
        return _union(*(self.expr(c, bound) for c in _children(e)))

    def e_Int(self, e, bound):
        return {}

    e_Const = e_Int

    def e_Var(self, e, bound):
        if e.name in bound:
            return bound[e.name]
        if e.name in self.params and e.name in self.env:
            return self.env[e.name]
        if e.name in self.env:
            return {k: tr + (f"local {e.name}",) for k, tr in self.env[e.name].items()}
        return {}

    def e_Attr(self, e, bound):
        out = dict(self.expr(e.obj, bound))
        if e.name in self.flow.fields:
            whose = e.obj.name if isinstance(e.obj, n.Var) and e.obj.name not in bound else None
            _merge(out, ("s", e.name, whose), ())
        return out

    def e_Call(self, e, bound):
        if e.name in bound or e.name in self.env:   # a local function value
            return _union(self.expr(n.Var(e.pos, e.name), bound), *(self.expr(a, bound) for a in e.args))
        d = self.flow.names.functions.get(e.name)
        if d is None:
            return _union(*(self.expr(a, bound) for a in e.args))
        return self.lift(d, e.args, bound, f"def {e.name}")

    def e_Comprehension(self, e, bound):
        src = self.expr(e.source, bound)
        inner = {**bound, e.var: src}
        return _union(src, self.expr(e.expr, inner), self.expr(e.where, inner) if e.where else {})

    def e_Exists(self, e, bound):
        src = self.expr(e.source, bound)
        return _union(src, self.expr(e.cond, {**bound, e.var: src}))

    def e_Lambda(self, e, bound):
        return self.expr(e.body, {**bound, e.var: {}})

    def e_LetIn(self, e, bound):
        return self.expr(e.body, {**bound, e.var: self.expr(e.value, bound)})


def _children(e):
    for v in vars(e).values():
        if isinstance(v, n.Node):
            yield v
        elif isinstance(v, (list, tuple)):
            for x in v:
                if isinstance(x, n.Node):
                    yield x
                elif isinstance(x, tuple):
                    yield from (y for y in x if isinstance(y, n.Node))


def _subst(taint: dict, args: list, params: list, rename: dict, hop: str, through: bool = False) -> dict:
    """``taint`` of a callee seen by its caller: a parameter's key becomes what its argument
    holds, a source's owner the caller's name for it."""
    out: dict = {}
    for key, trail in taint.items():
        if key[0] == "p":
            i = key[1]
            if i < len(args):
                step = (f"parameter {params[i]} of {hop}",) if through else (hop,)
                for k2, tr2 in args[i].items():
                    _merge(out, k2, tr2 + step + trail)
        elif not through:
            _, field, whose = key
            _merge(out, ("s", field, rename.get(whose) if whose in rename else None), trail + (hop,))
    return out


def find_leaks(meta: dict, names, definitions: list, places=None) -> list:
    """Every :class:`Leak` of the rules (none without ``secret:`` in ``meta``); ``places``,
    ruleset.yaml's, to follow its render and costs expressions too."""
    if not meta.get("secret"):
        return []
    flow = _Flow(meta, names, definitions, places)
    flow.run()
    return flow.leaks()


def redactions(meta: dict, found: list) -> dict:
    """What the engine hides from the seats, from the leaks lint finds (its second line of
    defence, :mod:`..engine.secrecy`): ``logs``, a log statement's id -> {index of a template's
    value (None: the whole) -> the local naming the one seat that may read it, or None};
    ``labels``, the options whose parameters only their chooser reads; ``state``, the public
    variables and fields (``("variable", name)``, ``("field", name)``) no seat reads; ``ends``,
    the ids of the ``end_game`` statements whose reason no seat reads; ``yaml``,
    the paths in ruleset.yaml of the render and costs expressions that draw or show a secret."""
    players = {f for kind, fields in (meta.get("secret") or {}).items() if kind == "players" for f in fields or ()}
    out: dict = {"logs": {}, "labels": set(), "state": set(), "ends": set(), "yaml": set()}
    for leak in found:
        if leak.kind == "log":
            lifted = any(h.startswith("parameter ") for h in leak.trail)
            owner = leak.whose if leak.field in players and not lifted else None
            parts = out["logs"].setdefault(id(leak.node), {})
            parts[leak.part] = owner if parts.get(leak.part, owner) == owner else None
        elif leak.kind == "label":
            out["labels"].add(leak.what)
        elif leak.kind == "state":
            out["state"].add(leak.node)
        elif leak.kind == "end":
            out["ends"].add(id(leak.node))
        elif leak.kind in ("render", "cost"):
            out["yaml"].add(leak.node)
    return out


def describe(ruleset, leak: Leak) -> str:
    secret = ruleset.meta.get("secret") or {}
    kinds = [k for k, fields in secret.items() if leak.field in (fields or ())]
    entity = ruleset.names.entities.get(leak.whose)
    if entity in ruleset.entities:   # an entity named in the rules: its kind is known
        kinds = [ruleset.entities[entity]["kind"]]
    source = " or ".join(f"{k}.{leak.field}" for k in kinds)
    owner = f" of {leak.whose}" if leak.whose and "players" in kinds else ""
    path = "".join(f" via {hop}" for hop in leak.trail)
    return f"{SINKS[leak.kind].format(what=leak.what)} secret field {source}{owner}{path}"


def check_secrets(ruleset, sink) -> None:
    reported = set()
    for leak in ruleset.leaks:   # found once, by the loader (the engine hides them too)
        key = (leak.pos, leak.field, leak.whose)
        if key in reported:
            continue
        reported.add(key)
        hint = _HINTS.get(leak.kind, _HINT).format(obj=leak.whose or "OWNER", field=leak.field)
        sink.add(CODE, describe(ruleset, leak), leak.pos, hint=hint)
