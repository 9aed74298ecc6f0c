"""`railrules doc`: a ruleset's rules as a Markdown reference, each with the rulebook passages it
cites, so that a reader can check the rules against the rulebook line by line."""
from __future__ import annotations

from railrules.interpreter.dsl.nodes import walk
from railrules.interpreter.dsl import nodes as n
from railrules.interpreter.paths import in_ruleset



def _title(d) -> str:
    if isinstance(d, n.GameDef):
        return "game"
    if isinstance(d, n.HandlerDef):
        return f"on {d.event}({', '.join(d.params)})" + (" when ..." if d.when else "")
    if isinstance(d, n.ActionDef):
        params = ", ".join(f"{x.var} in ..." for x in d.domains)
        return f"action {d.name}({params}) by {d.player}"
    if isinstance(d, (n.ProcDef, n.FuncDef)):
        return f"{d.name}({', '.join(d.params)})"
    if isinstance(d, n.ScoreDef):
        return f"{n.DEFINITION_KINDS[type(d)]} {d.player}"
    return d.name


def _options(d) -> list[str]:
    """The choices a definition offers, with the refusal reasons of their requires."""
    out = []
    for node in walk(d):
        if isinstance(node, n.Option):
            reasons = [s.reason.parts[0] for s in node.body if isinstance(s, n.Require)
                       and len(s.reason.parts) == 1]
            extra = f" (refused: {'; '.join(reasons)})" if reasons else ""
            out.append(f"option `{node.name}`{extra}")
    return out


def ruleset_doc(ruleset) -> str:
    lines = [f"# {ruleset.title}", ""]
    if ruleset.meta.get("rulebook"):
        lines += [f"Rulebook: {ruleset.meta['rulebook']}", ""]
    for part, text in (ruleset.meta.get("fidelity") or {}).items():
        lines.append(f"- fidelity of {part}: {text}")
    for heading in dict.fromkeys(k.heading for k in n.DEFINITIONS):
        defs = [d for d in ruleset.definitions if n.KIND_OF[type(d)].heading == heading]
        if not defs:
            continue
        lines += ["", f"## {heading}", ""]
        for d in defs:
            lines.append(f"### `{_title(d)}` — {in_ruleset(d.pos.file, d.pos.line)}")
            cites = [c.text for c in walk(d) if isinstance(c, n.Cite)]
            lines += [f"> {c}" for c in cites] or ["(no citation)"]
            lines += [f"- {o}" for o in _options(d)]
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


# ------------------------------------------------------------------ the verb: railrules doc
def add_arguments(parser) -> None:
    parser.description = ("Every definition of a ruleset with the rulebook passages it cites and the "
                          "options it offers: to check the rules against the rulebook.")
    parser.add_ruleset()


def run(args) -> int:
    from railrules.interpreter import load_ruleset
    print(ruleset_doc(load_ruleset(args.ruleset, args.variant)), end="")
    return 0
