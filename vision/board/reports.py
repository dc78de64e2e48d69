"""What a board tracker tells: ``Report``s for the game and the arbiter, and its ``TrackerStatus``.

A report is one event of one camera (``camera``): the time ``t`` (seconds, ``Frame.t``)
and ``frame_index`` of the frame that caused it, and a ``message`` in Spanish for the
arbiter. Squares are rules-core ``(row, col)`` pairs, 0-based with row A = 0, written
as names ("H8") in JSON. ``Report.to_json``/``from_json`` carry reports between a
camera worker or node and the server; ``TrackerStatus.to_json`` feeds the console.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules_core.board import Square, square_name


@dataclass(frozen=True)
class Report:
    """Something the camera saw that the game or the arbiter must know.

    ``kind``: ``play`` (a legal play, to record), ``withdrawn`` (the last play's tiles
    lifted), ``doubt`` (needs the arbiter: ``reason`` says which), ``resolved`` (the
    board went back to the committed position), ``board_found``/``board_lost``.
    ``reason`` for doubts: ``no_play`` (tiles not in one line...), ``illegal``
    (words not in the lexicon...), ``blank`` (a blank's letter is not certain),
    ``foreign`` (a letter not in the Spanish set), ``unsure`` (low confidence),
    ``removed`` (tiles lifted that are not the last play), ``moved`` (tiles gone from
    some squares and new on others: a tile nudged), ``changed`` (a tile reads
    differently), ``orientation`` (row A unknown). An ``unsure`` doubt with a ``notation``
    proposes that legal play, its ``tiles`` the letters proposed (the look-alikes of the
    unsure ones that make it); without one, ``tiles`` are as read.
    """

    kind: str
    camera: str
    t: float
    frame_index: int
    message: str
    reason: str = ""
    notation: str | None = None
    score: int | None = None
    tiles: tuple[tuple[Square, str], ...] = ()
    candidates: tuple[str, ...] = ()
    frame_path: str | None = None
    cgp: str = ""
    id: int = 0

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Report:
        """The report ``to_json`` wrote (a camera worker's or node's message)."""
        from rules_core.board import parse_square

        tiles = tuple((parse_square(str(t["square"])), str(t["label"])) for t in data.get("tiles") or ())
        score = data.get("score")
        return cls(
            str(data["kind"]), str(data.get("camera", "")), float(data.get("t", 0.0)), int(data.get("frame", 0)),
            str(data.get("message", "")), reason=str(data.get("reason") or ""),
            notation=str(data["notation"]) if data.get("notation") else None,
            score=int(score) if score is not None else None, tiles=tiles,
            candidates=tuple(str(c) for c in data.get("candidates") or ()),
            frame_path=str(data["frame_path"]) if data.get("frame_path") else None,
            cgp=str(data.get("cgp") or ""), id=int(data.get("id", 0)),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "reason": self.reason,
            "camera": self.camera,
            "t": round(self.t, 3),
            "frame": self.frame_index,
            "frame_path": self.frame_path,
            "notation": self.notation,
            "score": self.score,
            "tiles": [{"square": square_name(*sq), "label": name} for sq, name in self.tiles],
            "candidates": list(self.candidates),
            "message": self.message,
            "cgp": self.cgp,
        }


@dataclass
class TrackerStatus:
    """The live state of one camera, for the console."""

    camera: str
    status: str = "sin tablero"  # sin tablero, buscando tablero, en movimiento, tapado, leyendo, estable, duda
    board_found: bool = False
    t: float = 0.0
    frames: int = 0
    read_frames: int = 0
    last_report: Report | None = None
    pending: int = 0
    cgp: str = ""
    turn: int | None = None
    seconds_per_frame: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "camera": self.camera, "status": self.status, "board_found": self.board_found,
            "t": round(self.t, 3), "frames": self.frames, "read_frames": self.read_frames,
            "last_report": self.last_report.to_json() if self.last_report else None,
            "pending": self.pending, "cgp": self.cgp, "turn": self.turn,
            "ms_per_frame": round(1000 * self.seconds_per_frame, 1),
        }
