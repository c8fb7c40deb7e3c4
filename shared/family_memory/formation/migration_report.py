"""The migration report, and the check that every migrated memory leads back to its archive line.

``build_report`` reads what is on file, not what a run remembers: every source
archived for the family (``archive/sources/*/reading.json``), each entry's
candidates document (its verdicts and reconciliation outcomes) and the
memories they name (their status now, and whether each holds the entry's
evidence). So the report of a second run is the report of the first, byte for
byte, unless something changed in between.

For each entry it says what became of each claim read in it: added as memory
M, reinforced M, replaced R with M, a contradiction recorded on M, kept out by
a forget rule, not applied because M is newer, refused by validation (the
rule and its message). An entry *became an active memory* when an active
memory holds its evidence. An entry is **lost** (without a reason) when it has
no candidates document, when an accepted claim has no outcome, when an
outcome names a memory that does not hold the entry's evidence, or when the
reconciler could not form the memory; ``lost`` is what makes the command exit
1. Lines the readers could not read are listed with the reason; they are in
the archive, untouched.

``trace_problems`` is the ``bundle check`` half: every evidence record from a
migrated entry names an archived file and line (or JSON item) that is on file,
unchanged (its SHA-256 is the recorded one), and holds the record's quote; and
the session it cites holds it too.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from family_memory.domain.clock import format_utc
from family_memory.domain.errors import FamilyMemoryError
from family_memory.domain.evidence import EvidenceRecord, parse_ledger
from family_memory.domain.layout import MEMORIES, MIGRATION_REPORT, evidence_path, memory_path, session_path
from family_memory.domain.memory import Memory, Status
from family_memory.domain.okf import dump_yaml, parse_memory
from family_memory.domain.refs import ConvRef
from family_memory.domain.text import normalise_for_match
from family_memory.domain.transcript import parse_transcript
from family_memory.formation.archive import (
    EVIDENCE_SOURCE,
    ArchivedSource,
    archived_sources,
    is_migration_document,
    is_migration_session,
)
from family_memory.formation.document import CandidatesDocument, OutcomeKind
from family_memory.formation.importers import Entry, Problem
from family_memory.formation.service import read_document
from family_memory.ports.store import Store

#: Most characters of an entry's text a report line shows (the archive has all of it).
SHOWN = 240
#: The reconciler's words for a claim it could not turn into a memory (an error, not a decision).
_COULD_NOT_FORM = "could not form a memory"


@dataclass(frozen=True)
class ClaimFate:
    """What became of one claim read in an entry."""

    index: int
    summary: str
    kind: str  # refused | an OutcomeKind value | not reconciled
    detail: str
    memory_id: str | None = None
    memory: Memory | None = None
    held: bool = False  # the memory holds this entry's evidence
    lost: bool = False

    @property
    def active(self) -> bool:
        return self.held and self.memory is not None and self.memory.status is Status.ACTIVE


@dataclass
class EntryFate:
    source: ArchivedSource
    entry: Entry
    session_id: str
    claims: list[ClaimFate] = field(default_factory=list)
    missing: str = ""  # why the entry has no candidates document
    same_as: int | None = None  # an earlier line holding the very same entry

    @property
    def active(self) -> bool:
        return any(c.active for c in self.claims)

    @property
    def lost(self) -> bool:
        return bool(self.missing) or not self.claims or any(c.lost for c in self.claims)


@dataclass
class FamilyReport:
    family_id: str
    sources: list[ArchivedSource] = field(default_factory=list)
    entries: list[EntryFate] = field(default_factory=list)
    unreadable: list[tuple[ArchivedSource, Problem]] = field(default_factory=list)

    @property
    def lost(self) -> list[EntryFate]:
        return [e for e in self.entries if e.lost]

    @property
    def not_active(self) -> list[EntryFate]:
        return [e for e in self.entries if not e.active and not e.lost]

    @property
    def active(self) -> list[EntryFate]:
        return [e for e in self.entries if e.active]

    def summary_line(self) -> str:
        return (
            f"{count(len(self.entries), 'entry', 'entries')} from {count(len(self.sources), 'file')}: "
            f"{len(self.active)} became active "
            f"memories, {len(self.not_active)} did not (each says why), {len(self.lost)} lost without a reason; "
            f"{count(len(self.unreadable), 'line')} could not be read"
        )

    def markdown(self) -> bytes:
        front = {
            "type": "migration_report",
            "family_id": self.family_id,
            "entries": len(self.entries),
            "became_active": len(self.active),
            "not_active": len(self.not_active),
            "lost": len(self.lost),
            "unreadable_lines": len(self.unreadable),
        }
        return ("---\n" + dump_yaml(front) + "---\n\n" + "\n".join(self.lines()) + "\n").encode("utf-8")

    def lines(self) -> list[str]:
        out = [
            f"# Migration report for {self.family_id}",
            "",
            "Every entry of the family's earlier files beside the memory it became. An entry that did not become "
            "an active memory says why; an entry lost without a reason is marked LOST, and `family-memory migrate` "
            "exits 1 while there is one. The archived files are never edited.",
            "",
            f"{self.summary_line()}.",
            "",
            "## Sources",
            "",
        ]
        for source in self.sources:
            reading = source.reading
            out.append(
                f"* {md(source.original_name)} ({source.format.value}): archived as `{source.archive}` at "
                f"{_utc(source.archived_at)}; {count(len(reading.entries), 'entry', 'entries')}, "
                f"{count(len(reading.problems), 'line')} could not be read, {count(len(reading.skipped), 'line')} of "
                "structure skipped; undated entries count as "
                f"written at {_utc(source.as_of)}; sha256 {source.sha256}"
            )
        out += ["", "## Every entry", ""]
        for fate in self.entries:
            out += entry_lines(fate)
        out += ["", "## Entries that did not become an active memory", ""]
        out += [line for fate in self.not_active for line in entry_lines(fate)] or ["None."]
        out += ["", "## Lines that could not be read", ""]
        out += [
            f"* {md(source.original_name)} {_place(problem.line, problem.pointer)}: {md(problem.excerpt)} - "
            f"{md(problem.reason)}"
            for source, problem in self.unreadable
        ] or ["None."]
        out += ["", "## Lost without a reason", ""]
        out += [line for fate in self.lost for line in entry_lines(fate)] or ["None."]
        return out


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#~])")


def md(text: str, limit: int = SHOWN) -> str:
    """``text`` as inert markdown on one line: markup characters escaped, whitespace collapsed, clipped."""
    flat = " ".join("".join(c if c.isprintable() or c.isspace() else "\ufffd" for c in text).split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return _MD_SPECIAL.sub(r"\\\1", flat)


def count(n: int, one: str, many: str | None = None) -> str:
    """``1 entry``, ``2 entries``."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _utc(value: datetime) -> str:
    return format_utc(value)


def _place(line: int, pointer: str | None) -> str:
    return f"line {line}" + (f" (item {pointer})" if pointer else "")


def entry_lines(fate: EntryFate) -> list[str]:
    entry = fate.entry
    when = entry.at.strftime("%Y-%m-%d") if entry.dated else "undated"
    who = entry.member_id or "nobody"
    head = f"* {md(fate.source.original_name)} {_place(entry.line, entry.pointer)} ({who}, {when}): {md(entry.text)}"
    lines = [head + (" - LOST" if fate.lost else "")]
    if fate.same_as is not None:
        lines.append(f"  * the same entry as line {fate.same_as}: one session holds both")
    if fate.missing:
        lines.append(f"  * {md(fate.missing)}")
    for claim in fate.claims:
        lines.append(f"  * {claim_line(claim)}")
    return lines


def claim_line(claim: ClaimFate) -> str:
    memory = claim.memory
    now = f" - now {memory.status.value}" if memory is not None else ""
    if memory is not None and memory.superseded_by:
        now += f" by memory {memory.superseded_by}"
    said = f"{md(memory.summary)} ({memory.type.value}, {memory.strength.value})" if memory is not None else ""
    lost = "LOST: " if claim.lost else ""
    if claim.kind == "refused":
        return f'{lost}refused "{md(claim.summary)}": {md(claim.detail)}'
    if claim.kind in (OutcomeKind.ADDED.value, OutcomeKind.SUPERSEDED.value, OutcomeKind.REINFORCED.value) or (
        claim.kind == OutcomeKind.NOOP.value and claim.held
    ):
        verb = {
            OutcomeKind.ADDED.value: "added as",
            OutcomeKind.SUPERSEDED.value: "added, replacing an older one, as",
            OutcomeKind.REINFORCED.value: "reinforced",
            OutcomeKind.NOOP.value: "already held by",
        }[claim.kind]
        if not claim.held:
            return f"{lost}{claim.kind}, but memory {claim.memory_id} does not hold this entry's evidence"
        return f"{lost}{verb} memory {claim.memory_id}: {said}{now}; {md(claim.detail)}"
    if claim.kind == OutcomeKind.CONTRADICTION.value:
        return (
            f'{lost}"{md(claim.summary)}" contradicts memory {claim.memory_id}: {said}{now}; recorded on it, '
            f"which stays as it is ({md(claim.detail)})"
        )
    if claim.kind == OutcomeKind.SUPPRESSED.value:
        return f'{lost}"{md(claim.summary)}" was kept out: {md(claim.detail)}'
    target = f" (memory {claim.memory_id}: {said}{now})" if memory is not None and not claim.held else ""
    verb = "not applied" if claim.kind == OutcomeKind.NOOP.value else claim.kind
    return f'{lost}"{md(claim.summary)}" {verb}: {md(claim.detail)}{target}'


class _Files:
    """Memory files and evidence ledgers, each read once."""

    def __init__(self, store: Store, family_id: str) -> None:
        self.store = store
        self.family_id = family_id
        self._memories: dict[str, Memory | None] = {}
        self._evidence: dict[str, list[EvidenceRecord]] = {}

    def memory(self, memory_id: str) -> Memory | None:
        if memory_id not in self._memories:
            try:
                found = self.store.read_optional(self.family_id, memory_path(memory_id))
                self._memories[memory_id] = parse_memory(found.data) if found else None
            except FamilyMemoryError:
                self._memories[memory_id] = None
        return self._memories[memory_id]

    def evidence(self, memory_id: str) -> list[EvidenceRecord]:
        if memory_id not in self._evidence:
            try:
                found = self.store.read_optional(self.family_id, evidence_path(memory_id))
                self._evidence[memory_id] = parse_ledger(found.data) if found else []
            except FamilyMemoryError:
                self._evidence[memory_id] = []
        return self._evidence[memory_id]

    def holds(self, memory_id: str, session_id: str) -> bool:
        """Whether the memory's evidence includes a supporting record from ``session_id``."""
        prefix = f"conv://{self.family_id}/{session_id}#"
        return any(r.ref.startswith(prefix) and "stance" not in (r.model_extra or {}) for r in self.evidence(memory_id))


def _claims(files: _Files, document: CandidatesDocument) -> Iterator[ClaimFate]:
    outcomes = {o.index: o for o in (document.reconciliation.outcomes if document.reconciliation else [])}
    for entry in document.candidates:
        if not entry.accepted or entry.candidate is None:
            proposed = entry.proposed
            summary = str(proposed.get("summary", "")) if isinstance(proposed, dict) else str(proposed)
            reasons = "; ".join(f"{r.rule}: {r.message}" for r in entry.reasons) or "no reason recorded"
            yield ClaimFate(entry.index, summary, "refused", reasons, lost=not entry.reasons)
            continue
        summary = entry.candidate.summary
        outcome = outcomes.get(entry.index)
        if outcome is None:
            yield ClaimFate(
                entry.index,
                summary,
                "not reconciled",
                "accepted, and not reconciled yet (a stopped run: `family-memory migrate` again finishes it)",
                lost=True,
            )
            continue
        memory_id = outcome.memory_id
        memory = files.memory(memory_id) if memory_id else None
        held = bool(memory_id) and files.holds(str(memory_id), document.session_id)
        kind = outcome.kind.value
        forming = outcome.kind in (OutcomeKind.ADDED, OutcomeKind.SUPERSEDED, OutcomeKind.REINFORCED)
        lost = (forming and not held) or outcome.detail.startswith(_COULD_NOT_FORM)
        yield ClaimFate(entry.index, summary, kind, outcome.detail, memory_id, memory, held, lost)


def build_report(store: Store, family_id: str) -> FamilyReport:
    """The report of every source archived for ``family_id``, from the files as they are now."""
    files = _Files(store, family_id)
    report = FamilyReport(family_id, archived_sources(store, family_id))
    first_line: dict[str, int] = {}
    for source in report.sources:
        report.unreadable += [(source, problem) for problem in source.reading.problems]
        for entry, session_id in zip(source.reading.entries, source.sessions, strict=False):
            fate = EntryFate(source, entry, session_id)
            if session_id in first_line:
                fate.same_as = first_line[session_id]
            else:
                first_line[session_id] = entry.line
            document = read_document(store, family_id, session_id)
            if document is None:
                fate.missing = "not migrated yet (a stopped run: `family-memory migrate` again finishes it)"
            else:
                fate.claims = list(_claims(files, document))
            report.entries.append(fate)
    return report


def write_report(store: Store, report: FamilyReport) -> bool:
    """``archive/migration-report.md``, written only when its bytes change (True if written)."""
    data = report.markdown()
    current = store.read_optional(report.family_id, MIGRATION_REPORT)
    if current is not None and current.data == data:
        return False
    store.put(report.family_id, MIGRATION_REPORT, data)
    return True


# --- traceability (bundle check) ------------------------------------------------------------


class _Archive:
    """Archived files by path, read and checked against their recorded SHA-256 once."""

    def __init__(self, store: Store, family_id: str) -> None:
        self.store = store
        self.family_id = family_id
        self.sources = {s.archive: s for s in archived_sources(store, family_id)}
        self._text: dict[str, bytes | None] = {}

    def data(self, path: str) -> bytes | None:
        if path not in self._text:
            found = self.store.read_optional(self.family_id, path) if path in self.sources else None
            self._text[path] = found.data if found else None
        return self._text[path]

    def problems(self) -> list[str]:
        out = []
        for path, source in sorted(self.sources.items()):
            data = self.data(path)
            if data is None:
                out.append(f"{path}: the archived copy of {source.original_name} is missing")
            elif hashlib.sha256(data).hexdigest() != source.sha256:
                out.append(f"{path}: the archived copy changed since it was archived (sha256 differs)")
        return out

    def words_at(self, path: str, record: dict[str, Any]) -> str | None:
        """The archived words a record points at: its lines, or its JSON item's memory text."""
        data = self.data(path)
        if data is None:
            return None
        pointer = record.get("pointer")
        if isinstance(pointer, str):
            try:
                item: Any = json.loads(data.removeprefix(b"\xef\xbb\xbf").decode("utf-8"))
                for part in pointer.strip("/").split("/"):
                    item = item[int(part)] if isinstance(item, list) else item[part]
            except (ValueError, KeyError, IndexError, TypeError):
                return None
            memory = item.get("memory") if isinstance(item, dict) else None
            return memory if isinstance(memory, str) else None
        line, last = record.get("line"), record.get("last_line", record.get("line"))
        if not isinstance(line, int) or not isinstance(last, int):
            return None
        lines = data.removeprefix(b"\xef\xbb\xbf").split(b"\n")
        if not 1 <= line <= last <= len(lines):
            return None
        return b" ".join(lines[line - 1 : last]).decode("utf-8", errors="replace")


def _holds(text: str | None, quote: str) -> bool:
    return text is not None and normalise_for_match(quote) in normalise_for_match(text)


@dataclass(frozen=True)
class Trace:
    records: int  # evidence records from migrated entries that were checked
    memories: int  # memories holding at least one
    problems: list[str]


def trace_problems(store: Store, family_id: str) -> list[str]:
    """Every way a migrated memory fails to lead back to its archive line (empty when all do)."""
    return trace_migrated(store, family_id).problems


def trace_migrated(store: Store, family_id: str) -> Trace:
    """Check every evidence record a migrated entry formed against the archive and its session."""
    archive = _Archive(store, family_id)
    problems = archive.problems()
    checked = 0
    traced: set[str] = set()
    sessions: dict[str, str | None] = {}
    migrated: dict[str, bool] = {}

    def from_migration(session_id: str) -> bool:
        if session_id not in migrated:
            document = read_document(store, family_id, session_id) if is_migration_session(session_id) else None
            migrated[session_id] = document is not None and is_migration_document(document)
        return migrated[session_id]

    for path in store.list(family_id, MEMORIES):
        if not path.endswith(".evidence.jsonl"):
            continue
        memory_id = path[len(MEMORIES) : -len(".evidence.jsonl")]
        try:
            records = parse_ledger(store.read(family_id, path).data, where=path)
        except FamilyMemoryError as exc:
            problems.append(str(exc))
            continue
        for record in records:
            extra = dict(record.model_extra or {})
            migrated_ref = record.ref.startswith("conv://") and from_migration(ConvRef.parse(record.ref).session_id)
            if not migrated_ref and extra.get("source") != EVIDENCE_SOURCE:
                continue
            where = f"memory {memory_id}: evidence {record.ref}"
            checked += 1
            traced.add(memory_id)
            archived = extra.get("archive")
            if extra.get("source") != EVIDENCE_SOURCE or not isinstance(archived, str):
                problems.append(f"{where} comes from a migrated entry but names no archived file and line")
                continue
            if archived not in archive.sources:
                problems.append(f"{where} names {archived}, which is not an archived source")
                continue
            if not _holds(archive.words_at(archived, extra), record.quote):
                place = extra.get("pointer") or f"line {extra.get('line')}"
                problems.append(f"{where}: {archived} {place} does not hold the quote {record.quote[:60]!r}")
            if migrated_ref:
                ref = ConvRef.parse(record.ref)
                if ref.session_id not in sessions:
                    found = store.read_optional(family_id, session_path(ref.session_id))
                    sessions[ref.session_id] = (
                        " ".join(t.text for t in parse_transcript(found.data).turns) if found else None
                    )
                if not _holds(sessions[ref.session_id], record.quote):
                    problems.append(f"{where}: the session it cites does not hold the quote")
    return Trace(checked, len(traced), problems)
