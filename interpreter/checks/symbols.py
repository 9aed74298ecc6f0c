"""One symbol table for a whole ruleset: every name of its YAML files and of its rules, with
the file, line and column where it is defined and its type.

Built from what the loader already knows (a loaded :class:`~interpreter.data.ruleset.Ruleset`
keeps the YAML positions and the parsed definitions), never by reading the files again. The
linter (YAML values checked against their uses), and the language server (hover, definition,
completion, references, rename, workspace symbols) ask it.

Kinds of symbol: ``constant``, ``variable``, ``player field`` (YAML: components.yaml),
``kind``, ``entity``, ``alias``, ``field`` (YAML: components.yaml and board.yaml), and
``const``, ``def``, ``procedure``, ``action``, ``option``, ``event``, ``end_condition``,
``metric`` (the rules). Types are the type checker's strings (``int``, ``list:entity:hexes``...).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..dsl import nodes as n
from ..errors import Pos

YAML_KINDS = ("constant", "variable", "player field", "kind", "entity", "alias", "field")


@dataclass(frozen=True)
class Symbol:
    name: str
    kind: str
    pos: Pos              # where it is defined (a YAML key, or a definition's first word)
    type: str = "any"
    detail: str = ""      # a YAML value as written (shortened), or a definition's parameters
    owner: str = ""       # a field's kind ("players" for a player field); an option's procedure
    params: tuple = ()    # a def's, procedure's or handler's parameters

    @property
    def signature(self) -> str:
        return f"{self.name}({', '.join(self.params)})"


class SymbolTable:
    """The symbols of one ruleset, by name (a name may have several: a field of two kinds)."""

    def __init__(self, symbols: list[Symbol]):
        self.symbols = symbols
        self.by_name: dict[str, list[Symbol]] = {}
        for s in symbols:
            self.by_name.setdefault(s.name, []).append(s)

    def __getitem__(self, name: str) -> list[Symbol]:
        return self.by_name.get(name, [])

    def __contains__(self, name: str) -> bool:
        return name in self.by_name

    def names(self) -> list[str]:
        return sorted(self.by_name)


def symbol_table(ruleset) -> SymbolTable:
    """Every name of ``ruleset`` (cached on it: a loaded ruleset does not change)."""
    if "_symbols" not in ruleset.__dict__:
        ruleset.__dict__["_symbols"] = SymbolTable(_yaml_symbols(ruleset) + _rules_symbols(ruleset))
    return ruleset.__dict__["_symbols"]


def value_type(ruleset, value) -> str:
    """The type checker's type of a YAML value (an entity id is an entity of its kind)."""
    from .check_types import _Types
    if "_types" not in ruleset.__dict__:
        ruleset.__dict__["_types"] = _Types(ruleset)
    return ruleset.__dict__["_types"].of_value(value)


def _short(value) -> str:
    text = repr(value) if not isinstance(value, str) else value
    return text if len(text) <= 60 else text[:57] + "..."


def _yaml_symbols(rs) -> list[Symbol]:
    comps = rs.meta_places.get("components")
    out: list[Symbol] = []
    if comps is None:
        return out
    notes = set(rs.notes)
    for name, value in rs.constants.items():
        if comps.has("constants", name):
            out.append(Symbol(name, "constant", comps.of("constants", name), value_type(rs, value), _short(value)))
    for name, value in rs.variables.items():
        path = ("notes", name) if name in notes else ("variables", name)
        if not comps.has(*path):   # a scoped variable: scoped: {procedure: {name: value}}
            path = next((p for p in comps.paths() if len(p) == 3 and p[0] == "scoped" and p[2] == name), path)
        out.append(Symbol(name, "variable", comps.of(*path), value_type(rs, value), _short(value)))
    for name, value in rs.player_fields.items():
        out.append(Symbol(name, "player field", comps.of("player", name), value_type(rs, value),
                          _short(value), owner="players"))
    board = rs.meta_places.get("board")
    for kind, ids in rs.kinds.items():
        where = board.of("hexes") if kind == "hexes" and board is not None else comps.of("kinds", kind)
        out.append(Symbol(kind, "kind", where, f"list:entity:{kind}", f"{len(ids)} entities"))
        out += _fields(rs, kind, ids)
    for ent, (positions, path) in rs.places.items():
        if ent not in rs.entities:
            continue
        rec = rs.entities[ent]
        out.append(Symbol(ent, "entity", positions.of(*path), f"entity:{rec['kind']}",
                          str(rec.get("name", ent)), owner=rec["kind"]))
        alias = rec.get("alias")
        if isinstance(alias, str) and alias in rs.names.entities:
            out.append(Symbol(alias, "alias", positions.value_of(*path, "alias"), f"entity:{rec['kind']}",
                              f"alias of {ent}", owner=rec["kind"]))
    return out


def _fields(rs, kind: str, ids: list) -> list[Symbol]:
    """A kind's fields, each where it is declared: its kind's defaults (shown with the default
    value, as an entity that does not set it has it), else its first entity that has it."""
    defaults_at = ("fields",) if kind == "hexes" else ("kinds", kind, "fields")
    defaults = rs.meta_places.get("board" if kind == "hexes" else "components")
    first: dict = {}     # field -> (its first entity's value and place)
    default: dict = {}   # field -> the value of its first entity that does not set it
    for ent in ids:
        positions, path = rs.places[ent]
        for field, value in rs.entities[ent].items():
            if field in ("id", "kind"):
                continue
            first.setdefault(field, (value, positions.of(*path, field)))
            if not positions.has(*path, field):
                default.setdefault(field, value)
    out = []
    for field, (value, place) in first.items():
        if defaults.has(*defaults_at, field):
            shown = f"default {_short(default[field])}" if field in default else ""  # all set it
            out.append(Symbol(field, "field", defaults.of(*defaults_at, field),
                              value_type(rs, default.get(field, value)), shown, owner=kind))
        else:
            out.append(Symbol(field, "field", place, value_type(rs, value), _short(value), owner=kind))
    return out


_RULE_KINDS = {k.node: k.keyword for k in n.DEFINITIONS if k.named}


def _rules_symbols(rs) -> list[Symbol]:
    out: list[Symbol] = []
    events: set = set()
    for d in rs.definitions:
        kind = _RULE_KINDS.get(type(d))
        if kind == "const":
            value = rs.constants.get(d.name)
            out.append(Symbol(d.name, kind, d.pos, value_type(rs, value) if d.name in rs.constants else "any",
                              _short(value) if d.name in rs.constants else ""))
        elif kind in ("def", "procedure"):
            out.append(Symbol(d.name, kind, d.pos, "fn" if kind == "def" else "proc",
                              params=tuple(d.params)))
        elif kind == "action":
            out.append(Symbol(d.name, kind, d.pos, "action", params=tuple(x.var for x in d.domains)))
        elif kind is not None:
            out.append(Symbol(d.name, kind, d.pos, "bool" if kind == "end_condition" else "any"))
        elif isinstance(d, n.HandlerDef) and d.event not in events:
            events.add(d.event)
            out.append(Symbol(d.event, "event", d.pos, "event", params=tuple(d.params)))
        for node in n.walk(d):
            if isinstance(node, n.Option):
                out.append(Symbol(node.name, "option", node.pos, "option",
                                  params=tuple(x.var for x in node.domains), owner=getattr(d, "name", "")))
    return out
