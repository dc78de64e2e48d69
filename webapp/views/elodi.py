"""EloDI on the web: ``/results/elodi`` lists every player's rating over the ended duplicate
games of this server (and an imported earlier list), each player's history on their own
page (``/results/elodi/jugador/<key>``: a licence's ``licencia:<licence>``, else the name); the list
downloads as XLSX or CSV in the federation's form (player, licence, club, games, rating, volatility)
and the games as ``veedor rating`` history. An arbiter imports the earlier list (``/arbiter/elodi``)."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, abort, current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.wrappers import Response

from ..records.elodi import EloDI, history_jsonl, ratings
from ..records.elodi_list import LICENCE_KEY, MAX_LIST_BYTES, RatingListError, save_previous
from ..records.exports import CSV_TYPE, XLSX_TYPE, attachment, to_csv, to_xlsx
from ..records.federation import elodi_table
from ..records.timezone import local_now
from ..records.tournaments import person
from ..services.shared import services
from .auth import login_required

bp = Blueprint("elodi", __name__)  # the import's request limits: ``inputs.FORM_LIMITS``


def _data_dir() -> Path:
    return Path(current_app.config.get("DATA_DIR") or current_app.instance_path)


def _current() -> EloDI:
    return ratings(services().games, _data_dir())


@bp.get("/results/elodi")
def index() -> str:
    found = _current()
    return render_template("results/elodi.html", players=found.ordered(), games=len(found.history))


@bp.get("/results/elodi/jugador/<name>")
def player(name: str) -> str:
    """A player's page, by key; a name alone finds the only player of that name without a licence."""
    found = _current()
    key = name if name in found.current else next(
        (k for k in found.current if not k.startswith(LICENCE_KEY) and person(k) == person(name)), None)  # fmt: skip
    if key is None:
        abort(404)
    mine = [c for c in found.changes if c.player == key]
    return render_template("results/elodi_player.html", who=found.person(key), rating=found.current[key], changes=mine)


@bp.get("/results/elodi/lista.<any(csv, xlsx):kind>")
def list_file(kind: str) -> Response:
    """The list as the federation receives ratings (``federation.elodi_table``)."""
    table = elodi_table([(who.name, who.licence, who.club, r) for _place, _key, who, r in _current().ordered()])
    name = f"elodi_{local_now().date()}_lista.{kind}"
    body, mimetype = (to_xlsx({"EloDI": table}), XLSX_TYPE) if kind == "xlsx" else (to_csv(table), CSV_TYPE)
    return Response(body, content_type=mimetype, headers=attachment(name))


@bp.get("/results/elodi/historial.jsonl")
def history_file() -> Response:
    found = _current()
    name = f"elodi_{local_now().date()}_historial.jsonl"
    return Response(history_jsonl(found.history, found.people), content_type="application/x-ndjson; charset=utf-8", headers=attachment(name))


@bp.route("/arbiter/elodi", methods=["GET", "POST"])
@login_required
def import_previous() -> str | Response | tuple[str, int]:
    """The earlier ratings (CSV ``player,rating,volatility,games``), checked whole before they are kept
    (``records.elodi_list``): a list with problems is shown them all, line by line, and nothing of it is kept."""
    max_kb = MAX_LIST_BYTES // 1024
    if request.method == "GET":
        return render_template("arbiter/elodi.html", max_kb=max_kb, problems=[])
    upload = request.files.get("file")
    data = upload.read(MAX_LIST_BYTES + 1) if upload else b""
    if not data or len(data) > MAX_LIST_BYTES:
        flash(_("Elija un archivo CSV de como mucho %(n)s KB.", n=max_kb), "error")
        return redirect(url_for("elodi.import_previous"))
    try:
        count = save_previous(_data_dir(), data)
    except RatingListError as error:
        return render_template("arbiter/elodi.html", max_kb=max_kb, problems=error.listed()), 400
    flash(_("Lista anterior guardada: %(n)s jugadores.", n=count), "ok")
    return redirect(url_for("elodi.index"))
