"""The arbiter console's camera panel (``/arbiter/cameras``).

For each board camera: its live state (señal, sin señal with the reason, buscando
tablero, manos sobre el tablero), the time of its last frame and its frame rate, its
latest preview, the classic game it feeds (chosen here, remembered across restarts),
its calibration (the Calibrate button asks the camera to find the board and shows
the straightened board with the grid) and its doubts, each with the frame and one
action: confirm the reading (naming a blank's letter if needed), correct it (type
the play) or dismiss it. Every view needs an arbiter session, every POST the CSRF
token; ``/arbiter/cameras/state`` gives the same as JSON for the page's refresh.
"""

from __future__ import annotations

import re

from flask import Blueprint, abort, flash, g, jsonify, redirect, render_template, request, send_file, url_for
from werkzeug.wrappers import Response

from rules_core.events import GameError
from rules_core.notation import NotationError

from ..services.cameras import CameraError
from ..services.shared import services
from ..services.stored_files import NotStored
from .auth import login_required, wants_json

bp = Blueprint("cameras", __name__, url_prefix="/arbiter/cameras")

BLANK_ENTRY = re.compile(r"^\s*([A-Oa-o]\d{1,2})\s*[=:]\s*(\S+)\s*$")


def _known(name: str) -> str:
    if name not in services().cameras.names():
        abort(404, description=f"no hay ninguna cámara {name!r}")
    return name


def _done(message: str, category: str = "ok", status: int = 200) -> Response:
    if wants_json():
        response = jsonify({"ok": category == "ok", "message": message})
        response.status_code = status if category == "ok" else 409
        return response
    flash(message, category)
    return redirect(url_for("cameras.index"))


@bp.get("")
@login_required
def index() -> str:
    records = [r for r in reversed(services().games.store.games()) if r.mode == "classic"]
    return render_template("arbiter/cameras.html", cameras=services().cameras.states(), games=records)


@bp.get("/state")
@login_required
def state() -> Response:
    return jsonify(services().cameras.states())


@bp.get("/<name>/preview.jpg")
@login_required
def preview(name: str) -> Response:
    data = services().cameras.preview(_known(name))
    if data is None:
        abort(404, description="la cámara todavía no ha enviado ninguna imagen")
    response = Response(data, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/<name>/calibration.png")
@login_required
def calibration_image(name: str) -> Response:
    registry = services().cameras
    folder = registry.data_dir
    path = None if folder is None else folder / "calibration" / f"{_known(name)}.png"
    if path is None or not path.is_file():
        abort(404, description="la cámara no está calibrada")
    response = send_file(path, mimetype="image/png", max_age=0)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/<name>/doubts/<int:item_id>/frame.jpg")
@login_required
def doubt_frame(name: str, item_id: int) -> Response:
    registry = services().cameras
    try:
        item = registry.doubt(_known(name), item_id)
    except KeyError:
        abort(404)
    try:
        path = registry.files.frame(item.report.frame_path, (name,))  # only a frame the server stored
    except NotStored:
        abort(404, description="no se guardó la imagen de esta duda")
    return send_file(path, mimetype="image/jpeg", max_age=3600)


def _form_camera() -> str:
    return _known(request.form.get("camera", "").strip())


@bp.post("/asignar")
@login_required
def attach() -> Response:
    name = _form_camera()
    game_id = request.form.get("game", "").strip()
    try:
        services().cameras.attach(_known(name), game_id)
    except CameraError as error:
        return _done(str(error), "error")
    return _done(f"La cámara {name} sigue ahora la partida elegida." if game_id else f"La cámara {name} ya no sigue ninguna partida.")


@bp.post("/calibrar")
@login_required
def calibrate() -> Response:
    name = _form_camera()
    services().cameras.request_calibration(name)
    return _done(f"Calibrando la cámara {name}: la vista del tablero enderezado aparecerá en unos segundos.")


@bp.post("/dudas")
@login_required
def resolve() -> Response:
    """One doubt resolved: ``camera``, ``item``, ``action`` (confirm, correct, dismiss)."""
    registry = services().cameras
    arbiter = str(g.arbiter)
    name = _form_camera()
    action = request.form.get("action", "")
    item = request.form.get("item", "")
    if not item.isdigit():
        abort(400, description="falta el número de la duda")
    item_id = int(item)
    try:
        if action == "confirm":
            played = registry.confirm(name, item_id, arbiter, parse_blanks(request.form.get("blanks", "")))
            message = f"Anotada {played}." if played else "Aceptada la posición que ve la cámara."
        elif action == "correct":
            notation = request.form.get("play", "").strip()
            if not notation:
                raise CameraError("escriba la jugada, por ejemplo H8 CASA")
            message = f"Anotada {registry.correct(name, item_id, notation, arbiter)}."
        elif action == "dismiss":
            registry.dismiss(name, item_id, arbiter)
            message = "Duda descartada: no se anota nada."
        else:
            abort(400, description=f"acción desconocida: {action!r}")
    except KeyError:
        abort(404, description=f"no hay ninguna duda número {item_id}")
    except (CameraError, GameError, NotationError, ValueError) as error:
        return _done(str(error), "error")
    return _done(message)


def parse_blanks(text: str) -> dict[str, str]:
    """``"H12=s, 8C=a"`` -> ``{"H12": "s", "8C": "a"}``: the letters of the blanks."""
    out: dict[str, str] = {}
    for part in re.split(r"[,;]", text):
        if not part.strip():
            continue
        match = BLANK_ENTRY.match(part)
        if match is None:
            raise CameraError(f"{part.strip()!r}: escriba la casilla y la letra del comodín, por ejemplo H12=s")
        out[match.group(1).upper()] = match.group(2)
    return out
