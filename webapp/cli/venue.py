"""``veedor check-venue FILE``: check a venue file, then try every device it names.

One line per finding: ``ok`` for a device that works, ``aviso`` for something to look
at that does not stop the venue (a camera that sees no board yet), ``PROBLEMA`` for
what must be fixed. Devices: each local camera (a frame read within ``--timeout``
seconds, then looked at for a board), each scanner (its folder exists and takes a
file; ``scanimage -L`` lists its SANE device), the data folder, the database (a
connection), the lexicon (loaded) and the server's port (free). Exit status: 0 no
problem, 1 problems, 2 the file cannot be read.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Final, Literal

import numpy as np
from numpy.typing import NDArray

from hardware.venue import CameraConfig, ScannerConfig, Venue, VenueError, VenueFileError, load_venue
from vision.board.calibration import load_calibration

FRAME_TIMEOUT: Final = 10.0  # seconds to wait for a camera's first frame
SCANIMAGE_TIMEOUT: Final = 30.0
DATABASE_TIMEOUT: Final = 5  # seconds to connect
MIN_CONTRAST: Final = 3.0  # grey standard deviation below which a frame is one flat colour

Level = Literal["ok", "aviso", "PROBLEMA"]


@dataclass(frozen=True)
class Finding:
    """What one check found about one device."""

    level: Level
    device: str  # "cámara mesa1", "escáner escaner1", "base de datos"...
    message: str

    def line(self) -> str:
        return f"{self.level:<8} {self.device}: {self.message}"


def add_venue_commands(commands: Any) -> None:
    """Add ``check-venue`` to the CLI's subcommands."""
    check = commands.add_parser("check-venue", help="comprueba un archivo de sede y prueba cada uno de sus dispositivos")
    check.add_argument("file", metavar="ARCHIVO", help="el archivo TOML de la sede (véase hardware/venue.example.toml)")
    check.add_argument("--timeout", type=float, default=FRAME_TIMEOUT,
                       help=f"segundos de espera del primer fotograma de una cámara (por defecto {FRAME_TIMEOUT:g})")  # fmt: skip
    check.set_defaults(run=run_check_venue)


def run_check_venue(args: argparse.Namespace) -> int:
    import cv2

    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)  # a missing camera is a finding below
    try:
        venue = load_venue(args.file)
    except VenueFileError as error:
        print(f"veedor: {error}", file=sys.stderr)
        return 2
    except VenueError as error:
        for problem in error.problems:
            print(Finding("PROBLEMA", "configuración", problem).line(), flush=True)
        return 1
    print(f"sede {venue.name!r} ({venue.path})", flush=True)
    findings = check_venue(venue, timeout=args.timeout, report=lambda f: print(f.line(), flush=True))
    problems = sum(f.level == "PROBLEMA" for f in findings)
    warnings = sum(f.level == "aviso" for f in findings)
    print(f"{problems} problema(s), {warnings} aviso(s)", flush=True)
    return 1 if problems else 0


def check_venue(venue: Venue, timeout: float = FRAME_TIMEOUT,
                report: Callable[[Finding], None] | None = None) -> list[Finding]:  # fmt: skip
    """Every device of ``venue`` tried; the findings in a stable order (cameras in parallel)."""
    checks: list[Callable[[], list[Finding]]] = [
        *(partial(check_camera, camera, timeout) for camera in venue.cameras),
        *(partial(check_orientation, camera, venue.data_dir / "calibration") for camera in venue.cameras),
        *(partial(check_scanner, scanner) for scanner in venue.scanners),
        lambda: check_data(venue.data_dir),
        lambda: check_database(venue.database_url),
        lambda: check_lexicon(venue.lexicon),
        lambda: check_port(venue.host, venue.port),
    ]
    findings: list[Finding] = []
    with ThreadPoolExecutor(max_workers=max(4, len(venue.cameras))) as pool:
        for result in pool.map(lambda check: check(), checks):
            for finding in result:
                findings.append(finding)
                if report is not None:
                    report(finding)
    return findings


# --- cameras ------------------------------------------------------------------------


def check_camera(camera: CameraConfig, timeout: float = FRAME_TIMEOUT) -> list[Finding]:
    """A frame from a local camera within ``timeout`` s, then a look for the board in it."""
    device = f"cámara {camera.name}"
    if camera.node:
        return [Finding("ok", device, "la lee otra máquina (veedor camera-node); compruébela allí")]
    image, error = first_frame(camera.source, camera.fps, timeout)
    if image is None:
        return [Finding("PROBLEMA", device, f"sin señal de {camera.source!r}: {error}")]
    fault = frame_fault(image)
    if fault:
        return [Finding("PROBLEMA", device, fault)]
    height, width = image.shape[:2]
    found = [Finding("ok", device, f"imagen de {width}x{height} de {camera.source!r}")]
    board = _board_fault(image)
    if board:
        found.append(Finding("aviso", device, f"no se ve el tablero ({board}); revise el encuadre"))
    return found


def check_orientation(camera: CameraConfig, calibrations: Path) -> list[Finding]:
    """A warning for a local camera with neither ``orientation`` nor a calibration: row A is then
    inferred from the upright letters, and a first play of two letters goes to the arbiter."""
    calibration = load_calibration(calibrations, camera.name)
    if camera.node or camera.orientation is not None or (calibration is not None and calibration.turn is not None):
        return []
    return [Finding("aviso", f"cámara {camera.name}", "sin calibrar y sin 'orientation': la fila A se deducirá de "
                    f"las letras; calibre con 'veedor calibrate --camera {camera.name}'")]  # fmt: skip


def first_frame(spec: str, fps: float, timeout: float) -> tuple[NDArray[np.uint8] | None, str]:
    """The first good frame of a camera source, or None and why; gives up after ``timeout`` s.

    The source is read as the server reads it (``hardware.camera.open_camera``): garbage
    frames skipped, a lost stream reopened, so one corrupt frame is not a dead camera."""
    result: dict[str, Any] = {}
    done = threading.Event()

    def lost(signal: Any) -> None:
        if not signal.ok and signal.reason:
            result["reason"] = signal.reason

    def read() -> None:
        try:
            frames = _frames(spec, fps, lost, done.is_set)
            try:
                result["image"] = next(frames).image
            except StopIteration:
                result["error"] = "no da ninguna imagen legible"
            finally:
                close = getattr(frames, "close", None)
                if close is not None:
                    close()
        except Exception as error:  # any failure of a device is a finding, not a crash
            result["error"] = str(error) or error.__class__.__name__
        finally:
            done.set()

    threading.Thread(target=read, name=f"check-{spec}", daemon=True).start()
    done.wait(timeout)
    done.set()  # a source still retrying stops at its next step
    if "image" in result:
        return result["image"], ""
    reason = result.get("reason")
    return None, result.get("error") or f"ninguna imagen en {timeout:g} s" + (f" ({reason})" if reason else "")


def _frames(spec: str, fps: float, on_signal: Callable[[Any], None], stopped: Callable[[], bool]) -> Any:
    """The frames of a camera source; a live camera kept running as the server does (``open_camera``)."""
    import hardware.camera as camera

    open_camera = getattr(camera, "open_camera", None)
    is_live = getattr(camera, "is_live", None)
    if open_camera is None or is_live is None or not is_live(spec):
        return iter(camera.open_source(spec, fps).frames())  # a replay: an open error is final
    return iter(open_camera(spec, fps, on_signal=on_signal, stopped=stopped).frames())


def frame_fault(image: Any) -> str | None:
    """Why a frame is unusable (not an image, one flat colour), or None."""
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        return f"la imagen recibida no es BGR de 8 bits (forma {getattr(image, 'shape', None)})"
    if min(image.shape[:2]) < 64:
        return f"la imagen recibida es demasiado pequeña ({image.shape[1]}x{image.shape[0]})"
    if float(image.std()) < MIN_CONTRAST:
        return "la imagen es de un solo color: ¿cámara tapada, apagada o sin señal?"
    return None


def _board_fault(image: NDArray[np.uint8]) -> str | None:
    from vision.board.find import find_board

    try:
        found = find_board(image)
    except ValueError as error:
        return str(error)
    return None if found.found else found.reason


# --- scanners, data, database, lexicon, port -----------------------------------------


def check_scanner(scanner: ScannerConfig) -> list[Finding]:
    """The watched folder exists and takes a file; the SANE device answers when configured."""
    device = f"escáner {scanner.name}"
    findings = [_writable_folder(device, scanner.folder, create=False)]
    if scanner.scanimage:
        findings.append(_check_scanimage(device, scanner.scanimage))
    return findings


def _writable_folder(device: str, folder: Path, create: bool) -> Finding:
    if not folder.is_dir():
        if create:
            parent = next((p for p in folder.parents if p.exists()), Path("/"))
            if os.access(parent, os.W_OK | os.X_OK):
                return Finding("ok", device, f"la carpeta {str(folder)!r} se creará al servir")
        return Finding("PROBLEMA", device, f"no existe la carpeta {str(folder)!r}")
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".veedor-prueba-"):
            pass
    except OSError as error:
        return Finding("PROBLEMA", device, f"no se puede escribir en {str(folder)!r}: {error.strerror}")
    return Finding("ok", device, f"carpeta {str(folder)!r} con permiso de escritura")


def _check_scanimage(device: str, sane: str) -> Finding:
    command = shutil.which("scanimage")
    if command is None:
        return Finding("PROBLEMA", device, f"pide el escáner SANE {sane!r} pero falta scanimage "
                                           "(instale el paquete de Debian sane-utils)")  # fmt: skip
    try:
        listed = subprocess.run([command, "-L"], capture_output=True, text=True, timeout=SCANIMAGE_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as error:
        return Finding("PROBLEMA", device, f"scanimage -L no responde: {error}")
    if sane not in listed.stdout:
        return Finding("PROBLEMA", device, f"scanimage -L no encuentra el escáner {sane!r}; ¿encendido y conectado?")
    return Finding("ok", device, f"scanimage encuentra {sane!r}")


def check_data(folder: Path) -> list[Finding]:
    return [_writable_folder("carpeta de datos", folder, create=True)]


def check_database(url: str) -> list[Finding]:
    """A connection and ``SELECT 1``; a SQLite file not made yet is fine if its folder can be."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    device = "base de datos"
    parsed = make_url(url)
    shown = parsed.render_as_string(hide_password=True)
    if parsed.get_backend_name() == "sqlite":
        file = Path(parsed.database or "")
        if not file.exists():
            found = _writable_folder(device, file.parent, create=True)
            return [found if found.level != "ok" else Finding("ok", device, f"{shown} se creará al servir")]
    connect_args: dict[str, Any] = {}
    if parsed.get_backend_name() == "postgresql":
        connect_args["connect_timeout"] = DATABASE_TIMEOUT
    try:
        engine = create_engine(parsed, connect_args=connect_args)
    except Exception as error:  # a missing driver (psycopg) among others
        return [Finding("PROBLEMA", device, f"{shown}: {error} (¿falta pip install 'veedor[postgres]'?)")]
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception as error:
        reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
        return [Finding("PROBLEMA", device, f"no se puede conectar con {shown}: {reason}")]
    finally:
        engine.dispose()
    return [Finding("ok", device, f"conectada: {shown}")]


def check_lexicon(path: str | None) -> list[Finding]:
    from rules_core.lexicon import LexiconError, load_lexicon, resolve_lexicon_path

    device = "léxico"
    try:
        lexicon = load_lexicon(path)
    except (LexiconError, OSError) as error:
        return [Finding("PROBLEMA", device, f"no se puede cargar {str(resolve_lexicon_path(path))!r}: {error}")]
    return [Finding("ok", device, f"{lexicon.name}: {lexicon.word_count} palabras")]


def check_port(host: str, port: int) -> list[Finding]:
    device = "servidor"
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does
            probe.bind((host, port))
    except OSError as error:
        return [Finding("PROBLEMA", device, f"no se puede escuchar en {host}:{port}: {error.strerror}"
                                            " (¿otro Veedor ya en marcha?)")]  # fmt: skip
    return [Finding("ok", device, f"el puerto {host}:{port} está libre")]
