"""When a family is due for its nightly dream: its local midnight has passed
since its last dream.

Each finished dream records the first instant of the family's next local
date (``next_dream_at``). The hourly fan-out enqueues every family whose
``next_dream_at`` has passed, and every family that never dreamed. Local
midnight is computed with the IANA rules of the family's zone, so a
daylight-saving change moves it by the right hour, and a zone whose clocks
skip midnight gets the first instant that exists on the new date.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, date, datetime, time, timedelta

from family_memory.domain.clock import local_date, to_utc_second, zone
from family_memory.ports.lifecycle import DreamRequest, DreamState


def start_of_day(day: date, time_zone: str) -> datetime:
    """The first instant (UTC) whose local date in ``time_zone`` is ``day``."""
    tz = zone(time_zone)
    # fold=0 on a non-existent midnight resolves with the offset before the jump,
    # which lands on the first real instant of the day; check and step if not.
    candidate = datetime.combine(day, time(0), tzinfo=tz).astimezone(UTC)
    for _ in range(4):
        seen = local_date(candidate, time_zone)
        if seen == day and local_date(candidate - timedelta(seconds=1), time_zone) < day:
            return candidate
        if seen < day:
            candidate += timedelta(minutes=30)
        else:
            candidate -= timedelta(minutes=30)
    return candidate


def next_local_midnight(instant: datetime, time_zone: str) -> datetime:
    """The first instant of the local date after the one ``instant`` falls on."""
    today = local_date(instant, time_zone)
    return start_of_day(today + timedelta(days=1), time_zone)


def is_due(state: DreamState | None, now: datetime) -> bool:
    if state is None or state.next_dream_at is None:
        return True
    return to_utc_second(now) >= state.next_dream_at


def due_requests(families: Iterable[str], states: Mapping[str, DreamState], now: datetime) -> Iterator[DreamRequest]:
    """A dream request for each family whose local midnight has passed since its last dream."""
    for family_id in families:
        state = states.get(family_id)
        if is_due(state, now):
            yield DreamRequest(family_id, state.next_dream_at if state is not None else None)
