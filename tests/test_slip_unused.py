"""Unused printed slips are no slips (issue 67): an uncut sheet scanned whole gave one "caligrafía ilegible" item
per unused slip on it, each to be dismissed by hand.

The arbiter's view, as the reader now takes it: a printed slip with nothing written in any of its boxes (nor on an
absolute slip's board) is paper, not a slip handed in: it is neither stored nor sent to the arbiter, and its player
stays "sin entregar" until a slip of theirs comes. A slip with the round or the table written but no play was
handed in: it goes to the arbiter flagged ``no_play``, one key storing it as a slip without a play (0 points).
Pages are printed by the project's own PDF, rasterised as the ingest does, filled in by a synthetic hand.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import cv2
import numpy as np
import pytest

from rules_core.duplicate import DuplicateSettings
from rules_core.events import Event
from rules_core.lexicon import Lexicon
from vision.slips import layout
from vision.slips.feed import GameFeed
from vision.slips.ingest import Ingestor, split_pages
from vision.slips.printing import pads, slip_origins, slips_pdf
from vision.slips.reader import SlipReader, locate_slips
from vision.slips.review import ReviewQueue
from vision.slips.synthetic import drawn
from vision.slips.synthetic import handwriting as hw
from webapp.services.games import GameService
from webapp.services.store import EventStore

DPI = 200.0  # the ingest renders a PDF page at this resolution
WRITER = hw.HersheyWriter(hw.TRAIN_HERSHEY[1])


@pytest.fixture(scope="module")
def reader(small_lexicon: Lexicon) -> SlipReader:
    return SlipReader(small_lexicon)


@pytest.fixture()
def game(small_lexicon: Lexicon) -> tuple[GameService, str]:
    service = GameService(EventStore("sqlite://"), small_lexicon)
    game_id = service.create_duplicate("Prueba", DuplicateSettings(rounds=3))
    for table, name in ((1, "Ana"), (2, "Bruno")):
        service.append(game_id, Event("player_added", {"player": f"j{table}", "name": name, "table": table}))
    service.append(game_id, Event("rack_set", {"round": 1, "rack": list("AACSEIO"), "source": "manual"}))
    return service, game_id


def sheet(game_id: str) -> np.ndarray:
    """Page 1 of the game's printed pads (Ana's four slips, then Bruno's), rasterised as the ingest does."""
    pdf = slips_pdf(pads(game_id, "Prueba", [("j1", "Ana", 1), ("j2", "Bruno", 2)], per_player=4))
    return next(iter(split_pages(pdf, "papeletas.pdf")))


def write_on_sheet(page: np.ndarray, index: int, fields: dict[str, str], seed: int) -> None:
    """Handwrite ``fields`` in the boxes of the ``index``-th slip of a rasterised page, in place."""
    rng = np.random.default_rng(seed)
    ox, oy = slip_origins()[index]
    for name, text in fields.items():
        box = layout.FIELDS[name]
        mm = (ox + box.x0 + 0.6, oy + box.y0 + 0.6, ox + box.x1 - 0.6, oy + box.y1 - 0.6)
        pixels = tuple(int(round(v * DPI / 25.4)) for v in mm)
        drawn.write_in_box(page, pixels, text, WRITER, rng, 40.0)  # type: ignore[arg-type]


def scanned(page: np.ndarray, seed: int) -> np.ndarray:
    """A page as a sheet-fed scanner returns it: a little darker, noisy, JPEG."""
    rng = np.random.default_rng(seed)
    image = page.astype(np.float32) * 0.93 + rng.normal(0, 4, page.shape)
    ok, data = cv2.imencode(".jpg", np.clip(image, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 80])
    assert ok
    return cv2.imdecode(data, cv2.IMREAD_GRAYSCALE)


def read_sheet(service: GameService, game_id: str, reader: SlipReader, page: np.ndarray,
               tmp_path: Path) -> tuple[GameFeed, list[dict]]:  # fmt: skip
    """The page through the game's feed as a scanner's folder: the feed, and what became of each slip."""
    feed = GameFeed(game_id, lambda: service.duplicate(game_id), partial(service.enter_slip, game_id), reader,
                    ReviewQueue(tmp_path / "lector"))  # fmt: skip
    inbox = tmp_path / "bandeja"
    inbox.mkdir()
    cv2.imwrite(str(inbox / "hoja.png"), page)
    ingestor = Ingestor(inbox, tmp_path / "lector", feed.read_page)
    (stored,) = ingestor.poll()
    return feed, ingestor.read[stored.sha]


def test_an_uncut_sheet_of_unused_slips_is_no_slip_and_asks_nothing(game: tuple[GameService, str],
                                                                    reader: SlipReader, tmp_path: Path) -> None:  # fmt: skip
    service, game_id = game
    feed, outcome = read_sheet(service, game_id, reader, scanned(sheet(game_id), 1), tmp_path)
    assert [r["status"] for r in outcome] == ["unused"] * 8
    assert feed.queue.pending() == [] and service.duplicate(game_id).round(1).slips == {}
    journal = [json.loads(line) for line in (tmp_path / "lector" / "journal.jsonl").read_text().splitlines()]
    assert any(r.get("results") and all(x["status"] == "unused" for x in r["results"]) for r in journal)  # noted


def test_on_a_sheet_a_written_slip_is_read_a_slip_with_no_play_asks_and_the_unused_are_nothing(
        game: tuple[GameService, str], reader: SlipReader, tmp_path: Path) -> None:  # fmt: skip
    service, game_id = game
    page = sheet(game_id)
    write_on_sheet(page, 0, {"ronda": "1", "coordenada": "H8", "palabra": "CASA"}, 2)  # Ana's first slip
    write_on_sheet(page, 4, {"ronda": "1"}, 3)  # Bruno's first slip: the round, no play
    feed, outcome = read_sheet(service, game_id, reader, scanned(page, 4), tmp_path)
    statuses = sorted((r["player"], r["status"]) for r in outcome)  # the slips' QR codes say whose
    assert statuses == [("j1", "submitted")] + [("j1", "unused")] * 3 + [("j2", "flagged")] + [("j2", "unused")] * 3
    r = service.duplicate(game_id).round(1)
    assert r.slips["j1"].notation == "H8 CASA" and "j2" not in r.slips
    (item,) = feed.queue.pending()
    assert (item.player, item.round, item.flags) == ("j2", 1, ("no_play",))
    assert item.proposal is not None and item.proposal["notation"] is None  # one key: a slip without a play
    feed.resolve(item.id, "accept", "árbitro")
    result = service.duplicate(game_id).round(1).results["j2"]
    assert (result.play, result.score, result.reason) == (None, 0, "sin jugada")


@pytest.mark.parametrize("seed", range(6))
def test_a_scanned_unused_slip_has_nothing_written_whatever_the_scanner(seed: int) -> None:
    printed = layout.render_slip(layout.SlipInfo("g", "Prueba", 12, "j12", "Dora Núñez"))
    (slip,) = locate_slips(drawn.scan(printed, np.random.default_rng(seed)))
    assert slip.written == frozenset() and slip.unused


@pytest.mark.parametrize(("field", "text"), [("ronda", "7"), ("mesa", "12"), ("coordenada", "H8"), ("palabra", "AS")])
def test_anything_written_in_any_box_makes_it_a_slip(field: str, text: str) -> None:
    printed = layout.render_slip(layout.SlipInfo("g", "Prueba", 12, "j12", "Dora Núñez"))
    rng = np.random.default_rng(len(field))
    (slip,) = locate_slips(drawn.scan(drawn.fill_slip(printed, {field: text}, WRITER, rng), rng))
    assert slip.written == {field} and not slip.unused


def test_a_faint_pencil_is_writing_too() -> None:
    """A pen 40 grey levels under the paper (less than the recogniser takes for ink) still makes a slip."""
    printed = layout.render_slip(layout.SlipInfo("g", "Prueba", 3, "j3", "Ciro"))
    rng = np.random.default_rng(7)
    drawn.write_in_box(printed, layout.FIELDS["palabra"].pixels(layout.PX_PER_MM, 0.6), "CASA", WRITER, rng, 215.0)
    (slip,) = locate_slips(drawn.scan(printed, rng, angle=30.0))
    assert slip.written == {"palabra"}


def test_an_absolute_slip_is_unused_only_with_nothing_on_its_board(reader: SlipReader) -> None:
    from rules_core.notation import Play

    page = next(iter(split_pages(slips_pdf(pads("p7", "Open", [("j1", "Ana", 1)], 1), absolute=True), "a.pdf")))
    (blank,) = locate_slips(page)
    assert blank.board is not None and blank.unused
    rng = np.random.default_rng(5)
    filled = drawn.fill_grid(blank.board, Play.from_notation("H8 CASA"), WRITER, rng)
    (written,) = locate_slips(drawn.scan(filled, rng))
    assert written.written == {"tablero"}
    result = reader.read_located(written, lambda _: None, [], [])
    assert result.verdict != "unused" and "no_play" not in result.flags
