"""Candidates are checked by code, not by judgment.

Each rule has a name; a candidate that fails any rule is rejected, and every
rule it failed is kept with a message that names the field and the turn
(``candidates/{session_id}.json``). The rules (DESIGN invariant 2, seed
section 4):

- ``schema``: the proposal has the candidate's shape (malformed model output
  lands here, never in a crash).
- ``authority``: ``system`` is reserved for the service's own memories.
- ``turns_exist``: every cited turn exists.
- ``quote_in_turn``: each quote appears in one of its cited turns, after
  whitespace and case are normalised.
- ``quote_supports``: a quote means something (at least 2 words and 8
  characters) and carries the claim's key words: at least half of the
  summary's content words (the people it names, the words that frame a claim
  such as "address", and the absolute dates the extractor added aside;
  spelling variants count) appear in the quotes of a statement; an
  inference, which goes beyond the words by nature, shares at least one.
- ``person_wrote``: a claim about a household member in the first person
  cites a turn that member wrote: the member named by ``about_member``, or,
  when a quote speaks in the first person ("I", "me"), one of the members the
  claim ``applies_to``.
- ``cites_user_turn``: a hard rule, a directive or constraint (any strength),
  or any statement by the family (``user_explicit`` or ``user_implicit``)
  cites a user turn.
- ``not_from_assistant_or_tool``: and its quotes come from user turns: what an
  assistant said or a tool returned (a web page, an email) never supports a
  rule, a constraint, or a claim that the family said something.
- ``valid_until``: an absolute date (YYYY-MM-DD) after the session's local
  date. A fact valid until D is gone when D begins, so a date on or before the
  day of the session would be expired at birth.
- ``length``: the caps on about, summary, when_to_use, body, quotes and names,
  and one line for the one-line fields.
- ``confidence``: statements need ``min_confidence_statement`` (0.5),
  inferences the higher ``min_confidence_inference`` (0.8).
- ``relative_time``: relative time words in the summary ("tonight", "tmrw",
  "next Friday", "the 14th") are given their date from the cited turn's local
  day ("tonight (Friday 2026-11-27)": an adjustment); words that name no day
  ("next month", "in a few weeks") are refused, since the memory would be a
  puzzle when it is read later.
- ``duplicate``: the same claim twice in one session counts once.
- ``session_cap``: at most ``max_new`` (20) candidates per session; when more
  pass, statements beat inferences, then higher confidence wins.

Sensitivity is an adjustment, not a rejection: health, finance and minors
topics carry their tag, raised here when the extractor left it ``normal``. A
claim about a child the family told us of in an earlier session (an entity
on file whose relationship is a child's) is ``minors`` like one about a
member whose role is ``child``; reconciliation checks again once the claim's
people are resolved to entities.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import date
from difflib import SequenceMatcher
from typing import Any

from pydantic import TypeAdapter, ValidationError

from family_memory.domain.entity import Entity
from family_memory.domain.family import FamilySettings, Member
from family_memory.domain.memory import Authority, MemoryType, Sensitivity, Strength
from family_memory.domain.okf import validation_message
from family_memory.domain.text import QUOTE_MAX, About, Body, Name, Summary, WhenToUse, normalise_for_match
from family_memory.domain.transcript import Role, Transcript, Turn
from family_memory.formation import sensitivity
from family_memory.formation.candidate import AUTHORITY_RANK, Candidate
from family_memory.formation.dates import turn_day
from family_memory.formation.document import CandidateEntry, Limits, Rejection, Verdict, bounded_proposal
from family_memory.formation.relative_time import absolutise
from family_memory.formation.support import Claim, SpokenTurn, check_support
from family_memory.formation.text_similarity import content_tokens

SCHEMA = "schema"
AUTHORITY = "authority"
TURNS_EXIST = "turns_exist"
QUOTE_IN_TURN = "quote_in_turn"
QUOTE_SUPPORTS = "quote_supports"
PERSON_WROTE = "person_wrote"
CITES_USER_TURN = "cites_user_turn"
NOT_FROM_ASSISTANT_OR_TOOL = "not_from_assistant_or_tool"
VALID_UNTIL = "valid_until"
LENGTH = "length"
CONFIDENCE = "confidence"
RELATIVE_TIME = "relative_time"
DUPLICATE = "duplicate"
SESSION_CAP = "session_cap"

RULES = (
    SCHEMA,
    AUTHORITY,
    TURNS_EXIST,
    QUOTE_IN_TURN,
    QUOTE_SUPPORTS,
    PERSON_WROTE,
    CITES_USER_TURN,
    NOT_FROM_ASSISTANT_OR_TOOL,
    VALID_UNTIL,
    LENGTH,
    CONFIDENCE,
    RELATIVE_TIME,
    DUPLICATE,
    SESSION_CAP,
)

_ABOUT: TypeAdapter[str] = TypeAdapter(About)
_SUMMARY: TypeAdapter[str] = TypeAdapter(Summary)
_WHEN: TypeAdapter[str] = TypeAdapter(WhenToUse)
_BODY: TypeAdapter[str] = TypeAdapter(Body)
_NAME: TypeAdapter[str] = TypeAdapter(Name)
_QUOTE_TRIM = " \t.,!?;:\"'“”‘’…"


#: Turns before the cited ones whose words count when the quoted turn points back at them.
CONTEXT_TURNS = 3
#: A quote shorter than this supports nothing ("a", "yes").
QUOTE_MIN_WORDS = 2
QUOTE_MIN_CHARS = 8
#: Share of a statement's key words its quotes must carry.
STATEMENT_COVERAGE = 0.5
#: Two words this alike (or sharing a 5-letter stem) are one word ("allergy" / "allergic").
_SAME_WORD = 0.8
#: Words a summary frames a claim with rather than state it ("Address Lucía as Lu" from "call me Lu").
_FRAMING = frozenset({"address", "call", "go", "goe", "name", "known", "family", "household"})
_FIRST_PERSON = frozenset({"i", "i'm", "im", "i've", "i'd", "i'll", "me", "myself"})
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
#: Dates the extractor resolved and wrote into a summary: "(2026-11-27)", "(Saturday 2026-11-28 to ...)".
_RESOLVED_DATE = re.compile(r"\([^()]*\d{4}-\d{2}-\d{2}[^()]*\)|\b\d{4}-\d{2}-\d{2}\b")
#: Types that are rules or hard facts about the family: only their own words support them.
_RULE_TYPES = (MemoryType.DIRECTIVE, MemoryType.CONSTRAINT)


def _quote_form(text: str) -> str:
    return normalise_for_match(text).strip(_QUOTE_TRIM)


def _alike(word: str, others: Iterable[str]) -> bool:
    for other in others:
        if word == other or (min(len(word), len(other)) >= 5 and word[:5] == other[:5]):
            return True
        if SequenceMatcher(None, word, other).ratio() >= _SAME_WORD:
            return True
    return False


def _names_of(member: Member) -> list[str]:
    return [member.id, member.name, *([member.address_as] if member.address_as else [])]


def _describe(turn: Turn) -> str:
    who = f" by {turn.member_id}" if turn.member_id else ""
    return f"{turn.role.value} turn {turn.n}{who}"


class _Check:
    """The per-candidate rules, against one transcript."""

    def __init__(
        self,
        transcript: Transcript,
        family: FamilySettings,
        limits: Limits,
        entities: Sequence[Entity] = (),
        on_file: Sequence[str] = (),
    ) -> None:
        self.transcript = transcript
        self.family = family
        self.limits = limits
        self.entities = list(entities)
        self.on_file = list(on_file)
        self.session_day = turn_day(transcript.started_at, transcript.time_zone)
        self.members = {m.id for m in family.members} | {
            t.member_id for t in transcript.turns if t.role is Role.USER and t.member_id
        }
        self._turn_forms = {t.n: _quote_form(t.text) for t in transcript.turns}
        self._session_text = "\n".join(t.text for t in transcript.turns)

    def run(self, candidate: Candidate) -> list[Rejection]:
        reasons: list[Rejection] = []
        reasons += self.authority(candidate)
        cited, supporting = self.turns_and_quotes(candidate, reasons)
        reasons += self.quote_supports(candidate, supporting)
        if not any(r.rule == TURNS_EXIST for r in reasons):
            reasons += self.person_wrote(candidate, supporting)
            reasons += self.user_turns(candidate, cited, supporting)
        reasons += self.valid_until(candidate)
        reasons += self.lengths(candidate)
        reasons += self.confidence(candidate)
        return reasons

    def authority(self, candidate: Candidate) -> list[Rejection]:
        if AUTHORITY_RANK[candidate.authority] == 0:
            return [
                Rejection(
                    rule=AUTHORITY,
                    message="authority 'system' is reserved for the service's own memories; "
                    "a candidate is user_explicit, user_implicit or inferred",
                )
            ]
        return []

    def turns_and_quotes(
        self, candidate: Candidate, reasons: list[Rejection]
    ) -> tuple[list[list[Turn]], list[list[Turn]]]:
        """For each evidence item: the turns it cites, and those among them that contain its quote."""
        cited: list[list[Turn]] = []
        supporting: list[list[Turn]] = []
        count = len(self.transcript.turns)
        for number, item in enumerate(candidate.evidence, start=1):
            if item.last > count:
                span = f"{item.first}-{item.last}" if item.first != item.last else str(item.first)
                reasons.append(
                    Rejection(
                        rule=TURNS_EXIST,
                        message=f"evidence {number} cites turn {span}, but the session has {count} turns",
                    )
                )
                cited.append([])
                supporting.append([])
                continue
            turns = [t for n in range(item.first, item.last + 1) if (t := self.transcript.turn(n)) is not None]
            quote = _quote_form(item.quote)
            found = [t for t in turns if quote and quote in self._turn_forms[t.n]]
            if not found:
                where = ", ".join(str(t.n) for t in turns)
                reasons.append(
                    Rejection(
                        rule=QUOTE_IN_TURN,
                        message=f"evidence {number}: the quote {item.quote[:80]!r} does not appear in turn {where}",
                    )
                )
            cited.append(turns)
            supporting.append(found)
        return cited, supporting

    def _member_called(self, name: str) -> str | None:
        """The member id ``name`` stands for (an id, full name, first name or address-as), if any."""
        wanted = normalise_for_match(name)
        for member_id in sorted(self.members):
            if normalise_for_match(member_id) == wanted:
                return member_id
        for member in self.family.members:
            forms = {normalise_for_match(n) for n in _names_of(member)} | {normalise_for_match(member.name.split()[0])}
            if wanted in forms:
                return member.id
        return None

    def _speaker_words(self, turns: Iterable[Turn]) -> set[str]:
        """The names of whoever wrote ``turns`` (what "I", "me", "my" and "we" stand for in
        them) and the words that only frame a claim."""
        words = set(_FRAMING)
        for turn in turns:
            if turn.role is Role.USER and turn.member_id:
                member = self.family.member(turn.member_id)
                texts = _names_of(member) if member else [turn.member_id]
                words.update(w for text in texts for w in content_tokens(text))
        return words

    def quote_supports(self, candidate: Candidate, supporting: list[list[Turn]]) -> list[Rejection]:
        reasons: list[Rejection] = []
        for number, item in enumerate(candidate.evidence, start=1):
            quote = item.quote.strip(_QUOTE_TRIM)
            if len(quote.split()) < QUOTE_MIN_WORDS or len(quote) < QUOTE_MIN_CHARS:
                reasons.append(
                    Rejection(
                        rule=QUOTE_SUPPORTS,
                        message=f"evidence {number}: the quote {item.quote[:40]!r} is too short to support a claim "
                        f"(at least {QUOTE_MIN_WORDS} words and {QUOTE_MIN_CHARS} characters)",
                    )
                )
        if reasons:
            return reasons
        return self.supports(candidate, supporting)

    def supports(self, candidate: Candidate, supporting: list[list[Turn]]) -> list[Rejection]:
        """The cited turns, read as a whole, say what the summary says (``formation/support.py``)."""
        cited_numbers = {n for item in candidate.evidence for n in range(item.first, item.last + 1)}
        quoted_numbers = {t.n for turns in supporting for t in turns}
        turns = [
            SpokenTurn(
                role=t.role.value,
                text=t.text,
                writer_names=tuple(self._writer_names(t)),
                quoted=t.n in quoted_numbers,
            )
            for n in sorted(cited_numbers)
            if (t := self.transcript.turn(n)) is not None
        ]
        not_people = {h.name for h in candidate.entities if h.kind.value not in ("person", "pet")}
        names = [n for n in candidate.applies_to if n not in not_people]
        names += [candidate.about_member] if candidate.about_member else []
        for hint in candidate.entities:
            if hint.kind.value in ("person", "pet"):
                names += [hint.name, *hint.aliases]
        known = [n for m in self.family.members for n in (m.name, *([m.address_as] if m.address_as else []))] + [
            n for e in self.entities if e.type.value in ("person", "pet") for n in (e.name, *e.aliases)
        ]
        first = min(quoted_numbers or cited_numbers or {1})
        turn = self.transcript.turn(first)
        said_on = turn_day(turn.at, self.transcript.time_zone) if turn and turn.at else self.session_day
        claim = Claim(
            summary=_RESOLVED_DATE.sub(" ", candidate.summary) if not candidate.valid_until else candidate.summary,
            quotes=tuple(item.quote for item in candidate.evidence),
            names=tuple(self._expand_names(names)),
            known_names=tuple(known),
            aliases=tuple((m.address_as, m.name) for m in self.family.members if m.address_as),
            statement=candidate.is_statement,
        )
        earliest = min(cited_numbers or {1})
        context = [
            SpokenTurn(role=t.role.value, text=t.text, writer_names=tuple(self._writer_names(t)))
            for n in range(max(1, earliest - CONTEXT_TURNS), earliest)
            if (t := self.transcript.turn(n)) is not None
        ]
        # What the family said before the cited turns: where a place or a shop was named first.
        family_text = "\n".join(
            [t.text for t in self.transcript.turns if t.role is Role.USER and t.n < earliest - CONTEXT_TURNS]
            # ... or in an earlier conversation: the places, groups and organisations on file by name,
            + [n for e in self.entities if e.type.value not in ("person", "pet") for n in (e.name, *e.aliases)]
            # and what the family's current memories say ("Mummy ji keeps Jain rules", "choir is at 7 pm").
            + self.on_file
        )
        verdict = check_support(
            claim, turns, said_on, context=context, session_text=self._session_text, family_text=family_text
        )
        if verdict.supported:
            return []
        return [
            Rejection(rule=QUOTE_SUPPORTS, message=f"the cited turns do not support the summary: {p}")
            for p in verdict.problems
        ]

    def _writer_names(self, turn: Turn) -> list[str]:
        if turn.role is not Role.USER or not turn.member_id:
            return []
        member = self.family.member(turn.member_id)
        return _names_of(member) if member else [turn.member_id]

    def _expand_names(self, names: list[str]) -> list[str]:
        """Names as given, plus every name the member they stand for answers to."""
        out = list(names)
        for name in names:
            member_id = self._member_called(name)
            member = self.family.member(member_id) if member_id else None
            if member is not None:
                out += _names_of(member)
        return list(dict.fromkeys(out))

    def person_wrote(self, candidate: Candidate, supporting: list[list[Turn]]) -> list[Rejection]:
        """A claim the extractor says is about a member (``about_member``) cites a turn that
        member wrote. A first-person quote without one is read by the support check, which
        refuses "I'm vegetarian" by Marco summarised as "Lucía is vegetarian" (the summary's
        subject is not the person the words are about) and accepts "thanks for always
        believing in me" by Ana summarised as "Marco supports Ana"."""
        member = candidate.about_member
        if member is None:
            return []
        if member not in self.members:
            return [Rejection(rule=PERSON_WROTE, message=f"about_member {member!r} is not a member of this family")]
        writers = {t.member_id for turns in supporting for t in turns if t.role is Role.USER}
        if member in writers:
            return []
        found = [t for turns in supporting for t in turns]
        if not found:
            return [
                Rejection(
                    rule=PERSON_WROTE, message=f"a claim about {member} must cite a turn {member} wrote; none does"
                )
            ]
        who = ", ".join(_describe(t) for t in found)
        return [
            Rejection(
                rule=PERSON_WROTE,
                message=f"a first-person claim about {member} must cite a turn {member} wrote; "
                f"the quote comes from {who}",
            )
        ]

    @staticmethod
    def _first_person(candidate: Candidate) -> bool:
        return any(
            w in _FIRST_PERSON for item in candidate.evidence for w in _WORD.findall(normalise_for_match(item.quote))
        )

    def user_turns(
        self, candidate: Candidate, cited: list[list[Turn]], supporting: list[list[Turn]]
    ) -> list[Rejection]:
        if candidate.strength is Strength.HARD:
            kind = "a hard rule"
        elif candidate.type in _RULE_TYPES:
            kind = f"a {candidate.type.value}"
        elif candidate.authority is Authority.USER_EXPLICIT:
            kind = "an explicit statement"
        elif candidate.authority is Authority.USER_IMPLICIT:
            kind = "a statement by the family (user_implicit)"
        else:
            return []
        if not any(t.role is Role.USER for turns in cited for t in turns):
            roles = ", ".join(_describe(t) for turns in cited for t in turns) or "no turn"
            return [Rejection(rule=CITES_USER_TURN, message=f"{kind} must cite a user turn; it cites {roles}")]
        reasons = []
        for number, found in enumerate(supporting, start=1):
            if found and not any(t.role is Role.USER for t in found):
                where = ", ".join(_describe(t) for t in found)
                reasons.append(
                    Rejection(
                        rule=NOT_FROM_ASSISTANT_OR_TOOL,
                        message=f"evidence {number}: the quote is only in {where}; what an assistant said or a tool "
                        f"returned cannot support {kind}",
                    )
                )
        return reasons

    def valid_until(self, candidate: Candidate) -> list[Rejection]:
        raw = candidate.valid_until
        if raw is None:
            return []
        try:
            if len(raw) != 10:
                raise ValueError(raw)
            day = date.fromisoformat(raw)
        except ValueError:
            return [
                Rejection(
                    rule=VALID_UNTIL, message=f"valid_until {raw[:40]!r} is not an absolute date; write YYYY-MM-DD"
                )
            ]
        if day <= self.session_day:
            return [
                Rejection(
                    rule=VALID_UNTIL,
                    message=f"valid_until {day.isoformat()} is not after the session's local date "
                    f"{self.session_day.isoformat()} ({self.transcript.time_zone}): a fact valid until D is gone "
                    "when D begins",
                )
            ]
        return []

    def lengths(self, candidate: Candidate) -> list[Rejection]:
        problems: list[str] = []
        fields: list[tuple[TypeAdapter[str], str]] = [
            (_ABOUT, candidate.about),
            (_SUMMARY, candidate.summary),
            (_WHEN, candidate.when_to_use),
            (_BODY, candidate.body),
        ]
        for adapter, value in fields:
            try:
                adapter.validate_python(value)
            except ValidationError as exc:
                problems.append(validation_message(exc).removeprefix("value: "))
        for number, item in enumerate(candidate.evidence, start=1):
            if len(item.quote) > QUOTE_MAX:
                problems.append(
                    f"evidence {number}: the quote is {len(item.quote)} characters; the limit is {QUOTE_MAX}"
                )
        for name in candidate.applies_to:
            try:
                _NAME.validate_python(name)
            except ValidationError as exc:
                problems.append(f"applies_to {name[:40]!r}: {validation_message(exc).removeprefix('value: ')}")
        return [Rejection(rule=LENGTH, message=p) for p in problems]

    def confidence(self, candidate: Candidate) -> list[Rejection]:
        if candidate.is_statement:
            bar, kind = self.limits.min_confidence_statement, "statements"
        else:
            bar, kind = self.limits.min_confidence_inference, "inferences"
        if candidate.confidence < bar:
            return [
                Rejection(
                    rule=CONFIDENCE,
                    message=f"confidence {candidate.confidence:.2f} is below the bar of {bar:.2f} for {kind}",
                )
            ]
        return []

    def absolute_time(self, candidate: Candidate) -> tuple[Candidate, list[str], list[Rejection]]:
        """The summary's relative time words dated from the cited turn's local day, or a refusal."""
        first = self.transcript.turn(candidate.evidence[0].first)
        said_on = turn_day(first.at, self.transcript.time_zone) if first and first.at else self.session_day
        result = absolutise(candidate.summary, said_on)
        if result.unresolved:
            words = ", ".join(repr(w) for w in result.unresolved)
            message = f"the summary says {words}, which names no day; write the absolute date or leave it out"
            return candidate, [], [Rejection(rule=RELATIVE_TIME, message=message)]
        if not result.resolved:
            return candidate, [], []
        try:
            _SUMMARY.validate_python(result.summary)
        except ValidationError:
            message = "the summary's relative time words need their dates, and with them it is over the length cap"
            return candidate, [], [Rejection(rule=RELATIVE_TIME, message=message)]
        notes = [f"relative time made absolute: {', '.join(result.resolved)}"]
        return candidate.model_copy(update={"summary": result.summary}), notes, []

    def adjust_sensitivity(self, candidate: Candidate) -> tuple[Candidate, list[str]]:
        if candidate.sensitivity is not Sensitivity.NORMAL:
            return candidate, []
        texts = [candidate.about, candidate.summary, candidate.body, candidate.when_to_use]
        texts += [item.quote for item in candidate.evidence]
        texts += [f"{hint.relationship or ''} {' '.join(hint.aliases)}" for hint in candidate.entities]
        found = sensitivity.detect(texts, self.family, candidate.applies_to, self.entities)
        if found is None:
            return candidate, []
        note = f"sensitivity raised from normal to {found.value}: the claim touches a {found.value} topic"
        return candidate.model_copy(update={"sensitivity": found}), [note]


def validate_proposals(
    transcript: Transcript,
    family: FamilySettings,
    proposals: Sequence[Any],
    limits: Limits,
    entities: Sequence[Entity] = (),
    on_file: Sequence[str] = (),
) -> list[CandidateEntry]:
    """A verdict for every proposal, in the order proposed. Rejected entries keep
    the proposal as proposed; accepted ones carry the candidate as it goes on.
    ``entities`` are the family's entities on file (for the children it told us of);
    ``on_file`` the summaries of its current memories, where a name or a time a summary
    takes from an earlier conversation was said (the support check's ``family_text``)."""
    check = _Check(transcript, family, limits, entities, on_file)
    entries: dict[int, CandidateEntry] = {}
    passed: list[tuple[int, Candidate, list[str], Any]] = []
    for index, raw in enumerate(proposals, start=1):
        proposed = bounded_proposal(raw)
        if not isinstance(raw, dict):
            message = f"a candidate must be a JSON object, not {type(raw).__name__}"
            entries[index] = _rejected(index, proposed, [Rejection(rule=SCHEMA, message=message)])
            continue
        try:
            candidate = Candidate.model_validate(raw)
        except ValidationError as exc:
            entries[index] = _rejected(index, proposed, [Rejection(rule=SCHEMA, message=validation_message(exc))])
            continue
        reasons = check.run(candidate)
        if reasons:
            entries[index] = _rejected(index, proposed, reasons)
            continue
        candidate, dated, refused = check.absolute_time(candidate)
        if refused:
            entries[index] = _rejected(index, proposed, refused)
            continue
        candidate, adjustments = check.adjust_sensitivity(candidate)
        passed.append((index, candidate, dated + adjustments, proposed))

    first_of: dict[tuple[str, str], int] = {}
    distinct: list[tuple[int, Candidate, list[str], Any]] = []
    for index, candidate, adjustments, proposed in passed:
        key = (candidate.type.value, normalise_for_match(candidate.summary))
        if key in first_of:
            reason = Rejection(rule=DUPLICATE, message=f"the same claim as candidate {first_of[key]}")
            entries[index] = _rejected(index, proposed, [reason])
            continue
        first_of[key] = index
        distinct.append((index, candidate, adjustments, proposed))

    ranked = sorted(distinct, key=lambda item: (-AUTHORITY_RANK[item[1].authority], -item[1].confidence, item[0]))
    for position, (index, candidate, adjustments, proposed) in enumerate(ranked):
        if position >= limits.max_new:
            reason = Rejection(
                rule=SESSION_CAP,
                message=f"over the cap of {limits.max_new} new candidates per session "
                "(statements and higher confidence go first)",
            )
            entries[index] = _rejected(index, proposed, [reason])
        else:
            entries[index] = CandidateEntry(
                index=index,
                verdict=Verdict.ACCEPTED,
                adjustments=adjustments,
                candidate=candidate,
            )
    return [entries[i] for i in sorted(entries)]


def _rejected(index: int, proposed: Any, reasons: list[Rejection]) -> CandidateEntry:
    return CandidateEntry(index=index, verdict=Verdict.REJECTED, reasons=reasons, proposed=proposed)
