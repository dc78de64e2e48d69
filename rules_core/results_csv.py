"""Duplicate results as CSV: every player's play in every round, and the standings (D.IV.32).

Columns are in Spanish for the arbiters' spreadsheets; UTF-8, comma-separated,
one header line. A text cell that a spreadsheet would take for a formula (it starts
with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return: a player named
``=HYPERLINK(...)``) is written behind an apostrophe, as text; numbers stay numbers.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from typing import Any, Final

from .classic import ACTION_LABELS, ClassicGame
from .duplicate import NO_SLIP, DuplicateGame

FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r")


def as_text_cell(value: Any) -> Any:
    """A CSV cell that no spreadsheet evaluates: risky text behind an apostrophe, numbers as they are."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def write_rows(writer: Any, rows: Iterable[Iterable[Any]]) -> None:
    """``writer.writerows`` with every cell made safe (``as_text_cell``)."""
    writer.writerows([as_text_cell(cell) for cell in row] for row in rows)


Table = tuple[list[str], list[list[Any]]]  # a header and its rows of str and int cells


def round_results_table(game: DuplicateGame, rounds: Iterable[int] | None = None, *, private: bool = False) -> Table:
    """One line per round (all, or ``rounds``) and player: play, score, reason for 0, bonus,
    the master and its score. The reason is the public's (the kind of a void slip or of an
    annulled master) unless ``private`` (the arbiter's files): then with the arbiter's words."""
    header = ["ronda", "mesa", "jugador", "jugada", "puntos", "motivo", "bonificacion", "maestra", "puntos_maestra"]
    wanted = None if rounds is None else set(rounds)
    rows: list[list[Any]] = []
    for r in game.rounds:
        if wanted is not None and r.number not in wanted:
            continue
        bonuses = game.bonuses(r)
        master = r.master.notation if r.master else ""
        for player in game.players.values():
            result = r.results.get(player.id, NO_SLIP)
            rows.append([r.number, player.table, player.name, result.play or "", result.score,
                         result.reason if private else result.public_reason, bonuses.get(player.id, 0), master,
                         r.master_score])  # fmt: skip
    return header, rows


def standings_table(game: DuplicateGame) -> Table:
    """The standings: rank, player, total, bonus and the D.III.28 tie-break figures; the
    masters' total on the last line."""
    header = ["puesto", "jugador", "total", "bonificacion", "maestras_igualadas", "maximas_en_solitario",
              "maximo_diferencial"]  # fmt: skip
    rows: list[list[Any]] = [[s.rank, s.name, s.total, s.bonus, s.masters_matched, s.solo_tops, s.max_deficit]
                             for s in game.standings()]  # fmt: skip
    rows.append(["", "jugada maestra", game.master_total, "", "", "", ""])
    return header, rows


def classic_sheet_table(game: ClassicGame) -> Table:
    """A classic game's score sheet: turn, player, action, play, points, running total, note
    (plays, withdrawn plays C.38-C.43, exchanges and passes C.25-C.26, rack values C.45,
    time penalties C.35)."""
    names = game.players
    rows: list[list[Any]] = [[i, names[row.player], ACTION_LABELS.get(row.action, row.action), row.notation,
                              row.points, row.total, row.note] for i, row in enumerate(game.scoresheet(), start=1)]  # fmt: skip
    return ["n", "jugador", "accion", "jugada", "puntos", "total", "nota"], rows


def table_csv(table: Table) -> str:
    """A table as CSV text: comma-separated, one header line, cells made safe (``as_text_cell``)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    header, rows = table
    write_rows(writer, [header, *rows])
    return out.getvalue()


def round_results_csv(game: DuplicateGame) -> str:
    return table_csv(round_results_table(game))


def standings_csv(game: DuplicateGame) -> str:
    return table_csv(standings_table(game))
