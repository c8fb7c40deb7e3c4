"""The session's one-line summary (the brief's "last conversation").

The brief shows it in every member's chat, so it is built to leak nothing:
it is derived here, deterministically, only from the *accepted* candidates
that are not sensitive (health, finances, minors) and that the family's own
state does not keep out (``kept_out``: a forget rule suppresses it, or it is
about a child the family has told us of), naming their subjects (``about``).
A claim about someone this very session calls a child ("my daughter Maya")
is kept out too, even before that entity is on file. The summary never
quotes what anyone wrote, and a summary an extractor proposes (a model's own
line) is never used: free text cannot be checked for what it reveals. A
session where nothing remains has no summary (the empty string), so the
brief shows no last-conversation line for it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from family_memory.domain.family import FamilySettings
from family_memory.domain.memory import Sensitivity
from family_memory.domain.text import normalise_for_match
from family_memory.domain.transcript import Role, Transcript
from family_memory.formation.candidate import Candidate
from family_memory.formation.document import SUMMARY_MAX, one_line
from family_memory.formation.relations import is_child_relation

#: Whether the family's own state keeps a claim out of the summary (a forget rule, a known child).
KeptOut = Callable[[Candidate], bool]


def _speakers(transcript: Transcript, family: FamilySettings) -> list[str]:
    names: list[str] = []
    for turn in transcript.turns:
        if turn.role is Role.USER and turn.member_id:
            member = family.member(turn.member_id)
            name = member.name.split()[0] if member else turn.member_id
            if name not in names:
                names.append(name)
    return names


def _children_named(accepted: Sequence[Candidate]) -> set[str]:
    """Every name this session gives someone it calls a child ("my daughter Maya": maya, my daughter)."""
    names: set[str] = set()
    for candidate in accepted:
        for hint in candidate.entities:
            if is_child_relation(hint.relationship):
                names.update(normalise_for_match(n) for n in (hint.name, *hint.aliases))
    return names


def derive_summary(
    transcript: Transcript,
    family: FamilySettings,
    accepted: Sequence[Candidate],
    kept_out: KeptOut = lambda _: False,
) -> str:
    """``Lucía talked about: Pizza night; Never book flights before 7am.`` (at most 200
    characters), from the shareable accepted claims; ``""`` when there are none."""
    children = _children_named(accepted)
    topics: list[str] = []
    for candidate in accepted:
        if candidate.sensitivity is not Sensitivity.NORMAL or kept_out(candidate):
            continue
        names = {normalise_for_match(n) for n in candidate.subject_names()}
        names |= {normalise_for_match(h.name) for h in candidate.entities}
        if names & children:
            continue
        if candidate.about not in topics:
            topics.append(candidate.about)
    if not topics:
        return ""
    speakers = _speakers(transcript, family)
    who = " and ".join(speakers[:3]) if speakers else "The family"
    return one_line(f"{who} talked about: {'; '.join(topics)}.", SUMMARY_MAX)
