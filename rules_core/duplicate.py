"""A duplicate game (D.I-D.III) as state rebuilt from events.

Each round every player sees the same board and rack and hands in a slip; the
master play (the highest score, D.III.15) then goes on the board for everyone
(D.I.1). ``DuplicateGame.apply`` checks an event against the state and applies it;
``replay`` rebuilds a game from its stored events. Event kinds and their data:

* ``game_created``: ``settings`` (``DuplicateSettings.to_json``), ``word_list`` (the
  lexicon the game is played with, ``LexiconRef.to_json``; absent in games stored before
  games recorded it: they are played with the lexicon given to ``replay``);
* ``player_added``: ``player`` (id), ``name``, ``table``;
* ``rack_set``: ``round``, ``rack`` (labels, ``?`` a blank), ``source``
  (``"sorteo"`` or ``"manual"``), ``redraws`` (D.III.19);
* ``timer``: ``round``, ``action`` (``start``, ``pause``, ``resume``, ``close``);
* ``slip``: ``round``, ``player``, ``slip`` (``Slip.to_json``);
* ``slip_corrected``: the same and a ``reason`` (the old slip stays in the history);
* ``master_announced``: ``round``, ``play`` (canonical notation; any play of the
  top score, the rules' choice by default); never replaced once announced (D.III.29);
* ``master_annulled``: ``round``, ``reason``: a wrong master found in the next round
  stays on the board and is annulled for the players who played it (D.III.29);
* ``game_ended``: ``reason`` (D.III.22);
* ``lexicon_changed``: ``word_list``, ``reason``: another lexicon from now on, an
  arbiter's decision. A round is judged whole with one lexicon: the one in force when its
  rack was set, or the new one if no slip of the round is in yet; rounds played keep theirs.

``replay`` is given the lexicon to start with and ``find``, which gives the lexicon a
``LexiconRef`` names (the caller's policy: files, a cache); without it, a game recorded
with another lexicon raises MissingLexicon.

Reasons an arbiter writes (an annulment's, a correction's, the end's) are the arbiter's:
the public reads the kind of the decision (``SlipScore.public_reason``,
``DuplicateGame.public_end_reason``), the console and the evidence file its words.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from .alphabet import BLANK, Tile, full_bag, is_blank, label, tile_from_label
from .board import Board
from .cgp import Position, rack_sort_key
from .events import MALFORMED, Event, GameError
from .lexicon import FindLexicon, Lexicon, LexiconRef, lexicon_for
from .master import top_plays
from .movegen import ScoredPlay, generate_plays
from .notation import NotationError, Play
from .racks import manual_rack_problem, rule_for, valid_rack_possible, vowels_and_consonants
from .slips import Slip, SlipScore, score_slip

MAX_BONUS: Final = 25  # D.III.24: bonuses should not exceed 25 points
NO_SLIP: Final = SlipScore(None, 0, "sin papeleta")
ANNULLED_MASTER: Final = "jugada maestra anulada"  # a slip's reason starts so when its play was the annulled master
ARBITER_END: Final = "decisión del Juez Árbitro (D.III.22)"
# D.III.20.1.a-d: canonical, oriented canonical, absolute board, relative board
NOTATIONS: Final = ("canonica", "orientada", "absoluta", "relativa")


@dataclass(frozen=True)
class DuplicateSettings:
    """How a duplicate game is played; announced before it starts (D.III.24, D.III.28)."""

    rounds: int | None = None  # None: to the end of the bag (D.III.21)
    round_seconds: int = 180  # D.III.13
    bonuses: bool = False  # D.III.24
    bonus_master: int = 10  # the only player who matched the master score
    bonus_best: int = 5  # the only best score when nobody matched it
    tie_breaks: bool = False  # D.III.28
    seed: int | None = None
    notations: tuple[str, ...] = ("canonica",)  # D.III.20.1: the notations the director allows (of NOTATIONS)

    def __post_init__(self) -> None:
        if self.rounds is not None and self.rounds < 1:
            raise GameError("el número de rondas debe ser al menos 1")
        if self.round_seconds < 10:
            raise GameError("una ronda dura al menos 10 segundos")
        if not (0 <= self.bonus_best <= MAX_BONUS and 0 <= self.bonus_master <= MAX_BONUS):
            raise GameError(f"las bonificaciones van de 0 a {MAX_BONUS} puntos (D.III.24)")
        unknown = [n for n in self.notations if n not in NOTATIONS]
        if unknown:
            raise GameError(f"notación desconocida: {', '.join(unknown)} (se admiten {', '.join(NOTATIONS)})")
        if "canonica" not in self.notations:
            raise GameError("la notación canónica se admite siempre (D.III.20.1)")

    def to_json(self) -> dict[str, Any]:
        return {**self.__dict__, "notations": list(self.notations)}

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> DuplicateSettings:
        known = {k: v for k, v in value.items() if k in cls.__dataclass_fields__}
        if "notations" in known:
            known["notations"] = tuple(known["notations"])
        return cls(**known)


@dataclass(frozen=True)
class Player:
    id: str
    name: str
    table: int


@dataclass
class Round:
    """One round: the position it started from, its rack, slips, results and master."""

    number: int
    board: Board  # the board at the start of the round
    rack: tuple[Tile, ...]
    lexicon: Lexicon = field(repr=False, compare=False)  # the round is judged with it
    source: str = "sorteo"
    redraws: int = 0
    slips: dict[str, Slip] = field(default_factory=dict)
    results: dict[str, SlipScore] = field(default_factory=dict)
    history: list[Event] = field(default_factory=list)  # slips and corrections, in order
    timer: list[tuple[str, datetime]] = field(default_factory=list)
    master: ScoredPlay | None = None
    annulled: str | None = None  # why the master was annulled (D.III.29)
    _top: list[ScoredPlay] | None = None

    @property
    def master_score(self) -> int:
        return self.master.score if self.master else 0

    def annulled_players(self) -> list[str]:
        """The players whose play was this round's annulled master: it scores 0 for them (D.III.29)."""
        return [p for p, result in self.results.items() if result.reason.startswith(ANNULLED_MASTER)]

    def cgp(self) -> str:
        """The round's position: board and rack at its start."""
        return Position(self.board, (self.rack, ())).cgp()

    def remaining_seconds(self, total: float, now: datetime) -> float:
        """Seconds left on the round's clock at ``now`` (D.III.13), pauses excluded."""
        elapsed = 0.0
        running_since: datetime | None = None
        for action, at in self.timer:
            if action in ("start", "resume") and running_since is None:
                running_since = at
            elif action in ("pause", "close") and running_since is not None:
                elapsed += (at - running_since).total_seconds()
                running_since = None
            if action == "close":
                return 0.0
        if running_since is not None:
            elapsed += (now - running_since).total_seconds()
        return max(0.0, total - elapsed)

    @property
    def timer_running(self) -> bool:
        """True between a start (or resume) and the next pause or close."""
        state = [action for action, _ in self.timer]
        return bool(state) and state[-1] in ("start", "resume")


@dataclass(frozen=True)
class Standing:
    """A player's line in the standings (D.III.23, D.III.24, D.III.28)."""

    player: str
    name: str
    total: int
    bonus: int
    rank: int
    masters_matched: int
    solo_tops: int
    max_deficit: int


class DuplicateGame:
    """The state of a duplicate game; change it only through ``apply``."""

    def __init__(self, lexicon: Lexicon, find: FindLexicon | None = None) -> None:
        self.lexicon = lexicon  # the lexicon in force (the open round's)
        self._find = find
        self.settings = DuplicateSettings()
        self.created = False
        self.players: dict[str, Player] = {}
        self.rounds: list[Round] = []
        self.board = Board()
        self.pool: list[Tile] = full_bag()  # every tile not on the board: bag and rack
        self.leave: tuple[Tile, ...] = ()
        self.end_reason: str | None = None
        self.ended_by_arbiter = False  # ``end_reason`` is then the arbiter's own words
        self.events: list[Event] = []

    @classmethod
    def replay(cls, events: Iterable[Event], lexicon: Lexicon, find: FindLexicon | None = None) -> DuplicateGame:
        game = cls(lexicon, find)
        for event in events:
            game.apply(event)
        return game

    # -- reading the state ---------------------------------------------------

    @property
    def ended(self) -> bool:
        return self.end_reason is not None

    @property
    def public_end_reason(self) -> str | None:
        """Why the game ended as the public reads it: the rules' words (D.III.22), or only that
        the arbiter decided it."""
        return ARBITER_END if self.ended_by_arbiter and self.end_reason else self.end_reason

    @property
    def current(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def bag(self) -> list[Tile]:
        """Tiles in the bag: the pool minus the current rack while its round is open."""
        current = self.current
        on_rack = current.rack if current and current.master is None else self.leave
        return _without(self.pool, on_rack)

    @property
    def master_total(self) -> int:
        return sum(r.master_score for r in self.rounds)

    def round(self, number: int) -> Round:
        if not 1 <= number <= len(self.rounds):
            raise GameError(f"la ronda {number} no existe")
        return self.rounds[number - 1]

    def top_plays(self, number: int) -> list[ScoredPlay]:
        """The plays of the round's top score, the rules' master first (D.III.15)."""
        r = self.round(number)
        if r._top is None:
            plays = generate_plays(r.board, r.rack, r.lexicon)
            r._top = top_plays(r.board, r.rack, plays)
        return r._top

    def bonuses(self, r: Round) -> dict[str, int]:
        """D.III.24: the only player matching the master, else the only best score."""
        if not self.settings.bonuses or r.master is None:
            return {}
        scores = {p: r.results.get(p, NO_SLIP).score for p in self.players}
        matched = [p for p, s in scores.items() if s == r.master_score]
        if len(matched) == 1:
            return {matched[0]: self.settings.bonus_master}
        if matched:
            return {}
        best = max(scores.values(), default=0)
        leaders = [p for p, s in scores.items() if s == best]
        if best > 0 and len(leaders) == 1:
            return {leaders[0]: self.settings.bonus_best}
        return {}

    def standings(self) -> list[Standing]:
        """Players by total (plays plus bonuses), tie-breaks of D.III.28 when set."""
        lines = [self._standing(p) for p in self.players.values()]

        def key(s: Standing) -> tuple[int, ...]:
            if self.settings.tie_breaks:
                return (-s.total, -s.masters_matched, -s.solo_tops, s.max_deficit)
            return (-s.total,)

        lines.sort(key=lambda s: (key(s), s.name))
        ranked: list[Standing] = []
        for i, line in enumerate(lines):
            rank = ranked[-1].rank if ranked and key(ranked[-1]) == key(line) else i + 1
            ranked.append(Standing(**{**line.__dict__, "rank": rank}))
        return ranked

    def _standing(self, player: Player) -> Standing:
        played = [r for r in self.rounds if r.master is not None]
        scores = [r.results.get(player.id, NO_SLIP).score for r in played]
        bonus = sum(self.bonuses(r).get(player.id, 0) for r in played)
        matched = sum(1 for r, s in zip(played, scores) if r.master_score and s == r.master_score)
        solo = sum(1 for r, s in zip(played, scores) if s > 0 and self._solo_top(r, player.id, s))
        deficit = max((r.master_score - s for r, s in zip(played, scores)), default=0)
        return Standing(player.id, player.name, sum(scores) + bonus, bonus, 0, matched, solo, deficit)

    def _solo_top(self, r: Round, player: str, score: int) -> bool:
        others = [r.results.get(p, NO_SLIP).score for p in self.players if p != player]
        return all(o < score for o in others)

    def summary(self) -> dict[str, Any]:
        """A JSON snapshot of where the game stands (stored beside its events)."""
        current = self.current
        return {
            "round": current.number if current else 0,
            "round_open": bool(current and current.master is None),
            "master_total": self.master_total,
            "ended": self.public_end_reason,  # listed publicly (``/api/games``)
            "players": len(self.players),
            "bag": len(self.bag),
            "standings": [[s.player, s.total, s.rank] for s in self.standings()],
        }

    # -- changing the state ----------------------------------------------------

    def apply(self, event: Event) -> None:
        """Check ``event`` against the state and apply it; GameError leaves the state unchanged."""
        handler = _HANDLERS.get(event.kind)
        if handler is None:
            raise GameError(f"tipo de evento desconocido: {event.kind!r}")
        if not self.created and event.kind != "game_created":
            raise GameError("la partida no se ha creado")
        if self.ended and event.kind not in ("slip", "slip_corrected", "master_annulled"):
            raise GameError(f"la partida ha terminado: {self.end_reason}")
        try:
            handler(self, event)
        except MALFORMED as error:
            if isinstance(error, GameError):
                raise
            raise GameError(f"evento {event.kind} mal formado: {error!r}") from None
        self.events.append(event)

    def _on_game_created(self, event: Event) -> None:
        if self.created:
            raise GameError("la partida ya está creada")
        settings = DuplicateSettings.from_json(dict(event.data.get("settings", {})))
        if event.data.get("word_list") is not None:
            self.lexicon = lexicon_for(LexiconRef.from_json(event.data["word_list"]), self.lexicon, self._find)
        self.settings = settings
        self.created = True

    def _on_player_added(self, event: Event) -> None:
        player = Player(str(event.data["player"]), str(event.data["name"]).strip(), int(event.data["table"]))
        if not player.name:
            raise GameError("el jugador necesita un nombre")
        seated = next((p for p in self.players.values() if p.table == player.table), None)
        if seated is not None:
            raise GameError(f"la mesa {player.table} ya está asignada: {seated.name} y {player.name}")
        if player.id in self.players:
            raise GameError(f"ya hay un jugador con el identificador {player.id!r} ({self.players[player.id].name})")
        self.players[player.id] = player

    def _on_rack_set(self, event: Event) -> None:
        number = int(event.data["round"])
        rack = tuple(tile_from_label(t) for t in event.data["rack"])
        current = self.current
        replacing = current is not None and current.master is None
        if current and replacing:
            if number != current.number:
                raise GameError(f"la ronda {current.number} aún no tiene jugada maestra")
            if current.slips:
                raise GameError(f"la ronda {number} ya tiene papeletas: su atril no puede cambiar")
        elif number != len(self.rounds) + 1:
            raise GameError(f"la siguiente ronda es la {len(self.rounds) + 1}, no la {number}")
        if self.settings.rounds is not None and number > self.settings.rounds:
            raise GameError(f"la partida tiene {self.settings.rounds} rondas")
        bag = _without(self.pool, self.leave)
        problem = manual_rack_problem(rack, self.leave, bag, number)
        if problem:
            raise GameError(f"atril {_rack_text(rack)} no válido: {problem}")
        new = Round(number, self.board.copy(), rack, self.lexicon, str(event.data.get("source", "manual")),
                    int(event.data.get("redraws", 0)))  # fmt: skip
        if replacing:
            self.rounds.pop()
        self.rounds.append(new)

    def _on_timer(self, event: Event) -> None:
        r = self._open_round(int(event.data["round"]))
        action = str(event.data["action"])
        if action not in ("start", "pause", "resume", "close"):
            raise GameError(f"acción de reloj desconocida: {action!r}")
        r.timer.append((action, event.at))

    def _on_slip(self, event: Event) -> None:
        r, player = self._slip_target(event)
        if player in r.slips:
            raise GameError(
                f"{self.players[player].name} ya entregó papeleta en la ronda {r.number}; "
                "corríjala indicando el motivo"
            )
        closed = r.master is not None or self.ended
        if closed and not str(event.data.get("reason", "")).strip():
            # Slips are collected at "TIEMPO", before the master (D.III.13, D.III.25.b): one
            # that comes after is an arbiter's decision, recorded with its reason.
            raise GameError(f"la ronda {r.number} está cerrada: una papeleta nueva necesita un motivo")
        self._record_slip(r, player, event)

    def _on_slip_corrected(self, event: Event) -> None:
        r, player = self._slip_target(event)
        if not str(event.data.get("reason", "")).strip():
            raise GameError("una corrección necesita un motivo")
        self._record_slip(r, player, event)

    def _slip_target(self, event: Event) -> tuple[Round, str]:
        r = self.round(int(event.data["round"]))
        player = str(event.data["player"])
        if player not in self.players:
            raise GameError(f"jugador desconocido: {player!r}")
        return r, player

    def _record_slip(self, r: Round, player: str, event: Event) -> None:
        """Read and score the slip first; only a slip that scores is recorded."""
        slip = Slip.from_json(dict(event.data["slip"]))
        result = self._score(r, player, slip)
        r.slips[player] = slip
        r.results[player] = result
        r.history.append(event)

    def _score(self, r: Round, player: str, slip: Slip) -> SlipScore:
        result = score_slip(r.board, r.rack, r.lexicon, slip)
        if r.annulled and r.master and result.valid and result.play and _same_placement(r, result.play):
            return SlipScore(result.play, 0, f"{ANNULLED_MASTER}: {r.annulled} (D.III.29)",
                             public=f"{ANNULLED_MASTER} (D.III.29)")  # fmt: skip
        return result

    def _on_master_announced(self, event: Event) -> None:
        r = self._open_round(int(event.data["round"]))
        top = self.top_plays(r.number)
        if not top:
            raise GameError(f"la ronda {r.number} no tiene ninguna jugada posible")
        chosen = self._find_top(top, str(event.data.get("play") or top[0].notation))
        placed = [(sq, tile) for sq, tile in zip(chosen.play.squares(), chosen.word) if not self.board[sq]]
        used = [BLANK if is_blank(tile) else tile for _, tile in placed]
        pool, leave = _without(self.pool, used), tuple(_without(r.rack, used))
        r.master = chosen
        for square, tile in placed:
            self.board[square] = tile
        self.pool, self.leave = pool, leave
        self.end_reason = self._natural_end(r.number)

    def _find_top(self, top: list[ScoredPlay], notation: str) -> ScoredPlay:
        try:
            wanted = Play.from_notation(notation)
        except NotationError as error:
            raise GameError(str(error)) from None
        for play in top:
            if play.play == wanted or play.notation == wanted.notation():
                return play
        raise GameError(
            f"{notation} no es una jugada de máxima puntuación ({top[0].score} puntos) de esta ronda"
        )

    def _natural_end(self, number: int) -> str | None:
        """D.III.22: the agreed rounds played, or vowels or consonants used up, or no valid rack."""
        if self.settings.rounds is not None and number >= self.settings.rounds:
            if self.settings.rounds == 1:
                return "se ha jugado la única ronda pactada (D.III.22)"
            return f"se han jugado las {self.settings.rounds} rondas pactadas (D.III.22)"
        vowels, consonants = vowels_and_consonants(self.pool)
        if vowels == 0:
            return "se han utilizado todas las vocales (D.III.22)"
        if consonants == 0:
            return "se han utilizado todas las consonantes (D.III.22)"
        if not valid_rack_possible(self.pool, rule_for(number + 1, self.pool)):
            return "no se puede formar ningún atril válido (D.III.12, D.III.22)"
        return None

    def _on_master_annulled(self, event: Event) -> None:
        reason = str(event.data.get("reason", "")).strip()
        r = self._annullable(int(event.data["round"]), reason)
        r.results = self._annulled_results(r, reason)
        r.annulled = reason

    def _annullable(self, number: int, reason: str) -> Round:
        """Round ``number`` when its master may be annulled with ``reason`` (D.III.29), else GameError."""
        r = self.round(number)
        announced = [x for x in self.rounds if x.master is not None]
        if r.master is None or r is not announced[-1]:
            raise GameError("solo se anula la última jugada maestra anunciada, en la ronda siguiente (D.III.29)")
        if not reason:
            raise GameError("la anulación necesita un motivo")
        return r

    def _annulled_results(self, r: Round, reason: str) -> dict[str, SlipScore]:
        """The round's results with its master annulled: the players who played it score 0 (D.III.29)."""
        previous, r.annulled = r.annulled, reason
        try:
            return {**r.results, **{player: self._score(r, player, slip) for player, slip in r.slips.items()}}
        finally:
            r.annulled = previous

    def annulment_changes(self, number: int, reason: str) -> dict[str, tuple[int, int]]:
        """What annulling round ``number``'s master would change (D.III.29): each player whose total
        changes (bonuses of D.III.24 included), with the total before and after. Nothing is changed."""
        reason = reason.strip()
        r = self._annullable(number, reason)
        before = {s.player: s.total for s in self.standings()}
        kept = r.annulled, r.results
        r.results, r.annulled = self._annulled_results(r, reason), reason
        try:
            after = {s.player: s.total for s in self.standings()}
        finally:
            r.annulled, r.results = kept
        return {p: (before[p], after[p]) for p in before if before[p] != after[p]}

    def _on_game_ended(self, event: Event) -> None:
        given = str(event.data.get("reason") or "").strip()
        self.end_reason, self.ended_by_arbiter = given or ARBITER_END, bool(given)

    def _on_lexicon_changed(self, event: Event) -> None:
        if not str(event.data.get("reason", "")).strip():
            raise GameError("un cambio de léxico necesita un motivo")
        ref = LexiconRef.from_json(event.data.get("word_list"))
        if ref.sha256 == self.lexicon.sha256:
            raise GameError(f"la partida ya se juega con el léxico {ref.name} ({ref.short})")
        current = self.current
        open_round = current if current is not None and current.master is None else None
        if open_round is not None and open_round.slips:
            raise GameError(
                f"la ronda {open_round.number} ya tiene papeletas y se juzga entera con un léxico: "
                "cambie el léxico cuando se publique su jugada maestra"
            )
        self.lexicon = lexicon_for(ref, self.lexicon, self._find)
        if open_round is not None:
            open_round.lexicon, open_round._top = self.lexicon, None

    def _open_round(self, number: int) -> Round:
        r = self.current
        if r is None or r.number != number or r.master is not None:
            raise GameError(f"la ronda {number} no está en juego")
        return r


_HANDLERS: Final = {
    "game_created": DuplicateGame._on_game_created,
    "player_added": DuplicateGame._on_player_added,
    "rack_set": DuplicateGame._on_rack_set,
    "timer": DuplicateGame._on_timer,
    "slip": DuplicateGame._on_slip,
    "slip_corrected": DuplicateGame._on_slip_corrected,
    "master_announced": DuplicateGame._on_master_announced,
    "master_annulled": DuplicateGame._on_master_annulled,
    "game_ended": DuplicateGame._on_game_ended,
    "lexicon_changed": DuplicateGame._on_lexicon_changed,
}


def _without(tiles: Iterable[Tile], taken: Iterable[Tile]) -> list[Tile]:
    """``tiles`` minus ``taken`` (with multiplicity; every taken tile must be there)."""
    rest = list(tiles)
    for tile in taken:
        rest.remove(tile)
    return rest


def _same_placement(r: Round, notation: str) -> bool:
    """Whether the play ``notation`` lays the tiles of round ``r``'s master on the same squares (a
    one-tile play has two notations: either is the master's, D.III.29)."""
    assert r.master is not None
    try:
        play = Play.from_notation(notation)
    except NotationError:
        return False
    return _placement(r.board, play) == _placement(r.board, r.master.play)


def _placement(board: Board, play: Play) -> set[tuple[tuple[int, int], Tile]]:
    return {(square, tile) for square, tile in zip(play.squares(), play.word) if not board[square]}


def _rack_text(rack: Iterable[Tile]) -> str:
    return "".join(label(t) for t in sorted(rack, key=rack_sort_key))


def rack_labels(rack: Iterable[Tile]) -> list[str]:
    """A rack as the labels ``rack_set`` takes (``?`` a blank), in rack order."""
    return [label(t) for t in sorted(rack, key=rack_sort_key)]
