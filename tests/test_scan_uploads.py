"""Console uploads (issue 19.2, 19.8, 19.9): stored first and answered at once, read by the scanning service's
thread; any file name stored cleanly; refused files listed again after a restart."""

from __future__ import annotations

import io
import time
from pathlib import Path

import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from vision import isolation
from vision.slips.ingest import clean_name
from webapp.app import create_app
from webapp.services.scanning import FolderScanner
from webapp.services.shared import scan_service, services, start_scanners, stop_scanners
from webapp.services.demo.slips import write_scan

from .malformed_scans import nested_forms_pdf, self_referencing_pdf
from .test_image_bombs import hand_pdf
from .test_web_slips import JSON, game_of, jpeg, outcomes, scan_of, upload, wait_for
from .web_helpers import CSRF, arbiter_client, duplicate_game, post

pytest_plugins = ["tests.conftest_web"]


def raw_upload(client: FlaskClient, game_id: str, file_name: bytes, data: bytes) -> object:
    """A multipart upload whose file name is these very bytes (a browser may send anything)."""
    boundary = b"frontera-de-prueba"
    part = b"\r\n--" + boundary + b"\r\nContent-Disposition: form-data; "
    body = (b"--" + boundary + b'\r\nContent-Disposition: form-data; name="csrf_token"\r\n\r\n' + CSRF.encode()
            + part + b'name="scan"; filename="' + file_name + b'"\r\nContent-Type: application/octet-stream\r\n\r\n'
            + data + b"\r\n--" + boundary + b"--\r\n")  # fmt: skip
    return client.post(f"/arbiter/g/{game_id}/escaneos", data=body, headers=JSON,
                       content_type=f"multipart/form-data; boundary={boundary.decode()}")  # fmt: skip


@pytest.mark.parametrize(("name", "stored"), [
    ("a" * 300 + ".png", "a" * 100 + ".png"),
    ("../../etc/passwd", "passwd"),
    ("C:\\escaneos\\..\\mesa 3.JPG", "mesa_3.jpg"),
    ("nul\x00l.png", "nul_l.png"),
    ("...", "escaneo"),
    (".png", "escaneo.png"),
    ("\udcff\udcfe.pdf", "escaneo.pdf"),
    ("papeleta de Íñigo.tiff", "papeleta_de_Íñigo.tiff"),
    ("ñ" * 200 + ".bmp", "ñ" * 50 + ".bmp"),
    ("x.p\u202eng", "x.png"),
])  # fmt: skip
def test_any_file_name_becomes_a_clean_stored_name(name: str, stored: str) -> None:
    assert clean_name(name) == stored and len(clean_name(name).encode()) <= 111


@pytest.mark.parametrize("file_name", [b"x" * 300 + b".png", b"../../a.png", b"\xff\xfe\x00.png", b"a\\b/c.png",
                                       b"\x00", "ñ".encode() * 200, b"con\r\nsalto.png"])  # fmt: skip
def test_an_odd_file_name_is_stored_never_a_500(app: Flask, arbiter: FlaskClient, file_name: bytes) -> None:
    game_id = duplicate_game(app)
    answer = raw_upload(arbiter, game_id, file_name, jpeg(np.full((60, 80), 235, np.uint8)))
    assert answer.status_code in (202, 400, 409)  # type: ignore[attr-defined]
    if answer.status_code == 202:  # type: ignore[attr-defined]
        (stored,) = answer.get_json()["stored"]  # type: ignore[attr-defined]
        assert stored == clean_name(stored) and len(stored.encode()) < 120 and "/" not in stored
        assert outcomes(arbiter, answer)[stored]["state"] in ("waiting", "read")


def test_two_files_of_one_name_are_both_kept(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    first = upload(arbiter, game_id, {"escaneo.png": b"no es una imagen"})
    second = upload(arbiter, game_id, {"escaneo.png": b"tampoco es una imagen"})
    assert first.get_json()["stored"] == ["escaneo.png"] and second.get_json()["stored"] == ["escaneo-2.png"]
    assert outcomes(arbiter, first)["escaneo.png"]["state"] == "refused"
    assert outcomes(arbiter, second)["escaneo-2.png"]["state"] == "refused"
    kept = {r.stored: r.path.read_bytes() for r in scan_service(app).refused()}
    assert kept == {"escaneo.png": b"no es una imagen", "escaneo-2.png": b"tampoco es una imagen"}


def test_a_large_pdf_is_answered_at_once_and_read_in_the_background(app: Flask, arbiter: FlaskClient) -> None:
    """40 pages of 80 x 80 cm (40 megapixels each at 200 dpi) held an upload request for 66 s: now the request
    only stores the file; the scanning service's thread renders the pages, at 8 megapixels at most."""
    game_id = duplicate_game(app)
    start = time.perf_counter()
    answer = upload(arbiter, game_id, {"cartel.pdf": hand_pdf([(2276, 2276)] * 40)})
    assert answer.status_code == 202 and time.perf_counter() - start < 1
    assert answer.get_json()["stored"] == ["cartel.pdf"] and "sin código QR esperarán" in answer.get_json()["note"]
    found = outcomes(arbiter, answer)["cartel.pdf"]
    assert found["state"] == "waiting" and found["pages"] == 40  # blank: for the game chosen for plain slips
    (sha,) = set(scan_service(app).uploads().pages)
    page = arbiter.get(f"/arbiter/g/{game_id}/escaneos/{sha}.png")
    assert page.status_code == 200
    post(arbiter, f"/arbiter/g/{game_id}/papeletas/seguir")
    found = outcomes(arbiter, answer)["cartel.pdf"]
    assert found["state"] == "read" and [r["status"] for r in found["results"]] == ["flagged"] * 40
    assert len(scan_service(app).pending(game_id)) == 1  # one blank page, 40 times: stored and read once


def test_a_pdf_over_the_page_limit_is_refused_with_its_reason_and_kept(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    data = hand_pdf([(595, 842)] * 61)
    found = outcomes(arbiter, upload(arbiter, game_id, {"ronda.pdf": data}))["ronda.pdf"]
    assert found == {"name": "ronda.pdf", "state": "refused",
                     "reason": "ronda.pdf: 61 páginas: el máximo es 60 por archivo "
                               "(divida el lote en varios archivos)"}
    kept = arbiter.get(f"/arbiter/g/{game_id}/escaneos/rechazados/subidas/ronda.pdf")
    assert kept.status_code == 200 and kept.data == data


def test_a_pdf_whose_page_tree_contains_itself_is_refused_and_the_scans_after_it_are_read(
        app: Flask, arbiter: FlaskClient) -> None:  # fmt: skip
    """It raised a pdfium error on every poll: every upload after it stayed unread, across restarts (issue 67)."""
    game_id = duplicate_game(app)
    post(arbiter, f"/arbiter/g/{game_id}/papeletas/seguir")
    bad = self_referencing_pdf()
    found = outcomes(arbiter, upload(arbiter, game_id, {"a-ronda.pdf": bad,
                                                        "b-vacia.jpg": jpeg(np.full((700, 900), 235, np.uint8))}))
    assert found["a-ronda.pdf"] == {"name": "a-ronda.pdf", "state": "refused",
                                    "reason": "a-ronda.pdf: PDF dañado: la página 1 no se puede abrir"}
    assert found["b-vacia.jpg"]["state"] == "read"
    assert scan_service(app).problems() == []
    html = arbiter.get(f"/arbiter/g/{game_id}/papeletas").get_data(as_text=True)
    assert "a-ronda.pdf: PDF dañado: la página 1 no se puede abrir" in html
    assert arbiter.get(f"/arbiter/g/{game_id}/escaneos/rechazados/subidas/a-ronda.pdf").data == bad


def test_a_watched_folder_sets_a_hanging_pdf_aside_and_reads_the_slip_after_it(app: Flask, tmp_path: Path) -> None:
    game_id = duplicate_game(app)
    folder = tmp_path / "escaner"
    folder.mkdir()
    (folder / "a-formas.pdf").write_bytes(nested_forms_pdf(12))  # minutes of pdfium's time: cut at the budget
    write_scan(folder, "b-ana.jpg", scan_of(game_id, "j1", 1, "H3", "AMONEN"))
    app.config["SCAN_POLL_SECONDS"] = 0.05
    scan_service(app).budget = isolation.Budget(seconds=1.0)  # SCAN_DECODE_SECONDS
    start_scanners(app, [FolderScanner("escaner1", folder)])
    try:
        wait_for(lambda: "j1" in game_of(app, game_id).round(1).slips, 60)
    finally:
        stop_scanners(app)
    (refused,) = scan_service(app).refused()
    assert refused.name == "a-formas.pdf" and "tarda demasiado en leerse" in refused.reason
    assert refused.path.read_bytes() == nested_forms_pdf(12) and list(folder.iterdir()) == []


def test_the_refused_list_is_rebuilt_after_a_restart(app: Flask, arbiter: FlaskClient, tmp_path: Path) -> None:
    game_id = duplicate_game(app)
    outcomes(arbiter, upload(arbiter, game_id, {"nota.png": b"esto no es un escaneo"}))
    scans = scan_service(app)
    folder = tmp_path / "escaner"
    scanner = scans.add_scanner("escaner1", folder)
    (folder / "vacio.tif").write_bytes(b"")
    scanner.poll()
    assert scans.root is not None  # a crash between keeping a refused file and journaling it:
    (scans.root / "escaneres" / "escaner1" / "refused" / "cortado.pdf").write_bytes(b"%PDF-")
    services(app).games.close()

    restarted = create_app({**{k: app.config[k] for k in ("TESTING", "SECRET_KEY", "DATABASE_URL", "LEXICON")},
                            "INSTANCE_PATH": app.instance_path})  # fmt: skip
    try:
        console = arbiter_client(restarted)
        html = console.get(f"/arbiter/g/{game_id}/papeletas").get_data(as_text=True)
        assert "Escaneos rechazados (3)" in html
        assert "nota.png: no es una imagen PNG" in html and "vacio.tif: el archivo está vacío" in html
        assert "cortado.pdf: rechazado (el motivo no llegó a anotarse)" in html
        for scanner_name, name in (("subidas", "nota.png"), ("escaner1", "vacio.tif"), ("escaner1", "cortado.pdf")):
            url = f"/arbiter/g/{game_id}/escaneos/rechazados/{scanner_name}/{name}"
            assert console.get(url).status_code == 200, url
    finally:
        services(restarted).games.close()


def test_uploads_stored_before_a_stop_are_read_after_the_restart(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    post(arbiter, f"/arbiter/g/{game_id}/papeletas/seguir")
    scans = scan_service(app)
    scans.stop()  # the server is stopping: an upload is still stored, and its pages, but nothing is read
    answer = upload(arbiter, game_id, {"vacia.jpg": jpeg(np.full((700, 900), 235, np.uint8))})
    (stored,) = answer.get_json()["stored"]
    wait_for(lambda: not scans.uploads().waiting() and scans.outcome(stored) == {"state": "reading", "pages": 1,
                                                                                  "read": 0})  # fmt: skip
    assert scans.pending(game_id) == []
    services(app).games.close()

    restarted = create_app({**{k: app.config[k] for k in ("TESTING", "SECRET_KEY", "DATABASE_URL", "LEXICON")},
                            "INSTANCE_PATH": app.instance_path})  # fmt: skip
    try:
        again = scan_service(restarted)  # attached on first use: the unread upload is read
        wait_for(lambda: (again.outcome(stored) or {}).get("state") == "read")
        assert len(again.pending(game_id)) == 1
    finally:
        again.stop()
        services(restarted).games.close()


def test_an_upload_needs_an_arbiter(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    data = {"csrf_token": CSRF, "scan": [(io.BytesIO(b"x"), "x.png")]}
    answer = client.post(f"/arbiter/g/{game_id}/escaneos", data=data, content_type="multipart/form-data", headers=JSON)
    assert answer.status_code in (400, 401, 403)
    assert scan_service(app).root is None or not (scan_service(app).root / "escaneres" / "subidas").exists()
    assert client.get(f"/arbiter/g/{game_id}/escaneos/subidas/x.png", headers=JSON).status_code == 401


def test_asking_for_an_upload_that_never_was_is_a_404(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    for name in ("nada.png", "..", "a%00b.png", "%ff.png", "x" * 300):
        assert arbiter.get(f"/arbiter/g/{game_id}/escaneos/subidas/{name}", headers=JSON).status_code == 404, name
