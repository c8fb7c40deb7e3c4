"""The agent's read tools: search_memory, read_memory, read_conversation_excerpt.

Definitions are JSON Schema in Bedrock Converse ``toolSpec`` form
(``TOOL_SPECS``; ``tool_config(surface)`` gives the ``toolConfig`` for a
request). A ``ReadTools`` is bound to one family (the conversation's, from
the authenticated request, never from the model): a reference naming another
family, a malformed reference or an unknown id gets a clear error and no
data. There is no tool that writes; this module has no path to the writer.

On the household surface no tool is offered (memories belong to individuals,
product post section 9), and a call that arrives anyway is refused.

Whatever a tool returns is data: memory text and transcript turns are escaped
and wrapped in a delimiter naming their reference. Every piece of untrusted
text (a turn, an evidence quote, each value of a memory file's front matter
and its whole body, the query echoed back) is written by
``domain.literal.one_line``, as the brief's lines are: a JSON string literal,
so a line break or a quote inside it cannot start a line of its own or an
attribute and pass for a turn, a record, a field or a reference;
``json.loads`` of the literal gives it back.

The chain of references (product post section 7) is open to the agent end to
end: a brief line or lookup line carries ``memory://``, ``read_memory`` returns
the file and its evidence records with their ``conv://`` references, and
``read_conversation_excerpt`` returns the turns those name.

What the family asked to forget is closed along the whole chain (``forgotten.py``):
``read_memory`` refuses a retracted memory and every earlier version of one, shows an
evidence quote holding forgotten words as ``[forgotten at the family's request]``, and
``read_conversation_excerpt`` shows such a turn the same way, whatever range is asked.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from family_memory.domain.clock import format_utc
from family_memory.domain.errors import FamilyMemoryError, InvalidInputError, NotFoundError, public_message
from family_memory.domain.evidence import parse_ledger
from family_memory.domain.family import Surface
from family_memory.domain.ids import check_family_id
from family_memory.domain.layout import evidence_path, memory_path, session_path
from family_memory.domain.literal import one_line
from family_memory.domain.memory import Status
from family_memory.domain.okf import parse_memory_file, validation_message
from family_memory.domain.refs import MAX_REF_LENGTH, ConvRef, MemoryRef
from family_memory.domain.transcript import parse_transcript
from family_memory.forgotten import FORGOTTEN, ForgottenWords, replaced_by_forgotten
from family_memory.ports.store import Store
from family_memory.retrieval.age import age_in_words
from family_memory.retrieval.embedding import EmbeddingUnavailableError
from family_memory.retrieval.lookup import MAX_QUERY_CHARS, TurnLookup, line_for

log = logging.getLogger(__name__)

SEARCH_DEFAULT_LIMIT = 5
SEARCH_MAX_LIMIT = 25  # the turn-level lookup stays at its own small cap (LOOKUP_MAX_ITEMS)
MAX_EXCERPT_TURNS = 20
#: Most evidence records read_memory shows (the newest); the count of the rest is stated.
MAX_EVIDENCE_SHOWN = 10


def _tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """A Converse tool spec whose input is a JSON object of ``properties`` and nothing else."""
    schema = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    return {"toolSpec": {"name": name, "description": description, "inputSchema": {"json": schema}}}


def _ref_property(pattern: str, example: str) -> dict[str, Any]:
    """The one ``ref`` property of a tool that opens a reference."""
    return {
        "ref": {
            "type": "string",
            "pattern": pattern,
            "maxLength": MAX_REF_LENGTH,
            "description": f"A reference such as {example}.",
        }
    }


TOOL_SPECS: list[dict[str, Any]] = [
    _tool(
        "search_memory",
        "Search what this family has told you, by meaning and by words. Use it when neither the brief "
        "nor the looked-up lines state a fact you need, before saying you do not know. Returns short "
        "lines, each with a memory:// reference you can open with read_memory.",
        {
            "query": {
                "type": "string",
                "minLength": 1,
                "maxLength": 500,
                "description": "What to look for, in plain words (for example: Maya's orthodontist).",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": SEARCH_MAX_LIMIT,
                "default": SEARCH_DEFAULT_LIMIT,
                "description": "Most lines to return.",
            },
        },
        ["query"],
    ),
    _tool(
        "read_memory",
        "Open one memory by its memory:// reference and get the whole file, one field a line: front "
        "matter (type, strength, status, dates, what it applies to) and body, every text a quoted JSON "
        "string, then its evidence: each quote with the "
        "conv:// reference of the turns it came from and when it was recorded. Use it for the exact "
        "condition of a rule or the context behind a preference; open a conv:// reference with "
        "read_conversation_excerpt for the family's exact words.",
        _ref_property("^memory://[^/#?]+/[^/#?]+$", "memory://{family}/{memory id}"),
        ["ref"],
    ),
    _tool(
        "read_conversation_excerpt",
        "Open the conversation turns a memory came from, by their conv:// reference (found in a "
        "memory's evidence). Use it to see the family's exact words, for example when asked "
        "'why do you think that?'.",
        _ref_property(
            "^conv://[^/#?]+/[^/#?]+#turn=[1-9][0-9]*(-[1-9][0-9]*)?$", "conv://{family}/{session}#turn=12-14"
        ),
        ["ref"],
    ),
]
TOOL_NAMES = tuple(spec["toolSpec"]["name"] for spec in TOOL_SPECS)


def tool_config(surface: Surface = Surface.CHAT) -> dict[str, Any] | None:
    """The Converse ``toolConfig`` for a surface; None where no tool is offered."""
    if surface is Surface.HOUSEHOLD:
        return None
    return {"tools": [json.loads(json.dumps(spec)) for spec in TOOL_SPECS]}


class SearchInput(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    query: str = Field(min_length=1, max_length=500)
    limit: int = Field(default=SEARCH_DEFAULT_LIMIT, ge=1, le=SEARCH_MAX_LIMIT)


class RefInput(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    ref: str = Field(min_length=1, max_length=MAX_REF_LENGTH)


@dataclass(frozen=True)
class ToolResult:
    status: str  # "success" or "error"
    text: str

    def to_converse(self, tool_use_id: str) -> dict[str, Any]:
        """A Converse ``toolResult`` content block."""
        return {"toolResult": {"toolUseId": tool_use_id, "content": [{"text": self.text}], "status": self.status}}


class ReadTools:
    """The three read tools for one family's conversation on one surface."""

    def __init__(self, store: Store, lookup: TurnLookup, family_id: str, surface: Surface = Surface.CHAT) -> None:
        self.store = store
        self.lookup = lookup
        self.family_id = check_family_id(family_id)
        self.surface = surface

    # --- dispatch -------------------------------------------------------------------

    def run(self, name: str, tool_input: Any) -> ToolResult:
        """Run a tool call from the model; every failure is an error result, never an exception.
        The model sees an error's public text (no host names, no lease holders); the detail
        is logged for the operator."""
        try:
            return ToolResult("success", self.call(name, tool_input))
        except FamilyMemoryError as exc:
            text = public_message(exc)
            if text != str(exc):
                log.warning("tool call failed", extra={"tool": name, "error": type(exc).__name__, "detail": str(exc)})
            return ToolResult("error", text)

    def call(self, name: str, tool_input: Any) -> str:
        if self.surface is Surface.HOUSEHOLD:
            raise InvalidInputError("memory tools are not offered in shared household chat")
        if name == "search_memory":
            search = _parse(SearchInput, tool_input, name)
            return self.search_memory(search.query, search.limit)
        if name == "read_memory":
            return self.read_memory(_parse(RefInput, tool_input, name).ref)
        if name == "read_conversation_excerpt":
            return self.read_conversation_excerpt(_parse(RefInput, tool_input, name).ref)
        raise InvalidInputError(f"there is no tool named {str(name)[:60]!r}; the tools are {', '.join(TOOL_NAMES)}")

    # --- the tools ------------------------------------------------------------------

    def search_memory(self, query: str, limit: int = SEARCH_DEFAULT_LIMIT) -> str:
        if not 1 <= limit <= SEARCH_MAX_LIMIT:
            raise InvalidInputError(f"limit must be between 1 and {SEARCH_MAX_LIMIT}")
        text = query[:MAX_QUERY_CHARS].strip()
        try:
            vector = self.lookup.embed_query(self.family_id, text) if text else None
        except EmbeddingUnavailableError:
            vector = None  # keywords only, and no rules pass (it needs the vector), as in the lookup
        confirmed, _, zone = self.lookup.ranked(self.family_id, text, self.surface, query_vector=vector, need=limit)
        # The same search as the turn-level lookup, rules included: the rules the query's task
        # touches ("can we pay in instalments" finds "no Klarna, no credit, cash or nothing") follow
        # the best few matches, so a question about one fact still finds it first.
        rules, _ = self.lookup.rules_for(self.family_id, text, self.surface, vector)
        lead = [(row, False) for row, _ in confirmed[: self.lookup.settings.semantic_lead]]
        shown = {row.id for row, _ in lead}
        ordered = lead + [(row, True) for row in rules if row.id not in shown]
        shown |= {row.id for row in rules}
        ordered += [(row, False) for row, _ in confirmed if row.id not in shown]
        now = self.lookup.clock.now()
        lines = [
            line_for(
                row, str(MemoryRef(self.family_id, row.id)), age_in_words(row.formed_at, now, zone), zone, rule=rule
            )
            for row, rule in ordered[:limit]
        ]
        body = "\n".join(lines) if lines else "(no memory matches)"
        return f"<memory_search query={one_line(query[:120])}>\n{body}\n</memory_search>"

    def _own(self, ref_family: str, what: str) -> None:
        if ref_family != self.family_id:
            raise InvalidInputError(f"the {what} names family {ref_family}; this conversation can only read its own")

    def read_memory(self, ref: str) -> str:
        parsed = MemoryRef.parse(ref)
        self._own(parsed.family_id, "reference")
        path = memory_path(parsed.memory_id)
        document = self.store.read_optional(self.family_id, path)
        if document is None:
            raise NotFoundError(f"there is no memory {parsed.memory_id} in this family")
        memory, front, body = parse_memory_file(document.data, path)
        if memory.status is Status.RETRACTED:
            # The family asked to forget it: it stays on file for the record, not for the agent.
            raise NotFoundError(f"memory {parsed.memory_id} was forgotten at the family's request")
        if replaced_by_forgotten(self.store, self.family_id, memory):
            # An earlier wording of a claim the family later asked to forget.
            raise NotFoundError(f"memory {parsed.memory_id} was forgotten at the family's request")
        fields = "\n".join(memory_file_lines(front, body))
        return f'<memory_file ref="{parsed}">\n{fields}\n</memory_file>\n' + self._evidence_block(parsed)

    def _evidence_block(self, ref: MemoryRef) -> str:
        """One line per record, newest last: its reference, when it was recorded, the quote.
        A record's ``ref`` was parsed strictly when the ledger was read, so it holds no
        character that could leave the line. A damaged ledger does not hide the memory."""
        path = evidence_path(ref.memory_id)
        try:
            document = self.store.read_optional(self.family_id, path)
            records = [] if document is None else parse_ledger(document.data, where=path)
        except InvalidInputError:
            return f'<memory_evidence ref="{ref}">\n(the evidence ledger could not be read)\n</memory_evidence>'
        shown = records[-MAX_EVIDENCE_SHOWN:]
        forgotten = ForgottenWords.load(self.store, self.family_id) if shown else ForgottenWords(())
        lines = [
            f"- {record.ref} recorded {format_utc(record.recorded_at)}: "
            + (FORGOTTEN if forgotten.covers(record.quote) else one_line(record.quote))
            for record in shown
        ]
        if len(records) > len(shown):
            lines.insert(0, f"({len(records) - len(shown)} earlier records not shown)")
        if not lines:
            lines.append("(no evidence on file)")
        return f'<memory_evidence ref="{ref}" records="{len(records)}">\n' + "\n".join(lines) + "\n</memory_evidence>"

    def read_conversation_excerpt(self, ref: str) -> str:
        parsed = ConvRef.parse(ref)
        self._own(parsed.family_id, "reference")
        if parsed.last_turn - parsed.first_turn + 1 > MAX_EXCERPT_TURNS:
            raise InvalidInputError(f"an excerpt may cite at most {MAX_EXCERPT_TURNS} turns")
        path = session_path(parsed.session_id)
        document = self.store.read_optional(self.family_id, path)
        if document is None:
            raise NotFoundError(f"there is no conversation {parsed.session_id} in this family")
        transcript = parse_transcript(document.data, path)
        if transcript.family_id != self.family_id:
            raise NotFoundError(f"there is no conversation {parsed.session_id} in this family")
        if parsed.last_turn > len(transcript.turns):
            raise NotFoundError(
                f"conversation {parsed.session_id} has {len(transcript.turns)} turns; "
                f"turn {parsed.last_turn} does not exist"
            )
        forgotten = ForgottenWords.load(self.store, self.family_id)
        lines = []
        for n in parsed.turns:
            turn = transcript.turns[n - 1]
            speaker = turn.role.value + (f" {turn.member_id}" if turn.member_id else "")
            when = f" at {turn.at:%Y-%m-%d %H:%M}Z" if turn.at else ""
            if forgotten.covers(turn.text):
                # The turn holds words the family asked to forget: kept on file, not shown.
                lines.append(f"[turn {n}, {speaker}{when}] {FORGOTTEN}")
                continue
            lines.append(f"[turn {n}, {speaker}{when}] {one_line(turn.text)}")
        started = f"{transcript.started_at:%Y-%m-%d}"
        return (
            f'<conversation_excerpt ref="{parsed}" started="{started}">\n'
            + "\n".join(lines)
            + "\n</conversation_excerpt>"
        )


#: A front-matter key written as it is; any other key is written as a literal.
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _key(key: object) -> str:
    text = str(key)
    return text if _PLAIN_KEY.fullmatch(text) else one_line(text)


def _value(value: object) -> str:
    """A front-matter value on one line: every string a ``one_line`` literal, the rest as YAML
    loaded it (booleans, null, numbers, dates, lists and mappings of these) in JSON-like form."""
    if isinstance(value, str):
        return one_line(value)
    if isinstance(value, bool | int | float) or value is None:
        return json.dumps(value)
    if isinstance(value, datetime):
        return format_utc(value) if value.tzinfo is not None else value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)}: {_value(v)}" for k, v in value.items()) + "}"
    return one_line(str(value))


def memory_file_lines(front: dict[str, Any], body: str) -> list[str]:
    """A memory file as the agent reads it: one ``key: value`` line per front-matter field,
    in the file's order, then ``body:`` and the whole body as one literal (its line breaks
    become ``\\n`` inside it). No memory text can start a line of its own (DESIGN invariant 7)."""
    return [f"{_key(key)}: {_value(value)}" for key, value in front.items()] + [f"body: {one_line(body)}"]


def _parse(model: type[BaseModel], tool_input: Any, name: str) -> Any:
    if not isinstance(tool_input, dict):
        raise InvalidInputError(f"{name}: the input must be a JSON object")
    try:
        return model.model_validate(tool_input)
    except ValidationError as exc:
        raise InvalidInputError(f"{name}: {validation_message(exc)}") from exc
