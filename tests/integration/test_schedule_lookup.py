"""A question about a day puts the standing arrangements that fall on it first among the lookup's
candidates, inside their budget (retrieval/schedule.py, issue 11 section 2): "madrasa Monday to
Thursday" shares no word with "tuesday" and similarity alone leaves it out."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from family_memory.domain.clock import FixedClock
from family_memory.domain.family import Surface
from retrieval_helpers import fact, local_runtime, remember, retrieval_of

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)  # a Tuesday

MADRASA = fact("Idris goes to madrasa at the masjid Monday to Thursday, 5 to 6:30.", "Idris's madrasa")
SWIM = fact("Idris has swimming every Friday at 4.", "Idris's swimming")
TRIP = fact("Idris has a school trip to the zoo on Tuesday, March 3, 2026.", "Idris's school trip")
OTHERS = [
    fact(f"Idris liked the {thing} after school.", f"Idris and the {thing}")
    for thing in ("library", "park", "football club", "art room", "playground", "science fair")
]


def found(tmp_path: Path, message: str, **settings: int) -> list[tuple[str, str]]:
    rt = local_runtime(tmp_path, FixedClock(NOW), embedder="hashed", **settings)
    remember(rt, MADRASA, SWIM, TRIP, *OTHERS)
    result = retrieval_of(rt).lookup.lookup("fam-rivera", message)
    return [(item.row.id, item.via) for item in result.items]


def test_a_question_about_a_day_brings_what_recurs_on_it_first(tmp_path: Path) -> None:
    items = found(tmp_path, "what's idris got on after school on tuesday?")
    assert items[0] == (MADRASA.id, "schedule")
    ids = [i for i, _ in items]
    assert SWIM.id not in ids  # Fridays
    assert (TRIP.id, "schedule") not in items  # a one-off is no standing arrangement
    assert len(items) <= 5  # inside the candidates' budget


def test_a_message_that_does_not_ask_about_a_day_has_no_schedule_pass(tmp_path: Path) -> None:
    assert all(via != "schedule" for _, via in found(tmp_path, "idris loved the library on tuesday"))


BINS = fact("The bins go out every Tuesday morning.", "The bins")
DINNER = fact("Dinner is at 8 on Tuesdays, after the kids' training.", "Dinner time")


def test_a_days_arrangements_come_in_the_order_the_message_ranks_them(tmp_path: Path) -> None:
    # Both recur on Tuesday and neither names a person the message names: the one the message
    # is about ("dinner") leads, not the one the weekday-name pass happened to find first.
    rt = local_runtime(tmp_path, FixedClock(NOW), embedder="hashed")
    remember(rt, BINS, DINNER, *OTHERS)
    lookup = retrieval_of(rt).lookup
    message = "what's on tuesday for dinner?"
    unranked = [row.id for row in lookup.schedule_for("fam-rivera", message, Surface.CHAT)]
    assert set(unranked) == {BINS.id, DINNER.id}
    items = lookup.lookup("fam-rivera", message).items
    assert [(item.row.id, item.via) for item in items[:2]] == [(DINNER.id, "schedule"), (BINS.id, "schedule")]


PIANO = fact("Idris's piano lessons moved to Wednesdays and Fridays at 4:30.", "Idris's piano")
RECITAL = fact("Idris has a piano recital on Saturday, June 20, 2026.", "Idris's recital")


def test_a_day_question_that_names_an_activity_brings_that_arrangement_whatever_its_days(tmp_path: Path) -> None:
    # "is there piano that day?" asks of a Tuesday; the answer is the piano's own days.
    rt = local_runtime(tmp_path, FixedClock(NOW), embedder="hashed")
    remember(rt, MADRASA, SWIM, PIANO, RECITAL, *OTHERS)
    items = retrieval_of(rt).lookup.lookup("fam-rivera", "what's idris got on tuesday, is there piano that day?").items
    planned = [item.row.id for item in items if item.via == "schedule"]
    assert planned[0] == MADRASA.id  # the day's own arrangement first
    assert PIANO.id in planned
    assert RECITAL.id not in planned and SWIM.id not in planned  # a one-off; no activity named
