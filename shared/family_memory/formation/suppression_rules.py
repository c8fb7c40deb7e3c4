"""Matching candidates against the family's forget rules.

A forgotten fact stays forgotten: formation checks these rules before it
writes anything, so a later conversation that mentions the fact again does
not bring it back. A rule matches a candidate when:

- ``memory`` scope: the candidate restates a forgotten claim (its summary or
  a quote is close to one of the rule's fingerprints: the forgotten memory's
  about, summary, body and quotes, and those of the versions it replaced);
- ``entity`` scope: the candidate applies to the forgotten person, place or
  group, or restates one of the forgotten claims;
- ``topic`` scope: every content word of the topic occurs in the candidate,
  or it restates one of the forgotten claims;
- ``type`` scope: the candidate is of the forgotten type.

Only active rules count.
"""

from __future__ import annotations

from collections.abc import Sequence

from family_memory.domain.layout import SUPPRESSIONS
from family_memory.domain.okf import parse_json
from family_memory.domain.suppression import Suppression, SuppressionScope
from family_memory.domain.text import normalise_for_match
from family_memory.formation.candidate import Candidate
from family_memory.formation.text_similarity import contains_all, similarity
from family_memory.ports.store import Store

#: How close a restatement must be to a forgotten claim to count as the same claim.
RESTATEMENT = 0.7
#: Fingerprints shorter than this are not used for containment (too generic).
MIN_CONTAINED = 12


def fingerprints(texts: Sequence[str]) -> list[str]:
    """Comparison forms of ``texts``, distinct, empty ones dropped (what a rule stores)."""
    seen: list[str] = []
    for text in texts:
        form = normalise_for_match(text)
        if form and form not in seen:
            seen.append(form)
    return seen


class SuppressionRules:
    def __init__(self, rules: Sequence[Suppression]) -> None:
        self.rules = [rule for rule in rules if rule.active]

    @classmethod
    def load(cls, store: Store, family_id: str) -> SuppressionRules:
        rules = []
        for path in store.list(family_id, SUPPRESSIONS):
            if path.endswith(".json"):
                rules.append(parse_json(Suppression, store.read(family_id, path).data, path))
        return cls(rules)

    def match(self, candidate: Candidate, entity_ids: Sequence[str]) -> Suppression | None:
        """The first rule that forbids learning ``candidate``, or None."""
        for rule in self.rules:
            if self._matches(rule, candidate, entity_ids):
                return rule
        return None

    def _matches(self, rule: Suppression, candidate: Candidate, entity_ids: Sequence[str]) -> bool:
        if rule.scope is SuppressionScope.TYPE:
            return rule.memory_type is not None and candidate.type is rule.memory_type
        if rule.scope is SuppressionScope.ENTITY and rule.entity_id and rule.entity_id in entity_ids:
            return True
        if rule.scope is SuppressionScope.TOPIC and rule.topic:
            text = " ".join(
                [candidate.about, candidate.summary, candidate.body, *(e.quote for e in candidate.evidence)]
            )
            if contains_all(text, rule.topic):
                return True
        return restates(candidate, rule.fingerprints)


def restates(candidate: Candidate, forgotten: Sequence[str]) -> bool:
    """Whether ``candidate`` says again one of the ``forgotten`` claims."""
    if not forgotten:
        return False
    texts = [candidate.summary, f"{candidate.about} {candidate.summary}", *(e.quote for e in candidate.evidence)]
    forms = [normalise_for_match(t) for t in texts]
    for print_ in forgotten:
        for form in forms:
            if len(print_) >= MIN_CONTAINED and (print_ in form or (len(form) >= MIN_CONTAINED and form in print_)):
                return True
            if similarity(form, print_) >= RESTATEMENT:
                return True
    return False
