"""Definitions that parse but cannot work as written: checked at load, before anything is
compiled, so that ``play`` stops with the same words ``lint`` says.

- RR113: a parameter name repeated in a def, procedure, action, option, handler or ``needs``
  line (the second one would hide the first; generated code cannot even be written);
- RR114 (warning): a ``def`` named like a builtin, which every call of that name then runs;
- RR115: constants of the rules that are computed from each other, named as a cycle.
"""
from __future__ import annotations

import re

from ..dsl import builtins
from ..dsl import nodes as n
from ..errors import Pos, Sink
from ..runtime.memo import of_object


def check_definitions(defs: list, sink: Sink, sources: dict | None = None) -> set:
    """Report RR113, RR114 and RR115 for the merged definitions; return the names of the
    constants caught in a cycle (the loader leaves them uncomputed). ``sources`` (file ->
    text) lets RR113 point at the repeated name itself."""
    for d in defs:
        for node in _binders(d):
            named = _parameters(node)
            if named is not None:
                _repeated(node, *named, sink, (sources or {}).get(node.pos.file))
        if isinstance(d, n.FuncDef) and d.name in builtins.ALL:
            sink.add("RR114", f"def '{d.name}' shadows the builtin {d.name}(): every call of "
                     f"'{d.name}' in the rules runs this def", d.pos, severity="warning",
                     hint=f"rename the def (the builtin: {builtins.ALL[d.name].doc})")
    return _constant_cycles([d for d in defs if isinstance(d, n.ConstDef)], sink)


_BINDERS: dict = {}   # id(definition) -> (the definition, kept so its id stays its own; its binders)


def _binders(d) -> tuple:
    """The definition and the options in it (what names several parameters at once), once per
    parsed definition: lint checks the same ones in a ruleset and in each of its variants."""
    return of_object(_BINDERS, d, _binders_of, 4096)


def _binders_of(d) -> tuple:
    return d, *(() if type(d) is n.ConstDef else (x for x in n.walk(d) if type(x) is n.Option))


def _parameters(node) -> tuple[str, list] | None:
    """(what the node is, the names it binds at once), for a node that binds several."""
    if isinstance(node, (n.FuncDef, n.ProcDef)):
        return f"{n.DEFINITION_KINDS[type(node)]} {node.name}", list(node.params)
    if isinstance(node, n.HandlerDef):
        return f"on {node.event}", list(node.params)
    if isinstance(node, n.Needs):
        return f"needs {node.kind} {node.name}", list(node.params)
    if isinstance(node, n.ActionDef):
        return f"action {node.name}", [x.var for x in node.domains] + [node.player]
    if isinstance(node, n.Option):
        return f"option {node.name}", [x.var for x in node.domains]
    return None


def _repeated(node, what: str, names: list, sink: Sink, text: str | None) -> None:
    seen: set = set()
    for name in names:
        if name in seen:
            sink.add("RR113", f"{what}: the parameter '{name}' is named twice", _second(node.pos, name, text),
                     hint="give each parameter its own name")
        seen.add(name)


def _second(pos: Pos, name: str, text: str | None) -> Pos:
    """Where ``name`` is written the second time on the definition's line, after its first
    bracket (the definition's own position when the line does not show it)."""
    lines = (text or "").split("\n")
    if not 1 <= pos.line <= len(lines):
        return pos
    line = lines[pos.line - 1]
    start = line.find("(", max(0, pos.column - 1))
    found = list(re.finditer(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", line[max(0, start):]))
    if start < 0 or len(found) < 2:
        return pos
    column = start + found[1].start() + 1
    return Pos(pos.file, pos.line, column, column + len(name))


def _constant_cycles(consts: list, sink: Sink) -> set:
    """Constants whose values need each other: each is reported with the whole cycle."""
    by_name = {d.name: d for d in consts}
    uses = {d.name: [x.name for x in n.walk(d.expr) if isinstance(x, n.Var) and x.name in by_name]
            for d in consts}
    cyclic: set = set()
    for start in by_name:
        path = _cycle(start, uses)
        if path and start not in cyclic:
            cyclic.update(path)
            shown = " -> ".join(path + [path[0]])
            for name in path:
                sink.add("RR115", f"constant '{name}' is computed from itself: {shown}",
                         by_name[name].pos, hint="compute one of them without the others")
    return cyclic


def _cycle(start: str, uses: dict) -> list | None:
    """The names on a path from ``start`` back to itself (depth first), or None."""
    stack: list = [(start, iter(uses[start]))]
    on_path = [start]
    seen = {start}
    while stack:
        name, rest = stack[-1]
        nxt = next(rest, None)
        if nxt is None:
            stack.pop()
            on_path.pop()
        elif nxt == start:
            return on_path
        elif nxt not in seen:
            seen.add(nxt)
            stack.append((nxt, iter(uses[nxt])))
            on_path.append(nxt)
    return None
