"""Every hint that names a command-line flag names one the verbs showing it have.

A hint is the text given as ``hint=`` (or assigned to ``hint``) in interpreter/ and tools/. The
interpreter is also called from Python and from the browser's table, where no flag exists: its
hints name none. A hint in tools/ is shown by the verbs whose modules import its file (through
tools/, at any depth), or, written in a verb's ``run`` or naming the verb (``railrules lint
...``), by that verb alone; each flag it names must be an option of each of those verbs'
parsers."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import railrules
from railrules.tools.cli import MODULES, build_parser, verb_parsers

ROOT = Path(railrules.__file__).parent
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]*[a-z]")


def _texts(node) -> list[str]:
    """The literal text of an expression: its strings, and the literal parts of f-strings."""
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _hints(tree) -> list[tuple[int, str, str | None]]:
    """(line, text, the top-level function it is written in) of every hint of a module."""
    found = []
    for top in tree.body:
        where = top.name if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        for node in ast.walk(top):
            if isinstance(node, ast.keyword) and node.arg == "hint":
                found += [(node.value.lineno, t, where) for t in _texts(node.value)]
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "hint"
                                                      for t in node.targets):
                found += [(node.lineno, t, where) for t in _texts(node.value)]
    return found


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree, module: str, is_package: bool) -> set[str]:
    """The modules under tools/ a module imports, anywhere in it."""
    names = set()
    package = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.removeprefix("railrules.") for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
            base = base.removeprefix("railrules.")
            names |= {base} | {f"{base}.{a.name}" for a in node.names}
    return {n for n in names if n.startswith("tools.")}


def _sources() -> dict[str, tuple[Path, ast.Module]]:
    return {_module(p): (p, ast.parse(p.read_text(encoding="utf-8")))
            for folder in ("interpreter", "tools") for p in sorted((ROOT / folder).rglob("*.py"))}


def _shown_by(sources) -> dict[str, set[str]]:
    """module under tools/ -> the verbs whose modules import it, at any depth (or are it)."""
    edges = {m: _imports(tree, m, p.name == "__init__.py") & sources.keys()
             for m, (p, tree) in sources.items() if m.startswith("tools.")}
    shown: dict[str, set[str]] = {}
    for verb, name in MODULES.items():
        todo, seen = [f"tools.{name}"], set()
        while todo:
            m = todo.pop()
            if m not in seen:
                seen.add(m)
                todo += edges.get(m, ())
        for m in seen:
            shown.setdefault(m, set()).add(verb)
    return shown


def _flags(parser) -> set[str]:
    return {s for action in parser._actions for s in action.option_strings}


def test_every_hint_names_only_flags_the_verbs_showing_it_have():
    sources = _sources()
    shown = _shown_by(sources)
    flags = {verb: _flags(p) for verb, p in verb_parsers(build_parser()).items()}
    verb_of = {f"tools.{name}": verb for verb, name in MODULES.items()}
    wrong, named = [], 0
    for module, (path, tree) in sources.items():
        for line, text, function in _hints(tree):
            for flag in FLAG.findall(text):
                named += 1
                if module.startswith("interpreter"):
                    wrong.append(f"{path.relative_to(ROOT)}:{line}: {flag} in a hint of the interpreter")
                    continue
                named_verb = re.search(r"railrules (\w+)", text)
                verbs = ({named_verb.group(1)} if named_verb and named_verb.group(1) in flags
                         else {verb_of[module]} if function == "run" and module in verb_of
                         else shown.get(module, set()))
                wrong += [f"{path.relative_to(ROOT)}:{line}: {flag} (railrules {v} has no such option)"
                          for v in sorted(verbs) if flag not in flags[v]]
    assert named, "no hint names a flag: the walk finds none"
    assert wrong == [], "\n".join(wrong)


def test_the_walk_finds_a_flag_a_verb_lacks(tmp_path):
    """The walk reads hints as the test above does: a hint naming a flag is found."""
    tree = ast.parse('def run(args):\n    raise E(hint="try --no-such-flag")\n')
    assert [FLAG.findall(t) for _, t, _ in _hints(tree)] == [["--no-such-flag"]]
