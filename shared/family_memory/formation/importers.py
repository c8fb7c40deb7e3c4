"""Readers for what a family already has in other memory files: entry by entry, nothing guessed.

Three formats, each read into the same ``Entry`` (the text as written, where it
sits in the file, who it is by and when, and every other field the source kept):

- ``explicit``: the earlier explicit-memories file, plain text or markdown, one
  instruction or fact per line or bullet. A line may name its member and date:
  ``[lucia, 2026-03-02] Always check with me before booking``,
  ``(2026-03-02) ...``, ``2026-03-02: ...``, ``Lucía: ...`` (a member's id, name,
  first name or address-as, then a colon), or at the end: ``... (lucia,
  2026-03-02)`` / ``... - lucia, 2026-03-02``. A heading or a line holding only
  a member's name and a colon (``## Lucía``, ``Marco:``) makes its member the
  default for the lines below it.
- ``list``: a plain "things the assistant should remember about us" list, such
  as an assistant-memory export copied as text: one entry per bullet (or per
  line when there are no bullets), no member or date syntax.
- ``mem0``: the JSON that Mem0's ``get_all`` returns: a list of memories, or an
  object with a ``results`` list; each ``{"memory": text, "user_id", "created_at",
  "updated_at", "metadata", "hash", "id", ...}``. ``user_id`` names the member
  when it is one (or through ``user_map``); every field but ``memory`` is kept
  in ``Entry.fields`` as it was.

Nothing is dropped silently. A line or item that cannot be read is a
``Problem`` with its place and the reason (not UTF-8, a control character, a
date that is no date or is in the future, a member the family does not have,
no text). Lines that are structure, not entries (headings, rules, code
fences, labels), are ``Skipped`` with their line, so a report can account for
every line of the file. An unreadable file as a whole (a Mem0 export that is
not JSON) is an ``InvalidInputError`` that names the place, before anything is
stored.

Pure: bytes in, entries out. Dates are read in the family's time zone: a bare
date is the start of that day there.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from family_memory.domain.clock import UtcDatetime, to_utc_second, zone
from family_memory.domain.errors import InvalidInputError
from family_memory.domain.family import Member
from family_memory.domain.text import BODY_MAX, check_body, normalise_for_match

#: A file this large is refused whole (a family's memory file is a few kilobytes).
MAX_SOURCE_BYTES = 2_000_000
#: Entries one file may hold.
MAX_ENTRIES = 2_000
#: Most characters of a line a problem or a skipped line shows.
EXCERPT = 160
#: Bytes of JSON an entry keeps of the source's other fields (a Mem0 item's metadata and so on).
FIELDS_MAX_BYTES = 8_000


class SourceFormat(StrEnum):
    EXPLICIT = "explicit"
    LIST = "list"
    MEM0 = "mem0"


MemberFrom = Literal["entry", "section", "user_id", "map", "default"]


class Entry(BaseModel):
    """One thing the family asked to be remembered, as the source holds it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int = Field(ge=1)  # its place among the source's entries
    line: int = Field(ge=1)  # where it starts in the file
    last_line: int = Field(ge=1)  # where it ends (a bullet continued on the next lines)
    pointer: str | None = None  # a JSON source: the item, as a JSON pointer ("/results/3")
    text: str = Field(min_length=1, max_length=BODY_MAX)
    member_id: str | None = None  # None: the file does not say, and there is no default
    member_from: MemberFrom | None = None
    at: UtcDatetime  # when it was written: its own date, else the source's as-of time
    dated: bool  # the entry carries its own date
    fields: dict[str, Any] = Field(default_factory=dict)  # everything else the source held for it


class Problem(BaseModel):
    """A line or item that could not be read, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    line: int
    pointer: str | None = None
    excerpt: str
    reason: str


class Skipped(BaseModel):
    """A line that is structure, not an entry (a heading, a rule, a label)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    line: int
    excerpt: str
    why: str


class SourceReading(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    format: SourceFormat
    entries: list[Entry] = Field(default_factory=list)
    problems: list[Problem] = Field(default_factory=list)
    skipped: list[Skipped] = Field(default_factory=list)


@dataclass(frozen=True)
class ReadContext:
    """What reading needs to know about the family: its members (to recognise a name),
    the default member for entries that name none, its time zone, and the times."""

    members: Sequence[Member]
    time_zone: str
    as_of: datetime  # when undated entries were written (the file's date)
    now: datetime  # nothing is dated after this
    default_member: str | None = None
    user_map: Mapping[str, str] = field(default_factory=dict)  # mem0 user_id -> member id

    def member_named(self, name: str) -> str | None:
        """The member id ``name`` stands for: an id, a full name, a first name or an address-as."""
        wanted = normalise_for_match(name).strip(" @")
        if not wanted:
            return None
        for member in self.members:
            forms = {normalise_for_match(member.id), normalise_for_match(member.name)}
            forms.add(normalise_for_match(member.name.split()[0]))
            if member.address_as:
                forms.add(normalise_for_match(member.address_as))
            if wanted in forms:
                return member.id
        if self.default_member and wanted == normalise_for_match(self.default_member):
            return self.default_member
        return None

    def known(self) -> str:
        ids = [m.id for m in self.members]
        if self.default_member and self.default_member not in ids:
            ids.append(self.default_member)
        return ", ".join(ids) or "none yet"


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def excerpt(text: str) -> str:
    """A line as a report shows it: one line, control characters as U+FFFD, at most ``EXCERPT`` long."""
    flat = " ".join(_CONTROL.sub("\ufffd", text.replace("\t", " ")).split())
    return flat if len(flat) <= EXCERPT else flat[: EXCERPT - 1] + "…"


# --- dates ------------------------------------------------------------------------

_DATE_LIKE = re.compile(
    r"\b\d{4}-\d{1,2}-\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\w-])(?!:\d)"
)


def read_when(text: str, context: ReadContext) -> datetime:
    """An ISO date or instant as written in the file, in UTC. A bare date is the start of
    that day in the family's time zone; a time without an offset is the family's local time.
    InvalidInputError saying what is wrong (not a date, or after now)."""
    raw = text.strip()
    try:
        if len(raw) <= 10:
            year, month, day = (int(part) for part in raw.split("-"))
            instant = datetime.combine(date(year, month, day), time(0), tzinfo=zone(context.time_zone))
        else:
            parsed = datetime.fromisoformat(raw.replace("Z", "+00:00").replace(" ", "T", 1))
            instant = parsed if parsed.tzinfo else parsed.replace(tzinfo=zone(context.time_zone))
    except ValueError as exc:
        raise InvalidInputError(f"{raw[:40]!r} is not a calendar date (write YYYY-MM-DD)") from exc
    instant = to_utc_second(instant)
    if instant > context.now:
        raise InvalidInputError(f"it is dated {raw[:40]}, after now: an entry cannot have been written in the future")
    return instant


# --- the text formats ---------------------------------------------------------------

_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s+(?P<title>.*?))?\s*#*\s*$")
_RULE = re.compile(r"^\s{0,3}([-*_])(?:\s*\1){2,}\s*$")
_FENCE = re.compile(r"^\s{0,3}(?:```|~~~)")
_CONTINUATION = re.compile(r"^(?: {2,}|\t)\S")
_BRACKET_PREFIX = re.compile(r"^(?:\[(?P<sq>[^\[\]]{1,80})\]|\((?P<pa>[^()]{1,80})\))\s*[:\-–—]?\s*(?P<rest>.*)$")
_DATE_PREFIX = re.compile(rf"^(?P<date>{_DATE_LIKE.pattern})\s*(?:[:\-–—]\s*|\s+)(?P<rest>.*)$")
_NAME_PREFIX = re.compile(r"^(?P<name>[^\s:\[(][^:]{0,40}?)\s*:\s+(?P<rest>\S.*)$")
_META_SUFFIX = re.compile(r"^(?P<rest>.+?)\s+(?:\[(?P<sq>[^\[\]]{1,80})\]|\((?P<pa>[^()]{1,80})\))\s*[.!]?$")
_DASH_SUFFIX = re.compile(r"^(?P<rest>.+?)\s+(?:—|–|--|-)\s+(?P<meta>[^—–]{1,80})$")
_LABEL = re.compile(r"^(?P<label>[^:]{1,80}):\s*$")
_META_FILLER = re.compile(r"\b(?:added|written|noted|said|by|on|from|at)\b", re.I)


class _UnreadableError(Exception):
    """A line that cannot be read; the message is the reason."""


@dataclass
class _Meta:
    member_id: str | None = None
    at: datetime | None = None


def _meta(text: str, context: ReadContext) -> _Meta | None:
    """A member and/or date written beside an entry ("lucia, 2026-03-02", "added 2026-03-02
    by Marco"); None when ``text`` is not one (it is part of the entry: "(peanuts)").
    ``_UnreadableError`` when it is one but names a member the family does not have, two of
    them, or a date that is no date."""
    dates = [m.group(0) for m in _DATE_LIKE.finditer(text)]
    rest = _META_FILLER.sub(" ", _DATE_LIKE.sub(" ", text))
    pieces = [p.strip(" .") for p in re.split(r"[,;/]", rest) if p.strip(" .")]
    named = [(p, context.member_named(p)) for p in pieces]
    if not dates and not any(member for _, member in named):
        return None
    unknown = [p for p, member in named if member is None]
    if unknown:
        raise _UnreadableError(
            f"it names {unknown[0][:40]!r}, who is not a member of the family (members: {context.known()}); "
            "add them with `family-memory family add-member`, or fix the line"
        )
    members = sorted({member for _, member in named if member})
    if len(members) > 1:
        raise _UnreadableError(f"it names two members ({', '.join(members)}); an entry is by one member")
    if len(dates) > 1:
        raise _UnreadableError(f"it carries two dates ({', '.join(dates)}); an entry has one")
    try:
        at = read_when(dates[0], context) if dates else None
    except InvalidInputError as exc:
        raise _UnreadableError(str(exc)) from exc
    return _Meta(members[0] if members else None, at)


def _split_meta(text: str, context: ReadContext) -> tuple[str, _Meta]:
    """The entry's own words and the member and date written beside them."""
    found = _Meta()

    def merge(meta: _Meta) -> None:
        if meta.member_id and found.member_id and meta.member_id != found.member_id:
            raise _UnreadableError(
                f"it names two members ({found.member_id}, {meta.member_id}); an entry is by one member"
            )
        if meta.at and found.at:
            raise _UnreadableError("it carries two dates; an entry has one")
        found.member_id = found.member_id or meta.member_id
        found.at = found.at or meta.at

    if match := _BRACKET_PREFIX.match(text):
        meta = _meta(match.group("sq") or match.group("pa") or "", context)
        if meta is not None:
            merge(meta)
            text = match.group("rest")
    if match := _DATE_PREFIX.match(text):
        try:
            at = read_when(match.group("date"), context)
        except InvalidInputError as exc:
            raise _UnreadableError(str(exc)) from exc
        merge(_Meta(None, at))
        text = match.group("rest")
    if (match := _NAME_PREFIX.match(text)) and (member := context.member_named(match.group("name"))):
        merge(_Meta(member, None))
        text = match.group("rest")
    # At the end only with a date: "allergic to peanuts (Maya)" names whom it is about, not who asked.
    suffix = _META_SUFFIX.match(text)
    written = (suffix.group("sq") or suffix.group("pa") or "") if suffix else None
    if suffix is None and (dash := _DASH_SUFFIX.match(text)):
        suffix, written = dash, dash.group("meta")
    if suffix is not None and written is not None and _DATE_LIKE.search(written):
        meta = _meta(written, context)
        if meta is not None:
            merge(meta)
            text = suffix.group("rest")
    return text.strip(), found


@dataclass
class _Draft:
    line: int
    last_line: int
    text: str
    member_id: str | None
    member_from: MemberFrom | None
    at: datetime | None


def _decoded_lines(data: bytes) -> list[tuple[int, str | None, str]]:
    """``(number, text, why-not)`` for each line: text None when the line is not UTF-8
    (why-not then says where, and shows the line with the bad bytes replaced)."""
    if len(data) > MAX_SOURCE_BYTES:
        raise InvalidInputError(f"the file is {len(data)} bytes; at most {MAX_SOURCE_BYTES} are read")
    data = data.removeprefix(b"\xef\xbb\xbf")
    out: list[tuple[int, str | None, str]] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        raw = raw.removesuffix(b"\r")
        try:
            out.append((number, raw.decode("utf-8"), ""))
        except UnicodeDecodeError as exc:
            shown = excerpt(raw.decode("utf-8", errors="replace"))
            out.append(
                (number, None, f"{shown}\0it is not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})")
            )
    if out and out[-1][1] == "":
        out.pop()
    return out


class _TextReader:
    """The shared walk of the two text formats."""

    def __init__(self, fmt: SourceFormat, context: ReadContext) -> None:
        self.format = fmt
        self.context = context
        self.drafts: list[_Draft] = []
        self.problems: list[Problem] = []
        self.skipped: list[Skipped] = []
        self.section_member: str | None = None

    def skip(self, number: int, text: str, why: str) -> None:
        self.skipped.append(Skipped(line=number, excerpt=excerpt(text), why=why))

    def problem(self, number: int, text: str, reason: str) -> None:
        self.problems.append(Problem(line=number, excerpt=excerpt(text), reason=reason))

    def read(self, data: bytes) -> SourceReading:
        lines = _decoded_lines(data)
        bulleted = any(text is not None and _BULLET.match(text) for _, text, _ in lines)
        in_fence = False
        continuing = False  # the previous line was a bullet entry a continuation may extend
        for number, text, why in lines:
            if text is None:
                shown, _, reason = why.partition("\0")
                self.problem(number, shown, reason)
                continuing = False
                continue
            if not text.strip():
                continuing = False
                continue
            if _FENCE.match(text):
                in_fence = not in_fence
                self.skip(number, text, "a code fence")
                continuing = False
                continue
            if continuing and _CONTINUATION.match(text) and not _BULLET.match(text) and not in_fence:
                draft = self.drafts[-1]
                draft.text = f"{draft.text} {text.strip()}"
                draft.last_line = number
                continue
            continuing = False
            if heading := _HEADING.match(text):
                self.section(number, text, heading.group("title") or "")
                continue
            if _RULE.match(text):
                self.skip(number, text, "a horizontal rule")
                continue
            bullet = _BULLET.match(text)
            body = text[bullet.end() :] if bullet else text
            if not bullet and (label := _LABEL.match(text.strip())):
                self.section(number, text, label.group("label"), label=True)
                continue
            if self.format is SourceFormat.LIST and bulleted and not bullet:
                self.skip(number, text, "not a bullet, in a list of bullets (a title or a note)")
                continue
            self.entry(number, body)
            continuing = bool(bullet) and self.drafts[-1:] != [] and self.drafts[-1].line == number
        return self.finish()

    def section(self, number: int, text: str, title: str, *, label: bool = False) -> None:
        member = self.context.member_named(title) if self.format is SourceFormat.EXPLICIT else None
        if member is not None:
            self.section_member = member
            self.skip(number, text, f"a heading naming {member}: the lines below are theirs")
            return
        if not label:
            self.section_member = None
        self.skip(number, text, "a label" if label else "a heading")

    def entry(self, number: int, body: str) -> None:
        member: str | None = None
        member_from: MemberFrom | None = None
        at: datetime | None = None
        try:
            if self.format is SourceFormat.EXPLICIT:
                body, meta = _split_meta(body.strip(), self.context)
                member, at = meta.member_id, meta.at
                member_from = "entry" if member else None
            if not member and self.section_member:
                member, member_from = self.section_member, "section"
            try:
                body = check_body(body, "the entry", BODY_MAX)
            except InvalidInputError as exc:
                raise _UnreadableError(_too_long_hint(str(exc))) from exc
            if not body:
                raise _UnreadableError("it holds no text besides its member and date")
        except _UnreadableError as exc:
            self.problem(number, body, str(exc))
            return
        self.drafts.append(_Draft(number, number, body, member, member_from, at))

    def finish(self) -> SourceReading:
        entries: list[Entry] = []
        for draft in self.drafts:
            try:
                text = check_body(draft.text, "the entry", BODY_MAX)
            except InvalidInputError as exc:
                self.problem(draft.line, draft.text, _too_long_hint(str(exc)))
                continue
            entries.append(_entry(len(entries) + 1, draft, text, self.context))
        if len(entries) > MAX_ENTRIES:
            raise InvalidInputError(f"the file holds {len(entries)} entries; at most {MAX_ENTRIES} are read")
        return SourceReading(format=self.format, entries=entries, problems=self.problems, skipped=self.skipped)


def _too_long_hint(message: str) -> str:
    return f"{message}: one memory holds at most that; split it into several entries" if "long" in message else message


def _entry(index: int, draft: _Draft, text: str, context: ReadContext, **more: Any) -> Entry:
    member, member_from = draft.member_id, draft.member_from
    if member is None and context.default_member:
        member, member_from = context.default_member, "default"
    return Entry(
        index=index,
        line=draft.line,
        last_line=draft.last_line,
        text=text,
        member_id=member,
        member_from=member_from,
        at=draft.at or context.as_of,
        dated=draft.at is not None,
        **more,
    )


def read_explicit(data: bytes, context: ReadContext) -> SourceReading:
    """The earlier explicit-memories file (plain text or markdown)."""
    return _TextReader(SourceFormat.EXPLICIT, context).read(data)


def read_list(data: bytes, context: ReadContext) -> SourceReading:
    """A plain "things the assistant should remember about us" list."""
    return _TextReader(SourceFormat.LIST, context).read(data)


# --- Mem0 -------------------------------------------------------------------------

_WS = " \t\r\n"


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _item_offsets(text: str) -> list[int]:
    """Where each memory of a (valid) Mem0 export starts: the items of the top-level list,
    or of the top-level object's (last) ``results`` list. Used for line numbers only."""
    decoder = json.JSONDecoder()
    i = _skip_ws(text, 0)
    start: int | None = i if text.startswith("[", i) else None
    if start is None and text.startswith("{", i):
        i = _skip_ws(text, i + 1)
        while i < len(text) and text[i] != "}":
            key, i = decoder.raw_decode(text, i)
            i = _skip_ws(text, _skip_ws(text, i) + 1)  # past the colon
            if key == "results" and text.startswith("[", i):
                start = i
            _, i = decoder.raw_decode(text, i)
            i = _skip_ws(text, i)
            if text.startswith(",", i):
                i = _skip_ws(text, i + 1)
    if start is None:
        return []
    offsets = []
    i = _skip_ws(text, start + 1)
    while i < len(text) and text[i] != "]":
        offsets.append(i)
        _, i = decoder.raw_decode(text, i)
        i = _skip_ws(text, i)
        if text.startswith(",", i):
            i = _skip_ws(text, i + 1)
    return offsets


def _bounded_fields(item: Mapping[str, Any]) -> dict[str, Any]:
    """Every field of a Mem0 item but its text, as it was; a very large set is kept as truncated JSON."""
    kept = {k: v for k, v in item.items() if k != "memory"}
    encoded = json.dumps(kept, ensure_ascii=False, sort_keys=True, default=str)
    if len(encoded.encode("utf-8")) <= FIELDS_MAX_BYTES:
        return kept
    return {"truncated_json": encoded[: FIELDS_MAX_BYTES // 2] + "…(truncated; the archived file has all of it)"}


def read_mem0(data: bytes, context: ReadContext) -> SourceReading:
    """A Mem0 ``get_all`` export. InvalidInputError when the file is not such an export."""
    if len(data) > MAX_SOURCE_BYTES:
        raise InvalidInputError(f"the file is {len(data)} bytes; at most {MAX_SOURCE_BYTES} are read")
    try:
        text = data.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"it is not UTF-8 text (byte {exc.start + 1}); nothing was read from it") from exc
    try:
        loaded = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(
            f"it is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); nothing was read from it"
        ) from exc
    if isinstance(loaded, list):
        items, prefix = loaded, ""
    elif isinstance(loaded, dict) and isinstance(loaded.get("results"), list):
        items, prefix = loaded["results"], "/results"
    else:
        raise InvalidInputError(
            "it is not a Mem0 export: expected a list of memories, or an object with a 'results' list "
            "(what Mem0's get_all returns); nothing was read from it"
        )
    offsets = _item_offsets(text)
    problems: list[Problem] = []
    entries: list[Entry] = []
    for position, item in enumerate(items):
        offset = offsets[position] if position < len(offsets) else 0
        line = text.count("\n", 0, offset) + 1
        pointer = f"{prefix}/{position}"
        shown = excerpt(json.dumps(item, ensure_ascii=False, default=str))
        try:
            entry = _mem0_entry(len(entries) + 1, item, line, pointer, context)
        except _UnreadableError as exc:
            problems.append(Problem(line=line, pointer=pointer, excerpt=shown, reason=str(exc)))
            continue
        entries.append(entry)
    if len(entries) > MAX_ENTRIES:
        raise InvalidInputError(f"the export holds {len(entries)} memories; at most {MAX_ENTRIES} are read")
    return SourceReading(format=SourceFormat.MEM0, entries=entries, problems=problems)


def _mem0_entry(index: int, item: Any, line: int, pointer: str, context: ReadContext) -> Entry:
    if not isinstance(item, dict):
        raise _UnreadableError(f"a memory must be a JSON object, not {type(item).__name__}")
    memory = item.get("memory")
    if memory is None:
        raise _UnreadableError("it has no 'memory' field: the text of the memory")
    if not isinstance(memory, str):
        raise _UnreadableError(f"its 'memory' is not text but {type(memory).__name__}")
    if not memory.strip():
        raise _UnreadableError("its 'memory' is empty")
    try:
        body = check_body(memory, "the memory", BODY_MAX)
    except InvalidInputError as exc:
        raise _UnreadableError(str(exc)) from exc
    user = item.get("user_id")
    member: str | None = None
    member_from: MemberFrom | None = None
    if isinstance(user, str) and user in context.user_map:
        member, member_from = context.user_map[user], "map"
    elif isinstance(user, str) and (found := context.member_named(user)):
        member, member_from = found, "user_id"
    at: datetime | None = None
    for key in ("updated_at", "created_at"):
        value = item.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise _UnreadableError(f"its {key} is not a date ({type(value).__name__})")
        try:
            at = read_when(value, context)
        except InvalidInputError as exc:
            raise _UnreadableError(f"its {key}: {exc}") from exc
        break
    draft = _Draft(line, line, body, member, member_from, at)
    return _entry(index, draft, body, context, pointer=pointer, fields=_bounded_fields(item))


READERS = {
    SourceFormat.EXPLICIT: read_explicit,
    SourceFormat.LIST: read_list,
    SourceFormat.MEM0: read_mem0,
}


def read_source(fmt: SourceFormat, data: bytes, context: ReadContext) -> SourceReading:
    return READERS[fmt](data, context)
