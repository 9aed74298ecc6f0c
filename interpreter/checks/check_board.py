"""The board is consistent: listed neighbours are symmetric, no hex is cut off (RR203)."""
from __future__ import annotations

from .check_references import where


def check_board(ruleset, sink) -> None:
    board = ruleset.board
    if board is None or not board.adj:
        return
    for h in ruleset.kinds.get("hexes", []):
        listed = ruleset.entities[h].get("neighbours") or []
        for x in listed:
            other = ruleset.entities.get(x, {}).get("neighbours")
            if other is not None and h not in other:
                sink.add("RR203", f"hex {h} lists {x} as a neighbour, but {x} does not list {h}",
                         where(ruleset, h, "neighbours"),
                         hint=f"add {h} to the neighbours of {x}, or remove it here")
        if not board.adj[h] and len(board.adj) > 1:
            sink.add("RR203", f"hex {h} has no neighbours", where(ruleset, h, "id"), severity="warning",
                     hint="check its id against the layout, or list its neighbours")
