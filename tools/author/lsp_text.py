"""What the language server reads in the text of a file: the word under the cursor, the call
the cursor is in (signature help), and where a name is written across a ruleset's files
(references, rename). Plain text work, without pygls: tested on its own."""
from __future__ import annotations

import re
from pathlib import Path

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def word_at(text: str, line: int, character: int) -> str | None:
    lines = text.splitlines()
    if not 0 <= line < len(lines):
        return None
    for m in _WORD.finditer(lines[line]):
        if m.start() <= character <= m.end():
            return m.group(0)
    return None


def after_dot(text: str, line: int, character: int) -> bool:
    """Whether the word at the cursor follows a dot (``c.trains_left``: a field)."""
    lines = text.splitlines()
    if not 0 <= line < len(lines):
        return False
    start = character
    row = lines[line]
    while start > 0 and (row[start - 1:start].isalnum() or row[start - 1:start] == "_"):
        start -= 1
    return start > 0 and row[start - 1] == "."


def call_at(text: str, line: int, character: int) -> tuple[str, int] | None:
    """(the name called, the index of the argument the cursor is in) when the cursor is
    inside the brackets of a call on its line, else None."""
    lines = text.splitlines()
    if not 0 <= line < len(lines):
        return None
    before = lines[line][:character]
    depth, commas = 0, 0
    for i in range(len(before) - 1, -1, -1):
        ch = before[i]
        if ch in ")]":
            depth += 1
        elif ch in "([":
            if depth == 0:
                if ch == "[":
                    return None
                name = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*$", before[:i])
                return (name.group(1), commas) if name else None
            depth -= 1
        elif ch == "," and depth == 0:
            commas += 1
    return None


def _code(line: str) -> str:
    """A line without its comment (a ``#`` outside quotes)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            return line[:i]
    return line


def occurrences(name: str, text: str) -> list[tuple[int, int, int]]:
    """(line from 0, start, end) of every place ``name`` is written as a whole word, outside
    comments: in a rules file, a YAML file (keys and values) alike."""
    pattern = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])")
    out = []
    for k, line in enumerate(text.splitlines()):
        for m in pattern.finditer(_code(line)):
            out.append((k, m.start(), m.end()))
    return out


def ruleset_files(root: Path, listed: set[str] | None, library: Path) -> list[Path]:
    """The files a name of a ruleset may be written in: its rules and YAML files (scenarios and
    variants too) and the library files it lists."""
    files = [p for p in root.rglob("*") if p.suffix in (".rules", ".yaml", ".yml") and p.is_file()
             and not any(part.startswith(".") for part in p.relative_to(root).parts)]
    for rel in sorted(listed or ()):
        if rel.startswith("library/") and (library / rel[len("library/"):]).is_file():
            files.append(library / rel[len("library/"):])
    return sorted({p.resolve() for p in files})


_TOKEN = re.compile(r'(?P<comment>#.*)|(?P<string>"(?:[^"\\]|\\.)*"?)|(?P<number>\b\d+\b)'
                    r'|(?P<name>[A-Za-z_][A-Za-z0-9_]*)')


def tokens(text: str, classify) -> list[tuple[int, int, int, str]]:
    """(line from 0, start, length, type) of the comments, strings, numbers and the names that
    ``classify(name, after_a_dot)`` gives a type (None: left uncoloured) of a rules file."""
    out = []
    for k, line in enumerate(text.splitlines()):
        for m in _TOKEN.finditer(line):
            kind = m.lastgroup
            if kind == "name":
                kind = classify(m.group(), m.start() > 0 and line[m.start() - 1] == ".")
            if kind is not None:
                out.append((k, m.start(), m.end() - m.start(), kind))
    return out
