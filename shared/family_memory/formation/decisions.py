"""What to do with one candidate, given the family's similar memories.

A pure function, so the whole decision table is testable without files:

====================================================  ==============================
situation                                              decision
====================================================  ==============================
a memory (any status) already holds this evidence      noop (a replay, a redelivery)
  for this claim (the same claim, or its rival)
an active or dormant memory says the same thing        reinforce it (dormant wakes up)
  (same type, near-identical text, no word swapped
  for another, same polarity, same numbers, same
  valid_until, about the same people)
an active memory truly conflicts with it (below):
  that memory is a hard constraint, the same slot,     add beside it, linked (both stay;
  and nothing in the candidate says it changed          the constraint is marked possibly
  (or it was said before the constraint's evidence)     replaced by the new memory)
  the candidate was said before that memory's latest   noop (stale)
  evidence
  the candidate has lower authority                    contradiction (recorded on the
                                                        memory, which stays as it is)
  that memory is a hard constraint and the candidate   contradiction (recorded on the
  is not the family's explicit statement                constraint, which stays)
  otherwise (same or higher authority, newer)          supersede it (a hard constraint
                                                        too: the family said it changed)
a retracted memory says the same thing                 noop (the family forgot it)
nothing close                                          add
====================================================  ==============================

Two claims *conflict* only when one can no longer be true beside the other
(both of the same type, both dated or both lasting, about the same people):

- **the same slot with a changed value**: the same ``about`` (the same words,
  and more than the names of the people it applies to), e.g. "Pepper's
  medication": "pills at 8" -> "pills at 8 and 8pm", or "Where the family
  lives": "Austin" -> "Denver";
- **an explicit negation of the same claim**: opposite polarity and, without
  the words that carry the polarity ("not", "no longer", "loves", "hates"),
  the same words: "Maya is allergic to peanuts" / "Maya is no longer allergic
  to peanuts".

Two facts that merely look alike are not rivals: "Maya is allergic to
peanuts" and "Maya is allergic to eggs" are two slots (two abouts, and
"peanuts" swapped for "eggs"), and both are kept. A false supersede (a valid
claim leaves the brief) costs more than a duplicate, so when in doubt the
answer is add. A hard constraint (an allergy, a diet, a medication) is
replaced only by the family's own explicit, newer statement that it changed:
a negation ("Maya is no longer allergic to peanuts") or the same slot with a
change marked in the words ("Dan is now pescatarian", "the dose went up",
"may not bike to school at all"; ``Proposal.marks_change``). A same-slot
claim with no such mark may be a second value rather than a correction
("Maya's allergies": peanuts, then eggs): it is added beside the constraint
and the two are linked (the ``add`` decision names the constraint as its
``target``: the reconciler links both ways and records the conflict on the
constraint, and the card shows "possibly replaced by ..." until the family
resolves it). Anything less than an explicit statement (said in passing,
inferred) is recorded on the constraint as a contradiction. Reinforcing
needs the same people: "Always check with me before booking" said by Ben is
Ben's instruction, not more evidence for Ana's. Authority ranks:
explicit > said in passing > inferred > system; an inference can never
replace an explicit statement.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from difflib import SequenceMatcher
from enum import StrEnum

from family_memory.domain.memory import Authority, Memory, MemoryType, Status, Strength
from family_memory.formation.candidate import AUTHORITY_RANK
from family_memory.formation.text_similarity import content_tokens, negated, similarity

#: Text similarity at which two claims say the same thing.
SAME_CLAIM = 0.78
#: Share of words two opposite-polarity claims must have in common (no word swapped) to negate each other.
SAME_WORDS = 0.6
#: Two differing words this alike are one word spelled two ways ("favourite" / "favorite"), not a swap.
SAME_WORD_SPELLING = 0.8

EvidenceKey = tuple[str, str]

#: Words that colour a claim without changing what it is about.
_SOFT_WORDS = frozenset("really absolutely truly still now currently also".split())  # noqa: SIM905
#: Words that carry a claim's polarity or stance, not its content: without them,
#: "loves Thai food" and "does not like Thai food any more" say the same thing.
_STANCE_WORDS = frozenset(
    """not no never nor none without longer anymore cannot hate hat dislike dislik love lov like lik enjoy adore
    prefer preferr stand care fond stop stopp quit""".split()  # noqa: SIM905
)


class DecisionKind(StrEnum):
    ADD = "add"
    REINFORCE = "reinforce"
    SUPERSEDE = "supersede"
    CONTRADICTION = "contradiction"
    NOOP = "noop"


class Conflict(StrEnum):
    """Why two claims cannot both stand."""

    SLOT = "the same subject with a changed value"
    NEGATION = "an explicit negation of it"


@dataclass(frozen=True)
class Proposal:
    """The parts of a candidate a decision needs. ``names`` holds the content words of
    the names and aliases of the people the claim applies to: an ``about`` made of
    nothing else ("Maya") names a person, not a slot."""

    type: MemoryType
    about: str
    summary: str
    authority: Authority
    valid_until: date | None
    applies_to: tuple[str, ...]
    evidence: frozenset[EvidenceKey]
    stated_at: datetime
    names: frozenset[str] = frozenset()
    #: The candidate's words say the claim changed ("now", "no longer", "any more", "switched"):
    #: what lets the family's explicit statement replace a hard constraint's value.
    marks_change: bool = False


@dataclass(frozen=True)
class Known:
    """A similar memory as it is now, with the evidence it already holds."""

    memory: Memory
    evidence: frozenset[EvidenceKey]
    score: float


@dataclass(frozen=True)
class Decision:
    kind: DecisionKind
    target: Memory | None = None
    reason: str = ""


def claim_similarity(proposal: Proposal, memory: Memory) -> float:
    """How close two claims' words are (polarity aside: see ``same_claim``)."""
    return max(
        similarity(proposal.summary, memory.summary),
        similarity(f"{proposal.about} {proposal.summary}", f"{memory.about} {memory.summary}"),
    )


_NUMBER = re.compile(r"\d+(?:[:.]\d+)*(?:\s?[ap]\.?m\b\.?)?", re.I)


def _numbers(text: str) -> set[str]:
    """The numbers in ``text``, times with their am/pm: "8" and "8pm" are two numbers."""
    return {re.sub(r"[\s.]", "", n.lower()) if not n[-1].isdigit() else n for n in _NUMBER.findall(text)}


def _words(text: str) -> set[str]:
    return {w.removesuffix("'s") for w in content_tokens(text)} - _SOFT_WORDS


def stance_free_words(text: str) -> set[str]:
    """The content words of ``text`` without those carrying its polarity or stance."""
    return {w for w in _words(text) if w not in _STANCE_WORDS and not w.endswith("n't")}


def _unmatched(ours: set[str], theirs: set[str]) -> set[str]:
    """Words of ``ours`` with no counterpart in ``theirs`` (not even a spelling variant)."""
    return {
        w
        for w in ours - theirs
        if not any(SequenceMatcher(None, w, v).ratio() >= SAME_WORD_SPELLING for v in theirs - ours)
    }


def swapped(a: set[str], b: set[str]) -> bool:
    """Whether a word of one claim was swapped for another ("peanuts" -> "eggs",
    "swimming" -> "soccer"): each has a word the other lacks. Adding words ("peanuts"
    -> "peanut butter") is not a swap."""
    return bool(_unmatched(a, b)) and bool(_unmatched(b, a))


def same_claim(proposal: Proposal, memory: Memory) -> bool:
    """Says the same thing: near-identical words with none swapped for another, the
    same polarity ("loves" vs "does not like") and the same numbers ("pills at 8" vs
    "pills at 9" are two claims)."""
    if negated(proposal.summary) != negated(memory.summary):
        return False
    if _numbers(proposal.summary) != _numbers(memory.summary):
        return False
    if swapped(_words(proposal.summary), _words(memory.summary)):
        return False
    return claim_similarity(proposal, memory) >= SAME_CLAIM


def negates(proposal: Proposal, memory: Memory) -> bool:
    """One says the other is not so: opposite polarity, and the same words once the
    words carrying the polarity are set aside."""
    if negated(proposal.summary) == negated(memory.summary):
        return False
    ours, theirs = stance_free_words(proposal.summary), stance_free_words(memory.summary)
    if not ours or not theirs or swapped(ours, theirs):
        return False
    return len(ours & theirs) / len(ours | theirs) >= SAME_WORDS


def same_slot(proposal: Proposal, memory: Memory) -> bool:
    """The same subject slot: the same words in ``about``, and more of them than the
    names of the people the claim applies to ("Maya" is a person, "Maya's peanut
    allergy" a slot)."""
    ours = _words(proposal.about)
    return bool(ours - proposal.names) and ours == _words(memory.about)


def same_people(proposal: Proposal, memory: Memory) -> bool:
    """Both claims apply to the same entities (or both to none: the household)."""
    return set(proposal.applies_to) == set(memory.applies_to)


def conflict(proposal: Proposal, memory: Memory) -> Conflict | None:
    """How ``proposal`` conflicts with ``memory``, or None when both can be true.
    A dated claim ("pizza night is tonight") never conflicts with a lasting one
    ("Friday is pizza night"); claims about different people never conflict."""
    if proposal.type is not memory.type:
        # "Kamsi is no longer lactose intolerant" (a fact) negates the constraint it ends.
        ends_a_rule = memory.type is MemoryType.CONSTRAINT and proposal.type in (MemoryType.FACT, MemoryType.PREFERENCE)
        if not (ends_a_rule and proposal.marks_change and same_slot(proposal, memory) and negated(proposal.summary)):
            return None
    if (proposal.valid_until is None) != (memory.valid_until is None):
        return None
    if _numbers(proposal.about) != _numbers(memory.about):
        return None  # "Dish number 3" and "Dish number 5" are two subjects
    if proposal.applies_to and memory.applies_to and not set(proposal.applies_to) & set(memory.applies_to):
        return None
    if negates(proposal, memory):
        return Conflict.NEGATION
    if same_slot(proposal, memory):
        return Conflict.SLOT
    return None


#: Words that carry a claim's value: what someone eats or must avoid, conditions, medicines, days.
_VALUE_WORDS = re.compile(
    r"\b(?:peanuts?|nuts?|tree nuts?|almonds?|cashews?|walnuts?|hazelnuts?|pistachios?|shellfish|shrimp|prawns?|"
    r"crab|lobster|fish|eggs?|milk|dairy|lactose|cheese|gluten|wheat|soy|soya|sesame|kiwi|strawberr(?:y|ies)|"
    r"bananas?|tomato(?:es)?|chocolate|pork|beef|chicken|lamb|meat|red meat|sugar|caffeine|grapefruit|alcohol|"
    r"vegetarian|vegan|pescatarian|halal|kosher|jain|coeliac|celiac|diabet\w*|asthma|epilepsy|eczema|penicillin|"
    r"ibuprofen|aspirin|insulin|salt|sodium|monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekends?|"
    r"weekdays?)s?\b",
    re.I,
)
#: Value words two ways ("low salt" is "low sodium").
_SAME_VALUE = {"salt": "sodium"}


def value_words(text: str) -> set[str]:
    """The value words of a claim and its numbers ("peanuts", "thursday", "8pm")."""
    folded = text.lower()
    words = {_SAME_VALUE.get(v, v) for v in (m.group(0).rstrip("s") for m in _VALUE_WORDS.finditer(folded))}
    # A year says when, not what: "vegetarian since January 2026" has the value "vegetarian".
    return words | {n for n in _numbers(text) if not re.fullmatch(r"(?:19|20)\d\d", n)}


class Value(StrEnum):
    SAME = "same"  # the same values, in other words
    LESS = "less"  # some of the values on file, none new
    MORE = "more"  # every value on file and more
    OTHER = "other"  # a value swapped for another


#: Who must hear of a claim, said beside it: "..., and Tío Rafa needs reminding of it", "so the
#: teachers need to know", "tell the sitter". The audience adds no value to the claim.
_AUDIENCE = re.compile(
    r"[,;]?\s*\b(?:and|so)\s+(?:[^,;.]{1,40}?\s+)?(?:needs?|has|have|must|should)\s+(?:to\s+)?(?:be\s+)?"
    r"(?:remind(?:ed|ing)|told|to\s+know|know|aware|kept\s+in\s+the\s+loop)\b(?:\s+(?:of|about)\s+(?:it|this|that))?(?=\s*(?:[,;.]|$))"
    r"|[,;]?\s*\b(?:and|so)\s+(?:please\s+)?(?:tell|remind)\s+[^,;.]{1,40}?(?=[,;.]|$)",
    re.I,
)


#: One occasion a claim is said of, and what it means there, to the end of its sentence: "at the
#: fish fry, eating the fish and skipping the fries" in "Stan keeps to low salt at the fish fry, ...".
_OCCASION = re.compile(r"\s+\b(?:at|during)\s+(?:the|a|an|his|her|their|our|my|this|that)\s+[^.;]*", re.I)


def occasion_free(text: str) -> str:
    """``text`` without the occasions it is said of (``_OCCASION``)."""
    return _OCCASION.sub("", text)


def compare_values(proposal: Proposal, memory: Memory) -> Value:
    """How a claim of a memory's slot compares with it, by their value words and numbers
    ("can't have shrimp" has LESS than "allergic to shellfish, including shrimp"; "peanuts and
    eggs" MORE than "peanuts"; "peanuts" -> "eggs", "Thursday" -> "Friday", "at 8" -> "at 9" OTHER).
    A standing claim applied to one occasion is compared without the occasion and what is done
    at it, when what is left still names a value: "Stan keeps to low salt at the fish fry, eating
    the fish and skipping the fries" has LESS than "Stan is on a low-sodium diet, under 2,000 mg a
    day" (the fish is what he eats there, not a value of his diet).
    With no value words on either side, the words decide: the same words are SAME, fewer of
    them LESS, anything else OTHER."""
    ours, theirs = value_words(proposal.summary), value_words(memory.summary)
    applied = value_words(occasion_free(proposal.summary))
    if applied and applied <= theirs and not ours <= theirs:
        ours = applied
    if ours or theirs:
        if ours == theirs:
            return Value.SAME
        if ours and ours < theirs:
            return Value.LESS
        if theirs and ours > theirs:
            return Value.MORE
        return Value.OTHER
    a, b = stance_free_words(_AUDIENCE.sub("", proposal.summary)), stance_free_words(_AUDIENCE.sub("", memory.summary))
    if a and not _unmatched(a, b):
        # Every word has its counterpart, a spelling variant counting ("phone" for "phones").
        return Value.LESS if _unmatched(b, a) else Value.SAME
    return Value.OTHER  # a word swapped ("Lucy" for "Lu") or added: the older rules decide


def protected(memory: Memory) -> bool:
    """A hard constraint (an allergy, a medication): only the family's explicit word replaces it."""
    return memory.type is MemoryType.CONSTRAINT and memory.strength is Strength.HARD


#: Words that say a claim changed rather than adding a second value beside it.
_CHANGE_MARKS = re.compile(
    r"\b(?:now|no longer|not any ?more|any ?more|anymore|actually|instead|changed?|switched|moved|outgrown|"
    r"grew out|stopped|quit|used to|from now on|these days|went (?:up|down)|increased|decreased|reduced|"
    r"raised|lowered|at all|retested|cleared)\b",
    re.I,
)


def marks_change(*texts: str) -> bool:
    """Whether any of ``texts`` says the claim changed ("is now", "no longer", "the dose went up")."""
    return any(_CHANGE_MARKS.search(t) for t in texts)


def decide(proposal: Proposal, known: Sequence[Known]) -> Decision:
    """One of add / reinforce / supersede / contradiction / noop (table above)."""
    ranked = sorted(known, key=lambda k: -k.score)
    for k in ranked:
        m = k.memory
        if proposal.evidence and proposal.evidence <= k.evidence and (same_claim(proposal, m) or conflict(proposal, m)):
            return Decision(DecisionKind.NOOP, m, f"already recorded in memory {m.id}")
    current = [k for k in ranked if k.memory.status in (Status.ACTIVE, Status.DORMANT)]
    for k in current:
        m = k.memory
        same_kind = m.type is proposal.type and m.valid_until == proposal.valid_until
        if same_kind and same_people(proposal, m) and same_claim(proposal, m):
            return Decision(DecisionKind.REINFORCE, m, f"says the same as memory {m.id}")
    beside: Memory | None = None
    for k in current:
        m = k.memory
        if m.status is not Status.ACTIVE:
            continue
        why = conflict(proposal, m)
        if why is None:
            continue
        older = proposal.stated_at < m.last_reinforced_at
        # A rule restated for some of the people it covers ("no phone on school nights", from one of
        # the three children it applies to) is that rule again, not a rule for fewer people; so is one
        # restated with who must hear of it ("Viliami is allergic to peanuts, and the teachers on the
        # tour need to know": Viliami and the coach): the audience adds no value to the rule.
        ours, theirs = set(proposal.applies_to), set(m.applies_to)
        related = ours < theirs or (bool(theirs) and theirs < ours)
        value = compare_values(proposal, m) if why is Conflict.SLOT and (same_people(proposal, m) or related) else None
        if value is Value.MORE and not same_people(proposal, m):
            value = Value.OTHER  # fuller, but for other people: not a fuller statement of it
        if value in (Value.SAME, Value.LESS) and not proposal.marks_change:
            # The same slot and value in other words ("Viliami is allergic to peanuts, so no trail mix"
            # after "... peanuts, his face swells"), or with less: more evidence, never a second memory,
            # and the text on file keeps its detail.
            return Decision(DecisionKind.REINFORCE, m, f"restates memory {m.id} in other words (same slot and value)")
        if value is Value.MORE and not older and AUTHORITY_RANK[proposal.authority] >= AUTHORITY_RANK[m.authority]:
            # Every value on file and more ("peanuts and eggs" after "peanuts"): the richer claim replaces
            # it, losing nothing; a hard constraint is listed to the family as a correction.
            return Decision(DecisionKind.SUPERSEDE, m, f"replaces memory {m.id} with a fuller statement of it")
        if protected(m) and why is Conflict.SLOT and (older or not proposal.marks_change):
            beside = beside or m  # maybe a second value, not a correction: both stay, linked
            continue
        if older:
            return Decision(DecisionKind.NOOP, m, f"older than memory {m.id}, which it would replace")
        if AUTHORITY_RANK[proposal.authority] < AUTHORITY_RANK[m.authority]:
            return Decision(
                DecisionKind.CONTRADICTION,
                m,
                f"contradicts memory {m.id} ({m.authority.value}) with lower authority ({proposal.authority.value})",
            )
        if protected(m) and proposal.authority is not Authority.USER_EXPLICIT:
            return Decision(
                DecisionKind.CONTRADICTION,
                m,
                f"{why.value} of memory {m.id}, a hard constraint only the family's explicit word replaces; "
                "recorded on it",
            )
        if protected(m):
            return Decision(
                DecisionKind.SUPERSEDE, m, f"replaces hard constraint {m.id} ({why.value}, said explicitly)"
            )
        return Decision(DecisionKind.SUPERSEDE, m, f"replaces memory {m.id} ({why.value})")
    for k in ranked:
        m = k.memory
        if m.status is Status.RETRACTED and same_claim(proposal, m):
            return Decision(DecisionKind.NOOP, m, f"the family forgot this (memory {m.id} is retracted)")
    if beside is not None:
        return Decision(
            DecisionKind.ADD,
            beside,
            f"kept beside hard constraint {beside.id}, which formation never replaces; the two are linked and the "
            "constraint is marked possibly replaced by this one, for the family to resolve",
        )
    return Decision(DecisionKind.ADD, None, "nothing like it yet")
