"""The venue's clock: stored times are UTC; people read them in the venue's time zone.

The zone is ``$VEEDOR_TIMEZONE`` (an IANA name such as ``Europe/Madrid``, the default;
``Atlantic/Canary`` for the islands, ``America/Bogota``...). An unknown name falls back
to the default rather than stopping the server.
"""

from __future__ import annotations

import os
from datetime import date, datetime, timezone
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

DEFAULT_ZONE: Final = "Europe/Madrid"


def venue_zone() -> ZoneInfo:
    try:
        return ZoneInfo(os.environ.get("VEEDOR_TIMEZONE") or DEFAULT_ZONE)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo(DEFAULT_ZONE)


def local(moment: datetime) -> datetime:
    """``moment`` (UTC when naive, as SQLite returns it) in the venue's time zone."""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    return aware.astimezone(venue_zone())


def local_now() -> datetime:
    return datetime.now(venue_zone())


def local_date(moment: datetime) -> date:
    return local(moment).date()


def local_text(moment: datetime) -> str:
    """``dd/mm/aaaa hh:mm:ss`` in the venue's time zone, as Spanish readers write it."""
    return local(moment).strftime("%d/%m/%Y %H:%M:%S")


def venue_day(moment: datetime) -> str:
    """``dd/mm/aaaa``: the day of ``moment`` at the venue."""
    return local(moment).strftime("%d/%m/%Y")
