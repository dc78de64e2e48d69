"""``veedor duplicate simulate``: a whole duplicate game with simulated players.

Every event goes through the event store (an in-memory SQLite database unless
``--db`` names one), so the simulation exercises the same path as a real game. The game
records its word list, and a copy of the list is kept in ``--data``'s ``lexicons/``
(default: beside a SQLite database file), where a server finds it (``services.lexicons``).
With ``--tournament ID`` the players are that tournament's list (``veedor tournament create``), seated
at the list's tables or by the standing (``--seating``), and the game is added to the tournament.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, TextIO

from rules_core.alphabet import label
from rules_core.cgp import rack_sort_key
from rules_core.duplicate import NO_SLIP, DuplicateGame, DuplicateSettings, Round
from rules_core.events import GameError
from rules_core.lexicon import load_lexicon
from rules_core.results_csv import round_results_csv, standings_csv

from ..records.tournament_games import standing
from ..records.tournament_players import SEATINGS, player_data, seating
from ..records.tournaments import TournamentError, Tournaments
from ..services.games import GameService, open_games
from ..services.simulation import SimulatedPlayer, make_players, simulate_duplicate, strength_of
from .serve import database_url
from .spanish import LEXICON_HELP


def add_duplicate_commands(commands: Any) -> None:
    """Add ``duplicate simulate`` to the CLI's subcommands."""
    duplicate = commands.add_parser("duplicate", help="partidas duplicadas")
    actions = duplicate.add_subparsers(required=True, metavar="ACCIÓN")
    simulate = actions.add_parser("simulate", help="juega una partida entera con jugadores simulados")
    simulate.add_argument("--seed", type=int, default=2017, help="semilla de la bolsa (por defecto 2017)")
    simulate.add_argument("--players", type=int, default=8, help="jugadores simulados (por defecto 8)")
    simulate.add_argument("--rounds", type=int, default=None, help="por defecto: hasta acabar la bolsa")
    simulate.add_argument("--bonuses", action="store_true", help="bonificaciones de 10 y 5 puntos (D.III.24)")
    simulate.add_argument("--tie-breaks", action="store_true", help="desempates (D.III.28)")
    simulate.add_argument("--lexicon", metavar="RUTA", help=LEXICON_HELP)
    simulate.add_argument("--db", metavar="URL",
                          help="URL de la base de datos (por defecto: SQLite veedor.db en --data, como «serve»; sin --data, en memoria)")  # fmt: skip
    simulate.add_argument("--data", metavar="CARPETA",
                          help="carpeta de datos: su veedor.db sin --db, y su lexicons/ guarda la lista de palabras")  # fmt: skip
    simulate.add_argument("--tournament", metavar="TORNEO",
                          help="juegan los jugadores de ese torneo (de --db) y la partida se añade a él")  # fmt: skip
    simulate.add_argument("--seating", choices=sorted(SEATINGS), default="mesas",
                          help="con --tournament: en las mesas de la lista (mesas) o por la clasificación del torneo")  # fmt: skip
    simulate.add_argument("--json", action="store_true", help="escribe un documento JSON")
    simulate.add_argument("--csv", metavar="CARPETA", help="escribe también allí rondas.csv y clasificacion.csv")
    simulate.add_argument("--delay", type=float, default=0.0, help="segundos entre rondas")
    simulate.set_defaults(run=run_simulate)


def run_simulate(args: argparse.Namespace) -> int:
    if args.players < 1:
        raise GameError(f"--players debe ser al menos 1, no {args.players}")
    settings = DuplicateSettings(
        rounds=args.rounds, bonuses=args.bonuses, tie_breaks=args.tie_breaks, seed=args.seed
    )
    url = args.db or (database_url(args) if args.data else "sqlite://")  # the folder's database, as serve's
    service = open_games(url, load_lexicon(args.lexicon), args.data)
    tournaments = Tournaments(service.store.engine) if args.tournament else None
    players, name = make_players(args.players), f"Simulación {args.seed}"
    if tournaments is not None:
        players, name = tournament_players(service, tournaments, args.tournament, args.seating)
    game_id = service.create_duplicate(name, settings)
    game = service.duplicate(game_id)
    out = sys.stdout

    def show(r: Round) -> None:
        if not args.json:
            write_round(game, r, out)
            out.flush()
            time.sleep(args.delay)

    simulate_duplicate(game, lambda e: service.append(game_id, e), players, settings, args.seed, show)
    if tournaments is not None:
        tournaments.add_game(args.tournament, game_id)
    if args.json:
        print(json.dumps(game_json(game), ensure_ascii=False, indent=1))
    else:
        write_standings(game, out)
        if tournaments is not None:
            out.write(f"\nPartida {game_id} añadida al torneo {args.tournament}\n")
    if args.csv:
        folder = Path(args.csv)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "rondas.csv").write_text(round_results_csv(game), encoding="utf-8")
        (folder / "clasificacion.csv").write_text(standings_csv(game), encoding="utf-8")
    return 0


def tournament_players(service: GameService, tournaments: Tournaments, tournament_id: str,
                       how: str) -> tuple[list[SimulatedPlayer], str]:  # fmt: skip
    """The tournament's list seated ``how``, as simulated players carrying their ids, and the game's name."""
    try:
        tournament = tournaments.get(tournament_id)
    except TournamentError as error:
        in_memory = service.store.url == "sqlite://"
        where = "la base de datos en memoria: dé la --data o la --db donde se creó" if in_memory else \
            f"esta base de datos (--db {service.store.url})"  # fmt: skip
        raise GameError(f"{error} en {where}") from None
    if not tournament.players:
        raise GameError(f"el torneo {tournament.name} no tiene lista de jugadores")
    seats = seating(tournament, how, standing(service, tournament) if how == "clasificacion" else ())
    players = []
    for index, seat in enumerate(seats):
        data = player_data(seat)
        players.append(SimulatedPlayer(str(data.pop("player")), seat.player.name, seat.table, *strength_of(index),
                                       listed={k: v for k, v in data.items() if k not in ("name", "table")}))  # fmt: skip
    return players, f"{tournament.name}, partida {len(tournament.games) + 1}"


def write_round(game: DuplicateGame, r: Round, out: TextIO) -> None:
    """A round as the arbiters' room reads it: rack, master, every slip."""
    rack = _rack(r.rack, " ")
    master = f"{r.master.notation} {r.master.score}" if r.master else "-"
    redraw = f" ({r.redraws} cambios de fichas)" if r.redraws else ""
    out.write(f"\nRonda {r.number}  atril {rack}{redraw}  maestra {master}  acumulado {game.master_total}\n")
    bonuses = game.bonuses(r)
    for player in game.players.values():
        result = r.results.get(player.id, NO_SLIP)
        bonus = f"  +{bonuses[player.id]} bonif." if player.id in bonuses else ""
        reason = f"  ({result.reason})" if result.reason else ""
        out.write(f"  {player.table:>3} {player.name:<12} {result.play or '-':<22} {result.score:>4}{bonus}{reason}\n")


def write_standings(game: DuplicateGame, out: TextIO) -> None:
    out.write(f"\nFin de la partida: {game.end_reason}\nClasificación (maestra {game.master_total}):\n")
    names = Counter(p.name for p in game.players.values())
    standings = game.standings()
    shown = {s.player: f"{s.name} (mesa {game.players[s.player].table})" if names[s.name] > 1 else s.name
             for s in standings}  # namesakes told apart
    width = max([12, *map(len, shown.values())])
    for s in standings:
        percent = 100 * s.total / game.master_total if game.master_total else 0
        bonus = f" (bonif. {s.bonus})" if s.bonus else ""
        out.write(f"  {s.rank:>3}. {shown[s.player]:<{width}} {s.total:>5}{bonus}  {percent:5.1f} %\n")


def game_json(game: DuplicateGame) -> dict[str, Any]:
    """The game as the JSON document of ``duplicate simulate --json``."""
    names = {p.id: p.name for p in game.players.values()}
    rounds = []
    for r in game.rounds:
        submissions = [
            {"player": names[p], "play": res.play, "score": res.score, "reason": res.reason}
            for p, res in ((p, r.results.get(p, NO_SLIP)) for p in game.players)
        ]
        rounds.append({
            "number": r.number,
            "cgp": r.cgp(),
            "rack": _rack(r.rack, ""),
            "master": r.master.notation if r.master else None,
            "master_score": r.master_score,
            "submissions": submissions,
            "bonuses": [{"player": names[p], "points": v} for p, v in game.bonuses(r).items()],
        })  # fmt: skip
    standings = [{"player": s.name, "total": s.total, "bonus": s.bonus, "rank": s.rank} for s in game.standings()]
    return {
        "settings": game.settings.to_json(),
        "rounds": rounds,
        "standings": standings,
        "master_total": game.master_total,
        "end": game.end_reason,
    }


def _rack(tiles: tuple[int, ...], sep: str) -> str:
    return sep.join(label(t) for t in sorted(tiles, key=rack_sort_key))
