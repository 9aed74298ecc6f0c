"""A text picture of the board for `railrules render` and `play`'s `map` command.

What each hex shows is the ruleset's ``render: {hex: EXPR}`` (its first 3 characters), where it
sits comes from :func:`tools.pictures.board_model.board_model`, as for the SVG picture. In a layout by
columns (``odd-q``/``even-q``) each grid row takes two text lines, the shifted columns on the
second; in a layout by rows (``odd-r``/``even-r``) each letter is a line, the shifted rows
indented by half a cell. Hexes with no grid place are listed after the grid.
"""
from __future__ import annotations

from railrules.interpreter.board.hexgrid import col_name

from railrules.tools.pictures.board_model import board_model

WIDTH = 4


def board_picture(game, marks: bool = False, paint=None) -> str:
    """The text map; with ``marks``, each hex shows its first letter and then one letter per
    entity with track, a piece or a mark on it (the ruleset's ``render:`` ``track``, ``pieces``
    and ``marks``), and a legend follows, each entity in its colour when ``paint(text, colour)``
    is given (the terminal's). A hex drawn over several grid places shows at each."""
    board = game.ruleset.board
    if board is None or not board.adj:
        return "(this ruleset has no board)"
    if not (game.ruleset.meta.get("render") or {}).get("hex"):
        return "(this ruleset declares no `render: {hex: ...}` in ruleset.yaml)"
    model = board_model(game)
    letters_of = _letters(model.owners) if marks else {}

    def cell(h) -> str:
        on = _on(h)
        if not marks or not on:
            return h.text[:WIDTH - 1]
        return (h.text[:1] + "".join(letters_of[m] for m in on))[:WIDTH - 1]
    cells = {place: cell(h) for h in model.hexes if h.col is not None for place in h.places or [(h.col, h.row)]}
    paint = paint or (lambda text, colour: text)
    legend = ["", "marks: " + ", ".join(paint(f"{letters_of[m]} {name}", colour)
                                        for m, (name, colour) in model.owners.items())] if letters_of else []
    loose = [f"{h.id}: {h.text}" for h in model.hexes if h.col is None]
    if not cells:
        return "\n".join([*loose, *legend])
    letters = range(min(c for c, _ in cells), max(c for c, _ in cells) + 1)
    numbers = range(min(r for _, r in cells), max(r for _, r in cells) + 1)
    odd = model.offset.startswith("odd")
    if model.offset.endswith("-r"):
        lines = ["     " + "".join(str(n).ljust(WIDTH) for n in numbers)]
        for c in letters:
            indent = "  " if (c % 2 == 1) == odd else ""
            lines.append(f"{col_name(c):>3}  " + indent + "".join(
                cells.get((c, n), "").ljust(WIDTH) for n in numbers).rstrip())
        return "\n".join([*lines, *loose, *legend])
    lines = ["    " + "".join(col_name(c).ljust(WIDTH) for c in letters)]
    for r in numbers:
        for half in (0, 1):  # the shifted columns sit half a row lower: on the second line
            row = [cells.get((c, r), "").ljust(WIDTH) if ((c % 2 == 1) == odd) == bool(half)
                   else " " * WIDTH for c in letters]
            lines.append(f"{r:>2}{'ab'[half]} " + "".join(row).rstrip())
    return "\n".join([*lines, *loose, *legend])


def _on(h) -> list:
    """The entities with track, a piece or a mark on the hex, each once."""
    return list(dict.fromkeys([*h.track, *(e for _, e in h.pieces), *h.marks]))


def _letters(owners: dict) -> dict:
    """One letter for each entity with marks: its id's first letter, else the next one free."""
    out, used = {}, set()
    for m in owners:
        pick = next((ch for ch in m.upper() + m.lower() + "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     if ch.isalpha() and ch not in used), "?")
        used.add(pick)
        out[m] = pick
    return out
