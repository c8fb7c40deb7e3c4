"""The family's own changes: add, edit, forget, forget a group; evidence and lineage views."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from conftest import Adapters, local_adapters
from factories import memory
from family_memory.card.operations import (
    GroupSelector,
    MemoryDraft,
    MemoryEdit,
    _change_set,
    add_memory,
    edit_memory,
    forget_group,
    forget_memory,
    preview_group,
)
from family_memory.card.views import evidence_view, lineage_view, list_memories
from family_memory.domain.changes import Action, ChangeRecord, MemoryWrite
from family_memory.domain.clock import FixedClock
from family_memory.domain.errors import ConflictError, InvalidInputError, NotFoundError, PayloadTooLargeError
from family_memory.domain.layout import memory_path, suppression_path
from family_memory.domain.memory import Authority, MemoryType, Sensitivity, Status
from family_memory.domain.okf import parse_json, parse_memory, validate
from family_memory.domain.suppression import Suppression, SuppressionScope
from family_memory.formation.document import OutcomeKind
from family_memory.formation.service import FormationDeps, extract_session, receive_session, reconcile_session
from family_memory.writes.protocol import FamilyWriter
from formation_helpers import FAMILY, FRIDAY_MORNING, deps, save_family, session_json


@pytest.fixture
def local(tmp_path: Path, clock: FixedClock) -> Adapters:
    adapters = local_adapters(tmp_path, clock)
    save_family(adapters.store)
    return adapters


@pytest.fixture
def records() -> list[ChangeRecord]:
    return []


@pytest.fixture
def d(local: Adapters, records: list[ChangeRecord]) -> FormationDeps:
    formation = deps(local)
    formation.writer.listeners.append(records.append)
    return formation


def learn(d: FormationDeps, text: str, session_id: str = "sess-1") -> list[str]:
    receive_session(d, session_json([("user", "lucia", text)], session_id=session_id, started_at=FRIDAY_MORNING))
    extract_session(d, FAMILY, session_id, enqueue=False)
    report = reconcile_session(d, FAMILY, session_id)
    return [o.memory_id for o in report.outcomes if o.memory_id]


def read(local: Adapters, memory_id: str):  # type: ignore[no-untyped-def]
    return parse_memory(local.store.read(FAMILY, memory_path(memory_id)).data)


def test_add_is_an_explicit_memory_verified_by_the_member(d: FormationDeps, local: Adapters, records) -> None:  # type: ignore[no-untyped-def]
    draft = MemoryDraft(
        type=MemoryType.PREFERENCE, about="Bedtime", summary="Maya goes to bed at 8pm.", applies_to=["Maya"]
    )
    memory = add_memory(d.writer, FAMILY, "lucia", draft)
    stored = read(local, memory.id)
    assert stored.authority is Authority.USER_EXPLICIT and stored.confidence == 1.0
    assert [a.by for a in stored.verified or []] == ["human:lucia"]
    assert stored.sensitivity is Sensitivity.MINORS  # about a child: tagged even though nobody said so
    assert [(m.action, m.memory_id) for m in records[-1].memories] == [(Action.ADD, memory.id)]
    assert records[-1].actor == "human:lucia"
    [line] = evidence_view(local.store, FAMILY, memory.id).lines
    assert line.source == "card" and line.ref == f"memory://{FAMILY}/{memory.id}" and line.quote == draft.summary


def test_only_members_of_the_family_can_change_it(d: FormationDeps) -> None:
    draft = MemoryDraft(type=MemoryType.FACT, about="x", summary="y")
    with pytest.raises(InvalidInputError, match="not in family"):
        add_memory(d.writer, FAMILY, "stranger", draft)


def test_edit_supersedes_the_old_memory_with_a_new_explicit_one(d: FormationDeps, local: Adapters, records) -> None:  # type: ignore[no-untyped-def]
    [thai] = learn(d, "We love Thai food.")
    old, new = edit_memory(d.writer, FAMILY, thai, "marco", MemoryEdit(summary="The family loves Thai and Lao food."))
    assert read(local, thai).status is Status.SUPERSEDED and read(local, thai).superseded_by == new.id
    stored = read(local, new.id)
    assert stored.supersedes == thai and stored.authority is Authority.USER_EXPLICIT and stored.status is Status.ACTIVE
    assert stored.about == old.about and stored.body == "The family loves Thai and Lao food."
    assert [a.by for a in stored.verified or []] == ["human:marco"]
    assert [(m.action, m.memory_id) for m in records[-1].memories] == [(Action.SUPERSEDE, thai), (Action.ADD, new.id)]
    lineage = lineage_view(local.store, FAMILY, thai)
    assert [s.memory.id for s in lineage.steps] == [thai, new.id] and lineage.current.id == new.id
    with pytest.raises(ConflictError, match="already replaced"):
        edit_memory(d.writer, FAMILY, thai, "marco", MemoryEdit(summary="again"))


def test_forget_retracts_and_records_a_rule_formation_respects(d: FormationDeps, local: Adapters, records) -> None:  # type: ignore[no-untyped-def]
    [thai] = learn(d, "We love Thai food.")
    memory, rule = forget_memory(d.writer, FAMILY, thai, "lucia", reason="not any more")
    assert memory.status is Status.RETRACTED and read(local, thai).status is Status.RETRACTED
    assert rule is not None and rule.scope is SuppressionScope.MEMORY and rule.memory_ids == [thai]
    assert "we love thai food" in rule.fingerprints
    assert parse_json(Suppression, local.store.read(FAMILY, suppression_path(rule.id)).data, "rule") == rule
    assert [(m.action, m.status) for m in records[-1].memories] == [(Action.RETRACT, Status.RETRACTED)]
    assert records[-1].suppressions == [rule.id]
    # Forgetting twice changes nothing; mentioning it again is suppressed.
    assert forget_memory(d.writer, FAMILY, thai, "lucia")[1] is None
    receive_session(d, session_json([("user", "marco", "We love Thai food!")], session_id="sess-2"))
    extract_session(d, FAMILY, "sess-2", enqueue=False)
    assert [o.kind for o in reconcile_session(d, FAMILY, "sess-2").outcomes] == [OutcomeKind.SUPPRESSED]


def test_forgetting_an_edited_memory_also_suppresses_its_older_wording(d: FormationDeps) -> None:
    [thai] = learn(d, "We love Thai food.")
    _, new = edit_memory(d.writer, FAMILY, thai, "lucia", MemoryEdit(summary="We like Thai food on Fridays."))
    _, rule = forget_memory(d.writer, FAMILY, new.id, "lucia")
    assert rule is not None and "the family loves thai food." in rule.fingerprints


def test_forget_a_group_counts_first_and_refuses_a_stale_count(d: FormationDeps, local: Adapters, records) -> None:  # type: ignore[no-untyped-def]
    learn(d, "My daughter Maya is allergic to peanuts. Maya loves swimming. We love Thai food.")
    selector = GroupSelector(entity="my daughter")
    preview = preview_group(d.writer, FAMILY, selector)
    assert preview.count == 3  # the relationship, the allergy, the swimming
    assert {r.status for r in local.catalog.all_rows(FAMILY)} == {Status.ACTIVE}  # counting changed nothing
    with pytest.raises(ConflictError, match="count again"):
        forget_group(d.writer, FAMILY, selector, "lucia", expected_count=2)
    result = forget_group(d.writer, FAMILY, selector, "lucia", expected_count=3)
    statuses = {r.summary: r.status for r in local.catalog.all_rows(FAMILY)}
    assert statuses == {
        "Maya is the family's daughter.": Status.RETRACTED,
        "Maya is allergic to peanuts.": Status.RETRACTED,
        "Maya loves swimming.": Status.RETRACTED,
        "The family loves Thai food.": Status.ACTIVE,
    }
    assert result.rule.scope is SuppressionScope.ENTITY and result.rule.entity_id == preview.entity_id
    assert {m.action for m in records[-1].memories} == {Action.RETRACT}
    # Anything about her from now on is suppressed, under any name.
    receive_session(d, session_json([("user", "marco", "Maya loves painting.")], session_id="sess-2"))
    extract_session(d, FAMILY, "sess-2", enqueue=False)
    assert {o.kind for o in reconcile_session(d, FAMILY, "sess-2").outcomes} == {OutcomeKind.SUPPRESSED}


def test_a_group_larger_than_one_change_set_is_split(local: Adapters) -> None:
    writer = FamilyWriter(local.store, local.catalog, local.clock)
    for n in range(45):
        add_memory(writer, FAMILY, "lucia", MemoryDraft(type=MemoryType.FACT, about=f"Fact {n}", summary=f"Fact {n}."))
    result = forget_group(writer, FAMILY, GroupSelector(memory_type=MemoryType.FACT), "lucia", expected_count=45)
    assert len(result.change_ids) == 2
    assert all(r.status is Status.RETRACTED for r in local.catalog.all_rows(FAMILY))


def test_group_selectors_need_exactly_one_kind_and_a_known_entity(d: FormationDeps) -> None:
    with pytest.raises(InvalidInputError, match="exactly one"):
        validate(GroupSelector, {"entity": "Maya", "topic": "swimming"}, "group")
    with pytest.raises(NotFoundError, match="no person, place or group called 'Zed'"):
        preview_group(d.writer, FAMILY, GroupSelector(entity="Zed"))
    learn(d, "We love Thai food. Maya loves swimming.")
    assert preview_group(d.writer, FAMILY, GroupSelector(topic="thai food")).count == 1
    assert preview_group(d.writer, FAMILY, GroupSelector(memory_type=MemoryType.PREFERENCE)).count == 2


def test_the_list_is_newest_first_with_pages(d: FormationDeps, local: Adapters) -> None:
    for n in range(3):
        local.clock.set(FRIDAY_MORNING.replace(hour=17 + n))
        add_memory(d.writer, FAMILY, "lucia", MemoryDraft(type=MemoryType.FACT, about=f"F{n}", summary=f"Fact {n}."))
    page = list_memories(local.catalog, FAMILY, limit=2)
    assert [r.summary for r in page.rows] == ["Fact 2.", "Fact 1."] and page.cursor
    assert [r.summary for r in list_memories(local.catalog, FAMILY, limit=2, cursor=page.cursor).rows] == ["Fact 0."]


def test_evidence_shows_the_quote_its_date_and_who_said_it(d: FormationDeps, local: Adapters) -> None:
    [thai] = learn(d, "We love Thai food.")
    [line] = evidence_view(local.store, FAMILY, thai).lines
    assert (line.quote, line.source, line.speaker, line.stance) == (
        "We love Thai food",
        "conversation",
        "lucia",
        "supports",
    )
    assert line.recorded_at == FRIDAY_MORNING
    with pytest.raises(NotFoundError):
        evidence_view(local.store, FAMILY, "01K6N1R0A0B0C0D0E0F0G0H010")


def test_forgetting_one_daughter_leaves_her_sister_alone(local: Adapters, d: FormationDeps) -> None:
    learn(d, "My daughter Maya is allergic to peanuts.")
    sofia = learn(d, "My daughter Sofia is allergic to eggs.", session_id="sess-2")
    preview = preview_group(d.writer, FAMILY, GroupSelector(entity="Maya"))
    assert {row.summary for row in preview.memories} == {
        "Maya is the family's daughter.",
        "Maya is allergic to peanuts.",
    }
    forget_group(d.writer, FAMILY, GroupSelector(entity="Maya"), "lucia", expected_count=preview.count)
    for memory_id in sofia:
        assert read(local, memory_id).status is Status.ACTIVE
    with pytest.raises(InvalidInputError, match="could mean"):
        preview_group(d.writer, FAMILY, GroupSelector(entity="my daughter"))


def test_a_family_that_does_not_exist_gets_no_folder_from_the_card(d: FormationDeps, local: Adapters) -> None:
    draft = MemoryDraft(type=MemoryType.FACT, about="Bedtime", summary="Bed at 8.")
    with pytest.raises(NotFoundError, match="family fam-zz does not exist"):
        add_memory(d.writer, "fam-zz", "nobody", draft)
    assert "fam-zz" not in set(local.store.families())
    with pytest.raises(NotFoundError, match="does not exist"):
        preview_group(d.writer, "fam-zz", GroupSelector(topic="bedtime"))


def test_a_family_without_members_does_not_accept_anyone(d: FormationDeps, local: Adapters) -> None:
    from family_memory.domain.family import FamilySettings
    from formation_helpers import save_family as save

    save(local.store, FamilySettings(family_id="fam-empty", time_zone="UTC"))
    with pytest.raises(InvalidInputError, match="not in family fam-empty"):
        add_memory(d.writer, "fam-empty", "anyone", MemoryDraft(type=MemoryType.FACT, about="x", summary="y"))


def test_a_name_with_a_control_character_is_an_input_error_naming_the_field(d: FormationDeps) -> None:
    fields: dict[str, Any] = {"type": "fact", "about": "Bedtime", "summary": "Bed at 8.", "applies_to": ["bad\x01name"]}
    with pytest.raises(InvalidInputError, match="applies_to contains a line break or control character"):
        validate(MemoryDraft, fields, "memory")
    # A draft that skipped its own checks still cannot crash the card with a pydantic traceback.
    unchecked = MemoryDraft.model_construct(**{**fields, "type": MemoryType.FACT})
    with pytest.raises(InvalidInputError, match="applies_to"):
        add_memory(d.writer, FAMILY, "lucia", unchecked)


def test_a_memory_cannot_be_born_expired(d: FormationDeps, local: Adapters) -> None:
    # The clock reads 2026-11-30 04:00 in Los Angeles: today there is the 30th.
    today = MemoryDraft(
        type=MemoryType.FACT, about="Plumber", summary="The plumber comes today.", valid_until="2026-11-30"
    )
    with pytest.raises(InvalidInputError, match="not after the family's date today \\(2026-11-30"):
        add_memory(d.writer, FAMILY, "lucia", today)
    memory = add_memory(d.writer, FAMILY, "lucia", today.model_copy(update={"valid_until": date(2026, 12, 1)}))
    with pytest.raises(InvalidInputError, match="valid_until 2026-11-29"):
        edit_memory(d.writer, FAMILY, memory.id, "lucia", MemoryEdit(valid_until=date(2026, 11, 29)))
    assert read(local, memory.id).status is Status.ACTIVE


# --- second review ------------------------------------------------------------------------


def test_forgetting_one_memory_lets_a_new_value_for_the_same_subject_be_learned(
    d: FormationDeps, local: Adapters
) -> None:
    [annie] = learn(d, "Call me Lulu.")
    assert read(local, annie).summary == "Address Lucía Rivera as Lulu."
    _, rule = forget_memory(d.writer, FAMILY, annie, "lucia")
    assert rule is not None and "how to address lucía" not in rule.fingerprints  # the subject is not the claim
    [new] = learn(d, "Call me Lucy.", session_id="sess-2")  # was: suppressed by the about "How to address ..."
    assert read(local, new).summary == "Address Lucía Rivera as Lucy." and read(local, new).status is Status.ACTIVE
    receive_session(d, session_json([("user", "lucia", "Please call me Lulu.")], session_id="sess-3"))
    extract_session(d, FAMILY, "sess-3", enqueue=False)
    assert [o.kind for o in reconcile_session(d, FAMILY, "sess-3").outcomes] == [OutcomeKind.SUPPRESSED]


def test_a_claim_about_a_child_on_file_added_in_the_card_is_tagged_minors(d: FormationDeps, local: Adapters) -> None:
    learn(d, "My son Leo is seven.")
    draft = MemoryDraft(type=MemoryType.PREFERENCE, about="Swimming", summary="Leo loves swimming.", applies_to=["Leo"])
    assert add_memory(d.writer, FAMILY, "lucia", draft).sensitivity is Sensitivity.MINORS
    explicit = draft.model_copy(update={"sensitivity": Sensitivity.NORMAL, "summary": "He swims on Tuesdays."})
    assert add_memory(d.writer, FAMILY, "lucia", explicit).sensitivity is Sensitivity.MINORS  # never lowered
    named = MemoryDraft(type=MemoryType.FACT, about="Soccer", summary="Leo plays soccer on Saturdays.")
    assert add_memory(d.writer, FAMILY, "lucia", named).sensitivity is Sensitivity.MINORS  # named, no applies_to


def test_editing_a_memory_about_a_child_on_file_tags_it_minors(d: FormationDeps, local: Adapters) -> None:
    [swim] = learn(d, "Leo loves swimming.")
    assert read(local, swim).sensitivity is Sensitivity.NORMAL  # nobody had said Leo is a child yet
    learn(d, "My son Leo is seven.", session_id="sess-2")
    _, new = edit_memory(d.writer, FAMILY, swim, "lucia", MemoryEdit(summary="Leo loves swimming lessons."))
    assert new.sensitivity is Sensitivity.MINORS


def test_editing_an_expired_memory_needs_a_new_date_or_clearing_it(d: FormationDeps, local: Adapters) -> None:
    memory = add_memory(
        d.writer,
        FAMILY,
        "lucia",
        MemoryDraft(
            type=MemoryType.FACT, about="Plumber", summary="The plumber comes Tuesday.", valid_until="2026-12-02"
        ),
    )
    local.clock.set(datetime(2026, 12, 3, 18, 0, tzinfo=UTC))  # the 2nd has passed in Los Angeles
    with pytest.raises(InvalidInputError, match="valid_until: memory .* was valid until 2026-12-02, which has passed"):
        edit_memory(d.writer, FAMILY, memory.id, "lucia", MemoryEdit(summary="The plumber comes Thursday."))
    assert read(local, memory.id).status is Status.ACTIVE  # nothing written
    _, dated = edit_memory(
        d.writer, FAMILY, memory.id, "lucia", MemoryEdit(summary="The plumber comes Friday.", valid_until="2026-12-05")
    )
    assert dated.valid_until == date(2026, 12, 5)
    _, lasting = edit_memory(
        d.writer, FAMILY, dated.id, "lucia", MemoryEdit(summary="The plumber comes on Fridays.", clear_valid_until=True)
    )
    assert lasting.valid_until is None and read(local, lasting.id).valid_until is None
    with pytest.raises(InvalidInputError, match="not both"):
        validate(MemoryEdit, {"valid_until": "2026-12-09", "clear_valid_until": True}, "edit")


def test_forgetting_a_large_group_of_long_memories_succeeds(local: Adapters, records) -> None:  # type: ignore[no-untyped-def]
    writer = FamilyWriter(local.store, local.catalog, local.clock)
    writer.listeners.append(records.append)
    for n in range(45):
        body = f"Fact {n}: " + " ".join(f"word{n}x{i}" for i in range(400))[:3500]
        add_memory(
            writer,
            FAMILY,
            "lucia",
            MemoryDraft(type=MemoryType.FACT, about=f"Fact {n}", summary=f"Fact {n}.", body=body),
        )
    # Was: a raw pydantic error, "change set ... is 320105 bytes as JSON; the limit is 300000".
    result = forget_group(writer, FAMILY, GroupSelector(memory_type=MemoryType.FACT), "lucia", expected_count=45)
    assert all(r.status is Status.RETRACTED for r in local.catalog.all_rows(FAMILY))
    assert len(result.rules) > 1  # the group's words did not fit one rule
    assert {r.scope for r in result.rules} == {SuppressionScope.TYPE}
    assert sum(len(r.memory_ids) for r in result.rules) == 45
    for rule in result.rules:
        assert parse_json(Suppression, local.store.read(FAMILY, suppression_path(rule.id)).data, "rule") == rule
    applied = records[-len(result.change_ids) :]
    assert sum(len(r.memories) for r in applied) == 45 and sum(len(r.suppressions) for r in applied) == len(
        result.rules
    )


def test_a_change_too_large_to_record_is_a_payload_error_not_a_traceback() -> None:
    big = memory(body="漢" * 3900, summary="A long one.")  # 11.7 KB of UTF-8 each
    writes = [
        MemoryWrite(action=Action.ADD, memory=big.evolve(id=f"01K6N1R0A0B0C0D0E0F0G0H{n:03d}"), evidence=[])
        for n in range(40)
    ]
    with pytest.raises(PayloadTooLargeError, match="too large to record in one change set"):
        _change_set(FAMILY, "human:lucia", "forgot a lot", FRIDAY_MORNING, memories=writes)


def test_a_confirmed_forget_of_an_empty_group_is_idempotent(d: FormationDeps, local: Adapters, records) -> None:  # type: ignore[no-untyped-def]
    learn(d, "We love Thai food.")
    selector = GroupSelector(topic="Sushi")
    assert preview_group(d.writer, FAMILY, selector).count == 0
    first = forget_group(d.writer, FAMILY, selector, "lucia", expected_count=0)
    assert first.already_forgotten is False and len(first.change_ids) == 1
    assert first.rule.scope is SuppressionScope.TOPIC and first.rule.topic == "Sushi"
    writes = len(records)
    # The retry (and the same topic in another case) writes no second rule and answers the same rule.
    for again in (selector, GroupSelector(topic="sushi")):
        retried = forget_group(d.writer, FAMILY, again, "lucia", expected_count=0)
        assert retried.already_forgotten is True and retried.change_ids == []
        assert [r.id for r in retried.rules] == [first.rule.id]
    assert len(records) == writes
    assert list(local.store.list(FAMILY, "suppressions")) == [suppression_path(first.rule.id)]
    # The rule stands: a later mention is not learned.
    receive_session(d, session_json([("user", "lucia", "We love sushi.")], session_id="sess-2"))
    extract_session(d, FAMILY, "sess-2", enqueue=False)
    assert {o.kind for o in reconcile_session(d, FAMILY, "sess-2").outcomes} <= {OutcomeKind.SUPPRESSED}


def test_an_empty_group_after_its_memories_were_forgotten_keeps_the_one_rule(d: FormationDeps, records) -> None:  # type: ignore[no-untyped-def]
    learn(d, "We love Thai food.")
    done = forget_group(d.writer, FAMILY, GroupSelector(topic="Thai"), "lucia", expected_count=1)
    writes = len(records)
    again = forget_group(d.writer, FAMILY, GroupSelector(topic="Thai"), "lucia", expected_count=0)
    assert again.already_forgotten is True and [r.id for r in again.rules] == [r.id for r in done.rules]
    assert len(records) == writes
    # Another group (a different type) still gets a rule of its own.
    other = forget_group(d.writer, FAMILY, GroupSelector(memory_type=MemoryType.CONSTRAINT), "lucia", expected_count=0)
    assert other.already_forgotten is False and len(records) == writes + 1


def test_a_group_preview_token_names_the_memories_so_a_changed_group_of_the_same_size_is_refused(
    d: FormationDeps, local: Adapters
) -> None:
    learn(d, "Maya loves swimming. Maya is allergic to peanuts.")
    selector = GroupSelector(entity="Maya")
    seen = preview_group(d.writer, FAMILY, selector)
    assert seen.count == 2 and seen.token == preview_group(d.writer, FAMILY, selector).token  # counting is stable
    swimming = next(r.id for r in seen.memories if "swimming" in r.summary)
    forget_memory(d.writer, FAMILY, swimming, "lucia", "she stopped")
    draft = MemoryDraft(
        type=MemoryType.PREFERENCE, about="Maya's sport", summary="Maya loves judo.", applies_to=["Maya"]
    )
    new = add_memory(d.writer, FAMILY, "lucia", draft)
    now = preview_group(d.writer, FAMILY, selector)
    assert now.count == 2 and now.token != seen.token  # same size, another memory in it
    with pytest.raises(ConflictError, match="out of date.*preview the group again"):
        forget_group(d.writer, FAMILY, selector, "lucia", expected_count=2, expected_token=seen.token)
    current = local.catalog.get_rows(FAMILY, [r.id for r in now.memories])
    assert all(r.status is Status.ACTIVE for r in current.values())  # refused: nothing changed
    result = forget_group(d.writer, FAMILY, selector, "lucia", expected_count=2, expected_token=now.token)
    assert new.id in [r.id for r in result.preview.memories]
