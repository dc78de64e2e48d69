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
