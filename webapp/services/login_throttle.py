"""Failed logins counted per account and address, and per address: guessing is slowed down.

``attempt(login, address)`` is asked before a password is checked, and counts the
attempt as a failure at once, under one lock: forty simultaneous wrong passwords are
not all checked, only the first ``MAX_FAILURES``. A success (``succeeded``) takes that
count back. An account is locked from one address after ``MAX_FAILURES`` failures
within ``FAILURE_WINDOW`` seconds; an address after ``MAX_ADDRESS_FAILURES`` over all
accounts. Behind a TLS proxy the address is the client's (``PROXY_HOPS``), so one
arbiter's typos do not lock out the others, even from one venue network.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Final

MAX_FAILURES: Final = 5  # failed logins to one account from one address...
MAX_ADDRESS_FAILURES: Final = 20  # ...or to any account from one address...
FAILURE_WINDOW: Final = 300.0  # ...within this many seconds lock it out for as long


class LoginThrottle:
    """Failed logins by (account, address) and by address; all reads and writes under one lock."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._failures: dict[tuple[str, str], list[float]] = {}
        self._lock = threading.Lock()

    def attempt(self, login: str, address: str) -> bool:
        """May this login be tried now? If so the attempt counts as a failure until ``succeeded``."""
        with self._lock:
            now = self._clock()
            mine = self._recent((login, address), now)
            anywhere = sum(len(self._recent(key, now)) for key in list(self._failures) if key[1] == address)
            if len(mine) >= MAX_FAILURES or anywhere >= MAX_ADDRESS_FAILURES:
                return False
            self._failures[(login, address)] = [*mine, now]
            return True

    def succeeded(self, login: str, address: str) -> None:
        """The password was right: the account's failures from this address are forgotten."""
        with self._lock:
            self._failures.pop((login, address), None)

    def _recent(self, key: tuple[str, str], now: float) -> list[float]:
        recent = [t for t in self._failures.get(key, []) if now - t < FAILURE_WINDOW]
        if recent:
            self._failures[key] = recent
        else:
            self._failures.pop(key, None)
        return recent
