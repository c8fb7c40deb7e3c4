"""Faithful summaries of other Englishes and code-switched talk the support check used to
refuse, each class beside a near miss it must still refuse (formation/support.py,
formation/foreign_words.py rule 4, formation/paraphrase.py): Scots negation ("nae", "cannae"),
Hindi frequency and scope words ("roz", "har", "saare", "kabhi ... mat"), a negation said after
what it negates ("pasand nahi"), "only" after a negated list, clock times in words ("twenty past
10"), a dialect word glossed ("packed lunch (piece)"), a day of the year without its year, a
recurring change said in the past tense, a nickname on file, an "-ing" form of a short verb;
Portuguese weekdays, times and dates ("toda terça e quinta às 15h30", "dia 9 de outubro"), a
question tag ("sabia?"), a question corrected at once, an emoji that ends a clause."""

from __future__ import annotations

from datetime import date

import pytest

from family_memory.formation import foreign_words
from family_memory.formation.support import Claim, SpokenTurn, check_support

NAMES = ("Ailsa Boyd", "Ruaridh Boyd", "Nisha Rao", "Karthik Rao")


def verdict(
    summary: str,
    turn: str,
    *,
    said_on: date = date(2026, 9, 28),
    aliases: tuple[tuple[str, str], ...] = (),
    known: tuple[str, ...] = (),
    writer: str = "Ailsa Boyd",
) -> list[str]:
    claim = Claim(
        summary=summary,
        quotes=(turn,),
        names=tuple(n for n in NAMES if n.split()[0] in summary),
        known_names=(*NAMES, *known),
        aliases=aliases,
    )
    return check_support(claim, [SpokenTurn("user", turn, (writer,), quoted=True)], said_on).problems


FAITHFUL = [
    # Scots negation: "nae" before a noun, "-nae" verbs.
    ("Ruaridh can have no fizzy juice after 6.", "ruaridh's to have nae fizzy juice after 6, he's up all night"),
    ("Ailsa cannot do the school run on Mondays.", "I cannae do the school run on mondays"),
    ("Ruaridh does not eat mushrooms.", "ruaridh disnae eat mushrooms"),
    # Hindi/Urdu frequency and scope words.
    ("Karthik walks the dog every morning.", "karthik roz subah dog ko walk karata hai"),
    ("The rent goes out on the 3rd of every month.", "rent har mahine 3 tareekh ko jaata hai"),
    ("Send all of Nisha's school updates to Karthik.", "nisha ke saare school updates karthik ko bhejna"),
    ("Never give Nisha cold drinks at night.", "nisha ko raat ko kabhi cold drink mat dena"),
    ("Nisha does not like okra at all.", "nisha ko bhindi bilkul pasand nahi, okra bhi nahi"),
    ("Karthik has yoga every evening at 6.", "karthik ka yoga roz shaam 6 baje hai"),
    # "only" after a list under "no" is what is left, not more of what was ruled out.
    (
        "On fast days Nisha's gran has no rice and no wheat, only fruit and milk.",
        "fast days pe no rice, no wheat. sirf fruit and milk",
    ),
    # Clock times in words.
    ("Ruaridh's dentist appointment is at 10:20 am.", "ruaridh's dentist is twenty past 10"),
    ("The bus goes at 7:50.", "the bus goes at ten to 8"),
    # A dialect word glossed by what it means.
    ("Ruaridh needs a packed lunch (piece) on Fridays.", "ruaridh needs his piece on fridays, no school dinners"),
    # A change of schedule said in the past tense is still a schedule.
    (
        "Ailsa is now paid monthly, on the last Friday of the month.",
        "ailsa's work has went to monthly pay, last friday of the month",
    ),
    # "-ing" of a short verb: "owing" is "owe".
    ("Ailsa still owes the garage £120.", "I'm still owing the garage £120"),
    # Being somewhere for a time is spending it there.
    ("The family is spending New Year at Auntie Jean's.", "new year we're at auntie jean's, staying over"),
    # Portuguese: short weekdays, "toda", "15h30", "dia 9 de outubro", glosses with accents.
    ("Nisha's gran picks her up every Tuesday and Thursday at 15:30.", "eu busco a nisha toda terça e quinta às 15h30"),
    ("Nisha has swimming (natação) every Monday.", "nisha tem natação toda segunda"),
    ("Nisha's school trip is on Friday, October 9, 2026.", "a visita de estudo da nisha é dia 9 de outubro"),
    ("Leonor is Nisha's best friend (melhor amiga).", "a minha melhor amiga é a leonor"),
    ("One cake must be made without egg (sem ovo) for Nisha.", "tem que fazer uma sem ovo pra nisha"),
    ("Christmas Eve dinner is at home on December 24.", "no natal a ceia é na noite do dia 24 aqui em casa"),
    # A question tag is no question; a question the speaker corrects at once is a slip.
    ("Dona Graça is Nisha's godmother.", "e a dona graça é madrinha da nisha, sabia?"),
    (
        "Ruaridh has swimming every Wednesday at 17:30.",
        "ruaridh has swimming every wednesday at 17:30? no sorry, 17:45",
    ),
    # An allergy said as "can't have": "allergic to egg" keeps its polarity off the comparison.
    ("Ruaridh is allergic to egg and can't have it.", "ruaridh can't have egg, he's allergic"),
    ("No screens at the table for anyone.", "also nothing with a screen at the table, that goes for grown ups too"),
    ("Ruaridh is dropped off at nursery at 8:45.", "ruaridh gets dropped at nursery at 8:45"),
    ("The dog must never have grapes.", "our dog can't have grapes, the vet was clear"),
    ("Karthik has type 1 diabetes and an insulin pump.", "karthik has type 1 diabetes. he's got an omnipod pump"),
    # An emoji ends a clause: the next one is the writer's own.
    (
        "Nobody comes over unless Ailsa or Ruaridh is home.",
        "karthik tried it yesterday 🙄 nobody comes over unless me or ruaridh is home",
    ),
    ("Thanksgiving is on Thursday, November 26, 2026, at 2 pm.", "thanksgiving is at my mom's, thursday 26th at 2"),
]

REFUSED = [
    ("Ruaridh can have fizzy juice after 6.", "ruaridh's to have nae fizzy juice after 6, he's up all night"),
    ("Ailsa can do the school run on Mondays.", "I cannae do the school run on mondays"),
    ("Karthik walks the dog every evening.", "karthik roz subah dog ko walk karata hai"),
    ("The rent goes out on the 3rd of every week.", "rent har mahine 3 tareekh ko jaata hai"),
    ("Never give Nisha cold drinks at night.", "nisha ko raat ko cold drink thoda hi dena"),
    ("Karthik has yoga every morning at 6.", "karthik ka yoga roz shaam 6 baje hai"),
    ("Ruaridh's dentist appointment is at 10:40 am.", "ruaridh's dentist is twenty past 10"),
    ("The bus goes at 8:10.", "the bus goes at ten to 8"),
    ("Ruaridh needs a packed lunch (piece) on Mondays.", "ruaridh needs his piece on fridays, no school dinners"),
    ("Ailsa still owes the garage £210.", "I'm still owing the garage £120"),
    ("The family is spending Christmas at Auntie Jean's.", "new year we're at auntie jean's, staying over"),
    ("Nisha's gran picks her up every Tuesday and Friday at 15:30.", "eu busco a nisha toda terça e quinta às 15h30"),
    ("Nisha's gran picks her up every Tuesday and Thursday at 16:30.", "eu busco a nisha toda terça e quinta às 15h30"),
    ("Nisha's school trip is on Friday, October 16, 2026.", "a visita de estudo da nisha é dia 9 de outubro"),
    ("Two cakes must be made without egg (sem ovo) for Nisha.", "tem que fazer uma sem ovo pra nisha"),
    ("Dona Graça is Leonor's godmother.", "e a dona graça é madrinha da nisha, sabia?"),
    ("Ruaridh is allergic to egg.", "ruaridh isn't allergic to egg"),
    ("Screens are fine at the table.", "also nothing with a screen at the table, that goes for grown ups too"),
    ("The dog must never have grapes.", "our dog can't have grapes today, the vet was clear"),
    ("Thanksgiving is on Thursday, November 19, 2026, at 2 pm.", "thanksgiving is at my mom's, thursday 26th at 2"),
]


@pytest.mark.parametrize(("summary", "turn"), FAITHFUL)
def test_a_faithful_summary_is_accepted(summary: str, turn: str) -> None:
    assert verdict(summary, turn) == []


@pytest.mark.parametrize(("summary", "turn"), REFUSED)
def test_its_near_miss_is_still_refused(summary: str, turn: str) -> None:
    assert verdict(summary, turn) != []


def test_a_nickname_on_file_is_the_person() -> None:
    turn = "kitty got the job in leeds, she starts on the 4th of january"
    summary = "Katherine got the job in Leeds and starts on January 4, 2027."
    known = ("Katherine Boyd", "Kitty")
    assert verdict(summary, turn, known=known, aliases=(("Kitty", "Katherine Boyd"),)) == []
    # Without the alias the turn speaks of someone else.
    assert verdict(summary, turn, known=known) != []


def test_a_day_of_the_year_without_its_year_is_the_one_just_past() -> None:
    turn = "my birthday was on monday the 9th, I got a bike"
    on = date(2026, 11, 12)
    assert verdict("Ruaridh's birthday is on November 9.", turn, writer="Ruaridh Boyd", said_on=on) == []
    assert verdict("Ruaridh's birthday is on November 10.", turn, writer="Ruaridh Boyd", said_on=on) != []


def test_frequency_words_are_lent_only_where_the_family_says_them() -> None:
    assert "every" in foreign_words.english_words("roz subah")
    assert "never" in foreign_words.english_words("kabhi bhi chikki mat daalna")
    assert "never" not in foreign_words.english_words("kabhi kabhi chikki deti hoon")  # sometimes
    assert "every" not in foreign_words.english_words("is mahine rent late hai")  # this month
    assert foreign_words.english_words("tom and sam") == []


def test_a_yes_in_another_language_takes_up_what_the_turn_before_said() -> None:
    notice = "Sports Day is on Friday 12 June at 9:30 am. Year 3 will run the relay; bring a white T-shirt."

    def support(reply: str, summary: str) -> list[str]:
        claim = Claim(summary=summary, quotes=(reply,), names=("Nisha Rao",), known_names=NAMES)
        turns = [SpokenTurn("tool", notice, ()), SpokenTurn("user", reply, ("Karthik Rao",), quoted=True)]
        return check_support(claim, turns, date(2026, 6, 1)).problems

    summary = "Nisha is running the relay with Year 3 at Sports Day on Friday, June 12, 2026, at 9:30 am."
    assert support("haan nisha ka hai, white t-shirt ready hai", summary) == []
    assert support("aye that's nisha's, she's buzzing", summary) == []
    # No yes, or a no: the notice's details are not the family's.
    assert support("nahi, nisha ka nahi hai", summary) != []
    assert support("nisha has a dentist thing that day", summary) != []
