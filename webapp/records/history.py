"""A game's event log in Spanish words, with the venue's local times (the Historial page).

``describe(event, names)`` says what an event did as an arbiter would write it down:
"Papeleta de la mesa 3 (Ana): H8 CASA, 14 puntos, introducida por arbitro1". ``names``
maps a duplicate player's id to "mesa N (Nombre)", or a classic player's 0/1 to the name.
Scores of slips are the ones the game holds now (a later correction is its own line);
a slip that replaces another names the one it replaces, and a decision of the
scanned-slips panel says which (``REVIEW``). A classic table's clock
(``rules_core.classic_clock``) is told with its times: each press with the turn's time and
what is left, an arbiter's correction with the time before and after and its reason (C.36),
the end with each player's overtime taken off (C.35).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rules_core.classic import ClassicGame
from rules_core.clock import GameClock
from rules_core.duplicate import DuplicateGame
from rules_core.events import Event

from .timezone import local_text

KINDS = {  # the filter's names for event kinds
    "game_created": "partida", "player_added": "jugadores", "rack_set": "atriles", "timer": "reloj",
    "slip": "papeletas", "slip_corrected": "papeletas", "master_announced": "maestras",
    "master_annulled": "maestras", "game_ended": "partida", "play": "jugadas", "challenge": "jugadas",
    "exchange": "jugadas", "pass": "jugadas", "end": "partida", "time_penalty": "reloj", "lexicon_changed": "léxico",
    "clock_start": "reloj", "clock_press": "reloj", "clock_pause": "reloj", "clock_resume": "reloj", "clock_set": "reloj",
}  # fmt: skip
TIMER = {"start": "en marcha", "pause": "en pausa", "resume": "reanudado", "close": "cerrado (TIEMPO)"}
REVIEW = {"accept": "propuesta aceptada", "correct": "corregida", "void": "anulada"}  # the panel's decisions
# Games stored before the panel's decision had its own field said it in English in a reason
# ("revisión del árbitro (correct)"): shown in Spanish.
PANEL_ACTIONS = {"accept": "aceptada", "correct": "corregida", "void": "anulada"}
_PANEL_ACTION = re.compile(r"\((accept|correct|void)\)$")


@dataclass(frozen=True)
class Line:
    """One event as the history shows it."""

    number: int
    when: str
    kind: str  # the filter's name (``KINDS``)
    round: int | None
    table: int | None
    text: str
    actor: str
    raw: dict[str, Any]


def history(game: DuplicateGame | ClassicGame) -> list[Line]:
    """Every event of ``game`` in words, oldest first."""
    names, tables = _names(game)
    timed = _clock_words(game) if isinstance(game, ClassicGame) else {}
    lines = []
    written: dict[tuple[Any, Any], str] = {}  # (round, player) -> the slip's play as written, so far
    for number, event in enumerate(game.events, start=1):
        player = event.data.get("player")
        table = tables.get(str(player)) if player is not None else None
        number_of_round = event.data.get("round")
        text = describe(event, names, written.get((number_of_round, player)))
        if event.kind in ("slip", "slip_corrected"):
            written[(number_of_round, player)] = _written(event.data.get("slip") or {})
        lines.append(Line(number, local_text(event.at), KINDS.get(event.kind, event.kind),
                          number_of_round if isinstance(number_of_round, int) else None, table,
                          timed.get(number) or text, event.actor, event.to_json()))  # fmt: skip
    return lines


def describe(event: Event, names: Mapping[str, str], replaced: str | None = None) -> str:
    """What ``event`` did, in Spanish (see the module docstring); ``replaced``: the play as written of the
    slip a ``slip_corrected`` replaces."""
    data, by = event.data, f", por {event.actor}"
    who = names.get(str(data.get("player")), str(data.get("player", "")))
    kind = event.kind
    if kind == "slip" or kind == "slip_corrected":
        return _slip(event, who, replaced) + by
    if kind == "rack_set":
        source = "sorteado" if data.get("source") == "sorteo" else "fijado a mano"
        return f"Ronda {data.get('round')}: atril {' '.join(map(str, data.get('rack', [])))} ({source}){by}"
    if kind == "timer":
        return f"Ronda {data.get('round')}: reloj {TIMER.get(str(data.get('action')), data.get('action'))}{by}"
    if kind == "master_announced":
        play = data.get("play") or "la primera de máxima puntuación"
        return f"Ronda {data.get('round')}: jugada maestra publicada, {play}{by}"
    if kind == "master_annulled":
        return f"Ronda {data.get('round')}: jugada maestra anulada; motivo: {data.get('reason')}{by}"
    if kind == "player_added":
        return f"Jugador {data.get('name')} en la mesa {data.get('table')}{by}"
    if kind == "game_created":
        return f"Partida creada{_word_list(data, ', con el léxico ')}{by}"
    if kind == "lexicon_changed":
        return f"Léxico cambiado{_word_list(data, ' a ')}; motivo: {data.get('reason')}{by}"
    if kind in ("game_ended", "end"):
        return f"Partida terminada{': ' + str(data['reason']) if data.get('reason') else ''}{by}"
    return _classic(event, who) + by


def _written(slip: Mapping[str, Any]) -> str:
    return str(slip.get("notation") or "sin jugada")


def _word_list(data: Mapping[str, Any], before: str) -> str:
    """``before`` and the event's word list as "FILE2017 (48976d0b)", or nothing when it has none."""
    word_list = data.get("word_list")
    if not isinstance(word_list, Mapping):
        return ""
    return f"{before}{word_list.get('name')} ({str(word_list.get('sha256', ''))[:8]})"


def _slip(event: Event, who: str, replaced: str | None) -> str:
    data = event.data
    slip = data.get("slip") or {}
    facts = [f for f, on in (("fuera de tiempo", slip.get("late")), ("comodín sin marcar", slip.get("blank_not_circled")),
                               (f"nula: {slip.get('void')}", slip.get("void"))) if on]  # fmt: skip
    source = "escaneada" if slip.get("source") == "escáner" else "introducida"
    text = f"Ronda {data.get('round')}: papeleta de {who}: {_written(slip)}"
    if facts:
        text += f" ({'; '.join(facts)})"
    review = REVIEW.get(str(data.get("review")))
    if review:
        source += f" y revisada ({review})"
    if event.kind == "slip_corrected":
        instead = f" de {replaced}" if replaced else ""
        return f"{text}, {source}: sustituye a la papeleta anterior{instead}; motivo: {_reason(data.get('reason'))}"
    reason = f"; motivo: {_reason(data['reason'])}" if data.get("reason") else ""
    return f"{text}, {source}{reason}"


def _reason(reason: object) -> str:
    """A reason as stored, with a panel action named in Spanish ("revisión del árbitro (corregida)")."""
    return _PANEL_ACTION.sub(lambda found: f"({PANEL_ACTIONS[found.group(1)]})", str(reason))


def _classic(event: Event, who: str) -> str:
    data = event.data
    if event.kind == "play":
        return f"{who}: {data.get('notation')}" + (f" ({data['score']} puntos anotados)" if data.get("score") is not None else "")
    if event.kind == "exchange":
        return f"{who}: cambia {data.get('tiles') or data.get('count')} fichas"
    if event.kind == "pass":
        return f"{who}: pasa"
    if event.kind == "challenge":
        return f"Impugnación de la última jugada{' por ' + who if data.get('player') is not None else ''}"
    if event.kind == "time_penalty":
        return f"{who}: penalización por tiempo ({data.get('seconds_over') or data.get('minutes_over')})"
    return f"{event.kind}: {data}"


def _clock_words(game: ClassicGame) -> dict[int, str]:
    """The words of the clock's events and of the end of a game with a clock (by event number),
    the game replayed to read the clock after each."""
    if game.state.timer is None or not any(e.kind.startswith("clock_") for e in game.events):
        return {}
    names, out = game.players, {}
    replay = ClassicGame(game.lexicon)
    for number, event in enumerate(game.events, start=1):
        before = replay.state.timer
        replay.apply(event)
        after, by = replay.state.timer, f", por {event.actor}"
        if after is None or before is None:
            continue
        player = event.data.get("player")
        who = names[player] if player in (0, 1) else ""
        if event.kind == "clock_start":
            out[number] = f"Reloj en marcha ({after.settings.mode.replace('_', ' ')}): empieza el tiempo de {names[after.side or 0]}{by}"
        elif event.kind == "clock_press" and player in (0, 1):
            out[number] = _press_words(before, after, player, who, names) + by
        elif event.kind in ("clock_pause", "clock_resume"):
            out[number] = ("Reloj en pausa" if event.kind == "clock_pause" else "Reloj reanudado") + by
        elif event.kind == "clock_set" and player in (0, 1):
            was, now = (_clock_text(t.remaining(player, event.at).total_seconds()) for t in (before, after))
            out[number] = f"Reloj de {who} corregido por el árbitro: le quedan {now} (antes {was}); motivo: {event.data.get('reason', '')}{by}"
        elif event.kind == "end":
            out[number] = _end_words(replay) + by
    return out


def _press_words(before: GameClock, after: GameClock, player: int, who: str, names: tuple[str, str]) -> str:
    """A press: the turn's time (pauses left out) and, on a chess clock, the time left."""
    if before.counting == player:
        return f"{who} pone en marcha el reloj de {names[1 - player]}"
    pressed = after.since or before.since
    spent = _clock_text(before.turn_used_at(pressed).total_seconds()) if pressed else "?"
    if not after.settings.chess:
        return f"{who} pulsa el reloj: turno de {spent}"
    left = _clock_text(after.remaining(player, pressed).total_seconds()) if pressed else "?"
    counting = " (recuento, C.34.1)" if after.counting == player else ""
    return f"{who} pulsa el reloj{counting}: turno de {spent}; le quedan {left}"


def _end_words(game: ClassicGame) -> str:
    """The end, and the overtime the clock took off each player (C.35)."""
    why = "por tiempo (C.45.5)" if game.ending == "45.5" else f"(C.{game.ending})" if game.ending else ""
    words = [f"Partida terminada {why}".strip()]
    timer = game.state.timer
    stopped = timer.halted_at if timer is not None else None
    for adjustment in game.state.adjustments:
        if adjustment.kind == "time" and timer is not None and stopped is not None:
            over = _clock_text(timer.overtime(adjustment.player, stopped).total_seconds())
            name = game.players[adjustment.player]
            words.append(f"{name} pierde {-adjustment.points} puntos por exceder su tiempo en {over} (C.35)")
    return "; ".join(words)


def _clock_text(seconds: float) -> str:
    """m:ss, "-m:ss" when over."""
    whole = round(abs(seconds))
    return f"{'-' if seconds < 0 else ''}{whole // 60}:{whole % 60:02d}"


def _names(game: DuplicateGame | ClassicGame) -> tuple[dict[str, str], dict[str, int]]:
    """How to call each player in words, and each player's table (duplicate games)."""
    if isinstance(game, DuplicateGame):
        names = {p.id: f"la mesa {p.table} ({p.name})" for p in game.players.values()}
        return names, {p.id: p.table for p in game.players.values()}
    return {str(i): name for i, name in enumerate(game.players)}, {}
