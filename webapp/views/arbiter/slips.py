"""Slips typed in the console (D.III.20, D.III.25), with the score shown as one types (``check``).

Every slip is stored by ``GameService.enter_slip``, the path the scanned-slips panel takes
too: a slip for a table that already has one replaces it, so the console shows what is
stored (play, score, who, when: ``stored_json``) and needs a reason. What is typed is read
as the rules read it: a play typed without its separator (``H3ACEPTAR``) when only one
reading exists (``rules_core.notation.typed_notation``), a play with its coordinate in the
wrong order as void (D.III.20.4, judged as the scanner judges it: ``rules_core.slips``).
A notation that cannot be read, one all in lowercase (every letter a blank) or one with
its coordinate in the wrong order is stored only when sent again with ``confirm``.

Several consoles may enter the slips of one round at once: the game's lock lets one slip
in at a time, so the same table sent by two consoles is stored once. The other is
answered with what is stored and what it typed (``stored``, ``typed``) for its arbiter
to decide, or as a repetition when it typed the same slip. A replacement names the
stored slip it was decided on (``replaces``: its time of entry, ``stored_json``'s ``at``):
one stored meanwhile is shown again, never replaced unseen.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flask import flash, jsonify, request
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.wrappers import Response

from rules_core.duplicate import DuplicateGame, Round
from rules_core.events import GameError
from rules_core.notation import typed_notation
from rules_core.slip_entry import ReplacementNeedsReason, StoredSlip, StoredSlipChanged, stored_slip
from rules_core.slips import Slip, SlipScore, meant_play, score_slip

from ...records.timezone import local
from ...services.shared import services
from ..auth import login_required, wants_json
from .common import actor, back, bp, duplicate_of
from .console import console_state

REASON_LENGTH = 300


def slip_from_form(values: Any) -> Slip:
    """The slip the arbiter typed: the play (``-`` for none) and the facts noted."""
    notation = typed_notation(str(values.get("play", "")).strip())
    void = str(values.get("void", "")).strip()[:200] or None
    return Slip(
        None if notation in ("", "-") else notation[:60],
        late=values.get("late") in ("1", "on", "true"),
        blank_not_circled=values.get("blank") in ("1", "on", "true"),
        void=void,
        source="teclado",
    )


def _slip_target(game: DuplicateGame, values: Any) -> tuple[Round, str]:
    table = str(values.get("table", "")).strip()
    player = next((p for p in game.players.values() if str(p.table) == table), None)
    if player is None:
        raise GameError(_("no hay ningún jugador en la mesa %(t)s", t=repr(table)) if table else _("falta el número de mesa"))
    number = str(values.get("round", "")).strip()
    r = game.round(int(number)) if number.isdigit() else game.current
    if r is None:
        raise GameError(_("todavía no hay ninguna ronda"))
    return r, player.id


def _result_json(result: SlipScore) -> dict[str, Any]:
    return {"play": result.play, "score": result.score, "reason": result.reason, "valid": result.valid}


def stored_json(stored: StoredSlip) -> dict[str, Any]:
    """What is stored of a player's slip, as the console and the scanned-slips panel show it before
    replacing it: the play, its score, how and by whom it was entered, when (the venue's time)."""
    return {"round": stored.round, "table": stored.table, "name": stored.name,
            "play": stored.play or stored.slip.notation or str(_("sin jugada")), "score": stored.score,
            "reason": stored.reason, "by": stored.actor, "when": local(stored.at).strftime("%H:%M:%S"),
            "at": stored.at.isoformat(),
            "source": str(_("escaneada") if stored.slip.source == "escáner" else _("tecleada"))}  # fmt: skip


def replacement_message(stored: StoredSlip) -> str:
    """Why a slip is not stored yet: the table already has one, shown, and replacing it needs a reason."""
    shown = stored_json(stored)
    return str(_("La mesa %(t)s (%(name)s) ya tiene papeleta en la ronda %(n)s: %(play)s, %(score)s puntos, "
                 "%(source)s por %(by)s a las %(when)s. Sustituirla necesita un motivo.", t=shown["table"],
                 name=shown["name"], n=shown["round"], play=shown["play"], score=shown["score"],
                 source=shown["source"], by=shown["by"], when=shown["when"]))  # fmt: skip


def changed_message(stored: StoredSlip) -> str:
    """Why a decided replacement is not stored: another slip was stored meanwhile, shown, to decide again."""
    shown = stored_json(stored)
    return str(_("La papeleta de la mesa %(t)s (%(name)s) ha cambiado mientras usted decidía: ahora %(play)s, "
                 "%(score)s puntos, %(source)s por %(by)s a las %(when)s. Decida de nuevo.", t=shown["table"],
                 name=shown["name"], play=shown["play"], score=shown["score"], source=shown["source"],
                 by=shown["by"], when=shown["when"]))  # fmt: skip


def _replaced_time(values: Any) -> datetime | None:
    """The time of entry of the stored slip a replacement was decided on (``replaces``), or None."""
    text = str(values.get("replaces", "")).strip()
    if not text:
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        message = _("no se sabe qué papeleta sustituir: «%(v)s» no es una hora de entrada", v=text[:40])
        raise GameError(message) from None


@bp.get("/g/<game_id>/check")
@login_required
def check(game_id: str) -> Response:
    """What the slip being typed would score, whose it is and what the table has stored: nothing is stored."""
    game = duplicate_of(game_id)
    with services().games.reading(game_id):
        try:
            r, player_id = _slip_target(game, request.args)
        except (GameError, ValueError) as error:
            return jsonify({"error": str(error)})
        player = game.players[player_id]
        slip = slip_from_form(request.args)
        result = score_slip(r.board, r.rack, r.lexicon, slip) if slip.notation or slip.late or slip.void else None
        existing = stored_slip(game, r.number, player_id)
        return jsonify({
            "round": r.number, "table": player.table, "name": player.name,
            "result": _result_json(result) if result else None,
            "existing": stored_json(existing) if existing else None,
            "closed": r.master is not None or game.ended,
            "confirm": _doubtful_notation(game, r, slip, result) if result else None,
        })  # fmt: skip


@bp.post("/g/<game_id>/slip")
@login_required
def enter_slip(game_id: str) -> Response | tuple[Response, int]:
    """Record a slip, or replace the one the table has (with a reason: ``GameService.enter_slip``).

    The same slip sent twice (Enter pressed twice) is stored once and answered with
    what was stored. A doubtful notation (``_doubtful_notation``) is stored only when
    sent again with ``confirm``; a new slip for a closed round needs a reason too.
    """
    game = duplicate_of(game_id)
    values = request.form
    slip = slip_from_form(values)
    with services().games.reading(game_id):
        try:
            r, player_id = _slip_target(game, values)
            replaces = _replaced_time(values)
        except (GameError, ValueError) as error:
            return _slip_reply(game_id, None, str(error))
        stored = stored_slip(game, r.number, player_id)
        if stored is not None and stored.slip == slip:
            return _slip_reply(game_id, _stored_reply(game, stored, repeated=True), None)
        typed = score_slip(r.board, r.rack, r.lexicon, slip)
        warning = _doubtful_notation(game, r, slip, typed)
    if warning and values.get("confirm") != "1":
        return _slip_reply(game_id, {"confirm": warning}, None)
    try:
        entered = services().games.enter_slip(game_id, r.number, player_id, slip, actor(),
                                              values.get("reason", "")[:REASON_LENGTH], replaces)  # fmt: skip
    except ReplacementNeedsReason as refused:  # stored meanwhile (another console), or a correction without reason
        if refused.stored.slip == slip:  # the same slip, typed on two consoles at once: stored once
            with services().games.reading(game_id):
                return _slip_reply(game_id, _stored_reply(game, refused.stored, repeated=True), None)
        message = (changed_message if isinstance(refused, StoredSlipChanged) else replacement_message)(refused.stored)
        return _slip_reply(game_id, {"stored": stored_json(refused.stored), "typed": _typed_json(slip, typed),
                                     "changed": isinstance(refused, StoredSlipChanged)}, message)  # fmt: skip
    except GameError as error:
        return _slip_reply(game_id, None, str(error))
    with services().games.reading(game_id):
        return _slip_reply(game_id, _stored_reply(game, entered, repeated=False), None)


def _typed_json(slip: Slip, result: SlipScore) -> dict[str, Any]:
    """What the console sent, beside what is stored, for its arbiter to choose between them."""
    return {"written": slip.notation or "", "late": slip.late, "blank": slip.blank_not_circled, "void": slip.void or "",
            **_result_json(result)}  # fmt: skip


def _stored_reply(game: DuplicateGame, stored: StoredSlip, *, repeated: bool) -> dict[str, Any]:
    """What the console shows of the slip stored (read under the game's lock)."""
    result = SlipScore(stored.play, stored.score, stored.reason)
    return {"table": stored.table, "name": stored.name, "corrected": stored.corrected and not repeated,
            "repeated": repeated, "result": _result_json(result), "entry": stored_json(stored),
            "state": console_state(game, stored.round)}  # fmt: skip


def _doubtful_notation(game: DuplicateGame, r: Round, slip: Slip, result: SlipScore) -> str | None:
    """Why a typed slip may be a typing slip (asked again before storing), or None."""
    if slip.notation is None or slip.late or slip.void:
        return None
    meant = None if result.valid else meant_play(r.board, r.rack, r.lexicon, slip.notation)
    if meant is not None:  # D.III.20.4, as the scanner flags it
        return str(_("«%(p)s» tiene las coordenadas en orden incorrecto (se leería %(m)s): la papeleta es nula "
                     "(D.III.20.4). Pulse Intro otra vez para anotarla así.", p=slip.notation, m=meant.notation()))
    if result.reason.startswith("papeleta nula: notación incorrecta"):
        return str(_("«%(p)s» no se entiende como jugada y valdría 0: pulse Intro otra vez para anotarla así.",
                     p=slip.notation))  # fmt: skip
    letters = [ch for ch in slip.notation if ch.isalpha()]
    word = [ch for ch in letters[1:] if not ch.isdigit()]  # the coordinate's letter is not part of the word
    if word and all(ch.islower() for ch in word):
        return str(_("«%(p)s» está en minúsculas: todas sus fichas serían comodines. Pulse Intro otra vez "
                     "para anotarla así.", p=slip.notation))  # fmt: skip
    return None


def _slip_reply(game_id: str, reply: dict[str, Any] | None, error: str | None) -> Response | tuple[Response, int]:
    """JSON for the console's script (409 with ``error``, and ``stored`` when a reason is missing), else a
    flashed message back on the console."""
    if wants_json():
        return (jsonify({"error": error, **(reply or {})}), 409) if error else jsonify(reply)
    if error:
        flash(error, "error")
    elif reply and "confirm" in reply:
        flash(reply["confirm"], "error")
    elif reply:
        flash(_("Mesa %(t)s: %(p)s, %(s)s puntos", t=reply["table"], p=reply["result"]["play"] or "-",
                s=reply["result"]["score"]), "ok")  # fmt: skip
    return back(game_id)
