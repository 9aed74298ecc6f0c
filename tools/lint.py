"""`railrules lint`: every problem in a ruleset, with file, line, column and code."""
from __future__ import annotations

from pathlib import Path

from interpreter import check_ruleset
from interpreter.data.ruleset import resolve_ruleset_path
from interpreter.dsl.parser import parse_rules
from interpreter.errors import Diagnostic, Pos, Sink
from interpreter.paths import shipped_rulesets


def _ruleset_root(path: str) -> Path | None:
    found = resolve_ruleset_path(path)
    if found:
        return found
    p = Path(path).resolve()
    for parent in [p, *p.parents]:
        if (parent / "ruleset.yaml").is_file():
            return parent
    return None


def lint_paths(paths: list[str], play: int = 0) -> list[Diagnostic]:
    """Lint rulesets (names, folders, or files inside them) and loose .rules files."""
    diags: list[Diagnostic] = []
    seen: set[Path] = set()
    for path in paths or shipped_rulesets():
        root = _ruleset_root(path)
        if root is None:
            diags += _lint_loose(path)
            continue
        if root in seen:
            continue
        seen.add(root)
        diags += lint_ruleset(str(root), play)
    return diags


def lint_ruleset(root: str, play: int = 0) -> list[Diagnostic]:
    ruleset, diags = check_ruleset(root)
    out = list(diags)
    if any(d.severity == "error" for d in diags):
        return out
    if play:
        from interpreter.checks.play_check import play_check
        out += play_check(ruleset, play)
    for variant in sorted(p.stem for p in (Path(root) / "variants").glob("*.yaml")):
        _, vd = check_ruleset(root, variant)
        out += [d for d in vd if d not in out]
    return out


def _lint_loose(path: str) -> list[Diagnostic]:
    p = Path(path)
    if not p.exists():
        return [Diagnostic("RR206", f"no ruleset or file '{path}'", Pos(path, 0, 0),
                           hint=f"shipped rulesets: {', '.join(shipped_rulesets())}")]
    if p.suffix != ".rules":
        return [Diagnostic("RR206", f"'{path}' is not inside a ruleset folder (no ruleset.yaml above it)",
                           Pos(path, 0, 0))]
    sink = Sink()
    data = p.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        return [Diagnostic("RR006", f"'{path}' is not UTF-8 text (byte {err.start})", Pos(path, line, 1))]
    parse_rules(text, path, sink)
    return sink.diagnostics
