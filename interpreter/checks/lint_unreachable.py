"""Warn about definitions that nothing reachable from ``game:`` uses (code RR108)."""
from __future__ import annotations

from ..dsl import nodes as n
from ..paths import rulesets_dir
from ..dsl.nodes import walk


def _in(file: str, folder: str) -> bool:
    """A definition of the shared library: a game need not use all of it."""
    from pathlib import Path
    return Path(file).resolve().is_relative_to(Path(folder).resolve())


def _uses(definition) -> set:
    """(kind, name) pairs a definition refers to."""
    found = set()
    for node in walk(definition):
        if isinstance(node, (n.CallStmt, n.LetCall)):
            found.add(("name", node.proc))
        elif isinstance(node, n.UseOption):
            found.add(("name", node.action))
        elif isinstance(node, n.Call):
            found.add(("name", node.name))
        elif isinstance(node, n.Var):
            found.add(("name", node.name))
        elif isinstance(node, n.Emit):
            found.add(("event", node.event))
    return found


RULES = (n.GameDef, n.EndDef, n.ScoreDef, n.TiebreakDef)   # what decides a game
ROOTS = RULES + (n.EstimateDef, n.MetricDef)                  # and what bots and the lab read


def reached(defs: list, roots: tuple = ROOTS) -> tuple[set, set]:
    """The names and events that definitions of the kinds ``roots`` (exactly: an estimate is no
    score) use, directly or through what they use (``railrules test --mutate`` asks from the
    :data:`RULES` only)."""
    named, handlers = _index(defs)
    # the engine emits game_end: its handlers decide the game as the score does
    todo: list = [d for d in defs if type(d) in roots] + handlers.get(n.GAME_END, [])
    seen_names, seen_events = set(), {n.GAME_END}
    while todo:
        for kind, name in _uses(todo.pop()):
            if kind == "name" and name in named and name not in seen_names:
                seen_names.add(name)
                todo.append(named[name])
            elif kind == "event" and name not in seen_events:
                seen_events.add(name)
                todo.extend(handlers.get(name, []))
    return seen_names, seen_events


def _index(defs: list) -> tuple[dict, dict]:
    """The named definitions by name, and the handlers by event."""
    named = {d.name: d for d in defs if isinstance(d, (n.ProcDef, n.FuncDef, n.ActionDef, n.ConstDef))}
    handlers: dict = {}
    for d in defs:
        if isinstance(d, n.HandlerDef):
            handlers.setdefault(d.event, []).append(d)
    return named, handlers


def lint_unreachable(ruleset, sink) -> None:
    if any(d.code == "RR101" for d in sink.errors):
        return  # a definition that did not parse uses nothing: what it uses would look unreached
    defs = ruleset.definitions
    named, handlers = _index(defs)
    seen_names, seen_events = reached(defs)
    # constants read by scenarios or conserve expressions are still worth keeping: only rules count
    library = str(rulesets_dir() / "library")
    shared = {f for f in {d.pos.file for d in named.values()} if _in(f, library)}
    for name, d in named.items():
        if name not in seen_names and not name.startswith("_") and d.pos.file not in shared:
            what = n.KIND_OF[type(d)].noun
            sink.add("RR108", f"{what} '{name}' is never reached from the game", d.pos,
                     severity="warning", hint="remove it, or call/use it where the rules need it")
    for event, hs in handlers.items():
        if event not in seen_events:
            for h in hs:
                sink.add("RR108", f"nothing reachable emits '{event}', so this handler never runs",
                         h.pos, severity="warning")
