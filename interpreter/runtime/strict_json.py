"""Strict JSON for saves and logs: no NaN or Infinity, no key given twice, no nesting deeper than
:data:`MAX_DEPTH`; every refusal is BadSave (RR304). On the runtime floor, so that the engine reads
a save with it (:meth:`Game.from_json`) and the tools read logs with it."""
from __future__ import annotations

import json

from ..errors import BadSave, Diagnostic, Pos

MAX_DEPTH = 64   # lists and mappings inside one another; the shipped games need 6


def refuse(message: str, where: str = "<save>") -> BadSave:
    return BadSave(Diagnostic("RR304", message, Pos(where, 0, 0)))


def _constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def _pairs(pairs: list) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} is given twice")
        out[key] = value
    return out


def read_json(text, where: str = "<save>", what: str = "the save"):
    """``text`` as JSON data; BadSave (RR304) if it is not strict JSON, or nested too deep."""
    try:
        data = json.loads(text, parse_constant=_constant, object_pairs_hook=_pairs)
    except RecursionError:
        raise refuse(f"{what} is nested deeper than {MAX_DEPTH} levels", where) from None
    except (ValueError, UnicodeDecodeError, TypeError) as err:
        raise refuse(f"{what} is not JSON: {err}", where) from None
    depth_check(data, where, what)
    return data


def depth_check(data, where: str = "<save>", what: str = "the save") -> None:
    """BadSave if lists and mappings are nested deeper than MAX_DEPTH (without recursion)."""
    level = [data]
    for _ in range(MAX_DEPTH + 1):
        level = [v for x in level if isinstance(x, (list, dict))
                 for v in (x.values() if isinstance(x, dict) else x)]
        if not level:
            return
    raise refuse(f"{what} is nested deeper than {MAX_DEPTH} levels", where)
