"""The evidence file of a game for the arbiters: ``/arbiter/g/<id>/expediente.zip``
(``records.evidence``; the same as ``veedor archive GAME --out FILE.zip``)."""

from __future__ import annotations

from flask import Blueprint
from werkzeug.wrappers import Response

from ..records.evidence import evidence_zip
from ..records.exports import attachment, export_name
from ..records.timezone import local_date
from ..services.shared import scan_service, services
from .auth import login_required
from .display import game_record

bp = Blueprint("archive", __name__)


@bp.get("/arbiter/g/<game_id>/expediente.zip")
@login_required
def evidence(game_id: str) -> Response:
    record = game_record(game_id)
    scan_service()  # the slips' archive attached: their scans go in
    body = evidence_zip(services(), game_id)
    name = export_name(record.name, local_date(record.created_at), "expediente", "zip")
    return Response(body, content_type="application/zip", headers=attachment(name))
