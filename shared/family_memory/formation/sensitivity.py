"""Which claims are sensitive: health, finances, and children.

Sensitive memories stay out of the always-on brief. A tag is never lowered
here: when the words of a claim (or the people it applies to) touch one of
these topics and the extractor left it ``normal``, validation raises it and
notes the adjustment. Health wins over finances, finances over minors, when a
claim touches more than one (any tag keeps it out of the brief).

Children are known two ways: household members whose role is ``child``, and
entities the family has told us are children (an entity whose relationship
is a child's: "my son Leo" filed Leo as a son). A claim that names either, or
applies to one, is ``minors``. For a member, the role decides.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from family_memory.domain.entity import Entity
from family_memory.domain.family import FamilySettings, MemberRole
from family_memory.domain.memory import Sensitivity
from family_memory.domain.text import normalise_for_match
from family_memory.formation.relations import is_child_relation, is_generic

_HEALTH = re.compile(
    r"\b(allerg\w*|anaphyla\w*|epipen|medication\w*|medicine\w*|meds|pills?|tablets?|insulin|inhaler|"
    r"prescription\w*|antibiotic\w*|doctor\w*|dentist\w*|orthodont\w*|pediatrician|paediatrician|therap\w*|"
    r"diagnos\w*|asthma\w*|diabet\w*|celiac|coeliac|gluten|lactose|dairy[- ]free|vegetarian|vegan|pescatarian|"
    r"diet|dietary|pregnan\w*|surgery|hospital\w*|clinic|illness|sick|adhd|autis\w*|anxiety|depress\w*|"
    r"migraine\w*|vaccin\w*|injur\w*|physio\w*)\b"
)
_FINANCES = re.compile(
    r"\b(bank\w*|salary|salaries|income|debts?|loans?|mortgage\w*|credit card\w*|budget\w*|tax|taxes|"
    r"invest\w*|savings|pension\w*|account number|payroll|paycheck|bills|insurance)\b"
)
_MINORS = re.compile(
    r"\b(daughters?|sons?|kids?|child|children|baby|babies|toddlers?|teens?|teenagers?|grandchild\w*|"
    r"grandkids?|stepdaughters?|stepsons?|preschool\w*|kindergarten)\b"
)


def is_child(entity: Entity, family: FamilySettings) -> bool:
    """Whether ``entity`` is one of the household's children. For a household member the
    member's role decides (the family can set it; formation records ``child`` when a
    parent first says "my daughter Maya"); for anyone else, a child's relationship does."""
    member = family.member(entity.member_id) if entity.member_id else None
    if member is not None:
        return member.role is MemberRole.CHILD
    return is_child_relation(entity.relationship)


def child_names(family: FamilySettings, entities: Iterable[Entity] = ()) -> set[str]:
    """Comparison forms of the names (full, first, address-as, id, aliases) of the household's
    children: the members whose role is ``child`` and the ``entities`` that are children."""
    names: set[str] = set()
    for member in family.members:
        if member.role is MemberRole.CHILD:
            names.update({normalise_for_match(member.name), normalise_for_match(member.id)})
            names.add(normalise_for_match(member.name.split()[0]))
            if member.address_as:
                names.add(normalise_for_match(member.address_as))
    for entity in entities:
        if is_child(entity, family):
            forms = [normalise_for_match(n) for n in (entity.name, *entity.aliases, entity.member_id or "")]
            names.update(forms)
            if not is_generic(entity.name, entity.relationship):
                names.add(forms[0].split()[0])  # "Leo Rivera" is also "Leo"
    names.discard("")
    return names


def detect(
    texts: Iterable[str],
    family: FamilySettings,
    applies_to: Iterable[str] = (),
    entities: Iterable[Entity] = (),
) -> Sensitivity | None:
    """The sensitivity the topic calls for, or None when it is an ordinary topic. ``entities``
    are the family's entities on file: a child among them counts like a child member."""
    text = " ".join(normalise_for_match(t) for t in texts)
    if _HEALTH.search(text):
        return Sensitivity.HEALTH
    if _FINANCES.search(text):
        return Sensitivity.FINANCES
    if _MINORS.search(text):
        return Sensitivity.MINORS
    children = child_names(family, entities)
    if children and any(normalise_for_match(name) in children for name in applies_to):
        return Sensitivity.MINORS
    words = set(re.findall(r"[^\W_]+", text))
    if children & words:
        return Sensitivity.MINORS
    return None
