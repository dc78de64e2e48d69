"""A minimal word graph (DAWG) packed into 32-bit edges, for lookups and move generation.

Layout (the shape of wolges' KWG, DAWG part only): ``edges`` is a flat array of
uint32. A *node* is a run of consecutive edges sorted by tile, the last one
flagged ``IS_LAST``. Each edge holds:

* bits 0-21  ``child``: index of the first edge of the node reached (0: none);
* bit 22     ``IS_LAST``: last edge of its node;
* bit 23     ``ACCEPTS``: the path ending with this edge spells a word;
* bits 24-31 the tile (a letter 1..28, never a blank).

``edges[0]`` is a pointer edge whose ``child`` is the root node. Words are byte
strings of letter tiles (see ``alphabet``); the graph is built from words in sorted order
by the incremental minimisation of Daciuk et al. (2000).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Final

from .alphabet import Tile

CHILD_MASK: Final = (1 << 22) - 1
IS_LAST: Final = 1 << 22
ACCEPTS: Final = 1 << 23
TILE_SHIFT: Final = 24


def edge_tile(edge: int) -> Tile:
    """The letter tile carried by an edge."""
    return edge >> TILE_SHIFT


class _State:
    """A node under construction: its outgoing (tile, child, accepts) edges."""

    __slots__ = ("edges", "key")

    def __init__(self) -> None:
        self.edges: list[tuple[Tile, int, bool]] = []  # child is a registered id
        self.key: tuple[tuple[Tile, int, bool], ...] | None = None


class _Builder:
    """Incremental construction of a minimal acyclic automaton from sorted words."""

    def __init__(self) -> None:
        self.register: dict[tuple[tuple[Tile, int, bool], ...], int] = {(): 0}
        self.nodes: list[tuple[tuple[Tile, int, bool], ...]] = [()]  # id -> edges
        self.path: list[_State] = [_State()]  # states along the previous word
        self.accepts: list[bool] = []  # accepts flag of the edge into path[i + 1]
        self.previous = b""

    def add(self, word: bytes) -> None:
        if word <= self.previous:
            if word == self.previous:
                return
            raise ValueError("words must be added in sorted order")
        common = 0
        limit = min(len(word), len(self.previous))
        while common < limit and word[common] == self.previous[common]:
            common += 1
        self._freeze_after(common)
        for tile in word[common:]:
            self.path.append(_State())
            self.accepts.append(False)
            self.path[-2].edges.append((tile, -1, False))  # child filled when frozen
        self.accepts[len(word) - 1] = True
        self.previous = word

    def _freeze_after(self, depth: int) -> None:
        """Register the states of the previous word below ``depth``, deepest first."""
        while len(self.path) > depth + 1:
            state = self.path.pop()
            accepts = self.accepts.pop()
            parent = self.path[-1]
            tile, _, _ = parent.edges[-1]
            parent.edges[-1] = (tile, self._register(state), accepts)

    def _register(self, state: _State) -> int:
        key = tuple(state.edges)
        found = self.register.get(key)
        if found is None:
            found = len(self.nodes)
            self.register[key] = found
            self.nodes.append(key)
        return found

    def finish(self) -> array[int]:
        self._freeze_after(0)
        root = self._register(self.path[0])
        return _pack(self.nodes, root)


def _pack(nodes: list[tuple[tuple[Tile, int, bool], ...]], root: int) -> array[int]:
    """Lay out registered nodes as packed edges; node 0 (no edges) packs to child 0."""
    offsets = [0] * len(nodes)
    position = 1
    for node_id, node in enumerate(nodes):
        if node:
            offsets[node_id] = position
            position += len(node)
    if position > CHILD_MASK:
        raise ValueError("word graph too large for 22-bit edge indices")
    edges = array("I", [0]) * position
    edges[0] = offsets[root] | IS_LAST
    for node_id, node in enumerate(nodes):
        base = offsets[node_id]
        for i, (tile, child, accepts) in enumerate(node):
            edge = offsets[child] | (tile << TILE_SHIFT)
            if accepts:
                edge |= ACCEPTS
            if i == len(node) - 1:
                edge |= IS_LAST
            edges[base + i] = edge
    return edges


def build(sorted_words: Iterable[bytes]) -> array[int]:
    """Pack words (one byte per letter tile, sorted ascending, duplicates allowed) into edges."""
    builder = _Builder()
    for word in sorted_words:
        builder.add(word)
    return builder.finish()


def child_edge(edges: Sequence[int], node: int, tile: Tile) -> int:
    """Index of the edge for ``tile`` in the node starting at ``node``, or -1."""
    if node == 0:
        return -1
    i = node
    while True:
        edge = edges[i]
        found = edge >> TILE_SHIFT
        if found == tile:
            return i
        if found > tile or edge & IS_LAST:
            return -1
        i += 1


def contains(edges: Sequence[int], word: Sequence[Tile]) -> bool:
    """True if ``word`` (letter tiles, no blank bits) is in the graph."""
    node = edges[0] & CHILD_MASK
    edge = -1
    for tile in word:
        edge = child_edge(edges, node, tile)
        if edge < 0:
            return False
        node = edges[edge] & CHILD_MASK
    return edge >= 0 and bool(edges[edge] & ACCEPTS)


def matches(edges: Sequence[int], pattern: Sequence[Tile | None]) -> bool:
    """True if some word of the graph fits ``pattern``: letter tiles, ``None`` for any letter."""

    def walk(edge: int, rest: Sequence[Tile | None]) -> bool:
        if not rest:
            return bool(edges[edge] & ACCEPTS)
        node = edges[edge] & CHILD_MASK
        if rest[0] is not None:
            child = child_edge(edges, node, rest[0])
            return child >= 0 and walk(child, rest[1:])
        i = node
        while node:
            if walk(i, rest[1:]):
                return True
            if edges[i] & IS_LAST:
                return False
            i += 1
        return False

    return bool(pattern) and walk(0, pattern)


def iter_words(edges: Sequence[int]) -> Iterator[tuple[Tile, ...]]:
    """Every word of the graph in sorted order (for tests and exports)."""

    def walk(node: int, prefix: tuple[Tile, ...]) -> Iterator[tuple[Tile, ...]]:
        i = node
        while node:
            edge = edges[i]
            word = prefix + (edge >> TILE_SHIFT,)
            if edge & ACCEPTS:
                yield word
            yield from walk(edge & CHILD_MASK, word)
            if edge & IS_LAST:
                break
            i += 1

    return walk(edges[0] & CHILD_MASK, ())
