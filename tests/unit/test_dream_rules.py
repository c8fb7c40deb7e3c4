"""The dream's transitions at their boundaries, and local midnight in real time zones."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from factories import memory
from family_memory.domain.changes import Action
from family_memory.domain.clock import local_date
from family_memory.domain.errors import InvalidInputError
from family_memory.domain.memory import Authority, Durability, MemoryType, Status, Strength
from family_memory.lifecycle.rules import DreamPolicy, apply_transition, decide, plan_transitions
from family_memory.lifecycle.schedule import due_requests, is_due, next_local_midnight, start_of_day
from family_memory.ports.lifecycle import DreamState

LA = "America/Los_Angeles"
POLICY = DreamPolicy()


def _action(m: object, now: datetime, tz: str, policy: DreamPolicy = POLICY) -> Action | None:
    decision = decide(m, local_date(now, tz), tz, policy)  # type: ignore[arg-type]
    return None if decision is None else decision[0]


# --- expire ------------------------------------------------------------------


def test_fact_valid_until_the_17th_is_gone_when_the_17th_begins_in_los_angeles() -> None:
    fact = memory(valid_until=date(2026, 11, 17), durability=Durability.PASSING)
    assert _action(fact, datetime(2026, 11, 17, 7, 59, 59, tzinfo=UTC), LA) is None  # 23:59:59 on the 16th
    assert _action(fact, datetime(2026, 11, 17, 8, 0, 0, tzinfo=UTC), LA) is Action.EXPIRE  # 00:00 on the 17th


def test_fact_about_tonight_does_not_retire_at_five_in_the_afternoon_pacific() -> None:
    tonight = memory(valid_until=date(2026, 11, 17))
    utc_midnight = datetime(2026, 11, 17, 0, 0, tzinfo=UTC)  # 16:00 on the 16th in Los Angeles
    assert _action(tonight, utc_midnight, "UTC") is Action.EXPIRE
    assert _action(tonight, utc_midnight, LA) is None


@pytest.mark.parametrize(
    ("valid_until", "last_day_instant", "first_gone_instant"),
    [
        # Autumn: clocks go back on 2026-11-01, so midnight moves from 07:00Z to 08:00Z.
        (date(2026, 11, 1), datetime(2026, 11, 1, 6, 59, 59, tzinfo=UTC), datetime(2026, 11, 1, 7, 0, tzinfo=UTC)),
        (date(2026, 11, 2), datetime(2026, 11, 2, 7, 59, 59, tzinfo=UTC), datetime(2026, 11, 2, 8, 0, tzinfo=UTC)),
        # Spring: clocks go forward on 2026-03-08, so midnight moves from 08:00Z to 07:00Z.
        (date(2026, 3, 8), datetime(2026, 3, 8, 7, 59, 59, tzinfo=UTC), datetime(2026, 3, 8, 8, 0, tzinfo=UTC)),
        (date(2026, 3, 9), datetime(2026, 3, 9, 6, 59, 59, tzinfo=UTC), datetime(2026, 3, 9, 7, 0, tzinfo=UTC)),
    ],
)
def test_expiry_follows_the_daylight_saving_change(
    valid_until: date, last_day_instant: datetime, first_gone_instant: datetime
) -> None:
    fact = memory(valid_until=valid_until)
    assert _action(fact, last_day_instant, LA) is None
    assert _action(fact, first_gone_instant, LA) is Action.EXPIRE


def test_dormant_memory_still_expires_and_expired_one_is_left_alone() -> None:
    now = datetime(2026, 11, 20, 12, tzinfo=UTC)
    assert _action(memory(valid_until=date(2026, 11, 1), status=Status.DORMANT), now, LA) is Action.EXPIRE
    assert _action(memory(valid_until=date(2026, 11, 1), status=Status.EXPIRED), now, LA) is None


def test_expiry_wins_over_decay_and_promotion() -> None:
    old = datetime(2025, 1, 1, tzinfo=UTC)
    both = memory(
        valid_until=date(2026, 11, 1),
        authority=Authority.INFERRED,
        durability=Durability.PASSING,
        reinforcement_count=9,
        formed_at=old,
        last_reinforced_at=old,
    )
    assert _action(both, datetime(2026, 11, 20, tzinfo=UTC), LA) is Action.EXPIRE


# --- promote -------------------------------------------------------------------


def test_passing_fact_is_promoted_at_three_reinforcements() -> None:
    now = datetime(2026, 11, 20, tzinfo=UTC)
    passing = {"durability": Durability.PASSING, "authority": Authority.USER_IMPLICIT, "type": MemoryType.FACT}
    assert _action(memory(reinforcement_count=2, **passing), now, LA) is None
    assert _action(memory(reinforcement_count=3, **passing), now, LA) is Action.PROMOTE
    assert _action(memory(reinforcement_count=3, durability=Durability.DURABLE), now, LA) is None
    assert _action(memory(reinforcement_count=3, durability=Durability.SEASONAL), now, LA) is None


def test_promotion_threshold_is_configurable() -> None:
    now = datetime(2026, 11, 20, tzinfo=UTC)
    twice = memory(reinforcement_count=2, durability=Durability.PASSING, authority=Authority.USER_IMPLICIT)
    assert _action(twice, now, LA, DreamPolicy(promote_after=2)) is Action.PROMOTE
    assert _action(twice, now, LA, DreamPolicy(promote_after=5)) is None
    with pytest.raises(InvalidInputError, match="promote_after"):
        DreamPolicy(promote_after=0)


def test_pinned_memories_and_explicit_instructions_are_not_promoted() -> None:
    now = datetime(2026, 11, 20, tzinfo=UTC)
    pinned = memory(pin=True, reinforcement_count=5, durability=Durability.PASSING)
    instruction = memory(
        type=MemoryType.DIRECTIVE,
        authority=Authority.USER_EXPLICIT,
        durability=Durability.PASSING,
        reinforcement_count=5,
    )
    constraint = memory(
        type=MemoryType.CONSTRAINT,
        authority=Authority.USER_EXPLICIT,
        durability=Durability.PASSING,
        reinforcement_count=5,
    )
    assert _action(pinned, now, LA) is None
    assert _action(instruction, now, LA) is None
    assert _action(constraint, now, LA) is None


# --- decay ---------------------------------------------------------------------


def _inferred(days_ago: int, now: datetime, **kw: object) -> object:
    last = now - timedelta(days=days_ago)
    return memory(authority=Authority.INFERRED, formed_at=last, last_reinforced_at=last, **kw)


def test_inference_not_reinforced_for_six_months_becomes_dormant() -> None:
    now = datetime(2026, 11, 20, 20, tzinfo=UTC)
    assert _action(_inferred(181, now), now, LA) is None
    assert _action(_inferred(182, now), now, LA) is Action.DECAY
    assert _action(_inferred(30, now), now, LA, DreamPolicy(decay_after_days=30)) is Action.DECAY


@pytest.mark.parametrize("authority", [Authority.USER_EXPLICIT, Authority.USER_IMPLICIT, Authority.SYSTEM])
def test_stated_facts_do_not_decay(authority: Authority) -> None:
    now = datetime(2026, 11, 20, tzinfo=UTC)
    years = now - timedelta(days=1000)
    stated = memory(authority=authority, formed_at=years, last_reinforced_at=years)
    assert _action(stated, now, LA) is None


def test_pinned_inference_and_dormant_inference_do_not_decay_again() -> None:
    now = datetime(2026, 11, 20, tzinfo=UTC)
    assert _action(_inferred(400, now, pin=True), now, LA) is None
    assert _action(_inferred(400, now, status=Status.DORMANT), now, LA) is None


def test_decay_counts_days_on_the_familys_calendar() -> None:
    # Reinforced at 06:00Z on 2026-05-22: still the 21st in Los Angeles.
    reinforced = datetime(2026, 5, 22, 6, 0, tzinfo=UTC)
    inferred = memory(authority=Authority.INFERRED, formed_at=reinforced, last_reinforced_at=reinforced)
    day_182_la = datetime(2026, 11, 19, 8, 0, tzinfo=UTC)  # 00:00 on the 19th in LA: 182 days after the 21st
    assert _action(inferred, day_182_la, LA) is Action.DECAY
    assert _action(inferred, day_182_la, "UTC") is None  # in UTC it was the 22nd: only 181 days


# --- plans and transitions -------------------------------------------------------


def test_plan_lists_expiries_first_then_decays_then_promotions() -> None:
    now = datetime(2026, 11, 20, tzinfo=UTC)
    promote = memory(durability=Durability.PASSING, reinforcement_count=3, authority=Authority.USER_IMPLICIT)
    decay = _inferred(300, now)
    expire = memory(valid_until=date(2026, 11, 19))
    keep = memory()
    plan = plan_transitions([promote, decay, keep, expire], local_date(now, LA), LA, POLICY)  # type: ignore[list-item]
    assert [(t.memory_id, t.action) for t in plan] == [
        (expire.id, Action.EXPIRE),
        (decay.id, Action.DECAY),  # type: ignore[attr-defined]
        (promote.id, Action.PROMOTE),
    ]


def test_a_transition_changes_only_status_or_durability() -> None:
    original = memory(durability=Durability.PASSING, reinforcement_count=3, strength=Strength.HARD)
    promoted = apply_transition(original, Action.PROMOTE)
    expired = apply_transition(original, Action.EXPIRE)
    dormant = apply_transition(original, Action.DECAY)
    assert (promoted.durability, promoted.revision) == (Durability.DURABLE, 2)
    assert (expired.status, dormant.status) == (Status.EXPIRED, Status.DORMANT)
    for changed in (promoted, expired, dormant):
        same = {k: v for k, v in changed.model_dump().items() if k not in ("status", "durability", "revision")}
        assert same == {k: v for k, v in original.model_dump().items() if k not in ("status", "durability", "revision")}
    with pytest.raises(InvalidInputError):
        apply_transition(original, Action.RETRACT)


# --- local midnight and who is due ---------------------------------------------------


def test_next_local_midnight_moves_with_daylight_saving() -> None:
    assert next_local_midnight(datetime(2026, 10, 31, 20, tzinfo=UTC), LA) == datetime(2026, 11, 1, 7, tzinfo=UTC)
    assert next_local_midnight(datetime(2026, 11, 1, 12, tzinfo=UTC), LA) == datetime(2026, 11, 2, 8, tzinfo=UTC)
    assert next_local_midnight(datetime(2026, 3, 8, 12, tzinfo=UTC), LA) == datetime(2026, 3, 9, 7, tzinfo=UTC)
    # 07:30Z on the 17th is still the 16th in Los Angeles: the next midnight is 08:00Z that day.
    assert next_local_midnight(datetime(2026, 11, 17, 7, 30, tzinfo=UTC), LA) == datetime(2026, 11, 17, 8, tzinfo=UTC)


@pytest.mark.parametrize(
    "zone_name",
    ["America/Los_Angeles", "America/Santiago", "America/Havana", "Asia/Tehran", "Australia/Lord_Howe", "UTC"],
)
def test_every_day_starts_at_its_first_real_instant(zone_name: str) -> None:
    """Including zones whose clocks skip or repeat midnight on their changeover days."""
    day = date(2026, 1, 1)
    while day.year == 2026:
        start = start_of_day(day, zone_name)
        assert local_date(start, zone_name) == day
        assert local_date(start - timedelta(seconds=1), zone_name) < day
        day += timedelta(days=1)


def test_family_is_due_when_its_local_midnight_has_passed_since_its_last_dream() -> None:
    last = datetime(2026, 11, 16, 20, tzinfo=UTC)  # 12:00 on the 16th in LA
    state = DreamState("fam-la", LA, date(2026, 11, 16), next_local_midnight(last, LA))
    assert not is_due(state, datetime(2026, 11, 17, 7, 59, tzinfo=UTC))
    assert is_due(state, datetime(2026, 11, 17, 8, 0, tzinfo=UTC))
    assert is_due(None, last)  # never dreamed


def test_due_requests_pick_only_families_past_their_midnight() -> None:
    now = datetime(2026, 11, 17, 1, 0, tzinfo=UTC)  # after midnight in London, before it in Los Angeles
    states = {
        "fam-la": DreamState("fam-la", LA, date(2026, 11, 16), datetime(2026, 11, 17, 8, tzinfo=UTC)),
        "fam-london": DreamState("fam-london", "Europe/London", date(2026, 11, 16), datetime(2026, 11, 17, tzinfo=UTC)),
    }
    due = list(due_requests(["fam-la", "fam-london", "fam-new"], states, now))
    assert [(r.family_id, r.due_at) for r in due] == [
        ("fam-london", datetime(2026, 11, 17, tzinfo=UTC)),
        ("fam-new", None),
    ]
