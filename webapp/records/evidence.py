"""The evidence file of a game (``expediente.zip``): everything an appeal committee needs.

For each slip of a duplicate game, the scanned page it was read from (``escaneos/``)
and, when the reader flagged it, the crop and the straightened slip the arbiter saw
(``dudas/``); for each camera play of a classic game, the frame that made it
(``fotogramas/``). Beside them: the event log as JSON Lines (``eventos.jsonl``), the
history in words (``historial.txt``), an index of every play with its files
(``jugadas.csv``), the doubts and how they were settled (``dudas.jsonl``), the results
as XLSX and CSV (and the GCG record of a classic game), and ``MANIFIESTO.txt``: the
SHA-256 of every other file in ``sha256sum`` form (``sha256sum -c MANIFIESTO.txt``), so a
person with only the zip can check that nothing changed.

Only files of the game go in, each checked by ``services.stored_files`` before it is opened:
a scanned page read into this game, a crop of its review queue, a stored camera frame. A
file an event names that is none of these (an event stored before the check existed) is
left out and said in ``omitidos.txt``; the database and the session key are never opened.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rules_core.classic import ClassicGame
from rules_core.duplicate import DuplicateGame
from rules_core.events import Event
from rules_core.gcg import GCGError, to_gcg
from rules_core.results_csv import Table, classic_sheet_table, round_results_table, standings_table

from ..services.shared import Services
from ..services.stored_files import NotStored, StoredFiles, scan_pages
from .exports import to_csv, to_xlsx
from .history import history
from .timezone import local_text

MANIFEST = "MANIFIESTO.txt"


@dataclass
class Evidence:
    """The files of the zip, by name, in the order written."""

    files: dict[str, bytes] = field(default_factory=dict)
    plays: list[list[Any]] = field(default_factory=list)  # jugadas.csv's rows
    left_out: list[str] = field(default_factory=list)  # omitidos.txt's lines

    def add(self, name: str, data: bytes) -> str:
        self.files.setdefault(name, data)
        return name

    def add_file(self, folder: str, path: Path | None) -> str:
        """Copy ``path`` (checked by ``StoredFiles`` before) under ``folder``; its name in the zip, or ""
        when there is none."""
        if path is None:
            return ""
        return self.add(f"{folder}/{path.name}", path.read_bytes())

    def leave_out(self, number: int, error: NotStored) -> str:
        self.left_out.append(f"evento {number}: {error}\n")
        return ""


def evidence_zip(found: Services, game_id: str) -> bytes:
    """The game's evidence file (see the module docstring)."""
    with found.games.reading(game_id) as game:
        evidence = Evidence()
        evidence.add("eventos.jsonl", "".join(json.dumps(e.to_json(), ensure_ascii=False) + "\n"
                                              for e in game.events).encode())  # fmt: skip
        evidence.add("historial.txt", "".join(f"{line.number:>4}  {line.when}  {line.text}\n"
                                              for line in history(game)).encode())  # type: ignore[arg-type]  # fmt: skip
        if isinstance(game, DuplicateGame):
            _duplicate(evidence, found, game_id, game)
        elif isinstance(game, ClassicGame):
            _classic(evidence, found, game)
    header = ["n_evento", "hora", "ronda", "jugador", "jugada", "puntos", "por", "archivos", "motivo"]
    evidence.add("jugadas.csv", to_csv((header, evidence.plays)))
    if evidence.left_out:
        evidence.add("omitidos.txt", "".join(evidence.left_out).encode())
    return _zip(evidence)


def _duplicate(evidence: Evidence, found: Services, game_id: str, game: DuplicateGame) -> None:
    scans = found.scans
    doubts = scans.items_of(game_id) if scans.games is not None else []
    crops = {item.page: item for item in doubts}
    pages = scan_pages(scans.root, game_id)
    for number, event in enumerate(game.events, start=1):
        if event.kind not in ("slip", "slip_corrected"):
            continue
        data = event.data
        files = []
        page = data.get("scan")
        if page is not None and scans.root is not None:
            files += _scan_files(evidence, found.files, number, page, pages, crops, scans.root)
        r = game.round(int(data["round"]))
        result = r.results.get(str(data["player"]))
        player = game.players[str(data["player"])]
        evidence.plays.append([number, local_text(event.at), r.number, f"{player.table} {player.name}",
                               (data.get("slip") or {}).get("notation") or "", result.score if result else "",
                               event.actor, " ".join(f for f in files if f), data.get("reason") or ""])  # fmt: skip
    evidence.add("dudas.jsonl", "".join(json.dumps(i.to_json(), ensure_ascii=False) + "\n" for i in doubts).encode())
    announced = [r.number for r in game.rounds if r.master is not None]
    tables: dict[str, Table] = {"clasificacion": standings_table(game), "rondas": round_results_table(game, announced, private=True)}
    evidence.add("resultados.xlsx", to_xlsx(tables))
    for name, table in tables.items():
        evidence.add(f"{name}.csv", to_csv(table))


def _scan_files(evidence: Evidence, files: StoredFiles, number: int, page: Any, pages: dict[str, Path],
                crops: dict[str, Any], root: Path) -> list[str]:  # fmt: skip
    """The scanned page a slip names and, when the reader flagged it, the crop and slip the arbiter saw."""
    try:
        found = [evidence.add_file("escaneos", files.page(page, pages))]
    except NotStored as error:
        return [evidence.leave_out(number, error)]
    item = crops.get(page)
    if item is not None:
        for image in (i for i in (item.crop, item.slip_image) if i):
            try:
                found.append(evidence.add_file("dudas", files.inside(Path(image), root / "revision", "crop")))
            except NotStored as error:
                found.append(evidence.leave_out(number, error))
    return found


def _classic(evidence: Evidence, found: Services, game: ClassicGame) -> None:
    for number, event in enumerate(game.events, start=1):
        if event.kind not in ("play", "challenge", "exchange", "pass"):
            continue
        from_camera = event.actor.startswith("camera:") or bool(event.data.get("frame"))
        files = [_frame_file(evidence, found.files, number, event)] if from_camera else []
        evidence.plays.append([number, local_text(event.at), "", event.data.get("player", ""),
                               event.data.get("notation") or event.kind, "", event.actor, " ".join(f for f in files if f),
                               ""])  # fmt: skip
    cameras = {event.actor.removeprefix("camera:") for event in game.events if event.actor.startswith("camera:")}
    doubts = [i.to_json() for i in found.cameras.queue.items(cameras)]
    evidence.add("dudas.jsonl", "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in doubts).encode())
    sheet = classic_sheet_table(game)
    evidence.add("resultados.xlsx", to_xlsx({"hoja": sheet}))
    evidence.add("hoja.csv", to_csv(sheet))
    try:
        evidence.add("partida.gcg", to_gcg(game).encode())
    except GCGError:
        pass  # a game started from a position has no GCG form


def _frame_file(evidence: Evidence, files: StoredFiles, number: int, event: Event) -> str:
    """The frame a camera play was made from: the one the event names, else the camera's last frame before it
    (the frame is stored before the play is reported)."""
    named = event.data.get("frame")
    if not named:
        latest = files.latest_frame(event.actor.removeprefix("camera:"), event.at.timestamp() + 2.0)
        return evidence.add_file("fotogramas", latest)
    try:
        return evidence.add_file("fotogramas", files.frame(named))
    except NotStored as error:
        return evidence.leave_out(number, error)


def _zip(evidence: Evidence) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in evidence.files.items():
            archive.writestr(name, data)
        archive.writestr(MANIFEST, "".join(_manifest(evidence.files)))
    return out.getvalue()


def _manifest(files: dict[str, bytes]) -> Iterator[str]:
    for name, data in sorted(files.items()):
        yield f"{hashlib.sha256(data).hexdigest()}  {name}\n"
