"""Scoring a duplicate slip (D.II.8, D.III.20, D.III.23, D.III.25).

A slip is the play a player wrote for a round, with the facts an arbiter or the
scanner noted about it. It scores the play's points when the play is legal, else 0
with the reason, checked in this order:

1. handed in late (D.III.13, D.III.25.b);
2. void: illegible, player or position not identifiable, wrong coordinates
   (D.III.20.4, D.III.25.c), or several plays written (D.III.20.2);
3. no play written;
4. notation that cannot be read (D.III.25.c), unless it is a play written with its
   coordinate in the wrong order (6.);
5. a blank from the rack whose letter was not circled (D.III.20.3, D.III.25.a): noted
   as such, or seen when the rack lacks a letter written in capitals that a blank
   of the rack would supply and the play is otherwise legal;
6. a play written with its coordinate in the wrong order or the wrong arrow, when it is
   no legal play itself but the play it stands for is (``notation.misordered_play``; the
   scanner flags the same writings): void (D.III.20.4, D.III.25.c);
7. an illegal play or a word not in the lexicon (D.III.23).

What an arbiter wrote stays the arbiter's: a void slip's reason shows to the public
(``SlipScore.public_reason``) only when it is one of the causes the rules name
(``VOID_KINDS``); any other text an arbiter gave shows as "papeleta nula".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from .alphabet import BLANK, Tile, as_blank, is_blank
from .board import Board
from .events import GameError
from .lexicon import Lexicon
from .notation import NotationError, Play, misordered_play
from .validation import check_play

COORDINATE_ORDER: Final = "coordenadas en orden incorrecto o flecha errónea"  # D.III.20.4
_COORDINATE_ORDER_VOID: Final = f"papeleta nula: {COORDINATE_ORDER} (D.III.20.4, D.III.25.c)"


VOID_KINDS: Final = frozenset({  # D.III.20.2, D.III.20.4, D.III.25: the causes of a void slip, in the words shown
    "caligrafía ininteligible", "caligrafía ilegible", "jugador no identificable", "posición no identificable",
    "coordenadas erróneas", "coordenadas en orden incorrecto o flecha errónea", "flecha ausente o errónea",
    "varias jugadas anotadas", "comodín no marcado", "letra rodeada sin comodín en el atril",
    "papeleta de otra partida", "papeleta nula", "jugada tachada o emborronada",
})  # fmt: skip
VOID: Final = "papeleta nula"
VOID_RULES: Final = "(D.III.20.4, D.III.25.c)"


@dataclass(frozen=True)
class Slip:
    """What a slip says: the play as written and the facts noted about it."""

    notation: str | None
    late: bool = False
    blank_not_circled: bool = False
    void: str | None = None  # why the slip is void, e.g. "caligrafía ininteligible"
    other_notations: tuple[str, ...] = ()  # further plays written on it (D.III.20.2)
    source: str = "teclado"  # "teclado", "escáner", ...

    def to_json(self) -> dict[str, Any]:
        return {
            "notation": self.notation,
            "late": self.late,
            "blank_not_circled": self.blank_not_circled,
            "void": self.void,
            "other_notations": list(self.other_notations),
            "source": self.source,
        }

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Slip:
        """The slip of a stored or submitted payload; a value of the wrong type is a GameError."""
        others = value.get("other_notations", ())
        if not isinstance(others, (list, tuple)) or not all(isinstance(o, str) for o in others):
            raise GameError("'other_notations' es una lista de jugadas escritas")
        return cls(
            _optional_text(value, "notation"),
            _flag(value, "late"),
            _flag(value, "blank_not_circled"),
            _optional_text(value, "void"),
            tuple(others),
            _optional_text(value, "source") or "teclado",
        )


def _optional_text(value: dict[str, Any], key: str) -> str | None:
    found = value.get(key)
    if found is not None and not isinstance(found, str):
        raise GameError(f"{key!r} de la papeleta es un texto, no {type(found).__name__}")
    return found


def _flag(value: dict[str, Any], key: str) -> bool:
    found = value.get(key, False)
    if not isinstance(found, bool):
        raise GameError(f"{key!r} de la papeleta es true o false")
    return found


@dataclass(frozen=True)
class SlipScore:
    """A slip's result: the play read (canonical), its points, and why it scored 0."""

    play: str | None
    score: int
    reason: str = ""  # empty when the play is valid
    problems: tuple[str, ...] = field(default=())
    public: str | None = None  # ``reason`` for the public when it quotes an arbiter's own words

    @property
    def valid(self) -> bool:
        return not self.reason

    @property
    def public_reason(self) -> str:
        """Why the slip scored 0 as public pages and files say it: the kind of the fault, never
        an arbiter's own words (the annulment's reason, a void slip's free text)."""
        return self.reason if self.public is None else self.public


def score_slip(board: Board, rack: Sequence[Tile], lexicon: Lexicon, slip: Slip) -> SlipScore:
    """Score ``slip`` for the round whose board and rack are given (see module docstring)."""
    if slip.late:
        return SlipScore(slip.notation, 0, "entregada fuera de tiempo (D.III.13, D.III.25.b)")
    if slip.void:
        named = slip.void.strip().casefold() in VOID_KINDS
        public = None if named else f"{VOID} {VOID_RULES}"
        return SlipScore(slip.notation, 0, f"{VOID}: {slip.void} {VOID_RULES}", public=public)
    if slip.other_notations:
        return SlipScore(slip.notation, 0, "papeleta nula: varias jugadas anotadas (D.III.20.2)")
    if not slip.notation:
        return SlipScore(None, 0, "sin jugada")
    try:
        play = Play.from_notation(slip.notation)
    except NotationError as error:
        if meant_play(board, rack, lexicon, slip.notation) is not None:
            return SlipScore(slip.notation, 0, _COORDINATE_ORDER_VOID)
        return SlipScore(slip.notation, 0, f"papeleta nula: notación incorrecta: {error} (D.III.25.c)")
    verdict = check_play(board, play, lexicon, rack)
    written = verdict.play.notation()
    if verdict.legal and slip.blank_not_circled and _uses_rack_blank(verdict.placed.values()):
        return SlipScore(written, 0, "comodín no marcado (D.III.20.3, D.III.25.a)")
    if verdict.legal:
        return SlipScore(written, verdict.points)
    if _legal_with_unmarked_blank(board, play, rack, lexicon, verdict.placed):
        return SlipScore(written, 0, "comodín no marcado (D.III.20.3, D.III.25.a)")
    if meant_play(board, rack, lexicon, slip.notation) is not None:
        return SlipScore(written, 0, _COORDINATE_ORDER_VOID)
    problems = tuple(str(p) for p in verdict.problems)
    return SlipScore(written, 0, "jugada no válida: " + "; ".join(problems), problems)


def meant_play(board: Board, rack: Sequence[Tile], lexicon: Lexicon, notation: str) -> Play | None:
    """The legal play ``notation`` writes with its coordinate in the wrong order or the wrong arrow
    (``4H CARPETA`` for H4 CARPETA, D.III.20.4), when ``notation`` is no legal play itself; else None."""
    meant = misordered_play(notation)
    if meant is None or not check_play(board, meant, lexicon, rack).legal:
        return None
    try:
        written = Play.from_notation(notation)
    except NotationError:  # H12 CARPETA would not fit: written 12H, it is no play at all
        return meant
    return None if check_play(board, written, lexicon, rack).legal else meant


def _uses_rack_blank(placed: Iterable[Tile]) -> bool:
    return any(is_blank(t) for t in placed)


def _legal_with_unmarked_blank(
    board: Board, play: Play, rack: Sequence[Tile], lexicon: Lexicon, placed: dict[tuple[int, int], Tile]
) -> bool:
    """True if reading some capitals as the rack's blanks makes the play legal."""
    needed = Counter(BLANK if is_blank(t) else t for t in placed.values())
    have = Counter(rack)
    short = needed - have
    if not placed or not short or sum(short.values()) > have[BLANK] - needed[BLANK]:
        return False
    word = list(play.word)
    for i, (square, tile) in enumerate(zip(play.squares(), play.word)):
        if square in placed and short[tile] > 0:
            word[i] = as_blank(tile)
            short[tile] -= 1
    reread = Play(play.row, play.col, play.down, tuple(word))
    return check_play(board, reread, lexicon, rack).legal
