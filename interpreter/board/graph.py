"""The board: its hexes' adjacency lists and a group of hexes as a whole number, a bit per hex,
which the builtins' searches read, and a networkx graph of them made when first asked for (for
the Python API: networkx takes about 0.1 s to import, and no game needs it)."""
from __future__ import annotations

import sys
from functools import cached_property
from typing import TYPE_CHECKING

from .hexgrid import grid_neighbours
from ..runtime.memo import keep

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["Board", "build_board"]


class Board:
    """Hexes (nodes, in file order) and their adjacency.

    ``adj`` maps a hex to its neighbours in board order (a plain dict, for speed); ``order``
    maps a hex to its index; ``graph`` is the same board as a networkx graph.
    """

    def __init__(self, near: dict[str, dict[str, None]], order: list[str], offset: str | None = None,
                 blocked: tuple = ()):
        self.offset = offset
        self.blocked = blocked   # (a, b) pairs of neighbouring hexes with no way between them
        self.order = {h: i for i, h in enumerate(order)}
        self.adj = {h: sorted(near[h], key=self.order.__getitem__) for h in order}
        self._distances: dict = {}
        self.frontiers: dict = {}   # tuple of hexes -> their frontier (builtins._frontier)
        self.distances: dict = {}   # (tuple of hexes, hex) -> steps between (builtins._distance)
        self.reaches: dict = {}     # reach's arguments -> the hexes reached, the work (builtins._reach)
        # A group of hexes as one whole number, bit i for the hex of index i: a group's
        # neighbours are an or of its hexes' ``near_bits``, read back in board order by bytes.
        self.bits = {h: 1 << i for h, i in self.order.items()}
        self.near_bits = {h: sum(self.bits[x] for x in near) for h, near in self.adj.items()}
        self._ids = list(order)
        # A group read eight bytes at a time (as 64-bit numbers, in the machine's byte order):
        # each chunk's hexes and neighbours worked out when first met, and kept
        self._chunks = (len(order) + 63) // 64
        self._near_chunk: list = [{} for _ in range(self._chunks)]  # chunk index -> chunk -> near bits
        self._near_list = [self.near_bits[h] for h in order]      # index -> near bits
        # A group's hexes listed two bytes at a time (as 16-bit numbers, in the machine's byte
        # order), each pair's answer made of its two bytes' answers and kept
        self._width = (len(order) + 7) // 8
        self._pairs = (self._width + 1) // 2
        self._by_byte: list = [{} for _ in range(self._width)]  # byte index -> byte -> its hexes
        self._by_pair: list = [{} for _ in range(self._pairs)]  # pair index -> pair -> its hexes

    def __getstate__(self) -> dict:
        """The board as pickled (a ruleset kept in the user cache, :mod:`..data.kept`): without
        the answers it keeps, found again when asked, so that what is kept is the same whatever
        was played on the board before."""
        state = dict(vars(self))
        state.pop("graph", None)
        state.update(_distances={}, frontiers={}, distances={}, reaches={},
                     _by_byte=[{} for _ in range(self._width)], _by_pair=[{} for _ in range(self._pairs)],
                     _near_chunk=[{} for _ in range(self._chunks)])
        return state

    @cached_property
    def graph(self) -> nx.Graph:
        """The board as a networkx graph."""
        import networkx as nx
        graph = nx.Graph()
        graph.add_nodes_from(self._ids)
        graph.add_edges_from((h, x) for h, near in self.adj.items() for x in near)
        return graph

    def hexes_in(self, bits: int) -> list:
        """The hexes of the bits set in ``bits``, in board order: a few one by one, more two bytes
        at a time, each pair's hexes kept."""
        out: list = []
        if bits.bit_count() <= 8:
            ids = self._ids
            while bits:
                low = bits & -bits
                out.append(ids[low.bit_length() - 1])
                bits ^= low
            return out
        tables = self._by_pair
        for i, pair in enumerate(self._pairs_of(bits)):
            if pair:
                names = tables[i].get(pair)
                if names is None:
                    low, high = _bytes_of(pair)
                    names = tables[i][pair] = self._hexes_of_byte(2 * i, low) + self._hexes_of_byte(2 * i + 1, high)
                out += names
        return out

    def around(self, bits: int) -> int:
        """The hexes next to those of ``bits`` (an or of their ``near_bits``), as bits: a few
        hexes one by one, more eight bytes at a time, each chunk's answer kept."""
        out = 0
        if bits.bit_count() <= 3:
            near = self._near_list
            while bits:
                low = bits & -bits
                out |= near[low.bit_length() - 1]
                bits ^= low
            return out
        tables = self._near_chunk
        for i, chunk in enumerate(memoryview(bits.to_bytes(8 * self._chunks, "little")).cast("Q")):
            if chunk:
                found = tables[i].get(chunk)
                if found is None:
                    near = self._near_list
                    found = 0
                    for k in self._indices(i, chunk):
                        found |= near[k]
                    keep(tables[i], chunk, found, _KEPT_CHUNKS)
                out |= found
        return out

    def _pairs_of(self, bits: int) -> memoryview:
        """The bits two bytes at a time, lowest first (each pair a 16-bit number in the machine's
        byte order: :func:`_bytes_of` takes it apart)."""
        return memoryview(bits.to_bytes(2 * self._pairs, "little")).cast("H")

    def _hexes_of_byte(self, i: int, byte: int) -> tuple:
        """The hexes of byte ``i`` of a group, kept."""
        if i >= self._width or not byte:
            return ()
        names = self._by_byte[i].get(byte)
        if names is None:
            names = self._by_byte[i][byte] = tuple(self._ids[8 * i + k] for k in range(8) if byte >> k & 1)
        return names

    @staticmethod
    def _indices(i: int, chunk: int) -> list:
        """The hexes' indices of chunk ``i`` of a group (read eight bytes at a time, as a 64-bit
        number in the machine's byte order), lowest first."""
        if _BIG:   # (the chunk's bytes were read in the other order)
            chunk = int.from_bytes(chunk.to_bytes(8, "big"), "little")
        out = []
        while chunk:
            low = chunk & -chunk
            out.append(64 * i + low.bit_length() - 1)
            chunk ^= low
        return out

    @cached_property
    def ways(self) -> dict:
        """Each hex's hexes one step away in the six directions of its grid (0 N, 1 NE, 2 SE,
        3 S, 4 SW, 5 NW), none where the board ends or the way is blocked (a board with a grid
        layout)."""
        from .hexgrid import step_id
        offset = self.offset
        if not offset:
            return {}   # no grid, no directions
        return {h: tuple(x if x in near else None for x in (step_id(h, d, offset) for d in range(6)))
                for h, near in self.adj.items()}

    def spread(self, bits: int, within: int) -> int:
        """The hexes of ``within`` joined to those of ``bits`` through hexes of ``within`` (and
        ``bits`` itself), as bits."""
        seen = ring = bits
        while ring:
            ring = self.around(ring) & within & ~seen
            seen |= ring
        return seen

    def distances_to(self, h: str) -> dict:
        """Fewest steps from every hex that has a way to ``h`` (kept: the board never changes)."""
        found = self._distances.get(h)
        if found is None:   # a breadth-first walk out from h (the board's ways go both ways)
            found = self._distances[h] = {h: 0}
            ring, steps = [h], 0
            while ring:
                steps += 1
                reached = []
                for x in ring:
                    for y in self.adj[x]:
                        if y not in found:
                            found[y] = steps
                            reached.append(y)
                ring = reached
        return found


def _bytes_of(pair: int) -> tuple[int, int]:
    """A pair of :meth:`Board._pairs_of` as its lower and higher byte."""
    if _BIG:
        return pair >> 8, pair & 255
    return pair & 255, pair >> 8


_BIG = sys.byteorder == "big"
_KEPT_CHUNKS = 4096   # the chunks a table keeps (the groups met change: it is cleared when full)


def build_board(hexes: dict, offset: str | None,
                blocked: list | tuple = ()) -> tuple[Board, list[tuple[str, str, str]]]:
    """Build the board from ``{id: record}``; records may list extra ``neighbours``;
    ``blocked`` pairs of neighbouring hexes have no way between them (a lake, a sound).

    Returns the board and a list of problems: (where, hex, what is wrong), where is
    ``neighbours`` (a neighbour that is not a hex) or ``blocked`` (its index).
    """
    ids = list(hexes)
    near: dict[str, dict[str, None]] = {h: {} for h in ids}   # hex -> its neighbours (an ordered set)

    def link(a: str, b: str) -> None:
        near[a][b] = near[b][a] = None
    problems = []
    if offset:
        for h, around in grid_neighbours(ids, offset).items():
            for x in around:
                link(h, x)
    for h, record in hexes.items():
        for x in record.get("neighbours", []) or []:
            if x not in hexes:
                problems.append(("neighbours", h, f"hex {h} names neighbour '{x}', which is not a hex"))
            else:
                link(h, x)
    cut = []
    for i, (a, b) in enumerate(blocked):
        missing = [x for x in (a, b) if x not in hexes]
        if missing:
            problems.append(("blocked", i, f"blocked edge {a}-{b}: '{missing[0]}' is not a hex"))
        elif (a, b) in cut or (b, a) in cut:
            problems.append(("blocked", i, f"blocked edge {a}-{b} is listed twice"))
        elif b not in near[a]:
            problems.append(("blocked", i, f"blocked edge {a}-{b}: the two hexes are not neighbours"))
        else:
            near[a].pop(b, None)
            near[b].pop(a, None)
            cut.append((a, b))
    return Board(near, ids, offset, tuple(cut)), problems
