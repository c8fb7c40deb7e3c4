"""The sensitivity tagger is precise without losing recall (issue 11, section 4).

Each rule has a case it must leave ``normal`` (a word near the claim, not the claim,
matched) and a case it must still tag: an over-tagged memory is hidden from the brief,
an under-tagged one leaks. Run through validation (``validate_proposals``), the path
every extractor's proposals take, and through reconciliation's ``tag_minors``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from family_memory.domain.entity import Entity, EntityKind
from family_memory.domain.family import FamilySettings, Member, MemberRole
from family_memory.formation.candidate import Candidate
from family_memory.formation.children import tag_minors
from family_memory.formation.document import Limits
from family_memory.formation.validation import validate_proposals
from formation_helpers import TZ, candidate, transcript

LINES = [
    "Amira wants a new pram with a carrycot.",
    "The halal butcher on Stratford Road is cheaper than the supermarket.",
    "Moose the dog takes fluoxetine 20 mg every morning with his breakfast.",
    "Marco takes fluoxetine 20 mg every morning with his breakfast.",
    "Mochi's vet is Dr. Feld at Lakeside Animal Clinic.",
    "Grandma is in the hospital until Friday.",
    "Marco is on call for work, IT for the hospital, every Tuesday.",
    "No phones at the table during dinner, no exceptions.",
    "No phones at the table during dinner for Maya.",
    "The kids are with their dad every second weekend.",
    "Moose takes half a trazodone tablet before the vet.",
    "Amira wants a new pram with a carrycot for the baby.",
    "The halal butcher on Stratford Road is cheaper than the supermarket, it fits the grocery budget.",
    # The word classes (eval-okafor, eval-kowalski, eval-park, eval-nguyen).
    "He takes folic acid and paludrine every morning with breakfast. Blessing knows",
    "He takes the bus every morning with his sister",
    "Marco's cardiologist is Dr. Okafor at Niagara Heart Associates on Main Street, 4th floor.",
    "we pay ms. jung 400,000 won a month for the pickups",
    "ms. jung does the pickups mon to thu",
    "the valuer is coming tuesday the 3rd, in the morning. someone has to be home",
    "the plumber is coming tuesday the 3rd, in the morning",
    # A child merely named (eval-kowalski, eval-mueller).
    "so please don't ever plan anything where marco drives, including picking up maya",
    "marco is picking up maya after swim every tuesday",
    "finn is coming for abendbrot on saturday",
    "we have a camogie blitz saturday in ballincollig at 10",
    "the court dresses have to be picked up this saturday at bella's",
    # A carer on file (eval-kowalski).
    "and denise is on vacation may 26 to june 5, paula's covering that whole stretch too",
]
TRANSCRIPT = transcript([("user", "lucia", line) for line in LINES])


def household() -> FamilySettings:
    return FamilySettings(
        family_id="fam-rivera",
        time_zone=TZ,
        members=[
            Member(id="lucia", name="Lucía Rivera"),
            Member(id="marco", name="Marco Rivera"),
            Member(id="maya", name="Maya Rivera", role=MemberRole.CHILD),
            Member(id="leo", name="Leo Rivera", role=MemberRole.CHILD),
        ],
    )


NOW = datetime(2026, 11, 1, tzinfo=UTC)
MOOSE = Entity(id="01K0000000000000000000M005", type=EntityKind.PET, name="Moose", aliases=["the dog"], created_at=NOW)


def tag(entities: list[Entity] | None = None, /, **fields: Any) -> str:
    line = next(n for n, text in enumerate(LINES, start=1) if fields["quote"].casefold() in text.casefold())
    quote = fields.pop("quote")
    proposal = candidate(evidence=[{"turns": [line], "quote": quote}], **fields)
    [entry] = validate_proposals(TRANSCRIPT, household(), [proposal], Limits(), entities or [])
    assert entry.accepted and entry.candidate is not None, entry.reasons
    return entry.candidate.sensitivity.value


def test_when_to_use_says_when_a_memory_helps_not_what_it_claims() -> None:
    pram: dict[str, Any] = {"about": "Amira's new pram", "quote": "Amira wants a new pram with a carrycot"}
    assert tag(summary="Amira wants a new pram with a carrycot.", when_to_use="Shopping for baby gear", **pram) == (
        "normal"
    )
    # The same word in the claim itself still tags it.
    baby = {"about": "Amira's new pram", "quote": "a carrycot for the baby"}
    assert tag(summary="Amira wants a new pram with a carrycot for the baby.", **baby) == "minors"
    butcher = {"about": "Where to buy meat", "quote": "the halal butcher on Stratford Road is cheaper"}
    summary = "The halal butcher on Stratford Road is cheaper than the supermarket."
    assert tag(summary=summary, when_to_use="Meat shopping, meal plans on a budget", **butcher) == "normal"
    budget = {"about": "Where to buy meat", "quote": "it fits the grocery budget"}
    assert tag(summary="The halal butcher fits the grocery budget.", **budget) == "finances"


def test_a_pets_medication_or_vet_is_not_anyones_health() -> None:
    dog = "Moose the dog takes fluoxetine 20 mg every morning with his breakfast."
    assert tag(about="Moose's fluoxetine", summary=dog, applies_to=["Moose"], quote="fluoxetine 20 mg") == "normal"
    person = "Marco takes fluoxetine 20 mg every morning with his breakfast."
    assert tag(about="Marco's fluoxetine", summary=person, applies_to=["marco"], quote="fluoxetine 20 mg") == "health"
    # A pet on file needs no "the dog" in the claim.
    trazodone = "Moose takes half a trazodone tablet before the vet."
    fields = {"about": "Moose's trazodone", "summary": trazodone, "quote": "half a trazodone tablet"}
    assert tag([MOOSE], applies_to=["Moose"], **fields) == "normal"
    assert tag(applies_to=["Moose"], **fields) == "health"  # not known as a pet: kept sensitive
    # A member is never taken for a pet, whatever the sentence looks like.
    assert tag(about="x", summary="Marco, our dog walker, takes fluoxetine 20 mg.", quote="fluoxetine 20 mg",
               applies_to=["marco"]) == "health"  # fmt: skip
    clinic = "Mochi's vet is Dr. Feld at Lakeside Animal Clinic."
    assert tag(
        about="Mochi's vet", summary=clinic, applies_to=["Mochi", "Dr. Feld"], quote="Lakeside Animal Clinic"
    ) == ("normal")


def test_a_hospital_someone_works_at_is_a_workplace() -> None:
    work = "Marco is on call for work (IT for the hospital) every Tuesday."
    assert tag(about="Marco's on-call day", summary=work, applies_to=["marco"], quote="IT for the hospital") == "normal"
    stay = "Grandma is in the hospital until Friday."
    assert tag(about="Grandma's hospital stay", summary=stay, quote="Grandma is in the hospital") == "health"


EVERYONE = ["lucia", "marco", "maya", "leo"]


def test_a_household_wide_rule_is_about_the_household_not_its_children() -> None:
    rule = {"type": "directive", "about": "Phones at dinner", "quote": "No phones at the table during dinner"}
    summary = "No phones at the table during dinner, with no exceptions."
    assert tag(summary=summary, applies_to=EVERYONE, **rule) == "normal"
    # Not everyone: a rule for the children (or one of them) is about them.
    assert tag(summary=summary, applies_to=["maya", "leo"], **rule) == "minors"
    assert tag(summary=summary, applies_to=["lucia", "maya"], **rule) == "minors"
    # Household-wide, but its own words name a child or use a child word.
    assert tag(summary="No phones at the table during dinner for Maya.", applies_to=EVERYONE, **rule) == "minors"
    assert tag(summary="No phones at the table for the kids.", applies_to=EVERYONE, **rule) == "minors"


def test_child_words_and_names_in_the_evidence_still_count() -> None:
    weekends = {"about": "Weekends with their dad", "quote": "The kids are with their dad every second weekend"}
    assert tag(summary="Every second weekend is with their dad.", **weekends) == "minors"
    phones = {"about": "Phones at dinner", "quote": "No phones at the table during dinner for Maya"}
    assert tag(summary="No phones at the table during dinner.", **phones) == "minors"


def claim(**fields: Any) -> Candidate:
    return Candidate.model_validate(candidate(**fields))


def test_reconciliation_judges_the_same_way_once_people_are_resolved() -> None:
    ids = ["E-LUCIA", "E-MARCO", "E-MAYA", "E-LEO"]
    children = {"E-MAYA", "E-LEO"}
    rule = claim(about="Phones at dinner", summary="No phones at the table during dinner.", applies_to=EVERYONE)
    assert tag_minors(rule, ids, children).sensitivity.value == "normal"
    named = claim(about="Phones at dinner", summary="No phones at dinner for Maya.", applies_to=EVERYONE)
    assert tag_minors(named, ids, children).sensitivity.value == "minors"
    accented = claim(about="Phones at dinner", summary="No phones at dinner for Léo.", applies_to=EVERYONE)
    assert tag_minors(accented, ids, children).sensitivity.value == "minors"
    some = claim(about="Phones at dinner", summary="No phones at the table.", applies_to=["lucia", "maya"])
    assert tag_minors(some, ["E-LUCIA", "E-MAYA"], children).sensitivity.value == "minors"
    # Two names for one person: the subjects cannot be matched to names, so it is the child's.
    doubled = claim(about="Phones", summary="No phones at the table.", applies_to=["lucia", "marco", "maya", "Maya R"])
    assert tag_minors(doubled, ["E-LUCIA", "E-MARCO", "E-MAYA"], {"E-MAYA"}).sensitivity.value == "minors"


@pytest.mark.parametrize("found", ["health", "finances"])
def test_reconciliation_never_lowers_a_tag(found: str) -> None:
    tagged = claim(sensitivity=found, applies_to=EVERYONE)
    assert tag_minors(tagged, ["E-LUCIA", "E-MARCO", "E-MAYA", "E-LEO"], {"E-MAYA", "E-LEO"}).sensitivity.value == found


def test_a_medicine_by_its_name_or_how_it_is_taken_is_health() -> None:
    # eval-okafor: neither "folic acid" nor "paludrine" was a health word; a child's claim went to minors.
    meds = {"about": "Marco's morning medicine", "quote": "He takes folic acid and paludrine every morning"}
    summary = "Marco takes folic acid and paludrine every morning with breakfast."
    assert tag(summary=summary, applies_to=["marco"], **meds) == "health"
    paludrine = {"about": "Maya's morning tablets", "quote": "He takes folic acid and paludrine every morning"}
    assert tag(summary="Maya takes paludrine every morning with breakfast.", applies_to=["maya"], **paludrine) == (
        "health"
    )
    # Taking the bus (an article, the timing of a habit) is no dose.
    bus = {"about": "Marco's commute", "quote": "He takes the bus every morning with his sister"}
    assert tag(summary="Marco takes the bus every morning with his sister.", applies_to=["marco"], **bus) == "normal"
    # eval-kowalski: the card's added "cardiologist" line was no health word and went into the brief.
    heart = {"about": "Marco's cardiologist", "quote": "Marco's cardiologist is Dr. Okafor"}
    assert tag(summary="Marco's cardiologist is Dr. Okafor.", applies_to=["marco"], **heart) == "health"


def test_money_by_its_amount_is_finances() -> None:
    # eval-park: an amount in won paid a month (it went to minors for "the pickups").
    cost = {"about": "What Ms. Jung is paid", "quote": "we pay ms. jung 400,000 won a month for the pickups"}
    assert tag(summary="We pay Ms. Jung 400,000 won a month for the pickups.", **cost) == "finances"
    hours = {"about": "Ms. Jung's pickups", "quote": "ms. jung does the pickups mon to thu"}
    assert tag(summary="Ms. Jung does the pickups Monday to Thursday.", **hours) == "normal"
    # eval-nguyen: the valuer of a refinance; a plumber is no money.
    valuer = {"about": "The valuation", "quote": "the valuer is coming tuesday the 3rd, in the morning"}
    assert tag(summary="The valuer is coming on Tuesday the 3rd in the morning.", **valuer) == "finances"
    plumber = {"about": "The plumber", "quote": "the plumber is coming tuesday the 3rd, in the morning"}
    assert tag(summary="The plumber is coming on Tuesday the 3rd in the morning.", **plumber) == "normal"


def test_a_child_named_in_an_aside_of_a_claim_about_someone_else_is_not_minors() -> None:
    # eval-kowalski: Stan's driving rule names Maddie only in its "including ..." aside.
    rule = {"type": "directive", "about": "Marco's driving", "quote": "plan anything where marco drives"}
    summary = "Do not plan anything where Marco drives, including picking up Maya."
    assert tag(summary=summary, applies_to=["marco"], **rule) == "normal"
    # A child in the claim itself, or among its subjects, still makes it minors.
    pickup = {"about": "Maya's Tuesday pickup", "quote": "marco is picking up maya after swim every tuesday"}
    assert tag(summary="Marco picks up Maya after swim every Tuesday.", applies_to=["marco"], **pickup) == "minors"
    assert tag(summary=summary, applies_to=["marco", "maya"], **rule) == "minors"


def test_who_said_it_is_not_whom_it_is_about() -> None:
    # eval-mueller: Maisie (a child) told it; the claim is about her friend Finn's visit.
    finn = {"about": "Finn's visit", "quote": "finn is coming for abendbrot on saturday", "applies_to": ["Finn"]}
    body = "Maya said: finn is coming for abendbrot on saturday."
    assert tag(summary="Finn is coming for Abendbrot on Saturday.", body=body, **finn) == "normal"
    # Her own words ("we have a blitz") are about her.
    blitz = {"about": "The camogie blitz", "quote": "we have a camogie blitz saturday"}
    body = "Maya said: we have a camogie blitz saturday in ballincollig at 10."
    assert tag(summary="We have a camogie blitz on Saturday at 10.", body=body, **blitz) == "minors"


def test_a_child_s_claim_that_names_no_one_is_the_child_s_occasion() -> None:
    # eval-garcia: Valeria (a child) said the damas' dresses must be picked up; the claim has no
    # subject of its own, so the errand is hers, and it went into the brief as normal.
    errand = {"about": "The court dresses", "quote": "the court dresses have to be picked up this saturday"}
    summary = "The court dresses have to be picked up this Saturday at Bella's."
    said = "Maya said: the court dresses have to be picked up this saturday at bella's."
    assert tag(summary=summary, body=said, **errand) == "minors"
    # An adult's words naming no one are no child's; a claim with a subject of its own is its subject's.
    adult = "Lucía said: the court dresses have to be picked up this saturday at bella's."
    assert tag(summary=summary, body=adult, **errand) == "normal"
    assert tag(summary=summary, body=said, applies_to=["Bella's Bridal"], **errand) == "normal"


def test_a_claim_naming_a_carer_on_file_is_someones_care() -> None:
    # eval-kowalski: "the aide is Denise" was said in an earlier conversation; "denise is on
    # vacation" went into the brief as normal, though it says when Stan has no aide.
    said = {"about": "Denise's vacation", "quote": "denise is on vacation may 26 to june 5"}
    summary = "Denise is on vacation May 26 to June 5, Paula is covering."
    aide = Entity(
        id="01K0000000000000000000D001",
        type=EntityKind.PERSON,
        name="Denise",
        aliases=["the aide"],
        relationship="aide",
        created_at=NOW,
    )
    assert tag([aide], summary=summary, **said) == "health"
    # Nobody on file as a carer, or Denise on file as something else (a sitter looks after the
    # children: the minors rule's), and it is an ordinary absence.
    assert tag(summary=summary, **said) == "normal"
    sitter = aide.model_copy(update={"relationship": "sitter", "aliases": ["the sitter"]})
    assert tag([sitter], summary=summary, **said) == "normal"
    neighbour = aide.model_copy(update={"relationship": "neighbour"})
    assert tag([neighbour], summary=summary, **said) == "normal"


def test_a_family_holiday_without_the_grandparent_is_about_the_household() -> None:
    from family_memory.domain.memory import Sensitivity
    from family_memory.formation.sensitivity import detect

    family = household().model_copy(
        update={"members": [*household().members, Member(id="nona", name="Nona Rivera", address_as="Nona")]}
    )
    trip = "We're going to the lake the first week of August, a cabin by the water"

    def texts(summary: str) -> list[str]:
        return ["Lake holiday", summary, "", "Plans in August", trip]

    summary = "The family is going to the lake the first week of August, staying in a cabin."
    assert detect(texts(summary), family, EVERYONE) is None  # Nona lives apart: still the household's trip
    # Its own words name a child, or it is not the family's: about the children.
    assert detect(texts("The family is going to the lake so Maya can swim."), family, EVERYONE) is Sensitivity.MINORS
    assert detect(texts("Maya and Leo are going to the lake in August."), family, ["maya", "leo"]) is (
        Sensitivity.MINORS
    )
    # Not every child: a trip of one parent and one child is about that child.
    assert detect(texts(summary), family, ["lucia", "maya"]) is Sensitivity.MINORS
