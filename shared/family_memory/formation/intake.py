"""Session-end intake: a finished conversation is validated and stored once.

``sessions/{session_id}.json`` is immutable. Receiving the same session again
with the same content is a no-op; the same id with different content is a
ConflictError. A transcript that fails validation is refused whole, with an
error naming the turn and the rule, and nothing is stored; so is one dated
in the future (``started_at`` or a turn's ``at`` more than 10 minutes ahead of
the clock). A family seen for the first time gets a ``family.json`` made from
the transcript (its time zone, and a member for each user turn's member id).
An existing one keeps its settings (its time zone stays, even when the
transcript names another) and only gains members: a user-turn speaker it does
not know yet is added (conditional replace on the revision read), so a member
who first speaks in a later session can be named by the card. Nobody is ever
removed or renamed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from family_memory.domain.errors import AlreadyExistsError, ConflictError, InvalidInputError
from family_memory.domain.family import FamilySettings, Member
from family_memory.domain.layout import FAMILY_SETTINGS, session_path
from family_memory.domain.okf import serialise_json
from family_memory.domain.transcript import Role, Transcript, check_not_ahead, parse_transcript
from family_memory.families import add_speakers
from family_memory.ports.store import Store


@dataclass(frozen=True)
class IntakeResult:
    transcript: Transcript
    stored: bool  # False when the same session was already there
    family_created: bool


def speakers(transcript: Transcript) -> list[str]:
    """The member ids of the user turns, in order of first appearance."""
    return list(dict.fromkeys(t.member_id for t in transcript.turns if t.role is Role.USER and t.member_id))


def family_from_transcript(transcript: Transcript) -> FamilySettings:
    """Settings for a family seen for the first time: the session's time zone, its speakers as members."""
    members = [Member(id=member_id, name=member_id) for member_id in speakers(transcript)]
    return FamilySettings(family_id=transcript.family_id, time_zone=transcript.time_zone, members=members)


def ensure_family(store: Store, transcript: Transcript) -> bool:
    """Create ``family.json`` from the transcript when there is none (True if it was created);
    otherwise add the speakers it does not know yet, keeping everything else as it is."""
    if not store.exists(transcript.family_id, FAMILY_SETTINGS):
        try:
            store.create(transcript.family_id, FAMILY_SETTINGS, serialise_json(family_from_transcript(transcript)))
        except AlreadyExistsError:
            pass  # another writer made it first; theirs stands (and gains our speakers below)
        else:
            return True
    add_speakers(store, transcript.family_id, speakers(transcript))
    return False


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


def read_transcript(data: bytes, *, now: datetime, family_id: str | None = None) -> Transcript:
    """``data`` as a transcript fit to store: valid, for ``family_id`` when the caller names
    one (an API route), and not dated after ``now`` (plus 10 minutes of clock skew)."""
    transcript = parse_transcript(data)
    if family_id is not None and family_id != transcript.family_id:
        raise InvalidInputError(f"family_id: the transcript is for family {transcript.family_id}, not {family_id}")
    check_not_ahead(transcript, now)
    return transcript


def receive_transcript(store: Store, data: bytes, *, now: datetime, family_id: str | None = None) -> IntakeResult:
    """Validate ``data`` and store it at ``sessions/{session_id}.json`` (once).

    ``now`` is the service's clock: a session dated more than 10 minutes after it
    is refused. ``family_id``, when the caller knows whose session this is (an API
    route), must match the transcript's."""
    transcript = read_transcript(data, now=now, family_id=family_id)
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
