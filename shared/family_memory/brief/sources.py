"""Reading a compile's inputs from a family's folder: entities, forget rules and
each member's last conversation.

A member's last conversation is the newest ``candidates/{session_id}.json`` by
its ``started_at`` (formation writes ``summary``, ``session_id``, ``surface``
and ``started_at`` at the top level) among the sessions that member wrote a
turn of (``sessions/{session_id}.json``). Its ``withheld`` subjects are the
``about`` of every candidate of that session that was tagged sensitive or that
a forget rule suppressed (``reconciliation.outcomes`` of kind ``suppressed``),
and ``withheld_claims`` their summaries: defence in depth, so a summary that
names or repeats one is never shown even if formation let it through. Its
``claims`` are the accepted candidates' about and summary, so a claim whose
subject the family forgets later takes the line with it. A file that cannot
be read is skipped with a warning: one bad extractor output must not stop a
family's brief. A file that says ``conversation: false`` (a migrated entry's:
``formation/migration.py``) holds no conversation and is never the last one.

Cost: a compile lists the family's candidates files and reads each (as the
ledger-less fallback always did), then reads transcripts newest first only
until every member has a session.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any, TypeVar

from family_memory.brief.compile import LastConversation
from family_memory.domain.clock import parse_utc
from family_memory.domain.entity import Entity
from family_memory.domain.errors import FamilyMemoryError, InvalidInputError
from family_memory.domain.family import FamilySettings
from family_memory.domain.ids import check_session_id
from family_memory.domain.layout import CANDIDATES, ENTITIES, SUPPRESSIONS, candidates_path, session_path
from family_memory.domain.okf import parse_entity, parse_json
from family_memory.domain.suppression import Suppression
from family_memory.ports.store import Store

log = logging.getLogger(__name__)
T = TypeVar("T")

SUMMARY_MAX = 200
#: Most withheld subjects read from one candidates file (a session has a few dozen candidates).
WITHHELD_MAX = 200


def _read_each(
    store: Store, family_id: str, folder: str, suffix: str, parse: Callable[[bytes, str], T], what: str
) -> list[T]:
    """Every file of ``folder`` itself (not of its subfolders) ending in ``suffix``, parsed;
    one that cannot be read is skipped with a warning naming ``what``."""
    found: list[T] = []
    for path in store.list(family_id, folder):
        if not path.endswith(suffix) or path.count("/") != 1:
            continue
        try:
            found.append(parse(store.read(family_id, path).data, path))
        except FamilyMemoryError as exc:
            log.warning(f"skipping unreadable {what}", extra={"family_id": family_id, "path": path, "error": str(exc)})
    return found


def read_entities(store: Store, family_id: str) -> list[Entity]:
    return _read_each(store, family_id, ENTITIES, ".md", parse_entity, "entity file")


def read_suppressions(store: Store, family_id: str) -> list[Suppression]:
    """The family's forget rules (``suppressions/{rule_id}.json``); unreadable ones are skipped."""
    return _read_each(
        store, family_id, SUPPRESSIONS, ".json", lambda data, path: parse_json(Suppression, data, path), "forget rule"
    )


def _text(proposal: dict[str, Any], key: str) -> str:
    value = proposal.get(key)
    return value[: SUMMARY_MAX * 2] if isinstance(value, str) else ""


def _bounded(texts: set[str]) -> tuple[str, ...]:
    return tuple(sorted(t for t in texts if t.strip())[:WITHHELD_MAX])


def _claims(doc: dict[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, str], ...]]:
    """(withheld abouts, withheld summaries, accepted claims) of a candidates document: the
    ``about`` and ``summary`` of each candidate tagged sensitive or suppressed by a forget
    rule, and (about, summary) of each accepted one. Read leniently: a part of the file in
    an unexpected shape contributes nothing."""
    entries = doc.get("candidates")
    claims: dict[int, tuple[str, str]] = {}
    subjects: set[str] = set()
    summaries: set[str] = set()
    accepted: set[tuple[str, str]] = set()
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        for key in ("candidate", "proposed"):
            proposal = entry.get(key)
            if not isinstance(proposal, dict) or not isinstance(proposal.get("about"), str):
                continue
            claim = (_text(proposal, "about"), _text(proposal, "summary"))
            if isinstance(entry.get("index"), int):
                claims.setdefault(entry["index"], claim)
            if proposal.get("sensitivity", "normal") != "normal":
                subjects.add(claim[0])
                summaries.add(claim[1])
            if key == "candidate" and entry.get("verdict", "accepted") == "accepted":
                accepted.add(claim)
    reconciliation = doc.get("reconciliation")
    outcomes = reconciliation.get("outcomes") if isinstance(reconciliation, dict) else None
    for outcome in outcomes if isinstance(outcomes, list) else []:
        if isinstance(outcome, dict) and outcome.get("kind") == "suppressed" and outcome.get("index") in claims:
            about, summary = claims[outcome["index"]]
            subjects.add(about)
            summaries.add(summary)
    kept = tuple(sorted(c for c in accepted if c[0].strip())[:WITHHELD_MAX])
    return _bounded({t[:SUMMARY_MAX] for t in subjects}), _bounded(summaries), kept


def _withheld(doc: dict[str, Any]) -> tuple[str, ...]:
    """The ``about`` of each candidate tagged sensitive or suppressed by a forget rule."""
    return _claims(doc)[0]


def parse_conversation(data: bytes, where: str) -> LastConversation | None:
    """The summary, session id and start of a candidates file; InvalidInputError naming the field.
    None for a file that holds no conversation (``conversation: false``: a migrated entry)."""
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInputError(f"{where}: not valid JSON: {exc}") from exc
    if not isinstance(doc, dict):
        raise InvalidInputError(f"{where}: must be a JSON object")
    if doc.get("conversation") is False:
        return None
    session_id = check_session_id(doc.get("session_id"))
    started_at = doc.get("started_at")
    if not isinstance(started_at, str):
        raise InvalidInputError(f"{where}: started_at must be an ISO 8601 timestamp")
    summary = doc.get("summary", "")
    if not isinstance(summary, str):
        raise InvalidInputError(f"{where}: summary must be a string")
    withheld, withheld_claims, claims = _claims(doc)
    return LastConversation(
        session_id,
        parse_utc(started_at),
        summary[: SUMMARY_MAX * 2],
        withheld,
        claims=claims,
        withheld_claims=withheld_claims,
    )


def read_conversation(store: Store, family_id: str, session_id: str) -> LastConversation | None:
    path = candidates_path(session_id)
    document = store.read_optional(family_id, path)
    if document is None:
        return None
    try:
        return parse_conversation(document.data, path)
    except FamilyMemoryError as exc:
        log.warning(
            "skipping unreadable candidates file", extra={"family_id": family_id, "path": path, "error": str(exc)}
        )
        return None


def _conversations(store: Store, family_id: str) -> Iterator[LastConversation]:
    for path in store.list(family_id, CANDIDATES):
        if not path.endswith(".json") or path.count("/") != 1:
            continue
        session_id = path[len(CANDIDATES) : -len(".json")]
        try:
            check_session_id(session_id)
        except FamilyMemoryError:
            continue
        found = read_conversation(store, family_id, session_id)
        if found is not None:
            yield found


def newest(a: LastConversation | None, b: LastConversation | None) -> LastConversation | None:
    """The later of two conversations by ``started_at``, then by session id (a total order)."""
    if a is None or b is None:
        return a or b
    return a if (a.started_at, a.session_id) >= (b.started_at, b.session_id) else b


def scan_last_conversation(store: Store, family_id: str) -> LastConversation | None:
    """The newest conversation, reading every candidates file (used when the
    dream ledger has no pointer yet, or its pointer went stale)."""
    best: LastConversation | None = None
    for conversation in _conversations(store, family_id):
        best = newest(best, conversation)
    return best


def session_members(store: Store, family_id: str, session_id: str) -> tuple[str, ...]:
    """The members who wrote a turn of ``sessions/{session_id}.json``, in order of first
    turn; none when the transcript is missing or unreadable (then the session is nobody's
    last conversation). Read leniently: only the turns' roles and member ids."""
    path = session_path(session_id)
    document = store.read_optional(family_id, path)
    if document is None:
        return ()
    try:
        doc = json.loads(document.data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        log.warning("skipping unreadable transcript", extra={"family_id": family_id, "path": path})
        return ()
    turns = doc.get("turns") if isinstance(doc, dict) else None
    members: dict[str, None] = {}
    for turn in turns if isinstance(turns, list) else []:
        if isinstance(turn, dict) and turn.get("role") == "user" and isinstance(turn.get("member_id"), str):
            members.setdefault(turn["member_id"], None)
    return tuple(members)


def read_member_conversations(store: Store, family_id: str, settings: FamilySettings) -> list[LastConversation]:
    """Each member's last conversation (with ``members`` filled), newest first: every
    candidates file is read, then transcripts from the newest session back until every
    member of ``family.json`` has one (or none are left)."""
    conversations = sorted(_conversations(store, family_id), key=LastConversation.order_key, reverse=True)
    waiting = {m.id for m in settings.members}
    found: list[LastConversation] = []
    for conversation in conversations:
        if not waiting:
            break
        members = session_members(store, family_id, conversation.session_id)
        if waiting & set(members):
            waiting -= set(members)
            found.append(replace(conversation, members=members))
    return found
