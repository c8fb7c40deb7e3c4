"""The session's one-line summary (the brief's "last conversation").

Bedrock writes one in its tool call. When an extractor does not (the offline
rules, supplied candidates without one, a model that left it out), it is
derived here, deterministically: from what was accepted, or else from the
first thing a family member said.
"""

from __future__ import annotations

from collections.abc import Sequence

from family_memory.domain.family import FamilySettings
from family_memory.domain.transcript import Role, Transcript
from family_memory.formation.candidate import Candidate
from family_memory.formation.document import SUMMARY_MAX, one_line


def _speakers(transcript: Transcript, family: FamilySettings) -> list[str]:
    names: list[str] = []
    for turn in transcript.turns:
        if turn.role is Role.USER and turn.member_id:
            member = family.member(turn.member_id)
            name = member.name.split()[0] if member else turn.member_id
            if name not in names:
                names.append(name)
    return names


def derive_summary(transcript: Transcript, family: FamilySettings, accepted: Sequence[Candidate]) -> str:
    """``Lucía talked about: Maya's allergy to peanuts; Pizza night; …`` (at most 200 characters)."""
    speakers = _speakers(transcript, family)
    who = " and ".join(speakers[:3]) if speakers else "The family"
    if accepted:
        topics: list[str] = []
        for candidate in accepted:
            if candidate.about not in topics:
                topics.append(candidate.about)
        return one_line(f"{who} talked about: {'; '.join(topics)}.", SUMMARY_MAX)
    first = next((t.text for t in transcript.turns if t.role is Role.USER), None)
    if first is None:
        return one_line("A session with no messages from the family.", SUMMARY_MAX)
    return one_line(f"{who} said: {first}", SUMMARY_MAX)
