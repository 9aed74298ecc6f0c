"""Fixes for diagnostics that say how to fix them: ``railrules lint --fix`` / ``--diff``, and
the language server's quick fixes (the same edits).

A fix is the replacement of one word on one line: the misspelt name a did-you-mean hint
("did you mean 'income'?") points at, in a ``.rules`` file or a YAML file alike. The word is
the name the message quotes that is closest to the suggestion, found at or after the
diagnostic's column on its line; a diagnostic whose line does not hold it gets no fix.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from railrules.interpreter.errors import Diagnostic

_SUGGESTION = re.compile(r"did you mean '([^']+)'\?")
_QUOTED = re.compile(r"'([A-Za-z_][A-Za-z0-9_]*)'")


@dataclass(frozen=True)
class Fix:
    file: str
    line: int        # from 1
    start: int       # column from 1 of the first character replaced
    end: int         # column just after the last
    old: str
    new: str

    @property
    def title(self) -> str:
        return f"replace '{self.old}' with '{self.new}'"


def fix_of(d: Diagnostic, text: str | None = None) -> Fix | None:
    """The fix of a diagnostic, or None. ``text``: the file's text (read from disk if None)."""
    hint = _SUGGESTION.search(d.hint or "")
    if hint is None or d.pos.line < 1:
        return None
    new = hint.group(1)
    words = [w for w in _QUOTED.findall(d.message) if w != new]
    if not words:
        return None
    old = max(words, key=lambda w: difflib.SequenceMatcher(None, w, new).ratio())
    if text is None:
        try:
            text = Path(d.pos.file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
    lines = text.split("\n")
    if d.pos.line > len(lines):
        return None
    line = lines[d.pos.line - 1]
    found = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(old)}(?![A-Za-z0-9_])").search(line, max(0, d.pos.column - 1))
    if found is None:
        return None
    return Fix(d.pos.file, d.pos.line, found.start() + 1, found.end() + 1, old, new)


def apply(text: str, fixes: list[Fix]) -> str:
    """``text`` with the fixes of one file made (several on a line: right to left)."""
    lines = text.split("\n")
    for f in sorted(set(fixes), key=lambda f: (f.line, f.start), reverse=True):
        line = lines[f.line - 1]
        if line[f.start - 1:f.end - 1] == f.old:
            lines[f.line - 1] = line[:f.start - 1] + f.new + line[f.end - 1:]
    return "\n".join(lines)


def fixes_by_file(diags: list[Diagnostic]) -> dict[str, list[Fix]]:
    out: dict[str, list[Fix]] = {}
    texts: dict[str, str | None] = {}
    for d in diags:
        if d.pos.file not in texts:
            try:
                texts[d.pos.file] = Path(d.pos.file).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                texts[d.pos.file] = None
        text = texts[d.pos.file]
        fix = fix_of(d, text) if text is not None else None
        if fix is not None:
            out.setdefault(fix.file, []).append(fix)
    return out


def diff(diags: list[Diagnostic]) -> str:
    """A unified diff of what ``--fix`` would change (nothing is written)."""
    out: list[str] = []
    for file, fixes in fixes_by_file(diags).items():
        old = Path(file).read_text(encoding="utf-8")
        out += difflib.unified_diff(old.splitlines(keepends=True), apply(old, fixes).splitlines(keepends=True),
                                    f"a/{file}", f"b/{file}")
    return "".join(out)


def write(diags: list[Diagnostic]) -> int:
    """Make the fixes in the files; returns how many were made. A file that cannot be read or
    written (read-only, gone) is an OutputError naming it, the files before it fixed."""
    from railrules.tools.common.outputs import OutputError
    made = 0
    for file, fixes in fixes_by_file(diags).items():
        path = Path(file)
        try:
            old = path.read_text(encoding="utf-8")
            path.write_text(apply(old, fixes), encoding="utf-8")
        except OSError as err:
            raise OutputError(path, f"{err.strerror or err} (fixed in other files: {made})") from None
        made += len(set(fixes))
    return made
