"""``brief.json``: the compiled brief, its sections, budgets and byte-stable form.

The brief holds no timestamps and no counters (a compile count, a "compiled
at"): the same inputs always serialise to the same bytes, which is what makes
the agent's prompt cache reusable. The only dates in it are memories' own
``valid_until`` dates, so a loader can drop a line the day it stops applying.

The last conversation is each member's own (DESIGN invariant 6): the compiled
file holds one per member (``conversations``, by member id, with the session
it summarises), and what a request is served (``Brief.served``) carries only
the asking member's, in ``last_conversation``; the household surface, and a
request that names no member, get none. A ``brief@1`` file (one family-wide
last conversation, whoever had it) still parses, and its last conversation is
never served: nobody knows whose it was.
"""

from __future__ import annotations

import json
from datetime import date
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from family_memory.domain.family import Surface
from family_memory.domain.ids import FamilyId, MemberId, SessionId
from family_memory.domain.okf import parse_json

#: Hard cap on the rendered brief block (cl100k tokens, ``domain/tokens.py``).
BRIEF_TOKEN_CAP = 2000
#: Longest text of any line, in characters (before escaping).
LINE_CHAR_CAP = 200
#: Most tokens one rendered line may cost (text, reference and notes). Smaller
#: than every section budget, so no single line can crowd out a whole section;
#: text that is expensive to tokenise is cut further to stay under it.
LINE_TOKEN_CAP = 120
SCHEMA = "family-memory/brief@2"


class Section(StrEnum):
    IDENTITY = "identity"
    DIRECTIVES = "directives"
    TOPICS = "topics"
    LAST_CONVERSATION = "last_conversation"


#: Fixed token budget of each section's lines. They sum to 1,900; the other
#: 100 are for the fixed framing (tags, headings), which the compiler measures.
SECTION_BUDGETS: dict[Section, int] = {
    Section.IDENTITY: 400,
    Section.DIRECTIVES: 1000,
    Section.TOPICS: 350,
    Section.LAST_CONVERSATION: 150,
}

SECTION_ORDER: tuple[Section, ...] = (
    Section.IDENTITY,
    Section.DIRECTIVES,
    Section.TOPICS,
    Section.LAST_CONVERSATION,
)


class BriefLine(BaseModel):
    """One line: plain text (escaped only when rendered), the memory it summarises
    (None for lines built from family.json, entities or topic counts), the memory's
    expiry date, and whether it is a hard rule."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = Field(min_length=1, max_length=LINE_CHAR_CAP)
    ref: str | None = None
    valid_until: date | None = None
    hard: bool = False

    @property
    def memory_id(self) -> str | None:
        return None if self.ref is None else self.ref.rsplit("/", 1)[-1]


class MemberConversation(BaseModel):
    """One member's own last conversation: the session it summarises, its line, and the
    subjects (``about``) of the session's claims the line repeats, so that a forget of one
    of them drops the line at once (``brief.patch``) without reading the session again."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    session_id: SessionId
    lines: tuple[BriefLine, ...] = ()
    repeats: tuple[str, ...] = ()


class Brief(BaseModel):
    """The compiled brief (``conversations`` holds every member's last conversation) or,
    from ``served``, what one request gets (``last_conversation`` holds the asking
    member's, ``conversations`` is empty)."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    type: Literal["brief"] = "brief"
    schema_: Literal["family-memory/brief@1", "family-memory/brief@2"] = Field(
        default="family-memory/brief@2", alias="schema"
    )
    family_id: FamilyId
    time_zone: str = "UTC"
    identity: tuple[BriefLine, ...] = ()
    directives: tuple[BriefLine, ...] = ()
    topics: tuple[BriefLine, ...] = ()
    #: The served member's own last conversation (empty in a compiled brief).
    last_conversation: tuple[BriefLine, ...] = ()
    #: Each member's own last conversation, by member id (compiled; never rendered as such).
    conversations: dict[MemberId, MemberConversation] = Field(default_factory=dict)

    def served(self, member_id: str | None = None, surface: Surface = Surface.CHAT) -> Brief:
        """What a request by ``member_id`` on ``surface`` is given: the shared sections and,
        in a member's own chat, that member's last conversation. The household surface and
        a request that names no member get no last conversation; nobody is ever given
        another member's."""
        own = self.conversations.get(member_id) if member_id and surface is Surface.CHAT else None
        return self.model_copy(update={"last_conversation": own.lines if own else (), "conversations": {}})

    def views(self, surface: Surface = Surface.CHAT) -> list[Brief]:
        """Every brief a request on ``surface`` can be served from this one: no member's,
        then each member's (for a served brief, just itself)."""
        if not self.conversations:
            return [self]
        if surface is not Surface.CHAT:
            return [self.served(None, surface)]
        return [self.served(None), *(self.served(m) for m in sorted(self.conversations))]

    def with_conversation(self, member_id: str, lines: tuple[BriefLine, ...]) -> Brief:
        """The brief with ``member_id``'s last-conversation lines replaced (the session is kept
        when they are empty; what no line repeats any more is not)."""
        held = self.conversations[member_id]
        update = {"lines": tuple(lines)} if lines else {"lines": (), "repeats": ()}
        conversations = {**self.conversations, member_id: held.model_copy(update=update)}
        return self.model_copy(update={"conversations": conversations})

    def lines(self, section: Section) -> tuple[BriefLine, ...]:
        result: tuple[BriefLine, ...] = getattr(self, section.value)
        return result

    def with_lines(self, section: Section, lines: tuple[BriefLine, ...]) -> Brief:
        return self.model_copy(update={section.value: tuple(lines)})

    def memory_ids(self) -> set[str]:
        return {line.memory_id for s in SECTION_ORDER for line in self.lines(s) if line.memory_id}

    def line_count(self) -> int:
        return sum(len(self.lines(s)) for s in SECTION_ORDER)


def serialise_brief(brief: Brief) -> bytes:
    """Canonical bytes: sorted keys, two-space indent, UTF-8, trailing newline."""
    data = brief.model_dump(mode="json", by_alias=True)
    return (json.dumps(data, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode("utf-8")


def parse_brief(data: bytes, where: str = "brief.json") -> Brief:
    return parse_json(Brief, data, where)
