"""The small wrong edits `railrules test --mutate` plants in a ruleset: where they go and what they are.

A mutant is the ruleset with one edit of one of these kinds, in its own rules files (the shared
library is left alone: it is every ruleset's) and in the numbers of its components.yaml:

==================  ========================================================================
kind                the edit
==================  ========================================================================
comparison          ``>=`` ↔ ``>``, ``<=`` ↔ ``<``, ``==`` ↔ ``!=``
number              a whole number ± 1 (never below 0)
and/or              ``and`` ↔ ``or``
require dropped     a ``require`` statement (its ``else`` text too) left out
condition negated   ``if C:`` → ``if not (C):`` (``elif`` too)
==================  ========================================================================

Comments, ``cite`` lines and texts in quotes are never edited. A mutant keeps every line where it
was (a dropped statement leaves blank lines), so its file:line is the original's.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from railrules.interpreter.dsl.nodes import DEFINITIONS

__all__ = ["Mutant", "mutants", "yaml_name"]


@dataclass(frozen=True)
class Mutant:
    """One edit of one file: ``text`` is the whole file as the mutant has it."""

    path: Path          # the file, resolved
    shown: str          # the file as diagnostics show it (relative to the ruleset's folder)
    line: int
    kind: str
    before: str
    after: str
    definition: str     # the definition the edit is in ("def build_price", "components.companies.PRR.cash")
    rule: str           # the original line, stripped: the rule in words
    text: str
    counted: bool = True    # of a rule (the estimate, metrics and what only they use are not)

    def describe(self) -> str:
        return f"{self.shown}:{self.line}: {self.kind} {self.before!r} -> {self.after!r} in {self.definition}"


# ------------------------------------------------------------------ rules files
_KEYWORDS = "|".join(sorted({k.keyword for k in DEFINITIONS}, key=len, reverse=True))
_DEFINITION = re.compile(rf"^(?:derived\s+)?({_KEYWORDS})\b[ \t]*([A-Za-z_]\w*)?")
_COMPARISON = re.compile(r"(?<![-=<>!])(>=|<=|==|!=|>|<)(?![=>])")
_FLIP = {">=": ">", ">": ">=", "<=": "<", "<": "<=", "==": "!=", "!=": "=="}
_NUMBER = re.compile(r"(?<![\w.])\d+(?![\w.])")
_LOGIC = re.compile(r"\b(and|or)\b")
_CONDITION = re.compile(r"^(\s*)(if|elif)\s+(.+?):\s*$")


def _code_spans(line: str) -> list[tuple[int, int]]:
    """The parts of a line that are code: outside texts in quotes, before a comment."""
    spans, start, i, quote = [], 0, 0, ""
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote, start = "", i + 1
        elif ch in "\"'":
            spans.append((start, i))
            quote = ch
        elif ch == "#":
            spans.append((start, i))
            return [s for s in spans if s[0] < s[1]]
        i += 1
    if not quote:
        spans.append((start, len(line)))
    return [s for s in spans if s[0] < s[1]]


def _in_spans(spans, start: int, end: int) -> bool:
    return any(a <= start and end <= b for a, b in spans)


def _rules_mutants(path: Path, shown: str, text: str) -> list[Mutant]:
    lines = text.split("\n")
    found: list[Mutant] = []
    definition = "?"

    def add(i: int, kind: str, before: str, after: str, new_lines: list[str]):
        found.append(Mutant(path, shown, i + 1, kind, before, after, definition, lines[i].strip(),
                            "\n".join(new_lines)))

    for i, line in enumerate(lines):
        head = _DEFINITION.match(line)
        if head:
            definition = f"{head.group(1)} {head.group(2) or ''}".strip()
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped.startswith("cite"):
            continue
        spans = _code_spans(line)

        def replaced(start: int, end: int, new: str) -> list[str]:
            return lines[:i] + [line[:start] + new + line[end:]] + lines[i + 1:]

        for m in _COMPARISON.finditer(line):
            if _in_spans(spans, m.start(), m.end()):
                add(i, "comparison", m.group(), _FLIP[m.group()], replaced(m.start(), m.end(), _FLIP[m.group()]))
        for m in _NUMBER.finditer(line):
            if _in_spans(spans, m.start(), m.end()):
                n = int(m.group())
                for new in (n + 1, n - 1):
                    if new >= 0:
                        add(i, "number", m.group(), str(new), replaced(m.start(), m.end(), str(new)))
        for m in _LOGIC.finditer(line):
            if _in_spans(spans, m.start(), m.end()):
                new = "or" if m.group() == "and" else "and"
                add(i, "and/or", m.group(), new, replaced(m.start(), m.end(), new))
        if stripped.startswith("require ") and line[:1].isspace():
            indent = len(line) - len(line.lstrip())
            end = i + 1
            while end < len(lines) and lines[end].strip() and len(lines[end]) - len(lines[end].lstrip()) > indent:
                end += 1
            add(i, "require dropped", stripped, "", lines[:i] + [""] * (end - i) + lines[end:])
        cond = _CONDITION.match(line)
        if cond and _in_spans(spans, cond.start(3), cond.end(3)):
            new = f"not ({cond.group(3)})"
            add(i, "condition negated", cond.group(3), new,
                replaced(cond.start(3), cond.end(3), new))
    return found


# ------------------------------------------------------------------ YAML numbers
def _yaml_mutants(path: Path, shown: str, text: str) -> list[Mutant]:
    """A whole number in the YAML ± 1, at its place in the text (comments and keys untouched)."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return []
    lines = text.split("\n")
    found: list[Mutant] = []

    def visit(node, where: list[str]):
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                visit(value, where + [str(key.value)])
        elif isinstance(node, yaml.SequenceNode):
            for k, value in enumerate(node.value):
                visit(value, where + [str(k)])
        elif isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:int" and node.style is None:
            raw = text[node.start_mark.index:node.end_mark.index]
            if not re.fullmatch(r"\d+", raw):
                return
            for new in (int(raw) + 1, int(raw) - 1):
                if new < 0:
                    continue
                mutated = text[:node.start_mark.index] + str(new) + text[node.end_mark.index:]
                found.append(Mutant(path, shown, node.start_mark.line + 1, "number", raw, str(new),
                                    ".".join([path.stem] + where), lines[node.start_mark.line].strip(),
                                    mutated))

    if root is not None:
        visit(root, [])
    return found


def mutants(root: Path, rules_files: list[str], rules: set) -> list[Mutant]:
    """Every mutant of a ruleset's own files: its rules files (``rules_files``, as ruleset.yaml
    lists them; the shared library's are left out) and its components.yaml, in file and line
    order. A mutant of a definition, or of a YAML number read by a name, that is not in
    ``rules`` (the names the rules read: the estimate, metrics and what only they read are left
    out) is not counted."""
    found: list[Mutant] = []
    for rel in rules_files:
        if rel.startswith("library/"):
            continue
        path = (root / rel).resolve()
        found += _rules_mutants(path, rel, path.read_text(encoding="utf-8"))
    components = (root / "components.yaml").resolve()
    if components.is_file():
        found += _yaml_mutants(components, "components.yaml", components.read_text(encoding="utf-8"))
    return [m if _of_rules(m.definition, rules) else replace(m, counted=False) for m in found]


def yaml_name(definition: str) -> str | None:
    """The name the rules read a YAML number by: a constant's, a variable's or a field's
    (``components.kinds.companies.entities.PRR.trains`` -> ``trains``); None for another place."""
    path = definition.split(".")[1:]
    if path[:1] in (["constants"], ["variables"]) and len(path) > 1:
        return path[1]
    if path[:1] == ["player"] and len(path) > 1:
        return path[1]
    if path[:1] == ["kinds"] and len(path) > 3:
        return path[3] if path[2] == "fields" else path[4] if path[2] == "entities" and len(path) > 4 else None
    return None


def _of_rules(definition: str, rules: set) -> bool:
    kind, _, name = definition.partition(" ")
    if kind in ("estimate", "metric"):
        return False
    if kind in ("def", "const"):
        return name in rules
    read = yaml_name(definition)
    return read is None or read in rules
