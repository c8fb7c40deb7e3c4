"""The session's one-line summary: the brief's "last conversation" for each member who took part.

It says what happened: what was asked, decided or planned, and what else the family
told us, in one sentence built from the session's *accepted* claims:

    Lucía asked: never book flights before 7am; planned: Marco is away for work until
    November 28, 2026; Marco mentioned: the family loves Thai food (+1 more).

Each claim is named by its own summary (validated against the turns it cites; the
same words its memory shows in the brief and the card), said by the members whose
turns it cites: a directive is "asked", a constraint "decided", a claim that holds
until a date "planned", anything else "mentioned". Asks and decisions come first,
then plans, then the rest, each in the session's order; claims that do not fit in
the line's 200 characters are counted, not cut ("(+2 more)"). A claim whose
summary alone is too long is named by its ``about``.

It is built to leak nothing: only from the accepted claims that are not sensitive
(health, finances, minors) and that the family's own state does not keep out
(``kept_out``: a forget rule suppresses it, or it is about a child the family has
told us of). A claim about someone this very session calls a child ("my daughter
Maya") is kept out too, even before that entity is on file. A summary an extractor
proposes for the session (a model's own free text) is never used: it cannot be
checked for what it reveals. A session where nothing remains has no summary (the
empty string), so the brief shows no last-conversation line for it. The brief
checks the line again when it compiles (``brief.compile.repeats_forgotten``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from family_memory.domain.family import FamilySettings
from family_memory.domain.memory import MemoryType, Sensitivity
from family_memory.domain.text import normalise_for_match
from family_memory.domain.transcript import Role, Transcript
from family_memory.formation.candidate import Candidate
from family_memory.formation.children import writers
from family_memory.formation.document import SUMMARY_MAX, one_line
from family_memory.formation.relations import is_child_relation

#: Whether the family's own state keeps a claim out of the summary (a forget rule, a known child).
KeptOut = Callable[[Candidate], bool]

ASKED, DECIDED, PLANNED, MENTIONED = "asked", "decided", "planned", "mentioned"
#: The order the kinds of claim are told in: what the family asked and decided first.
_ORDER = {ASKED: 0, DECIDED: 1, PLANNED: 2, MENTIONED: 3}
#: First words of a summary that are never a name, so they read lower case after a colon.
_PLAIN_STARTS = frozenset(
    [
        "a",
        "an",
        "all",
        "always",
        "any",
        "at",
        "do",
        "don't",
        "dont",
        "each",
        "every",
        "for",
        "from",
        "if",
        "in",
        "never",
        "no",
        "not",
        "on",
        "only",
        "our",
        "please",
        "some",
        "the",
        "their",
        "there",
        "they",
        "this",
        "until",
        "we",
        "when",
    ]
)


def _first_name(family: FamilySettings, member_id: str) -> str:
    member = family.member(member_id)
    return member.name.split()[0] if member and member.name.split() else member_id


def _speakers(transcript: Transcript, family: FamilySettings) -> list[str]:
    names: list[str] = []
    for turn in transcript.turns:
        if turn.role is Role.USER and turn.member_id:
            name = _first_name(family, turn.member_id)
            if name not in names:
                names.append(name)
    return names


def _children_named(accepted: Sequence[Candidate]) -> set[str]:
    """Every name this session gives someone it calls a child ("my daughter Maya": maya, my daughter)."""
    names: set[str] = set()
    for candidate in accepted:
        for hint in candidate.entities:
            if is_child_relation(hint.relationship):
                names.update(normalise_for_match(n) for n in (hint.name, *hint.aliases))
    return names


def kind_of(candidate: Candidate) -> str:
    """What the claim tells of the session: asked (a directive), decided (a constraint),
    planned (a claim that holds until a date), mentioned (anything else)."""
    if candidate.type is MemoryType.DIRECTIVE:
        return ASKED
    if candidate.type is MemoryType.CONSTRAINT:
        return DECIDED
    if candidate.valid_until:
        return PLANNED
    return MENTIONED


def clause_text(text: str) -> str:
    """A claim's summary as a clause: one line, no closing full stop, and lower case when
    its first word is never a name ("Never book…" -> "never book…"; "Marco is…" stays)."""
    text = " ".join(text.split()).rstrip(" .")
    first = text.split(" ", 1)[0] if text else ""
    if first.casefold() in _PLAIN_STARTS and first[:1].isupper():
        text = text[:1].lower() + text[1:]
    return text


def _who(candidate: Candidate, transcript: Transcript, family: FamilySettings, speakers: list[str]) -> str:
    said = sorted(writers(candidate, transcript), key=lambda m: [t.member_id for t in transcript.turns].index(m))
    names = [_first_name(family, m) for m in said] or speakers[:1] or ["The family"]
    return " and ".join(names[:2])


def _shareable(accepted: Sequence[Candidate], kept_out: KeptOut, children: set[str]) -> list[tuple[int, Candidate]]:
    kept: list[tuple[int, Candidate]] = []
    seen: set[str] = set()
    for index, candidate in enumerate(accepted):
        if candidate.sensitivity is not Sensitivity.NORMAL or kept_out(candidate):
            continue
        names = {normalise_for_match(n) for n in candidate.subject_names()}
        names |= {normalise_for_match(h.name) for h in candidate.entities}
        if names & children:
            continue
        key = normalise_for_match(candidate.summary)
        if key in seen:
            continue
        seen.add(key)
        kept.append((index, candidate))
    return kept


def _sentence(parts: list[tuple[str, str, str]], omitted: int) -> str:
    """``Lucía asked: a; planned: b; Marco mentioned: c (+1 more).`` from (who, kind, clause)."""
    pieces: list[str] = []
    last_who = None
    for who, kind, clause in parts:
        pieces.append(f"{kind}: {clause}" if who == last_who else f"{who} {kind}: {clause}")
        last_who = who
    more = f" (+{omitted} more)" if omitted else ""
    return "; ".join(pieces) + more + "."


def derive_summary(
    transcript: Transcript,
    family: FamilySettings,
    accepted: Sequence[Candidate],
    kept_out: KeptOut = lambda _: False,
) -> str:
    """``Lucía asked: never book flights before 7am; planned: pizza night on Friday.`` (at
    most 200 characters), from the shareable accepted claims; ``""`` when there are none."""
    claims = _shareable(accepted, kept_out, _children_named(accepted))
    if not claims:
        return ""
    speakers = _speakers(transcript, family)
    ordered = sorted(claims, key=lambda c: (_ORDER[kind_of(c[1])], c[0]))
    told = [(_who(c, transcript, family, speakers), kind_of(c), c) for _, c in ordered]
    parts: list[tuple[str, str, str]] = []
    for who, kind, candidate in told:
        omitted = len(told) - len(parts) - 1
        for clause in (clause_text(candidate.summary), clause_text(candidate.about)):
            trial = _sentence([*parts, (who, kind, clause)], omitted)
            if len(trial) <= SUMMARY_MAX:
                parts.append((who, kind, clause))
                break
    if not parts:  # the first claim alone is too long even by its about: cut it
        who, kind, candidate = told[0]
        return one_line(_sentence([(who, kind, clause_text(candidate.about))], 0), SUMMARY_MAX)
    return one_line(_sentence(parts, len(told) - len(parts)), SUMMARY_MAX)
