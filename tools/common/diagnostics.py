"""Rendering diagnostics: short (one line), long (with the source line and a caret), JSON, SARIF."""
from __future__ import annotations

import json
from pathlib import Path

from railrules.interpreter.errors import CODES, Diagnostic


def short(d: Diagnostic) -> str:
    return f"{d.where}{d.severity} {d.code} {d.message}"


def long(d: Diagnostic) -> str:
    lines = [short(d)]
    source = _source_line(d.pos.file, d.pos.line)
    if source is not None:
        text, col = _window(source.rstrip(), max(0, d.pos.column - 1))
        width = d.pos.end_column - d.pos.column if d.pos.end_column > d.pos.column else 1
        lines.append(f"    {text}")
        lines.append("    " + " " * col + "^" * max(1, min(width, len(text) - col)))
    if d.hint:
        lines.append(f"    help: {d.hint}")
    return "\n".join(lines)


def _window(text: str, col: int, width: int = 100) -> tuple[str, int]:
    """Cut a long source line down to ``width`` characters around the column."""
    if len(text) <= width:
        return text, col
    start = max(0, min(col - width // 2, len(text) - width))
    cut = text[start:start + width]
    prefix = "..." if start else ""
    suffix = "..." if start + width < len(text) else ""
    return prefix + cut + suffix, col - start + len(prefix)


def _source_line(file: str, line: int) -> str | None:
    if line < 1:
        return None
    try:
        with open(file, encoding="utf-8") as fh:
            for i, text in enumerate(fh, 1):
                if i == line:
                    return text.expandtabs(4)
    except (OSError, UnicodeDecodeError):
        return None
    return None


def as_json(diags: list[Diagnostic]) -> str:
    return json.dumps([d.to_dict() for d in diags], indent=2)


def as_sarif(diags: list[Diagnostic]) -> str:
    """SARIF 2.1.0, for code-scanning services."""
    rules = [{"id": code, "name": name, "shortDescription": {"text": text}}
             for code, (name, text, _, _) in sorted(CODES.items())]
    level = {"error": "error", "warning": "warning"}
    results = [{
        "ruleId": d.code, "level": level.get(d.severity, "note"),
        "message": {"text": d.message + (f" (help: {d.hint})" if d.hint else "")},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": Path(d.pos.file).as_posix()},
            "region": {"startLine": max(1, d.pos.line), "startColumn": max(1, d.pos.column),
                       **({"endColumn": d.pos.end_column} if d.pos.end_column > d.pos.column else {})}}}],
    } for d in diags]
    return json.dumps({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "railrules", "rules": rules}}, "results": results}],
    }, indent=2)


def render(diags: list[Diagnostic], fmt: str) -> str:
    if fmt == "json":
        return as_json(diags)
    if fmt == "sarif":
        return as_sarif(diags)
    return "\n".join(long(d) for d in diags)
