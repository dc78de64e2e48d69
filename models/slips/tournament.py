"""A simulated duplicate tournament's play fields: players who are writers the networks never saw, round after round.

Measurement data for ``tests/benchmarks/bench_tournament_slips.py`` (and nothing the reader imports).

Players. Each player is one real writer of UNIPEN (``vision.slips.synthetic.unipen``) the networks never saw: every
writer of the collection kept out (``unipen.UNSEEN_COLLECTION``) and every writer of the other collections none of
whose files is in the *train* part (the calibration and test writers), a writer being a ``.WRITER_ID`` of the pen
files (a person, over all their files; a file without one is its own writer), with ``MIN_LETTERS`` distinct capitals
or more. A character the writer never wrote (most often digits) is lent by the next player who wrote it
(``_lender``), as ``UnipenWriter`` does.

Ink split by rounds. A writer's samples of each character are split in writing order: the first third (one of
two, none of one) writes the rounds before ``LATE_ROUND``, the rest the rounds from it on, so the measured rounds
are written with strokes never shown to the reader before them (``Hand``). Within a part a sample is used again
only when the part's samples are used up, and then redrawn bent anew (``unipen.bent_strokes``, ``REUSE_BEND``), as a
person writes a letter twice: ``Hand.reused`` counts those.

Rounds. A tournament is ``rounds`` positions drawn from the golden positions (FILE2017); every player writes a
play of each, chosen as players choose (``cases._choose_play``), written clean, oriented or with a mistake in the
shares of ``cases.make_cases``. A player keeps their hand's style from slip to slip (cap height, pen, slant,
spacing, ink), varied a little each time; the play is written in the boxes of the player's printed slip, scanned,
registered and cut as the reader cuts it (``reader.join_line``): the image ``veedor read-move`` reads. The truth
is what the arbiter decides: the play and its score (``truth``: the canonical play, or the play as written when it
scores 0).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Final

import numpy as np

from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from rules_core.movegen import generate_plays
from vision.slips import layout
from vision.slips.reader import join_line
from vision.slips.register import find_slips
from vision.slips.synthetic import drawn, unipen
from vision.slips.synthetic import handwriting as hw

from .cases import _choose_play, _expected_score, _rack_blanks, legal_play_written, positions, write_play

MIN_LETTERS: Final = 20  # distinct capitals a writer must have written to be a player
LATE_ROUND: Final = 6  # the first round written with the later part of each writer's ink
REUSE_BEND: Final = 0.5  # a sample used again is bent anew this much (``unipen.bent_strokes``)
Strokes = tuple[np.ndarray, ...]


@dataclass(frozen=True)
class PenWriter:
    """A person's characters (all their files), by label, in writing order."""

    name: str
    source: str  # "unseen" (the collection kept out) or "calibration" / "test" (parts never trained on)
    samples: dict[str, list[Strokes]]

    def letters(self) -> int:
        return sum(1 for c in self.samples if c.isalpha())


def _writer_id(label_file: Path, root: Path) -> str | None:
    """The ``.WRITER_ID`` of the pen file a label file includes (None when it names none)."""
    for line in label_file.read_text(encoding="latin-1").splitlines():
        stripped = line.strip()
        if stripped.startswith(".INCLUDE") and "/data/" in stripped:
            pen = root / "include" / stripped.split(None, 1)[1].strip()
            if not pen.exists():
                return None
            for header in pen.read_text(encoding="latin-1").splitlines()[:100]:
                if header.startswith(".WRITER_ID"):
                    return header.split(None, 1)[1].strip()
    return None


@lru_cache(maxsize=2)
def never_seen_writers(root: Path = unipen.ROOT, min_letters: int = MIN_LETTERS) -> tuple[PenWriter, ...]:
    """Every UNIPEN writer the networks never saw (module docstring), with ``min_letters`` capitals or more."""
    parts: dict[tuple[str, str], set[str]] = {}
    samples: dict[tuple[str, str], dict[str, list[Strokes]]] = {}
    for path in unipen.label_files(root):
        collection = unipen.collection_of(path, root)
        key = (collection, _writer_id(path, root) or "/".join(path.relative_to(root / "data").parts[1:]))
        parts.setdefault(key, set()).add(unipen.split_of(path, root))
        found = samples.setdefault(key, {})
        for character in unipen.read_file(path, root):
            found.setdefault(character.label, []).append(character.strokes)
    out = []
    for key in sorted(samples):
        split = parts[key]
        if "train" in split:
            continue
        writer = PenWriter(f"{key[0]}/{key[1]}", "unseen" if split == {"unseen"} else "/".join(sorted(split)), samples[key])
        if writer.letters() >= min_letters:
            out.append(writer)
    return tuple(out)


def _split(samples: Sequence[Strokes]) -> tuple[list[Strokes], list[Strokes]]:
    """A character's samples in writing order: (early rounds', late rounds')."""
    k = len(samples)
    early = k // 3 if k >= 3 else (1 if k == 2 else 0)
    return list(samples[:early]), list(samples[early:])


@dataclass(eq=False)
class Hand:
    """A player's hand (``hw.Writer``): draws each character from the part of its ink for the ``round`` set on it."""

    writer: PenWriter
    lenders: Sequence[PenWriter]
    pressure: float
    round: int = 1
    reused: int = 0  # characters drawn from a sample already used (bent anew)
    drawn: int = 0
    _pools: dict[tuple[str, bool], list[Strokes]] = field(default_factory=dict, repr=False)
    _next: dict[tuple[str, bool], int] = field(default_factory=dict, repr=False)

    @property
    def name(self) -> str:
        return self.writer.name

    def _pool(self, char: str, late: bool) -> list[Strokes]:
        key = (char, late)
        if key not in self._pools:
            own = self.writer.samples.get(char, [])
            pool = _split(own)[late] if own else []
            if not pool:  # none of their own in this part: the first lender's (writing order, both parts)
                lender = next((w for w in self.lenders if w.samples.get(char)), None)
                pool = list(lender.samples[char]) if lender else []
            self._pools[key] = pool
        return self._pools[key]

    def glyph(self, char: str, rng: np.random.Generator, pen: float) -> np.ndarray:
        pool = self._pool(char, self.round >= LATE_ROUND)
        if not pool:
            raise ValueError(f"{self.name}: no hay muestras de {char!r}")
        key = (char, self.round >= LATE_ROUND)
        used = self._next.get(key, 0)
        self._next[key] = used + 1
        strokes = pool[used % len(pool)]
        self.drawn += 1
        if used >= len(pool):
            self.reused += 1
            strokes = unipen.bent_strokes(strokes, rng, REUSE_BEND)
        return unipen.draw_strokes(strokes, rng, 32.0, 2.5 * pen, float(rng.uniform(0.2, 0.8)), self.pressure)


@dataclass(frozen=True)
class Player:
    id: str
    table: int
    hand: Hand
    style: hw.Style
    ink: float  # grey of the player's pen


@dataclass(frozen=True)
class TournamentSlip:
    """One slip's play field as ``read-move`` gets it, and what the arbiter decides (``truth``)."""

    round: int
    player: str
    source: str  # the writer's part (``PenWriter.source``)
    cgp: str
    kind: str  # "clean", "oriented", "unmarked", "swapped", "phony" (``cases.Case.kind``)
    written: str
    truth_play: str
    truth_score: int
    image: np.ndarray = field(repr=False)

    @property
    def correct(self) -> bool:
        """Written as the rules ask (it scores what the play scores)."""
        return self.kind in ("clean", "oriented")


def players(count: int, seed: int) -> list[Player]:
    """The first ``count`` never-seen writers as players, each with a style of their own fixed by ``seed``."""
    writers = list(never_seen_writers())[:count]
    rng = np.random.default_rng(seed)
    out = []
    for i, writer in enumerate(writers):
        lenders = writers[i + 1 :] + writers[:i]
        hand = Hand(writer, lenders, pressure=float(rng.uniform(0.05, 0.35)))
        out.append(Player(f"j{i + 1}", i + 1, hand, hw.Style.random(rng), float(rng.uniform(10, 90))))
    return out


def _slip_style(style: hw.Style, rng: np.random.Generator) -> hw.Style:
    """The player's style as on one slip: a little taller or shorter, more or less slanted."""
    return replace(style, height=style.height * float(rng.uniform(0.92, 1.08)),
                   pen=style.pen * float(rng.uniform(0.9, 1.1)), slant=style.slant + float(rng.normal(0, 0.03)),
                   spacing=style.spacing + float(rng.normal(0, 0.02)))  # fmt: skip


def play_field(player: Player, written: str, rng: np.random.Generator) -> np.ndarray:
    """The player's printed slip with ``written`` in its boxes, scanned, registered and cut as the reader cuts it."""
    info = layout.SlipInfo("torneo", "Torneo simulado", player.table, player.id, f"Jugador {player.table}")
    image = layout.render_slip(info)
    for name, text in drawn.play_fields(written).items():
        if text:
            box = layout.FIELDS[name].pixels(layout.PX_PER_MM, 0.6)
            drawn.write_in_box(image, box, text, player.hand, rng, player.ink, _slip_style(player.style, rng))
    scan = drawn.scan(image, rng)
    found = find_slips(scan)
    rectified = found[0].rectify(scan) if found else image
    crops = [rectified[y0:y1, x0:x1] for x0, y0, x1, y1 in
             (layout.FIELDS[n].pixels(layout.PX_PER_MM, layout.FIELD_INSET) for n in ("coordenada", "palabra"))]  # fmt: skip
    return join_line(crops[0], crops[1])


def _kind(rng: np.random.Generator, has_blank: bool) -> str:
    """How the play is written, in the shares of ``cases.make_cases``."""
    roll = rng.random()
    if roll < 0.05:
        return "oriented"
    if roll < 0.09:
        return "swapped"
    if roll < 0.14:
        return "phony"
    if has_blank and roll < 0.30:
        return "unmarked"
    return "clean"


def round_positions(rounds: int, seed: int, lexicon: Lexicon) -> list[str]:
    """``rounds`` golden positions drawn by ``seed``, each with ten legal plays or more."""
    rng = np.random.default_rng(seed)
    pool = positions()
    out = []
    for index in rng.permutation(len(pool)):
        position = Position.from_cgp(pool[int(index)])
        if len(generate_plays(position.board, position.rack, lexicon)) >= 10:
            out.append(pool[int(index)])
        if len(out) == rounds:
            break
    return out


def tournament(lexicon: Lexicon, count: int = 100, rounds: int = 15, seed: int = 6801) -> Iterator[TournamentSlip]:
    """The slips of a tournament of ``count`` players (at most the never-seen writers), round by round, each round's
    slips in the players' order, fixed by ``seed``."""
    rng = np.random.default_rng(seed)
    field_of = players(count, seed)
    for number, cgp in enumerate(round_positions(rounds, seed, lexicon), start=1):
        position = Position.from_cgp(cgp)
        plays = generate_plays(position.board, position.rack, lexicon)
        for player in field_of:
            sp = _choose_play(plays, rng)
            kind = _kind(rng, _rack_blanks(sp, position) > 0)
            written = write_play(sp, kind, rng)
            expected = _expected_score(position, lexicon, written, kind, sp)
            if kind == "swapped" and expected is None:
                kind, written, expected = "clean", sp.notation, sp.score
            if kind in ("unmarked", "phony") and expected:
                kind, sp = "clean", legal_play_written(plays, written, position)
                written, expected = sp.notation, sp.score
            truth = sp.notation if kind in ("clean", "oriented") else written
            player.hand.round = number
            image = play_field(player, written, rng)
            yield TournamentSlip(number, player.id, player.hand.writer.source, cgp, kind, written, truth,
                                 int(expected or 0), image)  # fmt: skip
