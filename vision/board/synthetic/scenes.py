"""Rendered games seen by a camera: frames with hands placing and lifting tiles.

``game_frames(steps, scene)`` yields ``(Frame, Truth)`` pairs at ``fps``: for each
step a hand comes in from the player's side, puts the tiles down one by one (or
lifts them), goes away, and the board stays still for ``hold`` seconds. ``Truth``
says what the board holds and, on the first frame after a step's hand has gone,
which step ended (``left``), so a test or the benchmark can time the tracker.
``solitaire_steps`` plays a game with the move generator for the demo and bench.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from rules_core.alphabet import BLANK, Tile, full_bag, letter_of
from rules_core.board import Board, Square
from rules_core.lexicon import Lexicon
from rules_core.movegen import generate_plays
from rules_core.notation import Play
from rules_core.scoring import RACK_SIZE
from rules_core.validation import check_play
from vision.frames import Frame

from . import render as R

Step = tuple[str, dict[Square, Tile]]  # ("place" | "lift", tiles)


@dataclass(frozen=True)
class Truth:
    """What a frame shows: the cell labels on the table (hands ignored), whether a hand is
    in view, and the index of the step whose hand has just left (else None)."""

    cells: R.Labels
    hand: bool
    left: int | None


def _path(start: tuple[float, float], end: tuple[float, float], frames: int) -> list[tuple[float, float]]:
    return [(start[0] + (end[0] - start[0]) * k / frames, start[1] + (end[1] - start[1]) * k / frames) for k in range(1, frames + 1)]


def game_frames(
    steps: list[Step],
    scene: R.Scene,
    *,
    fps: float = 10.0,
    hold: float = 1.5,
    travel: float = 0.5,
    lead: float = 0.5,
    side: int = 0,
) -> Iterator[tuple[Frame, Truth]]:
    """Frames of ``steps`` played on ``scene`` (its ``cells`` is the starting position).

    The hand of step k comes from below the board (k even) or above it (k odd),
    or always from ``side`` when ``side`` is 1 (above) or 2 (below).
    """
    cells = [list(row) for row in scene.cells]
    t = 0.0
    index = 0
    table_cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def frame(hands: tuple[R.Hand, ...], left: int | None) -> tuple[Frame, Truth]:
        nonlocal t, index
        labels = tuple(tuple(row) for row in cells)
        key = repr(labels)
        if key not in table_cache:
            table_cache.clear()
            table_cache[key] = R.render_table(replace(scene, cells=[list(r) for r in labels]))
        table, homography = table_cache[key]
        shot = R.finish(table, homography, replace(scene, hands=hands, cells=[list(r) for r in labels]), scene.seed + index)
        out = (Frame(shot.image, t, index), Truth(labels, bool(hands), left))
        t += 1.0 / fps
        index += 1
        return out

    for _ in range(int(lead * fps)):
        yield frame((), None)
    left: int | None = None
    for k, (kind, tiles) in enumerate(steps):
        from_above = side == 1 or (side == 0 and k % 2 == 1)
        home = (7.5, -4.0) if from_above else (7.5, 19.0)
        angle = 90.0 if from_above else 270.0
        hand = R.Hand(home[0], home[1], angle, 4.5)
        position = home
        targets = [(c + 0.5, r + 0.5) for r, c in sorted(tiles)]
        for target in targets:
            for point in _path(position, target, max(2, int(travel * fps))):
                yield frame((replace(hand, u=point[0], v=point[1]),), left)
                left = None
            position = target
            r, c = int(target[1]), int(target[0])
            cells[r][c] = R.EMPTY if kind == "lift" else _label(tiles[(r, c)])
            yield frame((replace(hand, u=target[0], v=target[1]),), None)
        for point in _path(position, home, max(2, int(travel * fps))):
            yield frame((replace(hand, u=point[0], v=point[1]),), None)
        left = k
        for _ in range(int(hold * fps)):
            yield frame((), left)
            left = None


def _label(tile: Tile) -> str:
    return R.BLANK_TILE if tile & 0x80 else R.tiles_to_labels({(0, 0): tile})[(0, 0)]


def solitaire_steps(lexicon: Lexicon, turns: int, seed: int = 1) -> list[tuple[Play, dict[Square, Tile]]]:
    """A game of ``turns`` plays, each the best play of a rack drawn from a seeded bag."""
    rng = np.random.default_rng(seed)
    bag = full_bag()
    rng.shuffle(bag)
    board = Board()
    rack: list[Tile] = []
    out: list[tuple[Play, dict[Square, Tile]]] = []
    for _ in range(turns):
        while len(rack) < RACK_SIZE and bag:
            rack.append(bag.pop())
        plays = generate_plays(board, tuple(rack), lexicon)
        if not plays:
            break
        play = Play.from_notation(plays[0].notation)
        verdict = check_play(board, play, lexicon)
        placed = dict(verdict.placed)
        for square, tile in placed.items():
            board[square] = tile
            used = BLANK if tile & 0x80 else letter_of(tile)
            rack.remove(used)
        out.append((verdict.play, placed))
    return out
