"""Session-end intake: a finished conversation is validated and stored once.

``sessions/{session_id}.json`` is immutable. Receiving the same session again
with the same content is a no-op; the same id with different content is a
ConflictError. A transcript that fails validation is refused whole, with an
error naming the turn and the rule, and nothing is stored. A family seen for
the first time gets a ``family.json`` made from the transcript (its time zone,
and a member for each user turn's member id); an existing one is never
overwritten.
"""

from __future__ import annotations

from dataclasses import dataclass

from family_memory.domain.errors import AlreadyExistsError, ConflictError, InvalidInputError
from family_memory.domain.family import FamilySettings, Member
from family_memory.domain.layout import FAMILY_SETTINGS, session_path
from family_memory.domain.okf import serialise_json
from family_memory.domain.transcript import Role, Transcript, parse_transcript
from family_memory.ports.store import Store


@dataclass(frozen=True)
class IntakeResult:
    transcript: Transcript
    stored: bool  # False when the same session was already there
    family_created: bool


def family_from_transcript(transcript: Transcript) -> FamilySettings:
    """Settings for a family seen for the first time: the session's time zone, its speakers as members."""
    members: list[Member] = []
    for turn in transcript.turns:
        if turn.role is Role.USER and turn.member_id and all(m.id != turn.member_id for m in members):
            members.append(Member(id=turn.member_id, name=turn.member_id))
    return FamilySettings(family_id=transcript.family_id, time_zone=transcript.time_zone, members=members)


def ensure_family(store: Store, transcript: Transcript) -> bool:
    """Create ``family.json`` from the transcript when there is none; True if it was created."""
    if store.exists(transcript.family_id, FAMILY_SETTINGS):
        return False
    try:
        store.create(transcript.family_id, FAMILY_SETTINGS, serialise_json(family_from_transcript(transcript)))
    except AlreadyExistsError:
        return False  # another writer made it first; theirs stands
    return True


def check_not_conflicting(store: Store, transcript: Transcript) -> bool:
    """True if this session is already stored with the same content; ConflictError if with different content."""
    existing = store.read_optional(transcript.family_id, session_path(transcript.session_id))
    if existing is None:
        return False
    stored = parse_transcript(existing.data, f"stored session {transcript.session_id}")
    if stored != transcript:
        raise ConflictError(
            f"session {transcript.session_id} of family {transcript.family_id} is already stored with different "
            "content; sessions are immutable (use a new session id)"
        )
    return True


def receive_transcript(store: Store, data: bytes, *, family_id: str | None = None) -> IntakeResult:
    """Validate ``data`` and store it at ``sessions/{session_id}.json`` (once).

    ``family_id``, when the caller knows whose session this is (an API route),
    must match the transcript's."""
    transcript = parse_transcript(data)
    if family_id is not None and family_id != transcript.family_id:
        raise InvalidInputError(f"family_id: the transcript is for family {transcript.family_id}, not {family_id}")
    if check_not_conflicting(store, transcript):
        return IntakeResult(transcript, stored=False, family_created=False)
    created = ensure_family(store, transcript)
    try:
        store.create(transcript.family_id, session_path(transcript.session_id), data)
    except AlreadyExistsError:
        # Someone stored it between our check and our write: same rule, same answer.
        check_not_conflicting(store, transcript)
        return IntakeResult(transcript, stored=False, family_created=created)
    return IntakeResult(transcript, stored=True, family_created=created)
