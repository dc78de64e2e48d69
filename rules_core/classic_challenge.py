"""Challenges in a classic game (C.38-C.43): the last play judged, and withdrawn if invalid.

Only the last play can be challenged (C.39), and only by its author's opponent
(C.43). A play with a word not in the lexicon is ``INVALID``: its tiles go back to
the rack, its points are taken off and the turn is lost (C.39), which may undo an
ending or reach another (C.45). A ``VALID`` play stands, with no penalty for the
challenger (C.38-C.43).
"""

from __future__ import annotations

from dataclasses import replace

from .classic_ending import detect_ending
from .classic_events import Payload
from .classic_state import INVALID, VALID, GameState
from .events import GameError


def judge_challenge(state: GameState, payload: Payload) -> None:
    """The ``challenge`` event: the verdict on the last play (C.40), withdrawn if invalid."""
    if state.finished or not state.turns:
        raise GameError("no hay ninguna jugada que impugnar (C.39)")
    last = state.turns[-1]
    if last.action != "play" or last.verdict is not None:
        raise GameError("solo se impugna la última jugada, antes de anotarla (C.39)")
    challenger = payload.integer("player")
    if challenger is not None and challenger != 1 - last.player:
        author = state.players[last.player]
        raise GameError(f"solo el oponente de {author} puede impugnar (C.43)")
    if not last.invalid_words:
        state.turns[-1] = replace(last, verdict=VALID)  # no penalty in C.38-C.43
        return
    _withdraw_last_play(state)


def _withdraw_last_play(state: GameState) -> None:
    """C.39: the tiles back to the rack (and the draw to the bag), the points off, turn lost."""
    last = state.turns[-1]
    for row, col, _ in last.placed:
        state.board[row, col] = 0
    state.scores[last.player] -= last.points
    state.rack_counts[last.player] += len(last.placed) - last.drawn
    state.bag += last.drawn
    state.turns[-1] = replace(last, verdict=INVALID)
    state.ending = None
    detect_ending(state)
