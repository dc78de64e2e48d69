"""The end of a classic game (C.45): the ending reached, the racks counted, overtime (C.35).

After each turn ``detect_ending`` notes the ending reached, if any: a player out
with the bag empty (C.45.4), four passes in a row (C.45.2), twelve scoreless turns
(C.45.3). The ``end`` event (``end_game``) then counts the racks left; the arbiter
may also end a game where no one can play (C.45.1, checked against every legal
play) or the total time is up (C.45.5, with equal turns, C.30). Once the game has
ended, ``time_penalty`` takes 10 points per minute or fraction over the clock (C.35),
for a player whose overtime the table's clock (``classic_clock``) did not take already.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from .alphabet import Tile
from .classic_events import Payload
from .classic_racks import check_supply, parse_rack, rack_text, rack_value
from .classic_state import Adjustment, GameState, Turn
from .clock import OVERTIME_POINTS_PER_MINUTE, overtime_penalty
from .events import GameError
from .lexicon import Lexicon
from .movegen import generate_plays

PASSES_TO_END: Final = 4  # C.45.2: both players pass twice in a row
SCORELESS_TURNS_TO_END: Final = 12  # C.45.3: six turns each
ENDINGS: Final = ("45.1", "45.2", "45.3", "45.4", "45.5")


def _trailing(turns: Sequence[Turn], test: Callable[[Turn], bool]) -> int:
    count = 0
    for turn in reversed(turns):
        if not test(turn):
            break
        count += 1
    return count


def detect_ending(state: GameState) -> None:
    """Set ``ending`` when C.45.4, C.45.2 or C.45.3 is reached by the last turn."""
    turns = state.turns
    last = turns[-1]
    if last.action == "play" and not last.withdrawn:
        if state.rack_counts[last.player] == 0 and state.bag == 0:
            state.ending = "45.4"
        return
    if _trailing(turns, lambda t: t.counts_as_pass) >= PASSES_TO_END:
        state.ending = "45.2"
        return
    scoreless = _trailing(turns, lambda t: t.scoreless)
    if scoreless == len(turns):
        scoreless += state.start_scoreless
    if scoreless >= SCORELESS_TURNS_TO_END and state.scores != [0, 0]:  # not at 0-0 (C.45.3)
        state.ending = "45.3"


def end_game(state: GameState, payload: Payload, lexicon: Lexicon) -> None:
    """The ``end`` event: the C.45 case and the racks left, counted; the game is finished."""
    if state.finished:
        raise GameError("la partida ya ha terminado")
    reason = _end_reason(state, payload.text("reason"))
    racks = payload.pair("racks") or (None, None)
    if reason == "45.5":
        _check_equal_turns(state)  # C.30; the racks are not counted (C.45.5)
    elif reason == "45.4":
        _adjust_out(state, racks)
    else:
        _subtract_racks(state, racks, reason, lexicon)
    state.ending = reason
    state.finished = True


def time_penalty(state: GameState, payload: Payload) -> None:
    """The ``time_penalty`` event: overtime points off one player's final score (C.35)."""
    if not state.finished:
        raise GameError("el tiempo excedido se resta de la puntuación final (C.35)")
    player = payload.player()
    if any(a.kind == "time" and a.player == player for a in state.adjustments):
        name = state.players[player]
        raise GameError(f"ya se ha restado el tiempo excedido de {name} (C.35)")
    seconds, points = payload.integer("seconds_over"), payload.integer("points")
    if seconds is not None and points is None:
        points = overtime_penalty(seconds)
    elif points is None or seconds is not None:
        raise GameError("indique los segundos de más o los puntos, una sola cosa (C.35)")
    if points <= 0 or points % OVERTIME_POINTS_PER_MINUTE:
        raise GameError(f"{points} puntos: son 10 por minuto o fracción excedidos (C.35)")
    state.adjustments.append(Adjustment(player, "time", -points))
    state.scores[player] -= points


def _end_reason(state: GameState, reason: str | None) -> str:
    if reason is not None and reason not in ENDINGS:
        raise GameError(f"motivo de final {reason!r}: uno de {', '.join(ENDINGS)} (C.45)")
    if state.ending and reason not in (None, state.ending):
        raise GameError(f"la partida ha terminado por C.{state.ending}, no por C.{reason}")
    if reason is None and state.ending is None:
        raise GameError(
            "la partida no ha llegado a C.45.2-C.45.4: indique el motivo (C.45.1 o C.45.5)"
        )
    if reason in ("45.2", "45.3", "45.4") and state.ending is None:
        raise GameError(f"no se da C.{reason} en esta partida")
    return reason or str(state.ending)


def _check_equal_turns(state: GameState) -> None:
    """C.30: when the total time runs out, both players have had the same number of turns."""
    counts = [sum(1 for t in state.turns if t.player == p) for p in (0, 1)]
    if counts[0] != counts[1]:
        behind = 0 if counts[0] < counts[1] else 1
        raise GameError(
            f"{state.players[behind]} debe jugar su turno para igualar los turnos "
            "antes de cerrar la partida por tiempo (C.30)"
        )


def _final_rack(state: GameState, player: int, text: str | None) -> tuple[Tile, ...]:
    if text is None:
        raise GameError(f"falta el atril final de {state.players[player]} (C.45)")
    rack = parse_rack(text)
    if len(rack) != state.rack_counts[player]:
        raise GameError(
            f"{state.players[player]} tiene {state.rack_counts[player]} fichas y se anotan "
            f"{len(rack)}: {text!r}"
        )
    return rack


def _adjust_out(state: GameState, racks: tuple[str | None, str | None]) -> None:
    """C.45.4: the opponent's rack value is subtracted from them and added to the player out."""
    out = state.turns[-1].player
    other = 1 - out
    if racks[out]:
        raise GameError(f"{state.players[out]} se ha quedado sin fichas (C.45.4)")
    rack = _final_rack(state, other, racks[other])
    check_supply([t for _, t in state.board.occupied()] + list(rack))
    value, text = rack_value(rack), rack_text(rack)
    state.adjustments.append(Adjustment(out, "rack", value, text))
    state.adjustments.append(Adjustment(other, "rack", -value, text))
    state.scores[out] += value
    state.scores[other] -= value
    state.end_racks = ("", text) if out == 0 else (text, "")


def _subtract_racks(
    state: GameState, racks: tuple[str | None, str | None], reason: str, lexicon: Lexicon
) -> None:
    """C.45.1-C.45.3: each player loses the value of their own rack."""
    tiles = (_final_rack(state, 0, racks[0]), _final_rack(state, 1, racks[1]))
    check_supply([t for _, t in state.board.occupied()] + list(tiles[0] + tiles[1]))
    if reason == "45.1":
        _check_nobody_can_play(state, tiles, lexicon)
    for player in (0, 1):
        value, text = rack_value(tiles[player]), rack_text(tiles[player])
        state.adjustments.append(Adjustment(player, "rack", -value, text))
        state.scores[player] -= value
    state.end_racks = (rack_text(tiles[0]), rack_text(tiles[1]))


def _check_nobody_can_play(
    state: GameState, racks: tuple[tuple[Tile, ...], ...], lexicon: Lexicon
) -> None:
    """C.45.1 holds only when neither rack has a legal placement on the board."""
    for player, rack in enumerate(racks):
        plays = generate_plays(state.board, rack, lexicon) if rack else []
        if plays:
            raise GameError(
                f"{state.players[player]} todavía puede jugar {plays[0].notation} "
                f"({plays[0].score} puntos): no se da C.45.1"
            )
