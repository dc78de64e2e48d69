"""The arbiter's slips panel (``/arbiter/g/<id>/papeletas``): scanned slips per round, and the doubtful ones.

Per round of a duplicate game: which players' slips are read (in the game),
flagged (waiting here) or missing. Each flagged slip shows the crop of its play
field and the whole slip (from the archive), what was read, the flags in Spanish,
the likeliest plays with their scores, and one-key *accept* (the proposal the
reader made; a play struck out or scrawled over is proposed void, D.III.20.4),
*correct* (a typed notation) or *void* with a reason (D.III.20.4, D.III.25.c); keys
A, C, V (J/K move); D discards a page that is no slip, once confirmed (nothing
entered, the scan kept). Decisions go through ``ScanService.resolve`` into the game by
``GameService.enter_slip``, as the console's slips do: one that would replace a slip
the player already has shows that slip (play, score, who, when) and needs a reason. Scans may also be
uploaded here: each file is stored at once and read by the scanning service's
thread (``/escaneos/subidas/<name>`` says what became of it). The panel also chooses
the game plain slips (without a readable QR code) go to; while pages of them wait for
that choice, every console page says so (``plain_slips``, the context processor
below). Everything needs an arbiter's session; POSTs the CSRF token.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    g,
    has_request_context,
    jsonify,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.wrappers import Response

from rules_core.duplicate import NO_SLIP, DuplicateGame
from rules_core.events import GameError
from rules_core.slip_entry import ReplacementNeedsReason, stored_slip
from vision.slips.ingest import MAX_PAGES
from vision.slips.review import VOID_REASONS, ReviewItem, void_reason

from ..services.scanning import PlainGame, ScanError, ScanService
from ..services.shared import scan_service
from .arbiter.slips import replacement_message, stored_json
from .auth import current_arbiter, login_required, wants_json
from .display import game_record

bp = Blueprint("slip_review", __name__, url_prefix="/arbiter")

FLAG_TEXT: Final = {  # the reader's flags as the arbiter reads them
    "spoilt": "jugada tachada o emborronada (D.III.20.4): se propone anularla",
    "illegible": "caligrafía ilegible (D.III.20.4)",
    "position_unknown": "ronda o posición no identificable",
    "player_unknown": "jugador no identificable",
    "several_plays": "varias jugadas anotadas (D.III.20.2)",
    "coordinate_order": "coordenadas en orden incorrecto o flecha errónea (D.III.20.4)",
    "unmarked_blank": "comodín sin rodear (D.III.20.3)",
    "circled_without_blank": "letra rodeada sin comodín en el atril",
    "blank_letter_unsure": "letra del comodín dudosa (D.III.20.3): compruebe la letra rodeada",
    "other_game": "papeleta de otra partida: no se anota aquí sin su decisión",
    "relative_notation": "notación de tablero relativo (D.III.20.1.d): el lector no la lee",
    "no_play": "papeleta entregada sin jugada escrita",
}
STATUS_TEXT: Final = {"read": "leída", "flagged": "en revisión", "missing": "sin entregar"}
CANDIDATES_SHOWN: Final = 5
RESOLVED_SHOWN: Final = 20
UPLOAD_BYTES: Final = 32 * 1024 * 1024  # one upload of scans (config SCAN_UPLOAD_BYTES)
UPLOAD_BUFFER: Final = 2 * 1024 * 1024


def _service() -> ScanService:
    return scan_service()


@bp.before_app_request
def _upload_limit() -> None:
    """Scans are larger than the app's forms: the upload's own limit, set before the CSRF check reads the form."""
    if request.endpoint == "slip_review.upload":
        request.max_content_length = int(current_app.config.get("SCAN_UPLOAD_BYTES", UPLOAD_BYTES))
        request.max_form_memory_size = UPLOAD_BUFFER  # the multipart parser buffers part of a file


@bp.app_context_processor
def _plain_slips() -> dict[str, Any]:
    """``plain_slips()`` for base.html: on console pages with an arbiter, while pages of plain slips wait for a
    game to be chosen, where they would go (else None: nothing waits, nothing to say)."""

    def plain_slips() -> PlainGame | None:
        if not has_request_context() or not request.path.startswith("/arbiter") or current_arbiter() is None:
            return None
        plain = _service().plain()
        return plain if plain.waiting else None

    return {"plain_slips": plain_slips}


@bp.after_request
def _no_store(response: Response) -> Response:
    response.headers.setdefault("Cache-Control", "no-store")
    return response


def _duplicate(game_id: str) -> None:
    record = game_record(game_id)
    if record.mode != "duplicate":
        abort(404)


def _panel_url(game_id: str, number: int | None) -> str:
    return url_for("slip_review.panel", game_id=game_id, ronda=number) if number else url_for(
        "slip_review.panel", game_id=game_id)  # fmt: skip


# -- the panel -----------------------------------------------------------------------------------


@bp.get("/g/<game_id>/papeletas")
@login_required
def panel(game_id: str) -> str:
    _duplicate(game_id)
    return _panel_page(game_id, request.args.get("ronda"))


def _panel_page(game_id: str, wanted: str | None, asked: dict[str, Any] | None = None) -> str:
    """The panel of round ``wanted``; ``asked``: a decision refused for want of a reason to replace a
    stored slip, shown again on its item with what the arbiter chose and the stored slip."""
    scans = _service()
    record = game_record(game_id)
    with scans.live().reading(game_id) as game:
        assert isinstance(game, DuplicateGame)
        context = panel_context(scans, game_id, game, wanted)
    return render_template("arbiter/slips.html", game=record, void_reasons=list(dict.fromkeys(VOID_REASONS.values())),
                           asked=asked, **context)  # fmt: skip


def panel_context(scans: ScanService, game_id: str, game: DuplicateGame, wanted: str | None) -> dict[str, Any]:
    """What the panel shows (read under the games' lock)."""
    number = int(wanted) if wanted and wanted.isdigit() and 1 <= int(wanted) <= len(game.rounds) else (
        game.current.number if game.current else None)  # fmt: skip
    rounds = []
    for r in game.rounds:
        counts = {"read": 0, "flagged": 0, "missing": 0}
        for status in scans.round_status(game_id, game, r.number).values():
            counts[status] += 1
        rounds.append({"number": r.number, "master": r.master.notation if r.master else None, **counts})
    pending = scans.pending(game_id)
    items = [i for i in pending if i.round in (number, None)]
    rows = round_rows(scans, game_id, game, number, items) if number is not None else []
    players = sorted(game.players.values(), key=lambda p: p.table)
    resolved = [i for i in scans.queue.items.values() if i.status != "pending" and i.round == number
                and i.game == game_id][-RESOLVED_SHOWN:]  # fmt: skip
    return {
        "round_number": number,
        "rounds": rounds,
        "rows": rows,
        "items": [item_view(game_id, i, game) for i in items],
        "other_pending": len(pending) - len(items),
        "resolved": [item_view(game_id, i, game) for i in reversed(resolved)],
        "players": [{"id": p.id, "table": p.table, "name": p.name} for p in players],
        "round_numbers": [r.number for r in game.rounds],
        "version": panel_version(scans, game_id, game),
        "plain": scans.plain(),
        "upload_mb": int(current_app.config.get("SCAN_UPLOAD_BYTES", UPLOAD_BYTES)) // (1024 * 1024),
        "max_pages": MAX_PAGES,
        "scanner_alerts": scans.problems(),
        "refused": scans.refused()[-RESOLVED_SHOWN:],
    }


def round_rows(scans: ScanService, game_id: str, game: DuplicateGame, number: int,
               items: list[ReviewItem]) -> list[dict[str, Any]]:  # fmt: skip
    """One row per player of round ``number``, by table: read, flagged or missing, and what was scored."""
    r = game.round(number)
    waiting = {i.player: i.id for i in items if i.player}
    rows = []
    for player_id, status in scans.round_status(game_id, game, number).items():
        player = game.players[player_id]
        result = r.results.get(player_id, NO_SLIP) if player_id in r.slips else None
        slip = r.slips.get(player_id)
        rows.append({"table": player.table, "name": player.name, "status": status,
                     "status_text": STATUS_TEXT[status], "item": waiting.get(player_id),
                     "play": result.play if result else "", "score": result.score if result else None,
                     "reason": result.reason if result else "", "source": slip.source if slip else ""})  # fmt: skip
    return sorted(rows, key=lambda row: row["table"])


def panel_version(scans: ScanService, game_id: str, game: DuplicateGame) -> str:
    """Changes whenever the panel would show something else (events of the game, queue items)."""
    items = scans.items_of(game_id)
    plain = scans.plain()
    return (f"{len(game.events)}.{len(items)}.{sum(1 for i in items if i.status != 'pending')}"
            f".{len(scans.refused())}.{len(scans.problems())}.{plain.game}.{plain.waiting}")


def item_view(game_id: str, item: ReviewItem, game: DuplicateGame) -> dict[str, Any]:
    """One flagged slip as the panel shows it."""
    player = game.players.get(item.player) if item.player else None
    proposal = item.proposal or {}
    who = f"{player.table} · {player.name}" if player else None
    return {
        "name": _item_name(item, who),
        "id": item.id,
        "status": item.status,
        "status_text": _ACTION_TEXT.get(item.status, item.status),
        "round": item.round,
        "player": item.player,
        "who": who,
        "reading": item.reading,
        "flags": [FLAG_TEXT.get(f, f) for f in item.flags],
        "confidence": round(100 * item.confidence),
        "candidates": [{"play": c.get("play"), "score": c.get("score"), "kind": c.get("kind"),
                        "percent": round(100 * float(c.get("probability") or 0))}
                       for c in item.candidates[:CANDIDATES_SHOWN]],  # fmt: skip
        "proposal": _proposal_text(proposal) if item.proposal else None,
        "void_reason": void_reason(item.flags) if item.flags else VOID_REASONS["illegible"],
        "stored": _stored_for(item, game),  # replacing it needs a reason
        "note": item.note,
        "crop": url_for("slip_review.image", game_id=game_id, item_id=item.id, kind="recorte") if item.crop else None,
        "slip": url_for("slip_review.image", game_id=game_id, item_id=item.id, kind="papeleta")
        if item.slip_image else None,
        "page": url_for("slip_review.page", game_id=game_id, sha=item.page),
        "resolution": item.resolution,
    }


def _item_name(item: ReviewItem, who: str | None) -> str:
    """A flagged item as a discard's confirmation names it: the page it is on (file and page), whose it seems, what
    was read."""
    page = _service().page_source(item.page)
    parts = [_("página %(n)s de «%(file)s»", n=page.index + 1, file=page.source) if page else _("la página escaneada")]
    if who:
        parts.append(_("mesa %(who)s", who=who))
    if item.reading:
        parts.append(_("leído «%(text)s»", text=item.reading))
    return ", ".join(str(part) for part in parts)


def _stored_for(item: ReviewItem, game: DuplicateGame) -> dict[str, Any] | None:
    """The slip a pending item's player already has of its round, as the panel shows it, or None."""
    if item.status != "pending" or item.player not in game.players or not item.round or item.round > len(game.rounds):
        return None
    stored = stored_slip(game, item.round, item.player)
    return stored_json(stored) if stored else None


def _proposal_text(proposal: dict[str, Any]) -> str:
    text = str(proposal.get("notation") or _("sin jugada"))
    if proposal.get("void"):
        text += " · " + _("nula: %(why)s", why=proposal["void"])
    if proposal.get("blank_not_circled"):
        text += " · " + _("comodín sin rodear")
    if proposal.get("other_notations"):
        text += " · " + _("varias jugadas")
    return text


@bp.get("/g/<game_id>/papeletas/estado")
@login_required
def status(game_id: str) -> Response:
    """The panel's version and the current round's counts (the panel reloads when it changes)."""
    _duplicate(game_id)
    scans = _service()
    with scans.live().reading(game_id) as game:
        assert isinstance(game, DuplicateGame)
        number = game.current.number if game.current else None
        counts = scans.round_status(game_id, game, number) if number else {}
        return jsonify({"version": panel_version(scans, game_id, game), "round": number,
                        "pending": len(scans.pending(game_id)), "status": counts})  # fmt: skip


# -- decisions -------------------------------------------------------------------------------------


@bp.post("/g/<game_id>/papeletas/decidir")
@login_required
def resolve(game_id: str) -> Response | tuple[Response, int]:
    """Accept, correct, void or dismiss a flagged slip (form: item, action, play, reason, player, round;
    ``replacing``: why it replaces the slip the player already has). Without that reason the panel is
    shown again (409) with the stored slip and the arbiter's choices kept."""
    _duplicate(game_id)
    form = request.form
    item_id = form.get("item", "").strip()[:100]
    action = form.get("action", "")
    round_text = form.get("round", "").strip()
    try:
        item = _service().resolve(
            game_id, item_id, action, str(g.arbiter),
            notation=form.get("play", "").strip()[:60] or None,
            reason=None if action == "dismiss" else form.get("reason", "").strip()[:200] or None,
            player=form.get("player", "").strip()[:64] or None,
            round_number=int(round_text) if round_text.isdigit() else None,
            replacing=form.get("replacing", "").strip()[:300] or None,
        )  # fmt: skip
    except ReplacementNeedsReason as refused:
        return _ask_reason(game_id, refused, action)
    except (ScanError, GameError, ValueError) as error:
        if wants_json():
            return jsonify({"error": str(error)}), 409
        flash(str(error), "error")
        return redirect(_panel_url(game_id, _int(form.get("shown"))))
    if wants_json():
        return jsonify(item.to_json())
    slip = item.resolution.get("slip", {})
    flash(_("Papeleta resuelta (%(action)s): %(play)s", action=_ACTION_TEXT.get(item.status, item.status),
            play=slip.get("notation") or "-"), "ok")  # fmt: skip
    return redirect(_panel_url(game_id, _int(form.get("shown")) or item.round))


_ACTION_TEXT: Final = {"accepted": "aceptada", "corrected": "corregida", "voided": "anulada", "dismissed": "descartada"}


def _ask_reason(game_id: str, refused: ReplacementNeedsReason, action: str) -> Response | tuple[Response, int]:
    """A decision that would replace a stored slip without a reason: 409 with the stored slip (JSON), or the
    panel again with it on the item, the arbiter's choices kept and the reason asked."""
    stored, message = stored_json(refused.stored), replacement_message(refused.stored)
    if wants_json():
        return jsonify({"error": message, "stored": stored}), 409
    form = request.form
    asked = {"item": form.get("item", ""), "action": action, "stored": stored, "message": message,
             **{k: form.get(k, "") for k in ("play", "reason", "player", "round")}}
    return Response(_panel_page(game_id, form.get("shown"), asked), 409)


def _int(text: str | None) -> int | None:
    text = (text or "").strip()
    return int(text) if text.isdigit() else None


# -- images from the archive ------------------------------------------------------------------------


@bp.get("/g/<game_id>/papeletas/<item_id>/<any(recorte, papeleta):kind>.png")
@login_required
def image(game_id: str, item_id: str, kind: str) -> Response:
    """The crop of the play field, or the whole slip straightened, of a flagged slip."""
    scans = _service()
    item = scans.item(item_id)
    if item is None or item.game != game_id:
        abort(404)
    path = Path(item.crop if kind == "recorte" else item.slip_image)
    if not path.name or not path.is_file() or not path.resolve().is_relative_to(scans.queue.root.resolve()):
        abort(404)
    return send_file(path, mimetype="image/png", max_age=0)


@bp.get("/g/<game_id>/escaneos/<sha>.png")
@login_required
def page(game_id: str, sha: str) -> Response:
    """A whole scanned page, from the archive (by its content address)."""
    game_record(game_id)
    path = _service().page_path(sha)
    if path is None:
        abort(404)
    return send_file(path, mimetype="image/png", max_age=0)


@bp.get("/g/<game_id>/escaneos/rechazados/<scanner>/<name>")
@login_required
def refused_file(game_id: str, scanner: str, name: str) -> Response:
    """A refused file, as it arrived (downloaded: it may be anything), by the name it is stored under."""
    game_record(game_id)
    for refused in _service().refused():
        if refused.scanner == scanner and refused.stored == name and refused.path.is_file():
            return send_file(refused.path, as_attachment=True, download_name=name, max_age=0)
    abort(404)


# -- uploads ------------------------------------------------------------------------------------------


@bp.post("/g/<game_id>/escaneos")
@login_required
def upload(game_id: str) -> Response | tuple[Response, int]:
    """Scans sent from the console: each stored at once (202), then read like a scanner's by the scanning
    service's thread; every slip goes to the game of its QR code, plain ones to the game chosen for them."""
    _duplicate(game_id)
    scans = _service()
    files = [f for f in request.files.getlist("scan") if f and f.filename]
    if not files:
        return _upload_reply(game_id, [], [_("Elija uno o más archivos de escaneo.")])
    stored: list[str] = []
    errors: list[str] = []
    for storage in files:
        try:
            stored.append(scans.upload(storage.filename or "escaneo", storage.stream))
        except ScanError as error:
            errors.append(str(error))
    return _upload_reply(game_id, stored, errors)


def _upload_reply(game_id: str, stored: list[str], errors: list[str]) -> Response | tuple[Response, int]:
    plain = _service().plain()
    note = None if plain.ready else _("Las papeletas sin código QR esperarán a que elija la partida a la que van.")
    if wants_json():
        outcomes = {name: url_for("slip_review.outcome", game_id=game_id, name=name) for name in stored}
        body = {"stored": stored, "outcomes": outcomes, "errors": errors, "error": errors[0] if errors else None,
                "note": note}  # fmt: skip
        return jsonify(body), 202 if stored else 409
    for error in errors:
        flash(error, "error")
    if stored:
        flash(_("Escaneos guardados (%(n)s): se están leyendo; el panel se actualizará solo.", n=len(stored)), "ok")
    if stored and note:
        flash(note, "error")
    return redirect(_panel_url(game_id, None))


@bp.get("/g/<game_id>/escaneos/subidas/<name>")
@login_required
def outcome(game_id: str, name: str) -> Response:
    """What became of an uploaded file: stored, reading, waiting (for a game for plain slips), read, refused."""
    game_record(game_id)
    found = _service().outcome(name)
    if found is None:
        abort(404)
    return jsonify({"name": name, **found})


# -- where plain slips go -----------------------------------------------------------------------------


@bp.post("/g/<game_id>/papeletas/seguir")
@login_required
def follow(game_id: str) -> Response:
    """Plain slips (without a readable QR code) go to this game from now on (kept across restarts)."""
    _duplicate(game_id)
    try:
        _service().choose(game_id, str(g.arbiter))
    except ScanError as error:
        flash(str(error), "error")
    else:
        flash(_("Las papeletas sin código QR se leen ahora en esta partida."), "ok")
    return redirect(_panel_url(game_id, None))


@bp.post("/g/<game_id>/papeletas/no-seguir")
@login_required
def unfollow(game_id: str) -> Response:
    """Plain slips go to no game from now on: they wait, stored, until one is chosen."""
    _duplicate(game_id)
    _service().choose(None, str(g.arbiter))
    flash(_("Las papeletas sin código QR no van ahora a ninguna partida: esperarán guardadas."), "ok")
    return redirect(_panel_url(game_id, None))
