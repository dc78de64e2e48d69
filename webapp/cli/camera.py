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

CALIBRATION_FRAMES: Final = 30


def add_camera_commands(commands: Any) -> None:
    """Add ``calibrate`` and ``camera-node`` to the CLI's subcommands."""
    calibrate = commands.add_parser("calibrate", help="find a venue camera's board and save its calibration")
    calibrate.add_argument("--camera", required=True, help="camera name in the venue file")
    calibrate.add_argument("--venue", required=True, metavar="FILE", help="the venue's TOML file")
    calibrate.add_argument("--frames", type=int, default=CALIBRATION_FRAMES, help="frames tried before giving up")
    calibrate.set_defaults(run=run_calibrate)

    node = commands.add_parser("camera-node", help="read a camera here and post its plays to the server")
    node.add_argument("--server", required=True, help="the server's address, e.g. http://192.168.1.10:8080")
    node.add_argument("--token", required=True, help="this node's device token (veedor device add NAME)")
    node.add_argument("--camera", required=True, help="the camera's name in the venue")
    node.add_argument("--source", required=True, help="camera number, stream URL, video file or folder of frames")
    node.add_argument("--fps", type=float, default=5.0, help="frames per second processed (default 5)")
    node.add_argument("--orientation", type=int, choices=(0, 90, 180, 270), help="degrees of row A (default: inferred)")
    node.add_argument("--data", default="veedor-node", help="folder for frames and unsent messages (default ./veedor-node)")
    node.add_argument("--lexicon", metavar="PATH", help="word list (default: $VEEDOR_LEXICON, else the free list)")
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
