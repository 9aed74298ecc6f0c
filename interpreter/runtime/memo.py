"""Bounded memos: answers kept in a dict that is emptied when it is full.

What is asked changes as play goes on (the networks of the moment), or as an editor's edits do
(the definitions of the last parse): the answers asked lately are the ones worth keeping, and a
table emptied at a bound never grows with a long run. One place for that rule, and for keeping
an answer about an object by the object's identity (an object that is never changed in place:
a parsed definition, a list of the rules), the entry holding the object so that its id cannot
be another's while the entry lives.
"""
from __future__ import annotations

from typing import Callable


def keep(table: dict, key, value, most: int):
    """Put ``value`` in ``table`` under ``key`` (the table emptied first when it holds ``most``
    entries); give back ``value``."""
    if len(table) >= most:
        table.clear()
    table[key] = value
    return value


def of_object(table: dict, obj, make: Callable, most: int):
    """``make(obj)``, kept in ``table`` by the identity of ``obj`` (at most ``most`` entries)."""
    kept = table.get(id(obj))
    if kept is None or kept[0] is not obj:
        kept = keep(table, id(obj), (obj, make(obj)), most)
    return kept[1]
