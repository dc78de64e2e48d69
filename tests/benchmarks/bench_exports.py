"""Benchmark of the exports (issue 23): every table read back by LibreOffice, as people open it.

Run with ``make bench`` (or ``python tests/benchmarks/bench_exports.py``). A whole
duplicate game is played by simulated players (one named ``=HYPERLINK("x")`` and
accented names), a tournament made from a player list with two namesakes told apart by their
licences plays two games, and EloDI and a classic game are made in a test app;
each XLSX and CSV download is converted by LibreOffice headless (``soffice
--convert-to csv``, Debian's ``libreoffice-calc-nogui``), and the result is checked:
accented names intact, numbers read as numbers, the formula-like name shown as text; the
tournament's ranking with its Spanish headers (club, licence, %, the D.III.28 tie-breaks) and
the namesakes on two lines.
Prints one line per file and one JSON summary; exit 1 when a check fails.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from rules_core.classic import ClassicGame  # noqa: E402
from rules_core.duplicate import DuplicateSettings  # noqa: E402
from rules_core.lexicon import load_lexicon  # noqa: E402
from webapp.app import create_app  # noqa: E402
from webapp.services.shared import services  # noqa: E402
from rules_core.player_list import parse_player_list  # noqa: E402
from webapp.cli.duplicate import tournament_players  # noqa: E402
from webapp.records.tournament_players import listed  # noqa: E402
from webapp.records.tournaments import tournaments_of  # noqa: E402
from webapp.services.simulation import make_players, simulate_duplicate  # noqa: E402

FORMULA = '=HYPERLINK("x")'


def game_with_odd_names(app: object) -> str:
    games = services(app).games  # type: ignore[arg-type]
    settings = DuplicateSettings(rounds=12)
    game_id = games.create_duplicate("Open de Otoño", settings, actor="bench")
    players = make_players(6)
    players[0], players[1] = replace(players[0], name="Íñigo Barreña"), replace(players[1], name=FORMULA)
    simulate_duplicate(games.duplicate(game_id), lambda e: games.append(game_id, e), players, settings, seed=3)
    return game_id


TOURNAMENT_LIST = f"1;Ana García;CEDE;1001\n2;Íñigo Barreña;Alcalá;\n3;Ana García;Getafe;2002\n4;{FORMULA};;4004\n"
TOURNAMENT_HEADERS = ("Club", "Licencia", "% de las maestras", "Maestras igualadas", "Máximas en solitario",
                      "Máximo diferencial")  # fmt: skip


def tournament_of_namesakes(app: object) -> str:
    """A tournament whose list has two Ana García (licences 1001 and 2002), two games played from it."""
    games, tournaments = services(app).games, tournaments_of(app)  # type: ignore[arg-type]
    tournament_id = tournaments.create("Open de Otoño", "average_place", listed(parse_player_list(TOURNAMENT_LIST)))
    for seed in (4, 5):
        settings = DuplicateSettings(rounds=6)
        players, name = tournament_players(games, tournaments, tournament_id, "mesas")
        game_id = games.create_duplicate(name, settings, actor="bench")
        simulate_duplicate(games.duplicate(game_id), lambda e: games.append(game_id, e), players, settings, seed)  # noqa: B023
        tournaments.add_game(tournament_id, game_id)
    return tournament_id


def tournament_problems(raw: str) -> list[str]:
    """What the tournament's ranking, as LibreOffice read it, misses."""
    rows = list(csv.reader(io.StringIO(raw)))
    problems = [f"falta la columna {name!r}" for name in TOURNAMENT_HEADERS if name not in rows[0]]
    licences = sorted(row[3] for row in rows[1:] if row[1] == "Ana García")
    return problems + ([] if licences == ["1001", "2002"] else [f"las dos Ana García: {licences}"])


def libreoffice_csv(data: bytes, suffix: str, work: Path) -> str:
    """What LibreOffice reads in ``data``: its first sheet as CSV text, UTF-8, every text cell
    quoted and numbers bare (so a number read as text shows as ``"12"``)."""
    source = work / f"entrada{suffix}"
    source.write_bytes(data)
    out = work / "salida"
    out.mkdir(exist_ok=True)
    infilter = ["--infilter=CSV:59,34,76,1,,3082"] if suffix == ".csv" else []  # ; and es-ES, as Excel in Spain
    subprocess.run(["soffice", "--headless", *infilter, "--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,true",
                    "--outdir", str(out), str(source)], check=True, capture_output=True, timeout=120)  # fmt: skip
    text = (out / "entrada.csv").read_text(encoding="utf-8")
    (out / "entrada.csv").unlink()
    return text


def check(raw: str) -> list[str]:
    """Problems of a table as LibreOffice read it (see ``libreoffice_csv``)."""
    problems = []
    if "Barre" in raw and "Íñigo Barreña" not in raw:
        problems.append("nombre con tildes estropeado")
    if "HYPERLINK" in raw and '"=HYPERLINK(""x"")' not in raw and "\"'=HYPERLINK" not in raw:
        problems.append("una fórmula se evaluó o se perdió")
    rows = list(csv.reader(io.StringIO(raw)))
    bare = [line.split(",") for line in raw.splitlines()[1:]]
    if rows[1:] and not any(cell.isdigit() for row in bare for cell in row):
        problems.append("ningún número leído como número")
    return problems


def main() -> int:
    if shutil.which("soffice") is None:
        print("bench_exports: falta LibreOffice (apt-get install libreoffice-calc-nogui)")
        return 1
    work = Path(tempfile.mkdtemp(prefix="veedor-exports-"))
    app = create_app({"TESTING": True, "DATABASE_URL": f"sqlite:///{work / 'v.db'}", "INSTANCE_PATH": str(work),
                      "LEXICON": load_lexicon(None)})  # fmt: skip
    game_id = game_with_odd_names(app)

    classic = services(app).games.create("classic", "Mesa 1", ClassicGame.create_event(["Íñigo Barreña", "Ana"]))
    tournament = tournament_of_namesakes(app)
    client = app.test_client()
    urls = [f"/results/{game_id}/clasificacion", f"/results/{game_id}/rondas", "/results/elodi/lista",
            f"/results/{classic}/hoja", f"/results/torneo/{tournament}/clasificacion"]  # fmt: skip
    failures, started = 0, time.perf_counter()
    for url in urls:
        for kind in ("xlsx", "csv"):
            answer = client.get(f"{url}.{kind}")
            raw = libreoffice_csv(answer.data, f".{kind}", work)
            problems = check(raw) + (tournament_problems(raw) if "/torneo/" in url else [])
            failures += bool(problems)
            print(f"{url}.{kind}: {len(raw.splitlines())} filas leídas por LibreOffice; {'; '.join(problems) or 'bien'}")
    summary = {"files": len(urls) * 2, "failures": failures, "seconds": round(time.perf_counter() - started, 1)}
    print(json.dumps(summary))
    shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
