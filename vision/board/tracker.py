"""Following one camera's board through a game: plays committed only when sure.

``BoardTracker.feed(frame)`` takes frames in time order and returns the
``Report``s they cause. Per frame:

1. *Motion gate*: a frame that differs from the previous one (hands moving) is not read.
2. *Geometry*: the homography is kept and re-fitted (``find.refine_board``) after
   motion stops and every few seconds; when the grid cannot be followed on still,
   uncovered frames, the board is searched again from scratch (camera bumped). A still
   view searched in vain is searched again only once it moves (a board laid on the
   table, the light switched on) or ``research_seconds`` later.
3. *Reading*: every cell is classified; a frame with a covered cell (``#``) is not used.
   Row A is the camera's calibrated turn, else inferred from the upright letters
   (``orientation``), else, for a first play too short for that, the one turn under
   which the tiles read surely as a legal play (``_turn_of_first_play``).
4. *Voting*: a board state is accepted when ``stable_frames`` consecutive still
   readings agree on every cell, over at least ``stable_seconds``.
5. *Difference* with the committed reading gives the new tiles. Only new tiles, read
   confidently, with Spanish letters, that ``validation.play_from_placement`` puts in
   one line and ``check_play`` finds legal (every word in the lexicon) become a
   ``play``. A blank (``?``) takes the only letter that makes the play legal
   (``blanks``), else the arbiter is asked. The tiles of the last play lifted is
   ``withdrawn`` (a successful challenge, C.39); anything else (a tile nudged, a
   reading that makes no legal play) is a ``doubt`` with the frame, never a play. A doubt
   for tiles read unsurely proposes the likeliest legal play among their look-alikes
   (``unsure_play``), for the arbiter to confirm or correct.

The tracker keeps two boards: ``readings`` (the labels the camera sees for the
committed position, blanks as ``?``) to compare frames with, and ``board`` (the
rules-core position: blanks with their letters, arbiter corrections applied).
The game is the source of truth: ``sync(board, last)`` makes the game's board the
committed one (after the arbiter confirms or corrects, or a play is entered by hand).
With the table's clock in play (``hold``) a new placement waits for the player's press
(``press``): the first still reading at or after it is judged, so a play is never
committed half laid; lifted or moved tiles are judged at once, as without a clock.
Reports carry a Spanish ``message`` for the arbiter.

``Report`` and ``TrackerStatus`` (what the tracker tells) live in ``reports``, the
label grids it compares in ``label_grids``; this module is the tracker itself.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np
from numpy.typing import NDArray

from rules_core.alphabet import Tile, label
from rules_core.board import SIZE, Board, Square, square_name
from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from rules_core.notation import Play
from rules_core.validation import PlacementError, check_play, play_from_placement
from vision.frames import Frame

from .blanks import blank_letters
from .cells import board_crops, small_squares_warning
from .classify import CellClassifier, default_classifier
from .find import BoardFind, find_board, refine_board
from .geometry import FloatArray
from .label_grids import EMPTY_LABELS, Labels, differences, labels_of, occupancy, tile_list
from .labels import BLANK, COVERED, EMPTY, FOREIGN, tile_of
from .orientation import infer_turn, turned_crops
from .reading import from_probabilities
from .reports import Report, TrackerStatus
from .tile_colour import blanks_of_tile_colour
from .unsure_play import likeliest_play

__all__ = ["EMPTY_LABELS", "BoardTracker", "Labels", "Report", "TrackerSettings", "TrackerStatus"]

MIN_TURN_LETTERS: Final = 3
MIN_TURN_SCORE: Final = 0.7


@dataclass(frozen=True)
class TrackerSettings:
    """Thresholds of the tracker (see the module docstring)."""

    stable_frames: int = 2
    stable_seconds: float = 0.15  # with stable_frames: 2 frames at 5 fps, 3 at 10 fps
    motion_threshold: float = 4.0  # mean absolute grey-level change, downscaled frame
    min_confidence: float = 0.7  # a new tile read below this (mean over the stable frames) is a doubt
    refit_seconds: float = 3.0
    lost_frames: int = 3  # still, uncovered frames without the grid before searching again
    research_seconds: float = 30.0  # a still view searched in vain is searched again only once it moves, or after this
    turn: int | None = None  # quarter turns to row A; None: inferred from the letters


@dataclass
class _Proposal:
    """A stable reading that differs from the committed one, waiting for the arbiter."""

    labels: Labels
    play: Play | None
    placed: dict[Square, Tile]


@dataclass
class BoardTracker:
    """One camera's tracker (see the module docstring)."""

    camera: str
    lexicon: Lexicon
    settings: TrackerSettings = field(default_factory=TrackerSettings)
    classifier: CellClassifier | None = None
    frames_dir: Path | None = None  # where doubt frames are written when the source has no file
    board: Board = field(default_factory=Board)
    readings: Labels = EMPTY_LABELS
    on_report: Callable[[Report], None] | None = None

    def __post_init__(self) -> None:
        self.status = TrackerStatus(self.camera)
        self._classifier = self.classifier or default_classifier()
        self._upright: FloatArray | None = None  # image_from_board, row A facing the image top
        self._checked: BoardFind | None = None  # the last grid whose premium layout was judged (see ``refine_board``)
        self._turn: int | None = self.settings.turn
        self._previous: NDArray[np.float32] | None = None
        self._history: deque[tuple[float, Labels, NDArray[np.float32], NDArray[np.float32]]] = deque(maxlen=64)
        self._probabilities = np.zeros((SIZE * SIZE, 0), np.float32)  # the stable reading's, mean over its frames
        self._last_fit = -1e9
        self._moving = True
        self._lost = 0
        self._search_again_at: float | None = None  # frame time; None: the view moved since the last vain search
        self._last_state: Labels | None = None
        self._last_plays: list[tuple[Labels, Board, Play, dict[Square, Tile]]] = []
        self.proposal: _Proposal | None = None
        self.hold = False  # plays wait for the clock's press (the table's clock is in play)
        self._armed = False  # the clock was pressed: judge the next still reading
        self._held: Labels | None = None  # a placement read still, waiting for the press
        self._next_id = 1
        self.status.cgp = self._cgp()

    # -- public -------------------------------------------------------------------

    def feed(self, frame: Frame) -> list[Report]:
        """Process one frame; returns the reports it causes (most frames cause none)."""
        start = time.perf_counter()
        reports = self._feed(frame)
        elapsed = time.perf_counter() - start
        s = self.status
        s.frames += 1
        s.t = frame.t
        s.seconds_per_frame = elapsed if s.frames == 1 else 0.9 * s.seconds_per_frame + 0.1 * elapsed
        for report in reports:
            s.last_report = report
            if self.on_report:
                self.on_report(report)
        s.pending = 1 if self.proposal else 0
        s.cgp = self._cgp()
        s.turn = self._turn
        return reports

    def accept_proposal(self, blanks: dict[Square, Tile] | None = None) -> Play | None:
        """The arbiter confirms the pending reading as the position (its play, if any, is returned)."""
        if self.proposal is None:
            return None
        proposal = self.proposal
        placed = dict(proposal.placed)
        if blanks:
            placed.update(blanks)
        play = None
        if placed:  # raises PlacementError (proposal kept) when the tiles make no play, e.g. a blank unnamed
            before = self.board.copy()
            play = play_from_placement(before, placed)
            self.proposal = None
            for square, tile in placed.items():
                self.board[square] = tile
            self._last_plays.append((self.readings, before, play, placed))
        self.proposal = None
        self.readings = proposal.labels
        self._last_state = proposal.labels
        self._refresh()
        return play

    def correct(self, play: Play) -> None:
        """The arbiter says what was played: ``play`` goes on the committed board, and the
        current stable reading becomes the committed reading."""
        verdict = check_play(self.board, play, self.lexicon)
        if verdict.score is None:
            raise PlacementError("; ".join(str(p) for p in verdict.problems))
        before = self.board.copy()
        for square, tile in verdict.placed.items():
            self.board[square] = tile
        labels = self.proposal.labels if self.proposal else self._labels_after(verdict.placed)
        self._last_plays.append((self.readings, before, verdict.play, dict(verdict.placed)))
        self.readings = labels
        self._last_state = labels
        self.proposal = None
        self._refresh()

    def press(self) -> None:
        """The player pressed the clock: their play is finished. The next still reading (the
        next frame, when the board is still) is judged, even the placement held for the press."""
        self._armed = True

    def withdraw_last(self) -> Play | None:
        """Take the last play off the committed board (a challenge the arbiter upheld)."""
        if not self._last_plays:
            return None
        readings, before, play, _ = self._last_plays.pop()
        self.readings, self.board = readings, before
        self._refresh()
        return play

    def sync(self, board: Board, last: dict[Square, Tile] | None = None) -> bool:
        """The game is the truth: make ``board`` (the game's) the committed board.

        ``last`` is the game's last play still on the board (its tiles), so that lifting
        them is seen as a withdrawal. The camera's own reading of the position is kept
        as ``readings`` when it has tiles on the same squares (a misread letter the
        arbiter corrected is not flagged again); otherwise the game's labels are used
        and the next still reading is judged against them. False when nothing changed.
        """
        if board == self.board:
            return False
        labels = labels_of(board)
        seen = self.proposal.labels if self.proposal else self._last_state
        same_squares = seen is not None and occupancy(seen) == occupancy(labels)
        self.board = board.copy()
        self.readings = seen if same_squares and seen is not None else labels
        self._last_state = self.readings if same_squares else None
        self.proposal = None
        self._held = None
        self._last_plays = []
        if last:
            before = board.copy()
            rows = [list(row) for row in self.readings]
            for square in last:
                before[square] = 0
                rows[square[0]][square[1]] = EMPTY
            try:
                play = play_from_placement(before, dict(last))
            except PlacementError:
                play = None
            if play is not None:
                self._last_plays.append((tuple(tuple(r) for r in rows), before, play, dict(last)))
        self._refresh()
        return True

    def use_calibration(self, image_from_board: FloatArray, turn: int | None) -> None:
        """Start from a calibration: the grid (upright: row A towards the image top) and the turn."""
        self._upright = np.asarray(image_from_board, np.float64)
        self._checked = None
        self._last_fit = -1e9
        self._lost = 0
        if turn is not None:
            self._turn = turn % 4

    def _refresh(self) -> None:
        self.status.pending = 1 if self.proposal else 0
        self.status.cgp = self._cgp()

    # -- the pipeline ----------------------------------------------------------------

    def _feed(self, frame: Frame) -> list[Report]:
        image = frame.image
        small = cv2.resize(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (160, 90 if image.shape[1] > image.shape[0] else 160), interpolation=cv2.INTER_AREA).astype(np.float32)
        motion = float(np.abs(small - self._previous).mean()) if self._previous is not None and self._previous.shape == small.shape else 1e9
        self._previous = small
        if motion > self.settings.motion_threshold:
            self._moving = True
            self._search_again_at = None
            self._history.clear()
            self.status.status = "en movimiento"
            return []
        reports: list[Report] = []
        if self._upright is None or self._moving or self._lost or frame.t - self._last_fit > self.settings.refit_seconds:
            reports += self._fit(frame)
        self._moving = False
        if self._upright is None or self._lost:  # never read through a grid that no longer fits
            if self._lost:
                self.status.status = "buscando tablero"
            return reports
        reading = self._read(image)
        if reading is None:
            return reports
        labels, confidence, probabilities = reading
        if any(COVERED in row for row in labels):
            self._history.clear()
            self.status.status = "tapado"
            return reports
        self._history.append((frame.t, labels, confidence, probabilities))
        self.status.read_frames += 1
        stable = self._stable()
        if stable is None:
            self.status.status = "leyendo"
            return reports
        labels, confidence, self._probabilities = stable
        pressed, self._armed = self._armed, False
        if labels == self._last_state and not (pressed and labels == self._held):
            self.status.status = self._still_status()
            return reports
        self._last_state = labels
        reports += self._judge(frame, labels, confidence, pressed)
        self.status.status = self._still_status()
        return reports

    def _still_status(self) -> str:
        if self.proposal:
            return "duda"
        return "esperando el reloj" if self._held is not None else "estable"

    def _fit(self, frame: Frame) -> list[Report]:
        image = frame.image
        found: BoardFind | None = None
        if self._upright is not None:
            found = refine_board(image, self._upright, passes=1, checked=self._checked)
        if found is None or not found.found:
            if self._upright is not None:
                self._lost += 1
                if self._lost < self.settings.lost_frames:
                    return []
            if self._search_again_at is not None and frame.t < self._search_again_at:
                return []  # the same still view: the search would find what it found (nothing)
            found = self._search(frame)
        if found.found and found.image_from_board is not None:
            was_lost = self._upright is None
            self._upright = found.image_from_board
            if "layout_kept" not in found.details:
                self._checked = found  # the layout was judged on this frame
            self._last_fit = frame.t
            self._lost = 0
            self.status.board_found = True
            if was_lost:
                warning = small_squares_warning(found.pitch)
                message = f"tablero localizado; aviso: {warning}" if warning else "tablero localizado"
                return [self._report("board_found", frame, message)]
            return []
        if self._upright is not None:
            self._upright = None
            self._checked = None
            self._history.clear()
            self.status.board_found = False
            self.status.status = "sin tablero"
            return [self._report("board_lost", frame, f"se ha perdido el tablero: {found.reason}")]
        self.status.status = "sin tablero"
        return []

    def _search(self, frame: Frame) -> BoardFind:
        """``find_board`` on the frame; a vain search is not repeated on the same still view
        before ``research_seconds`` after it ended (a search of a frame without a board takes
        seconds of a core: a camera over an empty table would search without rest)."""
        start = time.perf_counter()
        found = find_board(frame.image)
        if not found.found:
            self._search_again_at = frame.t + (time.perf_counter() - start) + self.settings.research_seconds
        return found

    def _read(self, image: NDArray[np.uint8]) -> tuple[Labels, NDArray[np.float32], NDArray[np.float32]] | None:
        assert self._upright is not None
        crops = board_crops(image, self._upright)
        turn = self._turn or 0
        if turn:
            crops = turned_crops(crops, turn)
        probabilities = self._classifier.probabilities(crops)
        find = BoardFind(True, image_from_board=self._upright)
        if self._turn is None:
            guess = infer_turn(crops, probabilities, self._classifier)
            # letters half hidden by a hand mislead: only a clear answer from several letters
            if guess.turn is not None and guess.letters >= MIN_TURN_LETTERS and max(guess.scores) >= MIN_TURN_SCORE:
                self._turn = guess.turn
            elif guess.letters >= 2 and self.readings == EMPTY_LABELS:  # a first play has two tiles or more
                self._turn = self._turn_of_first_play(crops, find)
            if self._turn:
                crops = turned_crops(crops, self._turn)
                probabilities = self._classifier.probabilities(crops)
        reading = from_probabilities(find, blanks_of_tile_colour(crops, probabilities), self._turn or 0)
        return reading.labels, reading.confidence, reading.probabilities

    def _turn_of_first_play(self, crops: NDArray[np.uint8], find: BoardFind) -> int | None:
        """Row A from a first play too short for the letters alone to tell (``infer_turn``): the one
        quarter turn under which the tiles read, every one at ``min_confidence`` or more, as a legal
        play, and read surest. None when no turn or several do (the arbiter is asked)."""
        legal, sureness = [], []
        for turn in range(4):
            probabilities = self._classifier.probabilities(turned_crops(crops, turn) if turn else crops)
            reading = from_probabilities(find, probabilities, turn)
            tiles = [(r, c) for r in range(SIZE) for c in range(SIZE) if reading.labels[r][c] != EMPTY]
            sureness.append(min((float(reading.confidence[sq]) for sq in tiles), default=0.0))
            if sureness[-1] >= self.settings.min_confidence and self._legal_first_play(reading.labels, tiles):
                legal.append(turn)
        return legal[0] if len(legal) == 1 and int(np.argmax(sureness)) == legal[0] else None

    def _legal_first_play(self, labels: Labels, tiles: list[Square]) -> bool:
        """The Spanish letters on ``tiles`` make a legal first play (blanks and others: no)."""
        placed = {sq: tile_of(labels[sq[0]][sq[1]]) for sq in tiles}
        if not placed or any(t is None for t in placed.values()):
            return False
        try:
            play = play_from_placement(Board(), {sq: t for sq, t in placed.items() if t is not None})
        except PlacementError:
            return False
        return check_play(Board(), play, self.lexicon).legal

    def _stable(self) -> tuple[Labels, NDArray[np.float32], NDArray[np.float32]] | None:
        """The reading when the latest still frames agree on every cell: at least
        ``stable_frames`` of them spanning ``stable_seconds``; else None. Its confidences and
        class probabilities are the means over those frames."""
        last_t, labels, _, _ = self._history[-1]
        confidences, probabilities = [], []
        for t, other, confidence, probability in reversed(self._history):
            if other != labels:
                break
            confidences.append(confidence)
            probabilities.append(probability)
            if len(confidences) >= self.settings.stable_frames and last_t - t >= self.settings.stable_seconds:
                return labels, np.mean(confidences, axis=0).astype(np.float32), np.mean(probabilities, axis=0).astype(np.float32)
        return None

    # -- judging a stable reading ------------------------------------------------------

    def _judge(self, frame: Frame, labels: Labels, confidence: NDArray[np.float32], pressed: bool = False) -> list[Report]:
        """Reports for a new stable reading (see the module docstring, step 5); with ``hold``, a
        placement not yet ``pressed`` is held for the clock's press."""
        added, removed, changed = differences(self.readings, labels)
        if self.hold and not pressed and added and not removed and not changed:
            self._held = labels
            return []
        self._held = None
        reports = self._judge_reading(frame, labels, confidence)
        self._refresh()
        return reports

    def _judge_reading(self, frame: Frame, labels: Labels, confidence: NDArray[np.float32]) -> list[Report]:
        had_proposal = self.proposal is not None
        self.proposal = None
        if labels == self.readings:
            return [self._report("resolved", frame, "el tablero ha vuelto a la posición registrada")] if had_proposal else []
        added, removed, changed = differences(self.readings, labels)
        if removed and not added and not changed:
            return [self._removed(frame, labels, removed)]
        if changed or removed:
            what = ", ".join(square_name(*sq) for sq in sorted(changed + removed))
            reason = "changed" if changed else "moved"
            message = f"fichas movidas o leídas de otra forma en {what}; no se muestra ninguna jugada"
            return [self._doubt(frame, labels, reason, message, tiles=tile_list(labels, changed + removed + added))]
        return [self._placement(frame, labels, confidence, added)]

    def _removed(self, frame: Frame, labels: Labels, removed: list[Square]) -> Report:
        if self._last_plays:
            readings, before, play, placed = self._last_plays[-1]
            if set(placed) == set(removed) and labels == readings:
                self._last_plays.pop()
                self.readings, self.board = readings, before
                return self._report(
                    "withdrawn", frame, f"se han retirado las fichas de {play.notation()} (jugada impugnada, C.39)",
                    notation=play.notation(), tiles=tuple((sq, label(t)) for sq, t in sorted(placed.items())),
                )
        what = ", ".join(square_name(*sq) for sq in sorted(removed))
        return self._doubt(frame, labels, "removed", f"faltan fichas en {what} que no son de la última jugada", tiles=tile_list(self.readings, removed))

    def _placement(self, frame: Frame, labels: Labels, confidence: NDArray[np.float32], added: list[Square]) -> Report:
        tiles = tile_list(labels, added)
        foreign = [sq for sq in added if labels[sq[0]][sq[1]] == FOREIGN]
        if foreign:
            where = ", ".join(square_name(*sq) for sq in foreign)
            return self._doubt(frame, labels, "foreign", f"en {where} hay una letra que no es del juego en español", tiles=tiles)
        placed: dict[Square, Tile] = {}
        blanks: list[Square] = []
        for sq in added:
            name = labels[sq[0]][sq[1]]
            if name == BLANK:
                blanks.append(sq)
                continue
            tile = tile_of(name)
            assert tile is not None
            placed[sq] = tile
        unsure = [sq for sq in added if confidence[sq] < self.settings.min_confidence]
        if unsure:
            return self._unsure(frame, labels, placed, blanks, unsure, tiles)
        if self._turn is None:
            return self._doubt(frame, labels, "orientation", "no se sabe qué lado del tablero es la fila A", tiles=tiles)
        if blanks:
            return self._with_blanks(frame, labels, placed, blanks, tiles)
        try:
            play = play_from_placement(self.board, placed)
        except PlacementError as error:
            return self._doubt(frame, labels, "no_play", f"la lectura no forma una jugada: {error}", tiles=tiles)
        verdict = check_play(self.board, play, self.lexicon)
        if not verdict.legal:
            problems = "; ".join(str(p) for p in verdict.problems)
            self.proposal = _Proposal(labels, verdict.play, dict(verdict.placed) or placed)
            return self._report("doubt", frame, f"{verdict.play.notation()} no es una jugada válida: {problems}",
                                reason="illegal", notation=verdict.play.notation(), tiles=tiles)
        return self._commit(frame, labels, verdict.play, dict(verdict.placed), verdict.points)

    def _unsure(self, frame: Frame, labels: Labels, placed: dict[Square, Tile], blanks: list[Square],
                unsure: list[Square], tiles: tuple[tuple[Square, str], ...]) -> Report:
        """A doubt for tiles read below ``min_confidence``. What the arbiter is asked to confirm is the
        likeliest legal play among the unsure letters' look-alikes, when there is one (``unsure_play``,
        issue 69; an unsure blank is not tried); else the tiles as read."""
        where = ", ".join(f"{square_name(*sq)} ({labels[sq[0]][sq[1]]}?)" for sq in unsure)
        found = None
        if all(sq in placed for sq in unsure):
            found = likeliest_play(self.board, placed, unsure, labels, self._probabilities, self.lexicon, tuple(blanks))
        if found is None:
            return self._doubt(frame, labels, "unsure", f"lectura dudosa en {where}", tiles=tiles, placed=placed)
        play, proposed = found
        self.proposal = _Proposal(labels, play, proposed)
        return self._report("doubt", frame, f"lectura dudosa en {where}; con las palabras, {play.notation()}",
                            reason="unsure", notation=play.notation(), tiles=tuple((sq, label(t)) for sq, t in sorted(proposed.items())))

    def _with_blanks(self, frame: Frame, labels: Labels, placed: dict[Square, Tile], blanks: list[Square], tiles: tuple[tuple[Square, str], ...]) -> Report:
        try:
            choice = blank_letters(self.board, placed, blanks, self.lexicon)
        except ValueError as error:
            return self._doubt(frame, labels, "no_play", str(error), tiles=tiles)
        where = ", ".join(square_name(*sq) for sq in blanks)
        if choice.unique:
            full = {**placed, **choice.assignments[0]}
            play = play_from_placement(self.board, full)
            return self._commit(frame, labels, check_play(self.board, play, self.lexicon).play, full, choice.scores[0])
        if not choice.assignments:
            self.proposal = _Proposal(labels, None, placed)
            return self._report("doubt", frame, f"ninguna letra del comodín en {where} forma una jugada válida", reason="blank", tiles=tiles)
        self.proposal = _Proposal(labels, None, placed)
        shown = choice.notations[:12]
        return self._report("doubt", frame, f"el comodín en {where} admite varias letras: {', '.join(shown)}",
                            reason="blank", tiles=tiles, candidates=tuple(shown))

    def _commit(self, frame: Frame, labels: Labels, play: Play, placed: dict[Square, Tile], points: int) -> Report:
        before = self.board.copy()
        for square, tile in placed.items():
            self.board[square] = tile
        self._last_plays.append((self.readings, before, play, placed))
        self.readings = labels
        return self._report("play", frame, f"{play.notation()}: {points} puntos", notation=play.notation(), score=points,
                            tiles=tuple((sq, label(t)) for sq, t in sorted(placed.items())))

    def _doubt(
        self, frame: Frame, labels: Labels, reason: str, message: str,
        tiles: tuple[tuple[Square, str], ...] = (), placed: dict[Square, Tile] | None = None,
    ) -> Report:
        """A doubt; ``placed`` is what ``accept_proposal`` records if the arbiter confirms it."""
        self.proposal = _Proposal(labels, None, dict(placed or {}))
        return self._report("doubt", frame, message, reason=reason, tiles=tiles)

    def _report(self, kind: str, frame: Frame, message: str, **extra: Any) -> Report:
        path = frame.path
        if kind == "doubt" and path is None and self.frames_dir is not None:
            self.frames_dir.mkdir(parents=True, exist_ok=True)
            path = str(self.frames_dir / f"{self.camera}-{frame.index:06d}.jpg")
            cv2.imwrite(path, frame.image)
        report = Report(kind, self.camera, frame.t, frame.index, message, frame_path=path, cgp=self._cgp(), id=self._next_id, **extra)
        self._next_id += 1
        return report

    def _cgp(self) -> str:
        return Position(self.board).cgp().split(" ")[0]

    def _labels_after(self, placed: dict[Square, Tile]) -> Labels:
        rows = [list(row) for row in self.readings]
        for (r, c), tile in placed.items():
            rows[r][c] = BLANK if tile & 0x80 else label(tile)
        return tuple(tuple(row) for row in rows)
