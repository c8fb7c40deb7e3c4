"""Migration in (seed section 12): what a family already asked to be remembered, through formation.

The sources are the family's earlier explicit-memories file and what other
memory stores hold (a Mem0 ``get_all`` export, an assistant's "things to
remember about us" list; ``importers``). For one family, ``migrate_family``:

1. **Archives** each source at ``archive/sources/{key}/{name}.orig`` (``key``: the
   first 16 hex digits of its SHA-256) with a create-only write, beside
   ``reading.json``: what the migration read from it (every entry with its line,
   member and date; every line it could not read, with the reason; every line of
   structure it skipped), also written once. The original file is only read,
   never edited or moved. A source archived before is taken from its
   ``reading.json``, so the same bytes always give the same entries whatever a
   later run's options or the family's members are by then.
2. **Forms** each entry as a session of its own, ``sessions/migration-{digest}``:
   one user turn by the member who asked for it, at its date, holding its words
   exactly. Its candidates (``migration_candidates``: ``authority:
   user_explicit``, hard only where the entry is an instruction) are validated
   by ``validate_proposals`` inside ``build_document``, the function every
   session's candidates go through, and stored as ``candidates/migration-{digest}``
   with each entry noting the archived file and line (``evidence_notes``: the
   reconciler writes them on every evidence record the claim forms, beside its
   ``conv://`` reference) and keeping the source's other fields (``imported``).
   Then ``reconcile_session`` reconciles them like any session's: duplicates
   reinforce, contradictions are recorded, the family's forget rules hold, a
   claim older than a memory it would replace changes nothing. The digest is
   of the entry itself (format, member, time, words), so the same entry in a
   corrected copy of a file is the same session and changes nothing. Entries go
   oldest first across every source, as in a replay.
3. Keeps a **ledger** at ``migration/ledger.json``: each entry done, so a stopped
   run resumes where it stopped; a finished ledger that covers every source makes
   the next run form nothing and write nothing.
4. **Dreams** once, as after a replay, then writes the **report**
   (``migration_report``) to ``archive/migration-report.md``.

A migrated entry's candidates document says ``conversation: false``: it is not
a conversation, so it has no summary and never becomes the brief's "last
conversation". Talks to the world only through the store, the writer and the
injected dream.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any, Literal

from pydantic import Field

from family_memory.domain.clock import format_utc, to_utc_second, zone
from family_memory.domain.errors import AlreadyExistsError, ConflictError, InvalidInputError
from family_memory.domain.family import FamilySettings, Member
from family_memory.domain.ids import check_family_id, check_member_id
from family_memory.domain.layout import (
    FAMILY_SETTINGS,
    MIGRATION_LEDGER,
    archive_source_dir,
    candidates_path,
    session_path,
)
from family_memory.domain.okf import parse_json, serialise_json
from family_memory.domain.transcript import check_not_ahead, parse_transcript
from family_memory.families import load_family, mark_children
from family_memory.formation.archive import (
    EVIDENCE_SOURCE,
    LABELS,
    SESSION_PREFIX,
    ArchivedSource,
    archive_name,
    create_once,
    is_migration_document,
    read_archived,
    session_id_for,
    source_key,
)
from family_memory.formation.children import children_learned
from family_memory.formation.document import EVIDENCE_NOTES, CandidatesDocument, ExtractorInfo, ExtractorKind
from family_memory.formation.entities import EntityDirectory
from family_memory.formation.extraction import SuppliedCandidates
from family_memory.formation.importers import Entry, ReadContext, SourceFormat, read_source
from family_memory.formation.intake import check_not_conflicting, ensure_family, receive_transcript
from family_memory.formation.migration_candidates import entry_proposals
from family_memory.formation.migration_report import FamilyReport, build_report, count, write_report
from family_memory.formation.reconcile import ReconcileReport
from family_memory.formation.replay import Dream, Progress, RunLedger
from family_memory.formation.service import FormationDeps, build_document, read_document, reconcile_session
from family_memory.ports.store import Store

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MigrationSource:
    """A file to migrate: its format, its name (for the archive and the report), its bytes,
    and when it was last written (undated entries count as written then)."""

    format: SourceFormat
    name: str
    data: bytes
    written_at: datetime | None = None


@dataclass(frozen=True)
class MigrationOptions:
    member: str | None = None  # who asked for the entries that name no member
    time_zone: str | None = None  # a family seen for the first time: its time zone
    as_of: datetime | date | None = None  # undated entries were written then (a date: its start, locally)
    user_map: Mapping[str, str] = field(default_factory=dict)  # mem0 user_id -> member id
    restart: bool = False  # ignore the ledger of a stopped run


class MigrationLedger(RunLedger):
    type: Literal["migration_ledger"] = "migration_ledger"
    sources: list[str] = Field(default_factory=list)
    done: list[str] = Field(default_factory=list)


@dataclass
class MigrationRun:
    family_id: str
    sources: list[ArchivedSource] = field(default_factory=list)
    entries: int = 0
    resumed_from: int = 0  # entries a stopped run had done
    processed: list[str] = field(default_factory=list)  # sessions formed by this run
    counts: dict[str, int] = field(default_factory=dict)
    change_sets: int = 0
    notes: list[str] = field(default_factory=list)
    already_done: bool = False  # a finished ledger covered every source: nothing was formed
    dream_ran: bool = False
    dream_result: object = None
    report: FamilyReport | None = None  # every archived entry beside what it became, after the dream
    report_written: bool = False

    @property
    def lost(self) -> int:
        return len(self.report.lost) if self.report is not None else 0

    def lines(self) -> list[str]:
        c = self.counts
        resumed = f" (resumed: {self.resumed_from} already done)" if self.resumed_from and not self.already_done else ""
        entries, files = count(self.entries, "entry", "entries"), count(len(self.sources), "file")
        out = [f"family {self.family_id}: {entries} from {files}, oldest first{resumed}"]
        out += [f"  note: {note}" for note in self.notes]
        if self.already_done:
            out.append("  every entry was migrated before (the ledger is complete): nothing to form")
        else:
            out.append(
                f"  memories added {c.get('added', 0)}, reinforced {c.get('reinforced', 0)}, "
                f"superseded {c.get('superseded', 0)}, contradictions {c.get('contradiction', 0)}, "
                f"unchanged {c.get('noop', 0)}, suppressed {c.get('suppressed', 0)}; "
                f"change sets applied: {self.change_sets}"
            )
        if self.dream_ran:
            describe = getattr(self.dream_result, "lines", None)
            out.append("  then the family's dream:")
            out += [f"    {line}" for line in (describe() if callable(describe) else [str(self.dream_result)])]
        return out

    def add(self, report: ReconcileReport) -> None:
        for kind, n in report.counts().items():
            self.counts[kind] = self.counts.get(kind, 0) + n
        self.change_sets += len(report.change_ids)


# --- names and sessions -------------------------------------------------------------


def entry_session_json(family_id: str, time_zone: str, session_id: str, entry: Entry) -> bytes:
    """The entry as a one-turn session: a user turn by its member, at its date, holding its words."""
    at = format_utc(entry.at)
    document = {
        "family_id": family_id,
        "session_id": session_id,
        "surface": "chat",
        "started_at": at,
        "time_zone": time_zone,
        "turns": [{"n": 1, "role": "user", "member_id": entry.member_id, "text": entry.text, "at": at}],
    }
    return (json.dumps(document, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode("utf-8")


def evidence_notes(source: ArchivedSource, entry: Entry) -> dict[str, str | int]:
    """What each evidence record of a migrated claim carries: where its words are in the archive."""
    notes: dict[str, str | int] = {"source": EVIDENCE_SOURCE, "archive": source.archive, "line": entry.line}
    if entry.last_line != entry.line:
        notes["last_line"] = entry.last_line
    if entry.pointer:
        notes["pointer"] = entry.pointer
    return notes


# --- archive --------------------------------------------------------------------------


def _family_for(store: Store, family_id: str, options: MigrationOptions) -> FamilySettings:
    """The family's settings; a family seen for the first time gets ``family.json`` from the
    options (its time zone, and the member who asked for the entries as its first member)."""
    if options.member is not None:
        check_member_id(options.member)
    if store.exists(family_id, FAMILY_SETTINGS):
        family = load_family(store, family_id)
        if options.time_zone and options.time_zone != family.time_zone:
            raise InvalidInputError(
                f"--time-zone {options.time_zone}: family {family_id} keeps its time zone {family.time_zone} "
                "(change it with `family-memory family set-zone` first)"
            )
        if options.member and family.member(options.member) is None and family.members:
            known = ", ".join(m.id for m in family.members)
            raise InvalidInputError(f"member {options.member!r} is not in family {family_id} (members: {known})")
        return family
    if not options.time_zone or not options.member:
        raise InvalidInputError(
            f"family {family_id} does not exist yet: give its --time-zone and the --member who asked for the "
            "entries, and it is created with them"
        )
    family = FamilySettings(
        family_id=family_id,
        time_zone=options.time_zone,
        members=[Member(id=options.member, name=options.member)],
    )
    try:
        store.create(family_id, FAMILY_SETTINGS, serialise_json(family))
    except AlreadyExistsError:
        return load_family(store, family_id)
    return family


def _default_member(family: FamilySettings, options: MigrationOptions) -> str | None:
    if options.member:
        return options.member
    return family.members[0].id if len(family.members) == 1 else None


def archive_source(
    store: Store, family: FamilySettings, source: MigrationSource, options: MigrationOptions, now: datetime
) -> tuple[ArchivedSource, bool]:
    """Archive ``source`` and record what was read from it (both create-only); a source
    archived before is returned as recorded (second value False). InvalidInputError, with
    nothing written, when the file cannot be read at all or some of its entries name no
    member and there is no default."""
    key = source_key(source.data)
    recorded = read_archived(store, family.family_id, key)
    if recorded is not None:
        return recorded, False
    given = options.as_of
    if isinstance(given, date) and not isinstance(given, datetime):
        given = datetime.combine(given, time(0), tzinfo=zone(family.time_zone))
    as_of = to_utc_second(given or source.written_at or now)
    if as_of > now:
        raise InvalidInputError(f"{source.name}: its as-of time {format_utc(as_of)} is after now")
    context = ReadContext(
        members=family.members,
        time_zone=family.time_zone,
        as_of=as_of,
        now=now,
        default_member=_default_member(family, options),
        user_map=dict(options.user_map),
    )
    try:
        reading = read_source(source.format, source.data, context)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{source.name} ({LABELS[source.format]}): {exc}") from exc
    unattributed = [e for e in reading.entries if e.member_id is None]
    if unattributed:
        lines = ", ".join(str(e.line) for e in unattributed[:10]) + (" …" if len(unattributed) > 10 else "")
        members = ", ".join(m.id for m in family.members) or "none yet"
        raise InvalidInputError(
            f"{source.name}: {count(len(unattributed), 'entry', 'entries')} (lines {lines}) name no member and "
            "there is no default: "
            f"give --member (members: {members}); nothing was archived or migrated from it"
        )
    folder = archive_source_dir(key)
    archived = ArchivedSource(
        key=key,
        format=source.format,
        original_name=source.name.replace("\\", "/").rsplit("/", 1)[-1][:200] or "source",
        archive=folder + archive_name(source.name),
        sha256=hashlib.sha256(source.data).hexdigest(),
        size=len(source.data),
        archived_at=now,
        as_of=as_of,
        time_zone=family.time_zone,
        default_member=context.default_member,
        reading=reading,
        sessions=[session_id_for(source.format, e) for e in reading.entries],
    )
    create_once(store, family.family_id, archived.archive, source.data)
    create_once(store, family.family_id, folder + "reading.json", serialise_json(archived))
    return archived, True


# --- one entry ------------------------------------------------------------------------


def _keep_every_claim_out(_: object) -> bool:
    return True  # an entry is not a conversation: nothing of it goes into a last-conversation line


def _document(deps: FormationDeps, source: ArchivedSource, entry: Entry, raw: bytes) -> CandidatesDocument:
    """The entry's candidates document: its proposals validated exactly as a session's are,
    each entry noting where its words are in the archive and keeping the source's other fields."""
    transcript = parse_transcript(raw)
    family_id = transcript.family_id
    family = load_family(deps.store, family_id)
    now = deps.clock.now()
    directory = EntityDirectory.load(deps.store, family_id, family, now)
    supplied = SuppliedCandidates(entry_proposals(transcript, family, source.format), producer=SESSION_PREFIX)
    supplied.info = ExtractorInfo(
        name=f"{SESSION_PREFIX}{source.format.value}",
        version="1",
        kind=ExtractorKind.SUPPLIED,
        label=f"migration of {LABELS[source.format]} (the offline reading of each entry, and the entry as written)",
    )
    document = build_document(
        transcript,
        raw,
        family,
        supplied,
        deps.limits,
        deps.clock,
        _keep_every_claim_out,
        list(directory.entities.values()),
    )
    learned = children_learned([c for _, c in document.accepted()], transcript, directory)
    if learned:
        mark_children(deps.store, family_id, learned)
    notes = evidence_notes(source, entry)
    extra: dict[str, Any] = {EVIDENCE_NOTES: notes}
    if entry.fields:
        extra["imported"] = entry.fields
    entries = [e.model_copy(update=extra) for e in document.candidates]
    where = {"archive": source.archive, "line": entry.line, "entry": entry.index, "format": source.format.value}
    return document.model_copy(update={"candidates": entries, "conversation": False, "migration": where})


def form_entry(deps: FormationDeps, family_id: str, source: ArchivedSource, entry: Entry) -> ReconcileReport:
    """The entry's session and candidates (each stored once), then its reconciliation."""
    session_id = session_id_for(source.format, entry)
    raw = entry_session_json(family_id, source.time_zone, session_id, entry)
    transcript = parse_transcript(raw, f"entry {entry.index} of {source.original_name}")
    check_not_ahead(transcript, deps.clock.now())
    check_not_conflicting(deps.store, transcript)
    document = read_document(deps.store, family_id, session_id)
    if document is None:
        ensure_family(deps.store, transcript)
        document = _document(deps, source, entry, raw)
        try:
            # Before the session, as with supplied candidates: the session's arrival event finds them.
            deps.store.create(family_id, candidates_path(session_id), serialise_json(document))
        except AlreadyExistsError:
            document = read_document(deps.store, family_id, session_id)
    if document is None or not is_migration_document(document):
        producer = document.extractor.label if document is not None else "nobody"
        raise ConflictError(f"session {session_id} already has candidates from {producer}, not from a migration")
    receive_transcript(deps.store, raw, now=deps.clock.now())
    return reconcile_session(deps, family_id, session_id)


# --- the family -----------------------------------------------------------------------


def _load_ledger(store: Store, family_id: str) -> MigrationLedger | None:
    found = store.read_optional(family_id, MIGRATION_LEDGER)
    return parse_json(MigrationLedger, found.data, MIGRATION_LEDGER) if found else None


def _reconciled(deps: FormationDeps, family_id: str, session_id: str) -> bool:
    """The entry's session is stored and its candidates reconciled (by any earlier run)."""
    document = read_document(deps.store, family_id, session_id)
    reconciled = document is not None and document.reconciliation is not None
    return reconciled and deps.store.exists(family_id, session_path(session_id))


def _dream_and_report(store: Store, family_id: str, dream: Dream | None, run: MigrationRun) -> None:
    """The report before the dream (so the ``index.md`` it compiles lists it), the dream, and the
    report again with each memory's status after it (rewritten only if that changed anything)."""
    run.report_written = write_report(store, build_report(store, family_id))
    if dream is not None:
        run.dream_result = dream(family_id)
        run.dream_ran = True
    run.report = build_report(store, family_id)
    run.report_written = write_report(store, run.report) or run.report_written


def migrate_family(
    deps: FormationDeps,
    family_id: str,
    sources: Sequence[MigrationSource],
    *,
    dream: Dream | None,
    options: MigrationOptions | None = None,
    progress: Progress | None = None,
) -> MigrationRun:
    """Archive ``sources``, form every entry (oldest first), dream once, and write the report
    (``archive/migration-report.md``; ``run.report``, whose ``lost`` entries make a caller fail).

    InvalidInputError (nothing stored for that source) when a file cannot be read at all,
    or names no member for some entries and there is no default; ConflictError when an
    entry's session id is taken by something that is not a migration."""
    check_family_id(family_id)
    options = options or MigrationOptions()
    now = deps.clock.now()
    family = _family_for(deps.store, family_id, options)
    run = MigrationRun(family_id)
    for source in sources:
        archived, new = archive_source(deps.store, family, source, options, now)
        if not new and archived.key not in [s.key for s in run.sources]:
            run.notes.append(
                f"{source.name} was archived before ({format_utc(archived.archived_at)}, {archived.archive}); "
                "its recorded reading is used"
            )
        if archived.key not in [s.key for s in run.sources]:
            run.sources.append(archived)
    work = sorted(
        (
            (entry.at, order, entry.index, archived, entry)
            for order, archived in enumerate(run.sources)
            for entry in archived.reading.entries
        ),
        key=lambda item: item[:3],
    )
    run.entries = len(work)
    keys = [s.key for s in run.sources]
    ledger = _load_ledger(deps.store, family_id)
    if ledger is not None and not options.restart and ledger.status == "complete" and set(keys) <= set(ledger.sources):
        # Everything these sources hold was formed before: form nothing and write no ledger.
        run.already_done = True
        run.resumed_from = run.entries
        _dream_and_report(deps.store, family_id, dream, run)
        return run
    if ledger is None or options.restart or ledger.status == "complete":
        # A finished ledger's sources stay finished: a new file adds to them.
        finished = ledger.sources if ledger is not None and ledger.status == "complete" and not options.restart else []
        ledger = MigrationLedger(family_id=family_id, started_at=now, sources=finished)
    ledger.sources = sorted(set(ledger.sources) | set(keys))
    done = set(ledger.done)
    if not options.restart:
        # An entry reconciled by an earlier run (of this file, or of another copy holding it) is done.
        sessions = {session_id_for(a.format, e) for *_, a, e in work} - done
        done |= {s for s in sessions if _reconciled(deps, family_id, s)}
    run.resumed_from = len({session_id_for(a.format, e) for *_, a, e in work} & done)
    for number, (_, _, _, archived, entry) in enumerate(work, start=1):
        session_id = session_id_for(archived.format, entry)
        if session_id in done:
            continue  # done by a stopped or earlier run, or the same entry twice (a duplicate line)
        result = form_entry(deps, family_id, archived, entry)
        done.add(session_id)
        ledger.done.append(session_id)
        deps.store.put(family_id, MIGRATION_LEDGER, serialise_json(ledger))
        run.add(result)
        run.processed.append(session_id)
        if progress is not None:
            counts = ", ".join(f"{k} {v}" for k, v in result.counts().items() if v) or "nothing to reconcile"
            progress(f"[{number}/{len(work)}] {archived.original_name} line {entry.line}: {counts}")
    ledger.status = "complete"
    ledger.finished_at = deps.clock.now()
    _dream_and_report(deps.store, family_id, dream, run)
    ledger.dream = "ran" if run.dream_ran else "not run"
    deps.store.put(family_id, MIGRATION_LEDGER, serialise_json(ledger))
    return run
