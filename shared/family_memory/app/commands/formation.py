"""``family-memory ingest``: store a finished conversation (optionally with supplied
candidates) and, on one machine, run extraction and reconciliation right away;
``family-memory replay``: a family's history through the same pipeline."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from family_memory.app.commands import family_ids, runtime_for
from family_memory.app.runtime import Runtime
from family_memory.app.sessions import Formation, end_session, supplied_candidates
from family_memory.domain.errors import InvalidInputError
from family_memory.domain.ids import check_family_id
from family_memory.domain.layout import candidates_path, memory_path, session_path
from family_memory.formation.document import CandidatesDocument, OutcomeKind
from family_memory.formation.extraction import ExtractorMisconfiguredError, SuppliedCandidates
from family_memory.formation.replay import replay_family, retry_failed_extractions

NO_DREAM = (
    "No dream was run: the dream service is not wired into this build, so the family's brief was not "
    "recompiled after the replay."
)


def register(subparsers: Any) -> None:
    ingest = subparsers.add_parser(
        "ingest", help="store a finished conversation (sessions/{id}.json) and form memories from it"
    )
    ingest.add_argument("transcript", type=Path, help="the session as JSON (family_id, session_id, turns, ...)")
    ingest.add_argument(
        "--candidates",
        type=Path,
        help="candidates produced elsewhere, as JSON: a list, or {candidates, producer}; "
        "they replace the extractor and go through the same validation and reconciliation "
        "(a summary is not taken from them: it is derived from what was accepted)",
    )
    ingest.set_defaults(run=_ingest)

    replay = subparsers.add_parser(
        "replay", help="run a family's stored sessions through extraction and reconciliation, oldest first"
    )
    which = replay.add_mutually_exclusive_group(required=True)
    which.add_argument("--family", help="the family id")
    which.add_argument("--all", action="store_true", help="every family (with --failed-only)")
    replay.add_argument("--restart", action="store_true", help="ignore the ledger of a stopped replay")
    replay.add_argument("--re-extract", action="store_true", help="run the extractor again even where candidates exist")
    replay.add_argument(
        "--failed-only",
        action="store_true",
        help="only the sessions waiting for extraction: none recorded yet (the model could not be called) "
        "or a failed extraction recorded; run it once the model is fixed",
    )
    replay.set_defaults(run=_replay)


def location(runtime: Runtime, family_id: str, relpath: str) -> str:
    """Where a reader can open a family's file: a path on disk, or an S3 URI."""
    store: Any = runtime.store
    if hasattr(store, "family_dir"):
        return str(Path(store.family_dir(family_id)).resolve() / relpath)
    return f"s3://{runtime.settings.bucket}/families/{family_id}/{relpath}"


def document_lines(runtime: Runtime, doc: CandidatesDocument) -> list[str]:
    """The candidates document for people: extractor, summary, each verdict, each outcome."""
    lines = [
        f"extractor: {doc.extractor.label}",
        f"summary:   {doc.summary or '(none: nothing shareable was accepted)'}",
        f"candidates: {location(runtime, doc.family_id, candidates_path(doc.session_id))}",
    ]
    lines += [f"  problem: {p}" for p in doc.problems]
    outcomes = {o.index: o for o in (doc.reconciliation.outcomes if doc.reconciliation else [])}
    for entry in doc.candidates:
        if entry.accepted and entry.candidate is not None:
            line = f"  [{entry.index}] accepted  {entry.candidate.type.value:<12} {entry.candidate.summary}"
            lines.append(line)
            for note in entry.adjustments:
                lines.append(f"        adjusted: {note}")
            outcome = outcomes.get(entry.index)
            if outcome is not None:
                lines.append(f"        -> {outcome.kind.value}: {outcome.detail}")
                if outcome.memory_id and outcome.kind is not OutcomeKind.SUPPRESSED:
                    lines.append(f"           {location(runtime, doc.family_id, memory_path(outcome.memory_id))}")
        else:
            proposed = entry.proposed
            what = proposed.get("summary") if isinstance(proposed, dict) else None
            lines.append(f"  [{entry.index}] REJECTED  {str(what or proposed)[:100]}")
            for reason in entry.reasons:
                lines.append(f"        {reason.rule}: {reason.message}")
    return lines


def _supplied(path: Path) -> SuppliedCandidates:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InvalidInputError(f"--candidates {path}: not readable JSON: {exc}") from exc
    return supplied_candidates(data, producer=path.stem, where=f"--candidates {path}")


def _ingest(args: argparse.Namespace) -> int:
    runtime = runtime_for(args)
    try:
        data = args.transcript.read_bytes()
    except OSError as exc:
        raise InvalidInputError(f"cannot read {args.transcript}: {exc}") from exc
    supplied = _supplied(args.candidates) if args.candidates else None
    ended = end_session(runtime, data, supplied=supplied)
    transcript = ended.intake.transcript
    family_id, session_id = transcript.family_id, transcript.session_id
    where = location(runtime, family_id, session_path(session_id))
    if ended.intake.stored:
        print(f"stored session {session_id} of family {family_id}: {where}")
    else:
        print(f"session {session_id} of family {family_id} was already stored with the same content: {where}")
    if ended.intake.family_created:
        print(f"created {location(runtime, family_id, 'family.json')} from the transcript (time zone, members)")
    if ended.formation is Formation.STARTED:
        print("extraction and reconciliation run in AWS (the session's S3 event starts them)")
        return 0
    if ended.document is None:
        print("no candidates were produced (see the log)")
        return 1
    print("\n".join(document_lines(runtime, ended.document)))
    if ended.formation is Formation.PENDING:
        print("reconciliation did not finish (see the log); `family-memory ingest` again finishes it")
        return 2
    return 0


def _retry_failed(args: argparse.Namespace) -> int:
    if args.restart or args.re_extract:
        raise InvalidInputError("--failed-only takes neither --restart nor --re-extract")
    runtime = runtime_for(args)
    deps = runtime.formation.deps
    waiting = 0
    for family_id in family_ids(runtime, args):
        try:
            report = retry_failed_extractions(
                deps, family_id, dream=runtime.dream, progress=lambda line: print(f"  {line}")
            )
        except ExtractorMisconfiguredError as exc:
            print(f"family {family_id}: stopped: {exc}")
            print("the model still cannot be called: fix BEDROCK_MODEL_ID or Bedrock model access, then run this again")
            return 2
        print("\n".join(report.lines()))
        waiting += len(report.still_failed)
    runtime.drain()
    return 1 if waiting else 0


def _replay(args: argparse.Namespace) -> int:
    if args.failed_only:
        return _retry_failed(args)
    if args.all:
        raise InvalidInputError(
            "replay runs one family's whole history: name it with --family (--all goes with --failed-only)"
        )
    runtime = runtime_for(args)
    family_id = check_family_id(args.family)
    report = replay_family(
        runtime.formation.deps,
        family_id,
        dream=runtime.dream,
        restart=args.restart,
        re_extract=args.re_extract,
        progress=lambda line: print(f"  {line}"),
    )
    print("\n".join(report.lines()))
    if not report.dream_ran:
        print(NO_DREAM)
    runtime.drain()
    return 0
