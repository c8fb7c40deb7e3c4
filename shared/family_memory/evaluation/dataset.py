"""The labelled evaluation set: invented families, their conversations, and what a
good memory must make of them (``eval/families/*.yaml``; docs/evaluation.md).

One YAML file per family. Times are the family's local wall-clock times
("2026-03-02 18:30"), so a labeller writes the day the family lives, and the
loader turns them into UTC instants with the family's zone. Each file holds:

- ``members``: the household (ids, names, roles), and ``people``: every other
  real person, pet or place the conversations name, with aliases, so a formed
  entity can be told apart from a fake one ("Sounds", "He");
- ``sessions``: the conversations in order, each turn ``u`` (a member: the
  session's ``member`` unless the turn names another), ``a`` (the assistant) or
  ``t`` (a tool's output: an email, a web page), optional supplied
  ``candidates`` (what a careful LLM extractor would propose, in the
  candidate schema of ``formation/candidate.py``) and scripted card actions to
  apply ``after`` the session (forget, edit, forget a group);
- ``facts``: every claim a good memory must hold, where it is said
  (``said: [s01:3]``), how to recognise a memory that states it (``match``:
  every group must appear; a group is ``a|b`` alternatives, each a word prefix
  or a phrase of word prefixes), its kind, hardness, sensitivity, absolute
  expiry, and the status it should have at the end;
- ``traps``: things that must never become a memory (an assistant's
  suggestion, an instruction inside an email, a self-corrected value, a
  second-hand permission, an inference that must not become a hard rule);
- ``queries``: task-shaped messages with the facts each needs.

``load_family`` validates a file and every cross-reference (turns that exist,
quotes in their turns, facts named by actions and queries), so a labelling
mistake is an error with its place, not a silently wrong figure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from family_memory.domain.clock import zone
from family_memory.domain.errors import InvalidInputError
from family_memory.domain.family import MemberRole, Surface
from family_memory.domain.ids import check_family_id, check_member_id, check_session_id
from family_memory.domain.memory import MemoryType, Sensitivity, Status
from family_memory.domain.okf import validation_message
from family_memory.domain.text import normalise_for_match

#: Words are compared lower case, accents kept, apostrophes folded ("Lucía's" -> "lucía's").
_WORD = re.compile(r"[\w]+(?:['’][\w]+)*", re.UNICODE)
_PLACE = re.compile(r"^(?P<session>[A-Za-z0-9][A-Za-z0-9_-]*):(?P<turn>\d+)$")
_LOCAL = "%Y-%m-%d %H:%M"


def words(text: str) -> list[str]:
    """The words of ``text`` as the matcher sees them: lower case, apostrophes straight."""
    return [w.replace("’", "'") for w in _WORD.findall(text.lower())]


class Matcher:
    """``match`` / ``exclude`` groups: a group holds when one of its alternatives
    does; an alternative is a phrase of word prefixes (``"allerg"`` holds for
    "allergic", ``"no longer"`` for "no longer", ``"ice cream"`` for "ice creams")."""

    def __init__(self, match: list[str], exclude: list[str]) -> None:
        self.match = [self._group(g) for g in match]
        self.exclude = [self._group(g) for g in exclude]

    @staticmethod
    def _group(group: str) -> list[list[str]]:
        alternatives = [words(alt) for alt in group.split("|")]
        return [alt for alt in alternatives if alt]

    @staticmethod
    def _holds(alternatives: list[list[str]], text_words: list[str]) -> bool:
        for phrase in alternatives:
            n = len(phrase)
            for i in range(len(text_words) - n + 1):
                if all(text_words[i + k].startswith(phrase[k]) for k in range(n)):
                    return True
        return False

    def score(self, text: str) -> int:
        """How many groups hold (all must, and no excluded one), else 0."""
        text_words = words(text)
        if any(self._holds(group, text_words) for group in self.exclude):
            return 0
        if all(self._holds(group, text_words) for group in self.match):
            return len(self.match)
        return 0


class Place(BaseModel):
    """``s03:7``: turn 7 of session s03."""

    model_config = ConfigDict(frozen=True)

    session: str
    turn: int

    @classmethod
    def parse(cls, text: str) -> Place:
        m = _PLACE.match(text.strip())
        if not m:
            raise ValueError(f"{text!r} is not a place: write SESSION:TURN, e.g. s03:7")
        return cls(session=m["session"], turn=int(m["turn"]))

    def __str__(self) -> str:
        return f"{self.session}:{self.turn}"


def _places(value: object) -> list[Place]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise ValueError("expected a list of places (SESSION:TURN)")
    return [v if isinstance(v, Place) else Place.parse(str(v)) for v in value]


def _local(value: object, tz: str) -> datetime:
    if isinstance(value, datetime):
        naive = value.replace(tzinfo=None)
    else:
        try:
            naive = datetime.strptime(str(value).strip(), _LOCAL)
        except ValueError as exc:
            raise ValueError(f"{value!r} is not a local time: write YYYY-MM-DD HH:MM") from exc
    return naive.replace(tzinfo=zone(tz))


class Member(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    name: str
    role: MemberRole = MemberRole.ADULT
    address_as: str | None = None

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        return check_member_id(value)


class Person(BaseModel):
    """A real non-member the conversations name: a person, a pet, a place or a group."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    kind: Literal["person", "pet", "place", "group", "organisation"] = "person"
    aliases: list[str] = Field(default_factory=list)
    child: bool = False


class TurnSpec(BaseModel):
    """One turn as written: exactly one of ``u``, ``a``, ``t``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    u: str | None = None
    a: str | None = None
    t: str | None = None
    member: str | None = None
    #: Local time of the turn, "HH:MM" (same day as the session) or "YYYY-MM-DD HH:MM".
    at: str | None = None

    @model_validator(mode="after")
    def _one_role(self) -> TurnSpec:
        given = [k for k in ("u", "a", "t") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("a turn is exactly one of u: (a member), a: (the assistant), t: (a tool's output)")
        if self.member is not None and self.u is None:
            raise ValueError("only a user turn (u:) names a member")
        return self

    @property
    def role(self) -> str:
        return "user" if self.u is not None else ("assistant" if self.a is not None else "tool")

    @property
    def text(self) -> str:
        return str(self.u if self.u is not None else (self.a if self.a is not None else self.t))


class ActionKind(StrEnum):
    FORGET = "forget"
    EDIT = "edit"
    FORGET_GROUP = "forget_group"


class Action(BaseModel):
    """A card action the family takes after a session.

    - ``forget: FACT`` retracts the memory (or memories) that state FACT;
    - ``edit: FACT`` with ``summary`` (and optionally ``about``): the new wording,
      labelled as fact ``becomes``;
    - ``forget_group: {entity: NAME} | {topic: WORDS} | {type: TYPE}`` with
      ``covers``: the facts the group holds (each must end retracted).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    forget: str | None = None
    edit: str | None = None
    forget_group: dict[str, str] | None = None
    by: str
    reason: str = ""
    summary: str | None = None
    about: str | None = None
    becomes: str | None = None
    covers: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one(self) -> Action:
        given = [k for k in ("forget", "edit", "forget_group") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("an action is exactly one of forget:, edit:, forget_group:")
        if self.edit is not None and (not self.summary or not self.becomes):
            raise ValueError("an edit needs the new summary and becomes: the fact id of the new wording")
        if self.forget_group is not None:
            keys = set(self.forget_group)
            if len(keys) != 1 or not keys <= {"entity", "topic", "type"}:
                raise ValueError("forget_group is one of {entity: NAME}, {topic: WORDS}, {type: TYPE}")
            if not self.covers:
                raise ValueError("forget_group needs covers: the facts the group holds")
        return self

    @property
    def kind(self) -> ActionKind:
        if self.forget is not None:
            return ActionKind.FORGET
        return ActionKind.EDIT if self.edit is not None else ActionKind.FORGET_GROUP


class SessionSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    #: Local start time, "YYYY-MM-DD HH:MM"; turns without ``at`` follow a minute apart.
    at: str
    member: str
    surface: Surface = Surface.CHAT
    note: str = ""
    turns: list[TurnSpec] = Field(min_length=1)
    #: Supplied mode: what a careful LLM extractor would propose (the candidate schema).
    candidates: list[dict[str, Any]] = Field(default_factory=list)
    after: list[Action] = Field(default_factory=list)

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        return check_session_id(value)


class FactFinal(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    RETRACTED = "retracted"
    EXPIRED = "expired"


class Fact(BaseModel):
    """A claim a good memory must hold."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    kind: MemoryType
    #: Every place the claim is stated (restatements included); empty for a card edit's new wording.
    said: list[Place] = Field(default_factory=list)
    #: Places it is said again after the family forgot it (it must stay forgotten there).
    restated: list[Place] = Field(default_factory=list)
    #: A faithful one-line summary (for reviewers and the baselines).
    text: str
    match: list[str] = Field(min_length=1)
    exclude: list[str] = Field(default_factory=list)
    hard: bool = False
    sensitivity: Sensitivity = Sensitivity.NORMAL
    #: The first local day the claim no longer holds (D + 1 for something on day D); None: lasting.
    valid_until: date | None = None
    #: A recurring schedule ("every Tuesday"): never pinned to one day.
    recurring: bool = False
    final: FactFinal = FactFinal.ACTIVE
    #: The fact this one replaces (a later statement that changes it).
    corrects: str | None = None
    #: A different claim about the subject of a forgotten fact: it must still be learned.
    after_forget_of: str | None = None
    #: A question whose answer is this fact (search_memory probe and evidence recall).
    probe: str | None = None
    #: Within the offline rule-based extractor's declared scope (docs/formation.md).
    offline: bool = True

    _said = field_validator("said", "restated", mode="before")(classmethod(lambda cls, v: _places(v)))

    @model_validator(mode="after")
    def _consistent(self) -> Fact:
        if self.final is FactFinal.EXPIRED and self.valid_until is None:
            raise ValueError(f"fact {self.id}: final expired needs a valid_until")
        if self.recurring and self.valid_until is not None:
            raise ValueError(f"fact {self.id}: a recurring fact has no valid_until")
        return self

    def matcher(self) -> Matcher:
        return Matcher(self.match, self.exclude)


class TrapKind(StrEnum):
    ASSISTANT_SAID = "assistant_said"
    TOOL_SAID = "tool_said"
    SELF_CORRECTED = "self_corrected"
    SECOND_HAND = "second_hand"
    INFERENCE_HARD = "inference_hard"
    SMALL_TALK = "small_talk"
    HYPOTHETICAL = "hypothetical"
    #: Said again after a group forget that covers it: it must stay out.
    FORGOTTEN = "forgotten"


class Trap(BaseModel):
    """What must not become a memory from the session at ``at``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    kind: TrapKind
    at: Place
    text: str
    match: list[str] = Field(min_length=1)
    exclude: list[str] = Field(default_factory=list)
    #: Only a hard rule is a trap (an inference may be kept soft).
    only_hard: bool = False

    _at = field_validator("at", mode="before")(classmethod(lambda cls, v: Place.parse(str(v))))

    def matcher(self) -> Matcher:
        return Matcher(self.match, self.exclude)


class Query(BaseModel):
    """A task-shaped message, asked at the end, and the facts its answer must respect."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    member: str
    message: str
    needs: list[str] = Field(min_length=1)
    surface: Surface = Surface.CHAT


class FamilySpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    family_id: str
    time_zone: str
    description: str = ""
    members: list[Member] = Field(min_length=1)
    people: list[Person] = Field(default_factory=list)
    #: Local time at which the final state is judged (after a last dream).
    end_at: str
    sessions: list[SessionSpec] = Field(min_length=1)
    facts: list[Fact] = Field(default_factory=list)
    traps: list[Trap] = Field(default_factory=list)
    queries: list[Query] = Field(default_factory=list)

    @field_validator("family_id")
    @classmethod
    def _family(cls, value: str) -> str:
        return check_family_id(value)

    @field_validator("time_zone")
    @classmethod
    def _zone(cls, value: str) -> str:
        zone(value)
        return value


# --- the loaded family: times resolved, cross-references checked -------------------------


@dataclass(frozen=True)
class EvalTurn:
    n: int
    role: str
    member_id: str | None
    text: str
    at: datetime  # UTC


@dataclass(frozen=True)
class EvalSession:
    spec: SessionSpec
    started_at: datetime  # UTC
    turns: tuple[EvalTurn, ...]

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def ended_at(self) -> datetime:
        return self.turns[-1].at

    def transcript(self, family_id: str, time_zone: str) -> dict[str, Any]:
        """The session as ``sessions/{id}.json`` receives it."""
        return {
            "family_id": family_id,
            "session_id": self.id,
            "surface": self.spec.surface.value,
            "started_at": _utc(self.started_at),
            "time_zone": time_zone,
            "turns": [
                {
                    "n": t.n,
                    "role": t.role,
                    **({"member_id": t.member_id} if t.member_id else {}),
                    "text": t.text,
                    "at": _utc(t.at),
                }
                for t in self.turns
            ],
        }


def _utc(instant: datetime) -> str:
    return instant.astimezone(zone("UTC")).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class EvalFamily:
    spec: FamilySpec
    path: Path
    sessions: tuple[EvalSession, ...]
    end_at: datetime  # UTC

    @property
    def id(self) -> str:
        return self.spec.family_id

    def session(self, session_id: str) -> EvalSession:
        for s in self.sessions:
            if s.id == session_id:
                return s
        raise KeyError(session_id)

    def session_order(self, session_id: str) -> int:
        return [s.id for s in self.sessions].index(session_id)

    def fact(self, fact_id: str) -> Fact:
        for f in self.spec.facts:
            if f.id == fact_id:
                return f
        raise KeyError(fact_id)

    def turn_text(self, place: Place) -> str:
        return self.session(place.session).turns[place.turn - 1].text

    def forget_points(self) -> Iterator[tuple[str, Action]]:
        """(session after which, action) for every forget and group forget."""
        for s in self.sessions:
            for action in s.spec.after:
                if action.kind is not ActionKind.EDIT:
                    yield s.id, action

    def forgotten_after(self) -> dict[str, str]:
        """fact id -> the session after which it was forgotten."""
        out: dict[str, str] = {}
        for session_id, action in self.forget_points():
            for fact_id in [action.forget] if action.forget else action.covers:
                out.setdefault(fact_id, session_id)
        return out


def _problem(path: Path, where: str, message: str) -> InvalidInputError:
    return InvalidInputError(f"{path.name}: {where}: {message}")


def _resolve_sessions(spec: FamilySpec, path: Path) -> tuple[EvalSession, ...]:
    tz = spec.time_zone
    member_ids = {m.id for m in spec.members}
    out: list[EvalSession] = []
    previous_end: datetime | None = None
    for s in spec.sessions:
        try:
            start = _local(s.at, tz)
        except ValueError as exc:
            raise _problem(path, f"session {s.id}", str(exc)) from exc
        if s.member not in member_ids:
            raise _problem(path, f"session {s.id}", f"member {s.member!r} is not in members")
        turns: list[EvalTurn] = []
        clock = start
        for n, t in enumerate(s.turns, start=1):
            if t.at is not None:
                text = t.at if " " in t.at else f"{start:%Y-%m-%d} {t.at}"
                try:
                    at = _local(text, tz)
                except ValueError as exc:
                    raise _problem(path, f"session {s.id} turn {n}", str(exc)) from exc
                if at < clock:
                    raise _problem(path, f"session {s.id} turn {n}", f"at {t.at} is before the turn before it")
                clock = at
            elif n > 1:
                clock = clock + timedelta(minutes=1)
            member = (t.member or s.member) if t.u is not None else None
            if member is not None and member not in member_ids:
                raise _problem(path, f"session {s.id} turn {n}", f"member {member!r} is not in members")
            turns.append(EvalTurn(n, t.role, member, t.text, clock.astimezone(zone("UTC"))))
        session = EvalSession(s, start.astimezone(zone("UTC")), tuple(turns))
        if previous_end is not None and session.started_at <= previous_end:
            raise _problem(path, f"session {s.id}", "starts before the previous session ended (keep them in order)")
        previous_end = session.ended_at
        out.append(session)
    return tuple(out)


def _check_references(family: EvalFamily) -> None:
    spec, path = family.spec, family.path
    sessions = {s.id: s for s in family.sessions}
    if len(sessions) != len(family.sessions):
        raise _problem(path, "sessions", "session ids repeat")
    facts = {f.id: f for f in spec.facts}
    if len(facts) != len(spec.facts):
        dup = sorted({f.id for f in spec.facts if [g.id for g in spec.facts].count(f.id) > 1})
        raise _problem(path, "facts", f"fact ids repeat: {dup}")
    trap_ids = [t.id for t in spec.traps]
    if len(set(trap_ids)) != len(trap_ids) or set(trap_ids) & set(facts):
        raise _problem(path, "traps", "trap ids repeat or reuse a fact id")
    member_ids = {m.id for m in spec.members}

    def check_place(place: Place, where: str) -> None:
        session = sessions.get(place.session)
        if session is None:
            raise _problem(path, where, f"{place}: there is no session {place.session}")
        if not 1 <= place.turn <= len(session.turns):
            raise _problem(path, where, f"{place}: session {place.session} has {len(session.turns)} turns")

    for fact in spec.facts:
        where = f"fact {fact.id}"
        for place in [*fact.said, *fact.restated]:
            check_place(place, where)
        for ref in (fact.corrects, fact.after_forget_of):
            if ref is not None and ref not in facts:
                raise _problem(path, where, f"names fact {ref!r}, which is not labelled")
        if fact.corrects is not None and facts[fact.corrects].final is not FactFinal.SUPERSEDED:
            raise _problem(path, where, f"corrects {fact.corrects}, so that fact's final must be superseded")
        _check_labels_tell_apart(family, fact)
    edited_into = {a.becomes for s in spec.sessions for a in s.after if a.becomes}
    for fact in spec.facts:
        if not fact.said and fact.id not in edited_into:
            raise _problem(path, f"fact {fact.id}", "said: is empty and no edit becomes it")
    for trap in spec.traps:
        check_place(trap.at, f"trap {trap.id}")
    for query in spec.queries:
        if query.member not in member_ids:
            raise _problem(path, f"query {query.id}", f"member {query.member!r} is not in members")
        for need in query.needs:
            if need not in facts:
                raise _problem(path, f"query {query.id}", f"needs {need!r}, which is not a labelled fact")
            if facts[need].final is not FactFinal.ACTIVE:
                raise _problem(path, f"query {query.id}", f"needs {need!r}, which is not current at the end")
    for s in spec.sessions:
        for action in s.after:
            where = f"session {s.id} after ({action.kind.value})"
            if action.by not in member_ids:
                raise _problem(path, where, f"by {action.by!r} is not a member")
            named = [x for x in (action.forget, action.edit, action.becomes) if x] + list(action.covers)
            for fact_id in named:
                if fact_id not in facts:
                    raise _problem(path, where, f"names fact {fact_id!r}, which is not labelled")
        for i, raw in enumerate(s.candidates):
            _check_candidate(family, sessions[s.id], i, raw)


def _check_labels_tell_apart(family: EvalFamily, fact: Fact) -> None:
    """A fact's own reference text must satisfy its ``match`` (else no faithful memory
    could), and no other fact may claim that text as strongly (else a memory of one
    would count as the other: add an ``exclude`` or a sharper group)."""
    own = fact.matcher().score(fact.text)
    if not own:
        raise _problem(family.path, f"fact {fact.id}", f"its text {fact.text!r} does not satisfy its own match")
    for other in family.spec.facts:
        if other.id != fact.id and other.matcher().score(fact.text) >= own:
            raise _problem(
                family.path,
                f"fact {fact.id}",
                f"fact {other.id}'s match claims this fact's text as strongly; tell them apart with exclude",
            )


def _check_candidate(family: EvalFamily, session: EvalSession, index: int, raw: dict[str, Any]) -> None:
    """A supplied candidate's evidence must be checkable: cited turns exist and
    each quote is in one of them (the same normalisation validation uses); and it
    must state a labelled fact said (or restated) in a turn it cites, so the
    labelled candidates and the labels agree."""
    from family_memory.formation.candidate import Candidate

    where = f"session {session.id} candidate {index}"
    try:
        candidate = Candidate.model_validate(raw)
    except ValidationError as exc:
        raise _problem(family.path, where, validation_message(exc)) from exc
    for cited in candidate.evidence:
        if cited.last > len(session.turns):
            raise _problem(family.path, where, f"cites turn {cited.last}; the session has {len(session.turns)}")
        texts = [normalise_for_match(session.turns[n - 1].text) for n in range(cited.first, cited.last + 1)]
        if not any(normalise_for_match(cited.quote) in text for text in texts):
            raise _problem(family.path, where, f"quote {cited.quote[:60]!r} is not in turns {cited.turns}")
    cited_places = {(session.id, n) for c in candidate.evidence for n in range(c.first, c.last + 1)}
    text = f"{candidate.summary} {candidate.about}"
    scored = sorted(((f.matcher().score(text), f) for f in family.spec.facts), key=lambda pair: -pair[0])
    best = [f for score, f in scored if score and score == scored[0][0]]
    if not any({(p.session, p.turn) for p in [*f.said, *f.restated]} & cited_places for f in best):
        names = ", ".join(f.id for f in best) or "no fact"
        raise _problem(
            family.path,
            where,
            f"{candidate.summary[:60]!r} matches {names}, none said at the turns it cites; label it or fix the match",
        )


def load_family(path: Path) -> EvalFamily:
    """One family file, validated with every cross-reference; InvalidInputError names the place."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise InvalidInputError(f"{path.name}: not readable YAML: {exc}") from exc
    try:
        spec = FamilySpec.model_validate(data)
    except ValidationError as exc:
        raise InvalidInputError(f"{path.name}: {validation_message(exc)}") from exc
    except InvalidInputError as exc:
        raise InvalidInputError(f"{path.name}: {exc}") from exc
    sessions = _resolve_sessions(spec, path)
    try:
        end_at = _local(spec.end_at, spec.time_zone).astimezone(zone("UTC"))
    except ValueError as exc:
        raise _problem(path, "end_at", str(exc)) from exc
    if end_at <= sessions[-1].ended_at:
        raise _problem(path, "end_at", "must come after the last session")
    family = EvalFamily(spec, path, sessions, end_at)
    _check_references(family)
    return family


def load_set(directory: Path) -> list[EvalFamily]:
    """Every ``*.yaml`` family under ``directory/families`` (or ``directory`` itself), by file name."""
    folder = directory / "families" if (directory / "families").is_dir() else directory
    paths = sorted(folder.glob("*.yaml"))
    if not paths:
        raise InvalidInputError(f"no family files (*.yaml) in {folder}")
    families = [load_family(p) for p in paths]
    ids = [f.id for f in families]
    if len(set(ids)) != len(ids):
        raise InvalidInputError(f"family ids repeat across files: {sorted({i for i in ids if ids.count(i) > 1})}")
    return families


#: Statuses as the labels name them.
FINAL_STATUS = {
    FactFinal.ACTIVE: Status.ACTIVE,
    FactFinal.SUPERSEDED: Status.SUPERSEDED,
    FactFinal.RETRACTED: Status.RETRACTED,
    FactFinal.EXPIRED: Status.EXPIRED,
}
