"""A question about a day brings the standing arrangements that fall on it (retrieval/schedule.py)."""

from __future__ import annotations

from datetime import date

import pytest

from family_memory.retrieval.schedule import asked_weekday, covers

TUESDAY, THURSDAY, FRIDAY, SATURDAY = 1, 3, 4, 5


@pytest.mark.parametrize(
    ("message", "weekday"),
    [
        ("what's idris got on after school on tuesday?", TUESDAY),
        ("who's getting the twins on thursday, and is there piano that day?", THURSDAY),
        ("jana's working late on thurs, can i just pick up ida from kita?", THURSDAY),
        ("what's on tonight", TUESDAY),  # said on Tuesday 2026-12-01
        ("anything on tomorrow?", 2),
    ],
)
def test_a_question_about_a_day_names_that_day(message: str, weekday: int) -> None:
    assert asked_weekday(message, date(2026, 12, 1)) == weekday


@pytest.mark.parametrize(
    "message", ["can you book us a table for saturday", "saturday was lovely, thanks", "what should we cook"]
)
def test_a_message_that_only_mentions_a_day_asks_nothing_of_it(message: str) -> None:
    assert asked_weekday(message, date(2026, 12, 1)) is None


@pytest.mark.parametrize(
    ("summary", "weekday"),
    [
        ("Idris goes to madrasa at the masjid Monday to Thursday, 5 to 6:30.", TUESDAY),
        ("Niamh has camogie every Tuesday and Thursday at 6:30 at Lough Rovers.", THURSDAY),
        ("Tom picks the kids up on Thursdays.", THURSDAY),
        ("Sione is out on Thursday evenings.", THURSDAY),
        ("Maricel works weekdays until 2.", FRIDAY),
        ("The kids are with their dad at weekends.", SATURDAY),
        ("Halmeoni takes the twins' pickups back from Monday, May 18, 2026, Monday to Thursday as before.", THURSDAY),
    ],
)
def test_a_standing_arrangement_covers_its_days(summary: str, weekday: int) -> None:
    assert covers(summary, weekday)


@pytest.mark.parametrize(
    ("summary", "weekday"),
    [
        ("Kai's field trip is on Thursday, March 12, 2026.", THURSDAY),  # a one-off
        ("Seo-yeon's piano lessons moved from Thursdays to Fridays.", THURSDAY),  # moved away
        ("Niamh has camogie every Tuesday and Thursday at 6:30.", FRIDAY),
        ("Maricel works weekdays until 2.", SATURDAY),
    ],
)
def test_a_one_off_or_another_day_does_not(summary: str, weekday: int) -> None:
    assert not covers(summary, weekday)


def test_a_weekday_with_a_lookalike_letter_is_read_not_a_crash() -> None:
    # "frıday" (dotless i) matches the day patterns under re.I; the range and the list read it.
    assert covers("Swim club runs monday to frıday at 6 am.", 4)
    assert covers("Piano every Frıday at 4.", 4)
    assert asked_weekday("what's on frıday?", date(2026, 6, 1)) == 4


def test_the_quick_check_for_a_day_word_agrees_with_its_pattern() -> None:
    """``days_covered`` first asks whether a text could name a day; for ASCII text it looks for the
    words with ``str``: the same answer as the case-blind pattern, on text built from their letters
    and on text outside ASCII (the dotless i, the long s, full-width letters)."""
    import random

    from family_memory.domain.text import normalise_for_match
    from family_memory.formation.dates import fold_lookalikes
    from family_memory.retrieval.schedule import _MAY_NAME_A_DAY, _may_name_a_day

    rng = random.Random(7)
    pieces = ["mon", "tu", "tue", "we", "wed", "th", "thu", "fr", "fri", "sa", "sat", "su", "sun", "week", "day"]
    pieces += ["weekend", "school", " days", "every", "each", "dai", "ly", "end", " ", "-", "é", "ı", "ſ", "Ｍ", "K"]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 6))) for _ in range(20000)]
    texts += ["frıday", "ſunday", "Ｍonday", "SCHOOL DAYS", "every  day", "weekend", "no day here"]
    found = [bool(_MAY_NAME_A_DAY.search(fold_lookalikes(normalise_for_match(t)))) for t in texts]
    assert 1000 < sum(found) < len(texts) - 1000  # both answers, many times
    for text in texts:
        folded = fold_lookalikes(normalise_for_match(text))
        assert _may_name_a_day(folded) == bool(_MAY_NAME_A_DAY.search(folded)), text
