"""A whole duplicate game played by simulated players, through the real event path.

Players have strengths (``maestro`` finds the master, ``fuerte`` one of the best
plays, ``medio`` a good one, ``débil`` any legal play) and make the slip mistakes of
D.III.25 now and then: late slips, illegible (void) slips, several plays written,
blanks not circled, words that do not exist. Everything is drawn from one seeded
generator, so a seed always gives the same game.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from rules_core.alphabet import LETTERS, is_blank, label, letter_of
from rules_core.duplicate import DuplicateGame, DuplicateSettings, Round, rack_labels
from rules_core.events import Event
from rules_core.movegen import ScoredPlay, generate_plays
from rules_core.racks import draw_rack
from rules_core.slips import Slip

STRENGTHS: Final = ("maestro", "fuerte", "medio", "débil")
NAMES: Final = (
    "Ana", "Bruno", "Carmen", "Diego", "Elena", "Fausto", "Gloria", "Hugo", "Inés", "Jorge",
    "Lucía", "Manuel", "Nuria", "Óscar", "Paula", "Ramón", "Sara", "Tomás", "Úrsula", "Víctor",
)  # fmt: skip


@dataclass(frozen=True)
class SimulatedPlayer:
    id: str
    name: str
    table: int
    strength: str
    mistake_rate: float  # chance per round of one slip mistake
    listed: Mapping[str, Any] = field(default_factory=dict)  # more of its ``player_added``: club, licence...


def strength_of(index: int) -> tuple[str, float]:
    """The ``index``-th simulated player's strength and mistake rate: strengths in turn, weaker players err more."""
    strength = STRENGTHS[index % len(STRENGTHS)]
    return strength, {"maestro": 0.02, "fuerte": 0.05, "medio": 0.08, "débil": 0.12}[strength]


def make_players(count: int) -> list[SimulatedPlayer]:
    """``count`` players cycling through the strengths; weaker players err more."""
    players = []
    for i in range(count):
        name = NAMES[i % len(NAMES)] + (f" {i // len(NAMES) + 1}" if i >= len(NAMES) else "")
        players.append(SimulatedPlayer(f"j{i + 1}", name, i + 1, *strength_of(i)))
    return players


def pick_play(strength: str, plays: list[ScoredPlay], master: ScoredPlay, rng: random.Random) -> ScoredPlay:
    """The play a player of this strength finds (``plays`` sorted best first)."""
    if strength == "maestro":
        return master
    if strength == "fuerte":
        return plays[rng.randrange(min(3, len(plays)))]
    if strength == "medio":
        return plays[rng.randrange(max(1, len(plays) // 7))]
    return plays[rng.randrange(len(plays))]


def write_slip(play: ScoredPlay, player: SimulatedPlayer, rng: random.Random) -> Slip:
    """The slip as the player hands it in, with a mistake now and then (D.III.25)."""
    if rng.random() >= player.mistake_rate:
        return Slip(play.notation)
    mistake = rng.choice(("late", "void", "several", "blank", "phony"))
    if mistake == "late":
        return Slip(play.notation, late=True)
    if mistake == "void":
        return Slip(play.notation, void="caligrafía ininteligible")
    if mistake == "several":
        return Slip(play.notation, other_notations=("H8 CASA",))
    if mistake == "blank" and any(is_blank(t) for t in play.word):
        return Slip(play.notation.upper())  # the blank's letter not circled
    return Slip(_phony(play, rng))


def _phony(play: ScoredPlay, rng: random.Random) -> str:
    """The play with its last letter changed: usually a word that does not exist."""
    word = list(play.word)
    last = word[-1]
    other = rng.choice([letter.tile for letter in LETTERS if letter.tile != letter_of(last)])
    word[-1] = other | (last & 0x80)
    coordinate = play.notation.split()[0]
    return f"{coordinate} {''.join(label(t) for t in word)}"


Append = Callable[[Event], None]


def simulate_duplicate(
    game: DuplicateGame,
    append: Append,
    players: list[SimulatedPlayer],
    settings: DuplicateSettings,
    seed: int,
    on_round: Callable[[Round], None] | None = None,
) -> None:
    """Play ``game`` (created, empty) to its end, sending every event through ``append``.

    ``append`` must apply the event to ``game`` (directly, or by storing it first).
    """
    rng = random.Random(seed)
    for player in players:
        append(Event("player_added", {**player.listed, "player": player.id, "name": player.name, "table": player.table}))
    while not game.ended:
        number = len(game.rounds) + 1
        draw = draw_rack(game.leave, game.bag, number, rng)
        if draw is None:
            append(Event("game_ended", {"reason": "no se puede formar ningún atril válido (D.III.22)"}))
            break
        append(Event("rack_set", {"round": number, "rack": rack_labels(draw.rack), "source": "sorteo",
                                  "redraws": draw.redraws}))  # fmt: skip
        top = game.top_plays(number)
        if not top:
            append(Event("game_ended", {"reason": "no hay ninguna jugada posible (D.III.22)"}))
            break
        r = game.round(number)
        plays = generate_plays(r.board, r.rack, r.lexicon)
        for player in players:
            slip = write_slip(pick_play(player.strength, plays, top[0], rng), player, rng)
            append(Event("slip", {"round": number, "player": player.id, "slip": slip.to_json()}, "teclado"))
        append(Event("master_announced", {"round": number, "play": top[0].notation}, "árbitro"))
        if on_round:
            on_round(r)

