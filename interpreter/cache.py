"""A user cache of what every start would otherwise rebuild (the rules grammar's parser tables,
which YAML data its schema already accepted, a loaded ruleset, lint's check of one and what a
whole lint found: :mod:`.data.kept`), so that a command starts quickly.

Nothing depends on it for correctness: every entry is named by a hash of everything its content
depends on, and holds its own name and the hash of what it keeps, checked in the one file opened
(:func:`load`): an entry under another's name, damaged, a link, or writable by others is rebuilt,
like a missing one; and a cache that cannot be written is simply not used. It lives in ``$RAILRULES_CACHE_DIR`` if set (empty: no cache), else in the
user's cache folder (``$XDG_CACHE_HOME/railrules``, ``~/.cache/railrules``; on Windows
``%LOCALAPPDATA%/railrules/cache``; on macOS ``~/Library/Caches/railrules``). Deleting it is
always safe. A folder that other users can write to is not used (entries are unpickled).
"""
from __future__ import annotations

import builtins
import functools
import gc
import hashlib
import importlib
import importlib.util
import io
import marshal
import os
import pickle
import stat
import sys
import types
from pathlib import Path

FORMAT = "2"   # changes when what an entry holds changes
KEEP = 500     # entries kept of each kind


def cache_dir() -> Path | None:
    """The folder of the cache, or None when it is switched off."""
    chosen = os.environ.get("RAILRULES_CACHE_DIR")
    if chosen is not None:
        return Path(chosen) if chosen else None
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "railrules" / "cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "railrules"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "railrules"


def entry(kind: str, *content: str) -> Path | None:
    """The file of the entry of ``kind`` for this content (its name is the content's hash), in
    a cache folder that exists; None when there is no usable cache."""
    folder = cache_dir()
    if folder is None:
        return None
    digest = hashlib.sha256()
    for part in (FORMAT, sys.version, kind, *content):   # each with its length: no two contents alike
        data = part.encode("utf-8", "surrogatepass")
        digest.update(b"%d:" % len(data) + data)
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private(folder):
            return None
    except OSError:
        return None
    return folder / f"{kind}-{digest.hexdigest()[:32]}"


def _private(folder: Path) -> bool:
    """Whether only this user can write into ``folder`` (entries are unpickled: a folder others
    can write to is not used)."""
    if not hasattr(os, "getuid"):   # Windows: the user's own LOCALAPPDATA
        return True
    st = folder.stat()
    return st.st_uid == os.getuid() and not st.st_mode & 0o022


def load(path: Path | None) -> bytes | None:
    """What the entry ``path`` keeps, read from the one file opened (never a link, a pipe or a
    device; owned by this user and writable by no one else), or None when there is no such
    entry or it does not prove to be this one (it names another entry, or its content is not
    what was written)."""
    if path is None:
        return None
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError:   # missing, or a link
        return None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (hasattr(os, "getuid") and (
                st.st_uid != os.getuid() or st.st_mode & 0o022)):
            return None
        try:
            data = fh.read()
        except OSError:
            return None
    head, _, body = data.partition(b"\n")
    return body if head == _head(path, body) else None


def _head(path: Path, body: bytes) -> bytes:
    """The first line of an entry: its name and the hash of its content."""
    return f"{path.name} {hashlib.sha256(body).hexdigest()}".encode()


def has(kind: str, *content: str) -> bool:
    """Whether an entry of ``kind`` was stored for this content (see :func:`mark`)."""
    return load(entry(kind, *content)) is not None


def mark(kind: str, *content: str) -> None:
    """Store an empty entry: a fact about this content (for instance, that it was checked)."""
    store(entry(kind, *content), b"")


def store(path: Path | None, data: bytes, keep: int = KEEP) -> None:
    """Make the entry ``path`` keep ``data``: written under a temporary name and renamed, so that
    a reader never sees half an entry; any failure leaves no entry (and no error: the cache is
    optional). Of the entries of its kind, the newest ``keep`` stay (texts being edited leave
    one each)."""
    if path is None:
        return
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_BINARY", 0), 0o600)   # this user's only, whatever the umask
        with os.fdopen(fd, "wb") as fh:
            fh.write(_head(path, data) + b"\n" + data)
        os.replace(tmp, path)
        kind = path.name.rsplit("-", 1)[0]
        entries = sorted(path.parent.glob(f"{kind}-*"), key=_age)
        for old in entries[:max(0, len(entries) - keep)]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
    finally:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass


def _age(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:   # removed meanwhile (another process pruning)
        return 0.0


@functools.cache
def source_digest() -> str:
    """A hash of everything of the interpreter that shapes what it builds from a ruleset: its own
    source files (every module, the grammar), the schemas and the versions of the libraries whose
    objects it keeps. An entry named by it is not found once any of them changes. Reading and
    hashing the files (most of a megabyte) was a large part of a command's start: the hash is
    kept in the cache itself, under each file's size and time of change (what Python checks
    its compiled modules against), and worked out again only when one of them changes."""
    files = source_files()
    libraries = "".join(library_code(name) for name in ("lark", "networkx", "yaml", "jsonschema"))
    stamp = entry("digest", libraries, *(f"{p}:{s.st_size}:{s.st_mtime_ns}" for p in files for s in [p.stat()]))
    kept = load(stamp)
    if kept:
        return kept.decode()
    digest = hashlib.sha256()
    for path in files:
        data = path.read_bytes()
        digest.update(b"%s %d:" % (path.name.encode(), len(data)) + data)
    digest.update(libraries.encode())
    store(stamp, digest.hexdigest().encode(), keep=8)
    return digest.hexdigest()


def source_files() -> list[Path]:
    """The files :func:`source_digest` reads: every module of the interpreter, its grammar and
    the schemas."""
    from .paths import schemas_dir
    here = Path(__file__).resolve().parent
    return sorted(here.rglob("*.py")) + sorted(here.rglob("*.lark")) + sorted(schemas_dir().glob("*.json"))


@functools.cache
def library_code(name: str) -> str:
    """The installed library ``name``, told apart without importing it (nor importlib.metadata,
    tens of ms): its folder and each of its modules' size and time of change."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        return "?"
    folder = Path(spec.origin).parent
    files = sorted(folder.glob("*.py"))   # its code (not its tests)
    return str(folder) + "".join(f"|{p.relative_to(folder)}:{s.st_size}:{s.st_mtime_ns}"
                                 for p in files for s in [p.stat()])


def freeze(value, whole: tuple = ()) -> bytes | None:
    """``value`` as bytes that :func:`thaw` makes again, functions written at run time (generated
    code, lambdas) included: kept as their code (marshal), their globals (the namespace, itself
    kept, or a module's by its name), defaults and closure. The objects that are attributes of
    the interpreter's modules (its markers, its tables) are kept by name, so that a thawed value
    holds the very same ones. Instances of the classes ``whole`` are kept by their attributes
    (whatever their own pickling says). None when something in it cannot be kept."""
    out = io.BytesIO()
    try:
        _Keeper(out, _module_objects(), whole).dump(value)
    except (pickle.PicklingError, TypeError, AttributeError, ValueError, RecursionError):
        return None
    return out.getvalue()


def thaw(data: bytes):
    """What :func:`freeze` kept, made again (an entry that does not load raises; see
    :func:`load` for what proves an entry is the one written). The cyclic garbage collector
    waits meanwhile: the many objects made at once, none of them garbage, would start it again
    and again (a thawed ruleset took up to eight times as long)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return pickle.loads(data)
    finally:
        if collecting:
            gc.enable()


class _Keeper(pickle.Pickler):
    def __init__(self, out, named: dict, whole: tuple):
        super().__init__(out, protocol=pickle.HIGHEST_PROTOCOL)
        self.named, self.whole = named, whole

    def reducer_override(self, obj):
        return _reduced(obj, self.named, self.whole)


def _module_objects() -> dict:
    """id -> (module, name) of the interpreter's module attributes that are objects of their own
    (not numbers, texts, classes, functions or modules, which are kept as they are)."""
    package = __name__.rpartition(".")[0]
    plain = (str, int, float, bool, bytes, type(None), type, types.FunctionType, types.ModuleType,
             types.BuiltinFunctionType)
    out: dict = {id(vars(builtins)): ("builtins", None)}   # (the namespace's __builtins__)
    for name, module in list(sys.modules.items()):
        if module is not None and (name == package or name.startswith(package + ".")):
            out[id(vars(module))] = (name, None)
            for attr, value in list(vars(module).items()):
                if not isinstance(value, plain):
                    out.setdefault(id(value), (name, attr))
    return out


def _reduced(obj, named: dict, whole: tuple):
    kind = type(obj)
    if kind is types.CodeType:
        return marshal.loads, (marshal.dumps(obj),)
    if kind is types.ModuleType:
        return importlib.import_module, (obj.__name__,)
    where = named.get(id(obj))
    if where is not None:
        return _module_object, where
    if kind is types.FunctionType and not _importable(obj):
        return _function, (obj.__code__, obj.__globals__, obj.__name__, obj.__defaults__,
                           obj.__closure__, obj.__kwdefaults__, obj.__dict__ or None)
    if kind is types.CellType:
        return _cell, (obj.cell_contents,)
    if kind in whole:
        return _new, (kind,), dict(vars(obj))
    return NotImplemented


def _importable(fn) -> bool:
    """Whether ``fn`` is found by its module and name (pickle keeps it so)."""
    found = sys.modules.get(fn.__module__)
    for part in fn.__qualname__.split("."):
        found = getattr(found, part, None)
    return found is fn


def _module_object(module: str, attr: str | None):
    found = vars(importlib.import_module(module))
    return found if attr is None else found[attr]


def _new(kind: type):
    return object.__new__(kind)


def _cell(value):
    return types.CellType(value)


def _function(code, space, name, defaults, closure, kwdefaults, attributes):
    fn = types.FunctionType(code, space, name, defaults, closure)
    fn.__kwdefaults__ = kwdefaults
    if attributes:
        fn.__dict__.update(attributes)
    return fn
