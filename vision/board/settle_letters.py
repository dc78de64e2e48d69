"""Unsure letters of a still board settled by the words they make (issue 69).

A tournament board is made of words of the lexicon: in duplicate only the master play, a legal play,
is put on the board (D.I.1, D.III.15); in a classic game a play found invalid is taken back (C.38-C.42),
and only an unchallenged one may stay. A tile font the classifier never saw leaves some letters unsure,
spread over two or three look-alikes (``O``/``Q``, ``I``/``L``), while the words through them admit
only one. So, where a board reads as a played game's board (``reads_as_game``: most of the words it
reads surely are words of the lexicon; a test pattern, a foreign set or a font read surely wrong does
not), each group of unsure letters that share words takes the likeliest assignment of their candidates
(look-alike letters, or no tile at all) under which every word beside them is a word. A blank (``?``)
stands for any letter.

Nothing read surely is changed. A settled square keeps the classifier's probability of its new label
as its confidence, below ``SURE``, so the tracker and the arbiter still see a doubt. ``labels`` are
15 x 15 class names (``labels`` module), row A first; ``probabilities`` are (225, len(CLASSES)),
row-major over the same squares.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
from numpy.typing import NDArray

from rules_core.alphabet import Tile
from rules_core.board import Square
from rules_core.lexicon import Lexicon

from .geometry import SIZE
from .label_grids import Labels
from .labels import BLANK, CLASSES, EMPTY, FOREIGN, INDEX, SPANISH, is_tile, tile_of

SURE: Final = 0.7  # the tracker's doubt threshold (TrackerSettings.min_confidence)
GAME_SHARE: Final = 0.9  # share of the surely read words that must be words for a board to read as a game's
GAME_WORDS: Final = 3  # and at least this many surely read words
CANDIDATES: Final = 4  # letters tried for an unsure square: its likeliest Spanish letters...
FLOOR: Final = 0.01  # ...of at least this probability
GROUP_LIMIT: Final = 4  # unsure squares settled together at most (4**4 assignments)

_SPANISH_INDEX: Final = np.array([INDEX[name] for name in CLASSES if name in SPANISH])


@dataclass(frozen=True)
class Settled:
    """The labels after settling, and the squares whose letter the words changed."""

    labels: Labels
    changed: tuple[Square, ...] = ()
    reads_as_game: bool = False


def words_of(labels: Labels) -> Iterator[tuple[Square, ...]]:
    """Every run of two or more tiles in a row (left to right) or a column (top to bottom)."""
    grid = [list(row) for row in labels]
    for i in range(SIZE):
        yield from (tuple(run) for run in _runs([(i, j) for j in range(SIZE)], grid))
    for i in range(SIZE):
        yield from (tuple(run) for run in _runs([(j, i) for j in range(SIZE)], grid))


def settle_letters(labels: Labels, confidence: NDArray[np.float32], probabilities: NDArray[np.float32], lexicon: Lexicon) -> Settled:
    """Settle the unsure letters of a board that reads as a game's (see the module docstring)."""
    words = list(words_of(labels))
    unsure = {sq for word in words for sq in word if _unsure(labels, confidence, sq)}
    if not _reads_as_game(labels, words, unsure, lexicon):
        return Settled(labels)
    grid = [list(row) for row in labels]
    changed: list[Square] = []
    for group in _groups(unsure, words):
        best = _best_assignment(group, grid, probabilities, lexicon)
        for square, name in zip(group, best or ()):
            if grid[square[0]][square[1]] != name:
                grid[square[0]][square[1]] = name
                changed.append(square)
    return Settled(tuple(tuple(row) for row in grid), tuple(changed), True)


def _unsure(labels: Labels, confidence: NDArray[np.float32], square: Square) -> bool:
    """A Spanish letter or a foreign one read below ``SURE`` (blanks are the colour's to say)."""
    name = labels[square[0]][square[1]]
    return (name in SPANISH or name == FOREIGN) and float(confidence[square]) < SURE


def _reads_as_game(labels: Labels, words: list[tuple[Square, ...]], unsure: set[Square], lexicon: Lexicon) -> bool:
    """At least ``GAME_WORDS`` words read surely, ``GAME_SHARE`` of them words, none with a foreign letter."""
    sure = [w for w in words if not any(sq in unsure for sq in w)]
    if any(labels[r][c] == FOREIGN for w in sure for r, c in w):
        return False
    valid = sum(_is_word([labels[r][c] for r, c in w], lexicon) for w in sure)
    return len(sure) >= GAME_WORDS and valid >= GAME_SHARE * len(sure)


def _groups(unsure: set[Square], words: list[tuple[Square, ...]]) -> Iterator[tuple[Square, ...]]:
    """The unsure squares joined by the words they share, each group sorted, none over ``GROUP_LIMIT``."""
    parent = {sq: sq for sq in unsure}

    def root(sq: Square) -> Square:
        while parent[sq] != sq:
            sq = parent[sq]
        return sq

    for word in words:
        inside = [sq for sq in word if sq in unsure]
        for a, b in zip(inside, inside[1:]):
            parent[root(a)] = root(b)
    groups: dict[Square, list[Square]] = {}
    for sq in sorted(unsure):
        groups.setdefault(root(sq), []).append(sq)
    yield from (tuple(g) for g in groups.values() if len(g) <= GROUP_LIMIT)


def _best_assignment(
    group: tuple[Square, ...], grid: list[list[str]], probabilities: NDArray[np.float32], lexicon: Lexicon
) -> tuple[str, ...] | None:
    """The likeliest names for ``group`` (letters, or empty for a tile that may be none) under which
    every word beside them is a word; None when the names read already do or no assignment does."""
    choices = [candidates(probabilities[r * SIZE + c], grid[r][c]) for r, c in group]
    if _words_beside(group, tuple(c[0][0] for c in choices), grid, lexicon):
        return None
    best, best_p = None, 0.0
    for assignment in itertools.product(*choices):
        p = float(np.prod([q for _, q in assignment]))
        names = tuple(n for n, _ in assignment)
        if p > best_p and _words_beside(group, names, grid, lexicon):
            best, best_p = names, p
    return best


def candidates(row: NDArray[np.float32], read: str, empty: bool = True) -> list[tuple[str, float]]:
    """A square's names to try with their probabilities (``row``: its class probabilities): the name
    read first, then the ``CANDIDATES`` likeliest other Spanish letters and (``empty``) the empty
    square, each of at least ``FLOOR``."""
    order = _SPANISH_INDEX[np.argsort(-row[_SPANISH_INDEX])][:CANDIDATES]
    tried = [*order, INDEX[EMPTY]] if empty else list(order)
    others = [(CLASSES[i], float(row[i])) for i in tried if CLASSES[i] != read and row[i] >= FLOOR]
    return [(read, float(row[INDEX[read]])), *others]


def _words_beside(group: tuple[Square, ...], names: tuple[str, ...], grid: list[list[str]], lexicon: Lexicon) -> bool:
    """With ``names`` on ``group``, every run of two or more tiles in their rows and columns that holds
    a square of the group or ends beside one is a word."""
    trial = [list(row) for row in grid]
    for (r, c), name in zip(group, names):
        trial[r][c] = name
    near = {(r + dr, c + dc) for r, c in group for dr, dc in ((0, 0), (0, 1), (0, -1), (1, 0), (-1, 0))}
    lines = {("row", r) for r, _ in group} | {("col", c) for _, c in group}
    for kind, i in lines:
        squares = [(i, j) for j in range(SIZE)] if kind == "row" else [(j, i) for j in range(SIZE)]
        for run in _runs(squares, trial):
            if any(sq in near for sq in run) and not _is_word([trial[r][c] for r, c in run], lexicon):
                return False
    return True


def _runs(line: list[Square], grid: list[list[str]]) -> Iterator[list[Square]]:
    """The runs of two or more tiles along ``line``."""
    run: list[Square] = []
    for square in [*line, None]:
        if square is not None and is_tile(grid[square[0]][square[1]]):
            run.append(square)
            continue
        if len(run) >= 2:
            yield run
        run = []


def _is_word(names: Sequence[str], lexicon: Lexicon) -> bool:
    """True if the tiles named spell a word, a blank standing for any letter (a foreign one: never)."""
    pattern: list[Tile | None] = []
    for name in names:
        tile = tile_of(name)
        if tile is None and name != BLANK:
            return False
        pattern.append(tile)
    return lexicon.matches(pattern)
