"""Where the shipped rulesets and schemas are, from a source tree or an installed wheel."""
from __future__ import annotations

import importlib.util
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
