"""``veedor rating``: EloDI ratings (FILE duplicate rules, part V) from a history of games.

``rating --history FILE.jsonl [--ratings PREVIOUS.csv] [--json]``: FILE has one game a
line, in the order played: ``{"game": ID, "date": "YYYY-MM-DD", "rounds": N,
"standings": [{"player": NAME, "rank": R}, ...]}`` (tied players share a rank number);
``--ratings`` gives earlier values as CSV ``player,rating,volatility,games`` (checked whole,
``records.elodi_list``). Prints a table sorted by rating (whole numbers), or with ``--json``
``{"players": [{"player", "rating", "volatility", "games"}, ...]}`` with unrounded floats. A
malformed line or row exits 2 naming the file, the line and the problem.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from rules_core.elodi import Rating, rate_games

from ..records.elodi import read_history
from ..records.elodi_list import RatingInputError, read_ratings


def add_rating_commands(commands: Any) -> None:
    rating = commands.add_parser("rating", help="clasificación EloDI de un historial de partidas duplicadas")
    rating.add_argument("--history", required=True, metavar="ARCHIVO.jsonl",
                        help="una partida por línea, en el orden en que se jugaron")  # fmt: skip
    rating.add_argument("--ratings", metavar="ANTERIOR.csv",
                        help="la clasificación anterior: player,rating,volatility,games")  # fmt: skip
    rating.add_argument("--json", action="store_true", help="escribe un objeto JSON, sin redondear")
    rating.set_defaults(run=run_rating)


def run_rating(args: argparse.Namespace) -> int:
    try:
        games = list(read_history(Path(args.history)))
        previous = read_ratings(Path(args.ratings)) if args.ratings else {}
    except (OSError, RatingInputError) as error:
        print(f"veedor: {error}", file=sys.stderr)
        return 2
    ratings, _changes = rate_games(games, previous)
    write_ratings(ratings, sys.stdout, as_json=args.json)
    return 0


def write_ratings(ratings: Mapping[str, Rating], out: TextIO, *, as_json: bool) -> None:
    ordered = sorted(ratings.items(), key=lambda item: (-item[1].rating, item[0]))
    if as_json:
        players = [{"player": p, "rating": r.rating, "volatility": r.volatility, "games": r.games} for p, r in ordered]
        json.dump({"players": players}, out, ensure_ascii=False)
        out.write("\n")
        return
    width = max([len("jugador"), *(len(p) for p in ratings)])
    out.write(f"{'puesto':>6}  {'jugador':<{width}}  {'EloDI':>6}  {'volatilidad':>11}  {'partidas':>8}\n")
    for place, (player, r) in enumerate(ordered, start=1):
        out.write(f"{place:>6}  {player:<{width}}  {round(r.rating):>6}  {round(r.volatility):>11}  {r.games:>8}\n")
