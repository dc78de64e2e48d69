"""Checking a GCG record against the rules: replayed, rescored, each disagreement listed.

A play's points are compared with the rules' score (C.12-C.19), each total with
the sum of the points recorded (C.41), a withdrawn or upheld play with the
challenge's verdict (C.39, C.40), and the end lines with the racks counted (C.45).
"""

from __future__ import annotations

from dataclasses import dataclass

from .classic import ClassicGame
from .events import GameError
from .gcg_record import GCGEntry, GCGError, GCGLine, GCGRecord
from .lexicon import Lexicon


@dataclass(frozen=True)
class Discrepancy:
    """Where the record and the rules disagree: the GCG line and a sentence."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"línea {self.line}: {self.message}" if self.line else self.message


@dataclass(frozen=True)
class GCGCheck:
    """A record replayed under the rules: the game, and every disagreement with the record."""

    record: GCGRecord
    game: ClassicGame
    discrepancies: tuple[Discrepancy, ...]
    recorded_totals: tuple[int, int]

    @property
    def agrees(self) -> bool:
        return not self.discrepancies


def replay_gcg(record: GCGRecord, lexicon: Lexicon) -> ClassicGame:
    """Replay a record's events; a GameError becomes a GCGError naming the line."""
    game = ClassicGame(lexicon)
    for entry in record.entries:
        _apply(game, entry)
    return game


def _apply(game: ClassicGame, entry: GCGEntry) -> None:
    try:
        game.apply(entry.event)
    except GameError as error:
        raise GCGError(f"línea {entry.line}: {error}") from None


def check_record(record: GCGRecord, lexicon: Lexicon) -> GCGCheck:
    """Replay and rescore a parsed record, listing where it disagrees with the rules."""
    game = ClassicGame(lexicon)
    found: list[Discrepancy] = []
    recorded = [0, 0]
    for entry in record.entries:
        _apply(game, entry)
        for line in entry.lines:
            if line.kind != "note":
                found += _compare(game, line, recorded)
    found += _missing_end_lines(game, record)
    if tuple(recorded) != game.scores:
        (a, b), (c, d) = recorded, game.scores
        found.append(Discrepancy(0, f"resultado anotado {a}-{b}; según las reglas {c}-{d}"))
    return GCGCheck(record, game, tuple(found), (recorded[0], recorded[1]))


def _compare(game: ClassicGame, line: GCGLine, recorded: list[int]) -> list[Discrepancy]:
    found = _compare_points(game, line)
    expected = recorded[line.player] + line.points
    if line.total != expected:
        message = f"el total anotado es {line.total} y la suma da {expected} (C.41)"
        found.append(Discrepancy(line.line, message))
    recorded[line.player] = line.total
    return found


def _compare_points(game: ClassicGame, line: GCGLine) -> list[Discrepancy]:
    turn = game.turns[-1] if game.turns else None
    message = ""
    if line.kind == "play" and turn is not None and line.points != turn.points:
        message = (
            f"{turn.notation} vale {turn.points} puntos según las reglas, "
            f"no {line.points} (C.12-C.19)"
        )
    elif line.kind == "withdrawn" and turn is not None and not turn.withdrawn:
        message = f"{turn.notation} es una jugada correcta y no se retira (C.39)"
    elif line.kind == "withdrawn" and turn is not None and -line.points != (turn.claimed or 0):
        message = f"se retiran {-line.points} puntos y {turn.notation} se anotó con {turn.claimed}"
    elif line.kind == "challenge" and turn is not None and turn.withdrawn:
        message = f"{turn.notation} no es válida y debió retirarse (C.39)"
    elif line.kind == "challenge" and line.points:
        message = (
            "FILE no da puntos a la jugada impugnada que resulta correcta "
            f"(C.39, C.40): +{line.points}"
        )
    elif line.kind in ("out", "rack"):
        message = _compare_end(game, line)
    return [Discrepancy(line.line, message)] if message else []


def _compare_end(game: ClassicGame, line: GCGLine) -> str:
    adjustments = game.state.adjustments
    rules = [a.points for a in adjustments if a.kind == "rack" and a.player == line.player]
    if rules and rules[0] != line.points:
        return (f"según C.{game.ending} a {game.players[line.player]} le corresponden "
                f"{rules[0]:+d} puntos por los atriles, no {line.points:+d}")
    return ""


def _missing_end_lines(game: ClassicGame, record: GCGRecord) -> list[Discrepancy]:
    written = {line.player for entry in record.entries for line in entry.lines
               if line.kind in ("out", "rack")}
    return [
        Discrepancy(0, f"falta la línea de fichas restantes de {game.players[a.player]} "
                       f"({a.points:+d}, C.{game.ending})")
        for a in game.state.adjustments
        if a.kind == "rack" and a.points and a.player not in written
    ]
