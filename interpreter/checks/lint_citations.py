"""Warn about rules that do not cite the rulebook (code RR109): every rule says where it comes from."""
from __future__ import annotations

from ..dsl import nodes as n
from ..dsl.nodes import walk


def lint_citations(ruleset, sink) -> None:
    for d in ruleset.definitions:
        if isinstance(d, (n.ProcDef, n.ActionDef, n.HandlerDef, n.GameDef)):
            if not any(isinstance(x, n.Cite) for x in walk(d.body)):
                name = getattr(d, "name", None) or getattr(d, "event", None) or "game"
                sink.add("RR109", f"'{name}' cites no rulebook passage", d.pos, severity="warning",
                         hint='add a line: cite "the rulebook\'s words this implements"')
