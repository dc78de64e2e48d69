"""Writing a classic game as GCG: whole words, bracketed digraphs, totals, the end lines.

A turn is one line; a challenged play has a second one, ``--`` when it was withdrawn
(C.39) or ``(challenge)`` when it stood (C.40). Then come the racks counted at the
end (C.45), ``#note Final C.45.n`` and overtime (C.35). A game started from a CGP
position has no GCG form. The lines are listed in ``rules_core.gcg``.
"""

from __future__ import annotations

from .alphabet import word_bracketed
from .classic import ClassicGame
from .classic_state import GameState, Turn
from .gcg_coordinates import gcg_position
from .gcg_record import LETTER_DISTRIBUTION, GCGError


def to_gcg(game: ClassicGame) -> str:
    """The game as GCG text (UTF-8, whole words, bracketed digraphs); see the module docstring."""
    state = game.state
    if state.start_cgp is not None:
        raise GCGError("una partida que empieza en una posición CGP no se puede escribir en GCG")
    nicks = _export_nicknames(state)
    lines = ["#character-encoding UTF-8"]
    lines += [f"#player{i + 1} {nicks[i]} {state.players[i]}" for i in (0, 1)]
    lines += [f"#title {state.title}"] if state.title else []
    lines += [f"#lexicon {state.lexicon_name}"] if state.lexicon_name else []
    lines.append(f"#note LetterDistribution: {LETTER_DISTRIBUTION}")
    totals = [0, 0]
    for turn in state.turns:
        lines += _turn_lines(turn, nicks[turn.player], totals)
    for adjustment in state.adjustments:
        if adjustment.kind == "rack":
            totals[adjustment.player] += adjustment.points
            lines.append(_rack_line(state, adjustment.player, adjustment.points, nicks, totals))
    if state.finished:
        lines.append(f"#note Final C.{state.ending}")
    for adjustment in state.adjustments:
        if adjustment.kind == "time":
            totals[adjustment.player] += adjustment.points
            rack = (state.end_racks or ("", ""))[adjustment.player]
            lines.append(_line(nicks[adjustment.player], rack, "(time)", adjustment.points,
                               totals[adjustment.player]))
    return "\n".join(lines) + "\n"


def _export_nicknames(state: GameState) -> tuple[str, str]:
    nicks = state.nicknames or tuple("".join(name.split()) for name in state.players)
    if len(nicks) != 2 or nicks[0] == nicks[1]:
        raise GCGError("los dos jugadores necesitan apodos GCG distintos (sin espacios)")
    return nicks[0], nicks[1]


def _line(nick: str, rack: str | None, move: str, points: int, total: int, sign: str = "+") -> str:
    """``>NICK: RACK MOVE +points total``; ``sign`` is written before a zero (``+0``, ``-0``)."""
    amount = f"{points:+d}" if points else f"{sign}0"
    parts = [f">{nick}:"] + ([rack] if rack else []) + [move, amount, str(total)]
    return " ".join(parts)


def _turn_lines(turn: Turn, nick: str, totals: list[int]) -> list[str]:
    player = turn.player
    if turn.action != "play" or turn.play is None:
        move = "-" if turn.action == "pass" else f"-{turn.exchanged_tiles or turn.exchanged}"
        return [_line(nick, turn.rack, move, 0, totals[player])]
    play = turn.play
    totals[player] += turn.points
    lines = [_line(nick, turn.rack, f"{gcg_position(play)} {word_bracketed(play.word)}",
                   turn.points, totals[player])]
    if turn.withdrawn:
        totals[player] -= turn.points
        lines.append(_line(nick, turn.rack, "--", -turn.points, totals[player], "-"))
    elif turn.verdict is not None:
        lines.append(_line(nick, turn.rack, "(challenge)", 0, totals[player]))
    return lines


def _rack_line(
    state: GameState, player: int, points: int, nicks: tuple[str, str], totals: list[int]
) -> str:
    racks = state.end_racks or ("", "")
    if state.ending == "45.4" and not racks[player]:  # went out: the opponent's rack (C.45.4)
        return _line(nicks[player], None, f"({racks[1 - player]})", points, totals[player])
    rack = racks[player]
    return _line(nicks[player], rack, f"({rack})", points, totals[player], "-")
