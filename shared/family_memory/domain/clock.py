"""Time: a Clock port, UTC timestamps at second precision, and family-local dates.

Stored instants are UTC with whole seconds, written ``2026-08-14T19:02:00Z``,
so a file parses back to the same value it was written from. Calendar
questions (has ``valid_until`` arrived?) are answered in the family's own
time zone.
"""

from __future__ import annotations

import threading
from datetime import UTC, date, datetime, timedelta
from typing import Annotated, Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AfterValidator

from family_memory.domain.errors import InvalidInputError


def to_utc_second(value: datetime) -> datetime:
    """The same instant in UTC, microseconds dropped. Naive datetimes are refused."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidInputError(f"timestamp {value.isoformat()} has no time zone; write it in UTC with a trailing Z")
    return value.astimezone(UTC).replace(microsecond=0)


def format_utc(value: datetime) -> str:
    return to_utc_second(value).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_utc(text: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise InvalidInputError(f"{text[:40]!r} is not an ISO 8601 timestamp") from exc
    return to_utc_second(parsed)


UtcDatetime = Annotated[datetime, AfterValidator(to_utc_second)]


def zone(name: str) -> ZoneInfo:
    """An IANA time zone, or a clear error. (A name too long for a file, or one naming a
    folder of the zone data, makes ``ZoneInfo`` raise ``OSError``: not a server error.)"""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as exc:
        raise InvalidInputError(
            f"{name[:60]!r} is not an IANA time zone name (for example America/Los_Angeles)"
        ) from exc


def local_date(instant: datetime, time_zone: str) -> date:
    """The calendar date at ``instant`` in ``time_zone``."""
    return to_utc_second(instant).astimezone(zone(time_zone)).date()


class Clock(Protocol):
    def now(self) -> datetime:
        """The current instant, timezone-aware UTC."""
        ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class FixedClock:
    """A clock that only moves when told to; for tests, replays and simulations."""

    def __init__(self, start: datetime) -> None:
        self._now = to_utc_second(start)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def set(self, instant: datetime) -> None:
        with self._lock:
            self._now = to_utc_second(instant)

    def advance(self, delta: timedelta) -> None:
        with self._lock:
            self._now = self._now + delta
