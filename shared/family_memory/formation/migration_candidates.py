"""What a migrated entry proposes: the candidates formation then validates and reconciles.

A migrated entry is one user turn of a session of its own (written by the member
who asked for it, at its date). Its candidates are

1. what the offline rule-based extractor reads in those words: the same reading a
   conversation gets, so "Always check with me before booking" in the file and
   the same words in a chat form the same claim, and one reinforces the other;
2. and, when that reading finds nothing or leaves more than a quarter of the
   entry's words unread, the entry as written: one candidate whose summary is
   the entry, typed by its words (an instruction, a constraint, an identity, a
   preference, else a fact). So no words of an entry are left behind because
   the reader did not understand them.

Every candidate is ``authority: user_explicit``: the family wrote it down to be
remembered. Strength is ``hard`` only where the entry is an instruction the
offline reading recognises as one ("always …", "never …", "don't …", "check
with me before …", "call me …", "from now on …") in the family's own
explicit-memories file. Everything else is ``soft``: an allergy written in a
file stays a constraint, and making it a hard rule is the family's call on the
card; an import from another memory store (Mem0, an assistant's memory list) is
never hard, since those are another system's summaries, not the family's words.
Nothing here decides what is true: validation and reconciliation do, exactly
as for a conversation.
"""

from __future__ import annotations

import re
from typing import Any

from family_memory.domain.family import FamilySettings
from family_memory.domain.memory import Authority, Durability, MemoryType, Strength
from family_memory.domain.text import QUOTE_MAX, SUMMARY_MAX
from family_memory.domain.transcript import Transcript
from family_memory.formation.importers import SourceFormat
from family_memory.formation.offline import OfflineExtractor
from family_memory.formation.offline.text import first_found, sentence_case, short
from family_memory.formation.text_similarity import content_tokens

#: Share of an entry's content words the offline reading may leave unread before the entry
#: is also proposed as written.
UNREAD_ALLOWED = 0.25
#: A candidate formed from the entry as written.
AS_WRITTEN_CONFIDENCE = 0.9

_INSTRUCTION = re.compile(
    r"^(?:please\s+)?(?:always|never|don['’]?t|do not|make sure|remember to|check|ask|call|address|use|avoid|only|"
    r"remind|keep|send|tell|stop|let|text|email|confirm|wait|include|ignore|book|cc|copy|forward|reply|no\s+\w+\s+"
    r"(?:before|after|on|in|at|during))\b",
    re.I,
)
_HEALTH = re.compile(
    r"\b(?:allerg\w*|vegetarian|vegan|pescatarian|gluten|celiac|coeliac|lactose|diabetic|diabetes|kosher|halal|"
    r"medication|medicine|meds|insulin|epipen|inhaler|intoleran\w*|asthma)\b",
    re.I,
)
_IDENTITY = re.compile(r"\b(?:name is|goes by|go by|call(?:ed)? me|pronouns)\b", re.I)
_PREFERS = re.compile(
    r"\b(?:likes?|loves?|prefers?|enjoys?|adores?|favou?rite|hates?|dislikes?|can['’]?t stand)\b", re.I
)
_FIRST_PERSON = re.compile(r"\b(?:i|i['’]m|i['’]ve|i['’]d|i['’]ll|me|my|mine|myself)\b", re.I)
#: An imported memory that starts with a verb has left its subject (the member) out: "Is vegetarian".
_SUBJECTLESS = re.compile(
    r"^(?:is|isn['’]t|has|had|likes|loves|prefers|wants|lives|lived|works|worked|enjoys|dislikes|hates|needs|uses|"
    r"owns|was|speaks|drinks|eats|avoids|goes|drives|takes|plays|attends|studies|does|doesn['’]t|can|can['’]t|"
    r"cannot|won['’]t|would|should|usually|often|sometimes|wishes|plans|planning|thinks|believes|knows|"
    r"celebrates|follows|keeps|runs|walks|visits|travels|commutes|teaches|volunteers|grew|moved|recently)\b",
    re.I,
)
_USER_SUBJECT = re.compile(r"^(?:the\s+)?user(?P<poss>['’]s)?\b", re.I)
#: "Name is Marco": an imported memory about the member's own name, birthday, job, ...
_OWN = re.compile(r"^(?:name|birthday|job|age|pronouns|favou?rite\s+\w+)\s+(?:is|are)\b", re.I)


def _clip(text: str, limit: int) -> str:
    """``text`` cut at a word boundary to at most ``limit`` characters: a prefix of it, so a
    quote cut this way still appears in its turn."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    return cut.rsplit(" ", 1)[0] if " " in cut else cut


#: An entry's type by its words: the first found (an instruction starts the entry), else a fact.
_TYPES = (
    (_INSTRUCTION, MemoryType.DIRECTIVE),
    (_HEALTH, MemoryType.CONSTRAINT),
    (_IDENTITY, MemoryType.IDENTITY),
    (_PREFERS, MemoryType.PREFERENCE),
)


def _member_name(family: FamilySettings, member_id: str) -> str:
    member = family.member(member_id)
    return member.name.split()[0] if member is not None else member_id[:1].upper() + member_id[1:]


def as_written(text: str, member_id: str, family: FamilySettings, fmt: SourceFormat) -> dict[str, Any]:
    """The entry as its own candidate: its words as the summary (with its member named where
    an imported memory left the subject out), typed by its words, soft, explicit."""
    plain = " ".join(text.split()).strip(" .,;:")
    name = _member_name(family, member_id)
    about_them = bool(_FIRST_PERSON.search(plain))
    stated = plain
    user = _USER_SUBJECT.match(plain) if fmt is not SourceFormat.EXPLICIT else None
    if user is not None:
        stated = name + ("'s" if user.group("poss") else "") + plain[user.end() :]
        about_them = True
    elif _SUBJECTLESS.match(plain):
        stated = f"{name} {plain[:1].lower()}{plain[1:]}"
        about_them = True
    elif fmt is not SourceFormat.EXPLICIT and _OWN.match(plain):
        stated = f"{name}'s {plain[:1].lower()}{plain[1:]}"
        about_them = True
    summary = sentence_case(_clip(stated, SUMMARY_MAX - 2))
    whose: dict[str, Any] = {"applies_to": [member_id], "about_member": member_id} if about_them else {}
    return {
        "type": first_found(plain, _TYPES, MemoryType.FACT).value,
        "about": short(stated.rstrip("."), 8, 100),
        "summary": summary,
        "body": text,
        "when_to_use": sentence_case(f"Whenever this comes up: {short(plain, 10, 100)}"),
        "durability": Durability.DURABLE.value,
        "strength": Strength.SOFT.value,
        "authority": Authority.USER_EXPLICIT.value,
        "confidence": AS_WRITTEN_CONFIDENCE,
        "evidence": [{"turns": [1], "quote": _clip(text, QUOTE_MAX)}],
        **whose,
    }


def _unread_share(text: str, readings: list[dict[str, Any]]) -> float:
    words = set(content_tokens(text))
    if not words:
        return 0.0
    read = {w for r in readings for item in r.get("evidence", []) for w in content_tokens(str(item.get("quote", "")))}
    return len(words - read) / len(words)


def entry_proposals(transcript: Transcript, family: FamilySettings, fmt: SourceFormat) -> list[dict[str, Any]]:
    """The raw candidates for the one-turn session ``transcript`` holding a migrated entry."""
    turn = transcript.turns[0]
    assert turn.member_id is not None  # a migrated entry is always a user turn
    readings: list[dict[str, Any]] = []
    for raw in OfflineExtractor().extract(transcript, family).candidates:
        reading = dict(raw)
        reading["authority"] = Authority.USER_EXPLICIT.value
        instruction = reading.get("type") == MemoryType.DIRECTIVE.value and reading.get("strength") == "hard"
        if not (fmt is SourceFormat.EXPLICIT and instruction):
            reading["strength"] = Strength.SOFT.value
        readings.append(reading)
    if not readings or _unread_share(turn.text, readings) > UNREAD_ALLOWED:
        readings.append(as_written(turn.text, turn.member_id, family, fmt))
    return readings
