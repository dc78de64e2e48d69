"""A venue: the tables, cameras, scanners and screens of a tournament hall, from one TOML file.

``load_venue(path)`` parses the file (stdlib ``tomllib``), checks all of it and returns a
frozen ``Venue``; every problem found goes into one ``VenueError``, one Spanish line per
problem, so the file is fixed in one pass. Relative paths (``data``, ``lexicon``, scanner
folders, camera sources that are files or folders, a SQLite database) are taken relative
to the TOML file's folder, never to the current directory. The schema is described in
``hardware/venue.example.toml``. Nothing here opens a device: ``veedor check-venue`` does.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

DEFAULT_DATA: Final = "veedor-venue"
DEFAULT_HOST: Final = "0.0.0.0"  # a venue's screens and camera nodes are other machines
DEFAULT_PORT: Final = 8080
DEFAULT_FPS: Final = 5.0
MAX_FPS: Final = 30.0
ORIENTATIONS: Final = (0, 90, 180, 270)
CAMERA_NAME: Final = re.compile(r"[a-z0-9_-]+")
DATABASE_SCHEMES: Final = ("sqlite", "postgresql", "postgresql+psycopg", "postgresql+psycopg2")

_TOP_KEYS: Final = {"name", "database", "data", "lexicon", "server", "tables", "cameras", "scanners", "screens"}
_SERVER_KEYS: Final = {"host", "port"}
_TABLE_KEYS: Final = {"number", "camera"}
_CAMERA_KEYS: Final = {"name", "source", "fps", "orientation", "node"}
_SCANNER_KEYS: Final = {"name", "folder", "scanimage"}
_SCREEN_KEYS: Final = {"name", "shows"}


class VenueError(ValueError):
    """A venue file with problems; ``problems`` holds them, the message one per line."""

    def __init__(self, problems: list[str] | str, path: Path | None = None) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        self.path = path
        super().__init__("\n".join(self.problems))


class VenueFileError(VenueError):
    """The venue file cannot be read or is not TOML at all."""


@dataclass(frozen=True)
class CameraConfig:
    name: str
    source: str
    fps: float = DEFAULT_FPS
    orientation: int | None = None
    node: bool = False
    table: int | None = None  # filled from [[tables]] camera = name


@dataclass(frozen=True)
class ScannerConfig:
    name: str
    folder: Path
    scanimage: str | None = None


@dataclass(frozen=True)
class ScreenConfig:
    name: str
    shows: str


@dataclass(frozen=True)
class TableConfig:
    number: int
    camera: str | None = None


@dataclass(frozen=True)
class Venue:
    path: Path
    name: str
    database_url: str
    data_dir: Path
    lexicon: str | None
    host: str
    port: int
    tables: tuple[TableConfig, ...]
    cameras: tuple[CameraConfig, ...]
    scanners: tuple[ScannerConfig, ...]
    screens: tuple[ScreenConfig, ...]

    def camera(self, name: str) -> CameraConfig:
        """The camera called ``name``; a VenueError naming it when the venue has none."""
        for camera in self.cameras:
            if camera.name == name:
                return camera
        known = ", ".join(c.name for c in self.cameras) or "ninguna"
        raise VenueError(f"la sede no tiene ninguna cámara llamada {name!r} (cámaras: {known})", self.path)


def load_venue(path: str | Path) -> Venue:
    """The venue of the TOML file ``path``; VenueError listing every problem found."""
    path = Path(path).resolve()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise VenueFileError(f"no se puede leer el archivo de sede {str(path)!r}: {error.strerror}", path) from None
    except UnicodeDecodeError:
        raise VenueFileError(f"el archivo de sede {str(path)!r} no está en UTF-8", path) from None
    except tomllib.TOMLDecodeError as error:
        raise VenueFileError(f"el archivo de sede {str(path)!r} no es TOML válido: {error}", path) from None
    problems: list[str] = []
    venue = _Parser(path, problems).venue(raw)
    if problems:
        raise VenueError(problems, path)
    return venue


class _Parser:
    """Reads the parsed TOML into a Venue, appending a line to ``problems`` per fault."""

    def __init__(self, path: Path, problems: list[str]) -> None:
        self.path = path
        self.base = path.parent
        self.problems = problems

    def problem(self, text: str) -> None:
        self.problems.append(text)

    def venue(self, raw: dict[str, Any]) -> Venue:
        self.unknown_keys(raw, _TOP_KEYS, "la sede")
        name = self.text(raw, "name", "la sede", required=True) or self.path.stem
        data_dir = self.resolve(self.text(raw, "data", "la sede") or DEFAULT_DATA)
        server = self.table(raw, "server")
        self.unknown_keys(server, _SERVER_KEYS, "[server]")
        host = self.text(server, "host", "[server]") or DEFAULT_HOST
        port = self.integer(server, "port", "[server]", DEFAULT_PORT, 1, 65535)
        cameras = [self.camera(i, entry) for i, entry in enumerate(self.tables_of(raw, "cameras"), 1)]
        tables = [self.table_entry(i, entry) for i, entry in enumerate(self.tables_of(raw, "tables"), 1)]
        scanners = [self.scanner(i, entry) for i, entry in enumerate(self.tables_of(raw, "scanners"), 1)]
        screens = [self.screen(i, entry) for i, entry in enumerate(self.tables_of(raw, "screens"), 1)]
        self.unique([c.name for c in cameras if c.name], "hay más de una cámara llamada {!r}")
        self.unique([s.name for s in scanners if s.name], "hay más de un escáner llamado {!r}")
        self.unique([s.name for s in screens if s.name], "hay más de una pantalla llamada {!r}")
        self.unique([str(t.number) for t in tables if t.number], "la mesa {} aparece más de una vez")
        cameras = self.link_tables(tables, cameras)
        self.check_screens(screens, {t.number for t in tables})
        database_url = self.database(raw, data_dir)
        self.check_scanner_folders(scanners, data_dir, database_url)
        return Venue(
            path=self.path, name=name, database_url=database_url, data_dir=data_dir,
            lexicon=self.lexicon(raw), host=host, port=port, tables=tuple(tables), cameras=tuple(cameras),
            scanners=tuple(scanners), screens=tuple(screens),
        )  # fmt: skip

    # --- typed fields -------------------------------------------------------------

    def unknown_keys(self, raw: dict[str, Any], known: set[str], where: str) -> None:
        for key in sorted(set(raw) - known):
            self.problem(f"{where}: clave desconocida {key!r} (se admiten: {', '.join(sorted(known))})")

    def text(self, raw: dict[str, Any], key: str, where: str, required: bool = False) -> str | None:
        value = raw.get(key)
        if value is None:
            if required:
                self.problem(f"{where}: falta {key!r}")
            return None
        if not isinstance(value, str) or not value.strip():
            self.problem(f"{where}: {key!r} debe ser un texto no vacío, no {value!r}")
            return None
        return value.strip()

    def integer(self, raw: dict[str, Any], key: str, where: str, default: int, low: int, high: int) -> int:
        value = raw.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            self.problem(f"{where}: {key!r} debe ser un número entero entre {low} y {high}, no {value!r}")
            return default
        return value

    def table(self, raw: dict[str, Any], key: str) -> dict[str, Any]:
        value = raw.get(key, {})
        if not isinstance(value, dict):
            self.problem(f"la sede: {key!r} debe ser una sección [{key}]")
            return {}
        return value

    def tables_of(self, raw: dict[str, Any], key: str) -> list[dict[str, Any]]:
        value = raw.get(key, [])
        if not isinstance(value, list) or not all(isinstance(entry, dict) for entry in value):
            self.problem(f"la sede: {key!r} debe ser una lista de secciones [[{key}]]")
            return []
        return value

    def resolve(self, text: str) -> Path:
        return (self.base / Path(text).expanduser()).resolve()

    def unique(self, names: list[str], message: str) -> None:
        """One problem per repeated name; ``message`` has a ``{}`` for it."""
        seen: set[str] = set()
        for name in names:
            if name in seen:
                self.problem(message.format(name))
            seen.add(name)

    # --- sections -----------------------------------------------------------------

    def camera(self, index: int, raw: dict[str, Any]) -> CameraConfig:
        where = f"cámara {index}" + (f" ({raw['name']})" if isinstance(raw.get("name"), str) else "")
        self.unknown_keys(raw, _CAMERA_KEYS, where)
        name = self.text(raw, "name", where, required=True) or ""
        if name and not CAMERA_NAME.fullmatch(name):
            self.problem(f"{where}: el nombre solo puede tener minúsculas sin tilde, cifras, '-' y '_'")
        source = raw.get("source")
        if isinstance(source, int) and not isinstance(source, bool) and source >= 0:
            source = str(source)  # a USB camera index written as a number
        source_text = self.text({"source": source}, "source", where, required=True) or ""
        fps = raw.get("fps", DEFAULT_FPS)
        if isinstance(fps, bool) or not isinstance(fps, int | float) or not 0 < fps <= MAX_FPS:
            self.problem(f"{where}: 'fps' debe estar entre 0 (sin incluir) y {MAX_FPS:g}, no {fps!r}")
            fps = DEFAULT_FPS
        orientation = raw.get("orientation")
        if orientation is not None and (isinstance(orientation, bool) or orientation not in ORIENTATIONS):
            self.problem(f"{where}: 'orientation' debe ser 0, 90, 180 o 270 grados, no {orientation!r}")
            orientation = None
        node = raw.get("node", False)
        if not isinstance(node, bool):
            self.problem(f"{where}: 'node' debe ser true o false, no {node!r}")
            node = False
        if source_text and not node:
            source_text = self.camera_source(source_text)
        return CameraConfig(name, source_text, float(fps), orientation, node)

    def camera_source(self, source: str) -> str:
        """A file or folder source relative to the venue file; indices and URLs as written."""
        if source.isdigit() or "://" in source:
            return source
        return str(self.resolve(source))

    def table_entry(self, index: int, raw: dict[str, Any]) -> TableConfig:
        where = f"mesa {raw['number']}" if isinstance(raw.get("number"), int) else f"mesa {index} de la lista"
        self.unknown_keys(raw, _TABLE_KEYS, where)
        if "number" not in raw:
            self.problem(f"{where}: falta 'number'")
            number = 0
        else:
            number = self.integer(raw, "number", where, 0, 1, 9999)
        return TableConfig(number, self.text(raw, "camera", where))

    def scanner(self, index: int, raw: dict[str, Any]) -> ScannerConfig:
        where = f"escáner {index}" + (f" ({raw['name']})" if isinstance(raw.get("name"), str) else "")
        self.unknown_keys(raw, _SCANNER_KEYS, where)
        name = self.text(raw, "name", where, required=True) or ""
        folder = self.text(raw, "folder", where, required=True)
        scanimage = raw.get("scanimage")
        if scanimage is not None and (not isinstance(scanimage, str) or not scanimage.strip()):
            self.problem(f"{where}: 'scanimage' debe ser el nombre de un dispositivo SANE, no {scanimage!r}")
            scanimage = None
        return ScannerConfig(name, self.resolve(folder) if folder else Path(), scanimage)

    def screen(self, index: int, raw: dict[str, Any]) -> ScreenConfig:
        where = f"pantalla {index}" + (f" ({raw['name']})" if isinstance(raw.get("name"), str) else "")
        self.unknown_keys(raw, _SCREEN_KEYS, where)
        return ScreenConfig(self.text(raw, "name", where, required=True) or "",
                            self.text(raw, "shows", where, required=True) or "")  # fmt: skip

    # --- cross references ---------------------------------------------------------

    def link_tables(self, tables: list[TableConfig], cameras: list[CameraConfig]) -> list[CameraConfig]:
        """Each camera with the table it films; a table naming an unknown or taken camera is a problem."""
        by_name = {c.name: c for c in cameras}
        owner: dict[str, int] = {}
        for table in tables:
            if table.camera is None:
                continue
            if table.camera not in by_name:
                known = ", ".join(sorted(n for n in by_name if n)) or "ninguna"
                self.problem(f"mesa {table.number}: la cámara {table.camera!r} no existe (cámaras: {known})")
            elif table.camera in owner:
                self.problem(f"mesa {table.number}: la cámara {table.camera!r} ya filma la mesa {owner[table.camera]}")
            else:
                owner[table.camera] = table.number
        return [replace(c, table=owner.get(c.name)) for c in cameras]

    def check_screens(self, screens: list[ScreenConfig], tables: set[int]) -> None:
        for screen in screens:
            if screen.shows:
                fault = _screen_fault(screen.shows, tables)
                if fault:
                    self.problem(f"pantalla {screen.name or '?'}: {fault}")

    def check_scanner_folders(self, scanners: list[ScannerConfig], data_dir: Path, database_url: str) -> None:
        """A scanner takes (reads, moves away) every file of its folder: never the data folder's or the
        SQLite database's (the server must never open its database as a plain file: issue 67)."""
        kept = {data_dir.resolve()}
        if database_url.startswith("sqlite:///"):
            kept.add(Path(database_url.removeprefix("sqlite:///")).resolve().parent)
        for scanner in scanners:
            if scanner.name and scanner.folder != Path() and scanner.folder.resolve() in kept:
                self.problem(f"escáner {scanner.name}: su carpeta {str(scanner.folder)!r} guarda la base de datos o "
                             "los datos del servidor, y el escáner se lleva todo archivo de ella: elija otra")  # fmt: skip

    def database(self, raw: dict[str, Any], data_dir: Path) -> str:
        url = self.text(raw, "database", "la sede")
        if url is None:
            return f"sqlite:///{data_dir / 'veedor.db'}"
        scheme, separator, rest = url.partition("://")
        if not separator or scheme not in DATABASE_SCHEMES:
            self.problem(
                f"la sede: la base de datos {_hide_password(url)!r} no es una URL admitida "
                "(sqlite:///archivo.db o postgresql+psycopg://usuario:clave@servidor/base)"
            )
            return url
        if scheme == "sqlite":
            return self.sqlite(rest, url)
        return url

    def sqlite(self, rest: str, url: str) -> str:
        """``sqlite:///relative.db`` relative to the venue file; in-memory refused (one per thread)."""
        file = rest[1:] if rest.startswith("/") else ""
        if not file or file == ":memory:" or "mode=memory" in url:
            self.problem("la sede: una base de datos SQLite en memoria no sirve para una sede; indique un archivo")
            return url
        return f"sqlite:///{self.resolve(file)}"

    def lexicon(self, raw: dict[str, Any]) -> str | None:
        text = self.text(raw, "lexicon", "la sede")
        if text is None:
            return None
        path = self.resolve(text)
        if not path.is_file() or not os.access(path, os.R_OK):
            self.problem(f"la sede: no se puede leer el léxico {str(path)!r}")
        return str(path)


def _screen_fault(shows: str, tables: set[int]) -> str | None:
    """Why a screen's ``shows`` is wrong, or None: table:N, game:<id>, duplicate, rotate:N,M..."""
    kind, _, argument = shows.partition(":")
    checks: dict[str, Callable[[str], str | None]] = {
        "table": lambda arg: _table_fault(arg, tables),
        "rotate": lambda arg: next(filter(None, (_table_fault(a.strip(), tables) for a in arg.split(","))), None),
        "game": lambda arg: None if arg.strip() else "'game:' necesita el identificador de la partida",
        "duplicate": lambda arg: None if not arg else "'duplicate' no lleva nada detrás",
    }
    if kind not in checks:
        return f"'shows' debe ser table:N, game:ID, duplicate o rotate:N,M,…, no {shows!r}"
    return checks[kind](argument)


def _table_fault(text: str, tables: set[int]) -> str | None:
    if not text.isdigit():
        return f"{text!r} no es un número de mesa"
    if int(text) not in tables:
        return f"muestra la mesa {int(text)}, que no está en [[tables]]"
    return None


def _hide_password(url: str) -> str:
    """The URL with its password replaced, fit for a message."""
    return re.sub(r"(://[^:/@]+:)[^@]*@", r"\1***@", url)
