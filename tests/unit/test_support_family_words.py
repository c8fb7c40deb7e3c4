"""Family words and reported speech the support check reads (formation/holidays.py,
formation/relations.py KIN_WORDS, support._reports, binding._points_back,
paraphrase.OPPOSITES): each faithful summary it used to refuse beside a near miss it must
still refuse. The turns are written the way families write, in several Englishes."""

from __future__ import annotations

from datetime import date

import pytest

from family_memory.formation import holidays
from family_memory.formation.support import Claim, SpokenTurn, check_support

NAMES = ("Declan", "Maricel", "Jun", "Pieter", "Sipho", "Kevin", "Linh", "Leon", "Abena", "Yaw", "Daz", "Jack")


def verdict(summary: str, turn: str, *, writer: str = "Declan", quote: str | None = None) -> list[str]:
    claim = Claim(
        summary=summary,
        quotes=(quote or turn,),
        names=tuple(n for n in NAMES if n in summary),
        known_names=NAMES,
    )
    return check_support(claim, [SpokenTurn("user", turn, (writer,), quoted=True)], date(2026, 12, 4)).problems


# --- holidays ---------------------------------------------------------------------------------

STEPHENS = "Ma's coming Christmas Eve and stopping till Stephen's Day, God help us all"
NOCHE_BUENA = "ok family meeting Tita Baby will bring the lechon sa Noche Buena, tayo na lang sa pancit"
SIOE = "sioe Nadolig yr ysgol nos Fercher! Cerys is the angel Gabriel, need a tea towel for her head"
HOGMANAY = "we're at Lorraine's for hogmanay, back on the 2nd"


@pytest.mark.parametrize(
    ("summary", "turn", "why"),
    [
        (
            "Declan's mother is staying with the family from Christmas Eve until New Year's Day.",
            STEPHENS,
            "not new year's day",
        ),
        (
            "Tita Baby will bring the lechon for the New Year's Eve dinner (Noche Buena).",
            NOCHE_BUENA,
            "not new year's eve",
        ),
    ],
)
def test_a_holiday_the_turns_do_not_name_is_refused(summary: str, turn: str, why: str) -> None:
    found = verdict(summary, turn, writer="Maricel")
    assert any(why in p for p in found), found


@pytest.mark.parametrize(
    ("summary", "turn"),
    [
        ("Declan's mother is staying with the family from Christmas Eve until St Stephen's Day.", STEPHENS),
        ("Declan's mother is staying from Christmas Eve until Boxing Day.", STEPHENS),
        ("Tita Baby will bring the lechon for the Christmas Eve dinner (Noche Buena).", NOCHE_BUENA),
        ("Cerys is the angel Gabriel in the school Christmas show (sioe Nadolig).", SIOE),
        ("The family is at Lorraine's for New Year's Eve (Hogmanay).", HOGMANAY),
    ],
)
def test_a_holiday_named_in_the_familys_own_words_is_accepted(summary: str, turn: str) -> None:
    assert verdict(summary, turn, writer="Maricel") == []


def test_holidays_are_read_as_one_name_and_new_year_is_either_end() -> None:
    assert holidays.holidays("Noche Buena, then hogmanay, then Tết") == {
        "christmas eve",
        "new year's eve",
        "lunar new year",
    }
    assert holidays.holiday_problem("They arrive for New Year.", "we're at lorraine's for hogmanay") is None
    # a holiday the conversation names elsewhere is the conversation's
    assert (
        holidays.holiday_problem("Lunch on Boxing Day.", "lunch at ours on christmas", "boxing day is at nan's") is None
    )
    # a name is no holiday: "Noel" is a person
    assert holidays.holidays("Noel is coming for Easter") == {"easter"}


# --- kin words of other languages -------------------------------------------------------------


@pytest.mark.parametrize(
    ("summary", "turn", "writer"),
    [
        (
            "Grandmother's (Ouma's) 80th birthday is on the 19th, with a braai at the farm.",
            "Ouma's 80th is on the 19th!! lekker braai at the farm",
            "Pieter",
        ),
        (
            "Kevin's father (Ba) said he can skip Vietnamese school this Sunday because of the robotics competition.",
            "ba said i can skip vietnamese school this sunday cuz of the robotics comp!!",
            "Kevin",
        ),
        ("Grandfather (Thatha) takes his tablets in the morning.", "thatha takes his tablets in the morning", "Pieter"),
    ],
)
def test_a_kin_word_of_another_language_is_its_relation(summary: str, turn: str, writer: str) -> None:
    assert verdict(summary, turn, writer=writer) == []


def test_a_kin_word_is_not_another_relation() -> None:
    found = verdict("Grandfather (Ouma) turns 80 on the 19th.", "Ouma's 80th is on the 19th!!", writer="Pieter")
    assert found, "Ouma is a grandmother"


# --- reported speech --------------------------------------------------------------------------

TRAMPOLINE = "Jack's not allowed on the tramp till his wrist's healed, doc reckons another fortnight. he's spewin"
SKIP = "dad said i can skip chores this week"
STAY_UP = "we can stay up till 11 on friday, mum said"


@pytest.mark.parametrize(
    ("summary", "turn", "quote"),
    [
        # the report is its own clause after the quote, and the summary keeps it a report
        (
            "Jack is not allowed on the trampoline until his wrist has healed, which the doctor thinks will take another two weeks.",
            TRAMPOLINE,
            "Jack's not allowed on the tramp till his wrist's healed",
        ),
        (
            "Jack is not allowed on the trampoline until his wrist has healed.",
            TRAMPOLINE,
            "Jack's not allowed on the tramp till his wrist's healed",
        ),
        ("Kevin says his father said he can skip chores this week.", SKIP, None),
    ],
)
def test_a_report_kept_as_a_report_or_outside_the_quote_is_accepted(summary: str, turn: str, quote: str | None) -> None:
    assert verdict(summary, turn, writer="Daz" if "Jack" in summary else "Kevin", quote=quote) == []


@pytest.mark.parametrize(
    ("summary", "turn"),
    [
        ("Kevin may skip chores this week.", SKIP),
        ("Kevin can stay up until 11 pm on Friday.", STAY_UP),  # a report tagged on after the quote
    ],
)
def test_a_report_made_the_familys_own_rule_is_refused(summary: str, turn: str) -> None:
    found = verdict(summary, turn, writer="Kevin")
    assert any("reports what someone else said" in p for p in found), found


# --- parallel parts and a comment after them; older and younger ---------------------------------

CURFEW = "Bruv my mum's bare stressed, she's told me I gotta be home by 10 on school nights innit, weekends it's 12. Fam that's long"
YAW = "Please my small brother Yaw is coming to stay from Sunday, he will be here two weeks."


def test_a_swapped_pair_before_a_comment_is_refused_and_the_kept_pair_accepted() -> None:
    swapped = "Leon's mum has told him he has to be home by midnight on school nights and by 10 pm at weekends."
    kept = "Leon's mum has told him he has to be home by 10 pm on school nights and by midnight at weekends."
    quote = "I gotta be home by 10 on school nights"
    assert any("pairs" in p for p in verdict(swapped, CURFEW, writer="Leon", quote=quote))
    assert verdict(kept, CURFEW, writer="Leon", quote=quote) == []


def test_a_small_brother_is_the_younger_one() -> None:
    assert (
        verdict("Abena's younger brother Yaw is coming to stay for two weeks from Sunday.", YAW, writer="Abena") == []
    )
    found = verdict("Abena's older brother Yaw is coming to stay for two weeks from Sunday.", YAW, writer="Abena")
    assert any("not older" in p for p in found), found


# --- a plan said under an "if" or a "maybe" -----------------------------------------------------

PENANG = "If the Penang trip confirm, we'll stay at my cousin's place in Tanjung Bungah for three nights lah"
VISA = "next week. agar uska visa aa gaya toh he'll fly in for Meera ki shaadi on the 28th, warna video call se hi"
OAXACA = "estamos pensando en ir a Oaxaca para navidad, maybe, depends on the flights"
FLIGHTS = "we're going to oaxaca for christmas, maybe, depends on the flights"
MUSHROOMS = "vasco hates mushrooms but he'll eat them if they're blended in the sauce lol"


@pytest.mark.parametrize(
    ("summary", "turn", "quote"),
    [
        (
            "The family will stay three nights at a cousin's place in Tanjung Bungah for the Penang trip.",
            PENANG,
            "we'll stay at my cousin's place in Tanjung Bungah for three nights",
        ),
        ("Rohan will fly in for Meera's wedding (shaadi) on the 28th.", VISA, None),
        ("The family is going to Oaxaca for Christmas.", OAXACA, "ir a Oaxaca para navidad"),
        ("The family is going to Oaxaca for Christmas.", FLIGHTS, "we're going to oaxaca for christmas"),
    ],
)
def test_a_plan_under_an_if_or_a_maybe_stated_as_made_is_refused(summary: str, turn: str, quote: str | None) -> None:
    found = verdict(summary, turn, writer="Maricel", quote=quote)
    assert any("possibility" in p for p in found), found


@pytest.mark.parametrize(
    ("summary", "turn", "quote"),
    [
        (
            "If the Penang trip is confirmed, the family will stay three nights at a cousin's place in Tanjung Bungah.",
            PENANG,
            "we'll stay at my cousin's place in Tanjung Bungah for three nights",
        ),
        ("Rohan might fly in for Meera's wedding (shaadi) on the 28th if his visa comes through.", VISA, None),
        ("The family is thinking of going to Oaxaca for Christmas.", OAXACA, "ir a Oaxaca para navidad"),
        ("The family might go to Oaxaca for Christmas.", FLIGHTS, "we're going to oaxaca for christmas"),
        # a condition kept whole, as a participle
        ("Vasco dislikes mushrooms but will eat them blended into a sauce.", MUSHROOMS, None),
    ],
)
def test_a_plan_that_keeps_its_if_or_maybe_is_accepted(summary: str, turn: str, quote: str | None) -> None:
    assert verdict(summary, turn, writer="Maricel", quote=quote) == []


# --- one occasion of a weekday made a weekly habit ----------------------------------------------

SCHOOL_RUN = "I'm doing the school run this Thursday since Aoife's down in Galway for work, then back to normal"
TWINS = "Mama Jo watched the twins Thursday since daycare was closed for the water main thing."
ART = "sasha's got ballet on tues, art on thurs, and she wants to add swimming"


@pytest.mark.parametrize(
    ("summary", "turn"),
    [
        ("Declan does the school run every Thursday.", SCHOOL_RUN),
        ("Mama Jo watches the twins on Thursdays.", TWINS),
    ],
)
def test_one_weekday_occasion_made_a_weekly_habit_is_refused(summary: str, turn: str) -> None:
    found = verdict(summary, turn)
    assert any("every week" in p for p in found), found


@pytest.mark.parametrize(
    ("summary", "turn"),
    [
        ("Declan is doing the school run this Thursday while Aoife is in Galway for work.", SCHOOL_RUN),
        ("Mama Jo watched the twins on Thursday because daycare was closed.", TWINS),
        ("Sasha has art on Thursdays.", ART),  # "on thurs" in the present is the habit; "got" is "has"
    ],
)
def test_a_weekday_kept_as_one_occasion_or_said_as_a_habit_is_accepted(summary: str, turn: str) -> None:
    assert verdict(summary, turn) == []


def test_an_aside_or_a_lasting_probably_after_the_quote_is_no_hedge() -> None:
    # eval/families/ahmed.yaml s06 and park.yaml s09
    paid = "true. fyi i get paid on the 28th every month, if you're ever planning big shops"
    assert (
        verdict("Declan gets paid on the 28th of every month.", paid, quote="i get paid on the 28th every month") == []
    )
    knee = "halmeoni can't sit on the floor with her new knee, probably ever again honestly."
    quote = "halmeoni can't sit on the floor with her new knee"
    assert verdict("Halmeoni cannot sit on the floor with her new knee.", knee, quote=quote) == []


# --- a denial turned into a grant ---------------------------------------------------------------

SCREENS = "new rule for jaylen: no screens after 8 on school nights. weekends he can stay on til 9"
WEEKNIGHTS = (
    "New rule, eh: the kids get no screens on weeknights anymore, that's done, only Saturday and Sunday mornings"
)
TURKEY = "ah sure we won't be doing the turkey this year at all, mam's going veggie so it's a nut roast, grand so"


@pytest.mark.parametrize(
    ("summary", "turn", "quote", "why"),
    [
        (
            "Jaylen may use screens after 8 pm on school nights.",
            SCREENS,
            "no screens after 8 on school nights",
            "says no screens",
        ),
        (
            "The kids get screens on weeknights.",
            WEEKNIGHTS,
            "the kids get no screens on weeknights anymore",
            "says no screens",
        ),
        (
            "The family will be doing the turkey this year.",
            TURKEY,
            "doing the turkey this year",
            "leaves out the negation",
        ),
    ],
)
def test_a_denial_stated_as_a_grant_or_a_plan_is_refused(summary: str, turn: str, quote: str, why: str) -> None:
    found = verdict(summary, turn, quote=quote)
    assert any(why in p for p in found), found


@pytest.mark.parametrize(
    ("summary", "turn", "quote"),
    [
        ("Jaylen may not use screens after 8 pm on school nights.", SCREENS, "no screens after 8 on school nights"),
        ("Jaylen gets no screens after 8 pm on school nights.", SCREENS, "no screens after 8 on school nights"),
        ("The kids get no screens on weeknights.", WEEKNIGHTS, "the kids get no screens on weeknights anymore"),
        ("The family will not be doing the turkey this year.", TURKEY, "doing the turkey this year"),
        (
            "Remind Declan to sleep by 10 pm every night until his exams finish.",
            "exams next thursday already, very stressed. can or not remind him to sleep by 10 every night until exams finish",
            "remind him to sleep by 10 every night until exams finish",
        ),
    ],
)
def test_a_denial_kept_is_accepted(summary: str, turn: str, quote: str) -> None:
    assert verdict(summary, turn, quote=quote) == []


def test_a_schedule_changed_to_weekdays_is_every_week() -> None:
    # eval/families/garcia.yaml s05 and park.yaml s05: a change in the past tense, for every week after
    chair = "first abuela. the center changed her chair time, she's at 11:15 now, still mon wed fri"
    piano = "sori academy changed seo-yeon's piano to wed and fri, same time 4:30. starts this week"
    assert verdict("Abuela's dialysis chair time is now 11:15 on Mondays, Wednesdays and Fridays.", chair) == []
    assert verdict("Seo-yeon's piano lessons are now on Wednesdays and Fridays at 4:30 pm.", piano) == []


# --- a permission's condition after a "but", and a condition that ends at its comma ----------------

HARPER = "harper can walk to the bus stop on her own now but only if her brother's with her, not by herself yet"
TOMMY = "ok Tommy can go to Derek's lake house over winter break but ONLY if Derek's parents are there the whole time"
SWEET = (
    "papa can have the sweet only if his sugar reading is below 140 in the morning, doctor was very clear about this"
)


@pytest.mark.parametrize(
    ("summary", "turn"),
    [
        ("Harper may walk to the bus stop on her own.", HARPER),
        ("Tommy can go to Derek's lake house over the winter break.", TOMMY),
        ("The doctor said Papa can have the sweet.", SWEET),  # "doctor" is no word of the condition
    ],
)
def test_a_permission_without_its_condition_is_refused(summary: str, turn: str) -> None:
    found = verdict(summary, turn)
    assert any("condition" in p for p in found), found


@pytest.mark.parametrize(
    ("summary", "turn"),
    [
        ("Harper may walk to the bus stop on her own now, but only if her brother is with her.", HARPER),
        (
            "Tommy can go to Derek's lake house over the winter break only if Derek's parents are there the whole time.",
            TOMMY,
        ),
        ("Papa can have the sweet only if his morning sugar reading is below 140.", SWEET),
    ],
)
def test_a_permission_with_its_condition_is_accepted(summary: str, turn: str) -> None:
    assert verdict(summary, turn) == []


# --- a diet the turns say less than; a change stated as done before it is ------------------------

MONDAYS = "from this week we are doing veg on mondays, whole family. rest of the week chicken fish all fine"
PORK = "mi done wid pork from now on, nuh more pork fi mi. chicken an fish still good tho so nobody start fuss"
QUITTING = "ngl im so done w soccer, told coach im quitting after the season ends in nov"


@pytest.mark.parametrize(
    ("summary", "turn", "why"),
    [
        ("The whole family is vegetarian.", MONDAYS, "still eaten"),
        ("Declan is vegetarian from now on.", PORK, "still eaten"),
        ("Declan has already quit soccer.", QUITTING, "to come"),
    ],
)
def test_a_diet_or_a_change_the_turns_say_less_of_is_refused(summary: str, turn: str, why: str) -> None:
    found = verdict(summary, turn)
    assert any(why in p for p in found), found


@pytest.mark.parametrize(
    ("summary", "turn"),
    [
        ("The whole family eats vegetarian meals on Mondays; chicken and fish are fine on other days.", MONDAYS),
        ("From this week the whole family eats vegetarian meals on Mondays.", MONDAYS),
        ("Declan no longer eats pork, but chicken and fish are still fine.", PORK),
        ("Declan has told the coach he is quitting soccer after the season ends in November.", QUITTING),
    ],
)
def test_a_diet_or_a_change_said_as_the_turns_say_it_is_accepted(summary: str, turn: str) -> None:
    assert verdict(summary, turn) == []


# --- "sorry no" takes a day of the month back ----------------------------------------------------

DENTIST = "Ethan dentist is on the 9th -- sorry no, the 19th, I keep mixing up."


def test_a_day_taken_back_with_sorry_no_is_refused_and_the_corrected_one_kept() -> None:
    found = verdict("Ethan's dentist appointment is on the 9th.", DENTIST, quote="Ethan dentist is on the 9th")
    assert any("took back" in p for p in found), found
    found = verdict("Ethan's dentist appointment is on December 9.", DENTIST, quote="Ethan dentist is on the 9th")
    assert any("took back" in p for p in found), found  # "the 9th" is the summary's "December 9"
    assert verdict("Ethan's dentist appointment is on the 19th.", DENTIST, quote="sorry no, the 19th") == []


# --- an allergen the turns deny, made one -------------------------------------------------------

CATS = "My son Tiago he is allergic of cats, not of dogs, so is ok when we go to my sister, she have only one cão."


def test_an_allergen_the_turns_deny_is_refused_and_the_said_one_kept() -> None:
    found = verdict(
        "Declan's son is allergic to dogs but not to cats.", CATS, quote="he is allergic of cats, not of dogs"
    )
    assert any("not dogs" in p for p in found), found
    kept = "Declan's son is allergic to cats but not to dogs."
    assert verdict(kept, CATS, quote="he is allergic of cats, not of dogs") == []


def test_one_past_occasion_of_another_weekday_says_nothing_of_the_habit() -> None:
    turn = "we took nan to the match on saturday, she loved it. bingo thursday as usual"
    assert verdict("Nan has bingo on Thursdays.", turn, quote="bingo thursday as usual") == []


@pytest.mark.parametrize(
    ("summary", "turn"),
    [
        ("Sasha has art on Thursdays.", "sasha's got art on thurs"),  # "got" is "has", not a past
        ("Seo-yeon's piano is now on Thursdays.", "sori academy moved seo-yeon's piano to thursday"),  # a new schedule
    ],
)
def test_one_weekday_said_as_a_habit_or_a_new_schedule_is_accepted(summary: str, turn: str) -> None:
    assert verdict(summary, turn) == []


def test_a_change_the_summary_dates_to_come_is_no_change_done() -> None:
    # eval/heldout/families/oliveira.yaml s04: the summary keeps "from next week"
    turn = "a natação da bia passa para quinta-feira a partir da próxima semana, same time, will be on thursdays from next week"
    summary = "Bia's swimming has moved from Wednesdays to Thursdays, at the same time, from next week."
    assert not any("to come" in p for p in verdict(summary, turn))
