"""The offline extractor on real family talk (issue 10, section 1): one test per class of
failure, each with the case that used to go wrong and the case that must still work.

The family is the Riveras of ``formation_helpers``: Lucía (an adult, "Lu"), Marco (an
adult), Maya (a child). The session clock is Friday 2026-11-27, 09:00 in Los Angeles."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from family_memory.formation.dates import WEEKDAYS
from family_memory.formation.offline import OfflineExtractor
from family_memory.formation.offline.text import correct
from formation_helpers import family, transcript

FRIDAY = date(2026, 11, 27)


def extract(*turns: tuple[str, str | None, str], **kw: Any) -> list[dict[str, Any]]:
    return OfflineExtractor().extract(transcript(list(turns), **kw), family()).candidates


def summaries(*turns: tuple[str, str | None, str], **kw: Any) -> list[str]:
    return [c["summary"] for c in extract(*turns, **kw)]


def one(*turns: tuple[str, str | None, str], **kw: Any) -> dict[str, Any]:
    found = extract(*turns, **kw)
    assert len(found) == 1, [c["summary"] for c in found]
    return found[0]


def lucia(text: str) -> tuple[str, str, str]:
    return ("user", "lucia", text)


# --- no junk rules ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "said",
    [
        "Never thought of that!",
        "Always a pleasure talking to you",
        "Never a quiet evening in this flat",
        "Always the same with this car",
        "Never seen so much rain in my life",
        "don't worry about it",
        "Don't even ask how the drive went lol",
        "don't get me started on the parking",
        "Don't remind me 🙄",
        "never again, honestly",
        "Always hungry, that one haha",
        "Do not wait.",
    ],
)
def test_small_talk_that_starts_like_a_rule_is_no_rule(said: str) -> None:
    assert extract(lucia(said)) == []


def test_an_instruction_to_the_assistant_and_a_household_rule_are_hard_rules() -> None:
    found = {
        c["summary"]: c
        for c in extract(lucia("Always ask me before you pay for anything online. never give the kids energy drinks"))
    }
    assert set(found) == {"Always ask Lucía before you pay for anything online.", "Never give the kids energy drinks."}
    assert all(c["type"] == "directive" and c["strength"] == "hard" for c in found.values())


def test_a_request_about_one_day_is_not_a_standing_rule() -> None:
    assert extract(lucia("don't book anything on Saturday, we're at the beach")) == []
    # ... but a rule about every such day is.
    [rule] = extract(lucia("never book anything for us on a Sunday"))
    assert rule["summary"] == "Never book anything for us on a Sunday." and rule["strength"] == "hard"


def test_a_rule_leaning_on_it_or_those_is_not_formed() -> None:
    assert extract(lucia("Maya has swim on Tuesday mornings."), lucia("don't book anything those mornings")) == [
        c for c in extract(lucia("Maya has swim on Tuesday mornings.")) if c
    ]
    assert extract(lucia("we're planning a party. Don't mention it to Marco yet")) == []


def test_a_rule_with_a_pronoun_names_the_one_person_it_means() -> None:
    [rule] = extract(
        lucia("my nephew Theo is staying with us this week"),
        ("assistant", None, "He sounds lovely!"),
        lucia("never leave him alone with the dog"),
    )[-1:]
    assert rule["summary"] == "Never leave Theo alone with the dog."
    # Two people it could be: nothing formed rather than a guess.
    assert [
        c
        for c in extract(
            lucia("my nephew Theo and my brother Sam came over"), lucia("never leave him alone with the dog")
        )
        if c["type"] == "directive"
    ] == []


def test_a_childs_report_of_what_a_parent_allowed_is_no_rule() -> None:
    assert extract(("user", "maya", "dad said I can skip piano this week")) == []
    assert extract(("user", "maya", "mum says we're allowed ice cream every friday")) == []


def test_a_household_rule_is_the_parents_to_state() -> None:
    [rule] = extract(lucia("house rule: no phones at the dinner table"))
    assert rule["strength"] == "hard" and "phones at the dinner table" in rule["summary"]
    assert extract(("user", "maya", "no phones at the dinner table, so unfair")) == []


def test_hypotheticals_and_questions_are_not_claims() -> None:
    assert extract(lucia("we might get a dog in the spring")) == []
    assert extract(lucia("maybe Maya is allergic to cats?")) == []
    assert extract(lucia("thinking about piano lessons for Maya on Saturdays")) == []
    assert extract(lucia("is Maya allergic to kiwi")) == []


# --- no fake people -------------------------------------------------------------------


@pytest.mark.parametrize(
    "said",
    [
        "Sounds great, thanks",
        "Looks like rain tomorrow",
        "Moments like these are why we love Sundays",
        "Thinks he's funny, that one",
    ],
)
def test_sentence_initial_capitals_and_verbs_are_not_people(said: str) -> None:
    for candidate in extract(lucia(said)):
        assert not candidate["entities"], candidate
        assert not any(name in said.split()[0] for name in candidate["applies_to"])


def test_a_pronoun_resolves_to_the_person_the_turns_are_about() -> None:
    found = extract(lucia("Maya has a new teacher"), ("assistant", None, "Nice!"), lucia("she's allergic to kiwi too"))
    allergy = next(c for c in found if c["type"] == "constraint")
    assert allergy["summary"] == "Maya is allergic to kiwi." and allergy["applies_to"] == ["maya"]


def test_a_pronoun_that_could_be_two_people_or_a_place_forms_nothing() -> None:
    assert [
        c
        for c in extract(lucia("Maya and Marco went to the shops"), lucia("she's allergic to kiwi"))
        if c["type"] == "constraint"
    ] == []
    # "Alder" is a street the turn names, not a person "she" could be.
    assert [
        c
        for c in extract(lucia("we live at the corner of Elm and Alder"), lucia("she's allergic to kiwi"))
        if c["type"] == "constraint"
    ] == []


def test_her_as_an_object_is_never_the_clauses_own_subject() -> None:
    found = extract(
        lucia("my mom Rosa stays with us"),
        lucia("Marco takes her to the clinic every monday"),
    )
    [schedule] = [c for c in found if c["type"] == "fact"]
    assert schedule["summary"] == "Marco takes Rosa to the clinic every monday."


def test_a_relative_called_by_a_kin_name_is_a_person() -> None:
    [allergy] = extract(lucia("Abuela is allergic to penicillin"))
    assert allergy["summary"] == "Abuela is allergic to penicillin."
    assert allergy["entities"][0]["name"] == "Abuela"


# --- allergies, intolerances, diets, medical restrictions ----------------------------------


@pytest.mark.parametrize(
    ("said", "summary"),
    [
        ("Maya is allergic to peanuts", "Maya is allergic to peanuts."),
        ("maya's allergic to sesame btw", "Maya is allergic to sesame."),
        ("maya is alergic to peanuts", "Maya is allergic to peanuts."),
        ("Maya is severely allergic to tree nuts, like properly", "Maya is allergic to tree nuts."),
        ("Maya has a peanut allergy", "Maya has a peanut allergy."),
        ("Maya can't have dairy", "Maya cannot have dairy."),
        ("maya cant eat gluten at all", "Maya cannot eat gluten."),
        ("Maya is coeliac", "Maya is coeliac."),
        ("Marco is vegetarian", "Marco is vegetarian."),
        ("I'm veg btw", "Lucía is vegetarian."),
        ("marco is lactose intolerant, milk makes him ill", "Marco is lactose intolerant."),
        ("Maya has coeliac disease", "Maya has coeliac disease."),
        ("no nuts for Maya", "No nuts for Maya."),
        ("Maya has an EpiPen for bee stings", "Maya has an EpiPen for bee stings."),
        ("Marco doesn't eat pork", "Marco does not eat pork."),
        ("Marco is on a low-salt diet", "Marco is on a low-salt diet."),
        ("random but i'm allergic to cats", "Lucía is allergic to cats."),
    ],
)
def test_health_constraints_in_every_ordinary_phrasing_are_hard(said: str, summary: str) -> None:
    found = {c["summary"]: c for c in extract(lucia(said))}
    assert summary in found, list(found)
    constraint = found[summary]
    assert constraint["type"] == "constraint" and constraint["strength"] == "hard"
    assert constraint["sensitivity"] == "health"


def test_a_dislike_of_a_food_is_soft_and_allergic_to_nothing_is_nothing() -> None:
    [beans] = extract(lucia("Marco doesn't eat beans"))
    assert beans["type"] == "preference" and beans["strength"] == "soft"
    assert extract(lucia("I'm allergic to nothing, just hay fever")) == []
    [pen] = extract(lucia("Maya has an EpiPen"))
    assert pen["strength"] == "soft" and pen["sensitivity"] == "health"


# --- recurring and ranged time ----------------------------------------------------------


@pytest.mark.parametrize(
    "said",
    [
        "Maya has karate every Saturday at 10",
        "Maya has swim on Tuesdays and Thursdays",
        "Marco picks Maya up weekday afternoons",
        "Maya has ballet Wednesday mornings",
        "Friday is our pizza night",
    ],
)
def test_a_schedule_is_a_durable_fact_with_no_end(said: str) -> None:
    [fact] = extract(lucia(said))
    assert fact["valid_until"] is None and fact["durability"] == "durable"
    assert "2026-" not in fact["summary"]  # no day pins it


def test_a_schedule_that_starts_later_says_when_without_pinning_it() -> None:
    [fact] = extract(lucia("Maya's swim moves to Thursdays from next week"))
    assert fact["valid_until"] is None
    assert fact["summary"] == "Maya's swim moves to Thursdays from next week (November 30 to December 6)."


def test_a_range_is_valid_until_the_day_after_it_ends() -> None:
    [visit] = extract(lucia("my sister Ana is staying with us December 3 to 17"))[-1:]
    assert visit["valid_until"] == "2026-12-18"
    [stay] = extract(lucia("Maya is at camp from the 1st to the 5th of December"))
    assert stay["valid_until"] == "2026-12-06"


def test_a_weekday_with_its_date_takes_the_date() -> None:
    [fact] = extract(lucia("Maya's recital is tuesday the 8th"))
    assert fact["valid_until"] == "2026-12-09"  # Tuesday 2026-12-08, not the coming Tuesday (Dec 1)
    [trip] = extract(lucia("Maya has a school trip on thursday 4th february"))
    assert trip["valid_until"] == "2027-02-05"


@pytest.mark.parametrize(
    ("said", "valid_until"),
    [
        ("Friday, sorry, Saturday is the bake sale", "2026-11-29"),
        ("the bake sale is Friday - sorry - Saturday", "2026-11-29"),
        ("Maya's dentist is the 9th, no wait, the 10th, at 3", "2026-12-11"),
        ("Maya's dentist is on the 9th. Sorry, the 10th", "2026-12-11"),
    ],
)
def test_a_self_correction_keeps_only_the_corrected_value(said: str, valid_until: str) -> None:
    [fact] = extract(lucia(said))
    assert fact["valid_until"] == valid_until
    assert "sorry" not in fact["summary"].lower() and "wait" not in fact["summary"].lower()


def test_a_correction_of_a_time_and_a_whole_thought_taken_back() -> None:
    assert correct("the match is Saturday at 11, no, half 11", FRIDAY) == "the match is Saturday at half 11"
    assert (
        correct("the echo is at 10:40, no sorry, 11:40, at the clinic", FRIDAY) == "the echo is at 11:40, at the clinic"
    )
    # What was taken back is not a value: the clause is left alone.
    assert extract(lucia("she lands the 10th, no wait, she moved her flight")) == []


def test_history_and_things_that_already_happened_today_are_not_plans() -> None:
    assert extract(lucia("booked it today")) == []
    assert extract(lucia("Marco called the school today")) == []
    assert extract(lucia("we're doing a party at home that Saturday")) == []  # which Saturday: said before


# --- summaries are whole claims ---------------------------------------------------------


def test_a_claim_is_never_cut_at_an_abbreviation() -> None:
    [fact] = extract(lucia("Maya's checkup with Dr. Patel is on the 3rd. Marco is taking her."))
    assert fact["summary"].startswith("Maya's checkup with Dr. Patel is on the 3rd")
    [street] = extract(lucia("Maya has piano at St. Anne's every Tuesday"))
    assert "St. Anne's" in street["summary"]


def test_no_summary_starts_with_a_dangling_pronoun() -> None:
    for said in ("She does not like it.", "He's coming on Friday", "It's due Monday", "They love the beach"):
        for candidate in extract(("assistant", None, "Hello"), lucia(said)):
            first = candidate["summary"].split()[0].lower()
            assert first not in {"she", "he", "it", "it's", "they", "his", "her", "its"}, candidate["summary"]
    assert extract(lucia("Maya does not like it")) == []


# --- dates in the family's zone, across week and month boundaries --------------------------

zones = st.sampled_from(["America/Los_Angeles", "Pacific/Auckland", "Asia/Kolkata", "Europe/Dublin", "UTC"])
instants = st.datetimes(min_value=datetime(2025, 1, 1), max_value=datetime(2027, 12, 31))


def _local_day(at: datetime, zone: str) -> date:
    from zoneinfo import ZoneInfo

    return at.astimezone(ZoneInfo(zone)).date()


@settings(max_examples=60, deadline=None)
@given(instants, zones, st.sampled_from(WEEKDAYS))
def test_a_weekday_is_the_next_such_day_in_the_familys_zone(instant: datetime, zone: str, weekday: str) -> None:
    at = instant.replace(tzinfo=UTC)
    [fact] = extract(lucia(f"Maya's recital is on {weekday}"), started_at=at, time_zone=zone)
    day = date.fromisoformat(fact["valid_until"]) - timedelta(days=1)
    local = _local_day(at, zone)
    assert day.weekday() == WEEKDAYS.index(weekday) and 0 <= (day - local).days < 7


@settings(max_examples=60, deadline=None)
@given(instants, zones, st.integers(min_value=1, max_value=28))
def test_the_nth_is_the_next_nth_in_the_familys_zone(instant: datetime, zone: str, number: int) -> None:
    at = instant.replace(tzinfo=UTC)
    suffix = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd"}.get(number, "th")
    [fact] = extract(lucia(f"Maya's recital is on the {number}{suffix}"), started_at=at, time_zone=zone)
    day = date.fromisoformat(fact["valid_until"]) - timedelta(days=1)
    local = _local_day(at, zone)
    assert day.day == number and 0 <= (day - local).days <= 31


def test_the_14th_said_on_the_20th_is_next_months_and_tmrw_on_the_31st_is_the_1st() -> None:
    twentieth = datetime(2026, 1, 20, 18, 0, tzinfo=UTC)  # 10:00 in Los Angeles
    [fact] = extract(lucia("Maya's recital is on the 14th"), started_at=twentieth)
    assert fact["valid_until"] == "2026-02-15"
    # 23:30 on Saturday 31 January in Los Angeles is already 1 February in UTC.
    late = datetime(2026, 2, 1, 7, 30, tzinfo=UTC)
    [tmrw] = extract(lucia("Maya's recital is tmrw"), started_at=late)
    assert tmrw["valid_until"] == "2026-02-02"
    # Sunday night, "friday next week": the Friday of next calendar week.
    sunday = datetime(2026, 11, 30, 5, 0, tzinfo=UTC)  # 21:00 on Sunday 29 November in Los Angeles
    [sport] = extract(lucia("Maya has sports day on friday next week"), started_at=sunday)
    assert sport["valid_until"] == "2026-12-05"
    monday = datetime(2026, 11, 23, 17, 0, tzinfo=UTC)  # Monday 09:00 in Los Angeles
    [later] = extract(lucia("Maya has sports day on friday next week"), started_at=monday)
    assert later["valid_until"] == "2026-12-05"  # not this week's Friday, the 27th


# --- rules in other plain forms (issue 10, section 1: every hard constraint in plain words) ----


@pytest.mark.parametrize(
    ("said", "summary"),
    [
        ("only me or marco can pick maya up from school", "Only Lucía or marco can pick maya up from school."),
        ("the doctor said no swimming for Maya", "The doctor said no swimming for Maya."),
        ("Maya's room, the heater must stay off at night", "Maya's room, the heater must stay off at night."),
        ("we don't do sleepovers on school nights", "We don't do sleepovers on school nights."),
        ("Maya has to drink 2 litres of water a day", "Maya has to drink 2 litres of water a day."),
        ("when I'm on nights pls don't call me before noon", "When Lucía is on nights, do not call Lucía before noon."),
    ],
)
def test_household_rules_in_other_plain_forms_are_hard(said: str, summary: str) -> None:
    found = {c["summary"]: c for c in extract(lucia(said))}
    assert summary in found, list(found)
    assert found[summary]["strength"] == "hard"


def test_a_rule_about_someone_excludes_the_people_it_allows_from_its_pronoun() -> None:
    [rule] = extract(lucia("maya's school pickup — only me or marco can pick her up"))
    assert rule["summary"] == "Only Lucía or marco can pick Maya up."


@pytest.mark.parametrize(
    ("said", "summary", "strength"),
    [
        ("Maya stopped eating beef in january", "Maya stopped eating beef.", "hard"),
        ("I keep a fast on tuesdays", "Lucía keeps a fast on tuesdays.", "hard"),
        ("at home we cook only veg", "At home, the family only cooks vegetarian.", "hard"),
        ("Marco can't sit on the floor with his new knee", "Marco cannot sit on the floor with his new knee.", "hard"),
        ("Maya has asthma", "Maya has asthma.", "soft"),
        ("Our dog Pepper needs his pills at 8", "Pepper needs his pills at 8.", "hard"),
        (
            "Marco takes his blood pressure pills every morning",
            "Marco takes his blood pressure pills every morning.",
            "soft",
        ),
    ],
)
def test_diets_conditions_and_medication(said: str, summary: str, strength: str) -> None:
    found = {c["summary"]: c for c in extract(lucia(said))}
    assert summary in found, list(found)
    assert found[summary]["strength"] == strength and found[summary]["sensitivity"] == "health"


def test_a_restriction_for_now_is_not_a_rule() -> None:
    assert [c for c in extract(lucia("Marco can't walk that much yet")) if c["strength"] == "hard"] == []


def test_a_name_not_introduced_counts_only_before_what_a_person_is_said_to_be() -> None:
    [swim] = extract(lucia("Leo loves swimming"))
    assert swim["summary"] == "Leo loves swimming." and swim["entities"][0]["name"] == "Leo"
    [cats] = extract(lucia("Leo is allergic to cats"))
    assert cats["strength"] == "hard"
    for said in ("Sounds lovely, see you then", "Looks like we're set", "Moments like these"):
        assert all(not c["entities"] for c in extract(lucia(said)))


def test_a_doubtful_aside_is_cut_from_the_claim_and_its_quote() -> None:
    [pay] = extract(lucia("fyi i get paid on the 28th every month, if you're ever planning big shops"))
    assert pay["summary"] == "Lucía gets paid on the 28th of every month." and pay["valid_until"] is None
    assert pay["evidence"][0]["quote"] == "fyi i get paid on the 28th every month"


def test_favourites_and_friends_in_the_familys_words() -> None:
    found = summaries(("user", "maya", "geckos are my favorite animal"), ("user", "maya", "my best friend is jiho"))
    assert "Maya's favorite animal is geckos." in found and "Jiho is Maya's best friend." in found
    assert summaries(("user", "maya", "my fav player is rishabh pant")) == ["Maya's fav player is rishabh pant."]


def test_the_assistants_question_can_say_whom_the_answer_is_about() -> None:
    found = extract(
        ("assistant", None, "Should I look for an egg-free bakery because of Maya?"),
        lucia("yes, even a little egg sets her off. the doctor said no egg for her until she's retested"),
    )
    assert any(c["summary"].startswith("The doctor said no egg for Maya") for c in found), [c["summary"] for c in found]
    # ... but an assistant turn further back does not: it names whoever it talks to.
    far = extract(
        ("assistant", None, "Hi Maya!"),
        lucia("thanks"),
        ("assistant", None, "Anything else?"),
        lucia("she's allergic to kiwi"),
    )
    assert [c for c in far if c["type"] == "constraint"] == []


def test_the_nth_after_the_family_named_another_month_is_not_guessed() -> None:
    # "the 11th" alone is next month's 11th; after "the 11th to the 18th of July" it is July's, and
    # the calendar cannot tell: nothing dated is formed rather than the wrong day.
    found = extract(lucia("we booked Lisbon, 11th to 18th of July"), lucia("Marco's flight is on the 11th at 6"))
    assert [c for c in found if c["summary"].startswith("Marco's flight")] == []
    [alone] = extract(lucia("Marco's flight is on the 11th at 6"))
    assert alone["valid_until"] == "2026-12-12"


def test_the_nth_read_back_with_the_calendars_month_and_let_stand_is_dated() -> None:
    # kowalski s05:9: "maddie has the dentist the 24th" after "first practice is april 11"; the
    # reply read it back as March 24 and Mike went on, so the month is the family's, not a guess.
    practice = lucia("I'm coaching maya's softball, saturdays 9am, first practice is january 9")
    dentist = lucia("maya has the dentist the 4th at 3:30")
    found = extract(
        practice,
        ("assistant", None, "Fun! Saturdays at 9, starting January 9."),
        dentist,
        ("assistant", None, "Noted: dentist on Friday, December 4 at 3:30."),
        lucia("ok thanks"),
    )
    assert [c["valid_until"] for c in found if "dentist" in c["summary"]] == ["2026-12-05"]
    # Put right by the family ("no, ..."), or read back with another month, it stays a guess.
    corrected = extract(
        practice,
        ("assistant", None, "Fun!"),
        dentist,
        ("assistant", None, "Noted: dentist on Friday, December 4 at 3:30."),
        lucia("no, the one in january"),
    )
    assert [c for c in corrected if "dentist" in c["summary"]] == []
    # fitzgerald s06:21: "Portugal update, ... the 11th to the 18th" after "the 9th of June"; the
    # holiday's month was said in an earlier conversation, and the reply says July, not May.
    found = extract(
        lucia("BIG news, Marco's test is booked! Tuesday the 9th of February at 10:15"),
        ("assistant", None, "Brilliant! Tuesday, February 9 at 10:15."),
        lucia("Lisbon update, we're staying at the Sol apartments in Lisbon, the 11th to the 18th"),
        ("assistant", None, "Smart move! The Sol apartments, July 11 to 18."),
    )
    assert [c for c in found if "Sol apartments" in c["summary"]] == []


@pytest.mark.parametrize(
    ("said", "tag"),
    [
        ("Marco has dialysis every monday at 6", "health"),
        ("I get paid on the 28th every month", "finances"),
        ("Marco does the school pickup every day", "minors"),
        ("Marco plays five-a-side every Monday", "normal"),
    ],
)
def test_a_claims_words_tag_it_sensitive_however_it_is_phrased(said: str, tag: str) -> None:
    [fact] = extract(lucia(said))
    assert fact["sensitivity"] == tag


# --- precision classes (issue 10, section 1: junk the offline set showed) -------------


@pytest.mark.parametrize(
    "said",
    [
        "Marco's new job begins on Monday",
        "grandpa goes into hospital on friday",
        "Maya's new school year starts on Monday",
    ],
)
def test_a_day_that_only_says_when_something_lasting_begins_is_no_occasion(said: str) -> None:
    assert summaries(lucia(said)) == []


def test_an_occasion_and_a_schedule_that_starts_are_still_formed() -> None:
    [recital] = extract(lucia("Maya's recital is on Monday"))
    assert recital["valid_until"] == "2026-12-01"
    [swim] = extract(lucia("Maya's swim lessons start on Monday"))
    assert swim["valid_until"] is None  # lessons go on from then


@pytest.mark.parametrize(
    "said", ["saturday stays the same", "the pickup time on Tuesday is unchanged", "wednesday is still as before"]
)
def test_a_clause_that_says_only_that_nothing_changed_is_no_fact(said: str) -> None:
    assert summaries(lucia(said)) == []


@pytest.mark.parametrize(
    "said",
    [
        "I want something different from rice every day",
        "Maya wants pancakes every morning",
        "we'd like a family walk every Sunday",
    ],
)
def test_a_wish_with_a_repeat_word_is_no_schedule(said: str) -> None:
    assert summaries(lucia(said)) == []


def test_what_happens_every_day_is_still_a_schedule() -> None:
    assert summaries(lucia("Maya has pancakes every morning")) == ["Maya has pancakes every morning."]
    assert summaries(lucia("We walk the dog every Sunday")) == ["We walk the dog every Sunday."]


@pytest.mark.parametrize(
    "said",
    [
        "friday dinner has to be cooked before sunset",
        "sunday lunch must be ready by 1",
        "saturday breakfast needs to be early",
    ],
)
def test_a_weekdays_meal_with_an_obligation_is_not_pinned_to_the_next_one(said: str) -> None:
    assert summaries(lucia(said)) == []


def test_a_weekdays_meal_said_as_one_plan_is_still_an_occasion() -> None:
    [dinner] = extract(lucia("Friday dinner is at grandma's"))
    assert dinner["valid_until"] == "2026-11-28"


def test_a_letter_standing_for_a_word_is_no_subject() -> None:
    assert summaries(lucia("n test is the 9th")) == []
    assert summaries(lucia("Maya's test is the 9th")) == ["Maya's test is the 9th (Wednesday 2026-12-09)."]


@pytest.mark.parametrize(
    "said", ["Maya hates not being in charge", "Marco hates when people are late", "Maya loves how the snow looks"]
)
def test_a_feeling_is_no_like_or_dislike_of_a_thing(said: str) -> None:
    assert summaries(lucia(said)) == []


def test_a_like_of_a_thing_is_still_a_preference() -> None:
    assert one(lucia("Maya hates mushrooms"))["type"] == "preference"


@pytest.mark.parametrize(
    "said",
    ["ok. dr kim says physio three times a week at the clinic", "dr kim says stretches every morning for Maya"],
)
def test_a_doctors_words_are_a_rule_not_the_familys_schedule(said: str) -> None:
    assert summaries(lucia("we saw Dr. Kim today"), lucia(said)) == []
    rule = one(lucia("the doctor said no swimming for Maya"))
    assert rule["strength"] == "hard"


@pytest.mark.parametrize(
    "said",
    [
        "Marco's fasting so no lunch for him",
        "Maya's poorly so no visitors for her",
        "Maya's on antibiotics so no dairy for her",
    ],
)
def test_a_rule_resting_on_a_passing_state_is_no_standing_rule(said: str) -> None:
    assert not [c for c in extract(lucia(said)) if c["strength"] == "hard"]


def test_a_rule_resting_on_a_lasting_state_is_still_formed() -> None:
    found = summaries(lucia("Marco's diabetic so no sweets for him"))
    assert "No sweets for Marco." in found


@pytest.mark.parametrize(
    ("said", "rule"),
    [
        (
            "House rule: no screens at dinner. Tablets get charged in the kitchen every night",
            "House rule: Tablets get charged in the kitchen every night.",
        ),
        (
            "house rules: no phones in bedrooms. Shoes come off at the door every time",
            "House rule: Shoes come off at the door every time.",
        ),
    ],
)
def test_a_routine_said_among_house_rules_is_a_hard_house_rule(said: str, rule: str) -> None:
    found = {c["summary"]: c for c in extract(lucia(said))}
    assert found[rule]["strength"] == "hard" and found[rule]["type"] == "directive"


def test_a_routine_said_alone_or_by_a_child_stays_a_soft_fact() -> None:
    [alone] = extract(lucia("Tablets get charged in the kitchen every night"))
    assert alone["strength"] == "soft"
    said = "House rule: no screens at dinner. Tablets get charged in the kitchen every night"
    assert [c["strength"] for c in extract(("user", "maya", said))] == ["soft"]


def test_a_days_routine_given_as_the_reason_for_a_rule_is_the_rules() -> None:
    said = "saturday mornings are football, so don't book anything before 12 on saturdays"
    assert summaries(lucia(said)) == ["Do not book anything before 12 on saturdays."]
    said = "my mum Rosa is staying with us. her sabbath is Saturday, so no outings for her on saturdays"
    found = summaries(lucia(said))
    assert "Rosa's sabbath is Saturday." in found and "No outings for Rosa on saturdays." in found


# --- whose activity: the owner from the turn, or not formed ---------------------------


@pytest.mark.parametrize(
    ("turns", "said"),
    [
        (
            [lucia("Maya didn't pass on the 9th, she's gutted. the retest is booked for the 18th of december")],
            "Maya's retest is booked for the 18th of december (Friday 2026-12-18).",
        ),
        ([lucia("Maya loves the pool. lessons are every tuesday at 4")], "Maya's lessons are every tuesday at 4."),
        (
            [("user", "maya", "exams are the 7th to the 11th. maths is on the 9th")],
            "Maya's exams are the 7th to the 11th (from Monday 2026-12-07 to Friday 2026-12-11).",
        ),
        (
            [("user", "marco", "one for me: annual health check is december 9 at 8")],
            "Marco's annual health check is december 9 (Wednesday 2026-12-09) at 8.",
        ),
    ],
)
def test_an_activity_said_with_no_owner_is_the_one_the_turn_is_about(
    turns: list[tuple[str, str, str]], said: str
) -> None:
    # The one person the turn named before it, a child's own, or the one the heading names.
    assert said in summaries(*turns)


def test_an_activity_two_people_could_own_is_not_formed() -> None:
    assert summaries(lucia("Marco and Maya love the rink. practice is every sunday at 9")) == []


def test_an_activity_an_adult_names_no_owner_for_stays_as_said() -> None:
    assert summaries(lucia("swim club is every saturday at 10")) == ["Swim club is every saturday at 10."]
    said = ("user", "marco", "choir practice is thursdays 7pm, I'm in the choir")
    assert summaries(said) == ["Choir practice is thursdays 7pm, Marco is in the choir."]


def test_a_school_subject_and_a_day_is_not_formed() -> None:
    # "maths is on the 9th": an exam, a class, homework? Said in another clause.
    found = summaries(("user", "maya", "exams are the 7th to the 11th. maths is on the 9th"))
    assert not [s for s in found if s.lower().startswith(("maths", "maya's maths"))]


# --- a kin word and a name are one person ---------------------------------------------


def test_a_kin_word_and_a_name_are_one_antecedent() -> None:
    said = "the kids are with their grandpa Joe every other weekend, he picks them up friday at 5"
    assert summaries(lucia(said)) == [
        "The kids are with their grandpa Joe every other weekend, Joe picks them up friday at 5."
    ]


def test_two_people_are_still_no_antecedent() -> None:
    said = "the kids are with grandpa and Joe every other weekend, he picks them up friday at 5"
    assert summaries(lucia(said)) == ["The kids are with grandpa and Joe every other weekend."]


# --- what a rule or a schedule already holds -------------------------------------------


def test_a_days_routine_is_the_rules_when_the_rule_comes_sentences_later() -> None:
    said = "Saturdays are for family. We do brunch at 11. so never book anything for us on a saturday"
    assert summaries(lucia(said)) == ["Never book anything for us on a saturday."]
    said = "Saturdays are for family. so never book anything for us on a sunday"
    assert "Saturdays are for family." in summaries(lucia(said))


def test_being_away_on_the_schedules_days_is_the_schedules() -> None:
    said = ("user", "marco", "band practice is tuesdays 8pm, I'm the drummer, so Tuesday nights I'm busy")
    assert summaries(said) == ["Band practice is tuesdays 8pm, Marco is the drummer."]
    said = ("user", "marco", "I work monday to thursday, fridays off, so friday is my gym day")
    assert "Friday is Marco's gym day." in summaries(said)


def test_a_count_no_schedule_has_is_a_figure_of_speech() -> None:
    assert summaries(("user", "maya", "I'm practising the song 50 times a day lol")) == []
    assert summaries(lucia("Maya has swim 3 times a week")) == ["Maya has swim 3 times a week."]


# --- sensitivity from the reason a rule rests on ---------------------------------------


def test_a_rule_said_with_so_is_as_sensitive_as_its_reason() -> None:
    said = "my dad's knee is bad after the surgery. so don't put him down for the school run"
    [rule] = extract(lucia(said))
    assert rule["summary"] == "Do not put Lucía's dad down for the school run." and rule["sensitivity"] == "health"
    [rule] = extract(lucia("Marco finishes work at 6. so don't book anything for him before 7"))
    assert rule["sensitivity"] == "normal"


def test_a_month_typed_with_a_lookalike_letter_ends_a_schedule_not_the_extraction() -> None:
    # Under re.I "ſeptember" (a long s) matches the month; its name must then be found.
    [found] = extract(lucia("maya has swimming every tuesday until ſeptember"))  # said 2026-11-27
    [plain] = extract(lucia("maya has swimming every tuesday until september"))
    assert found["valid_until"] == plain["valid_until"] == "2027-10-01"
