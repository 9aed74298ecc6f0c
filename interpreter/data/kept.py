"""What a ruleset's load (or lint) builds, kept in the user cache (:mod:`..cache`) and read
instead of built again: it is a function of the files the load read and of the interpreter's own
source alone. An entry is named by the interpreter (:func:`..cache.source_digest`), the kind of
load, its arguments and what gives them their meaning (the working folder, the shipped rulesets'
folder); it holds every answer the file system gave the load (each file read, by the content it
had where its path led; each file looked for, there or not) and is used only while each is the
same. An entry that does not load is no entry; a cache switched off keeps nothing."""
from __future__ import annotations

import contextvars
import hashlib
import os
import pickle
from pathlib import Path

from .. import cache
from ..compile import sources
from ..compile.expressions import namespace
from ..paths import rulesets_dir

LIMIT = 5_000_000   # the largest file a ruleset may have (RR007)
KEEP = 64           # entries kept of each kind (each is up to a few MB)

# While a load is kept: (what was asked of the file system, path) -> its answer
_SEEN: contextvars.ContextVar[dict | None] = contextvars.ContextVar("seen", default=None)


def kept(kind: str, name_or_path, variant, make, whole: tuple, keep=lambda made: True, here: bool = False):
    """What ``make()`` gives (a ruleset or a value holding one: its generated code's names are
    listed in its namespace), from the cache when an entry of ``kind`` for these arguments
    holds it, else made, and kept there unless not ``keep(made)``. ``whole``: the classes kept
    by their attributes (:func:`..cache.freeze`). ``here``: the entry is the working folder's
    (what ``make`` builds depends on it beyond the paths it shows: :func:`shown`). What
    ``make`` raises is raised, and not kept."""
    stored = _entry(kind, name_or_path, variant, here)
    found = _thawed(cache.load(stored))
    if found is not None:
        return found[0]
    seen: dict = {}
    token = _SEEN.set(seen)
    try:
        made = make()
    finally:
        _SEEN.reset(token)
    if stored is not None and keep(made):
        texts = {name: text for space in _spaces(made) for name, text in sources.kept(space).items()}
        frozen = cache.freeze((made, texts), whole=whole)
        if frozen is not None:
            cache.store(stored, pickle.dumps((seen, frozen), protocol=pickle.HIGHEST_PROTOCOL), KEEP)
    return made


def _entry(kind: str, name_or_path, variant, here: bool):
    if not isinstance(name_or_path, (str, os.PathLike)) or not isinstance(variant, (str, os.PathLike, type(None))):
        return None
    try:
        folder = os.getcwd() if here else ""
        chosen = os.fspath(variant) if variant is not None else ""
        as_file = str(Path(chosen).expanduser().resolve()) if chosen.endswith((".yaml", ".yml")) else ""
    except (OSError, RuntimeError):   # the working folder was removed; no home folder
        return None
    return cache.entry(kind, cache.source_digest(), os.fspath(name_or_path), chosen, as_file, folder,
                       str(rulesets_dir()))


def _thawed(entry: bytes | None) -> tuple | None:
    """(what an entry keeps,) if every answer of the file system it was made with is still the
    same; None otherwise, or when the entry does not load."""
    if entry is None:
        return None
    try:
        seen, frozen = pickle.loads(entry)
        for (asked, path), answer in seen.items():
            if _ASKED[asked](path) != answer:
                return None
        made, texts = cache.thaw(frozen)
    except Exception:   # an entry that does not load is no entry
        return None
    sources.restore(texts)
    base = namespace()
    for space in _spaces(made):   # the helpers and builtins as this process has them, as a load takes them
        space.update((name, value) for name, value in base.items() if name in space)
    return (made,)


def _spaces(made) -> list:
    """The namespaces of the generated code of the ruleset(s) in ``made``."""
    return [x.program.space for x in (made if isinstance(made, tuple) else (made,)) if hasattr(x, "program")]


def _noted(asked: str, path: Path, answer):
    seen = _SEEN.get()
    if seen is not None:
        seen.setdefault((asked, str(path)), answer)
    return answer


def is_file(path: Path) -> bool:
    """Whether ``path`` is a file (noted while a load is kept)."""
    return _noted("file", path, path.is_file())


def resolved(path: Path) -> Path:
    """``path`` with its links followed, absolute (noted while a load is kept)."""
    return Path(_noted("resolved", path, str(path.resolve())))


def shown(path: Path) -> str:
    """A path as the user will want to see it: relative to the working folder when inside it
    (noted while a load is kept)."""
    try:
        text = str(path.relative_to(Path.cwd()))
    except (ValueError, OSError):
        text = str(path)
    return _noted("shown", path, text)


def content(named: Path, path: Path) -> bytes:
    """The bytes of file ``path`` (``named``, resolved), never more than one past the limit (a
    3 GB file stays on disk); noted while a load is kept."""
    with path.open("rb") as fh:
        data = fh.read(LIMIT + 1)
    seen = _SEEN.get()
    if seen is not None:
        seen[("read", str(named))] = (str(path), hashlib.sha256(data).hexdigest())
    return data


def _read_now(named: str) -> tuple | None:
    """(where ``named`` leads, the hash of its content) now, as :func:`content` noted it."""
    path = Path(named).resolve()
    try:
        with path.open("rb") as fh:
            return str(path), hashlib.sha256(fh.read(LIMIT + 1)).hexdigest()
    except OSError:
        return None


# what a kept entry asked of the file system -> how to ask it again (of a path noted as text)
_ASKED = {"file": lambda path: Path(path).is_file(), "resolved": lambda path: str(Path(path).resolve()),
          "shown": lambda path: shown(Path(path)), "read": _read_now}
