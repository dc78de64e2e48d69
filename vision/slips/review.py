"""The arbiter's review queue: flagged slips with their evidence, and what the arbiter decided.

Each ``ReviewItem`` is one slip the reader would not score alone: the crop of its
play field and the whole slip straightened (PNG paths), what was read, the
likeliest plays with their probabilities, the flags, and ``proposal``: the
rules' ``Slip`` that the one-key *accept* applies (a play struck out or scrawled
over is never proposed: its proposal is the void, D.III.20.4; scoring it takes the
arbiter's typed *correct*). *Correct* applies a notation the arbiter types; *void*
a ``Slip`` made void with the reason (D.III.20.4, D.III.25.c); *dismiss* closes an
item that is no slip at all (an empty page), entering nothing. Stored append-only
in ``review.jsonl`` (flagged items, then resolutions), so a restart rebuilds the
queue exactly.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np

from rules_core.notation import typed_notation
from rules_core.slips import COORDINATE_ORDER, Slip

ACTIONS: Final = ("accept", "correct", "void", "dismiss")  # dismiss: not a slip (an empty page), nothing entered
VOID_REASONS: Final = {  # flag -> the reason written on a voided slip (``void_reason``)
    "spoilt": "jugada tachada o emborronada",
    "illegible": "caligrafía ininteligible",
    "position_unknown": "posición no identificable",
    "player_unknown": "jugador no identificable",
    "several_plays": "varias jugadas anotadas",
    "coordinate_order": COORDINATE_ORDER,
    "unmarked_blank": "comodín no marcado",
    "circled_without_blank": "letra rodeada sin comodín en el atril",
    "blank_letter_unsure": "caligrafía ininteligible",
    "other_game": "papeleta de otra partida",
}


@dataclass(frozen=True)
class ReviewItem:
    """One flagged slip as the console shows it (``to_json`` is the API's shape)."""

    id: str
    page: str  # content address of the scanned page
    game: str | None
    round: int | None
    player: str | None
    table: int | None
    reading: str
    flags: tuple[str, ...]
    confidence: float
    candidates: tuple[dict[str, Any], ...]  # {"play", "score", "probability", "kind"}, best first
    proposal: dict[str, Any] | None  # Slip.to_json() applied by "accept", None when accept needs a choice
    crop: str  # PNG of the play field (coordinate and word boxes)
    slip_image: str  # PNG of the whole slip, straightened
    note: str = ""  # e.g. why the game refused the reading
    status: str = "pending"  # "pending", "accepted", "corrected", "voided"
    resolution: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["flags"] = list(self.flags)
        data["candidates"] = list(self.candidates)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ReviewItem:
        values = dict(data)
        values["flags"] = tuple(values.get("flags", ()))
        values["candidates"] = tuple(values.get("candidates", ()))
        return cls(**values)


def void_reason(flags: tuple[str, ...]) -> str:
    """The reason a slip with these flags is voided with unless the arbiter chooses another (D.III.20.4):
    a play struck out or scrawled over first, else the first flag's."""
    first = ("spoilt",) if "spoilt" in flags else flags
    return next((VOID_REASONS[f] for f in first if f in VOID_REASONS), "papeleta nula")


def proposal_for(flags: tuple[str, ...], reading: str, top_play: str | None) -> Slip | None:
    """The Slip a one-key accept applies for these flags, or None when the arbiter must choose."""
    if "player_unknown" in flags or "position_unknown" in flags or "other_game" in flags:
        return None
    if "no_play" in flags:  # handed in with no play written (``reader``): a slip without a play, 0 points (D.III.23)
        return Slip(None, source="escáner")
    if "spoilt" in flags:  # struck out or scrawled over: given up by the player (D.III.20.4)
        return Slip(reading or top_play, void=VOID_REASONS["spoilt"], source="escáner")
    if "several_plays" in flags:
        return Slip(reading or None, other_notations=("(varias jugadas)",), source="escáner")
    if "coordinate_order" in flags:
        return Slip(reading or top_play, void=VOID_REASONS["coordinate_order"], source="escáner")
    if "unmarked_blank" in flags and top_play:
        return Slip(top_play.upper(), blank_not_circled=True, source="escáner")
    if "circled_without_blank" in flags:
        return Slip(reading or None, source="escáner")
    if top_play:
        return Slip(top_play, source="escáner")
    return None


class ReviewQueue:
    """Flagged slips under ``root`` (``review.jsonl``, ``crops/``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "crops").mkdir(parents=True, exist_ok=True)
        self.items: dict[str, ReviewItem] = {}
        path = self.path
        if path.exists():
            text = path.read_text(encoding="utf-8")
            if text and not text.endswith("\n"):
                with open(path, "a", encoding="utf-8") as handle:
                    handle.write("\n")  # close a line cut by a crash
            for line in text.splitlines():
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if record["kind"] == "flagged":
                    item = ReviewItem.from_json(record["item"])
                    self.items[item.id] = item
                elif record["kind"] == "resolved" and record["id"] in self.items:
                    item = self.items[record["id"]]
                    resolution = record["resolution"]
                    self.items[item.id] = replace(item, status=record["status"], resolution=resolution,
                                                  player=resolution["player"], round=resolution["round"])

    @property
    def path(self) -> Path:
        return self.root / "review.jsonl"

    def _write(self, record: dict[str, Any]) -> None:
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    def save_crop(self, name: str, image: np.ndarray) -> str:
        path = self.root / "crops" / f"{name}.png"
        cv2.imwrite(str(path), image)
        return str(path)

    def add(self, item: ReviewItem) -> ReviewItem:
        """Queue a flagged slip (once: the same id again is ignored)."""
        if item.id in self.items:
            return self.items[item.id]
        self._write({"kind": "flagged", "item": item.to_json()})
        self.items[item.id] = item
        return item

    def pending(self, game: str | None = None, round_number: int | None = None) -> list[ReviewItem]:
        """Items waiting for the arbiter, oldest first."""
        return [i for i in self.items.values() if i.status == "pending"
                and (game is None or i.game == game) and (round_number is None or i.round == round_number)]  # fmt: skip

    def resolve(self, item_id: str, action: str, actor: str, notation: str | None = None,
                reason: str | None = None, player: str | None = None, round_number: int | None = None,
                submit: Callable[[Slip, str, int], None] | None = None) -> tuple[ReviewItem, Slip]:  # fmt: skip
        """The arbiter's decision: the item resolved and its Slip (ValueError if it cannot be).

        ``submit(slip, player, round)`` runs before the resolution is written: when
        it raises (the game refuses the slip), the item stays pending.
        """
        item = self.items.get(item_id)
        if item is None:
            raise ValueError(f"no hay papeleta en revisión con id {item_id!r}")
        if item.status != "pending":
            raise ValueError(f"la papeleta {item_id} ya se resolvió ({item.status})")
        if action not in ACTIONS:
            raise ValueError(f"acción desconocida {action!r}: {', '.join(ACTIONS)}")
        if action == "dismiss":
            return self._dismiss(item, actor, reason)
        player = player or item.player
        round_number = round_number or item.round
        if player is None or round_number is None:
            raise ValueError("indique el jugador y la ronda de la papeleta")
        if action == "accept":
            if item.proposal is None:
                raise ValueError("esta papeleta no tiene propuesta: corríjala o anúlela")
            slip, status = Slip.from_json(item.proposal), "accepted"
        elif action == "correct":
            if not notation:
                raise ValueError("una corrección necesita la jugada en notación canónica")
            slip, status = Slip(typed_notation(notation), source="escáner"), "corrected"
        else:
            why = reason or void_reason(item.flags)
            slip, status = Slip(item.reading or None, void=why, source="escáner"), "voided"
        if submit is not None:
            submit(slip, player, round_number)
        resolution = {"action": action, "actor": actor, "slip": slip.to_json(), "player": player,
                      "round": round_number}  # fmt: skip
        self._write({"kind": "resolved", "id": item_id, "status": status, "resolution": resolution})
        resolved = replace(item, status=status, resolution=resolution, player=player, round=round_number)
        self.items[item_id] = resolved
        return resolved, slip

    def _dismiss(self, item: ReviewItem, actor: str, reason: str | None) -> tuple[ReviewItem, Slip]:
        """Not a slip at all (an empty or foreign page): resolved with nothing entered in any game."""
        resolution = {"action": "dismiss", "actor": actor, "slip": {}, "player": item.player, "round": item.round,
                      "reason": reason or "no es una papeleta"}  # fmt: skip
        self._write({"kind": "resolved", "id": item.id, "status": "dismissed", "resolution": resolution})
        resolved = replace(item, status="dismissed", resolution=resolution)
        self.items[item.id] = resolved
        return resolved, Slip(None, void=resolution["reason"], source="escáner")
