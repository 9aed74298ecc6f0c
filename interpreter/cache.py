"""A user cache of what every start would otherwise rebuild (the rules grammar's parser tables,
which YAML data its schema already accepted), so that a command starts quickly.

Nothing depends on it for correctness: every entry is named by a hash of everything its content
depends on, and holds its own name and the hash of what it keeps, checked in the one file opened
(:func:`load`): an entry under another's name, damaged, a link, or writable by others is rebuilt,
like a missing one; and a cache that cannot be written is simply not used. It lives in ``$RAILRULES_CACHE_DIR`` if set (empty: no cache), else in the
user's cache folder (``$XDG_CACHE_HOME/railrules``, ``~/.cache/railrules``; on Windows
``%LOCALAPPDATA%/railrules/cache``; on macOS ``~/Library/Caches/railrules``). Deleting it is
always safe. A folder that other users can write to is not used (entries are unpickled).
"""
from __future__ import annotations

import hashlib
import os
import stat
import sys
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
