"""Training and measurement samples for the slip recogniser: slip lines drawn and scanned.

``sample_text`` draws what a player writes in a slip's play field (``H8 CASA``,
``8H CHORIZo`` with a circled blank, ``H8 CASA→``, a round number, a name);
``make_sample`` draws it with a writer, distorts it (elastic, pen widths, printed
box borders, paper, blur, noise, JPEG) and returns the recogniser's input
(``lineimage.prepare_line``) with the label as token indices. All randomness comes
from the ``numpy.random.Generator`` passed in, so a seed fixes a sample.
"""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from rules_core.alphabet import as_blank, label, split_letters, tiles_from_text, word_text
from rules_core.notation import Play
from vision.slips import absolute, ctc, glyphs, layout
from vision.slips.decoder import unseparated
from vision.slips.lineimage import BOARD_END_MARGIN, prepare_line
from vision.slips.recognizer import default_recognizer
from vision.slips.squares import LETTER_INDEX, square_cells, square_image
from vision.slips.synthetic import drawn, unipen
from vision.slips.synthetic import handwriting as hw
from vision.slips.tokens import encode

from .allographs import ALL_CHARS, AllographWriter

ROWS: Final = "ABCDEFGHIJKLMNO"
LETTERS: Final = ("A B C CH D E F G H I J L LL M N Ñ O P Q R RR S T U V X Y Z").split()
# Tiles whose handwritten forms the recogniser confuses (model card, confusion.png): drawn more often
# when a line is made to stress them (``Emphasis.confusable``).
CONFUSABLE: Final = ("H M N Ñ U V O D Q B E F P R I J L T Y CH LL RR").split()
LEXICON: Final = Path(__file__).resolve().parents[2] / "rules_core" / "data" / "veedor-es-libre.txt.gz"


def load_words(path: Path = LEXICON, limit: int = 200_000, seed: int = 0) -> list[str]:
    """Up to ``limit`` words of 2-15 letters of the free word list, uppercase, a fixed sample."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        words = [w.strip().upper() for w in handle]
    words = [w.replace("[", "").replace("]", "") for w in words if w.strip()]
    words = [w for w in words if 2 <= len(w) <= 15 and "K" not in w and "W" not in w]
    rng = np.random.default_rng(seed)
    if len(words) > limit:
        words = [words[i] for i in rng.choice(len(words), limit, replace=False)]
    return words


@dataclass(frozen=True)
class Emphasis:
    """What the lines stress (the defaults are the first training's): the share of lines whose word
    is drawn mostly from ``CONFUSABLE`` tiles, the share with circled blanks, and the share written
    with a different writer for each glyph (more variety of hands per line), the share whose
    glyphs are each bent by a random affine and elastic warp (letter shapes no font has), and the
    share whose writer draws some characters in shapes hands use and fonts lack (``allographs``)."""

    confusable: float = 0.0
    circled: float = 0.35
    mixed_writers: float = 0.0
    warped: float = 0.0  # share of lines whose every glyph is bent anew (``WarpedWriter``)
    allographs: float = 0.0  # share of lines whose writer draws some characters as other hands do (``allographs``)
    allograph_chars: str = ALL_CHARS  # the characters so drawn


def _random_word(rng: np.random.Generator) -> str:
    length = int(rng.integers(2, 12))
    return "".join(LETTERS[int(rng.integers(len(LETTERS)))] for _ in range(length))


def _confusable_word(rng: np.random.Generator, words: Sequence[str]) -> str:
    """A word of the list with a confusable tile, or random tiles two thirds from ``CONFUSABLE``."""
    if rng.random() < 0.5:
        for _ in range(20):
            word = words[int(rng.integers(len(words)))]
            if sum(tile in CONFUSABLE for tile in split_letters(word)) >= max(1, len(word) // 2):
                return word
    length = int(rng.integers(2, 10))
    pool = [CONFUSABLE if rng.random() < 0.67 else LETTERS for _ in range(length)]
    return "".join(tiles[int(rng.integers(len(tiles)))] for tiles in pool)


def _circle_some(word: str, rng: np.random.Generator) -> str:
    """``word`` with one or two of its tiles lowercased (circled blanks)."""
    tiles = split_letters(word)  # CH, LL, RR as one tile each
    count = 1 if rng.random() < 0.8 or len(tiles) < 3 else 2
    for i in rng.choice(len(tiles), min(count, len(tiles)), replace=False):
        tiles[int(i)] = tiles[int(i)].lower()
    return "".join(tiles)


def coordinate(rng: np.random.Generator, down: bool | None = None) -> str:
    row = ROWS[int(rng.integers(15))]
    col = str(int(rng.integers(1, 16)))
    down = bool(rng.random() < 0.5) if down is None else down
    return col + row if down else row + col


def sample_text(rng: np.random.Generator, words: Sequence[str], emphasis: Emphasis = Emphasis()) -> str:
    """What a player writes in a play field, or now and then another field of the slip."""
    kind = rng.random()
    if kind < 0.06:
        return str(int(rng.integers(1, 40)))  # a round or table number
    if kind < 0.10:
        return " ".join(words[int(rng.integers(len(words)))][:8] for _ in range(int(rng.integers(1, 3))))
    if emphasis.confusable and rng.random() < emphasis.confusable:
        word = _confusable_word(rng, words)
    else:
        word = words[int(rng.integers(len(words)))] if rng.random() < 0.75 else _random_word(rng)
    if rng.random() < emphasis.circled:
        word = _circle_some(word, rng)
    separator = "-" if rng.random() < 0.12 else " "
    text = coordinate(rng) + separator + word
    if rng.random() < 0.18:
        text += "→" if rng.random() < 0.5 else "↓"
    if rng.random() < 0.03:
        text += " " + coordinate(rng) + " " + words[int(rng.integers(len(words)))]
    return text


@dataclass(frozen=True)
class Sample:
    image: np.ndarray  # float32 (32, W), ink 1
    label: list[int]  # token indices
    text: str


def _borders(mask: np.ndarray, rng: np.random.Generator, pen: float) -> np.ndarray:
    """Parts of a printed box around the writing (what a loose crop of a field shows)."""
    h, w = mask.shape
    pad_y, pad_x = int(rng.integers(2, 14)), int(rng.integers(2, 20))
    canvas = cv2.copyMakeBorder(mask, pad_y, pad_y, pad_x, pad_x, cv2.BORDER_CONSTANT, value=0)
    ch, cw = canvas.shape
    thickness = max(1, int(rng.integers(1, 3)))
    for side in range(4):
        if rng.random() < 0.5:
            continue
        if side == 0:
            cv2.line(canvas, (0, 0), (cw - 1, 0), 1.0, thickness)
        elif side == 1:
            cv2.line(canvas, (0, ch - 1), (cw - 1, ch - 1), 1.0, thickness)
        elif side == 2:
            cv2.line(canvas, (0, 0), (0, ch - 1), 1.0, thickness)
        else:
            cv2.line(canvas, (cw - 1, 0), (cw - 1, ch - 1), 1.0, thickness)
    return canvas


def scan_noise(gray: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """What a document scanner and its JPEG do to a grey image: blur, resolution, noise, shading."""
    image = gray.astype(np.float32)
    h, w = image.shape
    if rng.random() < 0.5:
        gradient = np.linspace(rng.normal(0, 12), rng.normal(0, 12), w, dtype=np.float32)
        image += gradient[None, :]
    if rng.random() < 0.6:
        image = cv2.GaussianBlur(image, (0, 0), float(rng.uniform(0.3, 1.2)))
    if rng.random() < 0.4:
        factor = float(rng.uniform(0.45, 0.9))
        small = cv2.resize(image, (max(8, int(w * factor)), max(8, int(h * factor))), interpolation=cv2.INTER_AREA)
        image = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    image += rng.normal(0, float(rng.uniform(0, 10)), image.shape).astype(np.float32)
    out = np.clip(image, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
        if ok:
            out = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE)
    return out


def draw_line(text: str, writer: hw.Writer, rng: np.random.Generator, borders: float = 0.25) -> np.ndarray:
    """Grey uint8 image of ``text`` handwritten by ``writer``, distorted and scanned."""
    style = hw.Style.random(rng)
    mask = hw.render_line(text, writer, rng, style)
    if rng.random() < 0.6:
        mask = hw.elastic(mask, rng, style.height * float(rng.uniform(0.03, 0.09)), style.height * 0.25)
    if rng.random() < borders:
        mask = _borders(mask, rng, style.pen)
    if isinstance(writer, unipen.UnipenWriter) and rng.random() < 0.5:  # real pens: blue or black, paper fibres
        return scan_noise(unipen.ink_on_textured_paper(mask, rng), rng)
    return scan_noise(hw.ink_on_paper(mask, rng), rng)


@dataclass(eq=False)
class MixedWriter:
    """A writer that lends each glyph to a writer of ``pool`` drawn at random (training variety)."""

    pool: Sequence[hw.Writer]
    name: str = "mixed"

    def glyph(self, char: str, rng: np.random.Generator, pen: float) -> hw.Mask:
        return hw.pick_writer(self.pool, rng).glyph(char, rng, pen)


def warp_glyph(mask: hw.Mask, rng: np.random.Generator) -> hw.Mask:
    """``mask`` (ink 1) bent as another hand might draw it: a random affine about its centre (squash,
    stretch, shear both ways, a turn) and a local elastic warp of about a twentieth of its height."""
    h, w = mask.shape
    pad = max(h, w) // 2 + 2
    big = cv2.copyMakeBorder(mask, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    turn = np.deg2rad(rng.normal(0, 4))
    linear = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]]) @ np.array(
        [[np.exp(rng.normal(0, 0.12)), rng.normal(0, 0.18)], [rng.normal(0, 0.08), np.exp(rng.normal(0, 0.08))]])
    centre = np.array([big.shape[1] / 2, big.shape[0] / 2])
    matrix = np.hstack([linear, (centre - linear @ centre)[:, None]]).astype(np.float32)
    bent = cv2.warpAffine(big, matrix, (big.shape[1], big.shape[0]), flags=cv2.INTER_LINEAR)
    bent = hw.elastic(bent, rng, h * float(rng.uniform(0.03, 0.08)), h * float(rng.uniform(0.08, 0.16)))
    return hw.tight(bent, 0.05)


@dataclass(eq=False)
class WarpedWriter:
    """``writer`` with each glyph bent anew by ``warp_glyph`` (training variety for hands never seen)."""

    writer: hw.Writer
    name: str = "warped"

    def glyph(self, char: str, rng: np.random.Generator, pen: float) -> hw.Mask:
        return warp_glyph(self.writer.glyph(char, rng, pen), rng)


def _writer(pool: Sequence[hw.Writer], rng: np.random.Generator, emphasis: Emphasis) -> hw.Writer:
    mixed = bool(emphasis.mixed_writers) and rng.random() < emphasis.mixed_writers
    writer: hw.Writer = MixedWriter(pool) if mixed else hw.pick_writer(pool, rng)
    if emphasis.allographs and rng.random() < emphasis.allographs:
        writer = AllographWriter(writer, float(rng.uniform(0.3, 1.0)), emphasis.allograph_chars)
    if emphasis.warped and rng.random() < emphasis.warped:
        return WarpedWriter(writer)
    return writer


def make_sample(rng: np.random.Generator, words: Sequence[str], pool: Sequence[hw.Writer],
                text: str | None = None, emphasis: Emphasis = Emphasis()) -> Sample:  # fmt: skip
    """One training or measurement sample: a random (or given) line by a writer of ``pool``."""
    text = text if text is not None else sample_text(rng, words, emphasis)
    writer = _writer(pool, rng, emphasis)
    gray = draw_line(text, writer, rng)
    return Sample(prepare_line(gray), encode(text), text)


def draw_slip_line(text: str, writer: hw.Writer, rng: np.random.Generator) -> np.ndarray:
    """Grey image of ``text`` as the reader cuts it from a slip: coordinate and word boxes written, then joined."""
    from vision.slips.reader import join_line

    parts = text.split(" ", 1) if " " in text and text[0] != " " else ["", text]
    height = int(rng.integers(70, 120))
    level, ink = int(rng.integers(215, 250)), float(rng.uniform(10, 90))
    crops = []
    for part, width in ((parts[0], int(height * rng.uniform(1.3, 1.9))), (parts[1], int(height * rng.uniform(3.5, 5.5)))):
        paper = np.full((height, width), level, np.uint8)
        if part:
            drawn.write_in_box(paper, (0, 0, width, height), part, writer, rng, ink)
        crops.append(paper)
    return scan_noise(join_line(crops[0], crops[1]), rng)


def make_slip_sample(rng: np.random.Generator, words: Sequence[str], pool: Sequence[hw.Writer],
                     emphasis: Emphasis = Emphasis()) -> Sample:  # fmt: skip
    """A play line as cut from a slip (coordinate box, gap, word box); labels without the hyphen form."""
    text = sample_text(rng, words, emphasis).replace("-", " ")
    if " " not in text.strip():
        return make_sample(rng, words, pool, text, emphasis)
    writer = _writer(pool, rng, emphasis)
    return Sample(prepare_line(draw_slip_line(text, writer, rng)), encode(text), text)


@lru_cache(maxsize=1)
def blank_absolute_slip() -> np.ndarray:
    """A printed absolute slip's frame (``absolute.render_absolute_slip``), nothing written."""
    return absolute.render_absolute_slip(layout.SlipInfo("p1", "Partida", 1, "j1", "Jugador"))


def _board_word(rng: np.random.Generator, words: Sequence[str], pool: Sequence[hw.Writer], emphasis: Emphasis,
                slip: np.ndarray, two_circles: bool = False) -> tuple[np.ndarray, list[tuple[int, int]], list[int]]:  # fmt: skip
    """A word written one letter a square on ``slip``'s board (``drawn.fill_grid``), a circled blank in
    ``emphasis.circled`` of the words (a second one in a fifth of those with ``two_circles``), the written part
    scanned: the frame, the word's squares and its tiles."""
    tiles = list(tiles_from_text(words[int(rng.integers(len(words)))]))[:15]
    if rng.random() < emphasis.circled:
        for _ in range(1 + int(two_circles and rng.random() < 0.2)):
            at = int(rng.integers(len(tiles)))
            tiles[at] = as_blank(tiles[at])
    start, line = int(rng.integers(0, 16 - len(tiles))), int(rng.integers(0, 15))
    down = bool(rng.random() < 0.5)
    play = Play(start, line, True, tuple(tiles)) if down else Play(line, start, False, tuple(tiles))
    frame = drawn.fill_grid(slip, play, _writer(pool, rng, emphasis), rng)
    squares = play.squares()
    (x0, y0, _, _), (_, _, x1, y1) = absolute.cell_box(*squares[0]), absolute.cell_box(*squares[-1])
    margin = int(4 * layout.PX_PER_MM)
    written = np.s_[max(0, y0 - margin) : y1 + margin, max(0, x0 - margin) : x1 + margin]
    frame[written] = scan_noise(frame[written], rng)
    return frame, squares, tiles


def make_grid_sample(rng: np.random.Generator, words: Sequence[str], pool: Sequence[hw.Writer],
                     emphasis: Emphasis = Emphasis()) -> Sample:  # fmt: skip
    """A word as the reader takes it from an absolute slip's board: one letter written in each square
    (``_board_word``), the squares cut and joined (``absolute.cells_line``)."""
    frame, squares, tiles = _board_word(rng, words, pool, emphasis, blank_absolute_slip())
    text = word_text(tiles)
    return Sample(prepare_line(absolute.cells_line(frame, squares), BOARD_END_MARGIN), encode(text), text)


SQUARE_EMPHASIS = Emphasis(circled=0.45, mixed_writers=0.2)  # the square classifier's words


def make_grid_squares(rng: np.random.Generator, words: Sequence[str], pool: Sequence[hw.Writer], slip: np.ndarray,
                      emphasis: Emphasis = SQUARE_EMPHASIS) -> list[tuple[np.ndarray, int, int]]:  # fmt: skip
    """A word written on the absolute slip ``slip``'s board (``_board_word``, up to two circled blanks), each
    square cut as the reader cuts it, moved by up to a pixel as a homography does: per square (ink image,
    ``squares.square_image``; letter index, ``squares.LETTERS``; circled)."""
    frame, squares, tiles = _board_word(rng, words, pool, emphasis, slip, two_circles=True)
    paper = absolute.paper_level(frame)
    out = []
    for square, tile in zip(squares, tiles):
        dx, dy = (int(v) for v in rng.integers(-1, 2, 2))
        (cell,) = square_cells(frame, [square], dx, dy)
        text = label(tile)
        out.append((square_image(cell, paper), LETTER_INDEX[text.upper()], int(text.islower())))
    return out


def line_glyphs(sample: Sample, rng: np.random.Generator | None) -> list[tuple[np.ndarray, int, int]]:
    """(window, glyph class, circled) of each capital and digit of a sample line, cut where the committed
    line recogniser's best path through the true text puts it (moved by N(0, 1) px with ``rng``)."""
    text = unseparated(sample.text)
    if not text:
        return []
    log_probs = default_recognizer().log_probs(sample.image)
    spans = glyphs.align(ctc.absorb(log_probs, glyphs.SEPARATORS), encode(text))
    if spans is None:
        return []
    centres = glyphs.centres_of(spans)
    reads = glyphs.glyph_labels(text)
    moved = [centres[i] + (float(rng.normal(0, 1.0)) if rng is not None else 0.0) for i, _, _ in reads]
    cut = glyphs.windows(sample.image, moved)
    return [(cut[k], g, c) for k, (_, g, c) in enumerate(reads)]
