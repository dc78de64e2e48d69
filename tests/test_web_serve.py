"""``veedor serve``, ``veedor arbiter``, ``veedor device``: the commands of the web app."""

from __future__ import annotations

import argparse
import io
import socket
from pathlib import Path

import pytest

from webapp.cli.accounts import add_account_commands
from webapp.cli.serve import RESERVED_THREADS, add_serve_commands, serve_app
from webapp.services.accounts import Accounts
from webapp.services.store import EventStore


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="veedor")
    commands = parser.add_subparsers(required=True)
    add_serve_commands(commands)
    add_account_commands(commands)
    return parser.parse_args(list(argv))


def accounts(data: Path) -> Accounts:
    return Accounts(EventStore(f"sqlite:///{data / 'veedor.db'}").engine)


def test_arbiter_add_and_remove(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("una-clave-larga\n"))
    args = parse("arbiter", "add", "jefa", "--password-stdin", "--data", str(tmp_path))
    assert args.run(args) == 0 and "jefa" in capsys.readouterr().out
    assert accounts(tmp_path).check_password("jefa", "una-clave-larga")
    monkeypatch.setattr("sys.stdin", io.StringIO("corta\n"))
    again = parse("arbiter", "add", "otro", "--password-stdin", "--data", str(tmp_path))
    assert again.run(again) == 2 and "al menos 8" in capsys.readouterr().err
    remove = parse("arbiter", "remove", "jefa", "--data", str(tmp_path))
    assert remove.run(remove) == 0 and not accounts(tmp_path).arbiter_exists("jefa")


def test_device_add_prints_its_token_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'otra.db'}"
    args = parse("device", "add", "escaner-1", "--role", "scanner", "--game", "g1", "--game", "g2", "--db", db)
    assert args.run(args) == 0
    token = capsys.readouterr().out.strip()
    device = Accounts(EventStore(db).engine).device_for_token(token)
    assert device is not None and (device.name, device.role, device.games) == ("escaner-1", "scanner", {"g1", "g2"})
    with pytest.raises(SystemExit):  # the role is required: a token says what it may send
        parse("device", "add", "escaner-2", "--db", db)


def test_serve_options(tmp_path: Path, file2017: object) -> None:
    from tests.conftest import FILE2017

    args = parse("serve", "--data", str(tmp_path), "--lexicon", str(FILE2017), "--threads", "40", "--port", "0")
    assert (args.host, args.port, args.demo) == ("127.0.0.1", 0, False)
    app = serve_app(args)
    assert app.config["LIVE_MAX_STREAMS"] == 40 - RESERVED_THREADS
    assert app.config["DATABASE_URL"] == f"sqlite:///{tmp_path.resolve() / 'veedor.db'}"
    assert not app.config.get("TESTING")


def test_serve_proxy_and_address_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, file2017: object) -> None:
    from tests.conftest import FILE2017

    monkeypatch.delenv("VEEDOR_PROXY_HOPS", raising=False)
    base = ("serve", "--data", str(tmp_path), "--lexicon", str(FILE2017))
    plain = serve_app(parse(*base))
    assert (plain.config["PROXY_HOPS"], plain.config["LIVE_STREAMS_PER_ADDRESS"]) == (0, 16)
    behind = serve_app(parse(*base, "--proxy-hops", "1", "--per-address", "10"))
    assert (behind.config["PROXY_HOPS"], behind.config["LIVE_STREAMS_PER_ADDRESS"]) == (1, 5)
    monkeypatch.setenv("VEEDOR_PROXY_HOPS", "2")
    assert serve_app(parse(*base)).config["PROXY_HOPS"] == 2
    assert serve_app(parse(*base, "--proxy-hops", "0")).config["PROXY_HOPS"] == 0  # the option wins
    with pytest.raises(SystemExit):
        serve_app(parse(*base, "--proxy-hops", "-1"))


def test_serve_on_a_busy_port_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conftest import FILE2017

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        args = parse("serve", "--data", str(tmp_path), "--lexicon", str(FILE2017), "--port", str(port))
        assert args.run(args) == 2
    assert "no se puede servir" in capsys.readouterr().err
