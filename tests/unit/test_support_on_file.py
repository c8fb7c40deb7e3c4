"""The support check reads what the family's current memories say as said before (issue 10 §2):
a name or a time a careful summary takes from an earlier conversation is not an invention, and
a forgotten, superseded or expired memory lends nothing (formation/service.py claims_on_file)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from factories import memory
from family_memory.adapters.local.directory_store import DirectoryStore
from family_memory.domain.ids import new_ulid
from family_memory.domain.layout import memory_path
from family_memory.domain.memory import Status
from family_memory.domain.okf import serialise_memory
from family_memory.formation.document import Limits
from family_memory.formation.service import claims_on_file
from family_memory.formation.support import Claim, SpokenTurn, check_support
from family_memory.formation.validation import validate_proposals
from formation_helpers import FAMILY, candidate, family, transcript

TURN = "on ashtami she doesn't eat green vegetables either, on top of the usual no onion no garlic"
JAIN = candidate(
    type="constraint",
    about="Lucía's fasting days",
    summary="On Ashtami Lucía does not eat green vegetables either, on top of her usual Jain rules.",
    authority="user_explicit",
    confidence=0.9,
    evidence=[{"turns": [1], "quote": TURN}],
)


def accepted(on_file: list[str]) -> bool:
    said = transcript([("user", "marco", TURN)])
    [entry] = validate_proposals(said, family(), [JAIN], Limits(), (), on_file)
    return entry.accepted


def test_a_name_the_familys_memories_hold_is_no_invention() -> None:
    assert not accepted([])  # "Jain" is said in no turn of this conversation
    assert accepted(["Lucía is Jain: no onion, no garlic, no root vegetables."])
    # A memory that does not hold the word lends nothing.
    assert not accepted(["Lucía is vegetarian and eats no eggs."])


def test_same_time_takes_the_time_on_file_for_the_same_thing() -> None:
    said = transcript([("user", "marco", "maya's choir moved to wednesdays, same time")])
    moved = candidate(
        type="fact",
        about="Maya's choir practice",
        summary="Maya's choir practice is now on Wednesdays at 7 pm.",
        authority="user_explicit",
        confidence=0.9,
        evidence=[{"turns": [1], "quote": "maya's choir moved to wednesdays, same time"}],
    )
    [refused] = validate_proposals(said, family(), [moved], Limits())
    assert not refused.accepted
    [entry] = validate_proposals(
        said, family(), [moved], Limits(), (), ["Maya has choir practice on Thursdays at 7 pm."]
    )
    assert entry.accepted, [r.message for r in entry.reasons]


def test_only_current_memories_are_on_file(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path / "bundle")
    kept = {
        Status.ACTIVE: "Lucía is Jain.",
        Status.DORMANT: "Marco supports Aston Villa.",
        Status.RETRACTED: "Maya wets the bed.",  # forgotten: lends nothing
        Status.SUPERSEDED: "Choir is on Thursdays.",
        Status.EXPIRED: "The plumber comes on Friday.",
    }
    for status, summary in kept.items():
        extra = {"superseded_by": new_ulid()} if status is Status.SUPERSEDED else {}
        m = memory(summary=summary, status=status, **extra)
        store.create(FAMILY, memory_path(m.id), serialise_memory(m))
    store.create(FAMILY, "memories/not-a-memory.md", b"---\nbroken")
    assert sorted(claims_on_file(store, FAMILY)) == ["Lucía is Jain.", "Marco supports Aston Villa."]


def _problems(summary: str, turn: str, names: tuple[str, ...], before: str, said_on: date) -> list[str]:
    claim = Claim(summary=summary, quotes=(turn,), names=names)
    return check_support(
        claim, [SpokenTurn("user", turn, ("Priya",), quoted=True)], said_on, family_text=before
    ).problems


MATCH = "kabir has a match tmrw at 8 at deccan instead of practice"
CRICKET_MATCH = "Kabir has a cricket match on Sunday, March 1, 2026, at 8 am at Deccan instead of practice."


def test_a_detail_the_family_gave_before_of_the_same_person_is_no_invention() -> None:
    saturday = date(2026, 2, 28)
    on_file = "Kabir has cricket every Saturday and Sunday at 7 in the morning."
    assert _problems(CRICKET_MATCH, MATCH, ("Kabir",), on_file, saturday) == []
    assert _problems(CRICKET_MATCH, MATCH, ("Kabir",), "", saturday)  # said nowhere
    # Said of someone else: no.
    assert _problems(CRICKET_MATCH, MATCH, ("Kabir",), "Ananya has cricket on Saturdays.", saturday)


def test_a_word_said_before_never_replaces_a_word_of_the_turn() -> None:
    before = "Noor loves peanut butter. Noor has swimming with Coach Ren on Fridays."
    # "tree nuts" said now is not "peanuts" said before (a value) ...
    assert _problems(
        "Noor is allergic to peanuts.", "noor's allergic to tree nuts", ("Noor",), before, date(2026, 5, 4)
    )
    # ... and a word said before adds to the turn, it does not stand in for one it drops.
    before = "Noor has swimming practice on Fridays."
    day = date(2026, 5, 4)
    assert (
        _problems("Noor has a swimming lesson on Saturday.", "noor has a lesson on saturday", ("Noor",), before, day)
        == []
    )
    assert _problems("Noor has swimming practice on Saturday.", "noor has violin on saturday", ("Noor",), before, day)


def test_an_age_the_family_gave_before_holds_for_a_birthday() -> None:
    turn = "her birthday party is saturday the 25th at 3:30, at the house"
    party = "Rosalie's third birthday party is on Saturday, April 25, 2026, at 3:30 pm at home."
    day = date(2026, 4, 20)
    assert _problems(party, turn, ("Rosalie",), "Rosalie's birthday is April 22; she turns 3 in 2026.", day) == []
    assert _problems(party, turn, ("Rosalie",), "Rosalie's birthday is April 22; she turns 4 in 2026.", day)
    assert _problems(party, turn, ("Rosalie",), "Omar turns 3 in April.", day)
