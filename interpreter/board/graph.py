"""The board as a networkx graph, plus the adjacency lists the hot paths read."""
from __future__ import annotations

import networkx as nx

from .hexgrid import grid_neighbours

__all__ = ["Board", "build_board"]


class Board:
    """Hexes (nodes, in file order) and their adjacency.

    ``graph`` is the networkx graph used for components and paths; ``adj`` maps a hex to
    its neighbours in board order (a plain dict, for speed); ``order`` maps a hex to its index.
    """

    def __init__(self, graph: nx.Graph, order: list[str], offset: str | None = None,
                 blocked: tuple = ()):
        self.graph = graph
        self.offset = offset
        self.blocked = blocked   # (a, b) pairs of neighbouring hexes with no way between them
        self.order = {h: i for i, h in enumerate(order)}
        self.adj = {h: sorted(graph.adj[h], key=self.order.__getitem__) for h in order}
        self._distances: dict = {}
        self.frontiers: dict = {}   # tuple of hexes -> their frontier (builtins._frontier)
        self.distances: dict = {}   # (tuple of hexes, hex) -> steps between (builtins._distance)
        # A group of hexes as one whole number, bit i for the hex of index i: a group's
        # neighbours are an or of its hexes' ``near_bits``, read back in board order by bytes.
        self.bits = {h: 1 << i for h, i in self.order.items()}
        self.near_bits = {h: sum(self.bits[x] for x in near) for h, near in self.adj.items()}
        self._ids = list(order)
        self._width = (len(order) + 7) // 8
        self._by_byte: list = [{} for _ in range(self._width)]  # byte index -> byte -> its hexes

    def hexes_in(self, bits: int) -> list:
        """The hexes of the bits set in ``bits``, in board order."""
        out: list = []
        for i, byte in enumerate(bits.to_bytes(self._width, "little")):
            if byte:
                names = self._by_byte[i].get(byte)
                if names is None:
                    names = self._by_byte[i][byte] = tuple(
                        self._ids[8 * i + k] for k in range(8) if byte >> k & 1)
                out += names
        return out

    def distances_to(self, h: str) -> dict:
        """Fewest steps from every hex that has a way to ``h`` (kept: the board never changes)."""
        found = self._distances.get(h)
        if found is None:
            found = self._distances[h] = nx.single_source_shortest_path_length(self.graph, h)
        return found


def build_board(hexes: dict, offset: str | None,
                blocked: list | tuple = ()) -> tuple[Board, list[tuple[str, str, str]]]:
    """Build the board from ``{id: record}``; records may list extra ``neighbours``;
    ``blocked`` pairs of neighbouring hexes have no way between them (a lake, a sound).

    Returns the board and a list of problems: (where, hex, what is wrong), where is
    ``neighbours`` (a neighbour that is not a hex) or ``blocked`` (its index).
    """
    ids = list(hexes)
    graph = nx.Graph()
    graph.add_nodes_from(ids)
    problems = []
    if offset:
        for h, near in grid_neighbours(ids, offset).items():
            graph.add_edges_from((h, x) for x in near)
    for h, record in hexes.items():
        for x in record.get("neighbours", []) or []:
            if x not in hexes:
                problems.append(("neighbours", h, f"hex {h} names neighbour '{x}', which is not a hex"))
            else:
                graph.add_edge(h, x)
    cut = []
    for i, (a, b) in enumerate(blocked):
        missing = [x for x in (a, b) if x not in hexes]
        if missing:
            problems.append(("blocked", i, f"blocked edge {a}-{b}: '{missing[0]}' is not a hex"))
        elif (a, b) in cut or (b, a) in cut:
            problems.append(("blocked", i, f"blocked edge {a}-{b} is listed twice"))
        elif not graph.has_edge(a, b):
            problems.append(("blocked", i, f"blocked edge {a}-{b}: the two hexes are not neighbours"))
        else:
            graph.remove_edge(a, b)
            cut.append((a, b))
    return Board(graph, ids, offset, tuple(cut)), problems
