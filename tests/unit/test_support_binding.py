"""The support check's binding classes (formation/binding.py): a failing and a passing case for
each, on turns of the harness families (eval/families/okafor.yaml, park.yaml, ahmed.yaml) where
one says it, and on the calibration set's wording where none does."""

from __future__ import annotations

from datetime import date

import pytest

from family_memory.formation.support import Claim, SpokenTurn, check_support

OKAFOR = ("Chidi Okafor", "Blessing Udoh", "Adaeze Okafor", "Obinna Okafor", "Kamsi Okafor", "Ada", "Nkechi", "Musa")
PARK = ("Ji-ho Park", "Min-jun Park", "Seo-yeon Park", "Do-hyun Park")


def problems(
    summary: str,
    turn: str,
    quote: str | None = None,
    *,
    names: tuple[str, ...] = (),
    known: tuple[str, ...] = OKAFOR,
    writer: str = "Chidi",
    before: tuple[str, ...] = (),
) -> list[str]:
    claim = Claim(summary=summary, quotes=(quote or turn,), names=names, known_names=known)
    context = [SpokenTurn("user", text, (writer,)) for text in before]
    cited = [SpokenTurn("user", turn, (writer,), quoted=True)]
    return check_support(claim, cited, date(2026, 2, 8), context=context).problems


# --- parallel values and qualifiers ---------------------------------------------------------

CURFEW = "omar's curfew is 10 on weekends, 9 on school nights"
ALLOWANCE = "allowance is 500 yen a week for haruto and 300 for yui"


@pytest.mark.parametrize(
    ("summary", "turn", "names"),
    [
        ("Omar's curfew is 10 pm on school nights.", CURFEW, ("Omar",)),
        ("Yui gets 500 yen a week in allowance.", ALLOWANCE, ("Haruto", "Yui")),
        (
            "The general waste bin goes out on Tuesday night.",
            "bins go out tuesday night for recycling and thursday night for general waste",
            (),
        ),
    ],
)
def test_a_value_given_the_other_parts_qualifier_is_refused(summary: str, turn: str, names: tuple[str, ...]) -> None:
    found = problems(summary, turn, names=names, known=names)
    assert any("pairs" in p for p in found), found


@pytest.mark.parametrize(
    ("summary", "turn", "names"),
    [
        ("Omar's curfew is 9 on school nights and 10 at weekends.", CURFEW, ("Omar",)),
        ("Haruto gets an allowance of 500 yen a week and Yui gets 300.", ALLOWANCE, ("Haruto", "Yui")),
        # A list of ages, each told by its own name (okafor s01).
        (
            "Chidi's children are Adaeze, who is 13, Obinna, who is 10, and Kamsi, who is 6.",
            "It's me and my three kids. Adaeze is 13, Obinna is 10 and Kamsi is 6. We're in Lekki Phase 1",
            ("Adaeze", "Obinna", "Kamsi"),
        ),
    ],
)
def test_each_value_with_its_own_qualifier_is_accepted(summary: str, turn: str, names: tuple[str, ...]) -> None:
    assert problems(summary, turn, names=names, known=(*names, *OKAFOR)) == []


# --- a part given to the other person -------------------------------------------------------

RUNS = (
    "School runs: I drop all three at 7 on my way to work. Blessing picks Obinna and Kamsi at 2:30 from "
    "Bright Stars. Adaeze takes the school bus home, she's back around 4"
)


def test_a_part_the_turn_gives_another_person_is_refused() -> None:
    # okafor s01: the pickup at 2:30 is Obinna's and Kamsi's; Adaeze takes the bus.
    assert problems("Adaeze is picked up at 2:30 from Bright Stars.", RUNS, names=("Adaeze",)) != []
    turn = "tobi does the dishes and kemi takes the bins out"
    found = problems("Kemi does the dishes.", turn, names=("Kemi",), known=("Tobi", "Kemi"))
    assert any("pairs" in p for p in found), found


def test_each_person_with_their_own_part_is_accepted() -> None:
    assert problems("Adaeze takes the school bus home and is back around 4.", RUNS, names=("Adaeze",)) == []
    assert problems("Blessing picks up Obinna and Kamsi from Bright Stars at 2:30.", RUNS, names=("Blessing",)) == []


def test_the_one_the_turn_singles_out_keeps_the_part() -> None:
    # Meron is no one the family's directory knows: the turn's "the one with" still binds her.
    kwargs = {"known": ("Liya", "Selam"), "writer": "Selam"}
    before = ("liya and her cousin meron both do ballet",)
    turn = "meron's the one with the peanut allergy, so no pb snacks at the studio"
    summary = "Liya has a peanut allergy, so no peanut butter snacks at the studio."
    found = problems(summary, turn, names=("Liya",), before=before, **kwargs)  # type: ignore[arg-type]
    assert any("alone" in p for p in found), found
    summary = "Meron has a peanut allergy, so no peanut butter snacks at the studio."
    assert problems(summary, turn, names=("Meron",), before=before, **kwargs) == []  # type: ignore[arg-type]


# --- a pronoun's referent ---------------------------------------------------------------------

NANNY = (
    "It's me and my three kids. Adaeze is 13, Obinna is 10 and Kamsi is 6. We're in Lekki Phase 1. "
    "Blessing is our nanny, she comes on weekdays"
)


def test_a_pronoun_read_as_another_person_is_refused() -> None:
    # okafor s01: "she" is Blessing, the nearest person named before it.
    found = problems("Kamsi comes on weekdays.", NANNY, "she comes on weekdays", names=("Kamsi",))
    assert any("'she' in the turn is" in p for p in found), found
    # Across turns: "she" after "riku works weekends ... and mei babysits" is Mei.
    found = problems(
        "Riku earns about 1,500 yen an hour at Tonkotsu Ya.",
        "she gets about 1,500 yen an hour for it",
        names=("Riku",),
        known=("Riku", "Mei", "Hana"),
        writer="Hana",
        before=("riku works weekends at tonkotsu ya and mei babysits for the tanakas on fridays",),
    )
    assert any("'she' in the turn is mei" in p for p in found), found


def test_a_pronoun_read_as_its_referent_is_accepted() -> None:
    summary = "Blessing, the family's nanny, comes on weekdays."
    assert problems(summary, NANNY, "Blessing is our nanny, she comes on weekdays", names=("Blessing",)) == []
    # Two people named together leave "she" to the reader: "noor and omar both need new shoes".
    assert (
        problems(
            "Noor wears shoe size 3 and Omar wears size 6.",
            "she's a 3 and he's a 6",
            names=("Noor", "Omar"),
            known=("Noor", "Omar", "Layla"),
            writer="Layla",
            before=("noor and omar both need new school shoes",),
        )
        == []
    )
    # A gender the turns give decides: "my brother andrés and his wife carmen", then "she's allergic".
    kwargs = {"known": ("Andrés", "Carmen", "Rosa", "Luna"), "writer": "Rosa"}
    before = ("my brother andrés and his wife carmen are coming for christmas",)
    turn = "she's allergic to cats so we'll have to board luna"
    assert problems("Carmen is allergic to cats.", turn, names=("Carmen",), before=before, **kwargs) == []  # type: ignore[arg-type]
    assert problems("Andrés is allergic to cats.", turn, names=("Andrés",), before=before, **kwargs) != []  # type: ignore[arg-type]


# --- invented qualifiers ----------------------------------------------------------------------

BELT = "seo-yeon made her a card with 20 cats on it. do-hyun passed his belt test btw!! he's a yellow belt now"
BELT_QUOTE = "do-hyun passed his belt test btw!! he's a yellow belt now"


def test_an_invented_rank_or_sex_is_refused() -> None:
    # park: Do-hyun passed his belt test; nothing says how well.
    found = problems(
        "Do-hyun passed his belt test with top marks and is now a yellow belt.",
        BELT,
        BELT_QUOTE,
        names=("Do-hyun",),
        known=PARK,
        writer="Ji-ho",
    )
    assert "the cited turns do not support the summary: the turns do not say top" in found or any(
        "top" in p for p in found
    ), found
    found = problems(
        "Mele is expecting a baby girl, due in April.",
        "mele's expecting!! due in april, we only told family so far",
        "mele's expecting",
        names=("Mele",),
        known=("Mele", "Sione"),
        writer="Sione",
    )
    assert any("girl" in p for p in found), found


def test_a_rank_or_sex_the_turns_say_is_accepted() -> None:
    summary = "Do-hyun passed his belt test and is now a yellow belt."
    assert problems(summary, BELT, BELT_QUOTE, names=("Do-hyun",), known=PARK, writer="Ji-ho") == []
    # "the lads" are boys; "got silver" is a silver medal's rank said.
    lads = "the lads share a room, bunk beds, cian's on top"
    assert (
        problems("The boys share a bedroom with bunk beds.", lads, "the lads share a room, bunk beds", known=()) == []
    )
    assert (
        problems(
            "Ananya got silver in the Olympiad.",
            "ananya got silver in the olympiad btw!! she's over the moon",
            names=("Ananya",),
            known=("Ananya",),
        )
        == []
    )


# --- parallel parts after a shared verb (issue 10 section 2, held-out class) ---------------------

JUDO = "they both do judo now, jun on mondays and kai on wednesdays"
HOMEWORK = "homework routine is mornings for maths, evenings for reading"
MEALS = "in our house dad does breakfast, mum does dinner"


@pytest.mark.parametrize(
    ("summary", "turn", "names"),
    [
        ("Kai does judo on Mondays.", JUDO, ("Jun", "Kai")),  # "jun" is a name here, not June
        ("Jun does judo on Wednesdays.", JUDO, ("Jun", "Kai")),
        ("Reading homework is done in the mornings.", HOMEWORK, ()),
        ("Maths homework is in the evenings.", HOMEWORK, ()),
        ("Mum makes breakfast.", MEALS, ()),
        ("Dad cooks dinner.", "dad does breakfast, mum does dinner", ()),
    ],
)
def test_a_part_of_a_parallel_after_a_shared_verb_given_to_another_part_is_refused(
    summary: str, turn: str, names: tuple[str, ...]
) -> None:
    found = problems(summary, turn, names=names, known=names)
    assert any("pairs" in p for p in found), found


@pytest.mark.parametrize(
    ("summary", "turn", "names"),
    [
        ("Kai does judo on Wednesdays.", JUDO, ("Jun", "Kai")),
        ("Jun has judo on Mondays.", JUDO, ("Jun", "Kai")),
        ("Reading homework is done in the evenings and maths in the mornings.", HOMEWORK, ()),
        ("Dad makes breakfast and Mum makes dinner.", MEALS, ()),
        ("Mum makes dinner.", MEALS, ()),
    ],
)
def test_a_part_of_a_parallel_after_a_shared_verb_kept_with_its_own_part_passes(
    summary: str, turn: str, names: tuple[str, ...]
) -> None:
    assert not problems(summary, turn, names=names, known=names)


# --- a pronoun or a relative that is not the summary's subject ------------------------------

FRIENDS = ("Andre", "Lerato", "Naledi", "Thabo", "Dmitri", "Olga", "Ciarán", "Aoife")
CROP_OVER = "my brother called last night, he say he gon come down for crop over"
EPIPEN = "lerato is allergic to peanuts, she carries an epipen. naledi is fine with them"
NIGHTS = "my wife olga started night shifts at the hospital, so mornings are quiet"
LESSONS = "my son is learning the violin, i'm learning guitar"
HIP = "my mum has a hip operation on friday, I'm driving her to the hospital"
GF = "n aoife's my gf btw. shes coeliac so if ur ever doin food for her no gluten, like proper"  # fitzgerald s02


@pytest.mark.parametrize(
    ("summary", "turn", "writer", "why"),
    [
        # the writer never calls themself "he": the plan is the brother's
        ("Andre is coming down for Crop Over.", CROP_OVER, "Andre", "'he', not andre"),
        # "she" after a clause of Lerato, with Naledi named only after it, is Lerato
        ("Naledi carries an EpiPen.", EPIPEN, "Thabo", "of lerato, not naledi"),
        # "my wife olga" by Dmitri is not Dmitri
        ("Dmitri started night shifts at the hospital.", NIGHTS, "Dmitri", "dmitri's wife, not dmitri"),
        ("Dmitri is learning the violin.", LESSONS, "Dmitri", "dmitri's son, not dmitri"),
    ],
)
def test_a_claim_the_turn_makes_of_a_pronoun_or_relative_is_refused_for_another(
    summary: str, turn: str, writer: str, why: str
) -> None:
    names = tuple(n for n in FRIENDS if n in summary)
    found = problems(summary, turn, names=names, known=FRIENDS, writer=writer)
    assert any(why in p for p in found), found


@pytest.mark.parametrize(
    ("summary", "turn", "writer"),
    [
        ("Andre's brother is coming down for Crop Over.", CROP_OVER, "Andre"),
        ("Lerato carries an EpiPen.", EPIPEN, "Thabo"),
        ("Dmitri's wife Olga started night shifts at the hospital.", NIGHTS, "Dmitri"),
        ("Dmitri's wife started night shifts at the hospital.", NIGHTS, "Dmitri"),
        ("Dmitri is learning guitar.", LESSONS, "Dmitri"),
        ("Dmitri's son is learning the violin.", LESSONS, "Dmitri"),
        # the writer's own part, the relative named in the summary: "mum" read as "mother" too
        ("Dmitri is driving his mum to her hip operation at the hospital.", HIP, "Dmitri"),
        ("Dmitri is driving his mother to the hospital for her hip operation.", HIP, "Dmitri"),
        # "she" by Ciarán is not Ciarán, and a summary about Ciarán's girlfriend is not about him
        ("Ciarán's girlfriend Aoife is coeliac, so food for her must be strictly gluten-free.", GF, "Ciarán"),
    ],
)
def test_a_claim_given_to_the_pronoun_or_relative_the_turn_means_is_accepted(
    summary: str, turn: str, writer: str
) -> None:
    names = tuple(n for n in FRIENDS if n in summary)
    assert problems(summary, turn, names=names, known=FRIENDS, writer=writer) == []
