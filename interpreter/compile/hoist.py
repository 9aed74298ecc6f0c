"""A generated loop's body with what it reads again and again read once: as a hand-written loop.

A loop over items (a require's listing of an option's values, a comprehension, an ``exists``)
is written with each expression's source as it stands (:mod:`.expressions`), which reads an
entity's record as ``_E[x]`` at every field it reads. :func:`hoist` rewrites the body of the
loop ``for VAR in ...:`` in a writer:

- a record whose entity does not change from item to item (``_E[L['c']]``, an entity named in
  the rules, or one the loop's function is given), each field the body reads of it
  (``_E[L['c']]['cash']``) and a variable of the game (``run.glob['x']``) are read once, before
  the loop, into ``_h1``, ``_h2``...;
- the record of the item itself (``_E[v_x]``), when the body reads it more than once and the
  items are proven entities (:mod:`.proven`: the record is there), once per item into ``_h0``.

Nothing raises where the body would not have raised: a record or a field read before the loop
that is not there (a local not set, a value that is no entity, a field its kind lacks) leaves
its name unset there, and the body raises at the read it stood for (any fault sends the loop's
caller to its checked code, which words it). Expressions change nothing, so a value read before
the loop is the one every item would have read. Text inside a string literal is never taken for
a read. A name a ``lambda`` in the body binds is left alone.
"""
from __future__ import annotations

import re

from .writer import Writer

# a read (an entity's record, or a variable of the game), or a string literal skipped whole
# (a record's read, then the field read of it, if any)
_READ = re.compile(r"""(?<![\w.'"])(?P<read>_E\[(?P<of>L\['\w+'\]|'(?:[^'\\]|\\.)*'|\w+)\](?P<field>\['\w+'\])?"""
                   r"""|run\.glob\['\w+'\])|(?P<text>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""")
_LAMBDA = re.compile(r"\blambda\b([^:]*):")
_WORD = re.compile(r"\w+")
_ITEM = "_h0"


def hoist(w: Writer, var: str, entity: bool, given: set) -> None:
    """Rewrite, in ``w``, the body of its loop over ``var`` (see the module). ``entity``: the
    items are proven entities; ``given``: the names the loop's function is given (the same for
    every item)."""
    items = w._items
    at = next((j for j, (_, text, _) in enumerate(items)
               if text.__class__ is str and text.startswith(f"for {var} in ")), None)
    if at is None:
        return
    depth = items[at][0]
    end = at + 1
    while end < len(items) and items[end][0] > depth:
        end += 1
    body = items[at + 1:end]
    if any(text.__class__ is not str for _, text, _ in body):
        return
    hidden = {name for _, text, _ in body for m in _LAMBDA.finditer(text) for name in _WORD.findall(m.group(1))}
    if var in hidden:
        return
    invariant = (given - hidden) | {"L"}
    item = f"_E[{var}]"
    # where the item's record is read once: at the top of the body, or, when the body's first
    # line is an ``if`` that reads it once at most, at the top of that ``if`` (an item it
    # turns away reads it no more than before)
    counts = [sum(_record(m) == item for m in _READ.finditer(t)) for _, t, _ in body]
    top, stop = 0, len(body)
    if body and body[0][1].startswith("if ") and counts[0] <= 1:
        top, stop = 1, 1
        while stop < len(body) and body[stop][0] > body[0][0]:
            stop += 1
    many = entity and sum(counts[top:stop]) > 1

    def once(m) -> str | None:
        """What a match reads once before the loop (a variable, a record, or a record's field:
        ``_E[...]`` or ``_E[...]['f']``), or None."""
        of = m.group("of")
        if m.group("read") is None or _record(m) == item or \
                of is not None and not (of.startswith(("L[", "'")) or of in invariant):
            return None
        return m.group("read")

    # each read done once -> its name (a record of which the body reads one field alone has
    # none: the field is read with it); a field read -> the record it is read from
    found = [(read, _record(m)) for _, text, _ in body for m in _READ.finditer(text)
             if (read := once(m)) is not None]
    fields: dict = {}
    for read, record in found:
        fields.setdefault(record, set()).add(read)
    whole = {record for record, reads_ in fields.items() if record in reads_ or len(reads_) > 1}
    reads: dict = {}
    of: dict = {}
    for read, record in found:
        if read not in reads:
            if record != read and record in whole and record not in reads:   # (a record before its fields)
                reads[record], of[record] = f"_h{len(reads) + 1}", record
            reads[read] = f"_h{len(reads) + 1}"
            of[read] = record

    def swap(m, here: bool) -> str:
        read = once(m)
        if read is not None:
            return reads[read]
        if many and here and _record(m) == item:
            return _ITEM + (m.group("field") or "")
        return m.group(0)

    body = [(d, _READ.sub(lambda m: swap(m, top <= j < stop), text), pos)
            for j, (d, text, pos) in enumerate(body)]
    pos = items[at][2]
    before: list = []
    for read, name in reads.items():
        if read.startswith("run."):   # a declared variable: always there
            before.append((depth, f"{name} = {read}", pos))
            continue
        record = of[read]
        if record != read and record in reads:   # a field of a record read before
            read = reads[record] + read[len(record):]
        before += [(depth, "try:", pos), (depth + 1, f"{name} = {read}", pos),
                   (depth, "except Exception:", pos), (depth + 1, "pass", pos)]   # (unset: see the module)
    if many:
        body.insert(top, (body[top - 1][0] + 1 if top else depth + 1, f"{_ITEM} = {item}", pos))
    items[at:end] = before + [items[at]] + body


def _record(m) -> str | None:
    """The record a read matched by ``_READ`` reads (without its field), or None."""
    read = m.group("read")
    return read[:-len(m.group("field"))] if read and m.group("field") else read
