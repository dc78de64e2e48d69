"""``veedor serve``: run the web app.

``serve`` runs the app under waitress, a production WSGI server in pure Python. A
live screen holds one server thread for as long as it is connected (Server-Sent
Events), so ``--threads`` bounds screens plus ordinary requests: the app accepts at
most ``threads - RESERVED_THREADS`` streams and answers 503 beyond that (the screen
retries), keeping threads for the arbiters. ``--demo`` also plays a demo game by
itself (``services.demo``). ``--venue FILE`` serves a venue (``hardware.venue``): its
database, lexicon, data folder, host and port (``--host``/``--port`` given on the
command line win), its cameras and scanners started with the server and stopped with it.

The server is ``webapp.serving``'s: deadlines for slow requests, at most
``--per-address`` connections from one client address and half as many live streams
(``LIVE_STREAMS_PER_ADDRESS``; a screen beyond it is answered 429 and retries).
Behind a TLS proxy, ``--proxy-hops N`` (or ``$VEEDOR_PROXY_HOPS``) trusts the last N
``X-Forwarded-For``/``-Proto`` values, so that the client's address is the real one;
by default (0) they are ignored.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from flask import Flask

from ..services.shared import services, start_cameras, start_scanners, stop_cameras, stop_scanners
from ..serving import CONNECTIONS_PER_ADDRESS, make_server
from .spanish import LEXICON_HELP

if TYPE_CHECKING:
    from hardware.venue import Venue

DEFAULT_PORT: Final = 8080
DEFAULT_THREADS: Final = 600  # 584 live screens: a hall of 500 screens (+8 MB over 100 threads)
RESERVED_THREADS: Final = 16  # never taken by live screens


def add_serve_commands(commands: Any) -> None:
    """Add ``serve`` to the CLI's subcommands."""
    serve = commands.add_parser("serve", help="sirve la aplicación web (pantallas, consola del árbitro, resultados)")
    serve.add_argument("--host", default="127.0.0.1", help="dirección en la que escuchar (por defecto 127.0.0.1)")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"puerto (por defecto {DEFAULT_PORT})")
    add_storage_options(serve)
    serve.add_argument("--lexicon", metavar="RUTA", help=LEXICON_HELP)
    serve.add_argument("--threads", type=int, default=DEFAULT_THREADS,
                       help=f"hilos del servidor; las pantallas en directo usan hilos-{RESERVED_THREADS} como mucho")  # fmt: skip
    serve.add_argument("--proxy-hops", type=int, metavar="N",
                       help="proxies delante cuyas cabeceras X-Forwarded-For/-Proto se creen "
                            "(por defecto $VEEDOR_PROXY_HOPS, si no, 0: ninguno)")  # fmt: skip
    serve.add_argument("--per-address", type=int, default=CONNECTIONS_PER_ADDRESS, metavar="N",
                       help=f"conexiones como mucho desde una dirección, la mitad de ellas pantallas en directo "
                            f"(por defecto {CONNECTIONS_PER_ADDRESS}; 0: sin límite)")  # fmt: skip
    serve.add_argument("--demo", action="store_true", help="juega sola una partida de demostración (véase services.demo)")
    serve.add_argument("--venue", metavar="ARCHIVO", help="sirve una sede: su base de datos, léxico, cámaras y escáneres")
    serve.set_defaults(run=run_serve)


def add_storage_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", metavar="CARPETA", default="veedor-data",
                        help="carpeta de la base de datos y de la clave de sesión (por defecto ./veedor-data)")  # fmt: skip
    parser.add_argument("--db", metavar="URL", help="URL de la base de datos (por defecto: SQLite veedor.db en --data)")


def database_url(args: argparse.Namespace) -> str:
    """``--db``, else SQLite in ``--data``. An in-memory database cannot be served (one per thread)."""
    if args.db:
        if args.db.startswith("sqlite") and (args.db.rstrip("/") == "sqlite:" or ":memory:" in args.db):
            raise SystemExit("veedor: una base de datos en memoria no sirve para el servidor; use un archivo")
        return str(args.db)
    folder = Path(args.data).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'veedor.db'}"


def serve_app(args: argparse.Namespace) -> Flask:
    """The app ``serve`` runs, from its options."""
    from ..app import create_app

    threads = max(args.threads, RESERVED_THREADS + 4)
    data = Path(args.data).resolve()
    venue = getattr(args, "venue_config", None)
    if venue is not None:
        venue.data_dir.mkdir(parents=True, exist_ok=True)
        if venue.database_url.startswith("sqlite:///"):  # load_venue made it absolute
            Path(venue.database_url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        return create_app({
            "INSTANCE_PATH": str(venue.data_dir), "DATABASE_URL": venue.database_url,
            "LEXICON_PATH": venue.lexicon, "LIVE_MAX_STREAMS": threads - RESERVED_THREADS, "VENUE": venue,
            **_address_config(args),
        })  # fmt: skip
    if args.demo:
        from ..services.demo.server import prepare_demo_data

        prepare_demo_data(data)
    return create_app({
        "INSTANCE_PATH": str(data),
        "DATABASE_URL": database_url(args),
        "LEXICON_PATH": args.lexicon,
        "LIVE_MAX_STREAMS": threads - RESERVED_THREADS,
        **_address_config(args),
    })  # fmt: skip


def _address_config(args: argparse.Namespace) -> dict[str, int]:
    """``LIVE_STREAMS_PER_ADDRESS`` from ``--per-address``; ``PROXY_HOPS`` from ``--proxy-hops`` when
    given (else the app reads ``$VEEDOR_PROXY_HOPS``)."""
    per_address = getattr(args, "per_address", CONNECTIONS_PER_ADDRESS)
    hops = getattr(args, "proxy_hops", None)
    if per_address < 0 or (hops is not None and hops < 0):
        raise SystemExit("veedor: --per-address y --proxy-hops deben ser 0 o más")
    config = {"LIVE_STREAMS_PER_ADDRESS": max(1, per_address // 2) if per_address else 0}
    return config if hops is None else {**config, "PROXY_HOPS": hops}


def load_serve_venue(args: argparse.Namespace) -> bool:
    """Read ``--venue`` into ``args.venue_config`` and take its host and port; False (said why) when bad."""
    from hardware.venue import VenueError, load_venue

    args.venue_config = None
    if not getattr(args, "venue", None):
        return True
    if args.demo:
        print("veedor: --demo y --venue no se pueden usar juntos", file=sys.stderr)
        return False
    try:
        venue = load_venue(args.venue)
    except VenueError as error:
        print(f"veedor: la sede {args.venue!r} tiene problemas (veedor check-venue los detalla):\n{error}",
              file=sys.stderr)  # fmt: skip
        return False
    args.venue_config = venue
    args.host = args.host if args.host != "127.0.0.1" else venue.host
    args.port = args.port if args.port != DEFAULT_PORT else venue.port
    return True


def start_devices(app: Flask, venue: Venue) -> None:
    """Start the venue's camera workers and scanner watchers."""
    start_cameras(app, venue.cameras)
    start_scanners(app, venue.scanners)


def stop_devices(app: Flask) -> None:
    """Stop what ``start_devices`` started; each stop is tried even if another fails."""
    for name, stop in (("stop_scanners", stop_scanners), ("stop_cameras", stop_cameras)):
        try:
            stop(app)
        except Exception as error:  # the server stops anyway; say what did not
            print(f"veedor: aviso: {name} falló al parar: {error}", file=sys.stderr)


def run_serve(args: argparse.Namespace) -> int:
    if not load_serve_venue(args):
        return 2
    app = serve_app(args)
    try:
        server = make_server(app, args.host, args.port, max(args.threads, RESERVED_THREADS + 4), args.per_address)
    except OSError as error:
        print(f"veedor: no se puede servir en {args.host}:{args.port}: {error.strerror}", file=sys.stderr)
        return 2
    base = f"http://{args.host}:{server.effective_port}"
    demo = None
    if args.demo:
        from ..services.demo.server import start_demo

        demo = start_demo(app, base)
    else:
        print(f"Veedor en {base}/  (arbitraje: {base}/arbiter/, resultados: {base}/results)", flush=True)
    venue = args.venue_config
    if venue is not None:
        print(f"sede {venue.name!r}: {len(venue.cameras)} cámara(s), {len(venue.scanners)} escáner(es)", flush=True)
    def stop(_signum: int, _frame: object) -> None:
        services(app).games.close()  # end the live streams first: their threads are then free
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    try:
        if venue is not None:
            start_devices(app, venue)
        server.run()  # waitress stops its threads on KeyboardInterrupt
        print("\nparando…", flush=True)
    finally:
        if demo is not None:
            demo.stop()
        if venue is not None:
            stop_devices(app)
        services(app).games.close()
        server.close()
    return 0
