"""Words of another language in the cited turns (formation/foreign_words.py): calendar words
in other languages, and the family's own word kept in parentheses beside its translation."""

from __future__ import annotations

from datetime import date

import pytest

from family_memory.formation import foreign_words
from family_memory.formation.support import Claim, SpokenTurn, check_support

TUESDAY = date(2026, 12, 1)


def problems(summary: str, turn: str, said_on: date | None = TUESDAY) -> list[str]:
    claim = Claim(summary=summary, quotes=(turn,))
    return check_support(
        claim, [SpokenTurn(role="user", text=turn, writer_names=("Ana",), quoted=True)], said_on
    ).problems


@pytest.mark.parametrize(
    ("summary", "turn"),
    [
        ("Church is on Sundays.", "church kami tuwing linggo"),
        ("Swimming is on Tuesday.", "swimming ni tobi ni jumanne"),
        ("The market trip is on Saturday.", "mercado el sabado"),
        ("Piano lessons are on Thursdays.", "piano lessons are jeudi"),
        ("Football is on Wednesdays.", "football w srode"),
        ("The dentist appointment is tomorrow.", "dentist appointment ni wanjiru ni kesho"),
        ("Grandma visits in May.", "lola visits sa mayo"),
        ("Choir is on Friday.", "choir practice ijumaa"),
    ],
)
def test_a_calendar_word_in_another_language_supports_its_english(summary: str, turn: str) -> None:
    assert problems(summary, turn) == []


@pytest.mark.parametrize(
    ("summary", "turn"),
    [
        ("Football is on Thursday.", "football practice sa martes"),
        ("Church is on Saturdays.", "church kami tuwing linggo"),
        ("Swimming is on Wednesday.", "swimming ni tobi ni jumanne"),
        ("Grandma visits in June.", "lola visits sa mayo"),
        ("Piano lessons are on Tuesdays.", "piano lessons are jeudi"),
    ],
)
def test_a_wrong_weekday_or_month_for_a_foreign_one_is_refused(summary: str, turn: str) -> None:
    assert problems(summary, turn)


def test_linggo_and_minggu_after_a_count_or_next_are_a_week_not_sunday() -> None:
    assert "sunday" not in foreign_words.english_calendar("babalik siya after isang linggo").lower()
    assert "sunday" not in foreign_words.english_calendar("sa susunod na linggo").lower()
    assert "sunday" not in foreign_words.english_calendar("minggu depan kita pergi").lower()
    assert "sunday" in foreign_words.english_calendar("sa linggo ng umaga").lower()
    assert problems("The trip is on Sunday.", "yung trip sa susunod na linggo")


def test_bukas_before_ang_is_open_not_tomorrow() -> None:
    assert "tomorrow" not in foreign_words.english_calendar("bukas ang tindahan")
    assert "tomorrow" in foreign_words.english_calendar("bukas ng gabi ang party")


def test_a_capitalised_ambiguous_word_mid_sentence_is_a_name() -> None:
    assert foreign_words.english_calendar("tell Leo about it") == "tell Leo about it"
    assert "today" in foreign_words.english_calendar("tunaenda leo jioni")


def test_vietnamese_weekdays_are_read_as_phrases_without_tone_marks() -> None:
    assert "monday" in foreign_words.english_calendar("hoc boi vào thứ hai")
    assert problems("Swimming is on Thursday.", "hoc swimming thu hai")  # "thu hai" is no "thu"
    assert not problems("Swimming lesson is on Monday.", "swimming lesson thứ hai")


def test_the_familys_word_in_parentheses_covers_its_translation() -> None:
    assert problems("Lola is allergic to peanuts.", "allergic si lola sa mani")  # "mani" is in no table
    assert problems("Lola is allergic to peanuts (mani).", "allergic si lola sa mani") == []
    assert problems("Lola is allergic to shrimp (hipon).", "allergic si lola sa hipon") == []
    assert problems("Baraka cannot eat peanuts (njugu).", "baraka hawezi kula njugu") == []


def test_allergens_and_conditions_in_the_familys_language_are_read_in_english() -> None:
    # formation/foreign_words.py FOOD_AND_HEALTH: the word check reads "hipon" as shrimp ...
    assert problems("Lola is allergic to shrimp.", "allergic si lola sa hipon") == []
    assert problems("Baraka cannot eat peanuts.", "baraka hawezi kula njugu") == []
    assert problems("Emil has a coeliac check-up.", "emil has his zöliakie check") == []
    assert problems("Vy can't have milk.", "vy can't have sữa bò") == []
    # ... and still refuses another allergen for it.
    assert problems("Lola is allergic to peanuts.", "allergic si lola sa hipon")
    assert problems("Baraka cannot drink milk.", "baraka hawezi kula njugu")
    assert foreign_words.english_words("tom and sam") == []  # a name is no Vietnamese shrimp


def test_a_parenthesis_the_turns_do_not_hold_is_refused() -> None:
    assert problems("Lola is allergic to shrimp (hipon).", "allergic si lola sa alimango")
    assert problems("Baraka cannot eat peanuts (karanga).", "baraka hawezi kula njugu")


def test_a_parenthesised_english_word_does_not_launder_a_swap() -> None:
    assert problems("Lola is allergic to shrimp (crab).", "lola is allergic to crab")
    assert problems("Tobi hurt his knee (hip).", "tobi hurt his hip")


def test_a_parenthesis_does_not_cover_a_changed_number() -> None:
    assert problems("Lola takes 3 tablets (gamot) a day.", "lola takes 2 gamot a day")
    assert problems("Lola takes 2 tablets (gamot) a day.", "lola takes 2 gamot a day") == []


def test_a_swap_is_refused_even_where_the_turns_also_say_the_head() -> None:
    # "not shrimp" holds the head word; the parenthesis still dresses a swap as a translation.
    assert problems("Lola is allergic to shrimp (crab).", "lola is allergic to crab, not shrimp")
    assert problems("Lola is allergic to crab.", "lola is allergic to crab, not shrimp") == []


def test_an_apposition_of_whose_or_who_someone_is_is_no_gloss() -> None:
    assert foreign_words.glosses("Dadaji (Arjun's father) should not drive.") == []
    assert foreign_words.glosses("Maya (daughter) has a peanut allergy.") == []
    assert foreign_words.glosses("Lola is allergic to shrimp (hipon).") == [("shrimp", ["hipon"])]
    assert problems("Maya (daughter) has a peanut allergy.", "my daughter maya has a peanut allergy") == []


def test_a_family_word_the_turns_do_not_hold_is_refused_where_words_pay_for_words() -> None:
    # As many of the turn's words dropped as the summary adds: only the gloss check sees that
    # "maembe" (mangoes) is not what the turn said ("ndizi", bananas).
    assert problems("Baraka loves mangoes (maembe).", "baraka anapenda ndizi sana")
    assert problems("Baraka loves bananas (ndizi).", "baraka anapenda ndizi sana") == []


def test_the_familys_word_first_and_its_english_in_parentheses_is_no_swap() -> None:
    assert (
        problems(
            "Losa reacted to feke (octopus), so no octopus for her.", "losa reacted to feke, so no octopus for her"
        )
        == []
    )


def test_a_name_on_either_side_of_the_parenthesis_is_an_apposition() -> None:
    assert foreign_words.glosses("Ji-woo's mother (Halmeoni) comes on Mondays.") == []
    assert foreign_words.glosses("The twins are in the Byeol (Stars) class.") == []
    assert foreign_words.glosses("Stan can't have Seville (bitter) oranges.") == []
    assert foreign_words.glosses("Shrimp (hipon) is off the menu for Lola.") == [("shrimp", ["hipon"])]
