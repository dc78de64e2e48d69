"""``veedor read-board``, ``veedor watch-board`` and ``veedor print-markers``: the board camera.

``read-board IMAGE [--json]`` prints the board found and every cell; ``--json``
prints one object (``vision.board.reading``); ``--batch FILE`` reads one image
path per line and prints one JSON object per line. ``--lexicon`` (default: the
tournament's $VEEDOR_LEXICON, else the free list) settles the unsure letters of a
board that reads as a game's by the words they make. A frame with no board prints
``found: false`` with the reason (exit 0: it is an answer, not an error); an
image that cannot be read exits 2.

``watch-board --source SOURCE`` follows a camera (device number or stream URL), a
video file or a folder of frames, and prints each committed play (and every
other report of the tracker) as a JSON line; ``--render-demo N`` feeds it a
rendered game of N plays instead.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from .spanish import LEXICON_HELP


class BoardInputError(ValueError):
    """Bad input to a board command (exit 2)."""


def add_board_commands(commands: Any) -> None:
    """Add read-board, watch-board and print-markers to the CLI's subcommands."""
    read = commands.add_parser("read-board", help="lee el tablero y cada casilla de una foto")
    read.add_argument("image", nargs="?", metavar="IMAGEN", help="una foto del tablero")
    read.add_argument("--json", action="store_true", help="escribe un objeto JSON")
    read.add_argument("--batch", metavar="ARCHIVO",
                      help="una ruta de imagen por línea (- para la entrada estándar); una línea JSON cada una")  # fmt: skip
    read.add_argument("--turn", type=int, choices=(0, 1, 2, 3), default=None,
                      help="cuartos de vuelta de lo alto de la imagen a la fila A (por defecto: deducidos de las letras)")
    read.add_argument("--lexicon", metavar="RUTA", help=LEXICON_HELP + "; las letras dudosas de un tablero de partida se "
                      "deciden por las palabras que forman (las de una lista sin las palabras del tablero no cambian nada)")
    read.set_defaults(run=_guarded(run_read_board))

    watch = commands.add_parser("watch-board", help="sigue la cámara de un tablero y escribe cada jugada en JSON")
    watch.add_argument("--source", help="número de cámara, URL de vídeo, archivo de vídeo o carpeta de fotogramas")
    watch.add_argument("--render-demo", type=int, metavar="JUGADAS", help="sigue una partida dibujada de JUGADAS jugadas")
    watch.add_argument("--camera", default="mesa-1", help="nombre de la cámara en los informes")
    watch.add_argument("--fps", type=float, default=10.0, help="fotogramas por segundo de una carpeta de fotogramas")
    watch.add_argument("--turn", type=int, choices=(0, 1, 2, 3), default=None,
                       help="cuartos de vuelta de lo alto de la imagen a la fila A (por defecto: deducidos de las letras)")
    watch.add_argument("--all", action="store_true", help="escribe todos los informes, no solo jugadas y dudas")
    watch.add_argument("--frames-dir", help="dónde guardar los fotogramas de las dudas")
    watch.add_argument("--lexicon", metavar="RUTA", help=LEXICON_HELP)
    watch.set_defaults(run=_guarded(run_watch_board))

    markers = commands.add_parser("print-markers", help="escribe la hoja de marcadores ArUco de las esquinas de un tablero")
    markers.add_argument("out", nargs="?", default="veedor-marcadores.png", metavar="SALIDA.png", help="el PNG que escribir")
    markers.set_defaults(run=_guarded(run_print_markers))


def _guarded(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Bad input (an unreadable image, a source that does not open) exits 2 with the message."""

    def guarded(args: argparse.Namespace) -> int:
        from hardware.camera import SourceError
        from rules_core.lexicon import LexiconError
        from vision.board.classify import ModelError

        try:
            return run(args)
        except (BoardInputError, SourceError, ModelError, LexiconError, OSError) as error:
            print(f"veedor: {error}", file=sys.stderr)
            return 2

    return guarded


def _read_image(path: str) -> Any:
    image = cv2.imread(path, cv2.IMREAD_COLOR)
    if image is None:
        raise BoardInputError(f"no se puede leer la imagen {path!r}")
    return image


def run_read_board(args: argparse.Namespace) -> int:
    from rules_core.board import square_name
    from rules_core.lexicon import load_lexicon
    from vision.board.reading import read_board

    lexicon = load_lexicon(args.lexicon)

    if args.batch:
        lines = sys.stdin if args.batch == "-" else Path(args.batch).read_text(encoding="utf-8").splitlines()
        for line in lines:
            path = line.strip()
            if not path:
                continue
            image = cv2.imread(path, cv2.IMREAD_COLOR)
            if image is None:
                print(json.dumps({"image": path, "found": False, "reason": "no se puede leer la imagen"}, ensure_ascii=False), flush=True)
                continue
            pixels = np.asarray(image, dtype=np.uint8)
            result = {"image": path, **read_board(pixels, turn=args.turn, lexicon=lexicon).to_json()}
            print(json.dumps(result, ensure_ascii=False), flush=True)
        return 0
    if not args.image:
        raise BoardInputError("falta la imagen (o --batch FILE)")
    reading = read_board(_read_image(args.image), turn=args.turn, lexicon=lexicon)
    if args.json:
        print(json.dumps(reading.to_json(), ensure_ascii=False))
    elif not reading.found:
        print(f"no se encuentra el tablero: {reading.reason}")
    else:
        corners = reading.corners
        assert corners is not None
        print("tablero encontrado; esquinas (A1, A15, O15, O1): " + ", ".join(f"({x:.0f}, {y:.0f})" for x, y in corners))
        print(reading.text())
        if reading.settled:
            print("letras dudosas decididas por las palabras: " + ", ".join(square_name(r, c) for r, c in reading.settled))
        print(f"CGP: {reading.cgp()}")
    return 0


def run_watch_board(args: argparse.Namespace) -> int:
    from hardware.camera import open_source
    from rules_core.lexicon import load_lexicon
    from vision.board.tracker import BoardTracker, TrackerSettings

    lexicon = load_lexicon(args.lexicon)
    settings = TrackerSettings(turn=args.turn)
    frames_dir = Path(args.frames_dir) if args.frames_dir else Path(tempfile.mkdtemp(prefix="veedor-dudas-"))
    tracker = BoardTracker(args.camera, lexicon, settings, frames_dir=frames_dir)
    if args.render_demo:
        frames = _demo_frames(lexicon, args.render_demo)
    elif args.source:
        frames = open_source(args.source, args.fps).frames()
    else:
        raise BoardInputError("falta --source (cámara, vídeo o carpeta) o --render-demo N")
    for frame in frames:
        for report in tracker.feed(frame):
            if args.all or report.kind in ("play", "doubt", "withdrawn"):
                print(json.dumps(report.to_json(), ensure_ascii=False), flush=True)
    return 0


def _demo_frames(lexicon: Any, plays: int) -> Any:
    import numpy as np

    from vision.board.synthetic import render as R
    from vision.board.synthetic.scenes import game_frames, solitaire_steps

    steps = [("place", placed) for _, placed in solitaire_steps(lexicon, plays)]
    rng = np.random.default_rng(8)
    scene = R.random_scene(rng, R.empty_labels(), hands=0, width=1280, height=720)
    return (frame for frame, _ in game_frames(steps, scene))


def run_print_markers(args: argparse.Namespace) -> int:
    from vision.board.markers import marker_sheet

    out = Path(args.out)
    if not cv2.imwrite(str(out), marker_sheet()):
        raise BoardInputError(f"no se puede escribir {str(out)!r}")
    print(f"hoja de marcadores escrita en {out}: recorte cada marcador y péguelo en la esquina del marco que indica")
    return 0
