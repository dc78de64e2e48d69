"""The ``veedor`` command line: moves, score, demo; exit codes 0, 1 and 2."""

import io
import json

import pytest

from tests.conftest import FILE2017
from webapp.cli import main

EMPTY = "/".join(["15"] * 15)
CASA = "15/15/15/15/15/15/15/4CASA7/15/15/15/15/15/15/15 AEILNOS/ 0/0 0 lex FILE2017;"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_moves_prints_one_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    cgp = f"{EMPTY} AEMNNOQ 0/0 0 lex FILE2017;"
    status, out, err = run(capsys, "moves", "--lexicon", str(FILE2017), cgp)
    assert status == 0 and err == ""
    result = json.loads(out)
    assert result["cgp"] == cgp
    assert result["moves"][:2] == [["8C AMONEN", 22], ["8D MONEAN", 22]]


def test_moves_reads_one_position_per_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{CASA}\n\n{EMPTY} ZZ 0/0 0\n"))
    status, out, _ = run(capsys, "moves", "--lexicon", str(FILE2017), "-")
    lines = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and len(lines) == 2
    assert ["H5 CASAS", 7] in lines[0]["moves"]
    assert lines[1]["moves"] == []


def test_moves_warns_when_the_position_names_another_lexicon(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, _, err = run(capsys, "moves", CASA)
    assert status == 0 and "pide el léxico FILE2017" in err


def test_score_prints_score_words_and_tiles(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "score", "--lexicon", str(FILE2017), CASA, "H5 CASAS")
    assert status == 0
    assert out.splitlines() == ["H5 CASAS: 7 puntos", "  H5 CASAS: 7", "  fichas colocadas: S@H9"]


def test_score_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "score", "--json", "--lexicon", str(FILE2017), CASA, "9G AS")
    result = json.loads(out)
    assert status == 0
    # AS down from G9 (double letter) makes CASAS across: AS 1x2+1, CASAS 3+1+1+1+1
    assert result["score"] == 3 + 7
    assert [w["word"] for w in result["words"]] == ["9G AS", "H5 CASAS"]
    assert result["tiles"] == [{"square": "G9", "tile": "A"}, {"square": "H9", "tile": "S"}]


def test_an_illegal_play_exits_1_with_the_reasons(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "score", "--lexicon", str(FILE2017), CASA, "H5 CASAZ")
    assert status == 1
    assert out.splitlines() == [
        "H5 CASAZ: jugada no válida",
        "  - el atril no tiene Z",
        "  - CASAZ no está en el léxico (D.I.2)",
    ]


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["score", CASA, "H16 CASA"], "la columna 16 no existe"),
        (["score", "15/15 A 0/0 0", "H8 CASA"], "tiene 2 filas"),
        (["moves", "--lexicon", "/no/such/file.txt", CASA], "no existe el archivo de léxico"),
    ],
)
def test_bad_input_exits_2_naming_the_problem(
    capsys: pytest.CaptureFixture[str], args: list[str], problem: str
) -> None:
    status, _, err = run(capsys, *args)
    assert status == 2 and problem in err


def test_demo_plays_a_game_to_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "demo", "--lexicon", str(FILE2017), "--seed", "7", "--delay", "0")
    assert status == 0
    assert out.count("Ronda ") >= 10
    assert "Puntuación total:" in out
