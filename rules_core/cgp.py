"""Positions in Macondo's CGP format (CONVENTIONS), parsed and formatted.

``15/15/15/15/15/15/15/5[CH]ORIZO4/15/15/15/15/15/15/15 AEI[LL]RS? 0/0 0 lex FILE2017;``

Fields: 15 board rows (row A first) separated by ``/``, in a row each tile is its
label (lowercase for a blank-placed tile, digraphs in brackets) and a run of empty
squares its count; the racks of the player to move and of the other (``?`` a
blank; the second may be omitted); the scores; the count of consecutive scoreless
turns; then opcodes ``name args;``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from .alphabet import BLANK, Tile, bracketed_label, tile_from_label
from .board import SIZE, Board

_ROW_TOKEN_RE: Final = re.compile(r"\d+|\[[^\]]*\]|.")
_OPCODE_RE: Final = re.compile(r"\s*([^\s;]+)\s*([^;]*);")


class CGPError(ValueError):
    """A position string that cannot be read; the message quotes the part at fault."""


def rack_sort_key(tile: Tile) -> tuple[bool, Tile]:
    """Racks are written in tile order with blanks (``?``) last."""
    return tile == BLANK, tile


@dataclass(frozen=True)
class Position:
    """A board, the racks (player to move first), the scores and the scoreless-turn count."""

    board: Board
    racks: tuple[tuple[Tile, ...], tuple[Tile, ...]] = ((), ())
    scores: tuple[int, ...] = (0, 0)
    zero_turns: int = 0
    opcodes: dict[str, str] = field(default_factory=dict)

    @property
    def rack(self) -> tuple[Tile, ...]:
        """The rack of the player to move."""
        return self.racks[0]

    @property
    def lexicon_name(self) -> str | None:
        """The ``lex`` opcode, if any (e.g. ``FILE2017``)."""
        return self.opcodes.get("lex")

    @classmethod
    def from_cgp(cls, text: str) -> Position:
        """Parse a CGP string; raises CGPError naming the faulty field."""
        fields = text.strip().split(None, 4)
        if len(fields) < 4:
            raise CGPError(
                f"{text!r}: una posición CGP tiene tablero, atriles, puntuaciones y turnos sin puntuar"
            )
        board = _parse_board(fields[0])
        parts = fields[1].split("/")
        if len(parts) > 2:
            raise CGPError(f"atriles {fields[1]!r}: como mucho dos atriles")
        racks = (_parse_rack(parts[0]), _parse_rack(parts[1]) if len(parts) > 1 else ())
        try:
            scores = tuple(int(part) for part in fields[2].split("/"))
            zero_turns = int(fields[3])
        except ValueError:
            raise CGPError(
                f"{text!r}: puntuaciones {fields[2]!r} y turnos {fields[3]!r} deben ser números"
            ) from None
        opcodes = _parse_opcodes(fields[4] if len(fields) > 4 else "")
        return cls(board, racks, scores, zero_turns, opcodes)

    def cgp(self) -> str:
        """Format as CGP (racks sorted, ``?`` last)."""
        rows = "/".join(_format_row(self.board, r) for r in range(SIZE))
        mover, other = (
            "".join(bracketed_label(t) for t in sorted(rack, key=rack_sort_key))
            for rack in self.racks
        )
        racks = f"{mover}/{other}" if other or not mover else mover
        scores = "/".join(str(s) for s in self.scores)
        text = f"{rows} {racks} {scores} {self.zero_turns}"
        for name, args in self.opcodes.items():
            text += f" {name} {args};" if args else f" {name};"
        return text


def _parse_board(text: str) -> Board:
    rows = text.split("/")
    if len(rows) != SIZE:
        raise CGPError(f"tablero {text!r}: tiene {len(rows)} filas, deben ser 15")
    board = Board()
    for r, row_text in enumerate(rows):
        col = 0
        for token in _ROW_TOKEN_RE.findall(row_text):
            if token.isdigit():
                col += int(token)
                continue
            try:
                tile = tile_from_label(token)
            except ValueError as error:
                raise CGPError(f"fila {r + 1} {row_text!r}: {error}") from None
            if tile == BLANK:
                raise CGPError(f"fila {r + 1} {row_text!r}: un '?' no puede estar en el tablero")
            if col < SIZE:
                board[r, col] = tile
            col += 1
        if col != SIZE:
            raise CGPError(f"fila {r + 1} {row_text!r}: ocupa {col} casillas, deben ser 15")
    return board


def _parse_rack(text: str) -> tuple[Tile, ...]:
    tiles = []
    for token in _ROW_TOKEN_RE.findall(text):
        try:
            tile = tile_from_label(token)
        except ValueError as error:
            raise CGPError(f"atril {text!r}: {error}") from None
        if tile != BLANK and tile & 0x80:
            raise CGPError(f"atril {text!r}: las letras del atril van en mayúsculas, '?' para el comodín")
        tiles.append(tile)
    return tuple(tiles)


def _parse_opcodes(text: str) -> dict[str, str]:
    opcodes: dict[str, str] = {}
    rest = text.strip()
    while rest:
        match = _OPCODE_RE.match(rest)
        if not match:
            raise CGPError(f"códigos {text!r}: cada código es 'nombre argumentos;'")
        opcodes[match[1]] = match[2].strip()
        rest = rest[match.end() :].strip()
    return opcodes


def _format_row(board: Board, row: int) -> str:
    parts: list[str] = []
    gap = 0
    for col in range(SIZE):
        tile = board[row, col]
        if not tile:
            gap += 1
            continue
        if gap:
            parts.append(str(gap))
            gap = 0
        parts.append(bracketed_label(tile))
    if gap:
        parts.append(str(gap))
    return "".join(parts)
