"""Entity fields that look like a misspelt reference to an entity (RR201)."""
from __future__ import annotations

import difflib
from functools import lru_cache


def where(ruleset, ent, field, inner=()):
    positions, path = ruleset.places[ent]
    return positions.of(*path, field, *inner)


def check_references(ruleset, sink) -> None:
    names = set(ruleset.names.entities) | set(ruleset.kinds)
    pool = tuple(sorted(names))
    suggestions: dict = {}  # the same words ("plain", "forest"...) recur on hundreds of hexes

    def look(value, field, ent, path=()):
        if isinstance(value, str):
            if value in names or " " in value or not value[:1].isalpha():
                return
            if value not in suggestions:
                suggestions[value] = _misspelt(value, pool)
            close = suggestions[value]
            if close and close[0] != value:
                shown = ".".join([ent, field, *map(str, path)])
                sink.add("RR201", f"{shown} is '{value}', which names no entity",
                         where(ruleset, ent, field, path), hint=f"did you mean '{close[0]}'?")
        elif isinstance(value, list):
            for i, v in enumerate(value):
                look(v, field, ent, path + (i,))
        elif isinstance(value, dict):
            for k, v in value.items():
                look(k, field, ent, path + (k,))
                look(v, field, ent, path + (k,))

    for ent, rec in ruleset.entities.items():
        for field, value in rec.items():
            if field not in ("id", "kind", "name", "alias"):
                look(value, field, ent)
    for key, value in ruleset.player_fields.items():
        for k in (value if isinstance(value, dict) else {}):
            if k not in names:
                close = difflib.get_close_matches(k, pool, n=1, cutoff=0.6)
                if close:
                    sink.add("RR201", f"player field '{key}' has key '{k}', which names no entity",
                             ruleset.meta_places["components"].of("player", key, k),
                             hint=f"did you mean '{close[0]}'?")


@lru_cache(maxsize=4096)
def _misspelt(value: str, pool: tuple) -> list:
    """The name of ``pool`` that ``value`` is nearly (a variant checks the same words again)."""
    return difflib.get_close_matches(value, pool, n=1, cutoff=0.85)
