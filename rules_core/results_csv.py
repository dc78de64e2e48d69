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


def round_results_csv(game: DuplicateGame) -> str:
    """One line per round and player: play, score, reason for 0, bonus, the master and its score."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["ronda", "mesa", "jugador", "jugada", "puntos", "motivo", "bonificacion",
                     "maestra", "puntos_maestra"])  # fmt: skip
    for r in game.rounds:
        bonuses = game.bonuses(r)
        master = r.master.notation if r.master else ""
        for player in game.players.values():
            result = r.results.get(player.id, NO_SLIP)
            write_rows(writer, [[r.number, player.table, player.name, result.play or "", result.score,
                                 result.reason, bonuses.get(player.id, 0), master, r.master_score]])  # fmt: skip
    return out.getvalue()


def standings_csv(game: DuplicateGame) -> str:
    """The standings: rank, player, total, bonus and the D.III.28 tie-break figures."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["puesto", "jugador", "total", "bonificacion", "maestras_igualadas",
                     "maximas_en_solitario", "maximo_diferencial"])  # fmt: skip
    for s in game.standings():
        write_rows(writer, [[s.rank, s.name, s.total, s.bonus, s.masters_matched, s.solo_tops, s.max_deficit]])
    writer.writerow(["", "jugada maestra", game.master_total, "", "", "", ""])
    return out.getvalue()
