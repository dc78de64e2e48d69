"""A tournament's games made from its player list, the same way for the console and the command line.

* ``new_duplicate``: a duplicate game with every player of the list seated as the director chose
  (``tournament_players.seating``: the list's tables, or by the standing so far), added to the tournament;
* ``new_classic``: classic top tables, 1 against 2, 3 against 4... of the list's order or of the standing,
  each game titled "Mesa N" (so ``/display/mesa/N`` follows it) and carrying its players' ids
  (``tournament_players`` in its ``game_created``);
* ``standing``: the list's ids by the standing so far (``tournament_standings.standing_order``).
"""

from __future__ import annotations

from dataclasses import replace

from rules_core.classic import ClassicGame
from rules_core.duplicate import DuplicateGame, DuplicateSettings
from rules_core.events import GameError

from ..services.games import GameService
from .tournament_players import by_standing, classic_names, classic_pairs, player_events, seating
from .tournament_standings import standing_order
from .tournaments import Tournament, Tournaments


def standing(games: GameService, tournament: Tournament) -> list[str]:
    """The list's ids by the tournament's standing so far, the leader first (none yet: [])."""
    known = {record.id for record in games.store.games()}
    with games.lock:
        played = [games.open(game_id) for game_id in tournament.games if game_id in known]
        duplicate = [g for g in played if isinstance(g, DuplicateGame)]
        classic = [g for g in played if isinstance(g, ClassicGame)]
        return standing_order(tournament, duplicate, classic)


def new_duplicate(games: GameService, tournaments: Tournaments, tournament_id: str, name: str,
                  settings: DuplicateSettings, how: str, actor: str) -> str:  # fmt: skip
    """A duplicate game of the whole list, seated ``how`` (``mesas`` or ``clasificacion``); its id."""
    tournament = tournaments.get(tournament_id)
    if not tournament.players:
        raise GameError("el torneo no tiene lista de jugadores")
    seats = seating(tournament, how, standing(games, tournament) if how == "clasificacion" else ())
    game_id = games.create_duplicate(name, settings, actor=actor)
    for event in player_events(seats, actor):
        games.append(game_id, event)
    tournaments.add_game(tournament_id, game_id)
    return game_id


def new_classic(games: GameService, tournaments: Tournaments, tournament_id: str, tables: int, how: str,
                title: str, actor: str) -> list[str]:  # fmt: skip
    """``tables`` classic games of the list's first players in pairs, in list order (``mesas``) or by the
    standing (``clasificacion``); each titled "Mesa N · ``title``"; their ids."""
    tournament = tournaments.get(tournament_id)
    order = list(tournament.players) if how == "mesas" else by_standing(tournament, standing(games, tournament))
    pairs = classic_pairs(order, tables)
    if not pairs:
        raise GameError("hacen falta al menos dos jugadores en la lista del torneo")
    made = []
    for number, pair in enumerate(pairs, start=1):
        name = f"Mesa {number} · {title}" if title else f"Mesa {number}"
        created = ClassicGame.create_event(classic_names(pair), title=name, actor=actor)
        first = replace(created, data={**created.data, "tournament_players": [pair[0].id, pair[1].id]})
        game_id = games.create("classic", name, first)
        tournaments.add_game(tournament_id, game_id)
        made.append(game_id)
    return made
