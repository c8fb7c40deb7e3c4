"""How long ago a memory was formed, in words ("remembered 3 weeks ago").

Days are counted on the family's local calendar, so "yesterday" means the
family's yesterday.
"""

from __future__ import annotations

from datetime import datetime

from family_memory.domain.clock import local_date


def _plural(count: int, unit: str) -> str:
    return f"a {unit} ago" if count == 1 else f"{count} {unit}s ago"


def age_in_words(formed_at: datetime, now: datetime, time_zone: str = "UTC") -> str:
    return days_in_words((local_date(now, time_zone) - local_date(formed_at, time_zone)).days)


def days_in_words(days: int) -> str:
    """An age of ``days`` calendar days in words: today, yesterday, N days, weeks, months, years ago."""
    if days <= 0:
        return "today"
    if days == 1:
        return "yesterday"
    if days < 7:
        return f"{days} days ago"
    if days < 30:
        return _plural(days // 7, "week")
    if days < 365:
        return _plural(max(1, days // 30), "month")
    return _plural(days // 365, "year")
