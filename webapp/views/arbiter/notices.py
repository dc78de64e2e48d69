"""The director's notices to the room (``records.notices``): posted from the console's home, shown on
every screen of the room and of the stream until removed."""

from __future__ import annotations

from flask import flash, redirect, request, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.wrappers import Response

from ...records.notices import NoticeError, notices_of
from ..auth import login_required
from .common import actor, bp


@bp.post("/avisos")
@login_required
def post_notice() -> Response:
    try:
        notices_of().post(request.form.get("text", ""), actor())
        flash(_("Aviso en pantalla."), "ok")
    except NoticeError as error:
        flash(str(error), "error")
    return redirect(url_for("arbiter.index") + "#avisos")


@bp.post("/avisos/<int:notice_id>/quitar")
@login_required
def remove_notice(notice_id: int) -> Response:
    if notices_of().remove(notice_id):
        flash(_("Aviso quitado de las pantallas."), "ok")
    return redirect(url_for("arbiter.index") + "#avisos")
