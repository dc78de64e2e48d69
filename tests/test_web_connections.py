"""One client cannot stop the room: caps per address, request deadlines, streams freed, proxies.

The served tests run ``webapp.serving``'s server on a free loopback port and play the
other clients from other loopback addresses (127.0.0.2, 127.0.0.9...), each client
socket bound to its address.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager

import pytest
from flask import Flask, request

from webapp import serving
from webapp.app import create_app
from webapp.cli.serve import make_server
from webapp.services.shared import services

from .web_helpers import duplicate_game

pytest_plugins = ["tests.conftest_web"]

ATTACKER = "127.0.0.9"


@contextmanager
def served(app: Flask, threads: int = 24) -> Iterator[int]:
    """``app`` served on a free port of 127.0.0.1 for the block; the port."""
    server = make_server(app, "127.0.0.1", 0, threads)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield int(server.effective_port)
    finally:
        services(app).games.close()
        server.close()
        server.task_dispatcher.shutdown(timeout=2)
        thread.join(5)


def connect(port: int, source: str, timeout: float = 2.0) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0))


def get(port: int, path: str, source: str, timeout: float = 1.0) -> str:
    """The status line of ``GET path`` from ``source`` (raises on no answer within ``timeout``)."""
    with connect(port, source, timeout) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: veedor\r\nConnection: close\r\n\r\n".encode())
        return sock.makefile("rb").readline().decode().strip()


def closed_by_server(sock: socket.socket, within: float, trickle: bytes = b"") -> float | None:
    """Send ``trickle`` a byte at a time until the server closes the connection; when, or None."""
    started = time.monotonic()
    sock.settimeout(0.2)
    for byte in (trickle or b" ") * 1000:
        if time.monotonic() - started > within:
            return None
        try:
            if trickle:
                sock.send(bytes([byte]))
            if sock.recv(1024) == b"":
                return time.monotonic() - started
        except TimeoutError:
            continue
        except OSError:  # reset
            return time.monotonic() - started
    return None


def test_half_open_connections_from_one_address_do_not_stop_another(app: Flask) -> None:
    """Before: 150 half headers filled waitress's connection limit (98 with 24 threads)."""
    with served(app) as port, ExitStack() as stack:
        for _ in range(150):
            sock = stack.enter_context(connect(port, ATTACKER))
            sock.sendall(b"GET /results HTTP/1.1\r\nHost: veedor\r\nX-Half: ")
        for other in ("127.0.0.2", "127.0.0.3"):
            started = time.monotonic()
            assert get(port, "/results", other).startswith("HTTP/1.1 200")
            assert time.monotonic() - started < 1.0


@pytest.mark.parametrize("opening", [
    b"GET /results HTTP/1.1\r\nHost: veedor\r\n",  # headers that never end
    b"POST /login HTTP/1.1\r\nHost: veedor\r\nContent-Length: 60000\r\n\r\n",  # a body that never ends
])  # fmt: skip
def test_a_request_trickling_bytes_is_cut_off(app: Flask, monkeypatch: pytest.MonkeyPatch, opening: bytes) -> None:
    """Before: a byte every 0.2 s kept the connection open for ever (waitress times out idle ones only)."""
    monkeypatch.setattr(serving, "HEADER_SECONDS", 1.0)  # 5 s in service
    with served(app) as port, connect(port, "127.0.0.4") as sock:
        sock.sendall(opening)
        cut = closed_by_server(sock, within=6.0, trickle=b"X-Slow: abcdef\r\n" if b"GET" in opening else b"a=b&")
    assert cut is not None and cut < 5.0  # 1 s (+ 60000 bytes at 128 KiB/s) + the checks every second


def test_streams_are_capped_per_address(app: Flask) -> None:
    game_id = duplicate_game(app)
    services(app).streams.per_address = 2
    url = f"/api/games/{game_id}/stream"

    def open_from(address: str) -> int:
        answer = app.test_client().get(url, buffered=False, environ_base={"REMOTE_ADDR": address})
        opened.append(answer)
        return answer.status_code

    opened: list[object] = []
    try:
        assert [open_from(ATTACKER) for _ in range(3)] == [200, 200, 429]
        assert open_from("127.0.0.2") == 200
        assert services(app).streams.open == 3 and services(app).streams.open_from(ATTACKER) == 2
    finally:
        for answer in opened:
            answer.close()  # type: ignore[attr-defined]
    assert services(app).streams.open == 0 and services(app).streams.open_from(ATTACKER) == 0


def wait_for(condition: Callable[[], bool], within: float) -> float | None:
    started = time.monotonic()
    while time.monotonic() - started < within:
        if condition():
            return time.monotonic() - started
        time.sleep(0.05)
    return None


def test_a_stream_slot_is_freed_soon_after_its_screen_leaves(app: Flask) -> None:
    """Before: the slot was held until a ping failed to be written (15 to 30 s)."""
    app.config.update(LIVE_PING_SECONDS=15.0, LIVE_STREAM_SECONDS=900.0)  # as in service
    game_id = duplicate_game(app)
    slots = services(app).streams
    with served(app) as port:
        sock = connect(port, "127.0.0.5")
        sock.sendall(f"GET /api/games/{game_id}/stream HTTP/1.1\r\nHost: veedor\r\n\r\n".encode())
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        assert wait_for(lambda: slots.open == 1, 2.0) is not None
        sock.close()
        freed = wait_for(lambda: slots.open == 0, 4.0)
    assert freed is not None and freed < 3.0


def test_streams_beyond_the_cap_of_one_address_leave_room_for_the_others(app: Flask) -> None:
    """Before: one address took every stream slot (84 of them with 100 threads); here 6 of 8."""
    game_id = duplicate_game(app)
    services(app).streams.limit, services(app).streams.per_address = 8, 6
    request_line = f"GET /api/games/{game_id}/stream HTTP/1.1\r\nHost: veedor\r\n\r\n".encode()
    with served(app) as port, ExitStack() as stack:
        answers = []
        for _ in range(10):
            sock = stack.enter_context(connect(port, ATTACKER))
            sock.sendall(request_line)
            answers.append(int(sock.recv(4096).split()[1]))
        assert answers.count(200) == 6 and answers.count(429) == 4
        screen = stack.enter_context(connect(port, "127.0.0.2"))
        screen.sendall(request_line)
        assert screen.recv(4096).startswith(b"HTTP/1.1 200")


def remote_addr_app(app: Flask) -> Flask:
    app.add_url_rule("/_addr", "addr", lambda: f"{request.remote_addr} {request.scheme}")
    return app


@pytest.mark.parametrize(("hops", "seen"), [(0, "127.0.0.1 http"), (1, "203.0.113.7 https")])
def test_the_client_address_is_the_proxys_word_only_when_trusted(
    app_config: dict[str, object], hops: int, seen: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Before: no setting; behind a proxy every client had the proxy's address."""
    app = remote_addr_app(create_app({**app_config, "PROXY_HOPS": hops}))
    forged = {"X-Forwarded-For": "198.51.100.1, 203.0.113.7", "X-Forwarded-Proto": "https"}
    assert app.test_client().get("/_addr", headers=forged).text == seen
    with served(app) as port, connect(port, "127.0.0.1") as sock:
        sock.sendall(b"GET /_addr HTTP/1.1\r\nHost: veedor\r\nConnection: close\r\n"
                     b"X-Forwarded-For: 198.51.100.1, 203.0.113.7\r\nX-Forwarded-Proto: https\r\n\r\n")  # fmt: skip
        assert sock.makefile("rb").read().decode().endswith(seen)
    assert ("--proxy-hops" in caplog.text) == (hops == 0)  # the forged or untrusted header is told of once


def test_the_proxy_hops_come_from_the_environment(app_config: dict[str, object],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.setenv("VEEDOR_PROXY_HOPS", "1")
    app = remote_addr_app(create_app(app_config))
    assert app.config["PROXY_HOPS"] == 1
    assert app.test_client().get("/_addr", headers={"X-Forwarded-For": "203.0.113.7"}).text.startswith("203.0.113.7 ")
    server = make_server(app, "127.0.0.1", 0, 1)
    assert server.guard.per_address == 0  # every connection is the proxy's: the cap is left to it
    server.close()
    server.task_dispatcher.shutdown(timeout=2)
    monkeypatch.setenv("VEEDOR_PROXY_HOPS", "uno")
    with pytest.raises(ValueError, match="VEEDOR_PROXY_HOPS"):
        create_app(app_config)


@pytest.fixture()
def app_config(app: Flask) -> dict[str, object]:
    """The test app's configuration, to build another app on the same database."""
    return {key: app.config[key] for key in ("TESTING", "SECRET_KEY", "DATABASE_URL", "LEXICON")} | {
        "INSTANCE_PATH": app.instance_path}
