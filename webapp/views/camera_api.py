"""The device API of the camera nodes: ``POST /api/cameras/messages``.

A camera node (``veedor camera-node``) posts the messages of its camera loop
(``hardware.camera_worker``: status, previews, reports with their frames,
calibrations) with its device token (``Authorization: Bearer <token>``), as
``{"camera": NAME, "messages": [...]}`` in order. Each is applied by ``CameraRegistry.receive``; a
report already applied (a retry after a lost answer) is not applied twice. The
answer is 200 ``{"ok": true, "applied": n, "commands": [...], "sync": {...}}``: the
commands waiting for the camera and the board of its game, which the node's
tracker takes. A message that cannot be applied is 400 with the reason and the
number applied before it (the node drops it and sends the rest again).
"""

from __future__ import annotations

import re
from typing import Any, Final

from flask import Blueprint, abort, jsonify
from werkzeug.wrappers import Response

from rules_core.events import GameError

from ..services.cameras import CameraError
from ..services.shared import services
from .auth import device_required
from .inputs import json_object

bp = Blueprint("camera_api", __name__, url_prefix="/api/cameras")

CAMERA_NAME: Final = re.compile(r"^[a-z0-9_-]{1,40}$")
MAX_MESSAGES: Final = 50


@bp.post("/messages")
@device_required("node")
def messages() -> tuple[Response, int]:
    body = json_object()
    name = body.get("camera")
    if not isinstance(name, str) or not CAMERA_NAME.match(name):
        abort(400, description="falta 'camera': el nombre de la cámara ([a-z0-9_-]+)")
    items = body.get("messages")
    if not isinstance(items, list) or len(items) > MAX_MESSAGES:
        abort(400, description=f"se esperaba {{'messages': [...]}} con como mucho {MAX_MESSAGES} mensajes")
    registry = services().cameras
    reply: dict[str, Any] = {"ok": True, "commands": [], "sync": None}
    commands: list[Any] = []
    for applied, message in enumerate(items):
        try:
            reply = registry.receive(name, message)
        except (CameraError, GameError) as error:
            return jsonify({"error": str(error), "status": 400, "applied": applied, "commands": commands}), 400
        commands += reply.get("commands", [])
    if not items:
        try:
            reply = registry.poll(name)
        except CameraError as error:
            return jsonify({"error": str(error), "status": 400, "applied": 0, "commands": []}), 400
        commands += reply.get("commands", [])
    return jsonify({**reply, "applied": len(items), "commands": commands}), 200
