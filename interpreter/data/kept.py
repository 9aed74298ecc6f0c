"""What a ruleset's load (or lint) builds, kept in the user cache (:mod:`..cache`) and read
instead of built again: it is a function of the files the load read and of the interpreter's own
source alone. An entry is named by the interpreter (:func:`..cache.source_digest`), the kind of
load, its arguments and what gives them their meaning (the working folder, the shipped rulesets'
folder); it holds every answer the file system gave the load (each file read, by the content it
had where its path led; each file looked for, there or not; the ruleset files in a folder) and
is used only while each is the same. A whole lint is kept the same way (:func:`remembered`): the
answers of the loads within it are its own. An entry that does not load is no entry; a cache
switched off keeps nothing."""
from __future__ import annotations

import contextvars
import hashlib
import os
import pickle
from pathlib import Path

from .. import cache
from ..compile import sources
from ..paths import rulesets_dir, shipped_rulesets

LIMIT = 5_000_000   # the largest file a ruleset may have (RR007)
KEEP = 64           # entries kept of each kind (each is up to a few MB)

# While a load is kept: (what was asked of the file system, path) -> its answer
_SEEN: contextvars.ContextVar[dict | None] = contextvars.ContextVar("seen", default=None)


def kept(kind: str, name_or_path, variant, make, whole: tuple, keep=lambda made: True, here: bool = False,
         finish=None):
    """What ``make()`` gives (a ruleset or a value holding one: its generated code's names are
    listed in its namespace), from the cache when an entry of ``kind`` for these arguments
    holds it, else made, and kept there unless not ``keep(made)``. ``whole``: the classes kept
    by their attributes (:func:`..cache.freeze`). ``here``: the entry is the working folder's
    (what ``make`` builds depends on it beyond the paths it shows: :func:`shown`).
    ``finish(made)`` runs on what is about to be kept: work ``make`` leaves for later that is
    worth keeping. What ``make`` raises is raised, and not kept."""
    return remembered(_entry(kind, name_or_path, variant, here), make, whole, keep, finish)


def remembered(stored, make, whole: tuple = (), keep=lambda made: True, finish=None):
    """What ``make()`` gives, read from the entry ``stored`` (:func:`entry`; None: no cache)
    while every answer the file system gave when it was made is the same, else made and kept
    there (see :func:`kept`). A make that runs while another is kept (a load within a lint)
    adds the answers it depends on to the other's, read from its entry or found anew."""
    found = _thawed(cache.load(stored))
    if found is not None:
        _note_all(found[0])
        return found[1]
    seen: dict = {}
    token = _SEEN.set(seen)
    try:
        made = make()
    finally:
        _SEEN.reset(token)
    _note_all(seen)
    if stored is not None and keep(made):
        if finish is not None:
            finish(made)
        texts = {name: text for space in _spaces(made) for name, text in sources.kept(space).items()}
        frozen = cache.freeze((made, texts), whole=whole)
        if frozen is not None:
            cache.store(stored, pickle.dumps((seen, frozen), protocol=pickle.HIGHEST_PROTOCOL), KEEP)
    return made


def entry(kind: str, *content: str, here: bool = False) -> Path | None:
    """The entry of ``kind`` for ``content`` (texts that name what is made) by this interpreter
    and shipped rulesets' folder (and, ``here``, working folder); None when there is no cache
    or no working folder."""
    try:
        folder = os.getcwd() if here else ""
    except OSError:   # the working folder was removed
        return None
    return cache.entry(kind, cache.source_digest(), *content, folder, str(rulesets_dir()))


def _note_all(seen: dict) -> None:
    outer = _SEEN.get()
    if outer is not None:
        for question, answer in seen.items():
            outer.setdefault(question, answer)


def _entry(kind: str, name_or_path, variant, here: bool):
    if not isinstance(name_or_path, (str, os.PathLike)) or not isinstance(variant, (str, os.PathLike, type(None))):
        return None
    try:
        chosen = os.fspath(variant) if variant is not None else ""
        as_file = str(Path(chosen).expanduser().resolve()) if chosen.endswith((".yaml", ".yml")) else ""
    except (OSError, RuntimeError):   # no home folder
        return None
    return entry(kind, os.fspath(name_or_path), chosen, as_file, here=here)


def _thawed(kept: bytes | None) -> tuple | None:
    """(the answers of the file system an entry was made with, what it keeps) if every answer
    is still the same; None otherwise, or when the entry does not load."""
    if kept is None:
        return None
    try:
        seen, frozen = pickle.loads(kept)
        for (asked, path), answer in seen.items():
            if _ASKED[asked](path) != answer:
                return None
        made, texts = cache.thaw(frozen)
    except Exception:   # an entry that does not load is no entry
        return None
    sources.restore(texts)
    spaces = _spaces(made)
    if spaces:   # the helpers and builtins as this process has them, as a load takes them
        from ..compile.expressions import namespace   # (not imported for what holds no code: a lint's)
        base = namespace()
        for space in spaces:
            space.update((name, value) for name, value in base.items() if name in space)
    return seen, made


def _spaces(made) -> list:
    """The namespaces of the generated code of the ruleset(s) in ``made``."""
    return [x.program.space for x in (made if isinstance(made, tuple) else (made,)) if hasattr(x, "program")]


def _noted(asked: str, path: Path | str, answer):
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


def files_under(path: Path) -> None:
    """Note (while a make is kept) the ruleset files (.rules, .yaml, .yml) at or under
    ``path``, each with the hash of its content: a file added, removed or edited there makes
    the entry not found."""
    if _SEEN.get() is not None:
        _noted("files", path, _files_now(str(path)))


def _files_now(named: str) -> tuple | None:
    path = Path(named)
    if path.is_dir():
        found = sorted(f for f in path.rglob("*") if f.suffix in (".rules", ".yaml", ".yml"))
    elif path.is_file():
        found = [path]
    else:
        return None
    return tuple((str(f), _read_now(str(f))) for f in found)


def around(path: str) -> Path | None:
    """The ruleset folder of ``path`` (:func:`.ruleset.ruleset_around`), noted while a make is
    kept: a ruleset's name or folder by the questions that find it (the loader's, asked through
    :func:`is_file` and :func:`resolved`), any other path by the folder found above it."""
    from .ruleset import resolve_ruleset_path, ruleset_around
    found = resolve_ruleset_path(path)
    if found is None:
        found = ruleset_around(path)
        _noted("around", path, str(found))
    return found


def shipped() -> list[str]:
    """The shipped rulesets' names (:func:`..paths.shipped_rulesets`), noted while a make is
    kept."""
    return _noted("shipped", Path(), shipped_rulesets())


def _around_now(path: str) -> str:
    from .ruleset import ruleset_around
    return str(ruleset_around(path))


# what a kept entry asked of the file system -> how to ask it again (of a path noted as text)
_ASKED = {"file": lambda path: Path(path).is_file(), "resolved": lambda path: str(Path(path).resolve()),
          "shown": lambda path: shown(Path(path)), "read": _read_now, "files": _files_now,
          "around": _around_now, "shipped": lambda _: shipped_rulesets()}
