"""Measurement slips: real positions, plays players would write, and the verdict each deserves.

Positions come from ``../shared/golden/positions_dev.jsonl.gz`` (300 positions of
simulated duplicate games, FILE2017). For each slip a play is drawn the way
players choose (often a top play), then written as a player would: canonical
(80 %), oriented with an arrow, or with a mistake an arbiter must catch: a blank
not circled, the coordinate in the wrong order, a word that does not exist. The
writer draws it on a printed slip that is then scanned at any rotation
(``vision.slips.synthetic``). ``Case.expected`` is what a careful arbiter
decides: the play and its score, or 0.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np

from rules_core.alphabet import LETTERS, is_blank, label
from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from rules_core.movegen import ScoredPlay, generate_plays
from rules_core.notation import Play
from rules_core.slips import Slip, score_slip
from vision.slips import absolute, layout
from vision.slips.decoder import unseparated
from vision.slips.synthetic import drawn, unipen
from vision.slips.synthetic import handwriting as hw

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
GOLDEN = SHARED / "golden" / "positions_dev.jsonl.gz"
REAL = SHARED / "data" / "handwriting" / "caps_digits"
Capture = Callable[[np.ndarray, np.random.Generator], np.ndarray]  # a filled slip -> what the reader is given


@dataclass(frozen=True)
class Case:
    kind: str  # "clean", "oriented", "unmarked", "swapped", "phony", "misspelt"; "illegible" (``make_illegible_cases``);
    # ``TWO_NOTATIONS`` (``make_two_notation_cases``); "corrected", "corrected_coordinate", "corrected_below"
    # (``make_correction_cases``)
    cgp: str
    written: str  # what the player wrote (lowercase = circled)
    play: str  # the play meant, canonical
    expected_score: int  # what the rules give the slip (0 for a mistake)
    blank: bool  # the written play has a circled blank
    scan: np.ndarray  # grey scan of the filled slip
    player: str
    round: int


def positions(limit: int | None = None) -> list[str]:
    """CGPs of the golden positions that have a legal play."""
    with gzip.open(GOLDEN, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    cgps = [r["cgp"] for r in rows if r["moves"]]
    return cgps[:limit] if limit else cgps


def _choose_play(plays: Sequence[ScoredPlay], rng: np.random.Generator) -> ScoredPlay:
    roll = rng.random()
    if roll < 0.4:
        return plays[0]
    if roll < 0.75:
        return plays[int(rng.integers(min(10, len(plays))))]
    return plays[int(rng.integers(len(plays)))]


def _another_play(plays: Sequence[ScoredPlay], play: ScoredPlay, rng: np.random.Generator) -> ScoredPlay:
    """A play drawn as players choose (``_choose_play``) among ``plays`` other than ``play``."""
    return _choose_play([p for p in plays if p.notation != play.notation], rng)


def _rack_blanks(sp: ScoredPlay, position: Position) -> int:
    """How many of the play's tiles are blanks from the rack (not blanks already on the board)."""
    return sum(is_blank(t) and position.board[sq] == 0 for sq, t in zip(sp.play.squares(), sp.word))


def _swap(coordinate: str) -> str:
    return coordinate[-1] + coordinate[:-1] if coordinate[0].isdigit() else coordinate[1:] + coordinate[0]


def write_play(sp: ScoredPlay, kind: str, rng: np.random.Generator) -> str:
    """The play as the player writes it for a case ``kind``."""
    coordinate, word = sp.notation.split(" ")
    if kind == "oriented":
        arrow = "↓" if sp.down else "→"
        return f"{coordinate if rng.random() < 0.5 else _swap(coordinate)} {word}{arrow}"
    if kind == "unmarked":
        return f"{coordinate} {word.upper()}"
    if kind == "swapped":
        return f"{_swap(coordinate)} {word}"
    if kind in ("phony", "misspelt"):  # the last letter replaced; or any one (``misspelt``)
        tiles = list(sp.word)
        at = len(tiles) - 1 if kind == "phony" else int(rng.integers(len(tiles)))
        other = [letter.tile for letter in LETTERS if letter.tile != (tiles[at] & 0x7F)]
        tiles[at] = int(rng.choice(other)) | (tiles[at] & 0x80)
        return f"{coordinate} {''.join(label(t) for t in tiles)}"
    return sp.notation


def bench_slip(made: int) -> layout.SlipInfo:
    """What is printed on the ``made``-th measurement slip: twelve players at twelve tables, in turn."""
    table = made % 12 + 1
    return layout.SlipInfo("bench", "Banco de pruebas", table, f"j{table}", f"Jugador {table}")


def _filled_slip(info: layout.SlipInfo, fields: dict[str, str], play: Play | None, writer: hw.Writer,
                 rng: np.random.Generator, board: bool, unmark: bool = False) -> np.ndarray:  # fmt: skip
    """The printed slip ``info`` filled in by ``writer``: ``fields`` in their boxes, or, on an absolute slip
    (``board``), the round and table in theirs and ``play`` on the printed board (none: nothing written there;
    ``unmark``: its blanks not circled)."""
    if not board:
        return drawn.fill_slip(layout.render_slip(info), fields, writer, rng)
    boxes = {name: fields[name] for name in ("ronda", "mesa")}
    filled = drawn.fill_slip(absolute.render_absolute_slip(info), boxes, writer, rng)
    return filled if play is None else drawn.fill_grid(filled, play, writer, rng, unmark=unmark)


def make_cases(count: int, writers: Sequence[hw.Writer], seed: int, lexicon: Lexicon,
               cgps: Sequence[str] | None = None, per_position: int = 5, board: bool = False,
               capture: Capture = drawn.scan, misspelt: bool = False) -> Iterator[Case]:  # fmt: skip
    """``count`` cases, ``per_position`` slips per position (a round's slips share one), fixed by ``seed``.
    ``board``: absolute slips (D.III.20.1.c), the play written on the printed board (a coordinate's order
    and an arrow mean nothing there: such cases are written as clean ones). ``capture``: how a filled slip
    reaches the reader (a scan; ``phone.PhoneCapture``: a phone photo of the same slips). ``misspelt``: every
    slip a play of the round with one letter written wrong, anywhere in its word (kind ``misspelt``): most are
    no word, or no legal play, and score 0 as written (D.III.25); one that is still a legal play is a clean slip."""
    rng = np.random.default_rng(seed)
    pool = list(cgps or positions())
    order = rng.permutation(len(pool))
    made = 0
    for index in order:
        cgp = pool[int(index)]
        position = Position.from_cgp(cgp)
        plays = generate_plays(position.board, position.rack, lexicon)
        if not plays:
            continue
        for k in range(per_position):
            if made >= count:
                return
            sp = _choose_play(plays, rng)
            roll = rng.random()
            has_blank = _rack_blanks(sp, position) > 0
            kind = "clean"
            if roll < 0.05:
                kind = "oriented"
            elif roll < 0.09:
                kind = "swapped"
            elif roll < 0.14:
                kind = "phony"
            elif has_blank and roll < 0.30:
                kind = "unmarked"
            if board and kind in ("oriented", "swapped"):
                kind = "clean"
            kind = "misspelt" if misspelt else kind
            written = write_play(sp, kind, rng)
            expected = _expected_score(position, lexicon, written, kind, sp)
            if kind == "swapped" and expected is None:
                kind, written, expected = "clean", sp.notation, sp.score
            if kind in ("unmarked", "phony", "misspelt") and expected:
                kind, sp = "clean", legal_play_written(plays, written, position)
                written, expected = sp.notation, sp.score
            info = bench_slip(made)
            fields = drawn.play_fields(written)
            fields.update({"ronda": str(int(rng.integers(1, 25))), "mesa": str(info.table)})
            writer = writers[int(rng.integers(len(writers)))]
            on_board = Play.from_notation(written) if board else None  # a box's notation may be mis-ordered
            filled = _filled_slip(info, fields, on_board, writer, rng, board, unmark=kind == "unmarked")
            scan = capture(filled, rng)
            yield Case(kind, cgp, written, sp.notation, int(expected or 0), has_blank and kind != "unmarked", scan,
                       info.player, int(fields["ronda"]))  # fmt: skip
            made += 1


def _drawn_positions(rng: np.random.Generator, lexicon: Lexicon,
                     least: int = 1) -> Iterator[tuple[str, Position, list[ScoredPlay]]]:  # fmt: skip
    """The golden positions in an order drawn by ``rng``, each with its legal plays: those with ``least`` or more."""
    pool = positions()
    for index in rng.permutation(len(pool)):
        position = Position.from_cgp(pool[int(index)])
        plays = generate_plays(position.board, position.rack, lexicon)
        if len(plays) >= least:
            yield pool[int(index)], position, plays


# how an illegible slip's play field is spoilt, in turn
SPOILS: Final = ("blank", "scribbled", "blotted", "struck", "crossed", "zigzag")


def make_illegible_cases(count: int, writers: Sequence[hw.Writer], seed: int, lexicon: Lexicon,
                         board: bool = False, capture: Capture = drawn.scan) -> Iterator[Case]:  # fmt: skip
    """``count`` slips whose play no arbiter could score as written (D.III.20.4), each ``SPOILS`` in turn: the
    play field left blank, a play of the position written and then scribbled over
    (``drawn.scribble_over``), written under a blot of ink (``drawn.blot``), written and struck out
    with one line (``drawn.strike_through``), crossed out with an X (``drawn.cross_out``) or scrawled
    through with a zigzag (``drawn.scrawl_through``). ``board``: absolute slips (D.III.20.1.c), the play
    written on the printed board and spoilt there. Each must go to the arbiter (``judge``); the round and table
    boxes are filled in as usual. Fixed by ``seed``."""
    rng = np.random.default_rng(seed)
    for made, (cgp, _, plays) in zip(range(count), _drawn_positions(rng, lexicon)):
        sp, spoil = _choose_play(plays, rng), SPOILS[made % len(SPOILS)]
        fields = drawn.play_fields(sp.notation) if spoil != "blank" else {}
        info = bench_slip(made)
        fields.update({"ronda": str(int(rng.integers(1, 25))), "mesa": str(info.table)})
        writer = writers[int(rng.integers(len(writers)))]
        filled = _filled_slip(info, fields, None if spoil == "blank" else sp.play, writer, rng, board)
        if board:
            spoilt_box = absolute.squares_box(sp.play.squares())
        else:
            spoilt_box = layout.FIELDS["palabra"].pixels(layout.PX_PER_MM, 0.6)
        ink = float(rng.uniform(10, 90))
        spoiler = {"scribbled": drawn.scribble_over, "blotted": drawn.blot, "struck": drawn.strike_through,
                   "crossed": drawn.cross_out, "zigzag": drawn.scrawl_through}  # fmt: skip
        if spoil in spoiler:
            spoiler[spoil](filled, spoilt_box, rng, ink)
        written = "" if spoil == "blank" else sp.notation
        yield Case("illegible", cgp, written, sp.notation, 0, False, capture(filled, rng), info.player,
                   int(fields["ronda"]))  # fmt: skip


# an absolute slip with a play in its boxes and one on its board (D.III.20.2), in turn: the same play in both; two
# different plays, both visible (void: the arbiter's); the board's play crossed out and the boxes' kept; the boxes'
# play crossed out and the board's kept
TWO_NOTATIONS: Final = ("two_same", "two_plays", "two_board_struck", "two_boxes_struck")
STRIKES: Final = (drawn.strike_through, drawn.cross_out, drawn.scrawl_through)


def make_two_notation_cases(count: int, writers: Sequence[hw.Writer], seed: int, lexicon: Lexicon,
                            capture: Capture = drawn.scan) -> Iterator[Case]:  # fmt: skip
    """``count`` absolute slips (D.III.20.1.c) with a play written both in the boxes and on the printed board, each
    ``TWO_NOTATIONS`` in turn. D.III.20.2: a player who writes in more than one notation must hand in one play
    visible, the others clearly crossed out (with one line, an X or a zigzag, in turn); different plays visible
    void the slip. ``Case.play``: the play that stays visible (``two_plays``: must be flagged). Fixed by ``seed``."""
    rng = np.random.default_rng(seed)
    for made, (cgp, position, plays) in zip(range(count), _drawn_positions(rng, lexicon, least=2)):
        kind = TWO_NOTATIONS[made % len(TWO_NOTATIONS)]
        kept = _choose_play(plays, rng)
        other = kept if kind == "two_same" else _another_play(plays, kept, rng)
        in_boxes, on_board = (kept, other) if kind == "two_board_struck" else (other, kept)
        info = bench_slip(made)
        fields = drawn.play_fields(in_boxes.notation)
        fields.update({"ronda": str(int(rng.integers(1, 25))), "mesa": str(info.table)})
        writer = writers[int(rng.integers(len(writers)))]
        filled = drawn.fill_slip(absolute.render_absolute_slip(info), fields, writer, rng)
        filled = drawn.fill_grid(filled, on_board.play, writer, rng)
        strike = STRIKES[made // len(TWO_NOTATIONS) % len(STRIKES)]
        if kind == "two_board_struck":
            strike(filled, absolute.squares_box(on_board.play.squares()), rng, float(rng.uniform(10, 90)))
        elif kind == "two_boxes_struck":
            strike(filled, layout.FIELDS["palabra"].pixels(layout.PX_PER_MM, 0.6), rng, float(rng.uniform(10, 90)))
        has_blank = _rack_blanks(kept, position) > 0
        yield Case(kind, cgp, kept.notation, kept.notation, 0 if kind == "two_plays" else kept.score, has_blank,
                   capture(filled, rng), info.player, int(fields["ronda"]))  # fmt: skip


def make_correction_cases(count: int, writers: Sequence[hw.Writer], seed: int, lexicon: Lexicon,
                          capture: Capture = drawn.scan) -> Iterator[Case]:  # fmt: skip
    """``count`` box slips corrected: the player gave up a word or a coordinate, crossed it out and wrote the one
    that stands. In turn, four slips in four: the word struck out with one line (``drawn.strike_through``) and
    the play written after it in the same box (kind ``corrected``, twice), the coordinate written in the wrong
    order struck out so and written again after it (``corrected_coordinate``), and the word crossed out with a
    line, an X or a zigzag (``STRIKES``, in turn) in the box's upper half and the play written under it
    (``corrected_below``). One play visible, the other clearly crossed out (D.III.20.2): the visible one is
    ``Case.play``. Fixed by ``seed``."""
    rng = np.random.default_rng(seed)
    for made, (cgp, position, plays) in zip(range(count), _drawn_positions(rng, lexicon, least=2)):
        kept = _choose_play(plays, rng)
        coordinate, word = kept.notation.split(" ")
        kind = ("corrected", "corrected", "corrected_coordinate", "corrected_below")[made % 4]
        if kind == "corrected_coordinate":
            box, given_up, stands = "coordenada", _swap(coordinate), coordinate
        else:
            box, given_up, stands = "palabra", _another_play(plays, kept, rng).notation.split(" ")[1], word
        info = bench_slip(made)
        fields = {"ronda": str(int(rng.integers(1, 25))), "mesa": str(info.table),
                  "coordenada": coordinate, "palabra": word}  # fmt: skip
        del fields[box]
        writer = writers[int(rng.integers(len(writers)))]
        filled = drawn.fill_slip(layout.render_slip(info), fields, writer, rng)
        pixels = layout.FIELDS[box].pixels(layout.PX_PER_MM, 0.6)
        if kind == "corrected_below":
            spoil = STRIKES[made // 4 % len(STRIKES)]
            drawn.correct_below(filled, pixels, given_up, stands, writer, rng, spoil, float(rng.uniform(10, 90)))
        else:
            drawn.correct_beside(filled, pixels, given_up, stands, writer, rng)
        has_blank = _rack_blanks(kept, position) > 0
        yield Case(kind, cgp, kept.notation, kept.notation, kept.score, has_blank, capture(filled, rng),
                   info.player, int(fields["ronda"]))  # fmt: skip


def legal_play_written(plays: Sequence[ScoredPlay], written: str, position: Position) -> ScoredPlay:
    """The legal play a mistaken form turned out to be (an uncircled blank written as the rack's own tile):
    the one with that notation, or, written in capitals over a blank already on the board (``6F CHIS`` for
    ``6F CHiS``), the one with those letters that uses no blank of the rack."""
    meant = Play.from_notation(written)
    for p in plays:
        if p.notation == meant.notation() or p.play == meant:
            return p
    same = [p for p in plays if p.notation.upper() == written.upper()]
    return min(same, key=lambda p: _rack_blanks(p, position))


def _expected_score(position: Position, lexicon: Lexicon, written: str, kind: str, sp: ScoredPlay) -> int | None:
    """The rules' score of what was written (None for a swap that is itself a legal play: not a mistake)."""
    if kind in ("clean", "oriented"):
        return sp.score
    if kind in ("unmarked", "phony", "misspelt"):  # the text written may still be a legal play (an O of the rack)
        result = score_slip(position.board, position.rack, lexicon, Slip(written))
        return result.score if result.valid else 0
    if kind == "swapped":
        try:
            play = Play.from_notation(written)
        except ValueError:
            return 0
        legal = score_slip(position.board, position.rack, lexicon, Slip(play.notation()))
        return None if legal.valid else 0
    return 0


@dataclass(frozen=True)
class Outcome:
    """What the reader did with one case, and whether that was right."""

    kind: str
    verdict: str
    flags: tuple[str, ...]
    play: str | None
    score: int | None
    confidence: float
    top_kind: str  # kind of the likeliest outcome ("play", "reading", ...)
    right: bool  # scored as the rules say, without a flag
    silent_error: bool  # a wrong play or score, without a flag
    round_right: bool
    round_confidence: float
    blank_right: bool | None  # a circled blank read as that blank (None: no circled blank)
    seconds: float
    lookalike: bool = False  # the coordinate has a character a digit or letter looks like (1 I 5 S 0 O 4 A 6 G 8 B 2 Z)
    proposal_right: bool = False  # flagged, and what the arbiter is offered to confirm is what the case deserves


def judge(case: Case, result: dict[str, object], seconds: float) -> Outcome:
    """Compare the reader's JSON result with what the case deserves."""
    verdict = str(result["verdict"])
    play, score = result.get("play"), result.get("score")
    flags = tuple(str(f) for f in result.get("flags", []))  # type: ignore[attr-defined]
    if case.kind in ("illegible", "two_plays"):  # only the arbiter may decide (D.III.20.4, D.III.20.2)
        right = verdict == "flagged"
        silent = not right
    elif verdict == "flagged":
        right = silent = False
    elif case.kind in ("clean", "oriented") or case.kind.startswith("corrected") or case.kind in TWO_NOTATIONS:
        right = verdict == "accepted" and play == case.play and score == case.expected_score
        silent = not right
    else:  # a mistake: it scores 0 (or must be flagged)
        right = score == 0
        silent = not right
    candidates = result.get("candidates") or []
    top_kind = str(candidates[0]["kind"]) if candidates else "none"  # type: ignore[index]
    blank_right = (verdict == "accepted" and play == case.play) if case.blank else None
    proposal = verdict == "flagged" and _proposal_right(case, play if isinstance(play, str) else None, flags, candidates)
    return Outcome(case.kind, verdict, flags, play if isinstance(play, str) else None,
                   score if isinstance(score, int) else None, float(result.get("confidence", 0.0)),  # type: ignore[arg-type]
                   top_kind, right, silent, result.get("round") == case.round,
                   float(result.get("round_confidence", 0.0)), blank_right, seconds,  # type: ignore[arg-type]
                   any(c in LOOKALIKES for c in case.written.split(" ")[0]), proposal)  # fmt: skip


def _proposal_right(case: Case, play: str | None, flags: tuple[str, ...], candidates: object) -> bool:
    """Whether a flagged slip's proposal (what the arbiter confirms with one key, ``review.proposal_for``: the
    decision's play, else its likeliest outcome that is no bare reading) is what the case deserves: the play, or, for
    a mistake scored 0, the mistake's flag or the play read as written."""
    top = candidates[0] if isinstance(candidates, list) and candidates else None
    if play is None and isinstance(top, dict) and top.get("kind") != "reading":
        play = str(top.get("play"))
    if case.kind in ("illegible", "two_plays"):
        return True  # voided by the arbiter whatever is proposed (D.III.20.4, D.III.20.2)
    if case.expected_score:
        return play == case.play
    if any(f in ("unmarked_blank", "coordinate_order") for f in flags):
        return True
    return play is not None and unseparated(play) == unseparated(case.written)


UNSEEN_FAMILIES = ("URWGothic", "Z003")
LOOKALIKES = frozenset("1I5S0O4A6G8B2Z")


def writers_for(part: str) -> list[hw.Writer]:
    """``synthetic``: the held-out fonts and Hershey faces (the benchmark's); ``synthetic-calibration``: the
    calibration faces (neither trained on nor benchmarked), ``synthetic-calibration-unseen`` those of them
    whose families were never trained on; ``real-calibration`` / ``real-test``: real characters;
    ``unipen-calibration`` / ``unipen-test`` / ``unipen-unseen``: the UNIPEN writers of that part
    (``unipen-unseen``: the whole collection never trained on)."""
    if part == "synthetic-calibration":
        return hw.writers("calibration")
    if part == "synthetic-calibration-unseen":  # the calibration fonts of families never trained on
        return [w for w in hw.writers("calibration") if w.name.startswith(UNSEEN_FAMILIES)]
    if part.startswith("synthetic"):
        return hw.writers("heldout")
    if part.startswith("unipen-"):  # UNIPEN writers of a part (``unipen.split_of``): each slip one writer's
        return list(unipen.writers(part.split("-", 1)[1], complete=True))
    return [hw.load_real_writer(REAL, part.split("-", 1)[1])]
