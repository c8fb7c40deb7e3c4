"""Faithful summaries the support check used to refuse, by class, each beside the near miss it
must still refuse (formation/support.py, formation/paraphrase.py): a negation of a lack or an
aversion, giving something up, a condition said in other words, a count with the period's
adverb, an amount in shorthand with its currency."""

from __future__ import annotations

from datetime import date

import pytest

from family_memory.formation.support import Claim, SpokenTurn, check_support


def verdict(summary: str, turn: str) -> list[str]:
    claim = Claim(summary=summary, quotes=(turn,))
    return check_support(claim, [SpokenTurn("user", turn, ("Karim",), quoted=True)], date(2026, 5, 20)).problems


FAITHFUL = [
    # Giving up is no longer doing: "given up", "quit", "cut out", "-free".
    ("Jonas no longer eats meat.", "jonas has given up meat"),
    ("Jonas has stopped eating meat.", "jonas has given up meat"),
    ("Dad no longer drinks alcohol.", "dad's given up alcohol"),
    ("Lena has cut out sugar.", "lena gave up sugar"),
    ("Omar is dairy-free.", "omar quit dairy"),
    ("Omar has cut dairy out because of his skin.", "omar's quit dairy because of his skin"),
    # A negated lack is a yes: "never misses", "doesn't forget".
    ("Tariq always attends Sunday football.", "tariq never misses sunday football"),
    ("Gran always comes to Ella's recitals.", "gran never misses one of ella's recitals"),
    ("Zara always takes her vitamins.", "zara never forgets her vitamins"),
    # "No longer" restated by an opposite.
    ("Noor is no longer shy.", "noor's not shy anymore"),
    ("Sam is fine with the dark now.", "sam is no longer scared of the dark"),
    ("Lily walks to school alone now.", "lily no longer needs walking to school"),
    ("Mia is allowed to use the oven.", "mia is no longer banned from using the oven"),
    # Unprompted.
    ("Kofi does his homework by himself.", "kofi does his homework without being told now"),
    # Conditions in other words.
    ("Maya may bike to school as long as she wears her helmet.", "maya can bike to school if she wears her helmet"),
    ("Theo may play video games once his chores are done.", "theo can play video games as long as his chores are done"),
    (
        "The kids may go to the park alone as long as they stay together.",
        "the kids can go to the park alone as long as they stick together",
    ),
    ("Ines may have friends over only when a parent is home.", "ines may have friends over only if a parent is home"),
    # A count with the period's adverb.
    ("Nia has tutoring twice weekly, Tuesdays and Thursdays.", "nia has tutoring twice a week (tues + thurs)"),
    ("Ravi swims three times weekly.", "ravi swims 3x a week, usually mon"),
    # Amounts in shorthand, with their currency.
    ("Wanjiru's fees are KSh 22,000 a term.", "wanjiru's fees are 22k a term"),
    ("Wanjiru's fees are KES 22,000 a term.", "wanjiru's fees are 22k bob a term"),
    ("The rent is 1.2 million naira a year.", "rent is 1.2m a year"),
    ("The rent is 1,200,000 naira a year.", "rent is 1.2 mil naira a year"),
    ("The wedding budget is 15,000 euros.", "wedding budget is 15k"),
]

FAITHFUL += [
    # "apparently" names no one: the family passes on a fact it was told.
    ("The first payment comes on Monday, May 25, 2026.", "first payment comes monday apparently"),
    # An allergen's polarity: "egg free bc of her allergy" is her egg allergy.
    (
        "Sofi is bringing egg-free cupcakes because of her egg allergy.",
        "sofi's bringing cupcakes. egg free bc of her allergy",
    ),
]

REFUSED = [
    ("Jonas eats meat.", "jonas has given up meat"),
    ("Dad drinks alcohol.", "dad's given up alcohol"),
    ("Sofia still does ballet.", "sofia no longer does ballet"),
    ("Tariq misses Sunday football.", "tariq never misses sunday football"),
    ("Tariq often misses Sunday football.", "tariq never misses sunday football"),
    ("Sam is scared of the dark.", "sam isn't scared of the dark anymore"),
    ("Omar eats dairy.", "omar quit dairy"),
    ("The kids go to the park alone.", "the kids can go to the park alone as long as they stick together"),
    ("Nia has tutoring three times weekly.", "nia has tutoring twice a week (tues + thurs)"),
    ("Ravi swims four times a week, usually on Mondays.", "ravi swims 3x a week, usually mon"),
    ("Theo may play video games once a week.", "theo can play video games as long as his chores are done"),
    ("Wanjiru's fees are KSh 25,000 a term.", "wanjiru's fees are 22k a term"),
    ("Wanjiru's fees are $22,000 a term.", "wanjiru's fees are 22k bob a term"),
    ("The rent is 12 million naira a year.", "rent is 1.2m a year"),
    ("Ayla's grandmother refuses to use stairs.", "nana won't get in a lift since she got stuck in one"),
    # ... but a permission does not stand on "apparently", and an allergen is not what she may eat.
    ("The kids may skip chores this week.", "apparently the kids can skip chores this week"),
    ("Sofi is not allergic to eggs.", "sofi is allergic to eggs"),
    ("Sofi is allergic to eggs.", "sofi isn't allergic to eggs"),
]


@pytest.mark.parametrize(("summary", "turn"), FAITHFUL)
def test_a_faithful_summary_is_accepted(summary: str, turn: str) -> None:
    assert verdict(summary, turn) == []


@pytest.mark.parametrize(("summary", "turn"), REFUSED)
def test_its_near_miss_is_still_refused(summary: str, turn: str) -> None:
    assert verdict(summary, turn) != []
