"""Absolute-board notation (FILE duplicate D.III.20.1.c): the play written on a printed 15x15 board.

An absolute slip is the usual slip (``layout``: same markers 0-3, QR code, boxes, in the same
place) with a board to its right: the slip frame goes on to ``ABS_W`` mm, two more markers
(ids 4 and 5, ``MARKERS``) mark the board's side, and the grid (``GRID_X0``, ``GRID_Y0``,
``CELL``) has its coordinates printed around it and its premium squares lightly tinted. The
player writes each letter of the main word in its square, a blank's letter circled.

Reading (``SlipReader`` does it when a slip's board side carries marker 4 or 5): the board is
straightened with the same homography as the slip (``rectify_board``), the written squares
found (``written_cells``: enough ink inside a square, tints and printed lines ignored); written
squares not all in one line are ``several_plays`` (D.III.20.2). Otherwise the squares are
scored against the legal plays whose main word covers them and whose new tiles are all written
(``grid_candidates``) by each of the board's readers (``BoardReader``): the squares' crops joined in
reading order into one line read by a line recogniser (``line_reader``, ``decoder.score_line``), and
the squares one by one by the square classifier (``squares``). Each decides as a written play is
decided (``decide_scored``): the same verdicts and flags (an uncircled blank of the rack:
``unmarked_blank``; a reading that is no legal play: scored 0 as written with the squares'
coordinate, or ``illegible``); the decision stands only where all agree (``agreed``), and never
where the written squares leave an empty square between them (``has_gap``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import Final

import cv2
import numpy as np

from rules_core.alphabet import BLANK, Tile, label
from rules_core.board import PREMIUMS, ROW_LABELS, Board, Premium
from rules_core.lexicon import Lexicon
from rules_core.movegen import ScoredPlay, generate_plays
from rules_core.notation import Play

from . import ctc, layout, light, tokens
from .decoder import Candidate, CandidateSet, Decision, Scored, Thresholds, decide_scored, options_of, score_line
from .glyphs import check_letters
from .strikes import marked_out

ABS_W: Final = 190.0  # the absolute slip's width, mm (its height is layout.SLIP_H)
CELL: Final = 4.2  # a square of the printed board, mm
GRID_X0: Final = 110.0
GRID_Y0: Final = 5.5
GRID_SIDE: Final = 15 * CELL
MARKERS: Final = {4: (178.0, 3.0), 5: (178.0, 58.0)}  # top-left corners of the board side's markers
TINT: Final = {Premium.DOUBLE_LETTER: 240, Premium.TRIPLE_LETTER: 232, Premium.DOUBLE_WORD: 236,
               Premium.TRIPLE_WORD: 228}  # fmt: skip
PLAIN: Final = tuple((row, col) for row in range(15) for col in range(15) if PREMIUMS[row][col] not in TINT)
SHADOW_MM: Final = 2 * CELL  # a dark thing this long or longer is no letter: a shadow (``written_cells``)
NEAR: Final = 1  # squares each way around a square whose paper gives it its grey (``local_paper``)
INK_CONTRAST: Final = 55  # grey levels under the paper that count as a pen's ink (tints are lighter)
UNNAMED: Final = 1e-6  # a reader's posterior for an outcome it does not name (``proposed_together``)
LINE_END_INK: Final = 0.03  # share of a square's inside inked that carries a line of written squares on
FAINT_CONTRAST: Final = 32  # the least contrast taken as ink, for a faint pencil (the darkest tint is 27 under)
SOLID_CONTRAST: Final = 80  # grey levels under the paper that count as solid ink, for ``blotted``
BLOT_RADIUS: Final = 0.2  # of a square: solid ink this thick is a blot (``blotted``); on 900 calibration boards
#                          (fonts, real characters, UNIPEN writers) letters reached 0.149, blots 0.256 or more
RULE_SEARCH: Final = 3  # px: a printed line is looked for this far from where it is printed, and replaced from
#                        this far beside it
SquareT = tuple[int, int]
LineReader = Callable[[np.ndarray], tuple[np.ndarray, list[np.ndarray]]]  # a grey line -> log-probs, views


def cell_box(row: int, col: int, px_per_mm: float = layout.PX_PER_MM, inset: float = 0.0) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1) px of a square in the absolute slip's frame."""
    x0, y0 = GRID_X0 + col * CELL + inset, GRID_Y0 + row * CELL + inset
    s = px_per_mm
    return (int(round(x0 * s)), int(round(y0 * s)), int(round((x0 + CELL - 2 * inset) * s)),
            int(round((y0 + CELL - 2 * inset) * s)))  # fmt: skip


def _paste_marker(image: np.ndarray, marker_id: int, x: float, y: float, s: float) -> None:
    bits = layout.marker_bits(marker_id)
    cell = layout.MARKER / bits.shape[0]
    for r in range(bits.shape[0]):
        for c in range(bits.shape[1]):
            if not bits[r, c]:
                image[int(round((y + r * cell) * s)) : int(round((y + (r + 1) * cell) * s)),
                      int(round((x + c * cell) * s)) : int(round((x + (c + 1) * cell) * s))] = 0  # fmt: skip


def render_absolute_slip(info: layout.SlipInfo, px_per_mm: float = layout.PX_PER_MM) -> np.ndarray:
    """The printed absolute slip (``ABS_W`` x ``SLIP_H`` mm) as grey uint8, nothing written."""
    s = px_per_mm
    left = layout.render_slip(info, s)
    image = np.full((left.shape[0], int(round(ABS_W * s))), 255, np.uint8)
    image[:, : left.shape[1]] = left
    for marker_id, (x, y) in MARKERS.items():
        _paste_marker(image, marker_id, x, y, s)
    for row in range(15):
        for col in range(15):
            premium = PREMIUMS[row][col]
            if premium in TINT:
                x0, y0, x1, y1 = cell_box(row, col, s)
                image[y0:y1, x0:x1] = TINT[premium]
    for i in range(16):
        x = int(round((GRID_X0 + i * CELL) * s))
        y = int(round((GRID_Y0 + i * CELL) * s))
        cv2.line(image, (x, int(GRID_Y0 * s)), (x, int((GRID_Y0 + GRID_SIDE) * s)), 120, 1)
        cv2.line(image, (int(GRID_X0 * s), y), (int((GRID_X0 + GRID_SIDE) * s), y), 120, 1)
    font, scale = cv2.FONT_HERSHEY_SIMPLEX, 0.045 * s
    for i in range(15):
        text = str(i + 1)
        width = cv2.getTextSize(text, font, scale, 1)[0][0]
        cx = int(round((GRID_X0 + (i + 0.5) * CELL) * s - width / 2))
        cv2.putText(image, text, (cx, int((GRID_Y0 - 0.8) * s)), font, scale, 60, 1, cv2.LINE_AA)
        cy = int(round((GRID_Y0 + (i + 0.5) * CELL + 0.8) * s))
        cv2.putText(image, ROW_LABELS[i], (int((GRID_X0 - 3.2) * s), cy), font, scale, 60, 1, cv2.LINE_AA)
    return image


def board_box(px_per_mm: float = layout.PX_PER_MM) -> tuple[int, int, int, int]:
    """The board with its printed coordinates, (x0, y0, x1, y1) px of the absolute slip's frame."""
    s = px_per_mm
    return (int((GRID_X0 - 4.0) * s), int((GRID_Y0 - 3.5) * s), int((GRID_X0 + GRID_SIDE + 0.5) * s),
            int(min(layout.SLIP_H, GRID_Y0 + GRID_SIDE + 0.5) * s))  # fmt: skip


def rectify_board(gray: np.ndarray, slip_from_image: np.ndarray, px_per_mm: float = layout.PX_PER_MM) -> np.ndarray | None:
    """The absolute slip's whole frame (``ABS_W`` x ``SLIP_H`` mm) straightened by the slip's homography,
    or None when the scan shows no board side (an ordinary slip: only the strip where markers 4 and 5
    would be is straightened and looked at, which costs little). From a phone's photo, after
    ``register.sampled_for``."""
    scale = np.diag([px_per_mm, px_per_mm, 1.0])
    strip_x = MARKERS[4][0] - 3.0
    shift = np.array([[1.0, 0.0, -strip_x * px_per_mm], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    strip_size = (int(round((ABS_W - strip_x) * px_per_mm)), int(round(layout.SLIP_H * px_per_mm)))
    strip = cv2.warpPerspective(gray, shift @ scale @ slip_from_image, strip_size, flags=cv2.INTER_AREA,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=255)  # fmt: skip
    if not _board_markers(strip):
        return None
    size = (int(round(ABS_W * px_per_mm)), int(round(layout.SLIP_H * px_per_mm)))
    return cv2.warpPerspective(gray, scale @ slip_from_image, size, flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=255)  # fmt: skip


def _board_markers(strip: np.ndarray) -> bool:
    """Whether marker 4 or 5 is on the strip."""
    dictionary = cv2.aruco.getPredefinedDictionary(layout.MARKER_DICT)
    detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
    _, ids, _ = detector.detectMarkers(strip)
    return ids is not None and any(int(i) in MARKERS for i in ids.ravel())


def paper_level(frame: np.ndarray, px_per_mm: float = layout.PX_PER_MM) -> float:
    """The paper's grey level on the board: the median grey of its untinted squares' insides (a letter covers less
    than half of a square, and a blank square is paper). Not a high percentile of the grid: a phone's noise lifts it
    over the paper by up to 20 grey levels, and the darkest tint then passes for ink (``written_cells``)."""
    insides = [frame[slice(*box[1::2]), slice(*box[0::2])].ravel()
               for box in (cell_box(row, col, px_per_mm, inset=0.6) for row, col in PLAIN)]  # fmt: skip
    return float(np.median(np.concatenate(insides)))


def written_cells(frame: np.ndarray, px_per_mm: float = layout.PX_PER_MM) -> list[SquareT]:
    """The squares with writing in them: ink (``INK_CONTRAST`` under the paper, less for a faint pencil but
    never under ``FAINT_CONTRAST``) over 1.2 % of a square's inside, as a stroke at least 40 % of the square
    high or over 8 % of it (a stroke straying over a line from the next square is short). A square that
    carries on the line of such squares at either end, or lies between two of them, needs only
    ``LINE_END_INK`` of ink, whatever its strokes' height: a faint letter written in broken strokes (a thin T)
    still starts the word, and a small C still joins the letters on either side of it."""
    spans = {(row, col): (slice(*box[1::2]), slice(*box[0::2]))
             for row in range(15) for col in range(15) for box in [cell_box(row, col, px_per_mm, inset=0.6)]}
    insides = {square: frame[span] for square, span in spans.items()}
    papers = local_paper(insides)
    darkest = float(np.percentile(np.concatenate([v.ravel() for v in insides.values()]), 0.1))
    threshold = max(FAINT_CONTRAST, min(INK_CONTRAST, 0.45 * (float(np.median(papers)) - darkest)))
    lifted = light.short_marks_lifted(frame, round(SHADOW_MM * px_per_mm))
    inked: dict[SquareT, float] = {}
    written: set[SquareT] = set()
    for square, inside in insides.items():
        grey = inside.astype(np.float32)
        ink = np.minimum(papers[square] - grey, lifted[spans[square]] - grey) > threshold
        if ink.mean() < 0.012:
            continue
        inked[square] = float(ink.mean())
        count, _, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
        big = [i for i in range(1, count) if stats[i, cv2.CC_STAT_AREA] >= 10]
        if any(stats[i, cv2.CC_STAT_HEIGHT] >= 0.4 * ink.shape[0] for i in big) or ink.mean() >= 0.08:
            written.add(square)
    return sorted(written | _line_ends(written, inked) | _line_gaps(written, inked))


def local_paper(insides: dict[SquareT, np.ndarray]) -> np.ndarray:
    """(15, 15) the paper's grey at each square: the median of the untinted squares' median greys around it (``NEAR``
    squares each way). What light a phone's photo leaves uneven after ``light.even`` (the edge of a shadow across the
    board) is not taken for ink there, nor a tint in it."""
    plain = np.full((15, 15), np.nan)
    for square in PLAIN:
        plain[square] = np.median(insides[square])
    return np.array([[np.nanmedian(plain[max(0, r - NEAR) : r + NEAR + 1, max(0, c - NEAR) : c + NEAR + 1])
                      for c in range(15)] for r in range(15)])  # fmt: skip


def squares_box(squares: Collection[SquareT], px_per_mm: float = layout.PX_PER_MM) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1) px of the rectangle from the first of ``squares`` to the last, in the absolute slip's
    frame."""
    rows, cols = [row for row, _ in squares], [col for _, col in squares]
    x0, y0, _, _ = cell_box(min(rows), min(cols), px_per_mm)
    _, _, x1, y1 = cell_box(max(rows), max(cols), px_per_mm)
    return x0, y0, x1, y1


def blotted(frame: np.ndarray, written: Sequence[SquareT], px_per_mm: float = layout.PX_PER_MM) -> bool:
    """Whether a blot of ink lies on the written squares: solid ink (``SOLID_CONTRAST`` under the paper) whose
    inscribed circle has a radius of ``BLOT_RADIUS`` of a square or more, within half a square of the squares'
    span. Measured on the board itself, not on the squares' crops, which cut a blot at the printed lines. A blot
    hides letters, and those left may still spell a legal play: illegible, the arbiter's to decide (D.III.20.4)."""
    if not written:
        return False
    x0, y0, x1, y1 = squares_box(written, px_per_mm)
    margin = int(CELL * px_per_mm / 2)
    strip = frame[max(0, y0 - margin) : y1 + margin, max(0, x0 - margin) : x1 + margin].astype(np.float32)
    solid = np.pad(((paper_level(frame, px_per_mm) - strip) > SOLID_CONTRAST).astype(np.uint8), 1)
    radius = float(cv2.distanceTransform(solid, cv2.DIST_L2, 5).max())
    return radius >= BLOT_RADIUS * CELL * px_per_mm


def struck(frame: np.ndarray, written: Sequence[SquareT], px_per_mm: float = layout.PX_PER_MM) -> bool:
    """Whether the play written in ``written`` squares is struck out with one line along them, crossed out with
    an X or scrawled through (``strikes.marked_out``), measured on the board without its printed lines
    (``unruled``), over the squares, half a square beyond either end and a tenth of one either side (on calibration
    boards half a square either side missed 7 more of 222 struck plays). Squares not in one line are the
    several-plays flag's, not this one's. The ink is looked at twice: at ``INK_CONTRAST``, then at
    ``FAINT_CONTRAST``, where a thin line the scan has greyed stays unbroken (zigzags caught on calibration boards
    195 -> 228 of 245, none of 3,892 written boards flagged; models/slips/HISTORY.md, twenty-third revision)."""
    across = in_one_line(written) if written else None
    if across is None:
        return False
    x0, y0, x1, y1 = squares_box(written, px_per_mm)
    along, across_it = int(CELL * px_per_mm / 2), int(CELL * px_per_mm / 10)
    dx, dy = (along, across_it) if across else (across_it, along)
    contrast = unruled(frame, (max(0, x0 - dx), max(0, y0 - dy), x1 + dx, y1 + dy), px_per_mm)
    along_x = contrast if across else contrast.T
    return marked_out(along_x > INK_CONTRAST) or marked_out(along_x > FAINT_CONTRAST)


def unruled(frame: np.ndarray, box: tuple[int, int, int, int], px_per_mm: float) -> np.ndarray:
    """The ink of ``box`` (x0, y0, x1, y1 px; contrast under the paper's grey, float32) with the printed grid lines
    taken out: each line, found within ``RULE_SEARCH`` px of where it is printed, takes at each pixel the lighter
    of the greys ``RULE_SEARCH`` px either side, so a stroke across it carries on and the line itself goes."""
    x0, y0, x1, y1 = box
    pad = 2 * RULE_SEARCH
    ox, oy = max(0, x0 - pad), max(0, y0 - pad)
    contrast = paper_level(frame, px_per_mm) - frame[oy : y1 + pad, ox : x1 + pad].astype(np.float32)
    for i in range(16):
        _take_out_rule(contrast, round((GRID_X0 + i * CELL) * px_per_mm) - ox)  # a column of the grid
        _take_out_rule(contrast.T, round((GRID_Y0 + i * CELL) * px_per_mm) - oy)  # a row, as a column
    return contrast[y0 - oy : y1 - oy, x0 - ox : x1 - ox]


def _take_out_rule(contrast: np.ndarray, printed_at: int) -> None:
    """Take the printed line nearest column ``printed_at`` out of ``contrast`` (H, W), in place."""
    near = range(max(2 * RULE_SEARCH, printed_at - RULE_SEARCH),
                 min(contrast.shape[1] - 2 * RULE_SEARCH, printed_at + RULE_SEARCH + 1))  # fmt: skip
    if not near:
        return
    at = max(near, key=lambda x: float(contrast[:, x].mean()))
    beside = np.minimum(contrast[:, at - RULE_SEARCH], contrast[:, at + RULE_SEARCH])
    contrast[:, at - 1 : at + 2] = beside[:, None]


def _line_ends(written: set[SquareT], inked: dict[SquareT, float]) -> set[SquareT]:
    """Squares with ``LINE_END_INK`` of ink that carry on the line of ``written`` squares at either end."""
    line = in_one_line(sorted(written)) if len(written) >= 2 else None
    if line is None:
        return set()
    step = (0, 1) if line else (1, 0)
    added: set[SquareT] = set()
    for sign, end in ((-1, min(written)), (1, max(written))):
        square = (end[0] + sign * step[0], end[1] + sign * step[1])
        while inked.get(square, 0.0) >= LINE_END_INK:
            added.add(square)
            square = (square[0] + sign * step[0], square[1] + sign * step[1])
    return added


def _line_gaps(written: set[SquareT], inked: dict[SquareT, float]) -> set[SquareT]:
    """Squares with ``LINE_END_INK`` of ink between the first and the last of ``written`` squares in one line."""
    if len(written) < 2 or in_one_line(sorted(written)) is None:
        return set()
    return {square for square in span(written) if square not in written and inked.get(square, 0.0) >= LINE_END_INK}


def span(squares: Collection[SquareT]) -> list[SquareT]:
    """Every square of the line from the first of ``squares`` to the last (all in one row or one column)."""
    (row0, col0), (row1, col1) = min(squares), max(squares)
    return [(row0, c) for c in range(col0, col1 + 1)] if row0 == row1 else [(r, col0) for r in range(row0, row1 + 1)]


def in_one_line(squares: Sequence[SquareT]) -> bool | None:
    """True across, False down, None when the squares are not all in one row or one column."""
    rows, cols = {r for r, _ in squares}, {c for _, c in squares}
    if len(rows) == 1:
        return True
    if len(cols) == 1:
        return False
    return None


def cells_line(frame: np.ndarray, squares: Sequence[SquareT], px_per_mm: float = layout.PX_PER_MM) -> np.ndarray:
    """The written squares' crops side by side in reading order (grey, tints and printed lines whitened)."""
    paper = paper_level(frame, px_per_mm)
    crops = []
    for row, col in squares:
        x0, y0, x1, y1 = cell_box(row, col, px_per_mm, inset=0.35)
        crop = frame[y0:y1, x0:x1].astype(np.float32)
        crop = np.where(paper - crop > 40, crop, paper)
        cols = np.nonzero(((paper - crop) > INK_CONTRAST).any(axis=0))[0]
        if len(cols):
            crop = crop[:, max(0, cols[0] - 3) : cols[-1] + 4]
        crops.append(crop)
        crops.append(np.full((crop.shape[0], max(3, crop.shape[0] // 6)), paper, np.float32))
    return np.clip(np.hstack(crops[:-1]), 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class Placed:
    """A legal play with its main word's squares and the squares of its new tiles."""

    sp: ScoredPlay
    squares: tuple[SquareT, ...]
    new: frozenset[SquareT]


def placements(board: Board, rack: Sequence[Tile], lexicon: Lexicon) -> list[Placed]:
    out = []
    for sp in generate_plays(board, rack, lexicon):
        squares = tuple(sp.play.squares())
        out.append(Placed(sp, squares, frozenset(sq for sq in squares if board[sq] == 0)))
    return out


def grid_candidates(board: Board, placed: Sequence[Placed], written: Sequence[SquareT], rack_blanks: int) -> CandidateSet:
    """The written forms (the letters of the written squares, in order) of every legal play whose main
    word covers the written squares and whose new tiles are all written: as notated (blanks circled),
    board blanks unmarked, and rack blanks unmarked (``unmarked_blank``)."""
    wanted = set(written)
    forms: dict[str, Candidate] = {}
    later = []
    for p in placed:
        if not wanted <= set(p.squares) or not p.new <= wanted:
            continue
        notated, plain, unmarked = [], [], []
        for square, tile in zip(p.squares, p.sp.word):
            if square not in wanted:
                continue
            text = label(tile)
            notated.append(text)
            plain.append(text.upper() if board[square] != 0 else text)
            unmarked.append(text.upper())
        for word in dict.fromkeys(("".join(notated), "".join(plain))):
            forms.setdefault(word, Candidate(word, "play", p.sp.notation, p.sp.score))
        if "".join(unmarked) != "".join(plain):
            later.append(Candidate("".join(unmarked), "unmarked_blank", p.sp.notation, p.sp.score))
    for cand in later:
        forms.setdefault(cand.text, cand)
    candidates = list(forms.values())
    trie = ctc.TokenTrie.build(tokens.encode(c.text) for c in candidates)
    return CandidateSet(candidates, {c.text: i for i, c in enumerate(candidates)}, trie, rack_blanks)


def coordinate_of(written: Sequence[SquareT]) -> str:
    """The coordinate the written squares start at: ``H8`` across, ``8H`` down (across for one square)."""
    across = in_one_line(written) is not False or len(written) == 1
    row, col = min(written)
    return Play(row, col, not across, ()).coordinate()


class PlacementCache:
    """Legal plays with their squares, per position (every slip of a round shares them)."""

    def __init__(self, size: int = 8) -> None:
        self._size = size
        self._sets: OrderedDict[tuple[bytes, tuple[Tile, ...], str], list[Placed]] = OrderedDict()

    def get(self, board: Board, rack: Sequence[Tile], lexicon: Lexicon) -> list[Placed]:
        key = (board.to_bytes(), tuple(sorted(rack)), lexicon.name)
        if key not in self._sets:
            self._sets[key] = placements(board, rack, lexicon)
            while len(self._sets) > self._size:
                self._sets.popitem(last=False)
        self._sets.move_to_end(key)
        return self._sets[key]


def score_grid_line(log_probs: np.ndarray, views: Sequence[np.ndarray], cands: CandidateSet, coordinate: str) -> Scored:
    """The written squares read as one line (``cells_line``; ``log_probs`` the recogniser's output on it,
    ``views`` on its other views) and scored against the plays over them (``decoder.score_line``); a
    reading that is no play is given the squares' coordinate, so that it can be scored 0 as written. How surely
    each letter is read (``Scored.letters``: the line recogniser's probability; the coordinate is the squares') and
    how surely the writing says otherwise than the likeliest plays (``Scored.clashes``, ``glyphs.check_letters``).

    Read as a line, not square by square: on calibration writers 84 % of correct slips were right
    without a flag, and 47 % square by square (``models/slips/HISTORY.md``)."""
    scored = score_line(log_probs, cands, views=views)
    entries = tuple((kind, coordinate + text if kind == "reading" else text, score, value)
                    for kind, text, score, value in scored.entries)  # fmt: skip
    sure, clashes, _ = check_letters(None, None, log_probs, scored, cands)  # circled letters: the squares' reader
    letters = (1.0,) * len(coordinate) + sure if sure else ()
    return Scored(f"{coordinate} {scored.raw}", entries, letters=letters, clashes=clashes)


def reading_order(written: Sequence[SquareT]) -> list[SquareT] | None:
    """The written squares in reading order (across: left to right; down: top to bottom); None when they
    are not in one line."""
    direction = in_one_line(written)
    if direction is None:
        return None
    return sorted(written, key=(lambda sq: sq[1]) if direction else (lambda sq: sq[0]))


@dataclass(frozen=True)
class WrittenSquares:
    """An absolute slip's written squares as the board's readers take them: the straightened slip
    (``rectify_board``), the squares in reading order, their crops joined as one line (``cells_line``), the
    written forms of the plays over them (``grid_candidates``) and the coordinate they start at."""

    frame: np.ndarray
    squares: tuple[SquareT, ...]
    line: np.ndarray
    cands: CandidateSet
    coordinate: str


BoardReader = Callable[[WrittenSquares], Scored]  # the written squares -> scored against the plays over them


def line_reader(read_line: LineReader) -> BoardReader:
    """A line recogniser as a board reader: the squares read as one line (``score_grid_line``)."""

    def read(written: WrittenSquares) -> Scored:
        return score_grid_line(*read_line(written.line), written.cands, written.coordinate)

    return read


def score_board(frame: np.ndarray, ordered: Sequence[SquareT], board: Board, rack: Sequence[Tile], lexicon: Lexicon,
                readers: Sequence[BoardReader], cache: PlacementCache) -> tuple[list[Scored], np.ndarray]:  # fmt: skip
    """The written squares (``reading_order``) scored by each of ``readers`` against every legal play over them;
    and the squares' crops as one line (``cells_line``)."""
    line = cells_line(frame, ordered)
    rack_blanks = sum(1 for t in rack if t == BLANK)
    cands = grid_candidates(board, cache.get(board, rack, lexicon), ordered, rack_blanks)
    written = WrittenSquares(frame, tuple(ordered), line, cands, coordinate_of(ordered))
    return [read(written) for read in readers], line


def has_gap(ordered: Sequence[SquareT], board: Board) -> bool:
    """Whether the written squares leave an empty square of the board between them: no play can be written so
    (D.III.20.1.c: each letter of the main word in its square, the board's own letters may be left out), so a
    square's writing was missed and what the others spell is not what the player wrote."""
    written = set(ordered)
    return any(square not in written and board[square] == 0 for square in span(written))


def decide_grid(frame: np.ndarray, written: Sequence[SquareT], board: Board, rack: Sequence[Tile], lexicon: Lexicon,
                readers: Sequence[BoardReader], thresholds: Sequence[Thresholds],
                cache: PlacementCache) -> tuple[Decision, Scored | None, np.ndarray | None]:  # fmt: skip
    """The decision on an absolute slip's written squares (``written_cells``): ``several_plays`` when they
    are not in one line, else the squares scored by each of ``readers`` (``score_board``) and decided
    (``decide_board``). The scores returned are the first reader's."""
    ordered = reading_order(written)
    if ordered is None:
        return Decision("", None, None, "flagged", ("several_plays",), 0.0), None, None
    scored, line = score_board(frame, ordered, board, rack, lexicon, readers, cache)
    return decide_board(scored, ordered, board, rack, lexicon, thresholds), scored[0], line


def decide_board(scored: Sequence[Scored], ordered: Sequence[SquareT], board: Board, rack: Sequence[Tile],
                 lexicon: Lexicon, thresholds: Sequence[Thresholds]) -> Decision:  # fmt: skip
    """Each reader's scores decided as a written play (``decide_scored``) under its own ``thresholds``; the
    decision stands only where they all agree (``agreed``), and never where the squares leave a gap
    (``has_gap``)."""
    decision = agreed([decide_scored(s, board, rack, lexicon, limits) for s, limits in zip(scored, thresholds, strict=True)])
    if decision.verdict != "flagged" and has_gap(ordered, board):
        decision = replace(decision, verdict="flagged", flags=("illegible",), score=None, notation=None, reason="")
    if decision.flags == ("illegible",):
        return proposed_together(decision, scored, thresholds)
    return decision


def proposed_together(decision: Decision, scored: Sequence[Scored], thresholds: Sequence[Thresholds],
                      top: int = 5) -> Decision:  # fmt: skip
    """A board the readers did not agree on, with what the arbiter is offered (its play and listed outcomes) from all
    of them together: each outcome's posteriors under each reader (``options_of``, ``UNNAMED`` where a reader does
    not name it) multiplied and renormalised. Nothing is scored: the proposal only spares the arbiter typing a play one
    reader read surely and the other doubted (issue 68)."""
    each = [{(o.kind, o.text): o for o in options_of(s, limits)} for s, limits in zip(scored, thresholds, strict=True)]
    named = {key: option for options in each for key, option in options.items()}
    if not named:
        return decision
    logs = {key: sum(np.log(options[key].probability if key in options else UNNAMED) for options in each) for key in named}
    total = np.logaddexp.reduce(np.array(list(logs.values())))
    together = sorted((replace(named[key], probability=float(np.exp(value - total))) for key, value in logs.items()),
                      key=lambda option: -option.probability)  # fmt: skip
    best = together[0]
    play = best.text if best.kind != "reading" else None
    return replace(decision, play=play, options=tuple(together[:top]), confidence=best.probability)


def agreed(decisions: Sequence[Decision]) -> Decision:
    """The first decision where every one is the same verdict on the same play and score, as sure as the least
    sure of them; else the first one flagged ``illegible`` (readers of different kinds rarely share a confident
    misreading: on 2,000 calibration boards the surest wrong decision the line recogniser and the square
    classifier agreed on was 0.90 sure, against 0.97 for the line recogniser alone and 0.95 for the square
    classifier alone, ``models/slips/HISTORY.md``)."""
    first = decisions[0]
    if first.verdict == "flagged":
        return first
    same = all((d.verdict, d.play, d.score, d.notation) == (first.verdict, first.play, first.score, first.notation)
               for d in decisions[1:])  # fmt: skip
    least = min(d.confidence for d in decisions)
    if same:
        return replace(first, confidence=least)
    return replace(first, verdict="flagged", flags=("illegible",), score=None, notation=None, confidence=least,
                   reason="")
