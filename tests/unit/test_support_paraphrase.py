"""The support check's faithful side (formation/paraphrase.py): each class of faithful
rewording it reads as said, with a contrast that reuses the turn's words and must still be
refused. Cases from the harness families where they show the class (eval/families/)."""

from __future__ import annotations

from datetime import date

import pytest

from family_memory.formation import paraphrase
from family_memory.formation.support import Claim, SpokenTurn, check_support


def problems(summary: str, turn: str, writer: str = "Anjali", quote: str | None = None) -> list[str]:
    claim = Claim(summary=summary, quotes=(quote or turn,))
    return check_support(claim, [SpokenTurn("user", turn, (writer,), quoted=True)], date(2026, 5, 20)).problems


# (turn, a faithful summary, the contrast that differs by a value, a person or its polarity)
CASES = {
    "typo: a transposed or dropped letter in a day or a month": (
        "hamza's speech therapy moved to wendesdays at 4",
        "Hamza's speech therapy is now on Wednesdays at 4.",
        "Hamza's speech therapy is now on Tuesdays at 4.",
    ),
    "abbreviation: a hyphenated form of the turn's words": (
        "my hubby works 2nd shift, he can do the school drop off",
        "Her husband works the second shift and can do the school drop-off.",
        "Her husband works the second shift and can do the school pickup.",
    ),
    "abbreviation: an exam's short name": (
        "zanele's got her a-levels in june",
        "Zanele has her A-level exams in June.",
        "Zanele has her driving test in June.",
    ),
    "paraphrase: family talk for money": (
        "we're totally broke till the end of the month so no days out",
        "Money is tight until the end of the month, so no days out.",
        "Money is tight until the end of the month, so no holidays abroad.",
    ),
    "paraphrase: going up is an increase": (
        "the nursery fees are going up to 1,150 a month in september",
        "Nursery fees will rise to 1,150 per month in September.",
        "Nursery fees will rise to 1,250 per month in September.",
    ),
    "framing: a habitual adverb where the turn states a recurrence": (
        "we do friday pizza night pretty much every week",
        "The family usually has pizza night on Fridays.",
        "The family always has pizza night on Fridays.",
    ),
    "framing: an adverb of degree and an inflected light verb": (
        "jun gets carsick on long drives so pls plan stops every hour or so",
        "Jun gets car sick on long drives, so plan a stop roughly every hour.",
        "Jun gets car sick on long drives, so plan a stop roughly every two hours.",
    ),
    "number: two occasions a day are twice a day (Sharma, s03)": (
        "he also takes metformin, one after breakfast and one after dinner. sometimes he forgets the night one",
        "Dadaji takes metformin twice a day, one after breakfast and one after dinner.",
        "Dadaji takes metformin three times a day, one after breakfast and one after dinner.",
    ),
    "negation kept: not drinking is not drinking alcohol": (
        "torvald doesn't drink, so no wine with dinner when we host",
        "Torvald doesn't drink alcohol, so no wine with dinner when the family hosts.",
        "Torvald drinks, so there is wine with dinner when the family hosts.",
    ),
    "negation kept: won't is refuses": (
        "nana won't get in a lift since she got stuck in one",
        "Her grandmother refuses to get in a lift since she got stuck in one.",
        "Her grandmother refuses to use the stairs since she got stuck on them.",
    ),
    "negation kept: not a fan of is dislikes": (
        "hemi's not a fan of anything spicy, keep his food plain",
        "Hemi dislikes spicy food, so his food should be kept plain.",
        "Hemi loves spicy food, so his food should be kept plain.",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_faithful_rewording_is_accepted_and_its_contrast_refused(case: str) -> None:
    turn, faithful, contrast = CASES[case]
    assert problems(faithful, turn) == []
    assert problems(contrast, turn), contrast


def test_an_earlier_days_wording_is_no_typo_of_another_day() -> None:
    assert paraphrase.typo("thrusdays", "thursdays") and paraphrase.typo("febuary", "february")
    assert not paraphrase.typo("tuesdays", "thursdays") and not paraphrase.typo("june", "july")
    assert not paraphrase.typo("mondays", "sundays")
    assert paraphrase.damerau_levenshtein("wendesday", "wednesday") == 1


def test_a_compound_needs_a_part_the_turn_says() -> None:
    held = {"day", "pick", "drop", "fish"}.__contains__
    generic = {"time"}.__contains__
    assert paraphrase.compound_parts("daytime", held, generic)
    assert paraphrase.compound_parts("pickup", held, generic)
    assert paraphrase.compound_parts("drop-off", held, generic)
    assert not paraphrase.compound_parts("bedtime", held, generic)  # "bed" is not said
    assert not paraphrase.compound_parts("shellfish", held, generic)  # "shell" is not said


def test_a_restated_word_pays_for_no_invented_one() -> None:
    # "saving" is restated by "putting money aside": it cannot also pay for "kitchen" and "car".
    turn = "we're saving for a new car"
    assert problems("The family is putting money aside for a new car.", turn) == []
    assert problems("The family is putting money aside for a new kitchen and a holiday.", turn)


def test_a_value_word_is_never_a_paraphrase() -> None:
    turn = "chiamaka got into the county orchestra!! she plays the viola"
    assert problems("Chiamaka was accepted into the county orchestra, where she plays the viola.", turn) == []
    assert problems("Chiamaka was accepted into the county orchestra, where she plays the cello.", turn)
    # A pronoun says a person's sex; nothing else in the turn does.
    assert problems("Finn is a boy in Maisie's year.", "his name is finn, he's in my year", writer="Maisie") == []
    assert problems("Mele is expecting a baby girl, due in April.", "mele's expecting!! due in april")


def test_an_opposite_value_is_refused() -> None:
    assert problems("School drop-off is now at 3:20.", "pick-up's at 3:20 now, the school changed it")
    assert problems("School pickup is now at 3:20.", "pick-up's at 3:20 now, the school changed it") == []
