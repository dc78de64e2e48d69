"""Camera reports into a classic game: plays recorded, challenges sent, doubts queued and
resolved by the arbiter in one action."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from rules_core.alphabet import tile_from_label
from rules_core.classic import ClassicGame
from rules_core.lexicon import Lexicon
from rules_core.notation import Play
from vision.board.desk import CameraDesk, ReviewQueue
from vision.board.tracker import EMPTY_LABELS, BoardTracker, Report, _Proposal
from webapp.services.games import GameService
from webapp.services.store import EventStore


@pytest.fixture
def desk(small_lexicon: Lexicon) -> CameraDesk:
    service = GameService(EventStore("sqlite://"), small_lexicon)
    game_id = service.create("classic", "Mesa 1", ClassicGame.create_event(["Ana", "Bruno"]))
    tracker = BoardTracker("mesa-1", small_lexicon)
    d = CameraDesk(tracker, service, game_id)
    tracker.on_report = d.handle
    return d


def _report(kind: str, notation: str | None = None, reason: str = "") -> Report:
    return Report(kind, "mesa-1", 1.0, 10, "…", reason=reason, notation=notation, frame_path="/tmp/f.jpg")


def _game(desk: CameraDesk) -> ClassicGame:
    game = desk.games.open(desk.game_id)
    assert isinstance(game, ClassicGame)
    return game


def test_a_camera_play_is_recorded_for_the_player_to_move(desk: CameraDesk) -> None:
    desk.handle(_report("play", "H8 CASA"))
    game = _game(desk)
    assert [t.notation for t in game.turns] == ["H8 CASA"]
    assert game.events[-1].actor == "camera:mesa-1"
    assert game.to_move == 1


def test_tiles_lifted_send_a_challenge(desk: CameraDesk) -> None:
    desk.handle(_report("play", "H8 CASA"))
    desk.handle(_report("play", "8H CLE"))  # a phony recorded (C.38), then challenged
    desk.handle(_report("withdrawn", "8H CLE"))
    game = _game(desk)
    assert game.turns[-1].withdrawn
    assert desk.queue.pending() == []


def test_a_doubt_waits_for_the_arbiter_who_confirms_it(desk: CameraDesk) -> None:
    tiles = {(7, 7): tile_from_label("C"), (7, 8): tile_from_label("A"), (7, 9): tile_from_label("S"), (7, 10): tile_from_label("A")}
    labels = [list(row) for row in EMPTY_LABELS]
    for (r, c), _ in tiles.items():
        labels[r][c] = "CASA"[c - 7]
    assert desk.tracker is not None
    desk.tracker.proposal = _Proposal(tuple(tuple(r) for r in labels), Play.from_notation("H8 CASA"), tiles)
    desk.handle(replace(_report("doubt", None, "unsure"), tiles=tuple((sq, "CASA"[sq[1] - 7]) for sq in sorted(tiles))))
    [item] = desk.state()["doubts"]
    assert item["report"]["frame_path"] == "/tmp/f.jpg"
    assert desk.confirm(item["id"], "arbitro") == "H8 CASA"
    assert [t.notation for t in _game(desk).turns] == ["H8 CASA"]
    assert _game(desk).events[-1].actor == "arbiter:arbitro"
    assert desk.queue.pending() == []


def test_the_arbiter_corrects_a_reading(desk: CameraDesk) -> None:
    desk.tracker.proposal = _Proposal(EMPTY_LABELS, None, {})
    item = desk.queue.add("mesa-1", _report("doubt", None, "no_play"))
    assert desk.correct(item.id, "H8 CASO", "arbitro") == "H8 CASO"
    assert [t.notation for t in _game(desk).turns] == ["H8 CASO"]
    assert desk.tracker.status.cgp.startswith("15/15/15/15/15/15/15/7CASO4")  # the tracker's board follows


def test_the_tracker_follows_the_games_board(small_lexicon: Lexicon) -> None:
    from rules_core.board import Board

    tracker = BoardTracker("mesa-1", small_lexicon)
    casa = {(7, 7 + i): tile_from_label(letter) for i, letter in enumerate("CASA")}
    board = Board()
    for square, tile in casa.items():
        board[square] = tile
    assert tracker.sync(board, casa) and not tracker.sync(board, casa)  # the second changes nothing
    assert tracker.status.cgp == "15/15/15/15/15/15/15/7CASA4/15/15/15/15/15/15/15"
    assert tracker.readings[7][7:11] == ("C", "A", "S", "A")
    withdrawn = tracker.withdraw_last()  # lifting the game's last play is a withdrawal (C.39)
    assert withdrawn is not None and withdrawn.notation() == "H8 CASA"


def test_a_desk_without_a_tracker_sends_the_games_board(small_lexicon: Lexicon) -> None:
    service = GameService(EventStore("sqlite://"), small_lexicon)
    game_id = service.create("classic", "Mesa 1", ClassicGame.create_event(["Ana", "Bruno"]))
    sent: list[dict[str, object]] = []
    desk = CameraDesk(None, service, game_id, link=sent.append, name="mesa-2")
    desk.handle(replace(_report("play", "H8 CASA"), camera="mesa-2"))
    assert sent[-1] == {"type": "sync", "game": game_id, "cgp": "15/15/15/15/15/15/15/7CASA4/15/15/15/15/15/15/15",
                        "last": [["H8", "C"], ["H9", "A"], ["H10", "S"], ["H11", "A"]], "hold": False}  # fmt: skip
    item = desk.queue.add("mesa-2", replace(_report("doubt", None, "moved"), camera="mesa-2"))
    assert desk.confirm(item.id, "arbitro") is None and sent[-1] == {"type": "accept"}


def test_open_doubts_survive_a_restart_and_their_resolution_is_kept(small_lexicon: Lexicon, tmp_path: Path) -> None:
    """The doubts' journal: a server restarted mid-round shows the arbiter the same open doubt."""
    journal = tmp_path / "camera-doubts.jsonl"
    service = GameService(EventStore("sqlite://"), small_lexicon)
    game_id = service.create("classic", "Mesa 1", ClassicGame.create_event(["Ana", "Bruno"]))
    first = CameraDesk(None, service, game_id, ReviewQueue(journal), name="mesa-1")
    first.handle(_report("doubt", reason="illegal"))
    first.handle(_report("doubt", reason="changed"))  # a newer reading: the first doubt is moot
    [waiting] = first.queue.pending()
    with open(journal, "a", encoding="utf-8") as handle:
        handle.write('{"op": "resolve", "id": 2, "sta')  # a crash in the middle of a write

    restarted = CameraDesk(None, service, game_id, ReviewQueue(journal), name="mesa-1")
    [again] = restarted.queue.pending()
    assert (again.id, again.report, again.created) == (waiting.id, waiting.report, waiting.created)
    assert restarted.queue.get(1).status == "descartada"
    restarted.correct(again.id, "H8 CASA", "arbitro")
    assert [t.notation for t in _game(restarted).turns] == ["H8 CASA"]

    later = ReviewQueue(journal)
    assert later.pending() == [] and later.get(2).status == "corregida"
    assert later.add("mesa-1", _report("doubt", reason="no_play")).id == 3


def test_confirming_a_proposal_with_a_blank_records_the_blank_with_its_letter(desk: CameraDesk) -> None:
    """An unsure tile's doubt proposes a play whose new blank the lexicon named (lowercase in its
    tiles): one confirmation records it as proposed."""
    assert desk.tracker is not None
    desk.tracker.proposal = _Proposal(EMPTY_LABELS, Play.from_notation("H8 CASAs"), {})
    tiles = (((7, 7), "C"), ((7, 8), "A"), ((7, 9), "S"), ((7, 10), "A"), ((7, 11), "s"))
    desk.handle(replace(_report("doubt", "H8 CASAs", "unsure"), tiles=tiles))
    [item] = desk.state()["doubts"]
    assert desk.confirm(item["id"], "arbitro") == "H8 CASAs"
    assert [t.notation for t in _game(desk).turns] == ["H8 CASAs"]
