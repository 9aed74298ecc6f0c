"""Generated Python that a developer can read: in tracebacks, profilers, debuggers and printed.

Every function the interpreter writes (a rule's expression, a ``def``, a comprehension's loop, a
code unit) is compiled under a name of its own, ``<rules FILE:LINE ab12cd34>`` or
``<unit KEY ab12cd34>`` (the rule it was written for, and a short hash of its source: one rule
line gives several functions), and its source is registered with :mod:`linecache` under that
name. So ``traceback``, ``pdb``, ``cProfile`` and coverage tools show the generated lines, and
:func:`listing` prints them with the rules they were written for (``railrules code``).
"""
from __future__ import annotations

import functools
import hashlib
import linecache
import os
import re
import types

from .writer import broken

_NAME = re.compile(r"<(rules|unit) (.+) [0-9a-f]{8}>")
_RULE = re.compile(r"(.+):(\d+)")


_KEPT = 20_000            # sources registered at most (an editor's server compiles edit after edit)
_registered: dict = {}    # the names registered, oldest first


def register(source: str, filename: str) -> str:
    """The name to compile generated ``source`` under (``filename`` is ``<rules FILE:LINE>`` or
    ``<unit KEY>``), its lines registered with linecache (kept: no file to check them against;
    the oldest are dropped beyond the last 20,000)."""
    name = f"{filename[:-1]} {hashlib.blake2s(source.encode(), digest_size=4).hexdigest()}>"
    _remember(name, source)
    return name


def _remember(name: str, source: str) -> None:
    if name not in linecache.cache:
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
        _registered[name] = None
        while len(_registered) > _KEPT:
            oldest = next(iter(_registered))
            del _registered[oldest]
            linecache.cache.pop(oldest, None)


def kept(space: dict) -> dict:
    """The generated sources of namespace ``space`` by the names they were compiled under: what
    :func:`restore` registers again where the namespace is made again (the user cache)."""
    return {name: "".join(linecache.getlines(name)) for name in dict.fromkeys(space.get("__sources__", ()))}


def restore(texts: dict) -> None:
    """Register the sources :func:`kept` gave under their names (as :func:`register` did)."""
    for name, source in texts.items():
        _remember(name, source)


@functools.lru_cache(maxsize=8192)
def _compiled(source: str, filename: str):
    return compile(source, filename, "exec")


def define(space: dict, source: str, filename: str) -> None:
    """Run generated ``source`` (our own: definitions only) in ``space``. Its code object is
    kept by source: a ruleset loaded again, or a variant that leaves a rule as it was, writes
    the same source, and compiling is most of what writing it costs. The source is registered
    with linecache under a name of its own (tracebacks and profilers show it) and listed in the
    namespace's ``__sources__`` (``railrules code``)."""
    name = register(source, filename)
    space.setdefault("__sources__", []).append(name)
    exec(_compiled(source, name), space)  # our own source


def add(space: dict, prefix: str, value, about: str) -> str:
    """Put ``value`` into ``space`` under a name of its own and return the name: ``prefix`` and
    a short hash of ``about``, what it is for (where it is written, or what it is: never what
    was written before it), so that a name is the same in every process whichever code was
    written first, and code written later (a unit on its first use) renames nothing written
    before. The same value for the same ``about`` keeps its name, and so does a function of the
    same code (a loop written again where a def is written in place); another value whose
    ``about`` hashes alike (rare) takes the next free name after it (``_2``, ``_3``...)."""
    name = stem = f"{prefix}{hashlib.blake2s(about.encode(), digest_size=3).hexdigest()}"
    k = 1
    while not _same(space.get(name, value), value):
        k += 1
        name = f"{stem}_{k}"
    space[name] = value
    return name


def _same(a, b) -> bool:
    """Whether ``a`` and ``b`` are the same value, or functions of one code object (compiled from
    one source under one name, :func:`define`) in one namespace, without defaults or closure."""
    return a is b or a.__class__ is b.__class__ is types.FunctionType and a.__code__ is b.__code__ and \
        a.__globals__ is b.__globals__ and not (a.__defaults__ or b.__defaults__ or a.__closure__ or b.__closure__)


def where(pos) -> str:
    """Position ``pos`` as a part of an ``about`` (:func:`add`): its file's name (not the folder
    it is in), line and column."""
    return f"{os.path.basename(pos.file)}:{pos.line}:{pos.column}"


class Objects:
    """The names one piece of generated code gives the Python objects it reads (a unit's, a
    lister's): each put into the namespace once (:func:`add`), named by ``about`` (the piece)
    and the order its code names them in."""

    def __init__(self, space: dict, prefix: str, about: str):
        self.space, self.prefix, self.about = space, prefix, about
        self.names: dict = {}   # id(object) -> its name

    def __call__(self, x) -> str:
        name = self.names.get(id(x))
        if name is None:
            name = self.names[id(x)] = add(self.space, self.prefix, x, f"{self.about} {len(self.names)}")
        return name


def rule_text(file: str, line: int) -> str:
    """Line ``line`` of rules file ``file``, stripped ('' when it cannot be read)."""
    return linecache.getline(file, line).strip()


def listing(space: dict, wanted: str | None = None, place=None) -> list[tuple[str, str]]:
    """``(name, source)`` of the functions generated in a ruleset's namespace ``space``, the
    source with the rule text as comments: a function written for a rule line starts with that
    line; in a code unit, the rule each instruction came from stands above its lines (where it
    changes). ``wanted``: only those whose rule line or unit key names it as a word. ``place``:
    ``place(file, line) -> str``, how a rule's file and line are shown in the comments (as
    given by default; see :func:`shown`)."""
    place = place or (lambda file, line: f"{file}:{line}")
    units = {code.co_filename: (unit, owners) for code, (unit, owners) in space.get("__units__", {}).items()}
    word = re.compile(rf"\b{re.escape(wanted)}\b") if wanted else None
    out = []
    for name in dict.fromkeys(space.get("__sources__", ())):
        lines = linecache.getlines(name)
        named = _NAME.fullmatch(name)
        if named is None:
            continue
        kind, where = named.groups()
        if name in units:
            unit, owners = units[name]
            head = [f"# unit {unit.key}"]
            body, last = [], None
            for i, text in enumerate(lines):
                pos = unit.instrs[owners[i]].pos if i < len(owners) and owners[i] is not None else None
                said = (pos.file, pos.line) if pos is not None and pos.line else None
                if said and said != last and i:   # (not above the def)
                    indent = text[:len(text) - len(text.lstrip())]
                    body.append(f"{indent}# {place(*said)}: {rule_text(*said)}")
                last = (said if i else None) or last
                body += _readable(text)
            about = unit.key
        else:
            m = _RULE.fullmatch(where)
            text = rule_text(m.group(1), int(m.group(2))) if m else ""
            at = place(m.group(1), int(m.group(2))) if m else where
            head = [f"# {at}", f"# {text}"] if text else [f"# {at}"]
            body = [piece for line in lines for piece in _readable(line)]
            about = f"{kind} {where} {text}"
        if word is None or word.search(about):
            out.append((name, "\n".join(head + body) + "\n"))
    return out


def _readable(line: str) -> list:
    """A line of generated source as shown: broken inside its brackets when too long to read."""
    text = line.rstrip("\n")
    code = text.lstrip()
    return broken(text[:len(text) - len(code)], code)


def shown(name: str, place) -> str:
    """The name a generated function is compiled under, its rule's file and line shown by
    ``place(file, line)`` (see :func:`listing`)."""
    named = _NAME.fullmatch(name)
    m = _RULE.fullmatch(named.group(2)) if named and named.group(1) == "rules" else None
    return name.replace(m.group(0), place(m.group(1), int(m.group(2)))) if m else name
