"""The slip commands: print-slips, read-slip and read-move (--json, --batch), bad input."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.slips import layout
from vision.slips.synthetic import drawn
from vision.slips.synthetic import handwriting as hw
from webapp.cli.slips import add_slip_commands

CHORIZO = "15/15/15/15/15/15/15/5[CH]ORIZO4/15/15/15/15/15/15/15 AACSEIO 0/0 0"
KEYS = {"reading", "play", "score", "verdict", "flags", "confidence"}


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="veedor")
    add_slip_commands(parser.add_subparsers(required=True))
    args = parser.parse_args(argv)
    return int(args.run(args))


@pytest.fixture(scope="module")
def lexicon_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("lex") / "mini.txt"
    path.write_text("\n".join("CASA CASAS CASO AS ES OS SE LA AL EL LE ASA OSA CHORIZO CHORIZOS".split()) + "\n")
    return path


def move_image(text: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    line = np.full((110, 700), 240, np.uint8)
    drawn.write_in_box(line, (5, 5, 695, 105), text, hw.HersheyWriter(hw.TRAIN_HERSHEY[0]), rng)
    return line


def test_read_move_json(tmp_path: Path, lexicon_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image = tmp_path / "jugada.png"
    cv2.imwrite(str(image), move_image("12F CASA", 1))
    assert run(["read-move", str(image), "--cgp", CHORIZO, "--json", "--lexicon", str(lexicon_file)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert KEYS <= set(result)
    assert (result["play"], result["score"], result["verdict"]) == ("12F CASA", 28, "accepted")


def test_read_move_batch_prints_one_line_each(tmp_path: Path, lexicon_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    jobs = []
    for i, text in enumerate(["12F CASA", "11E CASO"]):
        path = tmp_path / f"{i}.png"
        cv2.imwrite(str(path), move_image(text, i))
        jobs.append(json.dumps({"image": str(path), "cgp": CHORIZO}))
    batch = tmp_path / "lote.jsonl"
    batch.write_text("\n".join(jobs) + "\n")
    assert run(["read-move", "--batch", str(batch), "--lexicon", str(lexicon_file)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [KEYS <= set(line) for line in lines] == [True, True]
    assert [line["image"] for line in lines] == [json.loads(j)["image"] for j in jobs]


def test_print_slips_then_read_slip_with_players(tmp_path: Path, lexicon_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    players = tmp_path / "jugadores.csv"
    players.write_text("id,name,table\nj1,Ana Pérez,1\nj2,Bruno Núñez,2\n")
    pdf = tmp_path / "papeletas.pdf"
    assert run(["print-slips", "--players", str(players), "--game", "p1", "--name", "Open", "-o", str(pdf)]) == 0
    assert pdf.read_bytes()[:5] == b"%PDF-" and "8 páginas" in capsys.readouterr().out
    rng = np.random.default_rng(4)
    printed = layout.render_slip(layout.SlipInfo("p1", "Open", 2, "j2", "Bruno Núñez"))
    fields = {"ronda": "3", "mesa": "2", "coordenada": "12F", "palabra": "CASA"}
    scan = drawn.scan(drawn.fill_slip(printed, fields, hw.HersheyWriter(hw.TRAIN_HERSHEY[1]), rng), rng)
    image = tmp_path / "scan.jpg"
    cv2.imwrite(str(image), scan)
    code = run(["read-slip", str(image), "--cgp", CHORIZO, "--players", str(players), "--json", "--lexicon", str(lexicon_file)])
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and KEYS <= set(result)
    assert (result["player"], result["table"], result["play"], result["verdict"]) == ("j2", 2, "12F CASA", "accepted")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["read-move", "no-existe.png", "--cgp", CHORIZO], "no existe"),
        (["read-move", "{image}", "--cgp", "esto no es un CGP"], "15"),
        (["read-move", "{text}", "--cgp", CHORIZO], "no es una imagen"),
        (["read-move"], "--batch"),
    ],
)
def test_bad_input_exits_2_with_a_message(tmp_path: Path, lexicon_file: Path, capsys: pytest.CaptureFixture[str],
                                          argv: list[str], message: str) -> None:  # fmt: skip
    image, text = tmp_path / "a.png", tmp_path / "a.txt"
    cv2.imwrite(str(image), move_image("12F CASA", 0))
    text.write_text("hola")
    argv = [a.format(image=image, text=text) for a in argv] + ["--lexicon", str(lexicon_file)]
    assert run(argv) == 2
    assert message in capsys.readouterr().err


def test_watch_reads_the_folder_into_a_game_and_review_lists_the_queue(tmp_path: Path, lexicon_file: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    from rules_core.duplicate import DuplicateSettings
    from rules_core.events import Event
    from rules_core.lexicon import Lexicon
    from webapp.services.games import GameService
    from webapp.services.store import EventStore

    db = f"sqlite:///{tmp_path / 'juego.db'}"
    service = GameService(EventStore(db), Lexicon.load(lexicon_file))
    game_id = service.create_duplicate("Prueba", DuplicateSettings(rounds=2))
    service.append(game_id, Event("player_added", {"player": "j1", "name": "Ana", "table": 1}))
    service.append(game_id, Event("rack_set", {"round": 1, "rack": list("AACSEIO"), "source": "manual"}))
    inbox = tmp_path / "bandeja"
    inbox.mkdir()
    printed = layout.render_slip(layout.SlipInfo(game_id, "Prueba", 1, "j1", "Ana"))
    rng = np.random.default_rng(9)  # a slip the reader is sure of (one it doubts waits: test_slip_feed)
    fields = {"ronda": "1", "mesa": "1", "coordenada": "H8", "palabra": "CASA"}
    cv2.imwrite(str(inbox / "ana.jpg"), drawn.scan(drawn.fill_slip(printed, fields, hw.HersheyWriter(hw.TRAIN_HERSHEY[1]), rng), rng))
    (inbox / "roto.pdf").write_bytes(b"%PDF-1.4 roto")
    state = tmp_path / "estado"
    assert run(["slips", "watch", "--inbox", str(inbox), "--state", str(state), "--db", db, "--game", game_id,
                "--lexicon", str(lexicon_file), "--once"]) == 0  # fmt: skip
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(line["status"], line["play"]) for line in lines] == [("submitted", "H8 CASA")]
    assert (state / "refused" / "roto.pdf.motivo.txt").exists()
    reopened = GameService(EventStore(db), Lexicon.load(lexicon_file))
    assert reopened.duplicate(game_id).round(1).results["j1"].score == 12
    assert run(["slips", "review", "--state", str(state)]) == 0
    assert capsys.readouterr().out == ""
