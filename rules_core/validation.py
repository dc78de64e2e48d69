"""Play validation: is a play legal on this board, and why not (FILE classic rules).

``check_play`` runs its checks in a fixed order and says what is wrong in sentences
an arbiter can act on:

1. the notation agrees with the tiles already on the board;
2. the main word is complete: no tile right before or after it (C.8);
3. the play places at least one tile, and at most seven (C.6);
4. the tiles placed are on the rack, when the rack is known;
5. the first play covers the centre H8 with two or more tiles (C.6; C.20 lets the
   opponent accept it off the centre), a later one touches the board (C.2, C.9);
6. every word formed is in the lexicon (C.8, D.I.2), listing every one that is not.

Checks 1-3 stop the run (there is no play to speak of); 4-6 are all reported.
``play_from_placement`` turns tiles put on the board (a camera's view) into the
play they make, checking that they lie in one line with no gaps (C.8, C.21).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .alphabet import BLANK, Tile, is_blank, label, letter_of, word_text
from .board import CENTRE, Board, Square, square_name
from .lexicon import Lexicon
from .notation import Play
from .scoring import RACK_SIZE, Score, score_placement, word_extent


class PlacementError(ValueError):
    """Tiles put on the board that make no play (not in one line, gaps, occupied squares)."""


@dataclass(frozen=True)
class Problem:
    """One reason a play is illegal: a stable code, a sentence, the article it applies."""

    code: str
    message: str
    article: str = ""
    word: str = ""  # the word at fault, for ``unknown_word``

    def __str__(self) -> str:
        return f"{self.message} ({self.article})" if self.article else self.message


@dataclass(frozen=True)
class PlayCheck:
    """The verdict on a play: its canonical form, the tiles it places, score and problems."""

    play: Play
    placed: dict[Square, Tile] = field(default_factory=dict)
    score: Score | None = None
    problems: tuple[Problem, ...] = ()

    @property
    def legal(self) -> bool:
        return not self.problems

    @property
    def points(self) -> int:
        """The play's score when legal, else 0."""
        return self.score.total if self.score and self.legal else 0

    @property
    def invalid_words(self) -> tuple[str, ...]:
        return tuple(p.word for p in self.problems if p.code == "unknown_word")


def check_play(
    board: Board,
    play: Play,
    lexicon: Lexicon,
    rack: Sequence[Tile] | None = None,
    *,
    off_centre_accepted: bool = False,
) -> PlayCheck:
    """Check ``play`` on ``board`` in the fixed order of this module's docstring.

    ``rack`` (tiles, BLANK for a blank) enables check 4. ``off_centre_accepted``
    records that the opponent accepted a first play off the centre (C.20.2).
    """
    problems = _board_agreement(board, play)
    if problems:
        return PlayCheck(play, problems=problems)
    play = _with_board_tiles(board, play)
    placed = {sq: t for sq, t in zip(play.squares(), play.word) if not board[sq]}
    problems = _completeness(board, play) or _tile_count(placed)
    if problems:
        return PlayCheck(play, placed, problems=problems)
    play = canonical_play(board, play, placed)
    score = score_placement(board, placed, play.down)
    problems = (
        _rack_problems(placed, rack)
        + _position_problems(board, placed, off_centre_accepted)
        + _word_problems(score, lexicon)
    )
    return PlayCheck(play, placed, score, problems)


def play_from_placement(board: Board, placed: Mapping[Square, Tile]) -> Play:
    """The play made by putting ``placed`` tiles on empty squares of ``board``.

    Raises PlacementError when they are not on empty squares in one row or column
    with no gap (C.8, C.21).
    """
    if not placed:
        raise PlacementError("no se ha colocado ninguna ficha")
    for square in sorted(placed):
        if board[square]:
            raise PlacementError(f"la casilla {square_name(*square)} ya está ocupada")
    rows = {r for r, _ in placed}
    cols = {c for _, c in placed}
    if len(rows) > 1 and len(cols) > 1:
        raise PlacementError("las fichas no están en una misma fila o columna (C.8, C.21)")
    if len(placed) == 1:
        square = next(iter(placed))
        down = len(word_extent(board, placed, square, False)) < 2
    else:
        down = len(cols) == 1
    line = word_extent(board, placed, min(placed), down)
    missing = [sq for sq in placed if sq not in line]
    if missing:
        gap = next(sq for sq in _between(min(placed), max(placed)) if sq not in line)
        raise PlacementError(f"hay una casilla vacía en {square_name(*gap)} entre las fichas (C.8)")
    word = tuple(placed.get(sq) or board[sq] for sq in line)
    return Play(line[0][0], line[0][1], down, word)


def canonical_play(board: Board, play: Play, placed: Mapping[Square, Tile]) -> Play:
    """A one-tile play is written horizontally when it forms a horizontal word, else vertically."""
    if len(placed) != 1:
        return play
    square = next(iter(placed))
    down = len(word_extent(board, placed, square, False)) < 2
    if down == play.down:
        return play
    line = word_extent(board, placed, square, down)
    return Play(line[0][0], line[0][1], down, tuple(placed.get(sq) or board[sq] for sq in line))


def _between(first: Square, last: Square) -> list[Square]:
    (r0, c0), (r1, c1) = first, last
    if r0 == r1:
        return [(r0, c) for c in range(c0, c1 + 1)]
    return [(r, c0) for r in range(r0, r1 + 1)]


def _board_agreement(board: Board, play: Play) -> tuple[Problem, ...]:
    """Check 1: the letters written on occupied squares are the ones there."""
    problems = []
    for square, tile in zip(play.squares(), play.word):
        on_board = board[square]
        if on_board and letter_of(on_board) != letter_of(tile):
            problems.append(
                Problem(
                    "board_mismatch",
                    f"en {square_name(*square)} hay una {label(letter_of(on_board))}, "
                    f"no una {label(letter_of(tile))}",
                    "D.III.20.1.a",
                )
            )
    return tuple(problems)


def _with_board_tiles(board: Board, play: Play) -> Play:
    """The play with board squares written as they are (a board blank stays a blank)."""
    word = tuple(board[sq] or tile for sq, tile in zip(play.squares(), play.word))
    return play if word == play.word else Play(play.row, play.col, play.down, word)


def _completeness(board: Board, play: Play) -> tuple[Problem, ...]:
    """Check 2: the main word does not continue past either end."""
    squares = play.squares()
    dr, dc = (1, 0) if play.down else (0, 1)
    before = (squares[0][0] - dr, squares[0][1] - dc)
    after = (squares[-1][0] + dr, squares[-1][1] + dc)
    for square in (before, after):
        if board.get(*square):
            return (
                Problem(
                    "incomplete_word",
                    f"la palabra principal sigue en {square_name(*square)}: "
                    "hay que anotarla completa",
                    "C.8",
                ),
            )
    return ()


def _tile_count(placed: Mapping[Square, Tile]) -> tuple[Problem, ...]:
    """Check 3: one to seven tiles placed."""
    if not placed:
        return (Problem("no_tiles", "la jugada no coloca ninguna ficha", "C.8"),)
    if len(placed) > RACK_SIZE:
        return (
            Problem(
                "too_many_tiles",
                f"la jugada coloca {len(placed)} fichas y un atril tiene {RACK_SIZE}",
                "C.6",
            ),
        )
    return ()


def _rack_problems(placed: Mapping[Square, Tile], rack: Sequence[Tile] | None) -> tuple[Problem, ...]:
    """Check 4: naturals come from the rack's letters, blank-made letters from its blanks."""
    if rack is None:
        return ()
    needed = Counter(BLANK if is_blank(t) else t for t in placed.values())
    missing = needed - Counter(rack)
    if not missing:
        return ()
    names = ", ".join(
        ("comodín" if t == BLANK else label(t)) + (f" x{n}" if n > 1 else "")
        for t, n in sorted(missing.items())
    )
    return (Problem("not_in_rack", f"el atril no tiene {names}"),)


def _position_problems(
    board: Board, placed: Mapping[Square, Tile], off_centre_accepted: bool
) -> tuple[Problem, ...]:
    """Check 5: the first play covers H8 with 2+ tiles; a later one connects."""
    if board.is_empty():
        problems = []
        if len(placed) < 2:
            problems.append(
                Problem("first_play_one_tile", "la primera jugada debe tener dos o más fichas", "C.6")
            )
        if CENTRE not in placed and not off_centre_accepted:
            problems.append(
                Problem(
                    "off_centre",
                    "la primera jugada debe cubrir la casilla central H8",
                    "C.6, C.20",
                )
            )
        return tuple(problems)
    if not any(board.has_neighbour(*sq) for sq in placed):
        return (Problem("not_connected", "la palabra no conecta con el tablero", "C.2, C.9"),)
    return ()


def _word_problems(score: Score, lexicon: Lexicon) -> tuple[Problem, ...]:
    """Check 6: every word formed is in the lexicon; each one that is not is named."""
    problems = []
    for word in score.words:
        if word.tiles not in lexicon:
            text = word_text(tuple(letter_of(t) for t in word.tiles))
            problems.append(Problem("unknown_word", f"{text} no está en el léxico", "D.I.2", text))
    return tuple(problems)
