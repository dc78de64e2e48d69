"""A game played out in the terminal: each round draws a rack and places its best play.

A solitaire of the duplicate kind (D.I.1): the rack is refilled from a seeded bag,
the highest-scoring play (first in the generator's order on ties) goes on the
board, and the board is printed with its premium squares.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import TextIO

from rules_core.alphabet import BLANK, Tile, full_bag, is_blank, label
from rules_core.board import PREMIUMS, ROW_LABELS, SIZE, Board, Premium
from rules_core.cgp import rack_sort_key
from rules_core.lexicon import Lexicon
from rules_core.movegen import ScoredPlay, generate_plays
from rules_core.scoring import RACK_SIZE

_PREMIUM_MARK = {
    Premium.NONE: " · ",
    Premium.DOUBLE_LETTER: " dl",
    Premium.TRIPLE_LETTER: " tl",
    Premium.DOUBLE_WORD: " dp",
    Premium.TRIPLE_WORD: " tp",  # dl/tl doble/triple letra, dp/tp doble/triple palabra
}


def board_text(board: Board) -> str:
    """The board as text: column numbers on top, row letters on the left, premiums on empty squares."""
    lines = ["   " + "".join(f" {c + 1:<2}" for c in range(SIZE))]
    for r in range(SIZE):
        cells = []
        for c in range(SIZE):
            tile = board[r, c]
            cells.append(f" {label(tile):<2}" if tile else _PREMIUM_MARK[PREMIUMS[r][c]])
        lines.append(f" {ROW_LABELS[r]} " + "".join(cells))
    return "\n".join(lines)


def rack_text(rack: Sequence[Tile]) -> str:
    return " ".join(label(t) for t in sorted(rack, key=rack_sort_key))


def place(board: Board, rack: list[Tile], play: ScoredPlay) -> None:
    """Put the play's new tiles on the board and take them off the rack."""
    for square, tile in zip(play.play.squares(), play.word):
        if not board[square]:
            board[square] = tile
            rack.remove(BLANK if is_blank(tile) else tile)


def play_solitaire(lexicon: Lexicon, seed: int, delay: float, out: TextIO) -> int:
    """Play until the bag and rack run out or no play is left; returns the total score."""
    rng = random.Random(seed)
    bag = full_bag()
    rng.shuffle(bag)
    board = Board()
    rack: list[Tile] = []
    total = 0
    out.write(f"Veedor: partida de demostración (léxico {lexicon.name}, semilla {seed})\n")
    for round_number in range(1, 100):
        while len(rack) < RACK_SIZE and bag:
            rack.append(bag.pop())
        plays = generate_plays(board, rack, lexicon) if rack else []
        if not plays:
            out.write(f"\nFin: atril {rack_text(rack) or '(vacío)'} sin jugada posible.\n")
            break
        best = plays[0]
        total += best.score
        out.write(
            f"\nRonda {round_number}  atril {rack_text(rack)}  ->  {best.notation}  "
            f"{best.score} puntos (total {total}; {len(plays)} jugadas posibles)\n"
        )
        place(board, rack, best)
        out.write(board_text(board) + "\n")
        out.flush()
        if delay:
            time.sleep(delay)
    out.write(f"\nPuntuación total: {total}\n")
    return total
