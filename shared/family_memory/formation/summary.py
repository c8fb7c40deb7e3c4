"""The session's one-line summary (the brief's "last conversation").

The brief shows it in every member's chat, so it is built to leak nothing:
it is derived here, deterministically, only from the *accepted* candidates
that are not sensitive (health, finances, minors) and that no forget rule of
the family suppresses, naming their subjects (``about``). It never quotes
what anyone wrote, and a summary an extractor proposes (a model's own line)
is never used: free text cannot be checked for what it reveals. A session
where nothing remains has no summary (the empty string), so the brief shows
no last-conversation line for it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from family_memory.domain.family import FamilySettings
from family_memory.domain.memory import Sensitivity
from family_memory.domain.transcript import Role, Transcript
from family_memory.formation.candidate import Candidate
from family_memory.formation.document import SUMMARY_MAX, one_line

Suppressed = Callable[[Candidate], bool]


def _speakers(transcript: Transcript, family: FamilySettings) -> list[str]:
    names: list[str] = []
    for turn in transcript.turns:
        if turn.role is Role.USER and turn.member_id:
            member = family.member(turn.member_id)
            name = member.name.split()[0] if member else turn.member_id
            if name not in names:
                names.append(name)
    return names


def shareable(candidate: Candidate, suppressed: Suppressed) -> bool:
    """Whether a claim's subject may appear in the summary: not sensitive, not forgotten."""
    return candidate.sensitivity is Sensitivity.NORMAL and not suppressed(candidate)


def derive_summary(
    transcript: Transcript,
    family: FamilySettings,
    accepted: Sequence[Candidate],
    suppressed: Suppressed = lambda _: False,
) -> str:
    """``Lucía talked about: Thai food (the family); Never book flights before 7am.`` (at most
    200 characters), from the shareable accepted claims; ``""`` when there are none."""
    topics: list[str] = []
    for candidate in accepted:
        if shareable(candidate, suppressed) and candidate.about not in topics:
            topics.append(candidate.about)
    if not topics:
        return ""
    speakers = _speakers(transcript, family)
    who = " and ".join(speakers[:3]) if speakers else "The family"
    return one_line(f"{who} talked about: {'; '.join(topics)}.", SUMMARY_MAX)
