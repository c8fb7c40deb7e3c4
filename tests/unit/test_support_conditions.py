"""The support check's condition classes (formation/conditions.py): a dropped condition, an
ended state stated as current, a swapped pair, an assistant's proposal the family did not take
up. Each class has near misses that must be refused and faithful summaries that must pass, in
several phrasings (not those of eval/calibration/support.yaml)."""

from __future__ import annotations

from datetime import date

import pytest

from family_memory.formation import conditions
from family_memory.formation.support import Claim, SpokenTurn, check_support

KNOWN = ("Ama", "Kofi", "Jun", "Kai", "Ayo", "Tobi", "Rosa", "Ben", "Lena", "Max", "Noor", "Sami", "Yara", "Femi")


def problems(summary: str, turn: str, quote: str | None = None, *, names: tuple[str, ...] = ()) -> list[str]:
    claim = Claim(summary=summary, quotes=(quote or turn,), names=names, known_names=KNOWN)
    cited = [SpokenTurn("user", turn, ("Efua",), quoted=True)]
    return check_support(claim, cited, date(2026, 2, 8)).problems


def dialogue_problems(summary: str, said: list[tuple[str, str]], quoted: int, names: tuple[str, ...] = ()) -> list[str]:
    turns = [
        SpokenTurn(role, text, ("Efua",) if role == "user" else (), quoted=n == quoted)
        for n, (role, text) in enumerate(said)
    ]
    claim = Claim(summary=summary, quotes=(said[quoted][1],), names=names, known_names=KNOWN)
    return check_support(claim, turns, date(2026, 2, 8)).problems


# --- 1. dropped conditions ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("summary", "turn"),
    [
        ("Yara can have a sleepover on Saturday.", "yara can have a sleepover on saturday as long as her room is tidy"),
        (
            "Femi is allowed to take the bus alone.",
            "femi is allowed to take the bus alone provided he texts when he gets there",
        ),
        ("The dog sleeps upstairs.", "the dog sleeps upstairs unless it's been in the garden mud"),
        ("Rosa eats cheese.", "rosa eats cheese except when it's blue cheese"),
        ("We will go camping in the Peak District.", "if the forecast is dry we'll go camping in the peak district"),
        ("Ben can use the laptop for games.", "ben can use the laptop for games only if his homework is handed in"),
        ("The cousins stay over at Easter.", "the cousins stay over at easter so long as nana is well enough"),
    ],
)
def test_a_summary_that_drops_the_turns_condition_is_refused(summary: str, turn: str) -> None:
    assert any("condition" in p for p in problems(summary, turn)), problems(summary, turn)


@pytest.mark.parametrize(
    ("summary", "turn"),
    [
        # the condition kept, in other words
        (
            "Yara can have a sleepover on Saturday if her room is tidy.",
            "yara can have a sleepover on saturday as long as her room is tidy",
        ),
        (
            "The dog sleeps upstairs except when it has been in the garden mud.",
            "the dog sleeps upstairs unless it's been in the garden mud",
        ),
        ("Rosa eats cheese, but not blue cheese.", "rosa eats cheese except when it's blue cheese"),
        (
            "When the forecast is dry, the family will go camping in the Peak District.",
            "if the forecast is dry we'll go camping in the peak district",
        ),
        # the condition binds another clause
        (
            "The family is going to the zoo on Saturday.",
            "we're going to the zoo on saturday, and if it's sunny we'll picnic in the park",
        ),
        ("Ben loves trains.", "ben loves trains, he'd ride them all day if we let him"),
        # a ban without its condition is stricter, not looser
        ("Don't give Femi fizzy drinks.", "don't give femi fizzy drinks unless it's a party"),
    ],
)
def test_a_summary_that_keeps_the_condition_or_another_clauses_passes(summary: str, turn: str) -> None:
    assert not any("condition" in p for p in problems(summary, turn)), problems(summary, turn)


def test_even_if_is_a_concession_not_a_condition() -> None:
    assert (
        conditions.dropped_condition(
            "Kai walks the dog every morning.", "kai walks the dog every morning even if it snows"
        )
        is None
    )


# --- 2. ended states ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("summary", "turn"),
    [
        ("Noor takes melatonin at bedtime.", "noor stopped taking melatonin at bedtime in the autumn"),
        ("Sami needs a booster seat.", "sami no longer needs a booster seat"),
        ("Kai plays in the under-10s football team.", "kai quit the under-10s football team after christmas"),
        ("Lena naps after lunch.", "lena doesn't nap after lunch anymore"),
        ("The family shops at the Friday market.", "we used to shop at the friday market"),
        ("Max wears a brace at night.", "max isn't wearing the brace at night any more, the dentist signed him off"),
    ],
)
def test_a_state_the_turn_says_ended_stated_as_current_is_refused(summary: str, turn: str) -> None:
    assert any("ended" in p for p in problems(summary, turn)), problems(summary, turn)


@pytest.mark.parametrize(
    ("summary", "turn"),
    [
        ("Noor has stopped taking melatonin at bedtime.", "noor stopped taking melatonin at bedtime in the autumn"),
        ("Sami no longer uses a booster seat.", "sami no longer needs a booster seat"),
        ("Kai left the under-10s football team.", "kai quit the under-10s football team after christmas"),
        ("Lena has dropped her after-lunch nap.", "lena doesn't nap after lunch anymore"),
        ("The family used to shop at the Friday market.", "we used to shop at the friday market"),
        # "be used to" is being accustomed, not an ended habit
        ("Max sleeps with the window open.", "max is used to sleeping with the window open"),
    ],
)
def test_an_ended_state_kept_ended_passes(summary: str, turn: str) -> None:
    assert not any("ended" in p for p in problems(summary, turn)), problems(summary, turn)


# --- 3. swapped pairs -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("summary", "turn", "names"),
    [
        ("Kofi catches the 8:05 train.", "ama catches the 8:05 train, kofi the 8:35", ("Kofi",)),
        ("Tobi is allergic to sesame.", "sesame for ayo, shellfish for tobi", ("Tobi",)),
        ("Max plays the cello.", "lena plays the cello and max the trumpet", ("Max",)),
        ("Sami's school is Oakfield.", "noor goes to oakfield, sami to riverside", ("Sami",)),
        (
            "Rosa's bedtime is 8:30.",
            "ben goes to bed at 7:30 and rosa at 8:30... no wait ben at 8:30, rosa at 7:30",
            ("Rosa",),
        ),
        ("Ben gets £6 a week.", "rosa gets £6 a week and ben gets £4", ("Ben",)),
    ],
)
def test_a_value_swapped_to_the_other_person_is_refused(summary: str, turn: str, names: tuple[str, ...]) -> None:
    found = problems(summary, turn, names=names)
    assert found, found


@pytest.mark.parametrize(
    ("summary", "turn", "names"),
    [
        ("Kofi catches the 8:35 train.", "ama catches the 8:05 train, kofi the 8:35", ("Kofi",)),
        ("Tobi is allergic to shellfish.", "sesame for ayo, shellfish for tobi", ("Tobi",)),
        ("Max plays the trumpet.", "lena plays the cello and max the trumpet", ("Max",)),
        ("Sami goes to Riverside.", "noor goes to oakfield, sami to riverside", ("Sami",)),
        # a part that points back shares the other's value
        ("Kai has judo on Mondays.", "jun has judo on mondays and kai does too", ("Kai",)),
        ("Kai has judo on Mondays.", "jun has judo on mondays and kai goes along too", ("Kai",)),
        ("Noor walks to school.", "sami walks to school, noor walks there as well", ("Noor",)),
        # a name after "with" is company, not whose the part is
        ("Ben has piano on Thursdays.", "ben has piano on thursdays with rosa", ("Ben",)),
    ],
)
def test_a_value_given_to_its_own_person_passes(summary: str, turn: str, names: tuple[str, ...]) -> None:
    found = conditions.swapped_pair(summary, turn, KNOWN)
    assert found is None, found


# --- 4. assistant proposals -----------------------------------------------------------------

PROPOSALS = [
    # (summary, turns, quoted turn, names)
    (
        "Kai will join the Wednesday chess club.",
        [
            ("user", "kai is bored after school"),
            ("assistant", "Maybe he could join the Wednesday chess club?"),
            ("user", "thanks, anyway what's for tea"),
        ],
        0,
        ("Kai",),
    ),
    (
        "The family is spending half-term at a cottage in Cornwall.",
        [
            ("user", "no plans for half-term yet"),
            ("assistant", "How about renting a cottage in Cornwall?"),
            ("user", "ha we'll see, money's tight"),
        ],
        0,
        (),
    ),
    (
        "Yara has a tutor for maths.",
        [
            ("user", "yara's struggling with fractions"),
            ("assistant", "You could look for a tutor for maths. Would that help?"),
            ("user", "she's so tired already"),
        ],
        0,
        ("Yara",),
    ),
]


@pytest.mark.parametrize(("summary", "said", "quoted", "names"), PROPOSALS)
def test_an_assistants_proposal_the_family_did_not_take_up_is_refused(
    summary: str, said: list[tuple[str, str]], quoted: int, names: tuple[str, ...]
) -> None:
    assert conditions.proposal_not_taken(summary, said, names) is not None
    found = dialogue_problems(summary, said, quoted, names)
    assert found, found


@pytest.mark.parametrize(
    ("summary", "said", "names"),
    [
        (
            "Kai will join the Wednesday chess club.",
            [
                ("user", "kai is bored after school"),
                ("assistant", "Maybe he could join the Wednesday chess club?"),
                ("user", "yes, good idea, signing him up"),
            ],
            ("Kai",),
        ),
        (
            "The family is spending half-term at a cottage in Cornwall.",
            [
                ("user", "no plans for half-term yet"),
                ("assistant", "How about renting a cottage in Cornwall?"),
                ("user", "ooh yes, let's do it"),
            ],
            (),
        ),
        (
            # the family's own words: the assistant only repeats them
            "Yara has a maths tutor on Tuesdays.",
            [
                ("user", "yara's maths tutor comes on tuesdays"),
                ("assistant", "Would you like a reminder for the maths tutor on Tuesdays?"),
                ("user", "no thanks"),
            ],
            ("Yara",),
        ),
        (
            # the reply takes the matter up in words of its own
            "Kai's swim lesson is at 5.",
            [("assistant", "Shall I remind you about Kai's swim lesson at 4?"), ("user", "it's at 5 actually")],
            ("Kai",),
        ),
    ],
)
def test_a_proposal_taken_up_or_the_familys_own_words_pass(
    summary: str, said: list[tuple[str, str]], names: tuple[str, ...]
) -> None:
    assert conditions.proposal_not_taken(summary, said, names) is None


@pytest.mark.parametrize(
    ("summary", "turn"),
    [
        ("Kai takes the brown inhaler.", "kai stopped the blue inhaler, now he takes the brown one"),
        ("Grandma is doing much better.", "we stopped by grandma's on the way home, she's doing much better"),
        ("Noor plays the guitar.", "noor quit piano and plays the guitar now"),
    ],
)
def test_what_came_after_an_ended_state_is_not_read_as_it(summary: str, turn: str) -> None:
    assert conditions.flipped_state(summary, turn) is None


def test_kin_words_are_not_paired_values() -> None:
    turn = "me, my husband ben, our son max who's 16 and our girl rosa, she's 9"
    assert (
        conditions.swapped_pair("Ben and his wife's children are their son Max and their daughter Rosa.", turn, KNOWN)
        is None
    )
    assert (
        conditions.swapped_pair("Rosa is Ben's daughter.", "our son max and our daughter rosa, ben's a chef", KNOWN)
        is None
    )
    turn = "i live with my husband ben, our daughter rosa (9) and my dad max"
    assert conditions.swapped_pair("Rosa, 9, is Efua and Ben's daughter.", turn, KNOWN) is None


def test_a_value_taken_must_be_the_other_persons_own_word() -> None:
    # "sibling" is a sense of "brother", yet not a word the other part gives
    assert conditions.swapped_pair("Sami is Noor's sibling.", "noor's brother sami, and max is a friend", KNOWN) is None


@pytest.mark.parametrize(
    ("summary", "turn"),
    [
        ("Grandad is at bowls on Fridays.", "if you ever need to reach grandad, he's at bowls on fridays"),
        ("The spare key is under the blue pot.", "the spare key is under the blue pot in case you need it"),
    ],
)
def test_a_condition_on_the_listener_frames_advice(summary: str, turn: str) -> None:
    assert conditions.dropped_condition(summary, turn) is None


def test_one_word_shared_with_an_assistants_proposal_is_not_the_proposal() -> None:
    said = [
        ("user", "no egg at all, not even egg baked into the sponge"),
        ("assistant", "Maybe a shop-bought egg-free cake for the party?"),
        ("user", "yes, but it can't just be 'no egg on top'"),
    ]
    assert conditions.proposal_not_taken("No egg at all for him, not even baked into a cake sponge.", said, ()) is None
