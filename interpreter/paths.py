"""Where the shipped rulesets and schemas are, from a source tree or an installed wheel, and how
a ruleset's files are named to the people reading them."""
from __future__ import annotations

import functools
import importlib.util
import os
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def _installed(package: str) -> Path | None:
    spec = importlib.util.find_spec(package)
    if spec and spec.submodule_search_locations:
        for loc in spec.submodule_search_locations:
            return Path(loc)
    return None


def _find(name: str) -> Path:
    source_tree = _HERE.parent / name
    if source_tree.is_dir():
        return source_tree
    return _installed(name) or source_tree


def rulesets_dir() -> Path:
    return _find("rulesets")


def schemas_dir() -> Path:
    return _find("schemas")


def shipped_rulesets() -> list[str]:
    root = rulesets_dir()
    return sorted(p.parent.name for p in root.glob("*/ruleset.yaml"))


def in_ruleset(file: str, line: int | None = None) -> str:
    """A ruleset's file as players and designers name it, from its ruleset folder's name
    (``RULESET/rules/turn.rules``, with ``line``: ``...turn.rules:11``); a file of the
    shared library as ``library/auction.rules``; any other file as given. Never the folder the
    package is installed in: what the play prompt, ``why``, ``coverage``, ``doc``, ``test``, the
    language server's hover and the ``view`` page show."""
    shown = _in_ruleset(os.path.abspath(file)) if file and not file.startswith("<") else None
    return (shown or file) + (f":{line}" if line is not None else "")


def place_in_ruleset(where: str) -> str:
    """A ``file:line`` place named as :func:`in_ruleset` names its file."""
    file, _, line = where.rpartition(":")
    return in_ruleset(file, int(line)) if line.isdigit() and file else in_ruleset(where)


@functools.lru_cache(maxsize=1024)
def _in_ruleset(path: str) -> str | None:
    here = Path(path)
    for folder in here.parents:
        if (folder / "ruleset.yaml").is_file():
            return here.relative_to(folder.parent).as_posix()
    library = rulesets_dir() / "library"
    for root in {library, library.resolve()}:
        if here.is_relative_to(root):
            return "library/" + here.relative_to(root).as_posix()
    return None
