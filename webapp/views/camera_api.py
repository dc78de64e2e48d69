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

A node posts only for the cameras its token was registered for (``veedor device add
NAME --role node --camera CAM``), never for a camera of the server itself, and only
while its camera is attached to a game the token may write to (``--game``): else 403
(for good) or 409 (until the arbiter attaches the camera to one of its games; the node
keeps its reports meanwhile), with the reason (``CameraRegistry.receive``'s ``node``).
"""

from __future__ import annotations

from typing import Any, Final

from flask import Blueprint, abort, g, jsonify
from werkzeug.wrappers import Response

from rules_core.events import GameError

from ..services.accounts import CAMERA_NAME, Device
from ..services.cameras import CameraError, CameraRefused
from ..services.shared import services
from .auth import device_required
from .inputs import json_object

bp = Blueprint("camera_api", __name__, url_prefix="/api/cameras")

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
    node: Device = g.device
    reply: dict[str, Any] = {"ok": True, "commands": [], "sync": None}
    commands: list[Any] = []
    for applied, message in enumerate(items):
        try:
            reply = registry.receive(name, message, node)
        except (CameraError, GameError) as error:
            return _refused(error, applied, commands)
        commands += reply.get("commands", [])
    if not items:
        try:
            reply = registry.poll(name, node)
        except CameraError as error:
            return _refused(error, 0, [])
        commands += reply.get("commands", [])
    return jsonify({**reply, "applied": len(items), "commands": commands}), 200


def _refused(error: Exception, applied: int, commands: list[Any]) -> tuple[Response, int]:
    """A message not applied: 400 (the message), or the node's scope (``CameraRefused``: 403 or 409)."""
    status = error.status if isinstance(error, CameraRefused) else 400
    return jsonify({"error": str(error), "status": status, "applied": applied, "commands": commands}), status
