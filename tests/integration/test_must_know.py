"""Must-know rules reach every task that touches them (DESIGN invariant 10; issue 11 section 2):
a meal surfaces the food rules of the people involved, a booking the booking rules, a drive the
driving rules; in a shared thread a private rule is withheld and only its existence is said."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from factories import FAMILY, add, change_set
from family_memory.app.runtime import Runtime
from family_memory.domain.changes import EntityWrite
from family_memory.domain.clock import FixedClock
from family_memory.domain.entity import Entity, EntityKind
from family_memory.domain.family import FamilySettings, Member, Surface
from family_memory.domain.ids import new_ulid
from family_memory.domain.memory import MemoryType, Sensitivity, Strength
from family_memory.families import save_family
from family_memory.retrieval.lookup import WITHHELD_NOTE
from retrieval_helpers import fact, local_runtime, retrieval_of

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
NOOR, DAD, MOM, CIARAN = new_ulid(), new_ulid(), new_ulid(), new_ulid()


def person(entity_id: str, name: str, member_id: str | None = None) -> EntityWrite:
    return EntityWrite(
        entity=Entity(id=entity_id, type=EntityKind.PERSON, name=name, member_id=member_id, created_at=NOW),
        expected_revision=None,
    )


SESAME = fact(
    "Noor is allergic to sesame; no tahini or hummus.",
    "Noor's sesame allergy",
    applies_to=[NOOR],
    type=MemoryType.CONSTRAINT,
    strength=Strength.HARD,
    sensitivity=Sensitivity.HEALTH,
)
VEGETARIAN = fact(
    "Dad is vegetarian.",
    "Dad's diet",
    applies_to=[DAD],
    type=MemoryType.CONSTRAINT,
    strength=Strength.HARD,
    sensitivity=Sensitivity.HEALTH,
)
CHECK = fact(
    "Always check with Layla before booking anything that costs money.",
    "Booking paid things",
    applies_to=[MOM],
    type=MemoryType.DIRECTIVE,
    strength=Strength.HARD,
)
DRIVING = fact(
    "Ciarán may only drive with a parent in the car until he passes his test.",
    "Ciarán's driving",
    applies_to=[CIARAN],
    type=MemoryType.DIRECTIVE,
    strength=Strength.HARD,
    sensitivity=Sensitivity.MINORS,
)
PENICILLIN = fact(
    "Layla is allergic to penicillin.",
    "Layla's penicillin allergy",
    applies_to=[MOM],
    type=MemoryType.CONSTRAINT,
    strength=Strength.HARD,
    sensitivity=Sensitivity.HEALTH,
)
POTLUCK = fact("The school potluck is on Friday evening in the gym.", "School potluck")
CHESS = fact("Noor plays chess on Wednesdays.", "Noor's chess", applies_to=[NOOR])


@pytest.fixture
def runtime(tmp_path: Path) -> Runtime:
    rt = local_runtime(tmp_path, FixedClock(NOW), embedder="hashed")
    save_family(
        rt.store,
        FamilySettings(
            family_id=FAMILY,
            time_zone="America/Los_Angeles",
            members=[Member(id="layla", name="Layla Haddad"), Member(id="ciaran", name="Ciarán Haddad")],
        ),
    )
    change = change_set(*(add(m) for m in (SESAME, VEGETARIAN, CHECK, DRIVING, PENICILLIN, POTLUCK, CHESS)))
    rt.writer.apply(
        change.model_copy(
            update={
                "entities": [
                    person(NOOR, "Noor"),
                    person(DAD, "Dad"),
                    person(MOM, "Layla Haddad", "layla"),
                    person(CIARAN, "Ciarán Haddad", "ciaran"),
                ]
            }
        )
    )
    rt.drain()
    return rt


def rules(runtime: Runtime, message: str, surface: Surface = Surface.CHAT, member: str | None = None) -> list[str]:
    result = retrieval_of(runtime).lookup.lookup(FAMILY, message, surface, member_id=member)
    return [item.row.id for item in result.items if item.via == "rule"]


def test_a_meal_for_everyone_surfaces_every_food_rule_and_no_other(runtime: Runtime) -> None:
    found = rules(runtime, "what should we bring to the potluck?")
    assert set(found) == {SESAME.id, VEGETARIAN.id}
    result = retrieval_of(runtime).lookup.lookup(FAMILY, "what should we bring to the potluck?")
    assert POTLUCK.id in [i.row.id for i in result.items]  # the message's own candidates keep their place


def test_a_meal_for_one_person_surfaces_that_persons_food_rules_first(runtime: Runtime) -> None:
    found = rules(runtime, "what can I pack for Noor's lunch tomorrow")
    assert found[0] == SESAME.id and VEGETARIAN.id not in found


def test_a_booking_surfaces_the_booking_rule_whoever_asks(runtime: Runtime) -> None:
    assert CHECK.id in rules(runtime, "can you book us a table for saturday night", member="ciaran")
    assert CHECK.id not in rules(runtime, "what should we bring to the potluck?")


def test_a_drive_surfaces_the_driving_rule(runtime: Runtime) -> None:
    assert rules(runtime, "can Ciarán take the car to training tonight?") == [DRIVING.id]


def test_a_rule_the_task_does_not_touch_stays_out(runtime: Runtime) -> None:
    assert rules(runtime, "who is Noor playing chess against on wednesday?") == []


def test_a_shared_thread_learns_a_private_rule_exists_never_whose_or_what(runtime: Runtime) -> None:
    result = retrieval_of(runtime).lookup.lookup(FAMILY, "what should we bring to the potluck?", Surface.HOUSEHOLD)
    assert SESAME.id not in [i.row.id for i in result.items] and VEGETARIAN.id not in [i.row.id for i in result.items]
    assert WITHHELD_NOTE in result.block
    assert "sesame" not in result.block.lower() and "vegetarian" not in result.block.lower()


def test_rules_have_their_own_budget_beside_the_candidates(runtime: Runtime) -> None:
    result = retrieval_of(runtime).lookup.lookup(FAMILY, "what should we bring to the potluck?", max_items=1)
    assert [i.via for i in result.items].count("rule") == 2 and len(result.items) == 3


def test_a_name_is_never_an_article_or_a_title() -> None:
    from family_memory.retrieval.must_know import names_of, people_named

    names = names_of([("e1", ["The Okafor family"]), ("e2", ["Dr. Oh"]), ("e3", ["Noor Haddad"])])
    assert "the" not in names and "dr" not in names and "dr." not in names
    # "the shopping list" names nobody, so every food rule concerns everyone.
    assert people_named("make the shopping list for next week", names) == set()
    assert people_named("noor's lunch", names) == {"e3"}


def test_a_meal_with_a_named_guest_is_shared_every_food_rule_bears_on_it(runtime: Runtime) -> None:
    # Dad is coming: the meal is for the household too, so Noor's allergy counts as much as his diet.
    found = rules(runtime, "plan the dinner for when dad's here")
    assert set(found) == {SESAME.id, VEGETARIAN.id}
    assert found[0] == VEGETARIAN.id  # the person the message names first


def test_a_doctors_visit_surfaces_the_medical_rules_of_the_person_it_is_for(runtime: Runtime) -> None:
    found = rules(runtime, "I've a chest infection, can you book the GP and tell me what to mention", member="layla")
    assert PENICILLIN.id in found and SESAME.id not in found


def test_a_rule_line_says_it_is_a_standing_rule_and_carries_its_reference(runtime: Runtime) -> None:
    result = retrieval_of(runtime).lookup.lookup(FAMILY, "what should we bring to the potluck?")
    line = next(i.line for i in result.items if i.row.id == SESAME.id)
    assert "(standing rule)" in line and f"memory://{FAMILY}/{SESAME.id}" in line and "remembered" not in line


def test_a_meal_brings_what_someone_will_not_eat_after_the_rules(tmp_path: Path) -> None:
    rt = local_runtime(tmp_path, FixedClock(NOW), embedder="hashed")
    save_family(rt.store, FamilySettings(family_id=FAMILY, time_zone="UTC", members=[Member(id="layla", name="Layla")]))
    hates = fact("Noor hates mushrooms.", "Noor and mushrooms", applies_to=[NOOR], type=MemoryType.PREFERENCE)
    loves = fact("Noor loves chess.", "Noor and chess", applies_to=[NOOR], type=MemoryType.PREFERENCE)
    change = change_set(add(SESAME), add(hates), add(loves))
    rt.writer.apply(change.model_copy(update={"entities": [person(NOOR, "Noor")]}))
    rt.drain()
    found = [
        i.row.id for i in retrieval_of(rt).lookup.lookup(FAMILY, "plan a dinner for all of us").items if i.via == "rule"
    ]
    assert found == [SESAME.id, hates.id]


def test_search_memory_runs_the_same_rules_pass_after_its_best_matches(tmp_path: Path) -> None:
    from family_memory.retrieval.tools import ReadTools

    rt = local_runtime(tmp_path, FixedClock(NOW), embedder="hashed")
    save_family(rt.store, FamilySettings(family_id=FAMILY, time_zone="UTC", members=[Member(id="layla", name="Layla")]))
    swims = [
        fact(f"Noor's swim lessons {what}.", f"Noor's swim lessons {n}")
        for n, what in enumerate(
            ["are at the Rec on Mondays", "cost 12 dollars each", "need her goggles", "start at 4:30", "end in June"]
        )
    ]
    rt.writer.apply(
        change_set(add(CHECK), *(add(m) for m in swims)).model_copy(
            update={"entities": [person(MOM, "Layla", "layla")]}
        )
    )
    rt.drain()
    lookup = retrieval_of(rt).lookup
    lead = lookup.settings.semantic_lead
    query = "book noor more swim lessons"
    assert CHECK.id not in [row.id for row, _ in lookup.ranked(FAMILY, query)[0]][:lead]
    answer = ReadTools(rt.store, lookup, FAMILY).search_memory(query, 5)
    lines = [line for line in answer.splitlines() if line.startswith("- ")]
    # The booking rule follows the best few matches and comes before the rest.
    assert CHECK.id in lines[lead] and "(standing rule)" in lines[lead]


def test_a_screen_question_surfaces_the_screen_rule(tmp_path: Path) -> None:
    rt = local_runtime(tmp_path, FixedClock(NOW), embedder="hashed")
    save_family(rt.store, FamilySettings(family_id=FAMILY, time_zone="UTC", members=[Member(id="layla", name="Layla")]))
    phones = fact(
        "House rule: no phone for the children on school nights.",
        "Phones on school nights",
        type=MemoryType.DIRECTIVE,
        strength=Strength.HARD,
    )
    rt.writer.apply(change_set(add(phones), add(SESAME)).model_copy(update={"entities": [person(NOOR, "Noor")]}))
    rt.drain()
    found = retrieval_of(rt).lookup.lookup(FAMILY, "can noor play on the tablet on a wednesday night?").items
    assert [i.row.id for i in found if i.via == "rule"] == [phones.id]


def test_who_plans_a_meal_for_named_guests_eats_it_too(runtime: Runtime) -> None:
    dairy = fact(
        "Layla is lactose intolerant; no cream sauces for her.",
        "Layla's lactose intolerance",
        applies_to=[MOM],
        type=MemoryType.CONSTRAINT,
        strength=Strength.HARD,
        sensitivity=Sensitivity.HEALTH,
    )
    runtime.writer.apply(change_set(add(dairy)))
    runtime.drain()
    # Layla asks for a dinner for Dad: her rule ranks with his, before Noor's (not named).
    found = rules(runtime, "plan the dinner for when dad's here", member="layla")
    assert set(found[:2]) == {VEGETARIAN.id, dairy.id} and found[2] == SESAME.id
    # Someone else asking: Layla is not at the table by being the speaker.
    assert set(rules(runtime, "plan the dinner for when dad's here", member="ciaran")[:1]) == {VEGETARIAN.id}


def test_asking_whether_someone_may_have_something_is_a_food_question(runtime: Runtime) -> None:
    assert SESAME.id in rules(runtime, "can noor have halva?")
    assert SESAME.id in rules(runtime, "is noor allowed to eat that")
    assert rules(runtime, "can you have a look at noor's chess games") == []


def test_spreading_a_cost_is_a_booking_that_brings_the_spending_rule(runtime: Runtime) -> None:
    cash = fact(
        "No Klarna, credit cards or anything with interest: cash or nothing.",
        "Paying for things",
        type=MemoryType.DIRECTIVE,
        strength=Strength.HARD,
        sensitivity=Sensitivity.FINANCES,
    )
    runtime.writer.apply(change_set(add(cash)))
    runtime.drain()
    assert cash.id in rules(runtime, "find us a pram with a carrycot, can we spread the cost over a few months?")


def test_a_fact_that_lifts_a_food_rule_reaches_a_meal_as_the_rule_would(runtime: Runtime) -> None:
    lifted = fact(
        "Noor is no longer allergic to kiwi; the allergist retested her and she can have it now.",
        "Noor and kiwi",
        applies_to=[NOOR],
        type=MemoryType.FACT,
        sensitivity=Sensitivity.HEALTH,
    )
    plain = fact(
        "Noor's school trip to the farm is on Friday.", "Noor's school trip", applies_to=[NOOR], type=MemoryType.FACT
    )
    runtime.writer.apply(change_set(add(lifted), add(plain)))
    runtime.drain()
    found = rules(runtime, "what should we bring to the potluck?")
    assert lifted.id in found and plain.id not in found
    # No meal, no allowance.
    assert lifted.id not in rules(runtime, "can Ciarán take the car to training tonight?")


def test_two_rules_of_one_slot_are_one_rule_to_the_task(runtime: Runtime) -> None:
    again = fact(
        "Noor is allergic to sesame, and the teachers on the trip need to know.",
        "Noor's sesame allergy",
        applies_to=[NOOR],
        type=MemoryType.CONSTRAINT,
        strength=Strength.HARD,
        sensitivity=Sensitivity.HEALTH,
    )
    runtime.writer.apply(change_set(add(again)))
    runtime.drain()
    found = rules(runtime, "what should we bring to the potluck?")
    assert len({SESAME.id, again.id} & set(found)) == 1 and VEGETARIAN.id in found


def test_a_question_about_medicines_brings_what_the_person_takes_and_a_meal_the_allergy_kit(
    runtime: Runtime,
) -> None:
    metformin = fact(
        "Dad takes metformin after breakfast and after dinner.",
        "Dad's metformin",
        applies_to=[DAD],
        type=MemoryType.FACT,
        sensitivity=Sensitivity.HEALTH,
    )
    epipen = fact(
        "Noor has an EpiPen for her sesame allergy.", "Noor's EpiPen", applies_to=[NOOR], type=MemoryType.FACT
    )
    bus = fact("Dad takes the bus every morning.", "Dad's commute", applies_to=[DAD], type=MemoryType.FACT)
    runtime.writer.apply(change_set(add(metformin), add(epipen), add(bus)))
    runtime.drain()
    # "what does dad take tonight" shares no word with "metformin after breakfast and after dinner".
    medicines = rules(runtime, "what does dad take tonight, and when?")
    assert metformin.id in medicines and bus.id not in medicines
    # A picnic for everyone: Noor's rule and her EpiPen; not Dad's metformin (no medicine asked about).
    picnic = rules(runtime, "pack a picnic for all of us on saturday")
    assert SESAME.id in picnic and epipen.id in picnic and metformin.id not in picnic
    assert picnic.index(SESAME.id) < picnic.index(epipen.id)  # the rule first, then the kit
    # Neither is a rule of a task that is not about food or medicines.
    assert not {metformin.id, epipen.id} & set(rules(runtime, "book noor a chess lesson"))
    # Packing for a journey: what the traveller takes goes in the bag; a packed lunch is food only.
    assert metformin.id in rules(runtime, "what should I pack for dad for the train to leeds?")
    assert metformin.id not in rules(runtime, "what can I put in dad's packed lunch for work?")


def test_a_shopping_list_is_a_medicines_task_only_when_it_names_a_medicine(runtime: Runtime) -> None:
    # eval-okafor's query "make the shopping list for next week": it names no medicine, no refill.
    meds = fact(
        "Dad takes folic acid and Paludrine every morning with breakfast.",
        "Dad's daily medicines",
        applies_to=[DAD],
        type=MemoryType.FACT,
        sensitivity=Sensitivity.HEALTH,
    )
    school_run = fact(
        "Dad takes Noor and Sami to school every morning.", "Dad's school run", applies_to=[DAD], type=MemoryType.FACT
    )
    runtime.writer.apply(change_set(add(meds), add(school_run)))
    runtime.drain()
    # Two medicines are what he takes; two children taken to school are not.
    medicines = rules(runtime, "what does dad take in the morning?")
    assert meds.id in medicines and school_run.id not in medicines
    assert meds.id not in rules(runtime, "make the shopping list for next week")
    assert meds.id not in rules(runtime, "what should we have for breakfast every morning next week?")
    # Naming the medicine, or a refill, makes the list bear on what he takes.
    assert meds.id in rules(runtime, "make the shopping list for next week, and add dad's folic acid")
    assert meds.id in rules(runtime, "shopping list for the weekend, we need his refills too")


def test_asking_who_can_look_after_a_child_brings_who_looks_after_them(runtime: Runtime) -> None:
    sitter = fact(
        "Chloe next door is the only babysitter the family uses.",
        "The family's babysitter",
        applies_to=[NOOR],
        type=MemoryType.RELATIONSHIP,
    )
    runtime.writer.apply(change_set(add(sitter)))
    runtime.drain()
    # "who can watch noor" shares no word with "babysitter"; the task is childcare.
    assert sitter.id in rules(runtime, "we want a date night saturday, who can watch noor?")
    assert sitter.id not in rules(runtime, "who can watch the match with dad on saturday?")


def test_the_speakers_kin_reaches_that_persons_rules(runtime: Runtime) -> None:
    """ "take my mum to the clinic" by Ciarán: Layla, whom a relationship on file calls his
    mother, is named, so her allergy reaches the task (issue 11 section 2)."""
    message = "find somewhere nice to take my mum for lunch, she needs antibiotics from the pharmacy first"
    assert PENICILLIN.id not in rules(runtime, message, member="ciaran")  # who "my mum" is: not on file
    mother = fact("Layla is Ciarán's mum.", "Ciarán's mother", applies_to=[MOM, CIARAN], type=MemoryType.RELATIONSHIP)
    runtime.writer.apply(change_set(add(mother)))
    runtime.drain()
    assert PENICILLIN.id in rules(runtime, message, member="ciaran")
    # His "my dad" is not Layla.
    assert PENICILLIN.id not in rules(runtime, message.replace("my mum", "my dad"), member="ciaran")
