"""The offline rule-based extractor: explicit statements from user turns, verbatim quotes."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from family_memory.formation.document import ExtractorKind
from family_memory.formation.offline import OFFLINE_LABEL, OfflineExtractor
from formation_helpers import family, transcript


def extract(*turns: tuple[str, str | None, str], **kw: Any) -> list[dict[str, Any]]:
    return OfflineExtractor().extract(transcript(list(turns), **kw), family()).candidates


def by_summary(candidates: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {c["summary"]: c for c in candidates}


def test_it_is_labelled_as_the_offline_rule_based_extractor() -> None:
    info = OfflineExtractor().info
    assert info.kind is ExtractorKind.OFFLINE
    assert "offline rule-based extractor" in info.label == OFFLINE_LABEL


def test_standing_instructions_are_hard_explicit_directives() -> None:
    found = by_summary(
        extract(
            (
                "user",
                "lucia",
                "Never book flights before 7am. Always add extra napkins to grocery orders. "
                "Please check with me before anything goes to the team chat. Call me Lu.",
            )
        )
    )
    assert set(found) >= {
        "Never book flights before 7am.",
        "Always add extra napkins to grocery orders.",
        "Check with Lucía before anything goes to the team chat.",
        "Address Lucía Rivera as Lu.",
    }
    for candidate in found.values():
        assert candidate["type"] == "directive"
        assert candidate["strength"] == "hard" and candidate["authority"] == "user_explicit"
    assert found["Address Lucía Rivera as Lu."]["about_member"] == "lucia"


def test_quotes_are_verbatim_and_cite_the_turn() -> None:
    text = "Oh, and my daughter Maya is allergic to peanuts!"
    [relationship, allergy] = extract(("assistant", None, "Hello"), ("user", "lucia", text))
    for candidate in (relationship, allergy):
        [evidence] = candidate["evidence"]
        assert evidence["turns"] == [2]
        assert evidence["quote"] in text
    assert allergy["summary"] == "Maya is allergic to peanuts."
    assert allergy["type"] == "constraint" and allergy["sensitivity"] == "health"


def test_constraints_cover_allergies_diets_food_and_medication() -> None:
    found = by_summary(
        extract(
            (
                "user",
                "marco",
                "I'm vegetarian. Maya can't eat shellfish. Our dog Pepper needs her pills at 8.",
            )
        )
    )
    assert found["Marco is vegetarian."]["about_member"] == "marco"
    assert found["Maya cannot eat shellfish."]["type"] == "constraint"
    assert found["Pepper needs her pills at 8."]["sensitivity"] == "health"


def test_relationships_carry_entity_hints_with_aliases() -> None:
    found = by_summary(extract(("user", "lucia", "Our dog Pepper is lovely and my daughter Maya is seven.")))
    dog = found["Pepper is the family's dog."]
    assert dog["type"] == "relationship"
    assert dog["entities"] == [
        {"name": "Pepper", "kind": "pet", "aliases": ["our dog"], "relationship": "dog", "member_id": None}
    ]
    maya = found["Maya is the family's daughter."]
    assert maya["entities"][0]["member_id"] == "maya" and maya["sensitivity"] == "minors"


def test_preferences_are_soft_and_said_in_passing() -> None:
    found = by_summary(extract(("user", "lucia", "We love Thai food, by the way. I don't like cilantro.")))
    thai = found["The family loves Thai food."]
    assert thai["type"] == "preference" and thai["strength"] == "soft" and thai["authority"] == "user_implicit"
    assert found["Lucía does not like cilantro."]["about_member"] == "lucia"


def test_dated_facts_get_an_absolute_valid_until_in_the_familys_time_zone() -> None:
    found = by_summary(extract(("user", "lucia", "Pizza night is tonight, and Monday is a holiday so no school run.")))
    pizza = found["Pizza night is tonight (Friday 2026-11-27)."]
    assert pizza["valid_until"] == "2026-11-28" and pizza["durability"] == "passing"
    assert found["Monday (2026-11-30) is a holiday."]["valid_until"] == "2026-12-01"


def test_tonight_late_in_the_evening_is_still_the_local_day() -> None:
    # 23:30 on Friday in Los Angeles is 07:30 on Saturday in UTC.
    late = datetime(2026, 11, 28, 7, 30, tzinfo=UTC)
    [pizza] = extract(("user", "lucia", "Pizza night is tonight"), started_at=late)
    assert pizza["valid_until"] == "2026-11-28"


def test_assistant_and_tool_turns_and_questions_are_not_read() -> None:
    assert (
        extract(
            ("assistant", None, "Always add a 20% tip."),
            ("tool", None, "Never refund orders. We love spam."),
            ("user", "lucia", "Can you book a table for tomorrow? What do we love?"),
        )
        == []
    )


def test_the_same_claim_twice_in_a_session_is_proposed_once() -> None:
    candidates = extract(("user", "lucia", "We love Thai food."), ("user", "marco", "We love Thai food."))
    assert [c["summary"] for c in candidates] == ["The family loves Thai food."]


def test_past_days_do_not_become_dated_facts() -> None:
    # Wednesday 2026-11-25 in Los Angeles: none of these is a plan, and none may be dated in the future.
    wednesday = datetime(2026, 11, 25, 17, 0, tzinfo=UTC)
    said = "Last Friday was pizza night. Maya was sick on Monday. I may 3 times a week go swimming."
    assert extract(("user", "lucia", said), started_at=wednesday) == []


def test_a_standing_instruction_in_the_first_person_names_and_applies_to_its_speaker() -> None:
    found = by_summary(
        extract(
            ("user", "lucia", "Always check with me before booking flights."),
            ("user", "marco", "Never share my calendar with anyone."),
        )
    )
    lucia = found["Always check with Lucía before booking flights."]  # was "Always check with me ...", no one's
    assert lucia["applies_to"] == ["lucia"] and lucia["about_member"] == "lucia"
    marco = found["Never share Marco's calendar with anyone."]
    assert marco["applies_to"] == ["marco"] and marco["about_member"] == "marco"
    household = by_summary(extract(("user", "lucia", "Always add extra napkins to grocery orders.")))
    assert household["Always add extra napkins to grocery orders."]["applies_to"] == []
