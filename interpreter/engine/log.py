"""The game's log as structured entries, written as text only when someone reads it.

A ``log "..."`` statement stores an entry: the template's text parts and the values of its
``{...}`` parts as they were when it ran (stored values are never changed in place, so keeping
them costs nothing), and, for ``log ... reveals p.cash``, the field it gives away. The log keeps
it as a plain tuple of an :class:`Entry`'s fields (made at every decision, at C speed); the
:class:`Entry` and its text are made when it is read (:class:`Messages`, ``Game.messages``): a
bot's imagined games, which nobody reads, never pay for them. An entity reads as its name
(:func:`show`).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ..runtime.values import Secret, sorted_keys


def show(ent: dict, value) -> str:
    """How a value reads in a message: an entity by its name, a list joined, a map as its
    keys with their values ("Alpha 2, Beta 0"), yes/no, none; a :class:`Secret` as its value
    (who may read it is :mod:`.secrecy`'s to say)."""
    c = value.__class__
    if c is int:   # (the commonest, at once)
        return str(value)
    if c is Secret:
        value = value.value
        c = value.__class__
        if c is int:
            return str(value)
    if isinstance(value, str):
        rec = ent.get(value)
        name = rec.get("name") if rec else None
        return value if name is None else str(name)   # no name (or none): its id
    if isinstance(value, list):
        return ", ".join(show(ent, v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{show(ent, k)} {show(ent, value[k])}" for k in sorted_keys(value))
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    return str(value)


class LogLine(str):
    """A line of the log that gives away an entity's field (``log ... reveals p.cash``):
    text like any other, shown only to those who may see that field (Game.sees)."""

    reveals: tuple

    def __new__(cls, text, reveals: tuple):
        line = super().__new__(cls, text)
        line.reveals = reveals
        return line


class Entry(NamedTuple):
    """One ``log`` line as data: ``parts`` (text, and None where a value goes), ``values``,
    ``reveals`` (entity, field) or None, and the game's entities to name entities by. The log
    keeps its fields as a plain tuple (:func:`entry_of` makes the Entry)."""
    parts: tuple
    values: tuple
    reveals: tuple | None
    ent: dict

    def text(self) -> str:
        values = iter(self.values)
        ent = self.ent
        out = "".join(p if p is not None else show(ent, next(values)) for p in self.parts)
        return LogLine(out, self.reveals) if self.reveals else out

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Entry({self.text()!r})"


def entry_of(item):
    """A stored log item as it is read: an :class:`Entry` for an entry's fields (a plain tuple),
    plain text as itself."""
    return Entry._make(item) if item.__class__ is tuple else item


def text_of(item) -> str:
    """A stored log item as text: entries are written out, plain text is itself."""
    return Entry._make(item).text() if item.__class__ is tuple else item


class Messages(Sequence):
    """The log as text lines (a read-only view of the machine's entries): index, slice, iterate,
    ``len``, compare with a list of strings, ``"\\n".join(...)``."""

    def __init__(self, items: list):
        self._items = items

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [text_of(x) for x in self._items[i]]
        return text_of(self._items[i])

    def __iter__(self):
        return (text_of(x) for x in self._items)

    def __eq__(self, other) -> bool:
        if isinstance(other, (Messages, list, tuple)):
            return list(self) == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"Messages({list(self)!r})"

    @property
    def entries(self) -> list:
        """The log's items: :class:`Entry` records (made as they are read), or plain text."""
        return [entry_of(x) for x in self._items]
