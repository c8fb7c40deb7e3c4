"""The offline extractor: one transcript's user turns, clause by clause, into raw candidates."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from family_memory.domain.family import FamilySettings
from family_memory.domain.memory import Authority, MemoryType, Sensitivity, Strength
from family_memory.domain.text import normalise_for_match
from family_memory.domain.transcript import Role, Transcript, Turn
from family_memory.formation import sensitivity
from family_memory.formation.candidate import Candidate, CitedTurns
from family_memory.formation.dates import find_dates, turn_day
from family_memory.formation.document import ExtractorInfo, ExtractorKind
from family_memory.formation.extraction import Extraction, Extractor, RetryPolicy
from family_memory.formation.offline import health, rules, timing
from family_memory.formation.offline.people import NAME, NOT_NAMES, OPAQUE, REL, People, Subject
from family_memory.formation.offline.text import Clause, clauses, first_found, object_of, sentence_case
from family_memory.formation.relations import CHILD_RELATIONS, PETS

OFFLINE_NAME = "offline-rules"
OFFLINE_VERSION = "1.0"
OFFLINE_LABEL = "offline rule-based extractor (explicit statements only; not a language model)"

_REQUEST = re.compile(
    r"^(?:(?:can|could|would|will)\s+(?:you|u|ya)\b|(?:please|pls|plz)\s+(?!check\b|ask\b|confirm\b|call me\b|"
    r"address me\b|always\b|never\b|don['’]?t\b|do not\b|remember\b|note\b)|remind me\b|help me\b|let['’]?s\b|"
    r"let us\b|i need you to\b|i want you to\b|i['’]?d like you to\b|"
    r"(?:what|when|where|who|how|why|which|is|are|do|does|did|should|shall|any)(?=\s|$))",
    re.I,
)
#: A possibility, not a fact: "we might get a dog", "maybe Saturday", "thinking about piano".
_HEDGE = re.compile(
    r"\b(?:might|maybe|perhaps|possibly|probably|prob|thinking (?:about|of)|considering|wondering|"
    r"(?:i|we)['’]?d (?:love|like) to|would (?:love|like) to|would be nice|hoping|hope to|not sure|undecided|"
    r"haven['’]?t decided|wants? to (?:try|start|get|do|go|have|see)|wanna|"
    r"we['’]ll see|someday|one day|at some point|could be|may or may not|"
    r"(?:i|we|he|she|they|you|it|u)\s+(?:may|might|could)(?:\s+\w+)?\s+(?!\d))\b",
    re.I,
)
#: A condition: "if it rains, ..." is no fact (a rule may still have one: "if he complains of pain, call me").
_IF = re.compile(r"\b(?:if|unless|in case of|whether)\b", re.I)
#: Someone else's words, reported: "dad said I can skip chores", "mum says we're allowed".
_REPORTED = re.compile(
    r"\b(?:said|says|told\s+(?:me|us|him|her|them)|tells\s+(?:me|us|him|her|them)|reckons|apparently|"
    r"according\s+to|swears|claims|asked\s+(?:to|if|whether|me|us|for))\b",
    re.I,
)
_EMBEDDED_HEALTH = re.compile(
    r"(?:^|[\s,])(?P<who>i['’]?m|im|i\s+am|she['’]?s|he['’]?s|[^\W\d_][\w-]+['’]s|[^\W\d_][\w-]+\s+is)\s+"
    r"(?:\w+\s+){0,2}?(?:a?l{1,2}[ae]r{1,2}gi?c|lactose|gluten|coeliac|celiac|vegetarian|vegan|diabetic)\b",
    re.I,
)
#: What only a person or a pet is said to be or do, right after their name.
_PERSON_PREDICATE = re.compile(
    r"^(?:['’]s|\s+(?:is|was))?\s+(?:(?:really|also|still|now|so|very|severely)\s+)*(?:a?l{1,2}[ae]r{1,2}gi?c|"
    r"lactose|gluten|coeliac|celiac|vegetarian|vegan|pescatarian|diabetic|intolerant|loves?|likes?|hates?|"
    r"adores?|prefers?|enjoys?|dislikes?|can['’]?t\s+(?:have|eat|drink|stand|be\s+left)|cannot|doesn['’]?t\s+(?:eat|like)|"
    r"needs\s+(?:his|her|their|a|an|the)\b|takes\s+(?:his|her|their)\b|has\s+(?:a|an)\s+\w+\s+allerg|"
    r"has\s+(?:coeliac|celiac|diabetes|asthma|an?\s+epi)|must\b|mustn['’]?t|favou?rite)",
    re.I,
)
_AT_HOME = re.compile(r"^(?P<where>(?:at|on|in)\s+(?:home|school|weekends|the\s+weekend))\s+(?=we\b)", re.I)
_FAVOURITE = re.compile(
    r"^(?P<whose>my|our)\s+(?P<fav>fav(?:ou?|o)?rite|fave|fav)\s+(?P<what>[\w ]{1,30}?)\s+(?:is|are)\s+(?P<obj>.+)$",
    re.I,
)
_POSSESSIVE_FAVOURITE = re.compile(
    r"^['’]s?\s+(?P<fav>fav(?:ou?|o)?rite|fave|fav)\s+(?P<what>[\w ]{1,30}?)\s+(?:is|are)\s+(?P<obj>.+)$", re.I
)
_FAVOURITE_IS = re.compile(
    r"^(?P<obj>[\w'’ -]{2,40}?)\s+(?:is|are)\s+(?P<whose>my|our)\s+(?P<fav>fav(?:ou?|o)?rite|fave|fav)"
    r"(?:\s+(?!(?:fr|tbh|lol|ever|of all time|by far)\b)(?P<what>[\w ]{1,30}?))?"
    r"(?:\s+(?:fr|tbh|lol|ever|of all time|by far))*$",
    re.I,
)
_PREFERENCE = re.compile(
    r"^\s+(?P<verb>(?:really\s+|absolutely\s+|totally\s+|also\s+)?(?:loves?|likes?|prefers?|enjoys?|adores?|hates?|"
    r"dislikes?|can['’]?t stand|cannot stand|doesn['’]?t like|don['’]?t like|does not like|do not like))\s+"
    r"(?P<obj>.+)$",
    re.I,
)
_RELATION_MENTION = re.compile(rf"\b(?i:my|our)\s+(?P<rel>(?i:{REL}))\s+(?P<name>{NAME})")
_RELATION_LOWER = re.compile(rf"\b(?:my|our)\s+(?P<rel>{REL})\s+(?P<name>[a-zß-ÿ][a-zß-ÿ-]+)\b")
_MY_REL_IS = re.compile(
    rf"^(?P<det>my|our)\s+(?P<q>best\s+|oldest\s+|youngest\s+|little\s+|big\s+)?(?P<rel>{REL})\s+is\s+"
    rf"(?P<name>[^\W\d_][\w-]+)$",
    re.I,
)
#: Words that open no liked or disliked thing: a pronoun, or a feeling ("hates not being useful",
#: "loves when we all eat together").
_NOT_A_THING = frozenset({"him", "her", "them", "one", "you", "u", "not", "when", "how", "whenever"})
_NOT_A_NAME = frozenset("coming here there home away sick ill fine great back out in at the a an so very also".split())  # noqa: SIM905
_RELATION_STATEMENT = re.compile(rf"^(?P<name>{NAME})\s+(?i:is)\s+(?i:my|our)\s+(?P<rel>(?i:{REL}))\b")
#: "the aide is Denise from Amherst Home Care", "our carer is Joy": who looks after someone, by name
#: (the words of ``sensitivity.CARER``), with where she comes from when the clause says it.
_CARER_IS = re.compile(
    rf"^(?P<det>the|our|my)\s+(?P<rel>(?:(?:home|health|home care|home health)\s+)?(?:aide|carer|caregiver|"
    rf"care worker|care assistant|support worker|home nurse|nurse))\s+is\s+(?P<name>{NAME})"
    rf"(?P<org>\s+from\s+(?:the\s+)?[A-Z][\w'’&-]*(?:\s+[A-Z][\w'’&-]*){{0,3}})?(?=\s*(?:[,.;]|$))"
)
#: Relations too loose to state as a relationship ("our girl Losa" is a term of affection).
_LOOSE_RELATIONS = frozenset({"girl", "boy", "kid", "child", "baby"})

_THIRD_PERSON = {
    "love": "loves",
    "like": "likes",
    "prefer": "prefers",
    "enjoy": "enjoys",
    "adore": "adores",
    "hate": "hates",
    "dislike": "dislikes",
    "can't stand": "cannot stand",
    "cant stand": "cannot stand",
    "cannot stand": "cannot stand",
    "don't like": "does not like",
    "dont like": "does not like",
    "doesn't like": "does not like",
    "doesnt like": "does not like",
    "do not like": "does not like",
    "does not like": "does not like",
}


#: Time words that name no day ("since last year"): an aside holding one is left out of a summary.
_VAGUE_TIME = re.compile(
    r"\b(?:since|from|for)\s+(?:last|this)\s+(?:year|month|summer|winter|spring|autumn|fall)\b|"
    r"\b(?:next|last)\s+(?:month|year)\b|\bin\s+a\s+(?:few|couple\s+of)\s+\w+\b|\b\w+\s+ago\b",
    re.I,
)


def _without_doubtful_aside(clause: Clause) -> Clause:
    """The clause without a trailing aside that hedges, sets a condition or names no day:
    "I get paid on the 28th every month, if you're ever planning big shops" states the pay day;
    "she can't sit on the floor, probably ever again" states the restriction."""
    parts = re.split(r",\s+|\s+[-–—]\s+", clause.core, maxsplit=1)
    if len(parts) < 2:
        return clause
    main, aside = parts
    doubtful = _HEDGE.search(aside) or _IF.search(aside) or _VAGUE_TIME.search(aside)
    if doubtful and not (_HEDGE.search(main) or _IF.search(main)) and len(main.split()) >= 3:
        # The quote stops where the claim does: the words after it are not what it rests on.
        at = clause.quote.find(main)
        quote = clause.quote[: at + len(main)] if at >= 0 else clause.quote
        return dataclasses.replace(clause, core=main, quote=quote)
    return clause


_HEALTH_TOPIC = re.compile(
    r"\b(?:dialysis|physio\w*|therap\w+|hospital|clinic|operation|surgery|hearing\s+test|health\s+visitor|"
    r"speech\s+and\s+language|cardiologist|gp|paediatrician|pediatrician|allerg\w+|grapefruit|medication|meds|"
    r"pills?|insulin|inhaler|puffer|epipen|diet|diabet\w*|coeliac|celiac|lactose|gluten|vegan|vegetarian|"
    r"appt\s+with\s+dr|dr\.?\s+\w+|cataracts?|eyesight|glaucoma|health\s+check\w*|check-?up\s+with\s+dr)\b",
    re.I,
)
_MONEY_TOPIC = re.compile(
    r"\b(?:salary|paid|pay\s+day|payday|pension|wages|rent|mortgage|loan|repayments?|debt|savings|budget|"
    r"benefits?|social\s+security|bank|bvn|account|fees)\b|[$£€₦]\s?\d|\b\d+k\b",
    re.I,
)
_CHILD_TOPIC = re.compile(
    r"\b(?:school|pick-?ups?|drop-?offs?|kita|daycare|kindergarten|nursery|homework|tiffin|babysit\w*|sitter|"
    r"nap|naps)\b",
    re.I,
)


#: The tags in their order of precedence.
_TOPICS = (
    (_HEALTH_TOPIC, Sensitivity.HEALTH),
    (_MONEY_TOPIC, Sensitivity.FINANCES),
    (_CHILD_TOPIC, Sensitivity.MINORS),
)


#: A sentence that gives the reason for the one before it: "The cold triggers his crises.",
#: "egg free bc of her allergy".
_EXPLAINS = re.compile(
    r"^(?:because|bc|cos|coz|cuz|since)\b|\b(?:triggers?|sets?\s+off|because\s+of|bc\s+of|due\s+to)\b", re.I
)


def _sentences_before(text: str) -> str:
    """The last sentence of ``text``, with the one before it when the last is a fragment
    ("Obinna has sickle cell. SS. So he has to drink a lot of water": "SS." alone says nothing)."""
    text = re.sub(r"\bso\s*$", "", text.strip(), flags=re.I)
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]
    taken: list[str] = []
    while sentences and sum(len(s.split()) for s in taken) < 3:
        taken.insert(0, sentences.pop())
    return " ".join(taken)


def _sentence_start(clause: Clause) -> int:
    """Where the clause's sentence starts in its turn."""
    at = clause.turn.text.rfind(clause.sentence[:24], 0, clause.start + 1)
    return at if at >= 0 else clause.start


#: Words that only agree with what was said to the speaker: "Ah you're right.", "good catch".
_AGREES = re.compile(
    r"^(?:(?:ah+|oh+|ok(?:ay)?|yes|yeah|yep|right|true|hmm+)[,!.\s]*)*(?:(?:you['’]?re|ur|u r|that['’]?s)\s+"
    r"(?:so\s+)?(?:right|correct)|good (?:catch|point)|fair (?:enough|point)|true)?"
    r"(?:[.!,\s]*(?:lol|haha\w*|thanks|thank you|ty))*[.!\s]*$",
    re.I,
)


def reason_before(clause: Clause, answered: str = "") -> str:
    """What a claim said with "so" rests on: the words before it in its sentence, or the sentence
    before it ("his eyes are not good after the cataract. so don't put him down for any pickup").
    Every clause of a sentence opened with "so" rests on it: "So he has to drink a lot of water,
    and his water bottle must always go to school with him". When those words only agree with
    the turn the speaker answers (``answered``: "Ah you're right. So Bright Stars first half by
    the 12th"), the claim rests on that turn."""
    text = clause.turn.text
    before = text[: clause.start]
    if re.match(r"(?i:so)\b", clause.quote) or re.search(r"\bso\s+$", before, re.I):
        reason = _sentences_before(before)
    else:
        start = _sentence_start(clause)
        if not (start < clause.start and re.match(r"\s*(?i:so)\b", text[start:])):
            return ""
        reason = _sentences_before(text[:start])
    return answered if _AGREES.fullmatch(reason) else reason


#: A turn that goes on from the speaker's last one: "and the final rehearsals are ...".
_CONTINUES_TURN = re.compile(r"^(?:and|also|plus)\b", re.I)
_SPEAKER_WORDS = re.compile(r"\b(?:i|i['’]m|im|i['’]ve|i['’]ll|me|my|we|we['’]re|our|us)\b", re.I)
#: Words that point back at things the turn answered named: "I'll grab the two that are ready".
_BACK_REFERENCE = re.compile(
    r"\bthe\s+(?:one|ones|two|three|four|both|rest)\s+(?:that|which|you)\b|\b(?:both|all)\s+of\s+those\b", re.I
)


def reason_after(clause: Clause) -> str:
    """The sentence right after the claim's when it gives the claim's reason: "Obinna's room, the
    AC must stay at 26 or off at night. The cold triggers his crises."."""
    text = clause.turn.text
    end = _sentence_start(clause) + len(clause.sentence)
    rest = text[end:].strip()
    following = re.split(r"(?<=[.!?])\s+", rest, maxsplit=1)[0] if rest else ""
    return following if _EXPLAINS.search(following) else ""


def topic_sensitivity(text: str, *, pets: bool = False) -> Sensitivity:
    """The tag the words of a claim call for: health, then finances, then minors (that order of
    precedence); normal when none. Words that name a workplace ("IT for the hospital") or a pet's
    care are set aside first, as validation does; ``pets``: the claim is about pets only, so
    medicines and doses are theirs, not anyone's health."""
    plain = sensitivity.without_other_care(normalise_for_match(text))
    found = first_found(plain, _TOPICS, Sensitivity.NORMAL)
    if found is not Sensitivity.HEALTH and not pets and sensitivity.medicine(plain):
        return Sensitivity.HEALTH
    if found in (Sensitivity.NORMAL, Sensitivity.MINORS) and sensitivity.is_finances(plain):
        return Sensitivity.FINANCES
    return found


class OfflineExtractor(Extractor):
    info = ExtractorInfo(name=OFFLINE_NAME, version=OFFLINE_VERSION, kind=ExtractorKind.OFFLINE, label=OFFLINE_LABEL)

    def __init__(self) -> None:
        super().__init__(RetryPolicy(max_attempts=1))

    def _extract(self, transcript: Transcript, family: FamilySettings) -> Extraction:
        run = Run(transcript, family)
        for turn in transcript.turns:
            if turn.role is Role.USER:
                run.read_turn(turn)
        return Extraction(candidates=[c.model_dump(mode="json") for c in run.candidates])


class Run:
    """One transcript's worth of extraction state (its people, what was already proposed)."""

    def __init__(self, transcript: Transcript, family: FamilySettings) -> None:
        self.transcript = transcript
        self.family = family
        self.people = People(transcript, family)
        self.candidates: list[Candidate] = []
        self._seen: set[tuple[str, str]] = set()

    @staticmethod
    def health_words(text: str) -> bool:
        return health.health_words(text)

    @staticmethod
    def base(subject: Subject) -> dict[str, Any]:
        return {
            "applies_to": list(subject.applies_to),
            "about_member": subject.about_member,
            "entities": [subject.hint] if subject.hint else [],
        }

    def propose(self, clause: Clause, context: str = "", **fields: Any) -> None:
        """Propose a candidate from ``clause``. ``context``: words the claim rests on beyond its
        own (the house rules a routine is one of), read for its sensitivity only."""
        fields.setdefault("evidence", [CitedTurns(turns=[clause.turn.n], quote=clause.quote)])
        if fields.get("sensitivity", Sensitivity.NORMAL) is Sensitivity.NORMAL:
            # Validation raises a tag too, and never lowers one; these are the words that make a
            # claim sensitive however it is phrased (a dialysis schedule, a pay day, a school run).
            # A claim is as sensitive as what it rests on: the reason it was said with "so" (an
            # eyesight, a diagnosis), the sentence after it that gives its reason, and the earlier
            # turn its "her" or "him" points to ("luis takes her mon and wed": to dialysis), and
            # the turn it answers when it points back at what that turn named ("the two that are ready").
            # A claim that goes on from the speaker's last turn naming no one is about that turn's child.
            leans_on = " ".join(t.text for t in self.people.earlier_referents(clause.quote, clause.turn, clause.start))
            answered = self.answered(clause.turn)
            said = " ".join(
                (
                    fields.get("summary", ""),
                    clause.quote,
                    reason_before(clause, answered),
                    reason_after(clause),
                    answered if _BACK_REFERENCE.search(clause.quote) else "",
                    leans_on,
                    context,
                )
            )
            applies_to = fields.get("applies_to", [])
            tag = topic_sensitivity(said, pets=self._pets_only(applies_to))
            if tag is Sensitivity.NORMAL and self.continues_about_a_child(clause, applies_to):
                tag = Sensitivity.MINORS
            fields["sensitivity"] = tag
        candidate = Candidate(**fields)
        key = (candidate.type.value, normalise_for_match(candidate.summary))
        if key not in self._seen:
            self._seen.add(key)
            self.candidates.append(candidate)

    def continues_about_a_child(self, clause: Clause, applies_to: list[str]) -> bool:
        """Whether the clause opens its turn with "and" or "also", names no one, and so goes on
        about the child the speaker's previous turn was about ("valeria's fitting went great, the
        dress needs hemming" then "and the final rehearsals at the salón are june 16 to 19")."""
        if applies_to or clause.turn.text[: clause.start].strip() or not _CONTINUES_TURN.match(clause.quote):
            return False
        if _SPEAKER_WORDS.search(clause.sentence) or self.people.mentions(clause.sentence, clause.turn.member_id):
            return False  # "and the dojang has an open class for parents, i'm going to try it": the speaker's
        turns = self.transcript.turns
        index = next((i for i, t in enumerate(turns) if t.n == clause.turn.n), 0)
        previous = next((t for t in reversed(turns[max(0, index - 2) : index]) if t.role is Role.USER), None)
        if previous is None or previous.member_id != clause.turn.member_id:
            return False
        about = self.people.mentions(previous.text, previous.member_id)
        return bool(about) and all(
            s.child or (s.kind == "member" and self.people.is_child(s.applies_to[0])) for s in about
        )

    def answered(self, turn: Turn) -> str:
        """The words of the turn right before ``turn`` (what the speaker answers), unless a tool's."""
        turns = self.transcript.turns
        index = next((i for i, t in enumerate(turns) if t.n == turn.n), 0)
        previous = turns[index - 1] if index > 0 else None
        return previous.text if previous is not None and previous.role is not Role.TOOL else ""

    def _pets_only(self, applies_to: list[str]) -> bool:
        """Whether every subject the claim applies to is a pet the conversation named as one."""
        named = [self.people.named(name, initial=False) for name in applies_to]
        return bool(named) and all(s is not None and s.kind == "pet" for s in named)

    def read_turn(self, turn: Turn) -> None:
        assert turn.member_id is not None  # user turns always name their member
        self.people.learn(turn)
        today = turn_day(turn.at or self.transcript.started_at, self.transcript.time_zone)
        child = self.people.is_child(turn.member_id)
        for clause in clauses(turn, today):
            self.relationships(clause)  # "my brother rafa can cover if one of us is sick": still her brother
            self.carer(clause)
            clause = _without_doubtful_aside(clause)
            if _HEDGE.search(clause.core) or (child and _REPORTED.search(clause.sentence)):
                continue  # a possibility, or a child's report of what a parent allowed
            if clause.question:
                continue
            if health.no_food_for(self, clause):
                continue
            if rules.directive(self, clause):
                continue
            if _IF.search(clause.core):
                continue
            if _REQUEST.match(clause.core) or re.search(r"\b(?:can|could) (?:you|u) remind\b", clause.core, re.I):
                continue
            if _REPORTED.search(clause.core) and not re.search(
                r"\b(?:doctor|dr|gp|nurse|consultant)\b", clause.core, re.I
            ):
                continue
            self.statement(clause)

    def relationships(self, clause: Clause) -> None:
        speaker = clause.turn.member_id or ""
        mentions = [
            (m.group("rel"), m.group("name"), "our" if m.group(0).lower().startswith("our") else "my")
            for m in _RELATION_MENTION.finditer(clause.quote)
        ]
        # "my brother rafa": a name typed in lower case, that the conversation writes as a name.
        for m in _RELATION_LOWER.finditer(clause.quote):
            word = m.group("name")
            named = self.people.named(word, initial=False, lower_loose=True)
            if named is not None and named.kind in ("person", "member"):
                mentions.append(
                    (m.group("rel"), named.display, "our" if m.group(0).lower().startswith("our") else "my")
                )
        if (said := _MY_REL_IS.match(clause.core)) and said.group("name").lower() not in _NOT_A_NAME:
            # "my best friend is jiho": the name after it, as the family writes it.
            name = said.group("name")
            rel = f"{(said.group('q') or '').strip()} {said.group('rel')}".strip()
            mentions.append((rel, name[:1].upper() + name[1:], said.group("det").lower()))
        if statement := _RELATION_STATEMENT.match(clause.core):
            determiner = "our" if " our " in statement.group(0).lower() else "my"
            mentions.append((statement.group("rel"), statement.group("name"), determiner))
        for rel, name, determiner in mentions:
            if name in NOT_NAMES or rel.lower() in _LOOSE_RELATIONS:
                continue
            quote = _phrase_in(clause.quote, name, rel)
            subject = self.people.relation(speaker, rel, name, determiner)
            rel = rel.lower()
            if rel in PETS:
                summary, sensitivity = f"{name} is the family's {rel}.", Sensitivity.NORMAL
            elif rel in CHILD_RELATIONS:
                summary, sensitivity = f"{name} is the family's {rel}.", Sensitivity.MINORS
            else:
                summary, sensitivity = f"{name} is {self.people.speaker_name(speaker)}'s {rel}.", Sensitivity.NORMAL
            self.propose(
                clause,
                type=MemoryType.RELATIONSHIP,
                about=name,
                summary=summary,
                when_to_use=f"Whenever {name} comes up",
                applies_to=[subject.applies_to[0]],
                entities=[subject.hint] if subject.hint else [],
                authority=Authority.USER_EXPLICIT,
                confidence=0.9,
                sensitivity=sensitivity,
                evidence=[CitedTurns(turns=[clause.turn.n], quote=quote)],
            )

    def carer(self, clause: Clause) -> None:
        """ "the aide is Denise from Amherst Home Care": a relationship, tagged health (someone's care
        is who comes to give it), whose entity keeps the relationship so a later conversation's
        "denise is on vacation" is health too (``sensitivity.carer_names``)."""
        said = _CARER_IS.match(clause.core)
        if said is None or said.group("name") in NOT_NAMES:
            return
        name, rel = said.group("name"), said.group("rel").lower()
        whose = (
            "the family's"
            if said.group("det").lower() != "my"
            else f"{self.people.speaker_name(clause.turn.member_id or '')}'s"
        )
        origin = said.group("org") or ""
        subject = self.people.relation(clause.turn.member_id or "", rel, name, said.group("det"))
        self.propose(
            clause,
            type=MemoryType.RELATIONSHIP,
            about=name,
            summary=f"{name}{origin} is {whose} {rel}.",
            when_to_use=f"Whenever {name} comes up",
            applies_to=[subject.applies_to[0]],
            entities=[subject.hint] if subject.hint else [],
            authority=Authority.USER_EXPLICIT,
            confidence=0.9,
            sensitivity=Sensitivity.HEALTH,
            evidence=[CitedTurns(turns=[clause.turn.n], quote=said.group(0))],
        )

    def statement(self, clause: Clause) -> None:
        core = clause.core
        speaker = clause.turn.member_id or ""
        if match := _FAVOURITE.match(core):
            subject = (
                self.people.speaker(speaker)
                if match.group("whose").lower() == "my"
                else Subject("household", "The family", ())
            )
            self._favourite(clause, subject, match.group("what"), object_of(match.group("obj")), match.group("fav"))
            return
        if match := _FAVOURITE_IS.match(core):
            # "geckos are my favourite animal", "common kings is my fav".
            subject = (
                self.people.speaker(speaker)
                if match.group("whose").lower() == "my"
                else Subject("household", "The family", ())
            )
            what = (match.group("what") or "").strip()
            self._favourite(clause, subject, what, object_of(match.group("obj")), match.group("fav"))
            return
        parsed = self.people.subject(core, clause.turn, clause.start)
        if parsed is None and (place := _AT_HOME.match(core)):
            # "at home we cook only veg": the household, where the rule holds.
            found = self.people.subject(core[place.end() :], clause.turn, clause.start + place.end())
            if found is not None and found[0].kind == "household":
                where = place.group("where")
                parsed = (Subject("household", f"{where[:1].upper()}{where[1:]}, the family", ()), found[1])
        if parsed is None:
            # "Leo loves swimming": a name the conversation has not introduced, before what only
            # a person (or a pet) is said to be or do.
            named = self.people.subject(core, clause.turn, clause.start, predicate=_PERSON_PREDICATE)
            if named is not None:
                parsed = named
        if parsed is None and (inner := _EMBEDDED_HEALTH.search(core)):
            # "random but i'm allergic to cats", "bro im allergic to peanuts": the statement inside.
            at = inner.start("who")
            found = self.people.subject(core[at:], clause.turn, clause.start + at)
            if found is not None and health.constraint(self, clause, *found):
                return
        if parsed is not None:
            subject, rest = parsed
            if match := _POSSESSIVE_FAVOURITE.match(rest):
                self._favourite(clause, subject, match.group("what"), object_of(match.group("obj")), match.group("fav"))
                return
            if health.constraint(self, clause, subject, rest):
                return
            if rules.person_rule(self, clause, subject, rest):
                return
        if _REPORTED.search(core):
            return  # a doctor's words are kept as a rule or a restriction, not as the family's plans
        if parsed is None and rules.house_routine(self, clause):
            return
        if timing.dated(self, clause):
            return
        if parsed is not None:
            self._preference(clause, *parsed)

    def _preference(self, clause: Clause, subject: Subject, rest: str) -> None:
        match = _PREFERENCE.match(rest)
        if match is None:
            return
        verb = re.sub(r"^(?:really|absolutely|totally|also)\s+", "", normalise_for_match(match.group("verb")))
        verb = verb.replace("’", "'")
        third = _THIRD_PERSON.get(verb, verb)
        obj = object_of(match.group("obj"))
        words = obj.lower().split()
        if not words or words[0] in OPAQUE or words[0] in _NOT_A_THING:
            return  # "Sam does not like it", "she hates not being useful": no thing the clause names
        if find_dates(obj, clause.today):
            return
        self.propose(
            clause,
            type=MemoryType.PREFERENCE,
            about=f"{obj[:1].upper()}{obj[1:]} ({subject.label})",
            summary=sentence_case(f"{subject.display} {third} {obj}"),
            when_to_use=f"Suggestions or plans involving {obj}",
            strength=Strength.SOFT,
            authority=Authority.USER_IMPLICIT,
            confidence=0.75,
            **self.base(subject),
        )

    def _favourite(self, clause: Clause, subject: Subject, what: str, obj: str, word: str = "favourite") -> None:
        """ "my favourite food is pierogi": written with the family's own word ("fav", "favorite")."""
        word = word.lower()
        words = obj.lower().split()
        if not words or words[0] in OPAQUE:
            return
        summary = f"{subject.display}'s {word} {what} is {obj}" if what else f"{obj} is {subject.display}'s {word}"
        self.propose(
            clause,
            type=MemoryType.PREFERENCE,
            about=f"Favourite {what or obj} ({subject.label})",
            summary=sentence_case(summary),
            when_to_use=f"Suggestions involving {what}",
            authority=Authority.USER_IMPLICIT,
            confidence=0.75,
            **self.base(subject),
        )


def _phrase_in(quote: str, name: str, rel: str) -> str:
    """The shortest piece of the clause that states the relationship ("my daughter Maya")."""
    match = re.search(rf"\b(?:my|our)\s+{re.escape(rel)}\s+{re.escape(name)}\b", quote, re.I)
    if match is None:
        match = re.search(rf"\b{re.escape(name)}\s+is\s+(?:my|our)\s+{re.escape(rel)}\b", quote, re.I)
    if match is None:
        match = re.search(rf"\b(?:my|our)\s+{re.escape(rel)}\s+is\s+{re.escape(name)}\b", quote, re.I)
    return match.group(0) if match else quote
