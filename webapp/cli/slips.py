"""Slip commands of the ``veedor`` CLI: print slips, read scans, watch the scanner's folder.

* ``print-slips --game ID``: the PDF of slips for a game's players (pads of 30, D.II.8), read from the
  database ``veedor serve`` uses (``--data``/``--db``), or from ``--players FILE`` (CSV or JSON with id,
  name, table; the console's ``jugadores.csv`` too);
* ``read-slip IMAGE --cgp CGP [--players FILE] [--json]``: one scanned slip;
* ``read-move IMAGE --cgp CGP [--json]``: an image of the handwritten play alone;
  both take ``--batch FILE`` (one ``{"image": PATH, "cgp": CGP}`` per line) and then
  print one result per line, loading the model and the lexicon once;
* ``slips watch``: the watched folder into a game of the event store;
* ``slips review``: the arbiter's queue (list, accept, correct, void);
* ``slips template``: a plain slip's blank scan and its fields, marked once;
* ``slips demo``: a duplicate game whose slips arrive as rendered scans.

Exit status: 0 read (the verdict is in the output), 2 bad input.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

from rules_core.cgp import CGPError, Position
from rules_core.events import GameError
from rules_core.lexicon import LexiconError, load_lexicon

from .serve import add_storage_options, database_url
from .slip_learning import run_learning_batch
from .spanish import LEXICON_HELP

PLAY_KEYS = ("reading", "play", "score", "verdict", "flags", "confidence")


class SlipInputError(ValueError):
    """Bad input to a slip command: exit status 2 with the message."""


def add_slip_commands(commands: Any) -> None:
    """Add the slip commands to the CLI's subcommands (``argparse`` subparsers)."""
    printing = commands.add_parser("print-slips", help="PDF de papeletas para imprimir, para los jugadores de una partida")
    printing.add_argument("--game", required=True, help="el identificador de la partida (va en cada código QR)")
    printing.add_argument("--players", type=Path,
                          help="jugadores: CSV o JSON con id, name, table (por defecto: los de la partida, de la base de datos)")
    printing.add_argument("--name", default="", help="el nombre de la partida, impreso en cada papeleta (por defecto: el suyo)")
    printing.add_argument("--per-player", type=int, default=30, help="papeletas por jugador (por defecto 30)")
    printing.add_argument("--absolute", action="store_true",
                          help="papeletas con un tablero de 15x15 donde escribir la jugada (D.III.20.1.c), cuatro por página")
    printing.add_argument("-o", "--output", type=Path, default=Path("papeletas.pdf"),
                          help="el PDF que escribir (por defecto papeletas.pdf)")  # fmt: skip
    add_storage_options(printing)
    printing.set_defaults(run=run_print_slips)

    for name, helptext in (("read-slip", "lee una papeleta escaneada"),
                           ("read-move", "lee la imagen de una jugada escrita a mano")):
        command = commands.add_parser(name, help=helptext)
        command.add_argument("image", nargs="?", type=Path, metavar="IMAGEN",
                             help="el escaneo (PNG, JPEG, TIFF o la página 1 de un PDF)")  # fmt: skip
        command.add_argument("--cgp", help="la posición y el atril de la ronda (CGP)")
        command.add_argument("--json", action="store_true", help="escribe un objeto JSON")
        command.add_argument("--batch", type=Path, metavar="ARCHIVO",
                             help='líneas JSON {"image": RUTA, "cgp": CGP}; un resultado por línea')  # fmt: skip
        command.add_argument("--lexicon", metavar="RUTA", help=LEXICON_HELP)
        command.add_argument("--model", type=Path, metavar="RUTA",
                             help="el modelo ONNX del lector (por defecto: el del repositorio)")  # fmt: skip
        if name == "read-move":
            command.add_argument("--learn", action="store_true",
                                 help='con --batch: las líneas en orden, cada una con "player" y "truth": aprende la sala')
            command.add_argument("--learned", type=Path, metavar="CARPETA",
                                 help="con --learn: dónde se guarda lo aprendido")  # fmt: skip
        if name == "read-slip":
            command.add_argument("--players", type=Path, help="jugadores: CSV o JSON con id, name, table")
            command.add_argument("--template", type=Path,
                                 help="la carpeta de la plantilla de una papeleta lisa (slips template)")  # fmt: skip
        command.set_defaults(run=run_read, mode=name)

    slips = commands.add_parser("slips", help="papeletas escaneadas: watch, review, template, demo")
    actions = slips.add_subparsers(required=True, metavar="ACCIÓN")
    watch = actions.add_parser("watch", help="lee la carpeta del escáner y anota en una partida")
    watch.add_argument("--inbox", type=Path, required=True, help="la carpeta en la que escribe el escáner")
    watch.add_argument("--state", type=Path, required=True,
                       help="dónde se guardan las páginas, el registro y la cola de revisión")  # fmt: skip
    watch.add_argument("--db", required=True, help="la URL de la base de datos de las partidas")
    watch.add_argument("--game", required=True, help="el identificador de la partida")
    watch.add_argument("--lexicon", metavar="RUTA", help=LEXICON_HELP)
    watch.add_argument("--interval", type=float, default=2.0, help="segundos entre dos miradas a la carpeta")
    watch.add_argument("--once", action="store_true", help="toma lo que haya y termina")
    watch.add_argument("--template", type=Path, help="papeletas lisas: la carpeta de la plantilla (slips template)")
    watch.set_defaults(run=run_watch)

    review = actions.add_parser("review", help="la cola del árbitro de papeletas señaladas")
    review.add_argument("--state", type=Path, required=True, help="la carpeta de estado de slips watch")
    review.add_argument("--db", help="la URL de la base de datos de las partidas (para resolver)")
    review.add_argument("--game", help="la partida (para resolver)")
    review.add_argument("--lexicon", metavar="RUTA", help=LEXICON_HELP)
    review.add_argument("item", nargs="?", metavar="ELEMENTO", help="el elemento que resolver")
    review.add_argument("action", nargs="?", choices=("accept", "correct", "void", "dismiss"),
                        help="aceptar, corregir, anular o descartar")  # fmt: skip
    review.add_argument("--play", help="con correct: la jugada en notación canónica")
    review.add_argument("--reason", help="con void: el motivo")
    review.add_argument("--replacing", help="por qué la papeleta sustituye a la que el jugador ya tiene de la ronda")
    review.add_argument("--player", help="el jugador, si la papeleta no lo dice")
    review.add_argument("--round", type=int, help="la ronda, si la papeleta no lo dice")
    review.add_argument("--actor", default="árbitro", help="quién resuelve (por defecto: árbitro)")
    review.set_defaults(run=run_review)

    template = actions.add_parser("template", help="una papeleta lisa: su escaneo en blanco y los campos marcados en él")
    template.add_argument("image", type=Path, metavar="IMAGEN", help="una papeleta en blanco, escaneada una vez")
    template.add_argument("--out", type=Path, required=True, help="la carpeta de la plantilla que escribir")
    template.add_argument("--field", action="append", default=[], metavar="NOMBRE=X0,Y0,X1,Y1",
                          help="un campo en píxeles de IMAGEN: ronda, mesa, nombre, coordenada, palabra o jugada")  # fmt: skip
    template.set_defaults(run=run_template)

    demo = actions.add_parser("demo", help="una partida duplicada cuyas papeletas llegan como escaneos dibujados")
    demo.add_argument("--players", type=int, default=8, help="jugadores (por defecto 8)")
    demo.add_argument("--rounds", type=int, default=3, help="rondas (por defecto 3)")
    demo.add_argument("--seed", type=int, default=2017, help="semilla de la bolsa (por defecto 2017)")
    demo.add_argument("--state", type=Path, default=Path("/tmp/veedor-papeletas"), help="la carpeta de estado")
    demo.add_argument("--db", default="sqlite://", help="URL de la base de datos (por defecto: en memoria)")
    demo.add_argument("--lexicon", metavar="RUTA", help=LEXICON_HELP)
    demo.set_defaults(run=run_demo)


def _fail(message: str) -> int:
    print(f"veedor: {message}", file=sys.stderr)
    return 2


_COLUMNS = {"id": ("id", "id_jugador"), "name": ("name", "nombre"), "table": ("table", "mesa")}


def load_players(path: Path) -> list[tuple[str, str, int]]:
    """(id, name, table) from a CSV (header id,name,table, or the console's ``jugadores.csv``: mesa;nombre;...;
    id_jugador) or a JSON list of objects with id, name and table."""
    if not path.exists():
        raise SlipInputError(f"{path}: no existe el archivo de jugadores")
    text = path.read_text(encoding="utf-8-sig")
    try:
        if path.suffix.lower() == ".json":
            rows = json.loads(text)
        else:
            lines = text.splitlines()
            rows = list(csv.DictReader(lines, delimiter=";" if lines and ";" in lines[0] else ","))
        return [(str(_cell(r, "id")), str(_cell(r, "name")), int(_cell(r, "table"))) for r in rows]
    except (KeyError, ValueError, TypeError, json.JSONDecodeError) as error:
        raise SlipInputError(f"{path}: cada jugador necesita id, name y table ({error})") from None


def _cell(row: dict[str, Any], key: str) -> Any:
    """A player's ``key`` under any of its column names (``_COLUMNS``); KeyError naming it when none is there."""
    for name in _COLUMNS[key]:
        if name in row:
            return row[name]
    raise KeyError(key)


def game_players(args: argparse.Namespace) -> tuple[str, list[tuple[str, str, int]]]:
    """The name and the players (id, name, table) of duplicate game ``args.game`` in the database ``veedor serve``
    uses (``--data``/``--db``); SlipInputError when there is no such game there."""
    from ..records.players import players_of
    from ..services.store import EventStore

    if not args.db and not (Path(args.data) / "veedor.db").is_file():
        raise SlipInputError(f"no hay base de datos en {args.data}: indique --data CARPETA o --db URL, "
                             "o los jugadores con --players")  # fmt: skip
    store = EventStore(database_url(args))
    try:
        record = store.game(args.game)
        players = players_of(store.events(args.game))
    except GameError:
        raise SlipInputError(f"no hay ninguna partida {args.game!r} en esa base de datos") from None
    finally:
        store.engine.dispose()
    if record.mode != "duplicate":
        raise SlipInputError(f"«{record.name}» no es una partida duplicada: no lleva papeletas")
    return record.name, [(p.id, p.name, p.table) for p in players]


def run_print_slips(args: argparse.Namespace) -> int:
    from vision.slips.printing import pads, write_slips_pdf

    try:
        if args.players:
            name, players = args.game, load_players(args.players)
        else:
            name, players = game_players(args)
        slips = pads(args.game, args.name or name, players, args.per_player)
        pages = write_slips_pdf(args.output, slips, absolute=args.absolute)
    except (SlipInputError, ValueError) as error:
        return _fail(str(error))
    sheets = "1 página" if pages == 1 else f"{pages} páginas"
    print(f"{args.output}: {len(players)} jugadores, {args.per_player} papeletas cada uno, {sheets}")
    return 0


def read_image(path: Path) -> Any:
    """The first page of a scan as grey uint8 (SlipInputError when it cannot be read)."""
    from vision.slips.ingest import RefusedFile, split_pages

    if not path.exists():
        raise SlipInputError(f"{path}: no existe")
    try:
        return next(iter(split_pages(path.read_bytes(), path.name)))
    except RefusedFile as error:
        raise SlipInputError(str(error)) from None


def _jobs(args: argparse.Namespace) -> Iterator[tuple[Path, str]]:
    if args.batch:
        if not args.batch.exists():
            raise SlipInputError(f"{args.batch}: no existe")
        for number, line in enumerate(args.batch.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip():
                try:
                    job = json.loads(line)
                    yield Path(job["image"]), str(job["cgp"])
                except (json.JSONDecodeError, KeyError, TypeError):
                    raise SlipInputError(f"{args.batch}:{number}: se espera {{\"image\": RUTA, \"cgp\": CGP}}") from None
        return
    if args.image is None or not args.cgp:
        raise SlipInputError("indique IMAGEN y --cgp, o --batch ARCHIVO")
    yield args.image, args.cgp


def run_read(args: argparse.Namespace) -> int:
    from vision.slips.reader import PlayerRef, SlipReader
    from vision.slips.recognizer import ModelError, Recognizer, default_recognizer
    from vision.slips.register import PlainTemplate

    learn = getattr(args, "learn", False)
    if learn and not args.batch:
        return _fail("--learn lee un lote: indique --batch ARCHIVO")
    try:
        lexicon = load_lexicon(args.lexicon)
        recognizer = Recognizer(args.model) if args.model else default_recognizer()
        reader = SlipReader(lexicon, recognizer)
        if learn:
            run_learning_batch(args.batch, args.learned, reader, read_image, lambda r: _print_result(r, True))
            return 0
        players = [PlayerRef(*p) for p in load_players(args.players)] if getattr(args, "players", None) else []
        template = PlainTemplate.load(args.template) if getattr(args, "template", None) else None
        for image_path, cgp in _jobs(args):
            position = Position.from_cgp(cgp)
            gray = read_image(image_path)
            if args.mode == "read-move":
                result = reader.read_move(gray, position.board, position.rack).to_json()
                results = [result]
            else:
                fixed = (position.board, position.rack)
                if template is not None:
                    found = [reader.read_plain(gray, template, lambda _: fixed, players)]
                else:
                    found = reader.read_slip(gray, lambda _: fixed, players)
                results = [r.to_json() for r in found] or [_not_found()]
            for result in results:
                result["image"] = str(image_path)
                _print_result(result, args.json or bool(args.batch))
    except (SlipInputError, CGPError, LexiconError, ModelError, ValueError) as error:
        return _fail(str(error))
    return 0


def _not_found() -> dict[str, Any]:
    return {"reading": "", "play": None, "score": None, "verdict": "flagged", "flags": ["position_unknown"],
            "confidence": 0.0, "candidates": [], "found": False}  # fmt: skip


def _print_result(result: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(result, ensure_ascii=False), flush=True)
        return
    verdict = result["verdict"]
    line = f"{result.get('image', '')}: {verdict}"
    if result.get("play"):
        line += f" {result['play']}"
    if result.get("score") is not None:
        line += f" ({result['score']} puntos)"
    if result.get("flags"):
        line += f" [{', '.join(result['flags'])}]"
    line += f" leído «{result['reading']}», confianza {result['confidence']:.2f}"
    print(line, flush=True)


def _service(args: argparse.Namespace) -> Any:
    from webapp.services.games import open_games

    return open_games(args.db, load_lexicon(args.lexicon))


def _feed(service: Any, game_id: str, state: Path, template: Path | None = None) -> Any:
    from vision.slips.feed import GameFeed
    from vision.slips.reader import SlipReader
    from vision.slips.register import PlainTemplate
    from vision.slips.review import ReviewQueue

    return GameFeed(game_id, lambda: service.duplicate(game_id), partial(service.enter_slip, game_id),
                    SlipReader(service.duplicate(game_id).lexicon), ReviewQueue(state),
                    template=PlainTemplate.load(template) if template else None)  # fmt: skip


def run_watch(args: argparse.Namespace) -> int:
    from vision.slips.ingest import Ingestor

    try:
        service = _service(args)
        service.duplicate(args.game)
        feed = _feed(service, args.game, args.state, args.template)
        ingestor = Ingestor(args.inbox, args.state, feed.read_page)
    except (GameError, LexiconError, KeyError, ValueError) as error:
        return _fail(str(error))
    while True:
        for page in ingestor.poll():
            for result in ingestor.read[page.sha]:
                print(json.dumps({"page": page.sha[:16], "file": page.source, **result}, ensure_ascii=False), flush=True)
        if args.once:
            return 0
        time.sleep(args.interval)


def run_review(args: argparse.Namespace) -> int:
    from vision.slips.review import ReviewQueue

    if args.item is None:
        for item in ReviewQueue(args.state).pending(args.game):
            print(json.dumps(item.to_json(), ensure_ascii=False))
        return 0
    if not (args.action and args.db and args.game):
        return _fail("para resolver indique ACCIÓN, --db y --game")
    try:
        feed = _feed(_service(args), args.game, args.state)
        item = feed.resolve(args.item, args.action, args.actor, args.play, args.reason, args.player, args.round,
                            args.replacing)  # fmt: skip
    except (GameError, ValueError) as error:
        return _fail(str(error))
    print(json.dumps(item.to_json(), ensure_ascii=False))
    return 0


def run_template(args: argparse.Namespace) -> int:
    import cv2

    from vision.slips.register import PlainTemplate

    image = cv2.imread(str(args.image), cv2.IMREAD_GRAYSCALE)
    if image is None:
        return _fail(f"{args.image}: no es una imagen legible")
    fields = {}
    for spec in args.field:
        try:
            name, numbers = spec.split("=", 1)
            x0, y0, x1, y1 = (int(v) for v in numbers.split(","))
        except ValueError:
            return _fail(f"campo {spec!r}: se espera NOMBRE=X0,Y0,X1,Y1")
        fields[name.strip()] = (x0, y0, x1, y1)
    if not ("jugada" in fields or {"coordenada", "palabra"} <= fields.keys()):
        return _fail("marque el campo jugada, o coordenada y palabra")
    PlainTemplate(image, fields).save(args.out)
    print(f"{args.out}: plantilla con {', '.join(sorted(fields))}")
    return 0


def run_demo(args: argparse.Namespace) -> int:
    from webapp.services.demo.slips import run_scanned_game

    try:
        run_scanned_game(args.players, args.rounds, args.seed, args.state, args.db, args.lexicon, sys.stdout)
    except (GameError, LexiconError) as error:
        return _fail(str(error))
    return 0
