"""A library file's contract with the game that uses it (``needs def NAME(a, b)``).

A file of the shared library (``library/...``) declares with ``needs`` every definition it
calls but does not define: the hooks the game gives (``build_price``) or another library file
does (``english_auction``). Two checks, each reported where the author must act:

- RR210, in the game's file: a ``needs`` that the rules do not meet — at the ruleset.yaml line
  that names the library file when nothing has the name, at the game's definition when it is of
  the other kind (a procedure for a def) or takes another number of parameters;
- RR111, in the library file (or any file with a ``needs`` line): a call of a name the file
  neither defines nor ``needs``.

The compiler's "undefined name" for a hook that is missing is left out: RR210 says it in the
game's terms. An event a library file emits is a hook the game may take or leave (the auction
says whose bid stands; a game whose bots do not care has no handler), so the compiler's warning
that no handler handles it (RR102) is left out there too.
"""
from __future__ import annotations

from ..dsl import builtins
from ..dsl import nodes as n
from ..errors import Diagnostic, Sink
from ..dsl.nodes import walk
from ..dsl.resolver import assigned

_KIND = {"def": n.FuncDef, "procedure": n.ProcDef}


def check_contracts(files: list, defs: list, sink: Sink) -> None:
    """``files``: (name in ruleset.yaml, its position there, shown path, parsed module) of
    every rules file; ``defs``: the definitions of the ruleset, as merged."""
    defined = {(type(d), d.name): d for d in defs if isinstance(d, (n.FuncDef, n.ProcDef))}
    by_name = {d.name: d for d in defs if isinstance(d, (n.FuncDef, n.ProcDef))}
    missing: dict = {}   # shown file -> names it needs that the rules do not give as it needs them
    hooks: set = set()   # where a library file emits an event
    for rel, entry, shown, module in files:
        if rel.startswith("library/"):
            hooks |= {x.pos for x in walk(module) if isinstance(x, n.Emit)}
        for need in module.needs:
            _check_need(rel, entry, shown, need, defined, by_name, missing, sink)
        if rel.startswith("library/") or module.needs:   # a file with a contract states all of it
            _check_calls(module, sink)
    if missing or hooks:   # "undefined" or "wrong arity" in the library: RR210 says it where it is fixed
        sink.diagnostics[:] = [d for d in sink.diagnostics
                               if not _about(d, missing) and not _unhandled_hook(d, hooks)]


def _check_need(rel, entry, shown, need: n.Needs, defined, by_name, missing, sink: Sink) -> None:
    wanted = f"{need.kind} {need.name}({', '.join(need.params)})"
    d = defined.get((_KIND[need.kind], need.name))
    if d is None:
        other = by_name.get(need.name)
        missing.setdefault(shown, set()).add(need.name)
        if other is not None:
            sink.add("RR210", f"{rel} needs {wanted}, but this is a "
                     f"{'procedure' if isinstance(other, n.ProcDef) else 'def'}", other.pos,
                     hint=f"make it a {need.kind} (see {need.pos})")
        else:
            sink.add("RR210", f"{rel} needs {wanted}, which the rules do not define", entry,
                     hint=f"define {wanted} in the game's rules (see {need.pos})")
    elif len(d.params) != len(need.params):
        missing.setdefault(shown, set()).add(need.name)
        sink.add("RR210", f"{rel} needs {wanted} with {len(need.params)} parameter(s); this one takes "
                 f"{len(d.params)}", d.pos, hint=f"take the parameters {', '.join(need.params) or 'none'}")


def _check_calls(module: n.Module, sink: Sink) -> None:
    own = {d.name for d in module.definitions if isinstance(d, (n.FuncDef, n.ProcDef, n.ActionDef))}
    needed = {need.name for need in module.needs}
    for d in module.definitions:
        local = _locals(d)
        for node in walk(d):
            if isinstance(node, n.Call):
                name, kind = node.name, "def"
                if name in builtins.ALL:
                    continue
            elif isinstance(node, (n.CallStmt, n.LetCall)):
                name, kind = node.proc, "procedure"
            else:
                continue
            if name not in own and name not in needed and name not in local:
                sink.add("RR111", f"this library file calls '{name}', which it neither defines nor "
                         "declares", node.pos, hint=f"add a line `needs {kind} {name}(...)` at its top")
                needed.add(name)   # once per name


def _locals(d) -> set:
    """The names a definition binds itself: a call of one runs the function or procedure it holds."""
    params = set(getattr(d, "params", None) or [])
    if isinstance(d, n.ActionDef):
        params = {d.player} | {x.var for x in d.domains}
    names = params | assigned(getattr(d, "body", None) or [])
    return names | {x.var for x in walk(d) if isinstance(x, (n.Lambda, n.Comprehension, n.Exists, n.LetIn))}


def _unhandled_hook(d: Diagnostic, hooks: set) -> bool:
    """The compiler's warning that no handler takes an event a library file emits."""
    return d.code == "RR102" and d.severity == "warning" and d.pos in hooks


def _about(d: Diagnostic, missing: dict) -> bool:
    """A compiler diagnostic in a library file about a hook the rules do not give as needed."""
    names = missing.get(d.pos.file) or set()
    return bool(names) and d.code in ("RR102", "RR104", "RR105", "RR106") and \
        any(f"'{x}'" in d.message for x in names)
