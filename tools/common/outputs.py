"""The files railrules writes for the user (saves, logs, reports, pictures): checked before any
work starts, written whole or not at all, and never over something the user did not ask to
replace.

- :func:`check` refuses, before a game is played, a path that cannot be written: a folder, a
  missing folder, no permission, an existing file (unless ``force``), or something that is not a
  regular file (a symlink, FIFO, device or socket: even ``force`` replaces only regular files).
- :func:`write` replaces the file through a temporary file in the same folder: written, flushed
  to disk (``fsync``), renamed over the path, and the folder flushed too, so that a crash or a
  full disk leaves the old file or the new one, never half of one.
- :func:`create` is :func:`write` for a path that must not exist yet: the file appears under its
  name only if no other file (another ``railrules play`` started at the same time) took it.

Every failure is an :class:`OutputError` (``cannot write PATH: WHY``).
"""
from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path


class OutputError(Exception):
    """A file that cannot be written: ``cannot write PATH: WHY``."""

    def __init__(self, path, why: str):
        self.path, self.why = path, why
        super().__init__(f"cannot write {path}: {why}")


class OutputExists(OutputError):
    """A file that is already there, which the user did not ask to replace (no --force)."""

    def __init__(self, path, option: str = ""):
        super().__init__(path, "it already exists")
        self.option = option

    def __str__(self) -> str:
        return (f"{self.option + ' ' if self.option else ''}{self.path} already exists; choose "
                "another name, or add --force to overwrite it")


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    for test, word in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return word
    return None


def _lstat(path: Path):
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise OutputError(path, err.strerror or str(err)) from None


def _folder(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


def check_path(path: Path, force: bool = False, option: str = "") -> None:
    """Raise OutputError if ``path`` cannot be written as a new file, or OutputExists if a file
    is there and not ``force``; with ``force``, only a regular file may be replaced."""
    path = Path(path)
    there = _lstat(path)
    folder = _folder(path)
    if there is not None:
        kind = _kind(there.st_mode)
        if kind == "a folder":
            raise OutputError(path, "it is a folder")
        if kind:
            raise OutputError(path, f"it is {kind}, not a regular file: railrules replaces only "
                              "regular files, even with --force")
        if not force:
            raise OutputExists(path, option)
    if not folder.is_dir():
        raise OutputError(path, f"the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(path, f"permission denied in the folder {folder}")


def check(paths: dict, force: bool = False) -> None:
    """:func:`check_path` for each of ``{option: path or None}``, before any work."""
    for option, path in paths.items():
        if path is not None:
            check_path(Path(path), force, option)


def _temporary(path: Path, data: bytes) -> str:
    """A temporary file beside ``path`` holding ``data``, on disk (fsync); its name."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=_folder(path))
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def _sync_folder(path: Path) -> None:
    """Flush the folder's entry for the file to disk (where the system allows it)."""
    with contextlib.suppress(OSError):
        fd = os.open(_folder(path), os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _bytes(data: str | bytes) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else data


def write(path: Path, data: str | bytes) -> None:
    """Write ``path`` whole or not at all, replacing a regular file already there (the caller
    checked that it may); anything else at the path is refused."""
    path = Path(path)
    there = _lstat(path)
    if there is not None and _kind(there.st_mode):
        raise OutputError(path, f"it is {_kind(there.st_mode)}, not a regular file")
    try:
        tmp = _temporary(path, _bytes(data))
        try:
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as err:
        raise OutputError(path, err.strerror or str(err)) from None
    _sync_folder(path)


def create(path: Path, data: str | bytes) -> None:
    """Write ``path`` whole, only if nothing is there yet: of two processes creating the same
    path at once, exactly one succeeds; the other gets an OutputError saying it exists."""
    path = Path(path)
    try:
        tmp = _temporary(path, _bytes(data))
        try:
            os.link(tmp, path)          # atomic, and fails if the name is taken
        except OSError as err:
            if err.errno == errno.EEXIST:
                raise OutputExists(path) from None
            if err.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
                raise
            _create_without_links(path, _bytes(data))   # a file system without hard links
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    except OSError as err:
        raise OutputError(path, err.strerror or str(err)) from None
    _sync_folder(path)


def _create_without_links(path: Path, data: bytes) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        raise OutputExists(path) from None
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
