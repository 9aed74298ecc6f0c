"""Overlays: a variant, or a ruleset folder that extends another, laid over its base.

A ruleset is a stack of layers: the base ruleset at the bottom, then each ruleset folder that
extends the one below, then the variant being played. Each layer may change, add or extend
what the layers below it declare; nothing is copied, so a fix in the base reaches every
overlay. This module lays the layers over each other, in two parts:

- :func:`lay_data`: a layer's YAML (``constants``, ``variables``, ``entities`` change what
  exists; ``add:`` adds fields, kinds, entities, hexes, variables, constants, secret fields,
  render entries...) over the base's data, in place;
- :func:`lay_rules`: the layers' definitions merged by name (a later layer replaces or adds),
  then the extensions applied: an option added to a named ``choose``, a clause joined to an
  end condition, rules run before or after a procedure.

The rules for order and conflicts are LANGUAGE.md's section 11.
"""
from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass

from ..dsl import nodes as n
from ..errors import Sink

# ---------------------------------------------------------------------------- the rules


@dataclass
class Layer:
    """One layer's definitions: ``label`` names it in messages (``the base``, ``variant x``,
    ``overlay y``); ``home`` is the index of the highest layer it was written for (its base:
    it may replace what layers 0..home define; what a layer between home and it added is
    another overlay's, RR211)."""
    label: str
    defs: list
    home: int


def def_key(d):
    """What a definition is known by (two with the same key are the same definition), or None
    for those that have no name (``on EVENT`` handlers: an overlay's are added after the base's)."""
    if isinstance(d, (n.ConstDef, n.FuncDef, n.ProcDef, n.ActionDef)):
        return ("name", d.name)
    if isinstance(d, (n.EndDef, n.MetricDef)):
        return (n.DEFINITION_KINDS[type(d)], d.name)
    if isinstance(d, n.ScoreDef):  # score, tiebreak or estimate
        kind = n.DEFINITION_KINDS[type(d)]
        return (kind, kind)
    if isinstance(d, n.GameDef):
        return ("game", "game")
    return None


def lay_rules(layers: list[Layer], sink: Sink) -> list:
    """The definitions of the layers laid over each other: a named definition of a layer
    replaces the one of that name below it, or is added; then every layer's extensions, in
    layer order. Reports RR103 (defined twice in one layer), RR211 (two overlays add the same
    name, or an option a choose already offers) and RR212 (an extension whose target is gone)."""
    defs: list = []
    owner: dict = {}        # key -> (the layer that added it, the definition now in force)
    extensions: list = []
    for i, layer in enumerate(layers):
        here: dict = {}
        replaced: set = set()
        added: list = []
        for d in layer.defs:
            if isinstance(d, n.OVERLAY_DEFINITIONS):
                extensions.append(d)
                continue
            key = def_key(d)
            if key is None:
                added.append(d)
                continue
            if key in here:
                sink.add("RR103", f"'{key[1]}' is defined twice (first at {here[key].pos})", d.pos)
                here[key] = d
                added.append(d)
                continue
            here[key] = d
            if key in owner and i > 0 and owner[key][0] > layer.home:
                first = owner[key][1]
                sink.add("RR211", f"two overlays add '{key[1]}': {layer.label} and "
                         f"{layers[owner[key][0]].label} (at {first.pos}); {layers[0].label} does not "
                         "define it", d.pos, hint="rename one of them, or keep it in one overlay")
                continue
            if key in owner:
                replaced.add(key)
            owner[key] = (owner[key][0] if key in owner else i, d)
            added.append(d)
        defs = [d for d in defs if def_key(d) not in replaced] + added
    return _extended(defs, extensions, layers[0].label, sink)


def _extended(defs: list, extensions: list, base: str, sink: Sink) -> list:
    """``defs`` with the extensions applied: options first (into the bodies as written), then
    end clauses, then the procedures with rules before or after them wrapped."""
    for x in extensions:
        if isinstance(x, n.AddedOption):
            defs = _add_option(defs, x, base, sink)
        elif isinstance(x, n.EndClause):
            defs = _add_clause(defs, x, base, sink)
    hooks = [x for x in extensions if isinstance(x, n.Hook)]
    return _hooked(defs, hooks, base, sink) if hooks else defs


def _missing(what: str, name: str, names: list, x, base: str, sink: Sink) -> None:
    close = difflib.get_close_matches(name, names, n=1)
    sink.add("RR212", f"{what}: {base} has no {name!r} (renamed or removed?)", x.pos,
             hint=f"did you mean '{close[0]}'?" if close else "name a definition of the base")


def _add_option(defs: list, x: n.AddedOption, base: str, sink: Sink) -> list:
    """The option laid into the one ``choose`` of ``x.target`` (a procedure, an action or
    ``game``) that offers ``x.anchor``, before or after it."""
    where = f"option {x.option.name} {x.side} {x.anchor} in {x.target}"
    targets: dict[str, n.ProcDef | n.ActionDef | n.GameDef] = {
        d.name: d for d in defs if isinstance(d, (n.ProcDef, n.ActionDef))}
    targets.update({"game": d for d in defs if isinstance(d, n.GameDef)})
    d = targets.get(x.target)
    if d is None:
        _missing(where, x.target, list(targets), x, base, sink)
        return defs
    chooses = [c for c in n.walk(d.body) if isinstance(c, n.Choose)
               and any(_option_name(o) == x.anchor for o in c.options)]
    if len(chooses) != 1:
        offered = sorted({_option_name(o) for c in n.walk(d.body) if isinstance(c, n.Choose) for o in c.options})
        if not chooses:
            close = difflib.get_close_matches(x.anchor, offered, n=1)
            sink.add("RR212", f"{where}: no choose of {x.target} offers {x.anchor!r} (renamed or removed?)",
                     x.pos, hint=f"did you mean '{close[0]}'?" if close else
                     f"its chooses offer: {', '.join(offered) or 'nothing'}")
        else:
            lines = ", ".join(str(c.pos.line) for c in chooses)
            sink.add("RR212", f"{where}: {len(chooses)} chooses of {x.target} offer {x.anchor!r} "
                     f"(lines {lines})", x.pos, hint="name an option only one of them offers")
        return defs
    choose = chooses[0]
    clash = next((o for o in choose.options if _option_name(o) == x.option.name), None)
    if clash is not None:
        sink.add("RR211", f"{where}: the choose of {x.target} already offers {x.option.name!r} "
                 f"(at {clash.pos})", x.pos, hint="give the added option another name")
        return defs
    at = [_option_name(o) for o in choose.options].index(x.anchor) + (x.side == "after")
    wider = dataclasses.replace(choose, options=[*choose.options[:at], x.option, *choose.options[at:]])
    return [_swapped(e, choose, wider) if e is d else e for e in defs]


def _option_name(o) -> str:
    return o.name if isinstance(o, n.Option) else o.action


def _swapped(x, old, new):
    """``x`` with the node ``old`` replaced by ``new``: the nodes on the way to it copied,
    every other one shared (parsed definitions are shared and never change)."""
    if x is old:
        return new
    if isinstance(x, n.Node):
        changed = {k: w for k, v in vars(x).items() if (w := _swapped(v, old, new)) is not v}
        return dataclasses.replace(x, **changed) if changed else x
    if isinstance(x, (list, tuple)):
        items = [_swapped(v, old, new) for v in x]
        return type(x)(items) if any(a is not b for a, b in zip(items, x)) else x
    return x


def _add_clause(defs: list, x: n.EndClause, base: str, sink: Sink) -> list:
    ends = {d.name: d for d in defs if isinstance(d, n.EndDef)}
    d = ends.get(x.name)
    if d is None:
        _missing(f"end_condition {x.name} {x.join}", x.name, list(ends), x, base, sink)
        return defs
    joined = dataclasses.replace(d, expr=n.BoolOp(x.pos, x.join, [d.expr, x.expr]))
    return [joined if e is d else e for e in defs]


def _hooked(defs: list, hooks: list, base: str, sink: Sink) -> list:
    """Each procedure with rules before or after it becomes three: the hooks, each a procedure
    of its own (``before NAME``, ``after NAME``, ``#2``... when several), the procedure as
    written (``NAME (base)``), and under its name a procedure that calls them in order and
    returns what the procedure as written returned."""
    procs = {d.name: d for d in defs if isinstance(d, n.ProcDef)}
    around: dict = {}
    others = {d.name: d for d in defs if isinstance(d, (n.FuncDef, n.ActionDef, n.ConstDef))}
    for h in hooks:
        d = procs.get(h.target)
        if d is None and h.target in others:
            what = n.KIND_OF[type(others[h.target])].noun
            sink.add("RR212", f"{h.side} {h.target}: '{h.target}' is a {what} (at {others[h.target].pos}), "
                     "not a procedure", h.pos, hint="only a procedure has rules run before or after it")
        elif d is None:
            _missing(f"{h.side} {h.target}", h.target, list(procs), h, base, sink)
        elif len(h.params) != len(d.params):
            sink.add("RR104", f"{h.side} {h.target}({', '.join(h.params)}): procedure {h.target} "
                     f"takes {len(d.params)} parameter(s) ({', '.join(d.params)}), at {d.pos}", h.pos,
                     hint=f"write {h.side} {h.target}({', '.join(d.params)})")
        else:
            around.setdefault(h.target, []).append(h)
    out = []
    for d in defs:
        if not isinstance(d, n.ProcDef) or d.name not in around:
            out.append(d)
            continue
        made: list = []
        calls: dict[str, list[str]] = {"before": [], "after": []}
        for h in around[d.name]:
            count = len(calls[h.side]) + 1
            name = f"{h.side} {d.name}" + (f" #{count}" if count > 1 else "")
            made.append(n.ProcDef(h.pos, name, list(h.params), h.body))
            calls[h.side].append(name)
        written = dataclasses.replace(d, name=f"{d.name} (base)")
        args = [n.Var(d.pos, p) for p in d.params]
        returns = any(isinstance(s, n.Return) and s.expr is not None for s in n.walk(d.body))
        cite = next((s for s in n.walk(d.body) if isinstance(s, n.Cite)), None)
        body: list[n.Node] = [cite] if cite else []
        body += [n.CallStmt(d.pos, c, list(args)) for c in calls["before"]]
        body.append(n.LetCall(d.pos, "__result", written.name, list(args)) if returns
                    else n.CallStmt(d.pos, written.name, list(args)))
        body += [n.CallStmt(d.pos, c, list(args)) for c in calls["after"]]
        if returns:
            body.append(n.Return(d.pos, n.Var(d.pos, "__result")))
        out += [dataclasses.replace(d, body=body), written, *made]
    return out


# ---------------------------------------------------------------------------- the data
ADDS = ("constants", "variables", "player", "notes", "fields", "kinds", "entities", "hexes",
        "secret", "show", "costs", "render")


def lay_data(comps: dict, board: dict, meta: dict, over: dict, where, label: str, sink: Sink) -> None:
    """Lay a layer's YAML over the base's data, in place: ``constants``, ``variables`` and
    ``entities`` change what exists (RR204 otherwise, so a misspelt name is caught); ``add:``
    adds what does not (RR211 when it exists)."""
    _change(comps, board, over, where, "the variant" if label.startswith("variant ") else label, sink)
    added = over.get("add") or {}
    for section in ("constants", "variables", "player", "notes"):
        home = comps.setdefault(section, {})
        for name, value in (added.get(section) or {}).items():
            if name in home or (section == "notes" and name in comps.get("variables", {})):
                _exists(f"{section[:-1] if section.endswith('s') else section} {name!r}", label,
                        where.of("add", section, name), sink)
            else:
                home[name] = value
    kinds = comps.setdefault("kinds", {})
    for kind, fields in (added.get("fields") or {}).items():
        spec = board if kind == "hexes" else kinds.get(kind)
        if spec is None:
            _no_kind(kind, kinds, where.of("add", "fields", kind), sink)
            continue
        records = board.get("hexes", {}) if kind == "hexes" else spec["entities"]
        defaults = spec.setdefault("fields", {})
        for name, value in fields.items():
            if name in defaults or any(name in r for r in records.values()):
                _exists(f"field {kind}.{name}", label, where.of("add", "fields", kind, name), sink)
            else:
                defaults[name] = value
    for kind, spec in (added.get("kinds") or {}).items():
        if kind in kinds or kind == "hexes":
            _exists(f"kind {kind!r}", label, where.of("add", "kinds", kind), sink)
        else:
            kinds[kind] = spec
    taken = {e for spec in kinds.values() for e in spec["entities"]} | set(board.get("hexes", {}))
    for kind, records in (added.get("entities") or {}).items():
        if kind not in kinds:
            _no_kind(kind, kinds, where.of("add", "entities", kind), sink)
            continue
        _add_records(kinds[kind]["entities"], records, taken, ("add", "entities", kind), where, label, sink)
    _add_records(board.setdefault("hexes", {}), added.get("hexes") or {}, taken, ("add", "hexes"),
                 where, label, sink)
    for section in ("secret", "show"):
        home = meta.setdefault(section, {})
        for kind, fields in (added.get(section) or {}).items():
            listed = home.setdefault(kind, [])
            for i, name in enumerate(fields):
                if name in listed:
                    _exists(f"{section} field {kind}.{name}", label, where.of("add", section, kind, i), sink)
                else:
                    listed.append(name)
    _add_map(meta.setdefault("costs", {}), added.get("costs") or {}, ("add", "costs"), where, label, sink)
    render = meta.setdefault("render", {})
    for key, value in (added.get("render") or {}).items():
        if isinstance(value, dict) and isinstance(render.get(key, {}), dict):
            _add_map(render.setdefault(key, {}), value, ("add", "render", key), where, label, sink)
        elif isinstance(value, list) and isinstance(render.get(key, []), list):
            render[key] = list(render.get(key, [])) + value
        elif key in render:
            _exists(f"render entry {key!r}", label, where.of("add", "render", key), sink)
        else:
            render[key] = value


def _change(comps, board, over, where, who: str, sink) -> None:
    """A layer's changes: only constants, variables and fields that exist."""
    for section in ("constants", "variables"):
        for key, value in (over.get(section) or {}).items():
            if key not in comps.get(section, {}):
                sink.add("RR204", f"{who} sets {section[:-1]} '{key}', which the ruleset does "
                         "not have", where.of(section, key),
                         hint=f"to add one, list it under add: {{{section}: ...}}")
            else:
                comps[section][key] = value
    records = {e: r for k in (comps.get("kinds") or {}).values() for e, r in k["entities"].items()}
    records.update(board.get("hexes", {}))
    for ent, changes in (over.get("entities") or {}).items():
        if ent not in records:
            sink.add("RR204", f"{who} changes entity '{ent}', which does not exist",
                     where.of("entities", ent), hint="to add one, list it under add: {entities: {KIND: ...}}")
            continue
        defaults = _kind_defaults(comps, board, ent)
        for key in changes:
            if key not in records[ent] and key not in defaults:
                sink.add("RR204", f"{who} sets {ent}.{key}, a field {ent} does not have",
                         where.of("entities", ent, key),
                         hint="to add a field, list it under add: {fields: {KIND: ...}}")
        records[ent].update(changes)


def _kind_defaults(comps, board, ent) -> dict:
    """The default fields of the kind an entity belongs to."""
    if ent in board.get("hexes", {}):
        return board.get("fields", {})
    for spec in (comps.get("kinds") or {}).values():
        if ent in spec["entities"]:
            return spec.get("fields", {})
    return {}


def _add_records(home: dict, records: dict, taken: set, path: tuple, where, label, sink) -> None:
    for ent, record in records.items():
        if ent in taken:
            _exists(f"entity {ent!r}", label, where.of(*path, ent), sink)
        else:
            taken.add(ent)
            home[ent] = record


def _add_map(home: dict, values: dict, path: tuple, where, label, sink) -> None:
    for key, value in values.items():
        if key in home:
            _exists(f"{path[-1]} entry {key!r}", label, where.of(*path, key), sink)
        else:
            home[key] = value


def _exists(what: str, label: str, pos, sink: Sink) -> None:
    sink.add("RR211", f"{label} adds {what}, which its base already has", pos,
             hint="change it outside add: (constants:, variables:, entities:), or give it another name")


def _no_kind(kind: str, kinds: dict, pos, sink: Sink) -> None:
    close = difflib.get_close_matches(kind, [*kinds, "hexes"], n=1)
    sink.add("RR204", f"the overlay adds to kind '{kind}', which the ruleset does not have", pos,
             hint=f"did you mean '{close[0]}'?" if close else "add the kind under add: {kinds: ...}")
