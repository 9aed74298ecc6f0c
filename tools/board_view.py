"""A text picture of the board for `railrules render` and `play`'s `map` command.

The ruleset says what each hex shows with ``render: {hex: EXPR}`` in ruleset.yaml, a rules
expression over ``h`` giving a short text (its first 3 characters are drawn). Hexes whose ids
are grid coordinates are drawn in place, two text lines per row for the shifted columns;
others are listed after the grid.
"""
from __future__ import annotations

from interpreter.board.hexgrid import col_name, parse_id

WIDTH = 4


def board_picture(game) -> str:
    spec = (game.ruleset.meta.get("render") or {}).get("hex")
    board = game.ruleset.board
    if not spec or board is None or not board.adj:
        return "(this ruleset declares no `render: {hex: ...}` in ruleset.yaml)"
    label = game.compile_expression(spec, ("h",))
    offset = board.offset or "odd-q"
    cells, loose = {}, []
    for h in board.adj:
        text = str(label(h=h))[:WIDTH - 1]
        rc = parse_id(h)
        if rc is None:
            loose.append(f"{h}: {text}")
        else:
            cells[rc] = text
    if not cells:
        return "\n".join(loose)
    cols = range(min(c for c, _ in cells), max(c for c, _ in cells) + 1)
    rows = range(min(r for _, r in cells), max(r for _, r in cells) + 1)
    shifted = 1 if offset == "odd-q" else 0       # which column parity sits half a row lower
    lines = ["    " + "".join(col_name(c).ljust(WIDTH) for c in cols)]
    for r in rows:
        for half in (0, 1):
            row = [cells.get((c, r), "").ljust(WIDTH) if (c % 2 == shifted) == bool(half)
                   else " " * WIDTH for c in cols]
            lines.append(f"{r:>2}{'ab'[half]} " + "".join(row).rstrip())
    return "\n".join([*lines, *loose])
