"""What the tournament pages share: the blueprint, and a tournament with its games as they stand."""

from __future__ import annotations

from dataclasses import dataclass, field

from flask import Blueprint, abort

from rules_core.classic import ClassicGame
from rules_core.duplicate import DuplicateGame

from ...records.tournaments import Tournament, TournamentError, tournaments_of
from ...services.shared import services
from ...services.store import GameRecord

bp = Blueprint("tournaments", __name__)


@dataclass(frozen=True)
class Shown:
    """A game of the tournament as its pages list it."""

    record: GameRecord
    ended: bool
    live: DuplicateGame | ClassicGame


@dataclass
class Loaded:
    """A tournament and its games, in its order (read them under ``services().games.lock``)."""

    tournament: Tournament
    games: list[Shown] = field(default_factory=list)

    @property
    def duplicate(self) -> list[tuple[str, DuplicateGame]]:
        return [(g.record.id, g.live) for g in self.games if isinstance(g.live, DuplicateGame)]

    @property
    def classic(self) -> list[ClassicGame]:
        return [g.live for g in self.games if isinstance(g.live, ClassicGame)]


def loaded(tournament_id: str) -> Loaded:
    """The tournament ``tournament_id`` with its games (404 when there is none)."""
    try:
        tournament = tournaments_of().get(tournament_id)
    except TournamentError:
        abort(404)
    found = Loaded(tournament)
    records = {g.id: g for g in services().games.store.games()}
    for game_id in tournament.games:
        record = records.get(game_id)
        if record is None:
            continue
        with services().games.reading(game_id) as game:
            assert isinstance(game, (DuplicateGame, ClassicGame))
            ended = bool(game.end_reason) if isinstance(game, DuplicateGame) else game.finished
            found.games.append(Shown(record, ended, game))
    return found
