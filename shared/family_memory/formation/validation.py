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
- ``person_wrote``: a claim about a household member in the first person
  (``about_member``) cites a turn that member wrote.
- ``cites_user_turn``: a hard rule or an explicit statement cites a user turn.
- ``not_from_assistant_or_tool``: and its quotes come from user turns: what an
  assistant said or a tool returned never supports a hard rule or explicit
  authority.
- ``valid_until``: an absolute date (YYYY-MM-DD) after the session's local
  date. A fact valid until D is gone when D begins, so a date on or before the
  day of the session would be expired at birth.
- ``length``: the caps on about, summary, when_to_use, body, quotes and names,
  and one line for the one-line fields.
- ``confidence``: statements need ``min_confidence_statement`` (0.5),
  inferences the higher ``min_confidence_inference`` (0.8).
- ``duplicate``: the same claim twice in one session counts once.
- ``session_cap``: at most ``max_new`` (12) candidates per session; when more
  pass, statements beat inferences, then higher confidence wins.

Sensitivity is an adjustment, not a rejection: health, finance and minors
topics carry their tag, raised here when the extractor left it ``normal``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from pydantic import TypeAdapter, ValidationError

from family_memory.domain.family import FamilySettings
from family_memory.domain.memory import Authority, Sensitivity, Strength
from family_memory.domain.okf import validation_message
from family_memory.domain.text import QUOTE_MAX, About, Body, Name, Summary, WhenToUse, normalise_for_match
from family_memory.domain.transcript import Role, Transcript, Turn
from family_memory.formation import sensitivity
from family_memory.formation.candidate import AUTHORITY_RANK, Candidate
from family_memory.formation.dates import turn_day
from family_memory.formation.document import CandidateEntry, Limits, Rejection, Verdict, bounded_proposal

SCHEMA = "schema"
AUTHORITY = "authority"
TURNS_EXIST = "turns_exist"
QUOTE_IN_TURN = "quote_in_turn"
PERSON_WROTE = "person_wrote"
CITES_USER_TURN = "cites_user_turn"
NOT_FROM_ASSISTANT_OR_TOOL = "not_from_assistant_or_tool"
VALID_UNTIL = "valid_until"
LENGTH = "length"
CONFIDENCE = "confidence"
DUPLICATE = "duplicate"
SESSION_CAP = "session_cap"

RULES = (
    SCHEMA,
    AUTHORITY,
    TURNS_EXIST,
    QUOTE_IN_TURN,
    PERSON_WROTE,
    CITES_USER_TURN,
    NOT_FROM_ASSISTANT_OR_TOOL,
    VALID_UNTIL,
    LENGTH,
    CONFIDENCE,
    DUPLICATE,
    SESSION_CAP,
)

_ABOUT: TypeAdapter[str] = TypeAdapter(About)
_SUMMARY: TypeAdapter[str] = TypeAdapter(Summary)
_WHEN: TypeAdapter[str] = TypeAdapter(WhenToUse)
_BODY: TypeAdapter[str] = TypeAdapter(Body)
_NAME: TypeAdapter[str] = TypeAdapter(Name)
_QUOTE_TRIM = " \t.,!?;:\"'“”‘’…"


def _quote_form(text: str) -> str:
    return normalise_for_match(text).strip(_QUOTE_TRIM)


def _describe(turn: Turn) -> str:
    who = f" by {turn.member_id}" if turn.member_id else ""
    return f"{turn.role.value} turn {turn.n}{who}"


class _Check:
    """The per-candidate rules, against one transcript."""

    def __init__(self, transcript: Transcript, family: FamilySettings, limits: Limits) -> None:
        self.transcript = transcript
        self.family = family
        self.limits = limits
        self.session_day = turn_day(transcript.started_at, transcript.time_zone)
        self.members = {m.id for m in family.members} | {
            t.member_id for t in transcript.turns if t.role is Role.USER and t.member_id
        }
        self._turn_forms = {t.n: _quote_form(t.text) for t in transcript.turns}

    def run(self, candidate: Candidate) -> list[Rejection]:
        reasons: list[Rejection] = []
        reasons += self.authority(candidate)
        cited, supporting = self.turns_and_quotes(candidate, reasons)
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

    def person_wrote(self, candidate: Candidate, supporting: list[list[Turn]]) -> list[Rejection]:
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
                message=f"a claim about {member} must cite a turn {member} wrote; the quote comes from {who}",
            )
        ]

    def user_turns(
        self, candidate: Candidate, cited: list[list[Turn]], supporting: list[list[Turn]]
    ) -> list[Rejection]:
        if candidate.strength is not Strength.HARD and candidate.authority is not Authority.USER_EXPLICIT:
            return []
        kind = "a hard rule" if candidate.strength is Strength.HARD else "an explicit statement"
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

    def adjust_sensitivity(self, candidate: Candidate) -> tuple[Candidate, list[str]]:
        if candidate.sensitivity is not Sensitivity.NORMAL:
            return candidate, []
        texts = [candidate.about, candidate.summary, candidate.body, candidate.when_to_use]
        texts += [item.quote for item in candidate.evidence]
        texts += [f"{hint.relationship or ''} {' '.join(hint.aliases)}" for hint in candidate.entities]
        found = sensitivity.detect(texts, self.family, candidate.applies_to)
        if found is None:
            return candidate, []
        note = f"sensitivity raised from normal to {found.value}: the claim touches a {found.value} topic"
        return candidate.model_copy(update={"sensitivity": found}), [note]


def validate_proposals(
    transcript: Transcript, family: FamilySettings, proposals: Sequence[Any], limits: Limits
) -> list[CandidateEntry]:
    """A verdict for every proposal, in the order proposed. Rejected entries keep
    the proposal as proposed; accepted ones carry the candidate as it goes on."""
    check = _Check(transcript, family, limits)
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
        candidate, adjustments = check.adjust_sensitivity(candidate)
        passed.append((index, candidate, adjustments, proposed))

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
