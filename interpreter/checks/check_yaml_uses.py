"""YAML values checked against what the rules do with them (RR110 at the YAML value).

``max_build: three`` lints clean as YAML (a string is a fine value) and as rules (the
constant is passed on as a parameter); play then fails deep in the shared library, never
naming ``max_build``. This check follows each value of the YAML — constants, variables,
entity and player fields — through the rules: where it is used as a number (arithmetic, an
order, ``repeat N times``, ``pay``, ``+=``, a builtin's number) or as a list (``for``, a
choice's domain, ``add``/``remove``, a builtin's list), directly or through the parameters
of defs, procedures and handlers, whatever call passes it. A YAML value of another type is
reported at its own line and column, with the use that needs it.
"""
from __future__ import annotations

from ..dsl import builtins
from ..dsl import nodes as n
from .check_types import _words
from .library_contract import _locals
from .symbols import value_type
from ..runtime.memo import of_object

_NUMERIC = {"-", "*", "/", "//", "%"}


class _Uses:
    """Origins (where a value comes from) and the demands made on them."""

    def __init__(self, ruleset) -> None:
        self.rs = ruleset
        self.demands: dict = {}   # origin -> {"int"|"list": the node that needs it}
        self.passes: dict = {}    # ("param", key, i) -> [origins of the arguments passed there]
        self.operands: dict = {}  # (origin, want) -> the positions of the expressions it is

    def origin(self, ref):
        """A reference of :func:`_facts` in this ruleset: a ``name`` is a variable or a
        constant of the YAML (or nothing the check follows)."""
        if ref is None or ref[0] != "name":
            return ref
        if ref[1] in self.rs.variables:
            return ("variable", ref[1])
        if ref[1] in self.rs.constants:
            return ("constant", ref[1])
        return None

    def need(self, want: str, ref, pos, use) -> None:
        o = self.origin(ref)
        if o is not None:
            self.demands.setdefault(o, {}).setdefault(want, use)
            self.operands.setdefault((o, want), []).append(pos)

    def passed(self, key: str, refs: list) -> None:
        for i, ref in enumerate(refs):
            o = self.origin(ref)
            if o is not None:
                self.passes.setdefault(("param", key, i), []).append(o)

    def definition(self, d) -> None:
        for fact in _facts(d):
            if fact[0] == "need":
                self.need(*fact[1:])
            elif fact[0] == "pass":
                self.passed(*fact[1:])
            else:   # a call: of a def of the rules (they win), or of a builtin
                _, name, refs, poses, use = fact
                entry = builtins.ALL.get(name)
                if name in self.rs.names.functions:
                    self.passed(name, refs)
                elif entry is not None:
                    for ref, pos, want in zip(refs, poses, entry.args):
                        if want in ("num", "list"):
                            self.need("int" if want == "num" else "list", ref, pos, use)

    def blamed(self, misfits: set) -> set:
        """The positions of the expressions whose wrong type comes from a misfit YAML value
        ((origin, want) pairs), directly or through parameters: the type checker's RR110
        there says the same thing in the wrong file."""
        bad = set(misfits)
        changed = True
        while changed:
            changed = False
            for param, origins in self.passes.items():
                for want in ("int", "list"):
                    if (param, want) not in bad and any((o, want) in bad for o in origins):
                        bad.add((param, want))
                        changed = True
        return {(p.file, p.line, p.column) for key in bad for p in self.operands.get(key, ())}

    def settle(self) -> None:
        """Carry each parameter's demands to what the calls pass it, until nothing changes."""
        changed = True
        while changed:
            changed = False
            for param, origins in self.passes.items():
                for want, use in list(self.demands.get(param, {}).items()):
                    for o in origins:
                        if want not in self.demands.setdefault(o, {}):
                            self.demands[o][want] = use
                            changed = True


_FACTS: dict = {}   # id(definition) -> (the definition, kept so its id stays its own; its facts)


def _facts(d) -> tuple:
    """What a definition does with values, once per parsed definition (lint checks the same
    definitions in the ruleset and in each of its variants): ``("need", want, ref, pos, use)``,
    ``("pass", key, refs)`` and ``("call", name, refs, positions, use)``; a ref is a parameter
    ``("param", key, i)``, a field ``("field", name)``, a global ``("name", name)`` or None."""
    return of_object(_FACTS, d, _facts_of, 4096)


def _facts_of(d) -> tuple:
    return tuple(_walk(d))


def _walk(d):
    key, names = _params(d)
    params = {p: ("param", key, i) for i, p in enumerate(names)}
    local = _locals(d)

    def ref(e):
        if isinstance(e, n.Var):
            return params.get(e.name) or (None if e.name in local else ("name", e.name))
        return ("field", e.name) if isinstance(e, n.Attr) else None

    def need(want, e, use):
        r = ref(e)
        return [("need", want, r, e.pos, use)] if r is not None else []

    for x in n.walk(d):
        if isinstance(x, n.BinOp):
            if x.op in _NUMERIC or (x.op == "+" and (isinstance(x.left, n.Int) or isinstance(x.right, n.Int))):
                yield from need("int", x.left, x) + need("int", x.right, x)
        elif isinstance(x, n.Neg):
            yield from need("int", x.expr, x)
        elif isinstance(x, n.Compare) and x.op in ("<", "<=", ">", ">="):
            yield from need("int", x.left, x) + need("int", x.right, x)
        elif isinstance(x, n.Repeat):
            yield from need("int", x.count, x)
        elif isinstance(x, n.Pay):
            yield from need("int", x.amount, x)
        elif isinstance(x, n.Set) and x.op == "-=":
            yield from need("int", x.expr, x)
        elif isinstance(x, (n.For, n.Comprehension, n.Exists, n.Domain)):
            yield from need("list", x.source, x)
        elif isinstance(x, (n.Add, n.Remove)):
            last = x.target.path[-1] if x.target.path else None
            if last is None:
                yield from need("list", n.Var(x.target.pos, x.target.name), x)
            elif last[0] == "attr":
                yield from need("list", n.Attr(x.target.pos, None, last[1]), x)
        elif isinstance(x, n.Call):
            yield ("call", x.name, [ref(a) for a in x.args], [a.pos for a in x.args], x)
        elif isinstance(x, (n.CallStmt, n.LetCall)):
            yield ("pass", x.proc, [ref(a) for a in x.args])
        elif isinstance(x, n.Emit):
            yield ("pass", f"on:{x.event}", [ref(a) for a in x.args])


def _params(d) -> tuple[str, list]:
    if isinstance(d, (n.FuncDef, n.ProcDef)):
        return d.name, list(d.params)
    if isinstance(d, n.HandlerDef):
        return f"on:{d.event}", list(d.params)
    return "", []


def _fits(value, want: str) -> bool:
    if value is None:      # none: a value set later ("no home yet"); play says if it is used so
        return True
    if want == "int":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, list)


def check_yaml_uses(ruleset, sink) -> None:
    uses = _Uses(ruleset)
    for d in ruleset.definitions:
        uses.definition(d)
    uses.settle()
    comps = ruleset.meta_places["components"]
    variant = ruleset.meta_places.get("variant")
    notes = set(ruleset.notes)
    misfits: set = set()
    fields = _field_values(ruleset, {o[1]: set(w) for o, w in uses.demands.items() if o[0] == "field"}, variant)
    said = {(d.pos.file, d.pos.line, d.pos.column) for d in sink.diagnostics if d.code == "RR110"}
    for origin, wants in uses.demands.items():
        kind, name = origin[:2]
        if kind == "constant" and comps.has("constants", name):
            values = [(ruleset.constants[name], _written(variant, comps, "constants", name), f"constant '{name}'", "")]
        elif kind == "variable":
            section = "notes" if name in notes else "variables"
            values = [(ruleset.variables[name], _written(variant, comps, section, name), f"variable '{name}'", "")] \
                if comps.has(section, name) else []
        elif kind == "field":
            values = fields.get(name, [])
        else:
            continue
        for want, use in wants.items():
            suspects = _suspects(values, want)
            if not suspects or not _yaml_to_blame(uses, origin, want, suspects, values, said):
                continue
            misfits.add((origin, want))
            for value, pos, what in suspects:
                got = _words(value_type(ruleset, value))
                sink.add("RR110", f"{what} is {value!r} ({got}), but the rules use it as "
                         f"{'a number' if want == 'int' else 'a list'} at {use.pos}", pos,
                         hint=f"give {'a number' if want == 'int' else 'a list'} here")
    blamed = uses.blamed(misfits)
    if blamed:
        sink.diagnostics[:] = [d for d in sink.diagnostics if not (
            d.code == "RR110" and (d.pos.file, d.pos.line, d.pos.column) in blamed)]


def _written(variant, positions, *path):
    """Where a value is written: in the variant file when it sets it, else in ``positions``."""
    if variant is not None and variant.has(*path):
        return variant.value_of(*path)
    return positions.value_of(*path)


def _yaml_to_blame(uses, origin, want, suspects, values, said) -> bool:
    """Whether the YAML is wrong rather than the rules: some values fit and these do not; or a
    word stands where a number is used (``three``); or the type checker, which sees the value
    only where the rules read it directly, said nothing where they do."""
    if len(suspects) < len(values) or (want == "int" and all(isinstance(v[0], str) for v in suspects)):
        return True
    return not any((p.file, p.line, p.column) in said for p in uses.operands.get((origin, want), ()))


def _suspects(values: list, want: str) -> list:
    """The values that do not fit ``want``. A field name that several kinds have (``trains``:
    a count of companies, the list of a hex's companies) is judged kind by kind: a kind none
    of whose values fit is taken to be another kind's field, used elsewhere."""
    groups: dict = {}
    for v in values:
        groups.setdefault(v[3], []).append(v)
    out = []
    for group in groups.values():
        if len(groups) == 1 or any(_fits(v[0], want) for v in group):
            out += [v[:3] for v in group if not _fits(v[0], want)]
    return out


def _field_values(rs, wanted: dict, variant) -> dict:
    """Field -> (value, position, name, kind) of every entity's and player's field of
    ``wanted`` (field -> the types the rules want of it) where some value does not fit: where
    it is written, the variant, the entity's own line or its kind's defaults, once per place."""
    found: dict = {}
    for ent, rec in rs.entities.items():
        for field in [f for f in wanted if f in rec]:
            found.setdefault(field, []).append(ent)
    out: dict = {}
    for field, want in wanted.items():
        player = field in rs.player_fields
        values = [rs.entities[e][field] for e in found.get(field, ())] + ([rs.player_fields[field]] if player else [])
        if all(_fits(v, w) for v in values for w in want):
            continue    # the common case: nothing to report, no position to look up
        out[field] = [(rs.player_fields[field], rs.meta_places["components"].value_of("player", field),
                       f"player field '{field}'", "players")] if player else []
        seen: set = set()
        for ent in found.get(field, ()):
            if ent in rs.places:
                place = _place(rs, ent, field, variant, seen)
                if place is not None:
                    out[field].append((rs.entities[ent][field], place[0], place[1], rs.entities[ent]["kind"]))
    return out


def _place(rs, ent: str, field: str, variant, seen: set):
    """(position, name) where an entity's field is written, or None for a default said already."""
    positions, path = rs.places[ent]
    if variant is not None and variant.has("entities", ent, field):
        return variant.value_of("entities", ent, field), f"{ent}.{field}"
    if positions.has(*path, field):
        return positions.value_of(*path, field), f"{ent}.{field}"
    kind = rs.entities[ent]["kind"]
    defaults = ("fields", field) if kind == "hexes" else ("kinds", kind, "fields", field)
    if positions.has(*defaults) and defaults not in seen:
        seen.add(defaults)
        return positions.value_of(*defaults), f"the default {kind}.{field}"
    return None
