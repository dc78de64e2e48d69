"""The arbiter console (``/arbiter``): run a duplicate game and the classic top tables.

Every action becomes one event through ``LiveGames.append`` (actor: the arbiter's
login), so the rules check it and the screens follow within a second. Duplicate:
create the game and its players, draw or enter the rack (D.III.12, D.III.19), run
the clock (D.III.13), enter slips by table with the score shown as one types
(D.III.20, D.III.25), see who has not handed in, publish the master chosen among
the top plays (D.III.15-17), correct a slip with a reason, annul a wrong master
(D.III.29), end the game (D.III.22). Classic: plays, challenges, passes, exchanges
and the end of the game (C.25-C.45). Both: another word list, with a reason. Every
view needs an arbiter session; every POST the CSRF token (``auth``).
"""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter
from datetime import datetime, timezone
from typing import Any, Final

from flask import Blueprint, abort, flash, g, jsonify, redirect, render_template, request, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.wrappers import Response

from rules_core.alphabet import split_letters
from rules_core.classic import ClassicGame
from rules_core.duplicate import NO_SLIP, NOTATIONS, DuplicateGame, DuplicateSettings, Round, rack_labels
from rules_core.events import Event, GameError
from rules_core.player_list import MAX_NAME, MAX_PLAYERS, ListedPlayer, PlayerListError, parse_player_list
from rules_core.racks import draw_rack
from rules_core.slips import Slip, SlipScore, score_slip

from ..records.history import history
from ..services.shared import scan_service, services
from .auth import login_required, wants_json
from .display import board_labels, clock_state, game_record, master_squares

bp = Blueprint("arbiter", __name__, url_prefix="/arbiter")

VOID_REASONS: Final = (
    "caligrafía ininteligible",
    "jugador no identificable",
    "posición no identificable",
    "coordenadas erróneas",
    "flecha ausente o errónea",
)  # D.III.20.4, D.III.25.c
TOP_SHOWN: Final = 30


def _actor() -> str:
    return str(g.arbiter)


def _append(game_id: str, event: Event) -> bool:
    """Append; a refusal by the rules is flashed. True when stored."""
    try:
        services().games.append(game_id, event)
    except GameError as error:
        flash(str(error), "error")
        return False
    return True


def _back(game_id: str) -> Response:
    return redirect(url_for("arbiter.console", game_id=game_id))


# -- games ---------------------------------------------------------------------------


@bp.get("/")
@login_required
def index() -> str:
    games = list(reversed(services().games.store.games()))
    scans = scan_service()
    pending = {g.id: scans.pending_count(g.id) for g in games if g.mode == "duplicate"}
    return render_template("arbiter/index.html", games=games, pending=pending, scanner_alerts=scans.problems())


@bp.post("/duplicate")
@login_required
def create_duplicate() -> Response | str:
    """A new duplicate game; with a player list, shown first as a preview (stored on ``confirm``)."""
    form = request.form
    name = form.get("name", "").strip()[:200] or _("Partida duplicada")
    try:
        settings = DuplicateSettings(
            rounds=_int(form.get("rounds")) or None,
            round_seconds=_int(form.get("round_seconds")) or 180,
            bonuses=form.get("bonuses") == "on",
            tie_breaks=form.get("tie_breaks") == "on",
            seed=_int(form.get("seed")),
            notations=("canonica", *(n for n in NOTATIONS[1:] if form.get(f"notation_{n}") == "on")),
        )
        players = parse_player_list(form.get("players", ""))
    except PlayerListError as error:
        return _players_preview([], error.problems, url_for("arbiter.create_duplicate"), name)
    except GameError as error:
        flash(str(error), "error")
        return redirect(url_for("arbiter.index"))
    if players and form.get("confirm") != list_token(form.get("players", "")):
        return _players_preview(players, [], url_for("arbiter.create_duplicate"), name)
    game_id = services().games.create_duplicate(name, settings, actor=_actor())
    added = sum(_append(game_id, _player_event(p)) for p in players)
    flash(_("Partida creada con %(n)s jugadores.", n=added), "ok")
    return _back(game_id)


def list_token(text: str) -> str:
    """What a preview's Save button sends back: the list it showed, hashed (an edited list is shown again)."""
    return hashlib.sha256(text.replace("\r\n", "\n").encode()).hexdigest()[:16]


def _players_preview(players: list[ListedPlayer], problems: list[str], action: str, title: str) -> str:
    """The pasted list as it will be stored, or its problems; the form again to store it."""
    fields = [(k, v) for k, v in request.form.items(multi=True) if k not in ("csrf_token", "confirm")]
    return render_template("arbiter/players_preview.html", players=players, problems=problems, action=action,
                           fields=fields, title=title, limits=(MAX_PLAYERS, MAX_NAME),
                           token=list_token(request.form.get("players", "")))  # fmt: skip


def _int(text: str | None) -> int | None:
    text = (text or "").strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise GameError(_("%(text)s no es un número", text=repr(text))) from None


def parse_players(text: str, first_table: int = 1) -> list[tuple[int, str]]:
    """(table, name) of each player of a pasted list (``rules_core.player_list``); GameError
    with every problem."""
    try:
        return [(p.table, p.name) for p in parse_player_list(text, first_table)]
    except PlayerListError as error:
        raise GameError(str(error)) from None


def _player_event(player: ListedPlayer) -> Event:
    data: dict[str, Any] = {"player": f"j{player.table}", "name": player.name, "table": player.table}
    data.update({k: v for k, v in (("club", player.club), ("federation_id", player.federation_id)) if v})
    return Event("player_added", data, str(g.arbiter))


@bp.post("/classic")
@login_required
def create_classic() -> Response:
    form = request.form
    players = [form.get("player1", "").strip()[:100], form.get("player2", "").strip()[:100]]
    title = form.get("title", "").strip()[:200] or f"{players[0]} – {players[1]}"
    try:
        first = ClassicGame.create_event(players, title=title, actor=_actor())
        game_id = services().games.create("classic", title, first)
    except GameError as error:
        flash(str(error), "error")
        return redirect(url_for("arbiter.index"))
    flash(_("Mesa clásica creada."), "ok")
    return _back(game_id)


# -- the console -----------------------------------------------------------------------


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


def _duplicate(game_id: str) -> DuplicateGame:
    game_record(game_id)
    with services().games.reading(game_id) as game:
        if not isinstance(game, DuplicateGame):
            abort(404)
        return game


def duplicate_context(game: DuplicateGame, wanted_round: str | None = None) -> dict[str, Any]:
    """What the duplicate console shows (read under the game's lock)."""
    current = game.current
    open_round = current if current and current.master is None else None
    shown = _shown_round(game, wanted_round)
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


def _shown_round(game: DuplicateGame, wanted: str | None) -> Round | None:
    if wanted and wanted.isdigit() and 1 <= int(wanted) <= len(game.rounds):
        return game.round(int(wanted))
    return game.current


def console_state(game: DuplicateGame, number: int | None) -> dict[str, Any]:
    """The console's live part for round ``number``: slips, missing tables, clock."""
    r = game.round(number) if number else None
    tables = {p.id: p for p in game.players.values()}
    slips: list[dict[str, Any]] = []
    if r is not None:
        for player_id, slip in r.slips.items():
            player = tables[player_id]
            result = r.results.get(player_id, NO_SLIP)
            corrected = sum(1 for e in r.history if e.data.get("player") == player_id) > 1
            slips.append({"table": player.table, "name": player.name, "written": slip.notation or "",
                          "play": result.play or "", "score": result.score, "reason": result.reason,
                          "source": slip.source, "corrected": corrected, "late": slip.late,
                          "blank": slip.blank_not_circled, "void": slip.void or ""})  # fmt: skip
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
    game_record(game_id)
    with services().games.reading(game_id) as game:
        if not isinstance(game, DuplicateGame):
            abort(404)
        shown = _shown_round(game, request.args.get("ronda"))
        return jsonify(console_state(game, shown.number if shown else None))


@bp.post("/g/<game_id>/players")
@login_required
def add_players(game_id: str) -> Response | str:
    """Players pasted into a game: a preview first, stored on ``confirm``."""
    game = _duplicate(game_id)
    with services().games.reading(game_id):
        taken = {p.table: p.name for p in game.players.values()}
    action = url_for("arbiter.add_players", game_id=game_id)
    try:
        players = parse_player_list(request.form.get("players", ""), max(taken, default=0) + 1, taken)
    except PlayerListError as error:
        return _players_preview([], error.problems, action, str(_("Añadir jugadores")))
    if request.form.get("confirm") != list_token(request.form.get("players", "")):
        return _players_preview(players, [], action, str(_("Añadir jugadores")))
    added = sum(_append(game_id, _player_event(p)) for p in players)
    flash(_("%(n)s jugadores añadidos.", n=added), "ok")
    return _back(game_id)


# -- rack and clock ---------------------------------------------------------------------


@bp.post("/g/<game_id>/rack")
@login_required
def set_rack(game_id: str) -> Response:
    game = _duplicate(game_id)
    with services().games.reading(game_id):
        event = _rack_event(game, request.form.get("action", "draw"), request.form.get("rack", ""))
    if event is not None:
        _append(game_id, event)
    return _back(game_id)


def _rack_event(game: DuplicateGame, action: str, text: str) -> Event | None:
    current = game.current
    number = current.number if current and current.master is None else len(game.rounds) + 1
    if action == "manual":
        labels = split_letters(text.replace(" ", "").replace(",", "").upper())
        return Event("rack_set", {"round": number, "rack": labels, "source": "manual"}, _actor())
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
    return Event("rack_set", data, _actor())


@bp.post("/g/<game_id>/timer")
@login_required
def timer(game_id: str) -> Response:
    game = _duplicate(game_id)
    action = request.form.get("action", "")
    with services().games.reading(game_id):
        number = game.current.number if game.current else 0
    _append(game_id, Event("timer", {"round": number, "action": action}, _actor()))
    return _back(game_id)


# -- slips --------------------------------------------------------------------------------


def slip_from_form(values: Any) -> Slip:
    """The slip the arbiter typed: the play (``-`` for none) and the facts noted."""
    notation = str(values.get("play", "")).strip()
    void = str(values.get("void", "")).strip()[:200] or None
    return Slip(
        None if notation in ("", "-") else notation[:60],
        late=values.get("late") in ("1", "on", "true"),
        blank_not_circled=values.get("blank") in ("1", "on", "true"),
        void=void,
        source="teclado",
    )


def _slip_target(game: DuplicateGame, values: Any) -> tuple[Round, str]:
    table = str(values.get("table", "")).strip()
    player = next((p for p in game.players.values() if str(p.table) == table), None)
    if player is None:
        raise GameError(_("no hay ningún jugador en la mesa %(t)s", t=repr(table)) if table else _("falta el número de mesa"))
    number = str(values.get("round", "")).strip()
    r = game.round(int(number)) if number.isdigit() else game.current
    if r is None:
        raise GameError(_("todavía no hay ninguna ronda"))
    return r, player.id


def _result_json(result: SlipScore) -> dict[str, Any]:
    return {"play": result.play, "score": result.score, "reason": result.reason, "valid": result.valid}


@bp.get("/g/<game_id>/check")
@login_required
def check(game_id: str) -> Response:
    """What the slip being typed would score, and whose it is: nothing is stored."""
    game = _duplicate(game_id)
    with services().games.reading(game_id):
        try:
            r, player_id = _slip_target(game, request.args)
        except (GameError, ValueError) as error:
            return jsonify({"error": str(error)})
        player = game.players[player_id]
        slip = slip_from_form(request.args)
        result = score_slip(r.board, r.rack, r.lexicon, slip) if slip.notation or slip.late or slip.void else None
        existing = r.results.get(player_id) if player_id in r.slips else None
        return jsonify({
            "round": r.number, "table": player.table, "name": player.name,
            "result": _result_json(result) if result else None,
            "existing": _result_json(existing) if existing else None,
            "closed": r.master is not None or game.ended,
            "confirm": _doubtful_notation(slip, result) if result else None,
        })  # fmt: skip


@bp.post("/g/<game_id>/slip")
@login_required
def enter_slip(game_id: str) -> Response | tuple[Response, int]:
    """Record a slip, or correct one already entered (a reason is then required).

    The same slip sent twice (Enter pressed twice) is stored once and answered with
    what was stored. A slip whose notation cannot be read, or written all in lowercase
    (every letter a blank), is stored only when sent again with ``confirm``; so is
    nothing else: a new slip for a closed round needs a reason, as a correction does.
    """
    game = _duplicate(game_id)
    values = request.form
    slip = slip_from_form(values)
    with services().games.reading(game_id):
        try:
            r, player_id = _slip_target(game, values)
        except (GameError, ValueError) as error:
            return _slip_reply(game_id, None, str(error))
        correcting = player_id in r.slips
        if correcting and r.slips[player_id] == slip:
            return _slip_reply(game_id, _stored_reply(game, r, player_id, corrected=False, repeated=True), None)
        warning = _doubtful_notation(slip, score_slip(r.board, r.rack, r.lexicon, slip))
    if warning and values.get("confirm") != "1":
        return _slip_reply(game_id, {"confirm": warning}, None)
    data: dict[str, Any] = {"round": r.number, "player": player_id, "slip": slip.to_json()}
    reason = values.get("reason", "").strip()[:300]
    if reason:
        data["reason"] = reason
    try:
        services().games.append(game_id, Event("slip_corrected" if correcting else "slip", data, _actor()))
    except GameError as error:
        return _slip_reply(game_id, None, str(error))
    with services().games.reading(game_id):
        return _slip_reply(game_id, _stored_reply(game, r, player_id, corrected=correcting), None)


def _stored_reply(game: DuplicateGame, r: Round, player_id: str, *, corrected: bool,
                  repeated: bool = False) -> dict[str, Any]:  # fmt: skip
    """What the console shows of the slip stored for ``player_id`` (read under the game's lock)."""
    player = game.players[player_id]
    return {"table": player.table, "name": player.name, "corrected": corrected, "repeated": repeated,
            "result": _result_json(r.results[player_id]), "state": console_state(game, r.number)}  # fmt: skip


def _doubtful_notation(slip: Slip, result: SlipScore) -> str | None:
    """Why a typed slip may be a typing slip (asked again before storing), or None."""
    if slip.notation is None or slip.late or slip.void:
        return None
    if result.reason.startswith("papeleta nula: notación incorrecta"):
        return str(_("«%(p)s» no se entiende como jugada y valdría 0: pulse Intro otra vez para anotarla así.",
                     p=slip.notation))  # fmt: skip
    letters = [ch for ch in slip.notation if ch.isalpha()]
    word = [ch for ch in letters[1:] if not ch.isdigit()]  # the coordinate's letter is not part of the word
    if word and all(ch.islower() for ch in word):
        return str(_("«%(p)s» está en minúsculas: todas sus fichas serían comodines. Pulse Intro otra vez "
                     "para anotarla así.", p=slip.notation))  # fmt: skip
    return None


def _slip_reply(game_id: str, reply: dict[str, Any] | None, error: str | None) -> Response | tuple[Response, int]:
    if wants_json():
        return (jsonify({"error": error}), 409) if error else jsonify(reply)
    if error:
        flash(error, "error")
    elif reply and "confirm" in reply:
        flash(reply["confirm"], "error")
    elif reply:
        flash(_("Mesa %(t)s: %(p)s, %(s)s puntos", t=reply["table"], p=reply["result"]["play"] or "-",
                s=reply["result"]["score"]), "ok")  # fmt: skip
    return _back(game_id)


# -- master, annulment, end ------------------------------------------------------------


@bp.post("/g/<game_id>/master")
@login_required
def master(game_id: str) -> Response:
    game = _duplicate(game_id)
    with services().games.reading(game_id):
        current = game.current
        number = current.number if current else 0
        early = _time_left(game)
    play = request.form.get("play", "").strip() or None
    if early and request.form.get("early") != "1":
        flash(_("Quedan %(t)s en el reloj de la ronda: confirme que publica la jugada maestra antes de tiempo.",
                t=early), "error")  # fmt: skip
        return _back(game_id)
    if _append(game_id, Event("master_announced", {"round": number, "play": play}, _actor())):
        with services().games.reading(game_id):
            r = game.round(number)
            if r.master:
                flash(_("Jugada maestra publicada: %(p)s, %(s)s puntos", p=r.master.notation, s=r.master.score), "ok")
    return _back(game_id)


def _time_left(game: DuplicateGame) -> str | None:
    """The round's time left as m:ss while its clock runs or is paused with time to go (D.III.13),
    else None (read under the game's lock)."""
    clock = clock_state(game, datetime.now(timezone.utc))
    if clock["state"] not in ("running", "paused") or clock["remaining"] <= 0:
        return None
    seconds = math.ceil(clock["remaining"])
    return f"{seconds // 60}:{seconds % 60:02d}"


@bp.post("/g/<game_id>/annul")
@login_required
def annul(game_id: str) -> Response:
    _duplicate(game_id)
    data = {"round": _int(request.form.get("round")) or 0, "reason": request.form.get("reason", "").strip()[:300]}
    _append(game_id, Event("master_annulled", data, _actor()))
    return _back(game_id)


@bp.post("/g/<game_id>/end")
@login_required
def end(game_id: str) -> Response:
    game_record(game_id)
    with services().games.reading(game_id) as game:
        is_duplicate = isinstance(game, DuplicateGame)
    reason = request.form.get("reason", "").strip()[:300]
    if is_duplicate:
        _append(game_id, Event("game_ended", {"reason": reason or None}, _actor()))
    else:
        racks = [request.form.get("rack1", "").strip() or None, request.form.get("rack2", "").strip() or None]
        _append(game_id, ClassicGame.end_event(racks, request.form.get("ending") or None, actor=_actor()))
    return _back(game_id)


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


@bp.post("/g/<game_id>/lexicon")
@login_required
def change_lexicon(game_id: str) -> Response:
    """Judge the game with another of the server's lists from now on: an arbiter's decision, with its reason."""
    game_record(game_id)
    try:
        ref = services().games.shelf.ref(request.form.get("sha256", ""))
        reason = request.form.get("reason", "").strip()[:300]
        services().games.append(game_id, Event("lexicon_changed", {"word_list": ref.to_json(), "reason": reason}, _actor()))
        flash(_("Léxico cambiado: %(name)s (%(hash)s).", name=ref.name, hash=ref.short), "ok")
    except GameError as error:
        flash(str(error), "error")
    return _back(game_id)


# -- classic tables ------------------------------------------------------------------------


def classic_context(game: Any) -> dict[str, Any]:
    """What the classic console shows (read under the game's lock)."""
    return {
        "classic": game,
        "board": board_labels(game.board),
        "sheet": game.scoresheet(),
        "scores": game.scores,
        "names": game.players,
    }


@bp.post("/g/<game_id>/turn")
@login_required
def turn(game_id: str) -> Response:
    game_record(game_id)
    with services().games.reading(game_id) as game:
        if not isinstance(game, ClassicGame):
            abort(404)
    try:
        event = classic_event(request.form, _actor())
    except (GameError, ValueError) as error:
        flash(str(error), "error")
        return _back(game_id)
    _append(game_id, event)
    return _back(game_id)


def classic_event(form: Any, actor: str) -> Event:
    """The classic turn typed in the console: play, pass, exchange, challenge, time penalty."""
    kind = form.get("kind", "")
    player = _int(form.get("player")) or 0
    rack = form.get("rack", "").strip().upper() or None
    if kind == "play":
        return ClassicGame.play_event(player, form.get("play", "").strip(), rack=rack,
                                      score=_int(form.get("score")), actor=actor)  # fmt: skip
    if kind == "pass":
        return ClassicGame.pass_event(player, actor=actor)
    if kind == "exchange":
        tiles = form.get("tiles", "").strip().upper() or None
        count = None if tiles else _int(form.get("count"))
        return ClassicGame.exchange_event(player, count, tiles=tiles, rack=rack, actor=actor)
    if kind == "challenge":
        return ClassicGame.challenge_event(player, actor=actor)
    if kind == "time":
        return ClassicGame.time_penalty_event(player, seconds_over=_int(form.get("seconds")), actor=actor)
    raise GameError(_("acción desconocida: %(kind)s", kind=repr(kind)))
