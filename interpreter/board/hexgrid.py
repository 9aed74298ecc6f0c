"""Hex grid coordinates: hex ids such as ``C4`` (column letters, row number) to neighbours.

Supported layouts (``layout.offset`` in a board file), flat-topped hexes in columns:

* ``odd-q``  — odd columns (B, D, ...) are shifted down half a hex;
* ``even-q`` — even columns (A, C, ...) are shifted down half a hex.
"""
from __future__ import annotations

import re

__all__ = ["LAYOUTS", "parse_id", "col_name", "offset_neighbours", "grid_neighbours", "to_axial",
           "from_axial", "step_id"]

_ID = re.compile(r"^([A-Z]+)(-?[0-9]+)$")
LAYOUTS = ("odd-q", "even-q")


def parse_id(hex_id: str) -> tuple[int, int] | None:
    """``"C4"`` -> (column 2, row 4); None when the id is not letters then a number."""
    m = _ID.match(hex_id)
    if not m:
        return None
    col = 0
    for ch in m.group(1):
        col = col * 26 + (ord(ch) - 64)
    return col - 1, int(m.group(2))


def col_name(col: int) -> str:
    """Column 2 -> ``"C"``: the letters of a column number (from 0), as :func:`parse_id` reads them."""
    name = ""
    col += 1
    while col:
        col, r = divmod(col - 1, 26)
        name = chr(65 + r) + name
    return name


def offset_neighbours(col: int, row: int, offset: str) -> list[tuple[int, int]]:
    """The six grid neighbours of (col, row) in an offset-column layout."""
    shifted = (col % 2 == 1) if offset == "odd-q" else (col % 2 == 0)
    side = (0, 1) if shifted else (-1, 0)
    out = [(col, row - 1), (col, row + 1)]
    for dc in (-1, 1):
        out += [(col + dc, row + side[0]), (col + dc, row + side[1])]
    return out


def grid_neighbours(hex_ids: list[str], offset: str) -> dict[str, list[str]]:
    """Neighbours of every id among ``hex_ids`` (ids that do not parse get none)."""
    present = set(hex_ids)
    result: dict[str, list[str]] = {}
    for h in hex_ids:
        rc = parse_id(h)
        if rc is None:
            result[h] = []
            continue
        near = (f"{col_name(c)}{r}" for c, r in offset_neighbours(rc[0], rc[1], offset) if c >= 0)
        result[h] = [x for x in near if x in present]
    return result


# Directions of flat-topped hexes, clockwise from north: 0 N, 1 NE, 2 SE, 3 S, 4 SW, 5 NW.
_AXIAL_DIRS = [(0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0)]


def to_axial(col: int, row: int, offset: str) -> tuple[int, int]:
    """(column, row) of an offset layout -> axial (q, r), where the six directions are fixed steps."""
    shift = (col - (col & 1)) // 2 if offset == "odd-q" else (col + (col & 1)) // 2
    return col, row - shift


def from_axial(q: int, r: int, offset: str) -> tuple[int, int]:
    """Axial (q, r) -> (column, row) of an offset layout: the inverse of :func:`to_axial`."""
    shift = (q - (q & 1)) // 2 if offset == "odd-q" else (q + (q & 1)) // 2
    return q, r + shift


def step_id(hex_id: str, direction: int, offset: str) -> str | None:
    """The id of the hex one step from ``hex_id`` in ``direction`` (0-5), on an unbounded grid."""
    rc = parse_id(hex_id)
    if rc is None:
        return None
    q, r = to_axial(rc[0], rc[1], offset)
    dq, dr = _AXIAL_DIRS[direction % 6]
    col, row = from_axial(q + dq, r + dr, offset)
    return f"{col_name(col)}{row}" if col >= 0 else None
