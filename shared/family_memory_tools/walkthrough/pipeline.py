"""How the walk-through forms memories: through the pipeline, never by writing change sets.

``ingest`` stores a session as ``POST /sessions`` would and delivers what it causes (the
extract handler, the reconcile queue, the same code Lambda runs); ``memory_of`` finds the
memory a candidate became. Candidates beyond the offline extractor's reach (an inference,
a habit) are supplied with the session, as a batch job would, and pass the same checks.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime

from family_memory.app.commands.formation import document_lines, location
from family_memory.formation.document import CandidatesDocument
from family_memory.formation.extraction import SuppliedCandidates
from family_memory.formation.service import read_document, receive_session
from family_memory_tools.walkthrough.context import WalkContext


def session_bytes(
    family_id: str, session_id: str, started: datetime, turns: list[tuple[str, str | None, str]]
) -> bytes:
    return json.dumps(
        {
            "family_id": family_id,
            "session_id": session_id,
            "surface": "chat",
            "started_at": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "time_zone": "America/Los_Angeles",
            "turns": [
                {"n": n, "role": role, **({"member_id": member} if member else {}), "text": text}
                for n, (role, member, text) in enumerate(turns, start=1)
            ],
        },
        ensure_ascii=False,
    ).encode("utf-8")


def ingest(
    ctx: WalkContext,
    data: bytes,
    supplied: SuppliedCandidates | None = None,
    *,
    quiet: bool = False,
    silent: bool = False,
) -> CandidatesDocument:
    """Store the session and form its memories, then say what became of each candidate: one
    line each (``quiet``: one line in all; ``silent``: none, the caller says it); ``--verbose``
    shows the whole candidates document."""
    services = ctx.runtime.formation
    receipt = receive_session(services.deps, data, supplied=supplied)
    transcript = receipt.intake.transcript
    delivered = ctx.runtime.drain()
    document = read_document(ctx.runtime.store, transcript.family_id, transcript.session_id)
    assert document is not None
    where = location(ctx.runtime, transcript.family_id, f"sessions/{transcript.session_id}.json")
    if silent and not ctx.verbose:
        return document
    if ctx.verbose:
        ctx.say(
            f"stored {where}; {delivered} in-process deliveries followed (the same handlers Lambda runs): its "
            "event to extraction, the queue message to reconciliation, each file written to the indexer and the compile"
        )
    elif not quiet:
        ctx.say(
            f"sessions/{transcript.session_id}.json stored: {delivered} deliveries (extract, reconcile, index, compile)"
        )
    if ctx.verbose:
        ctx.show("\n".join(document_lines(ctx.runtime, document)), limit=1000)
    elif quiet:
        kinds = Counter(o.kind.value for o in document.reconciliation.outcomes) if document.reconciliation else {}
        rejected = len(document.candidates) - len(document.accepted())
        formed = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
        count = len(document.candidates)
        ctx.say(f"{transcript.session_id}: {count} candidates, {formed or 'none formed'}, {rejected} rejected")
    else:
        ctx.show("\n".join(verdict_lines(document)), limit=5)
    return document


def verdict_lines(document: CandidatesDocument) -> list[str]:
    """One line a candidate: what it said and what became of it (an outcome, or the rules it failed)."""
    outcomes = {o.index: o for o in (document.reconciliation.outcomes if document.reconciliation else [])}
    lines = []
    for entry in document.candidates:
        if entry.accepted and entry.candidate is not None:
            outcome = outcomes.get(entry.index)
            became = f"-> {outcome.kind.value}: {outcome.detail}" if outcome is not None else "-> not reconciled yet"
            lines.append(f"[{entry.index}] {_cut(entry.candidate.summary, 50)} {_cut(became, 60)}")
        else:
            proposed = entry.proposed
            what = str((proposed.get("summary") if isinstance(proposed, dict) else None) or proposed)
            rules = "; ".join(f"{r.rule}: {_cut(r.message, 50)}" for r in entry.reasons[:1])
            lines.append(f"[{entry.index}] REJECTED {_cut(what, 42)} {rules}")
    return lines


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def memory_of(document: CandidatesDocument, words: str) -> str:
    for entry in document.candidates:
        if entry.candidate is not None and words in entry.candidate.summary and document.reconciliation:
            for outcome in document.reconciliation.outcomes:
                if outcome.index == entry.index and outcome.memory_id:
                    return outcome.memory_id
    raise LookupError(words)
