"""The offline extractor tags a claim by what it rests on (issue 11, section 4; issue 10, section 1).

A claim's own words are not always where its sensitivity is: "So he has to drink a lot of
water" rests on "Obinna has sickle cell"; "luis takes her mon and wed" on the turn that said
abuela has dialysis. Each rule has the harness case it now tags (eval-okafor, eval-garcia,
eval-kowalski, eval-fitzgerald), rewritten for the Riveras of ``formation_helpers`` (Lucía
and Marco, adults; Maya, a child), and a case that must stay as it was.
"""

from __future__ import annotations

from typing import Any

from family_memory.formation.offline import OfflineExtractor
from formation_helpers import family, transcript


def tags(*turns: tuple[str, str | None, str]) -> dict[str, str]:
    """Each candidate's summary and the sensitivity the extractor gave it."""
    found: list[dict[str, Any]] = OfflineExtractor().extract(transcript(list(turns)), family()).candidates
    return {c["summary"]: c["sensitivity"] for c in found}


def tag_of(words: str, *turns: tuple[str, str | None, str]) -> str:
    found = tags(*turns)
    [summary] = [s for s in found if words.casefold() in s.casefold()] or [f"nothing about {words!r} in {found}"]
    return found[summary]


def lucia(text: str) -> tuple[str, str, str]:
    return ("user", "lucia", text)


def assistant(text: str) -> tuple[str, None, str]:
    return ("assistant", None, text)


def test_a_so_after_a_fragment_rests_on_the_sentence_before_it() -> None:
    # eval-okafor: "SS." alone was taken for the reason, and both claims went to minors.
    said = lucia(
        "Maya has sickle cell. SS. So she has to drink a lot of water, at least 2 litres a day, "
        "and her water bottle must always go to school with her"
    )
    assert tag_of("drink a lot of water", said) == "health"
    assert tag_of("water bottle", said) == "health"
    hobby = lucia("Maya loves the pool. So she has to go to swim club every saturday")
    assert tag_of("swim club", hobby) != "health"


def test_the_sentence_after_a_claim_that_gives_its_reason_counts() -> None:
    # eval-okafor: "The cold triggers his crises." is why the AC rule is there.
    rule = lucia("Maya's room, the AC must stay at 26 or off at night. The cold triggers her crises.")
    assert tag_of("AC", rule) == "health"
    taste = lucia("Maya's room, the AC must stay at 26 or off at night. Marco likes it freezing.")
    assert tag_of("AC", taste) != "health"


def test_an_object_pronoun_leans_on_the_turn_that_named_its_person() -> None:
    # eval-garcia: "luis takes her mon and wed" is a dialysis ride.
    dialysis = lucia("abuela has dialysis monday wednesday friday at 6am. somebody has to drive her every time")
    rides = lucia("marco takes her mon and wed on his way to work")
    assert tag_of("mon and wed", dialysis, assistant("Who usually takes her?"), rides) == "health"
    garden = lucia("abuela loves her garden centre, she goes every week")
    assert tag_of("mon and wed", garden, assistant("Who usually takes her?"), rides) == "normal"


def test_a_hospital_someone_works_at_is_a_workplace_offline_too() -> None:
    # eval-fitzgerald: the offline words tagged a job at a hospital health before validation could see it.
    assert tag_of("on call", lucia("Marco is on call for work every Tuesday now, IT for the hospital")) == "normal"
    assert tag_of("hospital", lucia("Marco is in the hospital every Tuesday now for his dialysis")) == "health"


def test_a_so_that_only_agrees_rests_on_the_turn_it_answers() -> None:
    # eval-okafor: "Ah you're right. So Bright Stars first half by the 12th" is a fee deadline.
    fees = assistant("The first instalment is due before resumption on 13 April, earlier than the 20th.")
    agreed = lucia("Ah you're right. So Bright Stars first half by the 12th then, latest")
    assert tag_of("Bright Stars", fees, agreed) == "finances"
    concert = assistant("The concert is on 13 April, earlier than the 20th.")
    assert tag_of("Bright Stars", concert, agreed) == "normal"


def test_the_ones_that_are_ready_are_what_the_answered_turn_named() -> None:
    # eval-kowalski: "the two that are ready" are Stan's metoprolol and Eliquis.
    ready = assistant("The metoprolol and Eliquis are ready for pickup at Elmwood Pharmacy.")
    grab = lucia("ok I'll grab the two that are ready monday after work")
    assert tag_of("grab", ready, grab) == "health"
    jackets = assistant("The blue and the red jackets are ready at the dry cleaner.")
    assert tag_of("grab", jackets, grab) == "normal"


def test_a_routine_said_after_the_house_rules_is_as_sensitive_as_they_are() -> None:
    # eval-okafor: the basket rule is one of the children's screen rules.
    screens = lucia(
        "House rule: no phones or tablets on school nights except for homework. "
        "Phones go in the basket in the kitchen at 8pm every night"
    )
    assert tag_of("basket", screens) == "minors"
    shoes = lucia("House rule: no shoes in the living room. Phones go in the basket in the kitchen at 8pm every night")
    assert tag_of("basket", shoes) == "normal"


def test_a_turn_that_goes_on_naming_no_one_is_about_the_child_before_it() -> None:
    # eval-garcia: the final rehearsals are Valeria's quinceañera's.
    fitting = lucia("maya's fitting went great btw, the dress needs hemming")
    rehearsals = lucia("and the final rehearsals at the salón are june 16 to 19, every night at 7")
    assert tag_of("rehearsals", fitting, assistant("Wonderful!"), rehearsals) == "minors"
    # Not when the speaker says it is hers, nor after a turn about an adult.
    mine = lucia("and the dojang has an open class for parents next friday at 7, i'm going to try it lol")
    assert tag_of("open class", fitting, assistant("Wonderful!"), mine) == "normal"
    marco = lucia("marco's fitting went great btw, the suit needs hemming")
    assert tag_of("rehearsals", marco, assistant("Wonderful!"), rehearsals) == "normal"


def test_a_carer_named_by_her_role_is_a_relationship_about_someones_care() -> None:
    # eval-kowalski s06:25: "the aide is Denise from Amherst Home Care" formed nothing, so
    # nothing on file said that Denise's comings and goings are Stan's care.
    said = lucia("the aide is Denise from Amherst Home Care, she comes weekdays 10 to 2 while we're at work")
    found = OfflineExtractor().extract(transcript([said]), family()).candidates
    [carer] = [c for c in found if c["type"] == "relationship"]
    assert carer["summary"] == "Denise from Amherst Home Care is the family's aide."
    assert carer["sensitivity"] == "health"
    assert [(e["name"], e["relationship"]) for e in carer["entities"]] == [("Denise", "aide")]
    # A role that is nobody's care ("the plumber is Dave") is not read.
    plumber = OfflineExtractor().extract(transcript([lucia("the plumber is Dave from Ace, he comes monday")]), family())
    assert [c for c in plumber.candidates if c["type"] == "relationship"] == []
