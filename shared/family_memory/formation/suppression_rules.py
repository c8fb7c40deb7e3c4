"""Matching candidates against the family's forget rules.

A forgotten fact stays forgotten: formation checks these rules before it
writes anything, so a later conversation that mentions the fact again does
not bring it back. A rule matches a candidate when:

- ``memory`` scope: the candidate restates the forgotten *claim*: its summary
  or a quote is close to one of the rule's fingerprints (the forgotten
  memory's summary, body and quotes, and those of the versions it replaced)
  and no word of it is swapped for another. The subject alone is not the
  claim: after forgetting "Address Ana as Annie", "Call me Ana-Maria" is a new
  value for the same subject ("Annie" swapped for "Ana-Maria") and is learned;
  "please call me Annie" is the forgotten claim again and is not. The
  candidate's ``about`` is not compared, and a rule holds no ``about``
  (``claims_only``; a rule written before that marker has the abouts of its
  memories set aside when it is loaded);
- ``entity`` scope: the candidate applies to the forgotten person, place or
  group, or resembles one of the forgotten texts (about, summary, body,
  quotes: a group keeps its whole scope);
- ``topic`` scope: every content word of the topic occurs in the candidate,
  or it resembles one of the forgotten texts;
- ``type`` scope: the candidate is of the forgotten type.

Matching is polarity-blind on purpose ("we don't like Thai food any more"
stays out once the family forgot its Thai food): the words that carry a
stance are set aside before looking for a swapped word. Only active rules
count.
"""

from __future__ import annotations

from collections.abc import Sequence

from family_memory.domain.layout import SUPPRESSIONS, memory_path
from family_memory.domain.okf import parse_json, parse_memory
from family_memory.domain.suppression import Suppression, SuppressionScope
from family_memory.domain.text import normalise_for_match
from family_memory.formation.candidate import Candidate
from family_memory.formation.decisions import stance_free_words, swapped
from family_memory.formation.text_similarity import contains_all, similarity
from family_memory.ports.store import Store

#: How close a restatement must be to a forgotten claim to count as the same claim.
RESTATEMENT = 0.7
#: Fingerprints shorter than this are not used for containment (too generic).
MIN_CONTAINED = 12
#: A memory rule marked so holds only the forgotten claims' words, never their subject (``about``).
CLAIMS_ONLY = "claims_only"
#: Versions of a forgotten claim followed back when a legacy rule's subjects are set aside.
_MAX_VERSIONS = 50


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
                rule = parse_json(Suppression, store.read(family_id, path).data, path)
                legacy = rule.scope is SuppressionScope.MEMORY and not (rule.model_extra or {}).get(CLAIMS_ONLY)
                if rule.active and legacy:
                    rule = _without_subjects(store, family_id, rule)
                rules.append(rule)
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
        if rule.scope is SuppressionScope.MEMORY:
            return restates(candidate, rule.fingerprints)
        return resembles(candidate, rule.fingerprints)


def _close(form: str, print_: str) -> bool:
    if len(print_) >= MIN_CONTAINED and (print_ in form or (len(form) >= MIN_CONTAINED and form in print_)):
        return True
    return similarity(form, print_) >= RESTATEMENT


def restates(candidate: Candidate, forgotten: Sequence[str]) -> bool:
    """Whether ``candidate`` says one of the ``forgotten`` claims again: its summary or a
    quote is close to one, with no word swapped for another (a new value for the same
    subject is a new claim). The candidate's ``about`` (its subject) is not compared."""
    if not forgotten:
        return False
    forms = [normalise_for_match(t) for t in (candidate.summary, *(e.quote for e in candidate.evidence))]
    for print_ in forgotten:
        for form in forms:
            if _close(form, print_) and not swapped(stance_free_words(form), stance_free_words(print_)):
                return True
    return False


def resembles(candidate: Candidate, forgotten: Sequence[str]) -> bool:
    """Whether ``candidate`` is close to one of the ``forgotten`` texts of a group: its about
    and summary, or a quote (the group's scope is wide on purpose)."""
    if not forgotten:
        return False
    texts = [candidate.summary, f"{candidate.about} {candidate.summary}", *(e.quote for e in candidate.evidence)]
    forms = [normalise_for_match(t) for t in texts]
    return any(_close(form, print_) for print_ in forgotten for form in forms)


def _without_subjects(store: Store, family_id: str, rule: Suppression) -> Suppression:
    """A memory rule written before ``claims_only``: its fingerprints without the abouts of
    the memories it forgot (and of the versions they replaced), which are on file."""
    subjects: set[str] = set()
    for memory_id in rule.memory_ids[:_MAX_VERSIONS]:
        current: str | None = memory_id
        seen: set[str] = set()
        while current is not None and current not in seen and len(seen) < _MAX_VERSIONS:
            seen.add(current)
            found = store.read_optional(family_id, memory_path(current))
            if found is None:
                break
            memory = parse_memory(found.data, memory_path(current))
            subjects.add(normalise_for_match(memory.about))
            current = memory.supersedes
    kept = [f for f in rule.fingerprints if f not in subjects]
    return rule.model_copy(update={"fingerprints": kept})
