"""Slip commands of the ``veedor`` CLI: print slips, read scans, watch the scanner's folder.

* ``print-slips``: the PDF of slips for a game's players (pads of 30, D.II.8);
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
from pathlib import Path
from typing import Any

from rules_core.cgp import CGPError, Position
from rules_core.events import GameError
from rules_core.lexicon import LexiconError, load_lexicon

from .slip_learning import run_learning_batch

PLAY_KEYS = ("reading", "play", "score", "verdict", "flags", "confidence")


class SlipInputError(ValueError):
    """Bad input to a slip command: exit status 2 with the message."""


def add_slip_commands(commands: Any) -> None:
    """Add the slip commands to the CLI's subcommands (``argparse`` subparsers)."""
    printing = commands.add_parser("print-slips", help="PDF of slips to print for a game's players")
    printing.add_argument("--players", type=Path, required=True, help="players: CSV or JSON with id, name, table")
    printing.add_argument("--game", required=True, help="the game's id (printed in each QR code)")
    printing.add_argument("--name", default="", help="the game's name, printed on each slip")
    printing.add_argument("--per-player", type=int, default=30, help="slips per player (default 30)")
    printing.add_argument("--absolute", action="store_true",
                          help="slips with a 15x15 board to write the play on (D.III.20.1.c), four a page")
    printing.add_argument("-o", "--output", type=Path, default=Path("papeletas.pdf"))
    printing.set_defaults(run=run_print_slips)

    for name, helptext in (("read-slip", "read one scanned slip"), ("read-move", "read an image of a handwritten play")):
        command = commands.add_parser(name, help=helptext)
        command.add_argument("image", nargs="?", type=Path, help="the scan (PNG, JPEG, TIFF or PDF page 1)")
        command.add_argument("--cgp", help="the round's position and rack (CGP)")
        command.add_argument("--json", action="store_true", help="print one JSON object")
        command.add_argument("--batch", type=Path, help='JSON lines {"image": PATH, "cgp": CGP}; one result each')
        command.add_argument("--lexicon", metavar="PATH")
        command.add_argument("--model", type=Path, help="recogniser ONNX model (default: the committed one)")
        if name == "read-move":
            command.add_argument("--learn", action="store_true",
                                 help='with --batch: lines in order, each with "player" and "truth", learning the room')
            command.add_argument("--learned", type=Path, metavar="DIR", help="with --learn: where what is learned is kept")
        if name == "read-slip":
            command.add_argument("--players", type=Path, help="players: CSV or JSON with id, name, table")
            command.add_argument("--template", type=Path, help="a plain slip's template folder (slips template)")
        command.set_defaults(run=run_read, mode=name)

    slips = commands.add_parser("slips", help="scanned slips: watch, review, template, demo")
    actions = slips.add_subparsers(required=True, metavar="ACTION")
    watch = actions.add_parser("watch", help="read the scanner's folder into a game")
    watch.add_argument("--inbox", type=Path, required=True, help="the folder the scanner writes into")
    watch.add_argument("--state", type=Path, required=True, help="where pages, journal and review queue live")
    watch.add_argument("--db", required=True, help="the games' database URL")
    watch.add_argument("--game", required=True)
    watch.add_argument("--lexicon", metavar="PATH")
    watch.add_argument("--interval", type=float, default=2.0, help="seconds between looks at the folder")
    watch.add_argument("--once", action="store_true", help="take what is there, then stop")
    watch.add_argument("--template", type=Path, help="plain slips: the template folder (slips template)")
    watch.set_defaults(run=run_watch)

    review = actions.add_parser("review", help="the arbiter's queue of flagged slips")
    review.add_argument("--state", type=Path, required=True)
    review.add_argument("--db", help="the games' database URL (needed to resolve)")
    review.add_argument("--game", help="the game (needed to resolve)")
    review.add_argument("--lexicon", metavar="PATH")
    review.add_argument("item", nargs="?", help="the item to resolve")
    review.add_argument("action", nargs="?", choices=("accept", "correct", "void", "dismiss"))
    review.add_argument("--play", help="with correct: the play in canonical notation")
    review.add_argument("--reason", help="with void: why")
    review.add_argument("--player", help="the player, when the slip did not say")
    review.add_argument("--round", type=int, help="the round, when the slip did not say")
    review.add_argument("--actor", default="árbitro")
    review.set_defaults(run=run_review)

    template = actions.add_parser("template", help="a plain slip: its blank scan and the fields marked on it")
    template.add_argument("image", type=Path, help="a blank slip, scanned once")
    template.add_argument("--out", type=Path, required=True, help="the template folder to write")
    template.add_argument("--field", action="append", default=[], metavar="NAME=X0,Y0,X1,Y1",
                          help="a field in pixels of IMAGE: ronda, mesa, nombre, coordenada, palabra or jugada")  # fmt: skip
    template.set_defaults(run=run_template)

    demo = actions.add_parser("demo", help="a duplicate game whose slips arrive as rendered scans")
    demo.add_argument("--players", type=int, default=8)
    demo.add_argument("--rounds", type=int, default=3)
    demo.add_argument("--seed", type=int, default=2017)
    demo.add_argument("--state", type=Path, default=Path("/tmp/veedor-papeletas"))
    demo.add_argument("--db", default="sqlite://")
    demo.add_argument("--lexicon", metavar="PATH")
    demo.set_defaults(run=run_demo)


def _fail(message: str) -> int:
    print(f"veedor: {message}", file=sys.stderr)
    return 2


def load_players(path: Path) -> list[tuple[str, str, int]]:
    """(id, name, table) from a CSV (header id,name,table) or a JSON list of objects."""
    if not path.exists():
        raise SlipInputError(f"{path}: no existe el archivo de jugadores")
    text = path.read_text(encoding="utf-8")
    try:
        rows = json.loads(text) if path.suffix.lower() == ".json" else list(csv.DictReader(text.splitlines()))
        return [(str(r["id"]), str(r["name"]), int(r["table"])) for r in rows]
    except (KeyError, ValueError, TypeError) as error:
        raise SlipInputError(f"{path}: cada jugador necesita id, name y table ({error})") from None


def run_print_slips(args: argparse.Namespace) -> int:
    from vision.slips.printing import pads, write_slips_pdf

    try:
        players = load_players(args.players)
        slips = pads(args.game, args.name or args.game, players, args.per_player)
        pages = write_slips_pdf(args.output, slips, absolute=args.absolute)
    except (SlipInputError, ValueError) as error:
        return _fail(str(error))
    print(f"{args.output}: {len(players)} jugadores, {args.per_player} papeletas cada uno, {pages} páginas")
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
    from webapp.services.games import GameService
    from webapp.services.store import EventStore

    return GameService(EventStore(args.db), load_lexicon(args.lexicon))


def _feed(service: Any, game_id: str, state: Path, template: Path | None = None) -> Any:
    from vision.slips.feed import GameFeed
    from vision.slips.reader import SlipReader
    from vision.slips.register import PlainTemplate
    from vision.slips.review import ReviewQueue

    return GameFeed(game_id, lambda: service.duplicate(game_id), lambda e: service.append(game_id, e),
                    SlipReader(service.lexicon), ReviewQueue(state),
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
        item = feed.resolve(args.item, args.action, args.actor, args.play, args.reason, args.player, args.round)
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
    from webapp.services.slip_demo import run_scanned_game

    try:
        run_scanned_game(args.players, args.rounds, args.seed, args.state, args.db, args.lexicon, sys.stdout)
    except (GameError, LexiconError) as error:
        return _fail(str(error))
    return 0
