"""The offline extractor: a real, modest, rule-based extractor for explicit statements.

It reads only what family members wrote (user turns; never assistant or tool
turns), clause by clause, and proposes a candidate when a clause matches one
of its patterns. Every quote is the clause exactly as written, so validation
finds it in the cited turn. It understands:

- standing instructions: "always …", "never …", "don't …", "check with me
  before …", "call me …", "from now on …";
- constraints: allergies, diets, what someone can't eat, medication (tagged
  health);
- identity and relationships: "my daughter Maya", "our dog Pepper", "my name is …";
- preferences: "we love …", "she prefers …", "my favourite … is …";
- dated facts, with relative dates made absolute against the turn's local
  date: "pizza night is tonight", "Monday is a holiday", "next Friday". What
  is past ("last Friday was pizza night", "Maya was sick on Monday") is left
  alone: it is not a plan, and a fact about a past day has nothing to expire.

It is not a language model and does not pretend to be one: it is labelled
"offline rule-based extractor" wherever its output appears, and it misses
anything said less directly. Production extraction uses Bedrock.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from family_memory.domain.entity import EntityKind
from family_memory.domain.family import FamilySettings
from family_memory.domain.memory import Authority, Durability, MemoryType, Sensitivity, Strength
from family_memory.domain.text import normalise_for_match
from family_memory.domain.transcript import Role, Transcript, Turn
from family_memory.formation.candidate import Candidate, CitedTurns, EntityHint
from family_memory.formation.dates import DateMention, find_dates, turn_day
from family_memory.formation.document import ExtractorInfo, ExtractorKind
from family_memory.formation.extraction import Extraction, Extractor, RetryPolicy
from family_memory.formation.relations import CHILD_RELATIONS, PETS, RELATION_WORDS

OFFLINE_NAME = "offline-rules"
OFFLINE_VERSION = "1.0"
OFFLINE_LABEL = "offline rule-based extractor (explicit statements only; not a language model)"

_REL = "|".join(sorted(RELATION_WORDS, key=len, reverse=True))
_NAME = r"[A-ZÀ-Þ][a-zß-ÿ]+(?:-[A-ZÀ-Þa-zß-ÿ]+)?"
NOT_NAMES = frozenset(
    """I The This That These Those There Here We Our My Your Please Also And But So It Its Oh Ok Okay Yes No Hi Hello
    Hey Thanks Thank Just Remember Note Btw Fyi Monday Tuesday Wednesday Thursday Friday Saturday Sunday Today
    Tonight Tomorrow Next Every Always Never Don't Do From Going In On At For With Can Could Would Will What When
    Where Who How Why Is Are Let Let's Sure Great Perfect""".split()  # noqa: SIM905
)

_CLAUSE_BREAK = re.compile(
    r",\s+(?:and|but|so)\s+|;\s+|\s+[-–—]\s+|(?<=[.!?])\s+|\n+|\s+so\s+(?=(?:no|we|i|she|he|they|it|there)\b)", re.I
)
_FILLER = re.compile(
    r"^(?:(?:oh|ok|okay|also|and|but|so|btw|by the way|just so you know|fyi|remember(?: that)?|"
    r"please note(?: that)?|note that|one more thing|quick thing|heads up|actually|hi|hey|hello|thanks),?\s+)+",
    re.I,
)
_REQUEST = re.compile(
    r"^(?:(?:can|could|would|will) you\b|please (?!check\b|ask\b|confirm\b|call me\b|address me\b|always\b|never\b|"
    r"don['’]?t\b|do not\b|remember\b)|remind me\b|help me\b|let['’]?s\b|let us\b|i need you to\b|i want you to\b|"
    r"(?:what|when|where|who|how|why|is|are|do|does|did|should|shall)\b)",
    re.I,
)

_ALWAYS = re.compile(r"^(?:please\s+)?always\s+(?P<rest>.+)$", re.I)
_NEVER = re.compile(r"^(?:please\s+)?(?:never|don['’]?t ever|do not ever)\s+(?P<rest>.+)$", re.I)
_DONT = re.compile(
    r"^(?:please\s+)?(?:don['’]?t|do not)\s+(?!worry\b|forget\b|mind\b|bother\b|know\b|think\b)(?P<rest>.+)$", re.I
)
_CHECK = re.compile(
    r"^(?:please\s+)?(?:(?:check|confirm)\s+with\s+me|ask\s+me)\s+(?:first\s+)?before\s+(?P<rest>.+)$", re.I
)
_CALL_ME = re.compile(rf"^(?i:please\s+)?(?i:call|address)\s+me\s+(?:(?i:as)\s+)?(?P<name>{_NAME})")
_FROM_NOW = re.compile(r"^(?:from now on|going forward|in (?:the )?future),?\s+(?P<rest>.+)$", re.I)
_NAME_IS = re.compile(rf"^(?i:my name is|i go by)\s+(?P<name>{_NAME})")
_FAVOURITE = re.compile(r"^(?P<whose>my|our)\s+favou?rite\s+(?P<what>[\w ]{1,30}?)\s+(?:is|are)\s+(?P<obj>.+)$", re.I)

_BE = r"(?:\s+(?:is|are|am)|['’](?:s|re|m))"
_ALLERGY = re.compile(
    _BE + r"\s+(?:(?:very|severely|really|super|deathly|also|mildly|now)\s+)*allergic\s+to\s+(?P<obj>.+)$", re.I
)
_DIET = re.compile(
    _BE + r"\s+(?:(?:a|now|strictly|also|fully)\s+)*(?P<obj>vegetarian|vegan|pescatarian|gluten[- ]free|"
    r"dairy[- ]free|lactose[- ]intolerant|diabetic|celiac|coeliac|kosher|halal)\b",
    re.I,
)
_CANT_EAT = re.compile(
    r"\s+(?P<neg>can['’]?t|cannot|can not|doesn['’]?t|does not|don['’]?t|do not|shouldn['’]?t|must not|mustn['’]?t)"
    r"\s+(?P<verb>eat|have|drink)\s+(?P<obj>.+)$",
    re.I,
)
_MEDICATION = re.compile(
    r"(?P<verb>\s+(?:takes|take|needs|need|is on|are on)|['’]s on)\s+(?P<obj>(?:(?:her|his|their|my|its|the)\s+)?"
    r"(?:[\w-]+\s+){0,2}(?:pills?|medication|medicine|meds|insulin|inhaler|antibiotics|tablets?|drops|shots?)\b.*)$",
    re.I,
)
_PREFERENCE = re.compile(
    r"\s+(?P<verb>(?:really\s+|absolutely\s+)?(?:loves?|likes?|prefers?|enjoys?|adores?|hates?|dislikes?|"
    r"can['’]?t stand|cannot stand|doesn['’]?t like|don['’]?t like|does not like|do not like))\s+(?P<obj>.+)$",
    re.I,
)
_POSSESSIVE_FAVOURITE = re.compile(r"^['’]s?\s+favou?rite\s+(?P<what>[\w ]{1,30}?)\s+(?:is|are)\s+(?P<obj>.+)$", re.I)
_RELATION_MENTION = re.compile(rf"\b(?i:my|our)\s+(?P<rel>(?i:{_REL}))\s+(?P<name>{_NAME})")
_RELATION_STATEMENT = re.compile(rf"^(?P<name>{_NAME})\s+(?i:is)\s+(?i:my|our)\s+(?P<rel>(?i:{_REL}))\b")
_OBJECT_END = re.compile(r"\s+(?:because|since|as|though|although|which|when|so)\b.*$", re.I)

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


@dataclass(frozen=True)
class Subject:
    """Who a clause is about."""

    kind: str  # speaker | household | person | relation | pet
    display: str  # how a summary names them: "Lucía", "The family", "Maya", "Lucía's daughter"
    applies_to: tuple[str, ...]
    hint: EntityHint | None = None
    about_member: str | None = None

    @property
    def label(self) -> str:
        """How an ``about`` line names them, mid-sentence."""
        return "the family" if self.kind == "household" else self.display


@dataclass(frozen=True)
class Clause:
    turn: Turn
    quote: str  # exactly as written in the turn
    core: str  # the quote without leading fillers ("oh, and ...")
    question: bool


def _clauses(turn: Turn) -> Iterator[Clause]:
    text = turn.text
    start = 0
    for match in [*_CLAUSE_BREAK.finditer(text), None]:
        end = match.start() if match else len(text)
        raw = text[start:end]
        start = match.end() if match else len(text)
        stripped = raw.strip()
        question = stripped.endswith("?")
        quote = stripped.rstrip(".!?,;: ").strip()
        if len(quote) < 3:
            continue
        core = _FILLER.sub("", quote).strip()
        if core:
            yield Clause(turn, quote, core, question)


def _sentence(text: str) -> str:
    text = " ".join(text.split()).strip(" .,;:")
    return (text[:1].upper() + text[1:] + ".") if text else text


def _short(text: str, words: int = 8, limit: int = 80) -> str:
    parts = text.split()
    short = " ".join(parts[:words])
    if len(parts) > words:
        short += "…"
    return short[:limit]


_FIRST_PERSON = re.compile(r"\b(?:i['’]m|i|me|myself|my|mine)\b", re.I)


def _first_person_to(text: str, name: str) -> tuple[str, bool]:
    """``text`` with the speaker's first-person words replaced by their name ("check with me"
    -> "check with Ana", "my car" -> "Ana's car"), and whether there were any."""

    def named(match: re.Match[str]) -> str:
        word = normalise_for_match(match.group(0)).replace("’", "'")
        if word == "i'm":
            return f"{name} is"
        return f"{name}'s" if word in ("my", "mine") else name

    replaced, count = _FIRST_PERSON.subn(named, text)
    return replaced, count > 0


def _object(text: str) -> str:
    """The thing a predicate is about, without trailing asides ("Thai food, by the way")."""
    text = re.split(r"[,;:(]", text, maxsplit=1)[0]
    return _OBJECT_END.sub("", text).strip(" .,;:!?")[:100]


class OfflineExtractor(Extractor):
    info = ExtractorInfo(name=OFFLINE_NAME, version=OFFLINE_VERSION, kind=ExtractorKind.OFFLINE, label=OFFLINE_LABEL)

    def __init__(self) -> None:
        super().__init__(RetryPolicy(max_attempts=1))

    def _extract(self, transcript: Transcript, family: FamilySettings) -> Extraction:
        run = _Run(transcript, family)
        for turn in transcript.turns:
            if turn.role is Role.USER:
                run.read_turn(turn)
        return Extraction(candidates=[c.model_dump(mode="json") for c in run.candidates])


class _Run:
    """One transcript's worth of extraction state (speakers, what was already proposed)."""

    def __init__(self, transcript: Transcript, family: FamilySettings) -> None:
        self.transcript = transcript
        self.family = family
        self.candidates: list[Candidate] = []
        self._seen: set[tuple[str, str]] = set()

    # --- people -------------------------------------------------------------

    def speaker_name(self, member_id: str) -> str:
        member = self.family.member(member_id)
        if member is not None:
            return member.name.split()[0]
        return member_id[:1].upper() + member_id[1:]

    def speaker_full_name(self, member_id: str) -> str:
        member = self.family.member(member_id)
        return member.name if member is not None else self.speaker_name(member_id)

    def member_named(self, name: str) -> str | None:
        wanted = normalise_for_match(name)
        for member in self.family.members:
            names = {normalise_for_match(member.name), normalise_for_match(member.name.split()[0])}
            if member.address_as:
                names.add(normalise_for_match(member.address_as))
            if wanted in names or wanted == normalise_for_match(member.id):
                return member.id
        return None

    def relation_subject(self, speaker: str, rel: str, name: str | None, determiner: str) -> Subject:
        rel = rel.lower()
        alias = f"{determiner.lower()} {rel}"
        if rel in PETS:
            kind = EntityKind.PET
            display = name or f"The family's {rel}"
        else:
            kind = EntityKind.PERSON
            display = name or f"{self.speaker_name(speaker)}'s {rel}"
        member_id = self.member_named(name) if name else None
        hint = EntityHint(name=name or display, kind=kind, aliases=[alias], relationship=rel, member_id=member_id)
        return Subject("pet" if rel in PETS else "relation", display, (name or alias,), hint)

    def subject(self, core: str, speaker: str) -> tuple[Subject, str] | None:
        """Who the clause is about and the rest of the clause after the subject."""
        if match := re.match(r"(?i:i)(?=['’\s])", core):
            name = self.speaker_name(speaker)
            return Subject("speaker", name, (speaker,), None, speaker), core[match.end() :]
        if match := re.match(r"(?i:we)(?=['’\s])", core):
            return Subject("household", "The family", ()), core[match.end() :]
        if match := re.match(
            rf"(?P<det>(?i:my|our))\s+(?P<rel>(?i:{_REL}))(?:\s+(?P<name>{_NAME}))?(?=['’\s,]|$)", core
        ):
            rel_name: str | None = match.group("name")
            end = match.end()
            if rel_name in NOT_NAMES:
                rel_name, end = None, match.end("rel")
            return self.relation_subject(speaker, match.group("rel"), rel_name, match.group("det")), core[end:]
        if match := re.match(rf"(?P<name>{_NAME})(?=['’\s])", core):
            name = match.group("name")
            if name in NOT_NAMES:
                return None
            member_id = self.member_named(name)
            hint = EntityHint(name=name, member_id=member_id)
            return Subject("person", name, (member_id or name,), hint), core[match.end() :]
        return None

    # --- proposals ------------------------------------------------------------

    def propose(self, clause: Clause, **fields: Any) -> None:
        fields.setdefault("evidence", [CitedTurns(turns=[clause.turn.n], quote=clause.quote)])
        candidate = Candidate(**fields)
        key = (candidate.type.value, normalise_for_match(candidate.summary))
        if key not in self._seen:
            self._seen.add(key)
            self.candidates.append(candidate)

    def read_turn(self, turn: Turn) -> None:
        assert turn.member_id is not None  # user turns always name their member
        today = turn_day(turn.at or self.transcript.started_at, self.transcript.time_zone)
        for clause in _clauses(turn):
            self.relationships(clause, turn.member_id)
            if clause.question:
                continue
            if self.directive(clause, turn.member_id):
                continue
            if _REQUEST.match(clause.core):
                continue
            dates = find_dates(clause.core, today)
            if any(d.past for d in dates):
                continue  # "last Friday was pizza night": history, not a plan to remember with an end date
            if dates:
                self.dated_fact(clause, turn.member_id, dates[0])
                continue
            self.statement(clause, turn.member_id)

    def directive(self, clause: Clause, speaker: str) -> bool:
        core = clause.core
        common: dict[str, Any] = {
            "type": MemoryType.DIRECTIVE,
            "strength": Strength.HARD,
            "authority": Authority.USER_EXPLICIT,
            "confidence": 0.95,
            "durability": Durability.DURABLE,
        }
        speaker_name = self.speaker_name(speaker)
        if match := _CALL_ME.match(core):
            name = match.group("name")
            full = self.speaker_full_name(speaker)
            self.propose(
                clause,
                about=f"How to address {speaker_name}",
                summary=f"Address {full} as {name}.",
                body=f"{full} asked to be called {name}.",
                when_to_use=f"Greeting or addressing {speaker_name}",
                applies_to=[speaker],
                about_member=speaker,
                entities=[EntityHint(name=full, member_id=speaker, aliases=[name])],
                **common,
            )
            return True
        if match := _CHECK.match(core):
            rest = match.group("rest").strip(" .")
            self.propose(
                clause,
                about=f"Check with {speaker_name} before {_short(rest, 6)}",
                summary=_sentence(f"Check with {speaker_name} before {rest}"),
                body=_sentence(
                    f"{speaker_name} asked: check with them before {rest}; show the draft and wait for a yes"
                ),
                when_to_use=_sentence(f"Before {rest}"),
                applies_to=[speaker],
                **common,
            )
            return True
        for pattern, lead in ((_NEVER, "Never"), (_ALWAYS, "Always"), (_FROM_NOW, "From now on,"), (_DONT, "Do not")):
            if match := pattern.match(core):
                rest, personal = _first_person_to(match.group("rest").strip(" ."), speaker_name)
                instruction = _sentence(f"{lead} {rest}")
                # "Always check with me before ..." is the speaker's own instruction: it applies to them.
                whose: dict[str, Any] = {"applies_to": [speaker], "about_member": speaker} if personal else {}
                self.propose(
                    clause,
                    about=_short(instruction.rstrip("."), 8),
                    summary=instruction,
                    body=_sentence(f"{speaker_name} said: {clause.quote}"),
                    when_to_use=_sentence(f"Whenever this comes up: {_short(rest, 10)}"),
                    **common,
                    **whose,
                )
                return True
        if match := _NAME_IS.match(core):
            name = match.group("name")
            self.propose(
                clause,
                type=MemoryType.IDENTITY,
                about=f"{speaker_name}'s name",
                summary=f"{self.speaker_full_name(speaker)} goes by {name}.",
                when_to_use=f"Addressing or mentioning {speaker_name}",
                applies_to=[speaker],
                about_member=speaker,
                entities=[EntityHint(name=self.speaker_full_name(speaker), member_id=speaker, aliases=[name])],
                authority=Authority.USER_EXPLICIT,
                confidence=0.9,
            )
            return True
        return False

    def relationships(self, clause: Clause, speaker: str) -> None:
        mentions = [
            (m.group("rel"), m.group("name"), "my" if " my " in f" {m.group(0).lower()}" else "our")
            for m in _RELATION_MENTION.finditer(clause.quote)
        ]
        if statement := _RELATION_STATEMENT.match(clause.core):
            determiner = "our" if " our " in statement.group(0).lower() else "my"
            mentions.append((statement.group("rel"), statement.group("name"), determiner))
        for rel, name, determiner in mentions:
            if name in NOT_NAMES:
                continue
            subject = self.relation_subject(speaker, rel, name, determiner)
            rel = rel.lower()
            if rel in PETS:
                summary, sensitivity = f"{name} is the family's {rel}.", Sensitivity.NORMAL
            elif rel in CHILD_RELATIONS:
                summary, sensitivity = f"{name} is the family's {rel}.", Sensitivity.MINORS
            else:
                summary, sensitivity = f"{name} is {self.speaker_name(speaker)}'s {rel}.", Sensitivity.NORMAL
            quote = self._phrase_in(clause.quote, name, rel)
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

    @staticmethod
    def _phrase_in(quote: str, name: str, rel: str) -> str:
        """The shortest piece of the clause that states the relationship ("my daughter Maya")."""
        match = re.search(rf"\b(?:my|our)\s+{re.escape(rel)}\s+{re.escape(name)}\b", quote, re.I)
        if match is None:
            match = re.search(rf"\b{re.escape(name)}\s+is\s+(?:my|our)\s+{re.escape(rel)}\b", quote, re.I)
        return match.group(0) if match else quote

    def dated_fact(self, clause: Clause, speaker: str, when: DateMention) -> None:
        core = clause.core
        phrase = core[when.start : when.end]
        named_day = f"{when.first_day:%A}".lower() in phrase.lower() and when.first_day == when.last_day
        stated = (
            core[: when.end] + f" ({when.first_day.isoformat() if named_day else when.describe()})" + core[when.end :]
        )
        about_match = re.match(rf"^(?P<x>.+?)\s+(?:is|are|will be|'s)\s+(?:on\s+)?{re.escape(phrase)}$", core, re.I)
        lead_match = re.match(rf"^{re.escape(phrase)}\s+(?:is|will be)\s+(?P<x>.+)$", core, re.I)
        if about_match:
            about = about_match.group("x")
        elif lead_match:
            thing = re.sub(r"^(?:a|an|the)\s+", "", lead_match.group("x"), flags=re.I)
            about = f"{thing[:1].upper()}{thing[1:]} on {phrase[:1].upper()}{phrase[1:]}"
        else:
            about = _short((core[: when.start] + core[when.end :]).strip(" ,"), 8) or core
        members = [m.id for m in self.family.members if re.search(rf"\b{re.escape(m.name.split()[0])}\b", core)]
        if re.match(r"(?i:i|my)\b", core) and speaker not in members:
            members.insert(0, speaker)
        self.propose(
            clause,
            type=MemoryType.FACT,
            about=_short(about, 10, 100),
            summary=_sentence(stated),
            body=_sentence(f"{self.speaker_name(speaker)} said: {clause.quote}") + f" ({when.describe()}.)",
            when_to_use=f"Plans for {when.describe()}",
            durability=Durability.PASSING,
            valid_until=when.valid_until.isoformat(),
            applies_to=members,
            authority=Authority.USER_IMPLICIT,
            confidence=0.8,
        )

    def statement(self, clause: Clause, speaker: str) -> None:
        core = clause.core
        if match := _FAVOURITE.match(core):
            subject = (
                Subject("speaker", self.speaker_name(speaker), (speaker,), None, speaker)
                if match.group("whose").lower() == "my"
                else Subject("household", "The family", ())
            )
            self._favourite(clause, subject, match.group("what"), _object(match.group("obj")))
            return
        parsed = self.subject(core, speaker)
        if parsed is None:
            return
        subject, rest = parsed
        if match := _POSSESSIVE_FAVOURITE.match(rest):
            self._favourite(clause, subject, match.group("what"), _object(match.group("obj")))
            return
        health: dict[str, Any] = {
            "type": MemoryType.CONSTRAINT,
            "strength": Strength.HARD,
            "authority": Authority.USER_EXPLICIT,
            "confidence": 0.9,
            "sensitivity": Sensitivity.HEALTH,
        }
        base = self._base(subject)
        if match := _ALLERGY.match(rest):
            obj = _object(match.group("obj"))
            self.propose(
                clause,
                about=f"{subject.display}'s allergy to {obj}"[:120],
                summary=_sentence(f"{subject.display} is allergic to {obj}"),
                when_to_use=f"Meals, snacks, recipes, restaurants or anything {subject.display} might eat or touch",
                **health,
                **base,
            )
        elif match := _DIET.match(rest):
            diet = match.group("obj").lower()
            self.propose(
                clause,
                about=f"{subject.display}'s diet",
                summary=_sentence(f"{subject.display} is {diet}"),
                when_to_use=f"Planning meals, recipes or restaurants for {subject.display}",
                **health,
                **base,
            )
        elif match := _CANT_EAT.match(rest):
            neg = normalise_for_match(match.group("neg")).replace("’", "'")
            verb = match.group("verb").lower()
            modal = (
                "cannot" if neg.startswith("can") else "must not" if neg.startswith(("should", "must")) else "does not"
            )
            obj = _object(match.group("obj"))
            self.propose(
                clause,
                about=f"What {subject.display} cannot {verb}: {obj}"[:120],
                summary=_sentence(f"{subject.display} {modal} {verb} {obj}"),
                when_to_use=f"Food or drink for {subject.display}",
                **health,
                **base,
            )
        elif match := _MEDICATION.match(rest):
            raw_verb = normalise_for_match(match.group("verb"))
            verb = "takes" if "take" in raw_verb else "needs" if "need" in raw_verb else "is on"
            obj = _object(match.group("obj"))
            self.propose(
                clause,
                about=f"{subject.display}'s medication",
                summary=_sentence(f"{subject.display} {verb} {obj}"),
                when_to_use=f"Daily routines, reminders or care for {subject.display}",
                **health,
                **base,
            )
        elif match := _PREFERENCE.match(rest):
            verb = re.sub(r"^(?:really|absolutely)\s+", "", normalise_for_match(match.group("verb")))
            if verb in _THIRD_PERSON:
                third = _THIRD_PERSON[verb]
            elif verb.endswith("s") and verb[:-1] in _THIRD_PERSON:
                third = verb
            else:
                third = verb
            obj = _object(match.group("obj"))
            if not obj:
                return
            self.propose(
                clause,
                type=MemoryType.PREFERENCE,
                about=f"{obj[:1].upper()}{obj[1:]} ({subject.label})",
                summary=_sentence(f"{subject.display} {third} {obj}"),
                when_to_use=f"Suggestions or plans involving {obj}",
                strength=Strength.SOFT,
                authority=Authority.USER_IMPLICIT,
                confidence=0.75,
                **base,
            )

    def _favourite(self, clause: Clause, subject: Subject, what: str, obj: str) -> None:
        possessive = f"{subject.display}'s"
        self.propose(
            clause,
            type=MemoryType.PREFERENCE,
            about=f"Favourite {what} ({subject.label})",
            summary=_sentence(f"{possessive} favourite {what} is {obj}"),
            when_to_use=f"Suggestions involving {what}",
            authority=Authority.USER_IMPLICIT,
            confidence=0.75,
            **self._base(subject),
        )

    @staticmethod
    def _base(subject: Subject) -> dict[str, Any]:
        return {
            "applies_to": list(subject.applies_to),
            "about_member": subject.about_member,
            "entities": [subject.hint] if subject.hint else [],
        }
