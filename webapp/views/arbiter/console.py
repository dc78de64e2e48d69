"""The duplicate console's page and its live state: the rack drawn or entered (D.III.12,
D.III.19), the round's clock (D.III.13), who has not handed in, the game's history."""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime, timezone
from typing import Any

from flask import flash, jsonify, render_template, request
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.wrappers import Response

from rules_core.alphabet import split_letters
from rules_core.duplicate import NO_SLIP, DuplicateGame, Round, rack_labels
from rules_core.events import Event
from rules_core.racks import draw_rack

from ...records.history import history
from ...services.shared import services
from ..auth import login_required
from ..display import board_labels, clock_state, game_record, master_squares
from .classic import classic_context
from .common import VOID_REASONS, actor, append, back, bp, duplicate_of

TOP_SHOWN = 30


@bp.get("/g/<game_id>")
@login_required
def console(game_id: str) -> str:
    record = game_record(game_id)
    games = services().games
    with games.reading(game_id) as game:
        if isinstance(game, DuplicateGame):
            context = duplicate_context(game, request.args.get("ronda"))
            template = "arbiter/duplicate.html"
        else:
            context = classic_context(game)
            template = "arbiter/classic.html"
        version = len(game.events)
    return render_template(template, game=record, version=version, void_reasons=VOID_REASONS, **context)


def duplicate_context(game: DuplicateGame, wanted_round: str | None = None) -> dict[str, Any]:
    """What the duplicate console shows (read under the game's lock)."""
    current = game.current
    open_round = current if current and current.master is None else None
    shown = shown_round(game, wanted_round)
    return {
        "state": console_state(game, shown.number if shown else None),
        "players": sorted(game.players.values(), key=lambda p: p.table),
        "current": current,
        "open_round": open_round,
        # a rack may be replaced (D.III.19) until the clock starts or a slip is in
        "can_set_rack": not game.ended and (open_round is None or not (open_round.slips or open_round.timer)),
        "settings": game.settings,
        "board": board_labels(open_round.board if open_round else game.board),
        "rack": rack_labels(open_round.rack) if open_round else [],
        "last": [] if open_round else master_squares(_last_announced(game)),
        "top": _top_json(game, open_round) if open_round else [],
        "announced": [r for r in game.rounds if r.master is not None],
        "ended": game.end_reason,
    }


def _last_announced(game: DuplicateGame) -> Round | None:
    announced = [r for r in game.rounds if r.master is not None]
    return announced[-1] if announced else None


def shown_round(game: DuplicateGame, wanted: str | None) -> Round | None:
    """The round ``?ronda=`` asks for, else the current one."""
    if wanted and wanted.isdigit() and 1 <= int(wanted) <= len(game.rounds):
        return game.round(int(wanted))
    return game.current


def console_state(game: DuplicateGame, number: int | None) -> dict[str, Any]:
    """The console's live part for round ``number``: slips (with who entered each and when: ``at``, as
    ``slips.stored_json`` gives it, tells a console the slips it stored itself), missing tables, clock."""
    r = game.round(number) if number else None
    tables = {p.id: p for p in game.players.values()}
    slips: list[dict[str, Any]] = []
    if r is not None:
        entries = Counter(e.data.get("player") for e in r.history)
        last = {e.data.get("player"): e for e in r.history}  # who entered each stored slip, when
        for player_id, slip in r.slips.items():
            player = tables[player_id]
            result = r.results.get(player_id, NO_SLIP)
            entered = last[player_id]
            slips.append({"table": player.table, "name": player.name, "written": slip.notation or "",
                          "play": result.play or "", "score": result.score, "reason": result.reason,
                          "source": slip.source, "corrected": entries[player_id] > 1, "late": slip.late,
                          "blank": slip.blank_not_circled, "void": slip.void or "",
                          "by": entered.actor, "at": entered.at.isoformat()})  # fmt: skip
        slips.sort(key=lambda s: s["table"])
    missing = sorted(p.table for p in game.players.values() if r is not None and p.id not in r.slips)
    current = game.current
    return {
        "version": len(game.events),
        "round": r.number if r else 0,
        "current_round": current.number if current else 0,
        "phase": "fin" if game.ended else ("ronda" if current and current.master is None else "espera"),
        "master": r.master.notation if r and r.master else None,
        "clock": clock_state(game, datetime.now(timezone.utc)),
        "slips": slips,
        "missing": missing,
        "players": len(game.players),
    }


def _top_json(game: DuplicateGame, r: Round) -> list[dict[str, Any]]:
    found = Counter(res.play for res in r.results.values() if res.valid)
    return [{"play": p.notation, "score": p.score, "found": found.get(p.notation, 0)}
            for p in game.top_plays(r.number)[:TOP_SHOWN]]  # fmt: skip


@bp.get("/g/<game_id>/state")
@login_required
def state(game_id: str) -> Response:
    game = duplicate_of(game_id)
    with services().games.reading(game_id):
        shown = shown_round(game, request.args.get("ronda"))
        return jsonify(console_state(game, shown.number if shown else None))


# -- rack and clock ---------------------------------------------------------------------


@bp.post("/g/<game_id>/rack")
@login_required
def set_rack(game_id: str) -> Response:
    game = duplicate_of(game_id)
    with services().games.reading(game_id):
        event = _rack_event(game, request.form.get("action", "draw"), request.form.get("rack", ""))
    if event is not None:
        append(game_id, event)
    return back(game_id)


def _rack_event(game: DuplicateGame, action: str, text: str) -> Event | None:
    current = game.current
    number = current.number if current and current.master is None else len(game.rounds) + 1
    if action == "manual":
        labels = split_letters(text.replace(" ", "").replace(",", "").upper())
        return Event("rack_set", {"round": number, "rack": labels, "source": "manual"}, actor())
    leave = list(game.leave)
    bag = list((Counter(game.pool) - Counter(leave)).elements())
    draws = sum(1 for e in game.events if e.kind == "rack_set")
    seed = game.settings.seed
    rng: random.Random = random.Random(f"{seed}:{draws}") if seed is not None else random.SystemRandom()
    draw = draw_rack(leave, bag, number, rng)
    if draw is None:
        flash(_("No se puede formar ningún atril válido: la partida debe terminar (D.III.22)."), "error")
        return None
    data = {"round": number, "rack": rack_labels(draw.rack), "source": "sorteo", "redraws": draw.redraws}
    return Event("rack_set", data, actor())


@bp.post("/g/<game_id>/timer")
@login_required
def timer(game_id: str) -> Response:
    game = duplicate_of(game_id)
    action = request.form.get("action", "")
    with services().games.reading(game_id):
        number = game.current.number if game.current else 0
    append(game_id, Event("timer", {"round": number, "action": action}, actor()))
    return back(game_id)


# -- the history -------------------------------------------------------------------------


@bp.get("/g/<game_id>/log")
@login_required
def log(game_id: str) -> str:
    """The game's history in words and local times, filtered by round, table and kind; raw JSON on request."""
    record = game_record(game_id)
    with services().games.reading(game_id) as game:
        lines = history(game)  # type: ignore[arg-type]
    wanted = {k: request.args.get(k, "") for k in ("ronda", "mesa", "tipo")}
    shown = [line for line in lines
             if (not wanted["ronda"] or str(line.round) == wanted["ronda"])
             and (not wanted["mesa"] or str(line.table) == wanted["mesa"])
             and (not wanted["tipo"] or line.kind == wanted["tipo"])]  # fmt: skip
    kinds = sorted({line.kind for line in lines})
    return render_template("arbiter/log.html", game=record, lines=shown, total=len(lines), kinds=kinds,
                           wanted=wanted, raw=request.args.get("datos") == "1")  # fmt: skip
