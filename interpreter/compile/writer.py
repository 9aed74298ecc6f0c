"""The one writer of generated Python: every line the compiler writes goes through it.

As Jinja's ``CodeGenerator`` does, a :class:`Writer` takes one line at a time (:meth:`line`)
at the indentation the ``with w.indent():`` blocks around it give, and records for each line
the position it was written for (``w.at``: a code unit's instruction index, whose ruleset
position a fault's traceback is mapped back to, :func:`interpreter.runtime.code.fault_site`).
A part that can only be written once the rest is known (what an entry of a unit loads depends
on what its body reads) is written :meth:`later`, in its place. The source runs as written, a
line for each :meth:`line`; ``railrules code`` shows it with each line too long to read broken
inside its brackets, where Python allows (:func:`broken`; breaking every line at load took more
than half of a ruleset's load and compile).
"""
from __future__ import annotations

import io
import tokenize
from contextlib import contextmanager

INDENT = "    "
WIDTH = 100   # a line longer than this is broken inside its brackets, where it can be


class Writer:
    """Lines of Python source, each at an indentation and a position (see the module)."""

    def __init__(self, at=None):
        self.at = at            # the position of the lines written now
        self._depth = 0
        self._items: list = []  # (depth, text or a function that writes later, position)

    def line(self, text: str) -> None:
        """Write one line of code at the current indentation."""
        self._items.append((self._depth, text, self.at))

    def lines(self, texts) -> None:
        """Write each of ``texts`` as a line."""
        for text in texts:
            self.line(text)

    @contextmanager
    def indent(self):
        """Lines written inside the block are indented one level more."""
        self._depth += 1
        try:
            yield self
        finally:
            self._depth -= 1

    def insert(self, other: Writer) -> None:
        """Write here what ``other`` holds, at this indentation."""
        self._items += [(self._depth + depth, item, at) for depth, item, at in other._items]

    def attempt(self, line: str, fallback: str, last: str | None = None) -> None:
        """Write ``line``, and ``fallback`` in its place if it raises anything but a fault
        already worded (``_SAID``): fast code that falls back on its checked code. ``last``:
        a line run in any case, after them."""
        self.line("try:")
        with self.indent():
            self.line(line)
        self.line("except _SAID:")
        with self.indent():
            self.line("raise")
        self.line("except Exception:")
        with self.indent():
            self.line(fallback)
        if last is not None:
            self.line("finally:")
            with self.indent():
                self.line(last)

    def later(self, write) -> None:
        """``write(w)`` writes here, into a writer at this indentation, when the source is
        asked for (:meth:`source`): once everything else has been written."""
        self._items.append((self._depth, write, self.at))

    def source(self) -> tuple[str, list]:
        """The source written, and the position of each of its lines."""
        texts: list = []
        positions: list = []
        self._render(0, texts, positions)
        return "".join(f"{t}\n" for t in texts), positions

    def _render(self, base: int, texts: list, positions: list) -> None:
        for depth, item, at in self._items:
            if callable(item):
                inner = Writer(at)
                item(inner)
                inner._render(base + depth, texts, positions)
                continue
            texts.append(INDENT * (base + depth) + item)
            positions.append(at)


# ------------------------------------------------------------------ long lines
_OPEN, _CLOSE = set("([{"), set(")]}")
_BEFORE = {"if", "else", "and", "or", "for", "&", "|"}   # a line may be broken before these...
_AFTER = {","}                                            # ...and after these, inside brackets


def broken(indent: str, text: str) -> list:
    """``text`` at ``indent`` as one line, or, when longer than :data:`WIDTH`, as several: broken
    inside brackets at the outermost places it can be (after a comma, before ``if``, ``else``,
    ``and``, ``or``, ``for``, ``&``, ``|``), each piece still too long broken again further in."""
    if len(indent) + len(text) <= WIDTH:
        return [indent + text]
    points = _break_points(text)
    if not points:
        return [indent + text]
    out: list = []
    _split(text, indent, points, 0, len(text), 0, out)
    return out


def _break_points(text: str) -> list:
    """``(offset, depth)`` of each place ``text`` may be broken, ``depth`` its bracket depth."""
    points, depth = [], 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            offset = tok.start[1] if tok.start[0] == 1 else None
            if offset is None or tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                continue
            if tok.string in _BEFORE and tok.type in (tokenize.NAME, tokenize.OP) and depth > 0:
                points.append((offset, depth))
            if tok.type == tokenize.OP:
                if tok.string in _OPEN:
                    depth += 1
                elif tok.string in _CLOSE:
                    depth -= 1
                elif tok.string in _AFTER and depth > 0:
                    points.append((tok.end[1], depth))
    except (tokenize.TokenError, IndentationError):   # not a line Python reads alone: as it is
        return []
    return points


def _split(text: str, indent: str, points: list, start: int, stop: int, level: int, out: list) -> None:
    """``text[start:stop]`` at ``indent`` (one level further in for each ``level``) into ``out``."""
    lead = indent + INDENT * level if level else indent
    piece = text[start:stop].strip()
    inside = [(o, d) for o, d in points if start < o < stop]
    if len(lead) + len(piece) <= WIDTH or not inside:
        out.append(lead + piece)
        return
    outer = min(d for _, d in inside)
    cuts = [start] + [o for o, d in inside if d == outer] + [stop]
    deeper = [(o, d) for o, d in inside if d > outer]
    for k, (a, b) in enumerate(zip(cuts, cuts[1:])):
        _split(text, indent, deeper, a, b, level + (k > 0), out)
