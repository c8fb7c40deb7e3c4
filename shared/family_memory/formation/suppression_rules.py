"""Matching candidates against the family's forget rules.

A forgotten fact stays forgotten: formation checks these rules before it
writes anything, so a later conversation that mentions the fact again does
not bring it back. A rule matches a candidate when:

- ``memory`` scope: the candidate restates the forgotten *claim*, by meaning:
  it concerns the same people (the rule keeps the forgotten memory's
  ``applies_to``; a household claim matches a household claim) and says the
  same thing, whatever the wording: its summary or a quote is close to one of
  the rule's fingerprints in words (containment or text similarity >= 0.7,
  with no word swapped for another), or in meaning (``ClaimMeaning``: the
  embedder's cosine similarity, the best pair of the candidate's summary and
  quotes against the forgotten summary, body and quotes, at or above the
  threshold calibrated for that embedder on
  ``eval/calibration/restatement.yaml``). "Has keyboard lessons every
  Thursday" after "takes piano on Thursdays" is kept out, so is "the dose went
  up"; the same claim about someone else, or a different claim about the same
  person that is not close in meaning ("Leo's bedtime is 8"), is learned. The
  candidate's ``about`` is not compared, and a rule holds no ``about``
  (``claims_only``; a rule written before that marker has the abouts of its
  memories set aside when it is loaded, and one written before ``applies_to``
  was kept is not limited to its people);
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

from collections.abc import Callable, Sequence

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
#: The forgotten memory's people, kept on a memory rule (entity ids).
APPLIES_TO = "applies_to"
#: Cosine similarity at which an embedder says two claims mean the same, calibrated per model
#: on eval/calibration/restatement.yaml (evaluation/calibration.py). A model without a
#: calibrated threshold matches by words only.
MEANING_THRESHOLDS: dict[str, float] = {"local/all-MiniLM-L6-v2-int8": 0.75}


class ClaimMeaning:
    """Restatement by meaning: the embedder's vectors of the candidate's words against the
    forgotten words (``embed`` maps texts to unit vectors, cached by the caller)."""

    def __init__(self, embed: Callable[[Sequence[str]], Sequence[Sequence[float]]], threshold: float) -> None:
        self.embed = embed
        self.threshold = threshold
        self._forgotten: dict[str, Sequence[Sequence[float]]] = {}

    @classmethod
    def for_model(
        cls, model_id: str, embed: Callable[[Sequence[str]], Sequence[Sequence[float]]]
    ) -> ClaimMeaning | None:
        threshold = MEANING_THRESHOLDS.get(model_id)
        return None if threshold is None else cls(embed, threshold)

    def close(self, rule_id: str, forgotten: Sequence[str], texts: Sequence[str]) -> bool:
        if not forgotten or not texts:
            return False
        if rule_id not in self._forgotten:
            self._forgotten[rule_id] = self.embed(list(forgotten))
        theirs = self._forgotten[rule_id]
        ours = self.embed(list(texts))
        best = max(sum(a * b for a, b in zip(x, y, strict=True)) for x in ours for y in theirs)
        return best >= self.threshold


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
    def __init__(self, rules: Sequence[Suppression], meaning: ClaimMeaning | None = None) -> None:
        self.rules = [rule for rule in rules if rule.active]
        self.meaning = meaning

    @classmethod
    def load(cls, store: Store, family_id: str, meaning: ClaimMeaning | None = None) -> SuppressionRules:
        rules = []
        for path in store.list(family_id, SUPPRESSIONS):
            if path.endswith(".json"):
                rule = parse_json(Suppression, store.read(family_id, path).data, path)
                legacy = rule.scope is SuppressionScope.MEMORY and not (rule.model_extra or {}).get(CLAIMS_ONLY)
                if rule.active and legacy:
                    rule = _without_subjects(store, family_id, rule)
                rules.append(rule)
        return cls(rules, meaning)

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
            if not same_people(rule, entity_ids):
                return False
            if restates(candidate, rule.fingerprints):
                return True
            texts = [candidate.summary, *(e.quote for e in candidate.evidence)]
            return self.meaning is not None and self.meaning.close(rule.id, rule.fingerprints, texts)
        return resembles(candidate, rule.fingerprints)


def same_people(rule: Suppression, entity_ids: Sequence[str]) -> bool:
    """Whether a candidate resolved to ``entity_ids`` concerns the forgotten memory's people
    (both the household when neither names anyone). A rule written before its people were
    kept does not know them, and is not limited by them."""
    kept = (rule.model_extra or {}).get(APPLIES_TO)
    if not isinstance(kept, list):
        return True
    return set(kept) & set(entity_ids) != set() if kept or entity_ids else True


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
