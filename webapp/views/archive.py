"""A game's files for the arbiters: the evidence file ``/arbiter/g/<id>/expediente.zip`` (``records.evidence``;
the same as ``veedor archive GAME --out FILE.zip``), and of a duplicate game the players' list with the id each
player's slips carry, ``jugadores.csv``, and the slips to print for them, ``papeletas.pdf?por_jugador=N``
(``records.players``; the same as ``veedor print-slips --game ID``)."""

from __future__ import annotations

from typing import Final

from flask import Blueprint, abort, flash, redirect, request, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.wrappers import Response

from rules_core.duplicate import DuplicateGame
from vision.slips.printing import PAD

from ..records.evidence import evidence_zip
from ..records.exports import attachment, export_name, table_download
from ..records.players import PlayerRow, game_slips_pdf, players_of, players_table
from ..records.timezone import local_date
from ..services.shared import scan_service, services
from ..services.store import GameRecord
from .auth import login_required
from .display import game_record

bp = Blueprint("archive", __name__)

MAX_PER_PLAYER: Final = 100  # slips per player in one PDF


@bp.get("/arbiter/g/<game_id>/expediente.zip")
@login_required
def evidence(game_id: str) -> Response:
    record = game_record(game_id)
    scan_service()  # the slips' archive attached: their scans go in
    body = evidence_zip(services(), game_id)
    name = export_name(record.name, local_date(record.created_at), "expediente", "zip")
    return Response(body, content_type="application/zip", headers=attachment(name))


def _players(game_id: str) -> tuple[GameRecord, list[PlayerRow], bool]:
    """A duplicate game (404 for any other game), its players, and whether it allows absolute notation."""
    record = game_record(game_id)
    with services().games.reading(game_id) as game:
        if not isinstance(game, DuplicateGame):
            abort(404)
        return record, players_of(game.events), "absoluta" in game.settings.notations


@bp.get("/arbiter/g/<game_id>/jugadores.csv")
@login_required
def players_csv(game_id: str) -> Response:
    record, players, _absolute = _players(game_id)
    return table_download(record, "jugadores", players_table(players), "csv")


@bp.get("/arbiter/g/<game_id>/papeletas.pdf")
@login_required
def printed_slips(game_id: str) -> Response:
    """The slips to print: ``por_jugador`` each (default a pad, D.II.8); ``tablero=1`` with the board of
    D.III.20.1.c, where the game allows that notation."""
    record, players, absolute = _players(game_id)
    text = request.args.get("por_jugador", "").strip() or str(PAD)
    if not text.isdigit() or not 1 <= int(text) <= MAX_PER_PLAYER:
        flash(_("Papeletas por jugador: un número de 1 a %(n)s, no «%(text)s».", n=MAX_PER_PLAYER, text=text[:20]),
              "error")  # fmt: skip
        return redirect(url_for("arbiter.console", game_id=game_id))
    if not players:
        flash(_("La partida no tiene jugadores: añádalos antes de imprimir sus papeletas."), "error")
        return redirect(url_for("arbiter.console", game_id=game_id))
    body = game_slips_pdf(game_id, record.name, players, int(text), absolute and request.args.get("tablero") == "1")
    name = export_name(record.name, local_date(record.created_at), "papeletas", "pdf")
    return Response(body, content_type="application/pdf", headers=attachment(name))
