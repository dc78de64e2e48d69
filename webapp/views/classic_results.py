"""A classic game's public results (``/results/<game>``): the score sheet of both players,
turn by turn, the board at the end, the GCG record and the sheet as XLSX or CSV.

The sheet's rows come from ``ClassicGame.scoresheet`` (plays, withdrawn plays after a
challenge, C.38-C.43; exchanges and passes, C.25-C.26; the end's rack values, C.45;
time penalties, C.35), each with the player's running total.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, render_template
from werkzeug.wrappers import Response

from rules_core.classic import ACTION_LABELS, ClassicGame
from rules_core.gcg import GCGError, to_gcg
from rules_core.results_csv import classic_sheet_table

from ..records.exports import attachment, export_name, table_download
from ..records.timezone import local_date, local_now
from ..services.shared import services
from ..services.store import GameRecord
from .display import board_labels, game_record

bp = Blueprint("classic_results", __name__, url_prefix="/results")


def classic_page(game_id: str) -> str:
    """The page of a classic game (``results.game`` hands classic games here)."""
    record, context = _context(game_id)
    return render_template("results/classic.html", game=record, printed=local_now(), **context)


@bp.get("/<game_id>/partida.gcg")
def gcg(game_id: str) -> Response:
    record = _classic_record(game_id)
    with services().games.reading(game_id) as game:
        assert isinstance(game, ClassicGame)
        try:
            text = to_gcg(game)
        except GCGError as error:
            abort(409, description=str(error))
    name = export_name(record.name, local_date(record.created_at), "partida", "gcg")
    return Response(text, content_type="text/plain; charset=utf-8", headers=attachment(name))


@bp.get("/<game_id>/hoja.<any(csv, xlsx):kind>")
def sheet_file(game_id: str, kind: str) -> Response:
    record = _classic_record(game_id)
    with services().games.reading(game_id) as game:
        assert isinstance(game, ClassicGame)
        table = classic_sheet_table(game)
    return table_download(record, "hoja", table, kind)


def _classic_record(game_id: str) -> GameRecord:
    record = game_record(game_id)
    if record.mode != "classic":
        abort(404)
    return record


def _context(game_id: str) -> tuple[GameRecord, dict[str, Any]]:
    record = _classic_record(game_id)
    with services().games.reading(game_id) as game:
        assert isinstance(game, ClassicGame)
        names = game.players
        sheet = [{"player": names[row.player], "side": row.player, "action": ACTION_LABELS.get(row.action, row.action),
                  "notation": row.notation, "points": row.points, "total": row.total, "note": row.note}
                 for row in game.scoresheet()]  # fmt: skip
        winner = game.winner()
        context = {"names": names, "scores": game.scores, "sheet": sheet, "board": board_labels(game.board),
                   "finished": game.finished, "ending": game.ending,
                   "winner": names[winner] if game.finished and winner is not None else None,
                   "challenges": sum(1 for t in game.turns if t.verdict), "gcg_ok": game.state.start_cgp is None}  # fmt: skip
    return record, context
