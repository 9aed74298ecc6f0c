"""The rules of a ruleset as `railrules coverage` counts them, and RR209: a name in
ruleset.yaml's ``coverage: {unfired: {NAME: why}}`` must be one of them."""
from __future__ import annotations

from collections import Counter

from ..dsl import nodes as n
from ..dsl.nodes import walk


def trigger_name(event: str, index: int) -> str:
    """The ``index``-th (from 0) trigger of ``event``, as coverage names it: ``on EVENT #k``."""
    return f"on {event} #{index + 1}"


def unit_rule(key: str) -> tuple[str, str] | None:
    """(kind, name) of the rule a code unit key counts: ``proc:NAME`` a procedure, ``on:EVENT:I``
    a trigger; None for the others (actions are counted as the actions taken, ``game`` not)."""
    kind, _, rest = key.partition(":")
    if kind == "proc":
        return "procedure", rest
    if kind == "on":
        event, _, k = rest.rpartition(":")
        return "trigger", trigger_name(event, int(k))
    return None


def rules_of(ruleset) -> list[dict]:
    """Every rule of the ruleset: its kind, name (as the games count it) and where it is."""
    out, options = [], set()
    handlers: Counter = Counter()
    for d in ruleset.definitions:
        where = f"{d.pos.file}:{d.pos.line}"
        kind = n.KIND_OF[type(d)].rule
        if isinstance(d, n.HandlerDef):
            out.append({"kind": kind, "name": trigger_name(d.event, handlers[d.event]), "where": where})
            handlers[d.event] += 1
        elif kind is not None:
            out.append({"kind": kind, "name": d.name, "where": where})
    for d in ruleset.definitions:
        for node in walk(d):
            if isinstance(node, n.Option) and node.name not in options:
                options.add(node.name)
                out.append({"kind": "option", "name": node.name, "where": f"{node.pos.file}:{node.pos.line}"})
    return out


def lint_coverage(ruleset, sink) -> None:
    unfired = (ruleset.meta.get("coverage") or {}).get("unfired") or {}
    if not unfired:
        return
    names = {r["name"] for r in rules_of(ruleset)}
    for name in unfired:
        if name not in names:
            sink.add("RR209", f"coverage: unfired names '{name}', which is no rule of the ruleset",
                     ruleset.meta_places["ruleset"].of("coverage", "unfired", name),
                     "use a name as `railrules coverage` lists it (a trigger: on EVENT #k)", "warning")
