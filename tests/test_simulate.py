"""``veedor duplicate simulate``: a whole game, its JSON document and its CSV exports."""

import csv
import json
from pathlib import Path

import pytest

from tests.conftest import FILE2017
from webapp.cli import main


def simulate(capsys: pytest.CaptureFixture[str], *extra: str) -> dict:  # type: ignore[type-arg]
    status = main(["duplicate", "simulate", "--lexicon", str(FILE2017), "--json", *extra])
    assert status == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_a_whole_game_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    game = simulate(capsys, "--seed", "11", "--players", "8", "--bonuses")
    assert set(game) >= {"settings", "rounds", "standings"}
    assert len(game["rounds"]) >= 10 and len(game["standings"]) == 8
    for r in game["rounds"]:
        assert set(r) >= {"number", "cgp", "rack", "master", "master_score", "submissions", "bonuses"}
        for s in r["submissions"]:
            assert set(s) >= {"player", "play", "score", "reason"}
            assert s["score"] <= r["master_score"]
            assert (s["score"] == 0) or s["reason"] == ""
    totals = {s["player"]: s["total"] for s in game["standings"]}
    for player, total in totals.items():
        plays = sum(s["score"] for r in game["rounds"] for s in r["submissions"] if s["player"] == player)
        bonus = sum(b["points"] for r in game["rounds"] for b in r["bonuses"] if b["player"] == player)
        assert total == plays + bonus
    reasons = " ".join(s["reason"] for r in game["rounds"] for s in r["submissions"])
    assert "no está en el léxico" in reasons or "nula" in reasons or "fuera de tiempo" in reasons


def test_the_same_seed_gives_the_same_game(capsys: pytest.CaptureFixture[str]) -> None:
    first = simulate(capsys, "--seed", "5", "--players", "3", "--rounds", "4")
    again = simulate(capsys, "--seed", "5", "--players", "3", "--rounds", "4")
    assert first == again and len(first["rounds"]) == 4


def test_csv_exports(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    game = simulate(capsys, "--seed", "2", "--players", "4", "--rounds", "5", "--csv", str(tmp_path))
    with open(tmp_path / "rondas.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 5 * 4
    assert {int(r["puntos_maestra"]) for r in rows} == {r["master_score"] for r in game["rounds"]}
    with open(tmp_path / "clasificacion.csv", encoding="utf-8") as handle:
        standings = list(csv.DictReader(handle))
    assert [int(s["total"]) for s in standings[:4]] == [s["total"] for s in game["standings"]]
