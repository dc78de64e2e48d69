"""The HTTP server of ``veedor serve``: waitress, hardened so that no one client stops the room.

Waitress reads every connection in one I/O thread and runs each complete request on
a pool thread, so a connection that is still sending costs a socket and no thread.
``GuardedServer`` adds to it:

* a deadline for each request: its headers within ``HEADER_SECONDS`` of its first
  byte, its body at ``BODY_BYTES_PER_SECOND`` at least (a client trickling bytes,
  "slow loris", is cut off all the same); a connection idle between requests is
  closed after ``IDLE_SECONDS``;
* a cap of open connections per client address (``CONNECTIONS_PER_ADDRESS``): a
  connection beyond it is closed at once, so one address never fills the server's
  connection limit. Behind a trusted proxy (``PROXY_HOPS`` > 0 in the app's
  configuration) every connection comes from the proxy: the cap is left to it;
* the reading of a connection while its request runs (``channel_request_lookahead``),
  so that a live screen that leaves is noticed at once
  (``environ["waitress.client_disconnected"]``), not at the next write.

Why waitress and not a server for many idle connections (gevent, asyncio): the app
runs camera worker processes and scanner threads that gevent's monkeypatching would
change under them; and a live screen costs one parked thread here, which ``--threads``
sizes: 600 threads instead of 100 cost 8 MB more, and 500 open streams 3 % of a core
(each looks at its client once a second). ``make bench`` (``bench_attack``) measures
500 screens under attack.
"""

from __future__ import annotations

import logging
import resource
import threading
import time
from collections import Counter
from typing import Any, Final

from flask import Flask
from waitress.adjustments import Adjustments  # type: ignore[import-untyped]
from waitress.channel import HTTPChannel  # type: ignore[import-untyped]
from waitress.server import MultiSocketServer, TcpWSGIServer  # type: ignore[import-untyped]
from waitress.task import ThreadedTaskDispatcher  # type: ignore[import-untyped]

log = logging.getLogger(__name__)

HEADER_SECONDS: Final = 5.0  # seconds for a request's headers, from its first byte
BODY_BYTES_PER_SECOND: Final = 128 * 1024  # the slowest body accepted, on average, after the headers
IDLE_SECONDS: Final = 30  # seconds a keep-alive connection may wait for its next request
CONNECTIONS_PER_ADDRESS: Final = 32  # a browser opens 6 per server; a hall's NAT may need more
CHECK_SECONDS: Final = 1  # seconds between looks at the deadlines


def make_server(app: Flask, host: str, port: int, threads: int, per_address: int = CONNECTIONS_PER_ADDRESS) -> Any:
    """A ``GuardedServer`` for ``app`` (``.run()`` serves until ``.close()``; port 0 picks one).

    ``threads`` pool threads; ``per_address`` connections at most from one client
    address (0: no cap, as when ``app.config["PROXY_HOPS"]`` trusts a proxy)."""
    proxied = int(app.config.get("PROXY_HOPS") or 0) > 0
    limit = threads * 2 + 50
    _allow_open_files(limit + 64)
    adj = Adjustments(
        host=host, port=port, threads=threads, connection_limit=limit, max_request_body_size=_largest_body(app),
        asyncore_use_poll=True, ident="Veedor", channel_request_lookahead=1, cleanup_interval=CHECK_SECONDS,
        channel_timeout=IDLE_SECONDS, clear_untrusted_proxy_headers=not proxied,  # the app's ProxyFix reads them
    )  # fmt: skip
    dispatcher = ThreadedTaskDispatcher()
    dispatcher.set_thread_count(threads)
    socket_map: dict[int, Any] = {}
    guard = AddressGuard(per_address, proxied)
    servers = [GuardedServer(app, socket_map, dispatcher=dispatcher, adj=adj, sockinfo=info) for info in adj.listen]
    for server in servers:
        server.guard = guard
    if len(servers) == 1:
        return servers[0]
    return MultiSocketServer(socket_map, adj, [(s.effective_host, s.effective_port) for s in servers], dispatcher,
                             servers[-1].log_info)  # fmt: skip


def _largest_body(app: Flask) -> int:
    """Waitress's cap: the largest body any route accepts (Flask checks each route's own)."""
    from .views.slip_review import UPLOAD_BYTES

    return max(int(app.config["MAX_CONTENT_LENGTH"]), int(app.config.get("SCAN_UPLOAD_BYTES", UPLOAD_BYTES)))


def _allow_open_files(wanted: int) -> None:
    """Raise the soft limit of open files towards ``wanted`` (one per connection), within the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


class AddressGuard:
    """Open connections by client address, and the cap on them (0: none); behind a trusted proxy
    (``proxied``) there is no cap: every connection is the proxy's."""

    def __init__(self, per_address: int, proxied: bool = False) -> None:
        self.per_address = 0 if proxied else per_address
        self.open: Counter[str] = Counter()
        self._lock = threading.Lock()  # connections are closed by the I/O thread, and at shutdown
        self._told = proxied

    def admit(self, address: str) -> bool:
        """Count a new connection from ``address``; False (not counted) when it would pass the cap."""
        with self._lock:
            if self.per_address and self.open[address] >= self.per_address:
                return False
            self.open[address] += 1
            return True

    def forwarded(self) -> None:
        """A request said ``X-Forwarded-For`` while no proxy is trusted: say so, once."""
        if not self._told:
            self._told = True  # (with a trusted proxy, ``_told`` starts True)
            log.warning("peticiones con X-Forwarded-For, que se ignora: si Veedor está detrás de un proxy, "
                        "use --proxy-hops (o VEEDOR_PROXY_HOPS); si no, alguien lo falsifica")  # fmt: skip

    def leave(self, address: str) -> None:
        """Uncount a connection from ``address`` that closed."""
        with self._lock:
            self.open[address] -= 1
            if self.open[address] <= 0:
                del self.open[address]


class GuardedChannel(HTTPChannel):  # type: ignore[misc]
    """A connection that knows when its pending request started, and counts for its address."""

    server: GuardedServer
    _timed: Any = None  # the request being received (waitress's parser), once timed
    _started = 0.0  # time.monotonic() when its first bytes came
    _counted = False  # whether it is in the server's ``guard``

    def received(self, data: bytes) -> bool:
        result = bool(super().received(data))
        pending = self.request
        if pending is not None and pending is not self._timed:
            self._timed, self._started = pending, time.monotonic()
        if self.requests and "X_FORWARDED_FOR" in self.requests[-1].headers:
            self.server.guard.forwarded()
        return result

    def overdue(self, now: float) -> bool:
        """True when a request is still being received past its deadline (``now``: monotonic)."""
        pending = self.request  # waitress's HTTPRequestParser
        if self.requests or pending is None or pending is not self._timed:
            return False  # idle, or a request running: waitress's own timeout applies
        allowed = HEADER_SECONDS
        if pending.headers_finished:
            size = self.adj.max_request_body_size if pending.chunked else pending.content_length
            allowed += size / BODY_BYTES_PER_SECOND
        return now - self._started > allowed

    def del_channel(self, map: Any = None) -> None:
        super().del_channel(map)
        if self._counted:
            self._counted = False
            self.server.guard.leave(self.addr[0])


class GuardedServer(TcpWSGIServer):  # type: ignore[misc]
    """Waitress's TCP server with a cap per address and request deadlines (see the module)."""

    channel_class = GuardedChannel
    guard = AddressGuard(0)  # replaced by ``make_server``

    def handle_accept(self) -> None:
        try:
            accepted = self.accept()
            if accepted is None:
                return
            conn, addr = accepted
            self.set_socket_options(conn)
        except OSError:
            return  # the client left before it was accepted
        if not self.guard.admit(addr[0]):
            conn.close()  # one address may not take the server's connections
            return
        try:
            channel = self.channel_class(self, conn, addr, self.adj, map=self._map)
        except OSError:
            self.guard.leave(addr[0])
            conn.close()
            return
        channel._counted = True

    def maintenance(self, now: float) -> None:
        super().maintenance(now)
        clock = time.monotonic()
        for channel in list(self.active_channels.values()):
            if isinstance(channel, GuardedChannel) and channel.overdue(clock):
                channel.will_close = True  # closed at the loop's next turn
