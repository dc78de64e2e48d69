"""``veedor read-board``: JSON shape on a real photo, ``found: false`` with a reason on a frame
with no board, and bad input named (exit 2)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.conftest import SHARED
from webapp.cli.board import add_board_commands

PHOTO = SHARED / "data" / "boards_de" / "game02" / "image-5.jpg"  # a held-out game's photo
FILE2017 = SHARED / "lexicon" / "FILE2017.txt"


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="veedor")
    add_board_commands(parser.add_subparsers(required=True))
    args = parser.parse_args(argv)
    return int(args.run(args))


def test_read_board_json_on_a_real_photo(capsys: pytest.CaptureFixture[str]) -> None:
    if not PHOTO.exists():
        pytest.fail(f"test data missing: {PHOTO}")
    assert _run(["read-board", str(PHOTO), "--json", "--turn", "0"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["found"] is True
    assert len(out["corners"]) == 4
    assert len(out["cells"]) == 15 and all(len(row) == 15 for row in out["cells"])
    cell = out["cells"][7][7]
    assert set(cell) == {"label", "confidence"}
    assert out["cgp"].count("/") == 14


def test_no_board_gives_found_false_with_a_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A batch answers each image on its own line, in order: a table without a board is
    ``found: false`` with a reason, and does not spoil the board photo after it."""
    image = tmp_path / "mesa.png"
    rng = np.random.default_rng(1)
    cv2.imwrite(str(image), (rng.normal(0, 10, (540, 960, 3)) + 110).clip(0, 255).astype(np.uint8))
    batch = tmp_path / "lista.txt"
    batch.write_text(f"{image}\n{PHOTO}\n", encoding="utf-8")
    assert _run(["read-board", "--batch", str(batch)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == 2
    assert lines[0]["found"] is False and lines[0]["reason"]
    assert lines[0]["cells"] is None
    assert lines[1]["found"] is True and len(lines[1]["cells"]) == 15


def test_unreadable_image_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["read-board", str(tmp_path / "no-existe.jpg")]) == 2
    assert "no se puede leer la imagen" in capsys.readouterr().err


def test_print_markers_writes_a_sheet(tmp_path: Path) -> None:
    out = tmp_path / "marcadores.png"
    assert _run(["print-markers", str(out)]) == 0
    from vision.board.markers import detect_markers

    sheet = cv2.imread(str(out))
    assert sorted(detect_markers(sheet)) == [0, 1, 2, 3]


def test_a_foreign_set_is_not_read_as_a_game_and_keeps_its_letters(capsys: pytest.CaptureFixture[str]) -> None:
    """Settling by words (issue 69) needs a board whose sure words are words of the lexicon: a German
    game's photo under FILE2017 is not one, and nothing on it changes."""
    assert _run(["read-board", str(PHOTO), "--json", "--turn", "0"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert _run(["read-board", str(PHOTO), "--json", "--turn", "0", "--lexicon", str(FILE2017)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["reads_as_game"] is False and out["settled"] == []
    assert out["cells"] == plain["cells"]


def test_a_spanish_game_board_reads_as_a_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from rules_core.cgp import Position
    from vision.board.synthetic import render as R
    from vision.board.synthetic.render_scene import tiles_to_labels

    position = Position.from_cgp("15/15/15/15/15/15/15/3CASAS7/7o7/7LA6/15/15/15/15/15 AEIOU?? 0/0 0")
    cells = R.empty_labels()
    for (r, c), name in tiles_to_labels(dict(position.board.occupied())).items():
        cells[r][c] = name
    image = tmp_path / "partida.png"
    cv2.imwrite(str(image), R.render(R.random_scene(np.random.default_rng(3), cells, hands=0)).image)
    assert _run(["read-board", str(image), "--json", "--lexicon", str(FILE2017)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["found"] and out["reads_as_game"] is True
    assert [cell["label"] for cell in out["cells"][7][3:8]] == ["C", "A", "S", "A", "S"]


def test_a_missing_lexicon_exits_2_and_names_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["read-board", str(PHOTO), "--lexicon", "/no/existe.txt"]) == 2
    assert "/no/existe.txt" in capsys.readouterr().err
