"""Claims about the household's children are ``minors``, and children the family names are remembered.

Validation tags what it can see in one session (child words, a child member,
a child entity already on file). Reconciliation sees more: the entities a
claim's people resolve to. A claim that applies to a child entity (one whose
relationship is a child's, or a member whose role is ``child``) is raised to
``minors`` there, never lowered ("Leo loves swimming" in a later session,
after "my son Leo" in the first, stays out of the brief).

When a parent first tells us a household *member* is their child ("my
daughter Maya" said by Lucía, and Maya is a member), extraction records the
member's role as ``child`` in ``family.json`` (``families.mark_children``) so
later sessions know without the child words; reconciliation of that session
counts her as a child too. Only the first time: once Maya's entity holds the relationship,
a later mention changes nothing, so a family that sets Maya back to
``adult`` (``family-memory family set-member``) is not overruled.

Reconciliation judges as validation does (``sensitivity``): a claim is ``minors`` when it
is *about* a child, and a household-wide claim (it applies to every child of the household
and to at least two others, and neither its ``about`` nor its ``summary`` names one of
those children or uses a child word) is about the household: "no phones at dinner" for
all five Fitzgeralds is not a claim about Oisín.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence

from family_memory.domain.family import FamilySettings, MemberRole
from family_memory.domain.memory import Sensitivity
from family_memory.domain.text import normalise_for_match
from family_memory.domain.transcript import Role, Transcript
from family_memory.formation.candidate import Candidate
from family_memory.formation.entities import EntityDirectory
from family_memory.formation.relations import is_child_relation
from family_memory.formation.sensitivity import child_words, names_any

#: Subjects other than children a household-wide claim applies to, at least.
HOUSEHOLD_OTHERS_MIN = 2


def writers(candidate: Candidate, transcript: Transcript) -> set[str]:
    """The members who wrote the user turns a candidate cites."""
    found: set[str] = set()
    for item in candidate.evidence:
        for n in range(item.first, item.last + 1):
            turn = transcript.turn(n)
            if turn is not None and turn.role is Role.USER and turn.member_id:
                found.add(turn.member_id)
    return found


def children_learned(accepted: Iterable[Candidate], transcript: Transcript, directory: EntityDirectory) -> set[str]:
    """Members this session first calls someone's child ("my daughter Maya", said by someone
    other than Maya), whose role is not ``child`` yet and whose entity holds no relationship."""
    family = directory.family
    learned: set[str] = set()
    for candidate in accepted:
        for hint in candidate.entities:
            if not is_child_relation(hint.relationship):
                continue
            member = family.member(hint.member_id) if hint.member_id else None
            member = member or directory.member_called(hint.name)
            if member is None or member.role is MemberRole.CHILD or member.id in writers(candidate, transcript):
                continue
            entity = next((e for e in directory.entities.values() if e.member_id == member.id), None)
            if entity is not None and entity.relationship:
                continue  # told before: the role on file is the family's to keep
            learned.add(member.id)
    return learned


def with_children(family: FamilySettings, member_ids: Iterable[str]) -> FamilySettings:
    """``family`` with these members' role set to ``child`` (in memory)."""
    wanted = set(member_ids)
    members = [m.model_copy(update={"role": MemberRole.CHILD}) if m.id in wanted else m for m in family.members]
    return family.model_copy(update={"members": members})


def tag_minors(candidate: Candidate, entity_ids: Sequence[str], child_ids: set[str]) -> Candidate:
    """``candidate`` raised to ``minors`` when it is about a child it applies to; any other
    tag is kept. ``entity_ids``: the candidate's ``subject_names()`` resolved, in order."""
    if candidate.sensitivity is not Sensitivity.NORMAL:
        return candidate
    kids = child_ids & set(entity_ids)
    if not kids:
        return candidate
    if _household_wide(candidate, entity_ids, child_ids, kids):
        return candidate
    return candidate.model_copy(update={"sensitivity": Sensitivity.MINORS})


def _household_wide(candidate: Candidate, entity_ids: Sequence[str], child_ids: set[str], kids: set[str]) -> bool:
    """Whether the claim applies to every child of the household and to at least two others,
    and its own about and summary neither name one of those children nor use a child word.
    When the subjects cannot be matched to their names (two names for one person), it is
    not: the claim is treated as one about the child."""
    if not child_ids <= set(entity_ids) or len(set(entity_ids) - kids) < HOUSEHOLD_OTHERS_MIN:
        return False
    names = candidate.subject_names()
    if len(names) != len(entity_ids):
        return False
    own = _unaccented(normalise_for_match(f"{candidate.about} {candidate.summary} {candidate.body}"))
    if child_words(own):
        return False
    forms: set[str] = set()
    for name, entity_id in zip(names, entity_ids, strict=True):
        if entity_id in kids:
            forms.add(normalise_for_match(name))
            for hint in candidate.entities:
                if normalise_for_match(hint.name) == normalise_for_match(name):
                    forms.update(normalise_for_match(n) for n in (hint.name, *hint.aliases))
    return not names_any(own, {_unaccented(f) for f in forms})


def _unaccented(text: str) -> str:
    """``text`` without its accents ("oisín" -> "oisin"): a member id is often the name unaccented."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
