"""How rounds and the game end: the master published among the top plays (D.III.15-17), a wrong
master annulled (D.III.29), the game ended (D.III.22, and a classic table's end).

Annulling a master changes other players' scores: the console first shows whose total
changes and by how much (``DuplicateGame.annulment_changes``) and stores the annulment
only when that page is confirmed for the game as it was shown (``annulment_token``).
"""

from __future__ import annotations

import hashlib
import math
from datetime import datetime, timezone

from flask import flash, render_template, request
from flask_babel import gettext as _  # type: ignore[import-untyped]
from flask_babel import ngettext
from werkzeug.wrappers import Response

from rules_core.classic import ClassicGame
from rules_core.duplicate import DuplicateGame
from rules_core.events import Event, GameError

from ...services.shared import services
from ..auth import login_required
from ..display import clock_state, game_record
from .common import actor, append, back, bp, duplicate_of, number

REASON_LENGTH = 300


@bp.post("/g/<game_id>/master")
@login_required
def master(game_id: str) -> Response:
    game = duplicate_of(game_id)
    with services().games.reading(game_id):
        current = game.current
        shown = current.number if current else 0
        early = _time_left(game)
    play = request.form.get("play", "").strip() or None
    if early and request.form.get("early") != "1":
        flash(_("Quedan %(t)s en el reloj de la ronda: confirme que publica la jugada maestra antes de tiempo.",
                t=early), "error")  # fmt: skip
        return back(game_id)
    if append(game_id, Event("master_announced", {"round": shown, "play": play}, actor())):
        with services().games.reading(game_id):
            r = game.round(shown)
            if r.master:
                flash(_("Jugada maestra publicada: %(p)s, %(s)s puntos", p=r.master.notation, s=r.master.score), "ok")
    return back(game_id)


def _time_left(game: DuplicateGame) -> str | None:
    """The round's time left as m:ss while its clock runs or is paused with time to go (D.III.13),
    else None (read under the game's lock)."""
    clock = clock_state(game, datetime.now(timezone.utc))
    if clock["state"] not in ("running", "paused") or clock["remaining"] <= 0:
        return None
    seconds = math.ceil(clock["remaining"])
    return f"{seconds // 60}:{seconds % 60:02d}"


def annulment_token(round_number: int, reason: str, version: int) -> str:
    """What the confirmation page sends back: the round, the reason and the game's version it showed."""
    return hashlib.sha256(f"{round_number}\n{reason}\n{version}".encode()).hexdigest()[:16]


@bp.post("/g/<game_id>/annul")
@login_required
def annul(game_id: str) -> Response | str:
    """Annul the last master (D.III.29): first the players whose total changes, then, confirmed, stored."""
    game = duplicate_of(game_id)
    reason = request.form.get("reason", "").strip()[:REASON_LENGTH]
    try:
        round_number = number(request.form.get("round")) or 0
        with services().games.reading(game_id):
            changes = game.annulment_changes(round_number, reason)
            version = len(game.events)
            r = game.round(round_number)
            rows = [{"table": game.players[p].table, "name": game.players[p].name, "before": before, "after": after,
                     "difference": after - before} for p, (before, after) in changes.items()]  # fmt: skip
            master_play = r.master.notation if r.master else ""
    except GameError as error:
        flash(str(error), "error")
        return back(game_id)
    token = annulment_token(round_number, reason, version)
    if request.form.get("confirm") != token:
        changed = bool(request.form.get("confirm"))  # confirmed for a game that has changed since: shown again
        return render_template("arbiter/annul_confirm.html", game=game_record(game_id), round_number=round_number,
                               master=master_play, reason=reason, rows=sorted(rows, key=lambda x: x["table"]),
                               token=token, changed=changed)  # fmt: skip
    if append(game_id, Event("master_annulled", {"round": round_number, "reason": reason}, actor())):
        flash(ngettext("Jugada maestra de la ronda %(n)s anulada: cambia la puntuación de %(num)s jugador.",
                       "Jugada maestra de la ronda %(n)s anulada: cambia la puntuación de %(num)s jugadores.",
                       len(rows), n=round_number), "ok")  # fmt: skip
    return back(game_id)


@bp.post("/g/<game_id>/end")
@login_required
def end(game_id: str) -> Response:
    game_record(game_id)
    with services().games.reading(game_id) as game:
        is_duplicate = isinstance(game, DuplicateGame)
    reason = request.form.get("reason", "").strip()[:REASON_LENGTH]
    if is_duplicate:
        append(game_id, Event("game_ended", {"reason": reason or None}, actor()))
    else:
        racks = [request.form.get("rack1", "").strip() or None, request.form.get("rack2", "").strip() or None]
        append(game_id, ClassicGame.end_event(racks, request.form.get("ending") or None, actor=actor()))
    return back(game_id)
