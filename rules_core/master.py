"""The master play of a duplicate round (D.III.15) and its tie-breaks.

The master is the highest-scoring play. Plays of equal score are ordered by the five
criteria of D.III.15, in order:

1. no blank from the rack used;
2. the most balanced leave (below);
3. fewest tiles played;
4. first in alphabetical order of the main word (Spanish order: CH after C, LL after
   L, Ñ after N; a blank compares as its letter);
5. horizontal before vertical; a horizontal play nearest column 1, then row A; a
   vertical one nearest row A, then column 1.

Plays still tied differ only in which tile is the blank (``H8 cASA``, ``H8 CASa``);
the first notation in byte order is taken, so the choice never depends on chance.

**Leave balance.** The leave is the rack minus the tiles played. Its *imbalance* is
``max(0, |vowels - consonants| - blanks)``: the difference between vowels (A E I O U)
and consonants (Y included) that the leave's blanks, which can stand for either,
cannot make up. The most balanced leave has the smallest imbalance; an empty leave
(all seven played) has imbalance 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .alphabet import BLANK, Tile, is_blank, letter_of
from .board import Board
from .movegen import ScoredPlay
from .racks import vowels_and_consonants

MasterKey = tuple[int, bool, int, int, tuple[int, ...], tuple[int, int, int], bytes]


def placed_tiles(board: Board, play: ScoredPlay) -> list[Tile]:
    """The tiles a play puts on the board (squares that were empty)."""
    return [tile for square, tile in zip(play.play.squares(), play.word) if not board[square]]


def leave_after(rack: Sequence[Tile], placed: Sequence[Tile]) -> list[Tile]:
    """The rack minus the tiles played (a blank-made letter uses up a BLANK)."""
    used = Counter(BLANK if is_blank(t) else t for t in placed)
    return sorted((Counter(rack) - used).elements())


def leave_imbalance(leave: Sequence[Tile]) -> int:
    """``max(0, |vowels - consonants| - blanks)`` (see the module docstring)."""
    vowels, consonants = vowels_and_consonants(leave)
    blanks = sum(1 for t in leave if t == BLANK)
    return max(0, abs(vowels - consonants) - blanks)


def master_key(board: Board, rack: Sequence[Tile], play: ScoredPlay) -> MasterKey:
    """Sort key: the master is the smallest (score first, then D.III.15's criteria)."""
    placed = placed_tiles(board, play)
    uses_blank = any(is_blank(t) for t in placed)
    place = (1, play.row, play.col) if play.down else (0, play.col, play.row)
    return (
        -play.score,
        uses_blank,
        leave_imbalance(leave_after(rack, placed)),
        len(placed),
        tuple(letter_of(t) for t in play.word),
        place,
        play.notation.encode(),
    )


def top_plays(board: Board, rack: Sequence[Tile], plays: Sequence[ScoredPlay]) -> list[ScoredPlay]:
    """The plays of the highest score, best first by D.III.15 (the first is the master)."""
    if not plays:
        return []
    best = max(p.score for p in plays)
    tied = [p for p in plays if p.score == best]
    return sorted(tied, key=lambda p: master_key(board, rack, p))


def choose_master(board: Board, rack: Sequence[Tile], plays: Sequence[ScoredPlay]) -> ScoredPlay | None:
    """The master play, or None when there is no legal play."""
    ranked = top_plays(board, rack, plays)
    return ranked[0] if ranked else None
