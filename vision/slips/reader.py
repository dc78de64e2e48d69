"""The slip reader: a scan becomes the facts of a slip (D.II.8) and a decision on its play.

Pipeline: find and rectify each slip (``register``), read the QR code (game,
table, player), else the handwritten table and the printed or written name
matched against the game's players (``fields.choose``); the round box; the
coordinate and word boxes cut, joined into one line (coordinate, a gap, word) and
read by the recogniser; the play decided with the round's position
(``decoder.decide``). A plain slip is read the same way through a
``PlainTemplate`` whose fields the arbiter marked. Expected failures are values:
``SlipResult.found`` is False when no slip is on the scan, and doubtful facts are
flags, never exceptions.

A printed slip with nothing written in any of its boxes (``LocatedSlip.unused``: one
of a pad, or of an uncut sheet scanned whole) is no slip handed in: its verdict is
``unused``, and nothing of it is stored or sent to the arbiter. A slip with writing
but an empty play (the round or table filled in, no coordinate, word nor square written)
was handed in with no play: flagged ``no_play`` for the arbiter to confirm (it scores
nothing, D.III.23), never stored alone, for a play too faint to see would be lost.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

import cv2
import numpy as np

from rules_core.alphabet import Tile
from rules_core.board import Board
from rules_core.lexicon import Lexicon

from . import absolute, layout, light
from .boxes import marked, play_spoilt, text_rows, visible_coordinate, visible_part
from .decoder import (
    GRID_THRESHOLDS_FILE,
    CandidateCache,
    Decision,
    Scored,
    Thresholds,
    decide_scored,
    score_line,
)
from .fields import pick, score_choice
from .glyphs import GlyphReader, GlyphRecognizer, check_letters, check_plays, default_glyph_recognizer
from .lineimage import BOARD_END_MARGIN, END_MARGIN, prepare_line, variants
from .qr import read_slip_qr
from .recognizer import GRID_MODEL, Recognizer, default_recognizer
from .register import PlainTemplate, find_slips, sampled_for
from .squares import SquareRecognizer, default_square_recognizer, score_squares

Position = tuple[Board, tuple[Tile, ...]]
MARK_INSET: Final = 1.5  # mm cut from each side of a box when looking for any mark: its printed border stays out
PLAY_FIELDS: Final = frozenset({"coordenada", "palabra", "tablero"})  # where a play is written (``LocatedSlip.written``)
QrFacts = tuple[str, int, str]  # (game, table, player) as a slip's QR code says (``layout.qr_payload``)
PositionOf = Callable[[int | None], Position | None]  # the round's position, given the round read


@dataclass(frozen=True)
class PlayerRef:
    """A player of the game as the reader matches them: id, name, table."""

    id: str
    name: str
    table: int


@dataclass
class SlipResult:
    """Everything read from one slip; ``verdict`` is ``flagged`` whenever ``flags`` is not empty."""

    found: bool
    unused: bool = False  # a printed slip with nothing written on it: no slip handed in (``LocatedSlip.unused``)
    decision: Decision | None = None
    flags: tuple[str, ...] = ()
    game: str | None = None
    player: str | None = None
    player_confidence: float = 0.0
    table: int | None = None
    round: int | None = None
    round_confidence: float = 0.0
    rectified: np.ndarray | None = field(default=None, repr=False)  # the slip straightened, grey
    play_box: tuple[int, int, int, int] | None = None  # where the play is on ``rectified`` (x0, y0, x1, y1 px)
    scored: Scored | None = field(default=None, repr=False)  # the play line's raw scores (for calibration)
    line: np.ndarray | None = field(default=None, repr=False)  # the grey play line read (coordinate, gap, word)
    round_scored: list[tuple[str, float, bool]] | None = field(default=None, repr=False)

    @property
    def verdict(self) -> str:
        if self.unused:
            return "unused"
        if not self.found or self.decision is None:
            return "flagged"
        return "flagged" if self.flags else self.decision.verdict

    def to_json(self) -> dict[str, Any]:
        decision = self.decision
        base = decision.to_json() if decision else {
            "reading": "", "play": None, "score": None, "verdict": "flagged", "flags": [],
            "confidence": 0.0, "candidates": [], "reason": "",
        }  # fmt: skip
        base.update({
            "verdict": self.verdict,
            "flags": list(self.flags),
            "score": base["score"] if self.verdict not in ("flagged", "unused") else None,
            "found": self.found,
            "game": self.game,
            "player": self.player,
            "player_confidence": round(self.player_confidence, 4),
            "table": self.table,
            "round": self.round,
            "round_confidence": round(self.round_confidence, 4),
        })  # fmt: skip
        return base


@dataclass(frozen=True)
class LocatedSlip:
    """A printed slip found on a scan: straightened (grey, the slip frame at ``layout.PX_PER_MM``), and
    what its QR code says (None when it cannot be read)."""

    rectified: np.ndarray = field(repr=False)
    qr: QrFacts | None
    board: np.ndarray | None = field(default=None, repr=False)  # an absolute slip's whole frame (``absolute``)

    @functools.cached_property
    def written(self) -> frozenset[str]:
        """The boxes written in by hand (of ``layout.FIELDS``: any mark of a pen, ``boxes.marked``), and ``tablero``
        when squares are written on an absolute slip's board (``absolute.written_cells``)."""
        paper = float(np.percentile(self.rectified, 75))  # the slip's paper: most of a slip is blank paper
        found = {name for name, box in layout.FIELDS.items()
                 if marked(_crop(self.rectified, box.pixels(layout.PX_PER_MM, MARK_INSET)), paper)}  # fmt: skip
        if self.written_squares:
            found.add("tablero")
        return frozenset(found)

    @functools.cached_property
    def written_squares(self) -> list[tuple[int, int]]:
        """An absolute slip's written squares (``absolute.written_cells``, found once); none without a board."""
        return absolute.written_cells(self.board) if self.board is not None else []

    @property
    def unused(self) -> bool:
        """Nothing written in any box nor on the board: a slip of a pad no one used, no slip handed in."""
        return not self.written


def locate_slips(gray: np.ndarray) -> list[LocatedSlip]:
    """Every printed slip on a grey scan or photo with its QR code read (no model needed: a page is routed by it),
    straightened (a phone's photo shrunk first, ``register.sampled_for``) and under even light (``light.even``: a
    photo's shadows and gradients taken away before anything is read)."""
    found = []
    for registration in find_slips(gray):
        image, slip_from_image = sampled_for(gray, registration.slip_from_image)
        rectified = light.even(replace(registration, slip_from_image=slip_from_image).rectify(image))
        board = absolute.rectify_board(image, slip_from_image)
        found.append(LocatedSlip(rectified, read_slip_qr(rectified), None if board is None else light.even(board)))
    return found


def _crop(image: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    x0, y0, x1, y1 = box
    return image[max(0, y0) : max(0, y1), max(0, x0) : max(0, x1)]


def join_line(coordinate: np.ndarray, word: np.ndarray) -> np.ndarray:
    """One grey line from the coordinate and word crops: coordinate, a paper gap, word (heights matched)."""
    height = max(coordinate.shape[0], word.shape[0])

    def fit(crop: np.ndarray) -> np.ndarray:
        if crop.shape[0] == height:
            return crop
        return cv2.copyMakeBorder(crop, 0, height - crop.shape[0], 0, 0, cv2.BORDER_REPLICATE)

    paper = int(np.percentile(np.concatenate([coordinate.ravel(), word.ravel()]), 70))
    gap = np.full((height, max(4, int(height * 0.5))), paper, np.uint8)
    return np.hstack([fit(coordinate), gap, fit(word)])


@dataclass(frozen=True)
class NotationRead:
    """Which notation of a slip is read (D.III.20.1): ``grid`` the absolute slip's board and its written squares
    (None: the boxes), ``play_box`` where that play is (x0, y0, x1, y1 px of the slip's frame), ``spoilt`` the play
    read is blotted or crossed out (D.III.20.4), ``boxes_too`` the boxes hold a play as well as the board, neither
    crossed out (D.III.20.2)."""

    grid: tuple[np.ndarray, list[tuple[int, int]]] | None
    play_box: tuple[int, int, int, int]
    spoilt: bool
    boxes_too: bool = False


def _notation_read(board: np.ndarray | None, coordinate: np.ndarray, word: np.ndarray, whole_word: np.ndarray,
                   whole_coordinate: np.ndarray | None = None, boxes_marked: bool = True,
                   squares: Sequence[tuple[int, int]] | None = None) -> NotationRead:  # fmt: skip
    """What to read on a slip: its boxes (``coordinate``, ``word``: the boxes' ``visible_coordinate`` and
    ``visible_part``; ``whole_coordinate``: the coordinate box, ``coordinate`` when not given), or an absolute
    slip's ``board`` (its whole frame, ``LocatedSlip.board``) when squares are written there. D.III.20.2: a player
    who writes the play in more than one notation hands in one play visible and clearly crosses out the others (a
    blot, one line, an X or a zigzag: ``blotted``, ``struck``): the board's play crossed out and the boxes' not, the
    boxes are read; the boxes' crossed out, the board is. A blot anywhere in the word box (``whole_word``) spoils
    it: a blot is no correction. Which of two notations stands is judged by the strike rules alone: the
    spoilt-box network may send a slip to the arbiter, never choose the play scored (a box it alone takes for
    crossed out is still a play, compared with the board's). ``boxes_marked``: whether a pen marked the coordinate or
    word box (``LocatedSlip.written``); boxes no pen marked hold no play, whatever a photo's shade leaves in them.
    ``squares``: the board's written squares when found already (``LocatedSlip.written_squares``; None: found here)."""
    boxes_box = layout.FIELDS["coordenada"].pixels()[:2] + layout.FIELDS["palabra"].pixels()[2:]
    if squares is None:
        squares = absolute.written_cells(board) if board is not None else []
    written = list(squares)
    if board is None or not written:
        return NotationRead(None, boxes_box, play_spoilt(whole_word, word, coordinate, whole_coordinate))
    boxes_spoilt = play_spoilt(whole_word, word, coordinate, whole_coordinate, network=False)
    board_spoilt = absolute.blotted(board, written) or absolute.struck(board, written)
    boxes_written = boxes_marked and text_rows(coordinate) + text_rows(word) > 0
    if board_spoilt and boxes_written and not boxes_spoilt:
        return NotationRead(None, boxes_box, False)
    return NotationRead((board, written), absolute.board_box(), board_spoilt, boxes_written and not boxes_spoilt)


def _same_play(decision: Decision | None, other: Decision) -> bool:
    """Whether two readings of a slip's play are the same: both decided (accepted, or invalid as written) as the same
    play, or the first accepted and the likeliest outcome of the second that same play, though unsure (the second
    notation's doubt is no other play, D.III.20.2)."""
    if decision is None or decision.verdict not in ("accepted", "invalid"):
        return False
    if decision.verdict == other.verdict and decision.notation == other.notation:
        return True
    likeliest = other.options[0] if other.options else None
    return (decision.verdict == "accepted" and likeliest is not None and likeliest.kind == "play"
            and likeliest.text == decision.play)  # fmt: skip


def _outputs_of(recognizer: Recognizer, thresholds: Thresholds, line: np.ndarray,
                end_margin: float = END_MARGIN) -> tuple[np.ndarray, list[np.ndarray]]:  # fmt: skip
    """A recogniser's output on a grey line (prepared with ``end_margin``: ``lineimage.prepare_ink``), and on
    ``thresholds.variants`` - 1 other views of it."""
    prepared = prepare_line(line, end_margin)
    views = [recognizer.log_probs(v) for v in variants(prepared, int(thresholds.variants) - 1)]
    return recognizer.log_probs(prepared), views


def _same_position(a: Position, b: Position) -> bool:
    """Same board and same rack (in any order)."""
    return a[0] == b[0] and sorted(a[1]) == sorted(b[1])


@dataclass(frozen=True)
class GridReading:
    """What reads the letters written on an absolute slip's board: a line recogniser and its own thresholds, and
    optionally a second line recogniser and the square classifier (``squares``), each of which must read the
    same play (``absolute.agreed``). The square classifier decides at its own temperature
    (``Thresholds.square_temperature``)."""

    recognizer: Recognizer
    thresholds: Thresholds
    second: Recognizer | None = None
    squares: SquareRecognizer | None = None

    def readers(self) -> list[absolute.BoardReader]:
        """Each recogniser as a reader of the written squares: the line recognisers read them joined as a line
        (on its views, ``thresholds.variants``), the square classifier one by one."""
        models = [self.recognizer] + ([self.second] if self.second is not None else [])
        readers = [absolute.line_reader(functools.partial(_outputs_of, model, self.thresholds,
                                                          end_margin=BOARD_END_MARGIN)) for model in models]  # fmt: skip
        if self.squares is not None:
            readers.append(functools.partial(_squares_scored, self.squares))
        return readers

    def each(self, limits: Thresholds) -> list[Thresholds]:
        """The thresholds each of ``readers`` decides with, given the line recognisers' ``limits``."""
        each = [limits] * (1 + (self.second is not None))
        if self.squares is not None:
            each.append(replace(limits, temperature=limits.square_temperature or limits.temperature))
        return each


def _squares_scored(squares: SquareRecognizer, written: absolute.WrittenSquares) -> Scored:
    """The written squares read one by one by the square classifier, scored against the plays over them."""
    return score_squares(squares.read(written.frame, written.squares), written.cands, written.coordinate)


def committed_grid_reading() -> GridReading:
    """The committed board readers: the line recogniser ``recognizer.GRID_MODEL`` and the square classifier
    ``squares.SQUARE_MODEL``, which must agree, with the thresholds calibrated for the two together."""
    line, squares = default_recognizer(GRID_MODEL), default_square_recognizer()
    return GridReading(line, Thresholds.load(GRID_THRESHOLDS_FILE), squares=squares)


class SlipReader:
    """Loads the recognisers once; reads slips for any round (candidate sets cached per position).

    The play lines and the boxes are read by ``recognizer`` with ``thresholds``, a play line's characters
    one by one by ``glyphs`` too (the committed glyph classifier when the line recogniser is the committed
    one: a model on trial reads without it); the letters written on an absolute slip's board by ``grid``.
    Without ``grid``: the committed board recogniser when the line recogniser is the committed one too,
    else the line recogniser and its thresholds (a model on trial reads both). ``second``: another line
    recogniser on trial beside the first, read together at the level of whole readings (each written form's
    log-probability the mean over both networks' views; its frames are never mixed with the first's, whose
    CTC alignments differ); the first alone places the characters and writes the unconstrained reading."""

    def __init__(self, lexicon: Lexicon, recognizer: Recognizer | None = None,
                 thresholds: Thresholds | None = None, grid: GridReading | None = None,
                 glyphs: GlyphRecognizer | None = None, second: Recognizer | None = None) -> None:  # fmt: skip
        self.lexicon = lexicon
        self.recognizer = recognizer or default_recognizer()
        self.second = second
        self.thresholds = thresholds or Thresholds.load()
        if grid is None:
            grid = committed_grid_reading() if recognizer is None else GridReading(self.recognizer, self.thresholds)
        self.grid = grid
        if glyphs is None and recognizer is None:
            glyphs = default_glyph_recognizer()
        self.glyphs = glyphs
        self.cache = CandidateCache()
        self.placements = absolute.PlacementCache()

    def score_line(self, line: np.ndarray, board: Board, rack: Sequence[Tile], glyphs: GlyphReader | None = None) -> Scored:
        """A grey image of a handwritten play (coordinate and word) scored against the round's plays,
        on ``thresholds.variants`` views of it (``lineimage.variants``), its likeliest plays read character
        by character too by the glyph classifier (``glyphs.check_plays``; its reading too, ``glyphs.check_letters``)
        when there is one (``glyphs``: another reader of them, such as one that learned the player's hand,
        ``learning.PlayerGlyphs``)."""
        prepared = prepare_line(line)
        log_probs = self.recognizer.log_probs(prepared)
        others = variants(prepared, int(self.thresholds.variants) - 1)
        views = [self.recognizer.log_probs(v) for v in others]
        if self.second is not None:
            views += [self.second.log_probs(v) for v in [prepared, *others]]
        cands = self.cache.get(board, rack, self.lexicon)
        scored = score_line(log_probs, cands, views=views)
        glyphs = glyphs or self.glyphs
        if glyphs is None:
            return scored
        checks = check_letters(glyphs, prepared, log_probs, scored, cands)
        return replace(scored, glyphs=check_plays(glyphs, prepared, log_probs, scored, cands), letters=checks.letters,
                       clashes=checks.clashes, circled=checks.circled)  # fmt: skip

    def _grid_thresholds(self) -> Thresholds:
        """An absolute slip's thresholds (the board recognisers'): ``grid_accept`` (set on calibration slips with
        a board, ``models.slips.calibrate_grid``; 0: ``accept``) to accept, and a reading scored 0 as written
        needs as much (a square missed or a stray mark changes the word read, not only its letters)."""
        limits = self.grid.thresholds
        accept = limits.grid_accept or limits.accept
        return replace(limits, accept=accept, invalid=accept)

    def decide_line(self, line: np.ndarray, board: Board, rack: Sequence[Tile]) -> Decision:
        """The decision on a grey image of a handwritten play (coordinate and word)."""
        return decide_scored(self.score_line(line, board, rack), board, rack, self.lexicon, self.thresholds)

    def read_move(self, gray: np.ndarray, board: Board, rack: Sequence[Tile]) -> Decision:
        """``veedor read-move``: an image of the play alone, as cut from a slip."""
        return self.decide_line(gray, board, rack)

    def read_slip(self, gray: np.ndarray, position_of: PositionOf, players: Sequence[PlayerRef] = (),
                  rounds: Sequence[int] = (), current: int | None = None, *,
                  relative_notation: bool = False) -> list[SlipResult]:  # fmt: skip
        """Every printed slip on a grey scan (an empty list when none is found).

        ``position_of(round)`` gives the board and rack of the round read from the
        slip (None when it cannot tell); ``rounds`` are the round numbers the slip
        may carry, ``current`` the one being played (the likeliest); ``players``
        those it may belong to. ``relative_notation``: the director allows relative-board notation
        (D.III.20.1.d), which the reader does not read: every slip then goes to the arbiter.
        """
        return [self.read_located(slip, position_of, players, rounds, current, relative_notation=relative_notation)
                for slip in locate_slips(gray)]  # fmt: skip

    def read_rectified(self, rectified: np.ndarray, position_of: PositionOf, players: Sequence[PlayerRef],
                       rounds: Sequence[int], current: int | None = None, *,
                       relative_notation: bool = False) -> SlipResult:  # fmt: skip
        """A printed slip already in the slip frame at ``layout.PX_PER_MM``."""
        return self.read_located(LocatedSlip(rectified, read_slip_qr(rectified)), position_of, players, rounds, current,
                                 relative_notation=relative_notation)  # fmt: skip

    def read_located(self, slip: LocatedSlip, position_of: PositionOf, players: Sequence[PlayerRef],
                     rounds: Sequence[int], current: int | None = None, *,
                     relative_notation: bool = False) -> SlipResult:  # fmt: skip
        """A printed slip found by ``locate_slips`` (its QR code read already)."""
        rectified, qr = slip.rectified, slip.qr
        result = SlipResult(True, unused=slip.unused, rectified=rectified)
        if qr is not None:
            result.game, result.table, result.player = qr
            result.player_confidence = 1.0
        if result.unused:  # nothing written: nothing to read
            return result
        fields = {name: _crop(rectified, box.pixels(layout.PX_PER_MM, layout.FIELD_INSET))
                  for name, box in layout.FIELDS.items()}  # fmt: skip
        if qr is None and players:
            self._player_from_writing(result, fields["mesa"], _crop(rectified, _name_box()), players)
        coordinate, word = visible_coordinate(fields["coordenada"]), visible_part(fields["palabra"])
        notation = _notation_read(slip.board, coordinate, word, fields["palabra"], fields["coordenada"],
                                  boxes_marked=bool(slip.written & {"coordenada", "palabra"}),
                                  squares=slip.written_squares)
        if slip.board is not None:  # an absolute slip: the arbiter is shown the whole of it, board included
            result.rectified = slip.board
        # two rows of writing in a box are two plays (D.III.20.2); a box with no pen's mark has no rows (a shadow)
        several = any(text_rows(box) > 1 for name, box in (("coordenada", coordinate), ("palabra", word))
                      if name in slip.written)
        return self._finish(result, join_line(coordinate, word), fields["ronda"], position_of, players, rounds,
                            several=several, play_box=notation.play_box,
                            current=current, grid=notation.grid, relative_notation=relative_notation,
                            spoilt=notation.spoilt, boxes_too=notation.boxes_too,
                            no_play=not slip.written & PLAY_FIELDS)  # fmt: skip

    def read_plain(self, gray: np.ndarray, template: PlainTemplate, position_of: PositionOf,
                   players: Sequence[PlayerRef] = (), rounds: Sequence[int] = (),
                   current: int | None = None, *, relative_notation: bool = False) -> SlipResult:  # fmt: skip
        """A plain slip registered to ``template`` (fields ``coordenada`` + ``palabra``, or ``jugada``)."""
        homography = template.register(gray)
        if homography is None:
            return SlipResult(False, flags=("position_unknown",))
        rectified = template.rectify(gray, homography)
        crops = {name: _crop(rectified, box) for name, box in template.fields.items()}
        result = SlipResult(True, rectified=rectified)
        if players and ("mesa" in crops or "nombre" in crops):
            self._player_from_writing(result, crops.get("mesa"), crops.get("nombre"), players)
        if "jugada" in crops:  # the whole play in one field: a correction strikes a whole play out before the next
            play_box, whole = template.fields["jugada"], crops["jugada"]
            line = visible_part(whole)
            spoilt = play_spoilt(whole, line)
        else:
            play_box = template.fields["coordenada"][:2] + template.fields["palabra"][2:]
            coordinate, whole = visible_coordinate(crops["coordenada"]), crops["palabra"]
            word = visible_part(whole)
            line, spoilt = join_line(coordinate, word), play_spoilt(whole, word, coordinate, crops["coordenada"])
        return self._finish(result, line, crops.get("ronda"), position_of, players, rounds,
                            several=text_rows(line) > 1, play_box=play_box, current=current,
                            relative_notation=relative_notation, spoilt=spoilt)  # fmt: skip

    def _finish(self, result: SlipResult, line: np.ndarray, round_crop: np.ndarray | None, position_of: PositionOf,
                players: Sequence[PlayerRef], rounds: Sequence[int], several: bool,
                play_box: tuple[int, int, int, int], current: int | None = None,
                grid: tuple[np.ndarray, list[tuple[int, int]]] | None = None,
                relative_notation: bool = False, spoilt: bool = False, boxes_too: bool = False,
                no_play: bool = False) -> SlipResult:  # fmt: skip
        """The slip's round, position and play decided, with every flag the arbiter needs: ``no_play`` written
        (the play's boxes and board empty: the play is not read, the arbiter confirms it), ``several`` plays
        written (D.III.20.2), a play field ``spoilt`` by a blot or struck out (``blotted``, ``struck``,
        ``absolute.blotted``, ``absolute.struck``: illegible, D.III.20.4). ``boxes_too``: an absolute slip whose
        boxes hold a play as well as its board, neither crossed out: ``several_plays`` unless ``line`` says the
        board's play too (D.III.20.2)."""
        flags: list[str] = ["relative_notation"] if relative_notation else []
        if players and (result.player is None or result.player_confidence < self.thresholds.field):
            flags.append("player_unknown")
        if round_crop is not None and rounds:
            result.round_scored = score_choice(self.recognizer.log_probs(round_crop), [str(r) for r in rounds])
            favoured = {str(current): self.thresholds.current_round_prior} if current else None
            text, confidence = pick(result.round_scored, self.thresholds.reading_prior, favoured)
            result.round = int(text) if text else None
            result.round_confidence = confidence
        round_sure = not rounds or result.round_confidence >= self.thresholds.field
        position = position_of(result.round if round_sure else None)
        result.play_box = play_box
        if no_play:
            result.flags = tuple(dict.fromkeys(flags + ["no_play"] + ([] if round_sure else ["position_unknown"])))
            return result
        if position is None:
            result.flags = tuple(dict.fromkeys(flags + ["position_unknown"]))
            return result
        result.decision, result.scored = self._decide_play(line, grid, position)
        result.line = line if grid is None else None
        if not round_sure:
            settled = self._round_from_play(result, position, position_of, current,
                                            lambda rival: self._decide_play(line, grid, rival)[0])  # fmt: skip
            if settled is None:
                flags.append("position_unknown")
            else:
                result.round = settled
        if several or (boxes_too and not _same_play(result.decision, self._decide_play(line, None, position)[0])):
            flags.append("several_plays")
        if spoilt:  # struck out or scrawled over: voided unless the arbiter chooses the play (review.proposal_for)
            flags += ["spoilt", "illegible"]
        result.flags = tuple(dict.fromkeys(flags + list(result.decision.flags)))
        return result

    def _decide_play(self, line: np.ndarray, grid: tuple[np.ndarray, list[tuple[int, int]]] | None,
                     position: Position) -> tuple[Decision, Scored | None]:  # fmt: skip
        """The decision on the play in a round's position, and its scores: the board's written squares on an
        absolute slip (``grid``: the board frame and the squares), else the play line."""
        board, rack = position
        if grid is not None:  # absolute-board notation: the board's written squares, not the boxes
            decision, scored, _ = absolute.decide_grid(grid[0], grid[1], board, rack, self.lexicon, self.grid.readers(),
                                                       self.grid.each(self._grid_thresholds()), self.placements)  # fmt: skip
            return decision, scored
        scored = self.score_line(line, board, rack)
        return decide_scored(scored, board, rack, self.lexicon, self.thresholds), scored

    def _round_from_play(self, result: SlipResult, position: Position, position_of: PositionOf,
                         current: int | None, decide_in: Callable[[Position], Decision]) -> int | None:  # fmt: skip
        """The round an unsure round number is settled to by the play (D.II.8: a slip belongs to the round
        it was written for), or None. ``position`` is the round being played (``current``), where the
        play was read: it settles the slip to that round when it is accepted there, sure, and not also
        in the position of the other round the box most likely says (the likeliest reading when it is
        another round, else the runner-up; ``decide_in`` decides the play in a position). A round not
        played yet has no position and is no rival; nor is one with the very same position, which the
        play cannot tell apart. The same for a play written on the board (absolute notation)."""
        decision = result.decision
        if current is None or decision is None or decision.verdict != "accepted":
            return None
        runner_up = max(((v, t) for t, v, is_option in result.round_scored or () if is_option and t != str(current)),
                        default=None)  # fmt: skip
        read_other = result.round is not None and result.round != current
        rival_round = result.round if read_other else (int(runner_up[1]) if runner_up else None)
        rival = position_of(rival_round) if rival_round is not None else None
        if rival is not None and not _same_position(rival, position):
            if decide_in(rival).verdict == "accepted":
                return None
        return current

    def _player_from_writing(self, result: SlipResult, table_crop: np.ndarray | None,
                             name_crop: np.ndarray | None, players: Sequence[PlayerRef]) -> None:  # fmt: skip
        """Player from the handwritten table number and the (printed or written) name.

        Each is matched against the game's players; when both are sure (``thresholds.field``) they
        must name the same player, else the player is left unknown (a digit dropped from "41" reads
        as a sure "4": the name catches it). One sure reading alone decides."""
        by_table = self._pick_player(table_crop, players, lambda p: str(p.table))
        by_name = self._pick_player(name_crop, players, lambda p: _name_key(p.name))
        sure: list[tuple[PlayerRef | None, float]] = [
            (p, c) for p, c in (by_table, by_name) if p is not None and c >= self.thresholds.field]
        if len(sure) == 2 and sure[0][0] != sure[1][0]:
            return
        found = max(sure or [by_table, by_name], key=lambda pc: pc[1])
        if found[0] is not None:
            result.player, result.table, result.player_confidence = found[0].id, found[0].table, found[1]

    def _pick_player(self, crop: np.ndarray | None, players: Sequence[PlayerRef],
                     key: Callable[[PlayerRef], str]) -> tuple[PlayerRef | None, float]:  # fmt: skip
        """The one player whose ``key`` the crop reads as, with the reading's confidence ((None, 0) if none)."""
        if crop is None or not crop.size:
            return None, 0.0
        keys = [key(p) for p in players]
        text, confidence = pick(score_choice(self.recognizer.log_probs(crop), sorted(set(keys))),
                                self.thresholds.reading_prior)
        if text is None or keys.count(text) != 1:
            return None, 0.0
        return players[keys.index(text)], confidence


def _name_key(name: str) -> str:
    """A name as the recogniser spells it: capitals without accents (Ñ kept), letters and spaces."""
    out = []
    for char in name.upper():
        if char == "Ñ":
            out.append(char)
            continue
        base = unicodedata.normalize("NFD", char)[0]
        out.append(base if base.isalpha() and base.isascii() else " ")
    return " ".join("".join(out).split())


def _name_box() -> tuple[int, int, int, int]:
    """The printed player's name on a rectified slip (first header line), in px."""
    x, y = layout.NAME_AT
    size = layout.header_lines(layout.SlipInfo("", "", 0, "", ""))[0][1]
    s = layout.PX_PER_MM
    return int((x - 0.5) * s), int((y - 0.5) * s), int((layout.QR_BOX[0] - 1) * s), int((y + size * 1.3) * s)
