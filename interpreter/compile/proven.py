"""Proven types: the fields and variables whose every value has one known type, so that the
code generator can leave out the tests it makes before using a value (``x.__class__ is int``
before arithmetic, ``x.__class__ is str`` before an entity's field).

A type here is a word: ``int``, ``bool``, ``str``, ``entity:KIND`` (the id of an entity of that
kind), ``list``, ``map``; ``list(T1,T2,...)``, a row: a list of that many items, each of its own type (what a
list written out in the rules gives, ``[h, g]``: taken apart, ``(h, g)``, with no test); ``none`` (nothing but none yet, or not known yet while the proof runs:
what is computed from it waits for its type) and ``any`` (not known) are never proven. A proven
field or variable may also hold none: every test left out would have sent none to the checked
code anyway, and the fast code still does (none in arithmetic, an order, ``len`` or ``_E[...]``
raises, and the checked code words the fault).

:func:`prove` builds the table once per ruleset, at load, from the YAML's starting values and
every write the rules make (``set``; ``+=``/``-=``, ``add``, ``remove`` and ``pay`` never change
a whole number's or a list's type, they fault instead), and for each code unit's locals from
every binding (``let``, ``set``, ``draw``, a choice's variable, the arguments of every call or
emit, a ``for`` or turn loop's variable: its values, which a save holds in the loop's state, are
checked as the save loads, :func:`loop_items`), until nothing changes: a field or local written
with a value of a type not known (a list's item, a def's result from its parameters...) is not
proven. Writes from outside the rules are checked once where they come in, against the same
table (:func:`interpreter.saves.first_misfit`: a scenario's ``set:``, a save being loaded with
its paused rules' locals).

:class:`Types` answers the type of an expression, the same way for the proof and for the code
generator. It is pessimistic where :mod:`interpreter.checks.check_types` (the linter) is
optimistic: the linter speaks only when sure of an error, a proof only when sure of a type.
"""
from __future__ import annotations

from ..dsl import builtins, nodes as n, turns
from ..dsl.resolver import assigned
from ..dsl.scope import Kind, resolve, resolve_call
from ..runtime.memo import of_object

ANY = "any"
_WHOLE = {"+", "-", "*", "//", "%"}                             # two whole numbers give one
_WHOLE_BUILTINS = {"count", "len", "count_of", "ceil", "floor"}  # always give a whole number
_OF_WHOLE = {"sum", "min", "max", "abs"}   # of whole numbers (or lists of them): one
# builtins that give their first list's items (reordered or some left out), or one of them
_SAME_ITEMS = {"sort", "reverse", "unique", "without", "intersect", "duplicates", "first", "max_by", "min_by"}
# builtins whose declared result (dsl/builtins.py) is exactly what they give (or none)
_EXACT: dict[str, str] = {name: builtins.ALL[name].result or ANY for name in
          ("range", "keys", "players_from", "next_player", "neighbours", "frontier", "reach", "ahead",
           "route_ahead", "step", "components")}


def join(a: str, b: str) -> str:
    """The type of a value that is one of a type ``a`` or of a type ``b`` (two lists: a list
    whose items are of the join of their items' types, or a list of any)."""
    if a == b or b == "none":
        return a
    if a == "none":
        return b
    if is_row(a) and is_row(b) and len(ra := row_items(a)) == len(rb := row_items(b)):
        return _row([join(x, y) for x, y in zip(ra, rb)])   # (two rows as long: each item's join)
    if is_row(a) or is_row(b):   # a row and another list: a list of their items' join
        return join(plain(a), plain(b))
    if a != ANY and b != ANY and all(t == "str" or t.startswith("entity:") for t in (a, b)):
        return "str"
    for head in ("list", "map"):   # (a list's items, a map's values: their join, or any)
        if a.split(":", 1)[0] == head == b.split(":", 1)[0]:
            return _holding(head, join(_item(a), _item(b)) if head not in (a, b) else ANY)
    return ANY


def is_row(t: str) -> bool:
    """Whether type ``t`` is a row (a list of a known length, each item of its own type)."""
    return t.startswith("list(")


def row_items(t: str) -> list:
    """The types of the items of row type ``t``, in order."""
    return t[5:-1].split(",")


_RETYPED = 8      # how many times a def that calls itself is typed before it is any
_ROW_LONGEST = 8   # a list written out with more items than this is a list, not a row


def _row(items: list) -> str:
    """The row type of items of types ``items``: an item that is itself a row, or holds one, is
    a list of its items' join there (rows never nest)."""
    return "list(" + ",".join(_flat(t) for t in items) + ")"


def plain(t: str) -> str:
    """Type ``t`` as a list of its items' join if it is a row (a list that may change length,
    or be reordered, has no row type; its items keep theirs), else ``t``."""
    return _holding("list", _item(t)) if is_row(t) else t


def _flat(t: str) -> str:
    """Type ``t`` with every row in it a list of its items' join."""
    if "(" not in t:
        return t
    head, _, item = plain(t).partition(":")
    return _holding(head, _flat(item)) if item else head


def list_item(t: str) -> str:
    """The type of an item of a list of type ``t`` (a row's: its items' join), any when ``t``
    is not proven a list."""
    return _item(t) if t.startswith("list") else ANY


def _holding(head: str, item: str) -> str:
    """The type of a list (``head`` list) or a map (``map``) whose items are of type ``item``
    (``list:none``: a list that holds nothing but none yet, as an empty list starts)."""
    return f"{head}:{item}" if is_proven(item) or item == "none" else head


def _all_of(t: str, *types: str) -> bool:
    """Whether each of ``types`` is ``t`` or none (a fault where a value is none, or one not
    known yet while the proof runs: what a whole number's arithmetic gives is a whole number)."""
    return all(x == t or x == "none" for x in types)


def of_value(value, kind_of: dict) -> str:
    """The type of a value written in the YAML (``kind_of``: entity id -> its kind)."""
    if value.__class__ is str:
        return f"entity:{kind_of[value]}" if value in kind_of else "str"
    if isinstance(value, (list, dict)):   # (its items' join: none if it has none)
        item = "none"
        for x in (value.values() if isinstance(value, dict) else value):
            item = join(item, of_value(x, kind_of))
        return _holding("map" if isinstance(value, dict) else "list", item)
    return _OF_CLASS.get(value.__class__, ANY)


_OF_CLASS = {type(None): "none", bool: "bool", int: "int"}


class Types:
    """The type of an expression, given the types of fields and variables (``table``: the
    shape of :func:`prove`'s result, ``fields`` by kind and ``variables``)."""

    def __init__(self, names, table: dict):
        self.names = names
        self.fields = table.get("fields", {})
        self.variables = table.get("variables", {})
        self.kind_of = {i: kind for kind, ids in names.kinds.items() for i in ids}
        self.results: dict = {}   # (def name, its arguments' types) -> the type of what it gives
        self.typing: list = []    # the keys of the defs whose bodies are being typed, innermost last

    def of(self, e, env: dict, locals_, memo: dict | None = None) -> str:
        """``e``'s type; ``env``: comprehension, lambda and ``let ... in`` variables -> their
        types; ``locals_``: the rule locals, a dict of their proven types where they are known.
        ``memo``: id(node) -> its type, for nodes typed in this very ``env`` (kept by the caller)."""
        if memo is None:
            return self._of(e, env, locals_, None)
        found = memo.get(id(e))
        if found is None:
            found = memo[id(e)] = self._of(e, env, locals_, memo)
        return found

    def _of(self, e, env: dict, locals_, memo) -> str:
        t = type(e)
        if t is n.Int:
            return "int"
        if t is n.Str:
            return "str"
        if t is n.Const:
            return "none" if e.value is None else "bool"
        if t is n.Var:
            return env[e.name] if e.name in env else self._name(e.name, locals_)
        if t is n.Attr:
            return self.field(self.of(e.obj, env, locals_, memo), e.name)
        if t is n.Index:   # an item of a list, a value of a map (a row's at a number written)
            obj = self.of(e.obj, env, locals_, memo)
            if is_row(obj) and e.key.__class__ is n.Int and 0 <= e.key.value < len(row_items(obj)):
                return row_items(obj)[e.key.value]
            return _item(obj)
        if t is n.Unpack:   # a list taken apart: itself, when it has that many items (else a fault)
            obj = self.of(e.expr, env, locals_, memo)
            return obj if obj == "none" or obj.startswith("list") and \
                (not is_row(obj) or len(row_items(obj)) == e.count) else ANY
        if t is n.BinOp:   # (none: a fault, or a side not known yet while the proof runs)
            a, b = self.of(e.left, env, locals_, memo), self.of(e.right, env, locals_, memo)
            if a == b == "none" and (e.op in _WHOLE or e.op == "+"):
                return a
            if e.op in _WHOLE and _all_of("int", a, b):
                return "int"
            if e.op == "+" and _all_of("str", a, b):
                return "str"
            if e.op == "+" and all(x == "none" or x.startswith("list") for x in (a, b)):   # (or a fault)
                return join(plain(a), plain(b))
            return ANY
        if t is n.Neg:
            return "int" if _all_of("int", self.of(e.expr, env, locals_, memo)) else ANY
        if t in (n.Compare, n.BoolOp, n.Not, n.Exists):
            return "bool"
        if t is n.Comprehension:
            inner = {**env, e.var: _item(self.of(e.source, env, locals_, memo))}
            return _holding("list", self.of(e.expr, inner, locals_))
        if t is n.ListLit:
            if 0 < len(e.items) <= _ROW_LONGEST:
                return _row([self.of(x, env, locals_, memo) for x in e.items])
            item = "none"
            for x in e.items:
                item = join(item, self.of(x, env, locals_, memo))
            return _holding("list", item)
        if t is n.MapOf:
            return "map"
        if t is n.Conditional:
            return join(self.of(e.then, env, locals_, memo), self.of(e.otherwise, env, locals_, memo))
        if t is n.LetIn:
            return self.of(e.body, {**env, e.var: self.of(e.value, env, locals_, memo)}, locals_)
        if t is n.Call:
            return self._call(e, env, locals_)
        return ANY

    def whole(self, e, locals_) -> bool:
        """Whether expression ``e`` (of a unit whose locals' types are ``locals_``) surely gives
        a whole number, never none: a number written in the rules, or arithmetic, a negation,
        a count of values proven whole numbers (none there faults: no value is given)."""
        c = e.__class__
        if c is n.Int:
            return True
        if c not in (n.BinOp, n.Neg, n.Call) or self.of(e, {}, locals_) != "int":
            return False
        if c is n.Call:
            return e.name in _WHOLE_BUILTINS and resolve_call(self.names, e.name, set(locals_))[0] is Kind.BUILTIN
        return c is n.Neg or e.op in _WHOLE

    def field(self, obj: str, name: str) -> str:
        """The type of field ``name`` of an entity of type ``obj``: of its kind, or of every kind
        that has the field when the kind is not known (of nothing but none: none yet, while
        the proof runs)."""
        if obj == "none":
            return obj
        if obj.startswith("entity:"):
            return self.fields.get(obj[7:], {}).get(name, ANY)
        if obj != "str":
            return ANY
        found = [fields[name] for fields in self.fields.values() if name in fields]
        out = found[0] if found else ANY
        for t in found:
            out = join(out, t)
        return out

    def _name(self, name: str, locals_) -> str:
        kind, v = resolve(self.names, name, locals_)
        if kind is Kind.LOCAL:   # a unit's locals with their types (compile/statements.py), or names
            return locals_.get(name, ANY) if isinstance(locals_, dict) else ANY
        if kind is Kind.VARIABLE:
            return self.variables.get(name, ANY)
        if kind is Kind.CONSTANT:
            return of_value(v, self.kind_of)
        if kind is Kind.ENTITY:
            return f"entity:{self.kind_of[v]}" if v in self.kind_of else "str"
        if kind is Kind.PLAYERS:
            return "list:entity:players"
        if kind is Kind.KIND:
            return f"list:entity:{name}"
        return ANY

    def _call(self, e, env, locals_) -> str:
        kind, d = resolve_call(self.names, e.name, set(env) | set(locals_))
        if kind is Kind.BUILTIN:
            if e.name in _WHOLE_BUILTINS:
                return "int"
            if e.name in _OF_WHOLE and e.args and \
                    all(_flat(self.of(a, env, locals_)) in ("int", "list:int", "none", "list:none") for a in e.args):
                return "int"
            if e.name == "flatten" and len(e.args) == 1:   # the items of the lists of a list
                lists = _item(self.of(e.args[0], env, locals_))
                return _holding("list", _item(lists)) if lists == "none" or lists.startswith("list") else ANY
            if e.name in _SAME_ITEMS and e.args:   # items of its first list, or that list itself
                first = plain(self.of(e.args[0], env, locals_))   # (reordered: no row)
                if first == "none":
                    return first
                if not first.startswith("list"):
                    return ANY
                return _item(first) if builtins.ALL[e.name].result == "elem" else first
            return _EXACT.get(e.name, ANY)
        if kind is not Kind.FUNCTION or not isinstance(d, n.FuncDef) or len(d.params) != len(e.args):
            return ANY
        return self.result(d, tuple(self.of(a, env, locals_) for a in e.args))

    def result(self, d, args: tuple) -> str:
        """The type of what def ``d`` gives for arguments of types ``args``. A def that calls
        itself (with arguments of the same types) is typed again until what it gives stays the
        same, its call of itself giving what its body gave so far (none at first: nothing yet);
        any other call of a def whose body is being typed gives any."""
        key = (d.name, args)
        found = self.results.get(key)
        if found is not None:
            return found if key not in self.typing or self.typing[-1] == key else ANY
        self.results[key] = "none"
        self.typing.append(key)
        try:
            for _ in range(_RETYPED):
                t = join(self.results[key], self.of(d.expr, dict(zip(d.params, args)), ()))
                if t == self.results[key]:
                    break
                self.results[key] = t
            else:
                self.results[key] = ANY
        finally:
            self.typing.pop()
        return self.results[key]


def prove(defs: list, names, entities: dict, kinds: dict, variables: dict, player_fields: dict) -> dict:
    """The proven types of a ruleset's fields (by kind), variables, and the locals of each code
    unit (and of each score): ``{"fields": {kind: {field: type}}, "variables": {name: type},
    "locals": {unit key: {name: type}}, "loops": {unit key: {line: the variable of a loop that
    starts there, when proven}}, "lists": {unit key: [the lines of the for loops that walk a
    proven list]}}``, only those that are proven."""
    kind_of = {i: kind for kind, ids in kinds.items() for i in ids}
    fields: dict = {}
    for kind, ids in kinds.items():
        out = fields[kind] = {}
        for i in ids:
            for f, v in entities[i].items():
                t = of_value(v, kind_of)
                if out.get(f) != t:
                    out[f] = join(out.get(f, "none"), t)
    fields["players"] = {f: of_value(v, kind_of) for f, v in player_fields.items()}
    fields["players"].update({"id": "entity:players", "kind": "str", "name": "str", "seat": "int"})
    table = {"fields": fields, "variables": {k: of_value(v, kind_of) for k, v in variables.items()}}
    units = {}     # unit key -> its locals' types (the dict its expressions are typed with)
    writes = []    # (a set statement, the locals of its unit)
    binds = []     # (the locals of a unit, a local, how it is bound, to what, with which op,
    calls = []     # the locals the value is typed with); (caller's locals, callee's key, args)
    found = list(_units(defs, names))
    for key, d, fixed, nodes in found:
        # a local starts as nothing (none) when every way it is bound is listed here (a
        # parameter: by the calls); one that something else binds (the compiler's list:
        # resolver.assigned) is any
        bound = {b[0] for x in nodes for b in _binding(x, {})}
        locals_ = units[key] = {**dict.fromkeys(assigned(d), ANY),
                                **dict.fromkeys(_locals(d) | bound, "none"), **fixed}
        for x in nodes:
            if x.__class__ in _WRITES:
                writes.append((x, locals_))
            binds += [(locals_, *b, locals_) for b in _binding(x, locals_) if b[0] not in fixed]
            calls += [(locals_, *c) for c in _calls(x, names)]
    params = {key: getattr(d, "params", []) for key, d, _, _ in found}
    for caller, key, args in calls:   # a parameter: what every call passes
        if key in units and len(args) == len(params[key]):
            binds += [(units[key], p, "value", a, "=", caller) for p, a in zip(params[key], args)
                      if p in units[key] and units[key][p] != ANY]
    returns = {key: [x.expr for x in nodes if x.__class__ is n.Return] for key, _, _, nodes in found}
    changed = True
    while changed:   # types only ever grow towards any: this ends
        changed = False
        types = Types(names, table)
        gives = {}   # a procedure's unit -> the type of what it returns (none: nothing, or none)
        for key, exprs in returns.items():
            gives[key] = "none"
            for e in exprs:
                gives[key] = join(gives[key], "none" if e is None else types.of(e, {}, units[key]))
        for s, locals_ in writes:   # (a set, or an add: a list's item added)
            op, value = (s.op, s.expr) if isinstance(s, n.Set) else ("add" if isinstance(s, n.Add) else "remove", s.item)
            for where, key, depth in _written(s.target, types, locals_, table):
                old = where[key]
                new = _into(old, depth, op, types.of(value, {}, locals_))
                if new != old:
                    where[key], changed = new, True
        for locals_, name, how, node, op, where in binds:
            if how == "returns":   # (a local naming a procedure may run any: any)
                t = gives.get(f"proc:{node}", ANY) if node in names.procedures else ANY
            else:
                t = ANY if node is None else node if node.__class__ is str else types.of(node, {}, where)
            if how == "items":   # an item of a local list or map set, or one added
                new = _into(locals_[name], 1, "=", t)
            elif how == "removed":   # an item removed from it (or from an item of it: ``op`` deep)
                new = _into(locals_[name], op, "remove", t)
            else:
                new = _stored(locals_[name], op, _item(t) if how == "item" else t)
            if new != locals_[name]:
                locals_[name], changed = new, True
    loops = {key: {str(x.pos.line): x.var for x in nodes if x.__class__ in (n.For, n.Turns)
                   and is_proven(units[key][x.var])} for key, _, _, nodes in found}
    # the for loops that walk a list (proven one: never a count), by the line each starts on
    types = Types(names, table)
    lists = {key: sorted({str(x.pos.line) for x in nodes if x.__class__ is n.For
                          and types.of(x.source, {}, units[key]).startswith("list")}) for key, _, _, nodes in found}
    return {"fields": {k: {f: _final(t) for f, t in fs.items() if is_proven(t)} for k, fs in fields.items()},
            "variables": {k: _final(t) for k, t in table["variables"].items() if is_proven(t)},
            "locals": {k: {x: _final(t) for x, t in ts.items() if is_proven(t)} for k, ts in units.items()},
            "loops": {k: lines for k, lines in loops.items() if lines},
            "lists": {k: lines for k, lines in lists.items() if lines}}


def loop_items(slot: str, value, loops: dict) -> tuple:
    """The local a loop's hidden local ``slot`` (value ``value``, in a frame of a unit whose
    proven loops are ``loops``: line -> the loop's variable) gives its values to, and the
    values it holds for it (a ``for`` loop's list; a turn loop's players in turn, the last
    and the current); ``(None, ())`` for a loop whose variable is not proven."""
    var = loops.get(slot.rpartition("@")[2]) if slot.startswith("$") else None
    if var is None or value.__class__ is not list:
        return None, ()
    if slot.startswith(turns.SLOT):   # [rotation, index, passed, last, current, mark, left]
        if len(value) != 7 or value[0].__class__ is not list:
            return var, (value,)
        return var, (*value[0], value[3], value[4])
    if len(value) != 2:   # a for loop's (items, at), its items a list (or a count: numbers)
        return var, (value,)
    return var, value[0] if value[0].__class__ is list else (value[0],)


def _units(defs: list, names):
    """``(key, definition, {local: its type, fixed}, its nodes that write, bind or call)`` of
    each definition with locals, keyed as the compiler keys its code (statements.py). A parameter has the type every call passes
    (:func:`_calls`), unless a procedure is called through a local that names it (then any
    procedure may get anything); an action's player and a score's, tiebreak's or estimate's are
    players (the engine passes them)."""
    nodes = {id(d): [x for x in n.walk(d) if x.__class__ in _BINDS] for d in defs
             if isinstance(d, (n.ProcDef, n.HandlerDef, n.ActionDef, n.GameDef, n.ScoreDef))}
    dynamic = any(x.__class__ in (n.CallStmt, n.LetCall) and x.proc not in names.procedures
                  for xs in nodes.values() for x in xs)
    handlers: dict = {}
    game = True
    for d in defs:
        if isinstance(d, n.ProcDef):
            yield f"proc:{d.name}", d, dict.fromkeys(d.params, ANY) if dynamic else {}, nodes[id(d)]
        elif isinstance(d, n.HandlerDef):
            i = handlers[d.event] = handlers.get(d.event, -1) + 1
            yield f"on:{d.event}:{i}", d, {}, nodes[id(d)]
        elif isinstance(d, n.ActionDef):
            yield f"action:{d.name}", d, {d.player: "entity:players"}, nodes[id(d)]
        elif isinstance(d, n.GameDef) and game:
            game = False
            yield "game", d, {}, nodes[id(d)]
        elif isinstance(d, n.ScoreDef):   # (Game.estimates refuses any other player)
            yield n.DEFINITION_KINDS[type(d)], d, {d.player: "entity:players"}, nodes[id(d)]


_PLAYERS = "list:entity:players"   # what a turn loop takes its players from when it names none
_WRITES = (n.Set, n.Add, n.Remove)   # what changes a field's, variable's or local's value
_BINDS = {n.Set, n.Add, n.Remove, n.Return, n.Let, n.LetCall, n.For, n.Turns, n.Draw, n.Option, n.ActionDef, n.CallStmt, n.Emit,
          n.Choose}


def _binding(x, locals_: dict) -> list:
    """How node ``x`` binds a local of its unit: ``(name, how, node, op)``, the local set to
    the value of ``node`` (how: ``value``) or to an item of it (``item``); node None: any; or
    to what procedure ``node`` returns (``returns``)."""
    if isinstance(x, n.Let):
        return [(x.name, "value", x.expr, "=")]
    if isinstance(x, n.LetCall):   # what the procedure returns (of the unit proc:NAME)
        return [(x.name, "returns", x.proc, "=")]
    if isinstance(x, n.Set) and not x.target.path and x.target.name in locals_:
        return [(x.target.name, "value", x.expr, x.op)]
    if isinstance(x, (n.Set, n.Add)) and x.target.name in locals_ and \
            all(step == "index" for step, _ in x.target.path):
        # an item of a local list set, or one added: the list's items may be of its type too
        # (an item of an item set or added to: of any type)
        item = (x.item if isinstance(x, n.Add) else x.expr) if len(x.target.path) == int(isinstance(x, n.Set)) else None
        return [(x.target.name, "items", item, "+=")]
    if isinstance(x, n.Remove) and x.target.name in locals_ and all(step == "index" for step, _ in x.target.path):
        return [(x.target.name, "removed", None, len(x.target.path))]   # (a row no more)
    if isinstance(x, n.For):   # (taken from the loop's hidden state, which a save holds: its
        return [(x.var, "item", x.source, "=")]   # check reads it, see loop_slots)
    if isinstance(x, n.Turns):
        return [(x.var, "item", x.source if x.source is not None else _PLAYERS, "=")]
    if isinstance(x, n.Choose) and x.secret is not None:   # (the same: a secret choice's round)
        return [(x.secret, "value", None, "="), *_binding_options(x)]
    if isinstance(x, n.Draw):
        return [(x.name, "item", x.source, "=")]
    if isinstance(x, (n.Option, n.ActionDef)):
        return [(d.var, "item", d.source, "=") for d in x.domains]
    return []


def _binding_options(x) -> list:
    """The parameters of a secret choice's options, set at the reveal from its round's hidden
    state (which a save holds): not proven."""
    return [(d.var, "value", None, "=") for o in x.options if isinstance(o, n.Option) for d in o.domains]


def _calls(x, names) -> list:
    """``(key of the unit called, argument nodes)`` of a call or an emit ``x``: a procedure's
    unit (a procedure's name wins over a local's: scope.resolve_procedure), or each handler
    of the event."""
    if isinstance(x, (n.CallStmt, n.LetCall)) and x.proc in names.procedures:
        return [(f"proc:{x.proc}", x.args)]
    if isinstance(x, n.Emit):
        return [(f"on:{x.event}:{i}", x.args) for i in range(len(names.events.get(x.event, ())))]
    return []


def _item(t: str) -> str:
    """The type of an item of a list of type ``t`` (or of a value of a map of type ``t``; of
    nothing but none: none yet, while the proof runs; of a row: its items' join)."""
    if is_row(t):
        item = "none"
        for x in row_items(t):
            item = join(item, x)
        return item
    return t[5:] if t.startswith("list:") else t[4:] if t.startswith("map:") else t if t == "none" else ANY


def _final(t: str) -> str:
    """Type ``t`` as the proof gives it: a list or a map of nothing but none is one of any."""
    if is_row(t):
        return _row([_final(x) for x in row_items(t)])
    head, _, item = t.partition(":")
    return head if item == "none" else f"{head}:{_final(item)}" if head in ("list", "map") and item else t


def _into(old: str, depth: int, op: str, value: str) -> str:
    """The type of a field, variable or local of type ``old`` after ``set ...[k1]...[kN] op
    value`` (``depth`` N: an item of an item..., none: the whole) or ``add value to ...``
    (``op`` add): the list or map keeps its type, and its items take ``value``'s type too."""
    if depth == 0:
        return _stored(old, op, value)
    old = plain(old)   # (an item of a row set: its items' types are one)
    head = old.split(":", 1)[0]
    if head not in ("list", "map"):
        return old   # (a fault, or a list or map of any: the type stays)
    return _holding(head, _into(_item(old), depth - 1, op, value) if old != head else ANY)


def is_proven(t: str) -> bool:
    return t not in (ANY, "none")


def _stored(old: str, op: str, value: str) -> str:
    """The type of a field or variable of type ``old`` after ``set ... op value``: a ``+=`` or
    ``-=`` keeps a whole number or a list what it is (or faults), and makes anything else any."""
    if op == "=":
        return join(old, value)
    if op == "remove":   # an item removed from a list (or a fault): the list is no row
        return plain(old)
    if op == "add":   # an item added to a list (or a fault)
        return join(old, _holding("list", value)) if old.startswith("list") else old
    if op == "+=" and old.startswith("list"):   # items added: of their type too
        return join(plain(old), plain(value) if value.startswith("list") else "list")
    return old if old in ("int", "list", "none") or old.startswith("list:") else ANY


def _written(target: n.Target, types: Types, locals_, table: dict) -> list:
    """Where a ``set`` (or ``add``, ``remove``) of ``target`` may store its value: ``(table,
    key, depth)`` triples, ``depth`` the ``[...]`` that end the path (an item of the field or
    variable it changes). A path ending in ``.f`` (then ``[...]``) may change field ``f`` of the
    entity's own kind where what comes before ``.f`` is proven an entity of that kind (of none
    where it is only ever none yet: a write through none faults), else of any kind that has it."""
    fields = table["fields"]
    attrs = [i for i, (step, _) in enumerate(target.path) if step == "attr"]
    if not attrs:   # a variable (or a local of the same name: as if it were one)
        depth = len(target.path)
        return [(table["variables"], target.name, depth)] if target.name in table["variables"] else []
    name, depth = target.path[attrs[-1]][1], len(target.path) - 1 - attrs[-1]
    t = types.of(target.read(attrs[-1]), {}, locals_)
    if t == "none":
        return []
    if t.startswith("entity:"):
        own = fields.get(t[7:], {})
        return [(own, name, depth)] if name in own else []
    return [(fs, name, depth) for fs in fields.values() if name in fs]



def _locals(d) -> set:
    """The locals definition ``d`` has before any statement binds one: its parameters."""
    out = set(getattr(d, "params", ()) or ())
    if isinstance(d, (n.ActionDef, n.ScoreDef)):
        out.add(d.player)
    return out


_TYPES: dict = {}   # id(a ruleset's table) -> (the table, kept alive so its id stays its own; Types)


def types_for(names) -> Types | None:
    """The :class:`Types` of ``names``' proven table (one per ruleset, made once); None when
    nothing is proven (a constant computed while the ruleset loads, before the proof)."""
    table = names.proven
    if not table:
        return None
    return of_object(_TYPES, table, lambda table: Types(names, table), 64)
