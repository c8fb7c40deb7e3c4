"""What "forgotten" means, in one place: the family's forget rules and every check made
against them.

A forget (the card's, ``card.operations``) retracts memories and records a rule,
``suppressions/{rule_id}.json``, whose ``fingerprints`` hold the forgotten words in
comparison form (``fingerprints``: ``normalise_for_match``): the summary and body of each
forgotten memory and of the versions it replaced (a group keeps their about too), and
every quote of their evidence. Nothing is deleted; each part of the pipeline asks this
module instead:

- **formation** (``SuppressionRules.match``): a candidate that restates a forgotten claim,
  or falls in a forgotten group, is not learned (the rules below);
- **the read tools** (``ForgottenWords.covers``, ``replaced_by_forgotten``): a turn or quote
  holding forgotten words shows ``FORGOTTEN``; an earlier version of a forgotten claim is
  as closed as the claim;
- **the brief** (``forgotten_subjects``, ``forgotten_claims``, ``line_repeats_forgotten``):
  a last-conversation line naming or repeating something forgotten is left out, by the
  compile and at once by the patcher.

**Matching candidates.** A rule matches a candidate when:

- ``memory`` scope: the candidate restates the forgotten *claim*, by meaning:
  it concerns the same people (the rule keeps the forgotten memory's
  ``applies_to``; a household claim matches a household claim) and says the
  same thing, whatever the wording: its summary or a quote is close to one of
  the rule's fingerprints in words (containment or text similarity >= 0.7,
  with no word swapped for another), or in meaning (``ClaimMeaning``: the
  embedder's cosine similarity, the best pair of the candidate's summary and
  quotes against the forgotten summary, body and quotes, whole or clause by
  clause, at or above the threshold calibrated for that embedder on
  ``eval/calibration/restatement.yaml``; ``claim_terms`` sets the bar by the
  claim's key terms: lower when every key term of a forgotten text recurs, lower
  still when a schedule is said again on the same days with nothing new ("a mat
  class on Tuesday and Thursday mornings" after "pilates on Tuesdays and
  Thursdays") or a clause says only that the forgotten thing happened again ("an
  accident in the night again"), none when the candidate adds a second value to a
  slot that holds many or names another activity ("yoga" after "pilates")). "Has keyboard lessons every
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

**Redacting what the tools serve.** ``ForgottenWords.covers(text)``: the text holds
forgotten words. A fingerprint counts when it is distinctive: at least
``MIN_CONTAINED`` characters (found anywhere in the text, as formation matches
restatements), or at least two words (found as whole words). A lone short word (a name
such as "Maya" that a forgotten memory was about) does not hide every turn that mentions
it. ``replaced_by_forgotten(store, family_id, memory)``: the memory's line of corrections
(``superseded_by``, followed to its end) ends in a retracted memory.

Rules are read fresh on every call (a forget must take effect on the next one); an
unreadable rule fails the call (InvalidInputError naming the file) rather than let
forgotten words through.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from family_memory.brief.weights import MemoryFacts
from family_memory.claim_terms import TermSignal, claim_parts, term_signal
from family_memory.domain.entity import Entity
from family_memory.domain.layout import SUPPRESSIONS, memory_path
from family_memory.domain.memory import Memory, Status
from family_memory.domain.okf import parse_json, parse_memory
from family_memory.domain.suppression import Suppression, SuppressionScope
from family_memory.domain.text import holds_words, normalise_for_match
from family_memory.formation.candidate import Candidate
from family_memory.formation.decisions import stance_free_words, swapped
from family_memory.formation.text_similarity import contains_all, similarity
from family_memory.ports.store import Store

#: A fingerprint this long is distinctive wherever it appears: formation's containment and
#: the read tools' redaction (shorter ones are too generic for either).
MIN_CONTAINED = 12
#: How far a line of corrections is followed (a real line is a few versions).
MAX_VERSIONS = 50

# --- formation: candidates against the rules ------------------------------------------------

#: How close a restatement must be to a forgotten claim to count as the same claim.
RESTATEMENT = 0.7
#: The forgotten memory's people, kept on a memory rule (entity ids).
APPLIES_TO = "applies_to"
#: Cosine similarity at which an embedder says two claims mean the same, calibrated per model
#: on eval/calibration/restatement.yaml (evaluation/calibration.py). A model without a
#: calibrated threshold matches by words only.
MEANING_THRESHOLDS: dict[str, float] = {"local/all-MiniLM-L6-v2-int8": 0.75}
#: How much lower the bar is when every key term of a forgotten text recurs in the candidate
#: (``claim_terms.TermSignal.KEPT``), calibrated with the threshold.
KEPT_TERMS_EASE = 0.05
#: How much lower still when the candidate says a forgotten schedule again: the same days, the
#: forgotten key terms kept (a kind of class for the class) and no key term of its own
#: (``claim_terms.TermSignal.SAME_SCHEDULE``), calibrated with the threshold.
SAME_SCHEDULE_EASE = 0.15
#: How much lower when a clause of the candidate says only that the forgotten thing happened
#: again (``claim_terms.TermSignal.RECURS``: "had an accident in the night again"), calibrated
#: with the threshold.
RECURRENCE_EASE = 0.1


class ClaimMeaning:
    """Restatement by meaning: the embedder's vectors of the candidate's words against the
    forgotten words (``embed`` maps texts to unit vectors, cached by the caller), whole texts
    and their clauses (``claim_parts``), the best pair at or above a bar set by the key terms
    (``term_signal``): ``threshold``, lower by ``KEPT_TERMS_EASE`` when the forgotten key
    terms recur; a second value in a slot that holds many (``SECOND_VALUE``) is never the
    same claim."""

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

    def bar(self, forgotten: Sequence[str], texts: Sequence[str], names: Sequence[str] = ()) -> float | None:
        """The cosine a candidate's ``texts`` must reach against ``forgotten``; None: no bar
        makes it the same claim."""
        signal = term_signal(forgotten, texts, names)
        if signal in (TermSignal.SECOND_VALUE, TermSignal.OTHER_ACTIVITY):
            return None
        if signal is TermSignal.SAME_SCHEDULE:
            return self.threshold - SAME_SCHEDULE_EASE
        if signal is TermSignal.RECURS:
            return self.threshold - RECURRENCE_EASE
        if signal is TermSignal.KEPT:
            return self.threshold - KEPT_TERMS_EASE
        return self.threshold

    def close(self, rule_id: str, forgotten: Sequence[str], texts: Sequence[str], names: Sequence[str] = ()) -> bool:
        if not forgotten or not texts:
            return False
        bar = self.bar(forgotten, texts, names)
        if bar is None:
            return False
        if rule_id not in self._forgotten:
            self._forgotten[rule_id] = self.embed(claim_parts(forgotten))
        theirs = self._forgotten[rule_id]
        ours = self.embed(claim_parts(texts))
        best = max(sum(a * b for a, b in zip(x, y, strict=True)) for x in ours for y in theirs)
        return best >= bar


#: A memory rule marked so holds only the forgotten claims' words, never their subject (``about``).
CLAIMS_ONLY = "claims_only"


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
            names = [*candidate.applies_to, *([candidate.about_member] if candidate.about_member else [])]
            return self.meaning is not None and self.meaning.close(rule.id, rule.fingerprints, texts, names)
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
    for memory_id in rule.memory_ids[:MAX_VERSIONS]:
        current: str | None = memory_id
        seen: set[str] = set()
        while current is not None and current not in seen and len(seen) < MAX_VERSIONS:
            seen.add(current)
            found = store.read_optional(family_id, memory_path(current))
            if found is None:
                break
            memory = parse_memory(found.data, memory_path(current))
            subjects.add(normalise_for_match(memory.about))
            current = memory.supersedes
    kept = [f for f in rule.fingerprints if f not in subjects]
    return rule.model_copy(update={"fingerprints": kept})


# --- the read tools: what they must not serve ------------------------------------------------

#: What a hidden turn or quote shows instead of its words.
FORGOTTEN = "[forgotten at the family's request]"


class ForgottenWords:
    """The active forget rules' fingerprints of one family, ready to match text."""

    def __init__(self, fingerprints: Iterable[str]) -> None:
        anywhere: set[str] = set()
        whole_words: set[str] = set()
        for form in fingerprints:
            if len(form) >= MIN_CONTAINED:
                anywhere.add(form)
            elif len(form.split()) >= 2:
                whole_words.add(form)
        self._anywhere = sorted(anywhere)
        self._whole_words = [re.compile(rf"(?<!\w){re.escape(form)}(?!\w)") for form in sorted(whole_words)]

    @classmethod
    def load(cls, store: Store, family_id: str) -> ForgottenWords:
        fingerprints: list[str] = []
        for path in store.list(family_id, SUPPRESSIONS):
            if not path.endswith(".json") or path.count("/") != 1:
                continue
            rule = parse_json(Suppression, store.read(family_id, path).data, path)
            if rule.active:
                fingerprints += rule.fingerprints
        return cls(fingerprints)

    def __bool__(self) -> bool:
        return bool(self._anywhere or self._whole_words)

    def covers(self, text: str) -> bool:
        """Whether ``text`` holds words the family asked to forget."""
        if not self:
            return False
        form = normalise_for_match(text)
        return any(print_ in form for print_ in self._anywhere) or any(p.search(form) for p in self._whole_words)


def replaced_by_forgotten(store: Store, family_id: str, memory: Memory) -> bool:
    """Whether ``memory`` was replaced, version after version (``superseded_by``), by one
    the family then asked to forget (a retracted memory ends the line)."""
    seen = {memory.id}
    successor = memory.superseded_by
    while successor is not None and successor not in seen and len(seen) < MAX_VERSIONS:
        seen.add(successor)
        path = memory_path(successor)
        document = store.read_optional(family_id, path)
        if document is None:
            return False
        current = parse_memory(document.data, path)
        if current.status is Status.RETRACTED:
            return True
        successor = current.superseded_by
    return False


# --- the brief: lines that name or repeat something forgotten -------------------------------


def forgotten_subjects(
    memories: Iterable[MemoryFacts], suppressions: Iterable[Suppression] = (), entities: Iterable[Entity] = ()
) -> list[str]:
    """What the family has asked to forget, as words a summary could name: the
    ``about`` of every retracted memory, and the topic or the entity's names of every
    active group forget rule."""
    by_id = {e.id: e for e in entities}
    subjects = {m.about for m in memories if m.status is Status.RETRACTED}
    for rule in suppressions:
        if not rule.active:
            continue
        if rule.scope is SuppressionScope.TOPIC and rule.topic:
            subjects.add(rule.topic)
        entity = by_id.get(rule.entity_id) if rule.entity_id else None
        if rule.scope is SuppressionScope.ENTITY and entity is not None:
            subjects.update([entity.name, *entity.aliases])
    return sorted(subjects)


def forgotten_claims(memories: Iterable[MemoryFacts]) -> list[str]:
    """The ``summary`` of every retracted memory: a conversation line holding those words
    repeats what the family forgot, whatever it is about."""
    return sorted({m.summary for m in memories if m.status is Status.RETRACTED})


def names_any(text: str, subjects: Iterable[str]) -> bool:
    normalised = normalise_for_match(text)
    return any(holds_words(normalised, normalise_for_match(subject)) for subject in subjects)


def _claim_words(summary: str) -> str:
    """A claim's summary as it may appear inside a conversation line: comparison form,
    without its closing full stop."""
    return normalise_for_match(summary).rstrip(" .!?")


def holds_any(text: str, claims: Iterable[str]) -> bool:
    """Whether ``text`` holds the words of one of ``claims`` (summaries), case- and
    space-insensitively."""
    normalised = normalise_for_match(text)
    return any(words and words in normalised for words in map(_claim_words, claims))


def line_repeats_forgotten(
    text: str, repeats: Iterable[str], subjects: Iterable[str], summaries: Iterable[str] = ()
) -> bool:
    """Whether a last-conversation line names one of ``subjects`` (as whole words), holds
    the words of one of ``summaries``, or repeats a claim (``repeats``: their abouts) about
    one of ``subjects``: the compiler's rule, and the patcher's on a forget."""
    subjects = list(subjects)
    if names_any(text, subjects):
        return True
    if any(names_any(about, subjects) for about in repeats):
        return True
    return holds_any(text, summaries)
