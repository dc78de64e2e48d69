"""A duplicate game in round 1 for the load benchmarks (``bench_web``, ``bench_venue``).

Players ``j1``..``jN`` (named "Jugador N") sit at tables 1..N; the rack is drawn with
seed 1 and the round's clock started, so slips can be handed in at once.
"""

from __future__ import annotations

import random
from typing import Any

from rules_core.duplicate import DuplicateSettings, rack_labels
from rules_core.events import Event
from rules_core.movegen import generate_plays
from rules_core.racks import draw_rack


def duplicate_in_round_one(games: Any, name: str, players: int) -> tuple[str, list[str]]:
    """Create the game in ``games`` (a ``GameService``); its id and round 1's legal plays, best first."""
    game_id = games.create_duplicate(name, DuplicateSettings(seed=1))
    for table in range(1, players + 1):
        games.append(game_id, Event("player_added", {"player": f"j{table}", "name": f"Jugador {table}", "table": table}))
    draw = draw_rack([], games.duplicate(game_id).bag, 1, random.Random(1))
    assert draw is not None
    games.append(game_id, Event("rack_set", {"round": 1, "rack": rack_labels(draw.rack), "source": "sorteo"}))
    games.append(game_id, Event("timer", {"round": 1, "action": "start"}))
    game = games.duplicate(game_id)
    r = game.round(1)
    return game_id, [p.notation for p in generate_plays(r.board, r.rack, game.lexicon)]
