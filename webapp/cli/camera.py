"""``veedor calibrate`` and ``veedor camera-node``: a venue's board cameras from the command line.

``calibrate --camera NAME --venue FILE`` grabs frames from the camera of the venue
(``hardware.venue``), finds the board, and saves its homography and orientation
under ``<venue data>/calibration/NAME.json`` (used by the camera's worker) with a
preview ``NAME.png`` of the straightened board with the grid drawn; exit 0 when
calibrated, 1 when no board was found, 2 on bad input.

``camera-node --server URL --token TOKEN --camera NAME --source SPEC [--fps N]``
reads a camera on this machine and posts to the server's device API
(``camera_node``); it runs until Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from .spanish import LEXICON_HELP

CALIBRATION_FRAMES: Final = 30


def add_camera_commands(commands: Any) -> None:
    """Add ``calibrate`` and ``camera-node`` to the CLI's subcommands."""
    calibrate = commands.add_parser("calibrate", help="busca el tablero de una cámara de la sede y guarda su calibración")
    calibrate.add_argument("--camera", required=True, help="nombre de la cámara en el archivo de la sede")
    calibrate.add_argument("--venue", required=True, metavar="ARCHIVO", help="el archivo TOML de la sede")
    calibrate.add_argument("--frames", type=int, default=CALIBRATION_FRAMES,
                           help="fotogramas que se prueban antes de desistir")  # fmt: skip
    calibrate.set_defaults(run=run_calibrate)

    node = commands.add_parser("camera-node", help="lee aquí una cámara y envía sus jugadas al servidor")
    node.add_argument("--server", required=True, help="la dirección del servidor, p. ej. http://192.168.1.10:8080")
    node.add_argument("--token", required=True, help="la clave de dispositivo de este nodo (veedor device add NOMBRE)")
    node.add_argument("--camera", required=True, help="el nombre de la cámara en la sede")
    node.add_argument("--source", required=True,
                      help="número de cámara, URL de vídeo, archivo de vídeo o carpeta de fotogramas")  # fmt: skip
    node.add_argument("--fps", type=float, default=5.0, help="fotogramas por segundo que se procesan (por defecto 5)")
    node.add_argument("--orientation", type=int, choices=(0, 90, 180, 270),
                      help="grados de la fila A (por defecto: deducidos)")  # fmt: skip
    node.add_argument("--data", default="veedor-node",
                      help="carpeta de fotogramas y mensajes sin enviar (por defecto ./veedor-node)")  # fmt: skip
    node.add_argument("--lexicon", metavar="RUTA", help=LEXICON_HELP)
    node.set_defaults(run=run_camera_node)


def grab_frames(spec: str, fps: float, count: int) -> Iterator[NDArray[np.uint8]]:
    """Up to ``count`` usable frames of a source (garbage frames skipped)."""
    from hardware.camera import frame_fault, open_source

    taken = 0
    for frame in open_source(spec, fps).frames():
        if frame_fault(frame.image) is None:
            yield frame.image
            taken += 1
        if taken >= count:
            return


def run_calibrate(args: argparse.Namespace) -> int:
    from hardware.camera import SourceError
    from hardware.venue import VenueError, load_venue
    from vision.board.calibration import calibrate, calibration_paths, save_calibration

    try:
        venue = load_venue(args.venue)
        camera = venue.camera(args.camera)
    except VenueError as error:
        print(f"veedor: {error}", file=sys.stderr)
        return 2
    turn = None if camera.orientation is None else (camera.orientation // 90) % 4
    try:
        result, preview = calibrate(camera.name, grab_frames(camera.source, camera.fps, args.frames), turn)
    except SourceError as error:
        print(f"veedor: cámara {camera.name}: {error}", file=sys.stderr)
        return 2
    if not result.found:
        print(f"veedor: cámara {camera.name}: {result.reason}", file=sys.stderr)
        return 1
    folder = Path(venue.data_dir) / "calibration"
    json_path = save_calibration(folder, result, preview)
    orientation = "por deducir de las letras" if result.turn is None else f"fila A a {result.turn * 90} grados"
    print(f"cámara {camera.name} calibrada ({orientation}; diseño {result.layout_score:.2f})")
    print(f"  calibración: {json_path}")
    print(f"  vista del tablero enderezado: {calibration_paths(folder, camera.name)[1]}")
    if result.warning:
        print(f"veedor: cámara {camera.name}: aviso: {result.warning}", file=sys.stderr)
    return 0


def run_camera_node(args: argparse.Namespace) -> int:
    from rules_core.lexicon import load_lexicon

    from ..services.camera_node import NodeError, run_node

    stop = threading.Event()
    turn = None if args.orientation is None else args.orientation // 90
    print(f"Veedor: nodo de la cámara {args.camera} enviando a {args.server} (Ctrl-C para parar)", flush=True)
    try:
        link = run_node(args.server, args.token, args.camera, args.source, load_lexicon(args.lexicon),
                        Path(args.data), fps=args.fps, turn=turn, stopped=stop.is_set)  # fmt: skip
    except KeyboardInterrupt:
        stop.set()
        return 0
    except NodeError as error:
        print(f"veedor: {error}", file=sys.stderr)
        return 2
    if link.pending():
        print(f"veedor: quedan {link.pending()} mensajes sin enviar; se enviarán al volver a empezar", file=sys.stderr)
    return 0
