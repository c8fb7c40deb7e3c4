"""What starts a dream when memory changes: object-created events on a family's
``changes/`` and ``candidates/`` keys.

- ``changes/{change_id}.json``: a change set was applied. The family is
  dreamed (sweep, recompile, log) once per batch of events, however many of
  its changes the batch holds: that is how a burst coalesces. A session that
  changed nothing writes no change record, so it starts no dream.
- ``candidates/{session_id}.json``: formation's output for a finished session.
  It moves the family's last-conversation pointer in the dream ledger. It
  starts a dream only when that session is now the family's newest and its
  reconciliation changed something: formation rewrites the file after
  reconciling, and EventBridge does not order events, so this is what gets a
  summary into the brief when the ``changes/`` event was handled first. A
  session that changed nothing starts no dream.

Which keys these are is the event table's (``domain.layout.OBJECT_EVENTS``, service
``compile``). The AWS compile function and the local in-process bus both go through
``app.lifecycle.compile_keys``, which calls ``dream_on_triggers`` once per family.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from family_memory.brief.sources import read_conversation
from family_memory.domain.layout import CANDIDATES, CHANGES, Service, candidates_path, split_key, starts
from family_memory.lifecycle.dream import DreamDeps, DreamReport, dream_family
from family_memory.ports.store import Store

log = logging.getLogger(__name__)

_CHANGE = re.compile(rf"{CHANGES}([^/]+)\.json")
_CANDIDATES = re.compile(rf"{CANDIDATES}([^/]+)\.json")


@dataclass(frozen=True, slots=True)
class Trigger:
    family_id: str
    change_id: str | None = None
    session_id: str | None = None


def trigger_for_key(key: str) -> Trigger | None:
    """The trigger an object key stands for; None for keys the compile ignores (the event
    table's). InvalidInputError when the key is not a valid family path at all."""
    family_id, path = split_key(key)
    if not starts(Service.COMPILE, key):
        return None
    if match := _CHANGE.fullmatch(path):
        return Trigger(family_id, change_id=match.group(1))
    if match := _CANDIDATES.fullmatch(path):
        return Trigger(family_id, session_id=match.group(1))
    return None


def by_family(triggers: Iterable[Trigger]) -> dict[str, list[Trigger]]:
    """Triggers grouped by family, families in order of first appearance."""
    grouped: dict[str, list[Trigger]] = {}
    for trigger in triggers:
        grouped.setdefault(trigger.family_id, []).append(trigger)
    return grouped


def _reconciled_with_changes(store: Store, family_id: str, session_id: str) -> bool:
    document = store.read_optional(family_id, candidates_path(session_id))
    if document is None:
        return False
    try:
        reconciliation = json.loads(document.data).get("reconciliation") or {}
    except (ValueError, AttributeError):
        return False
    return isinstance(reconciliation, dict) and bool(reconciliation.get("change_ids"))


def dream_on_triggers(
    deps: DreamDeps, family_id: str, triggers: Sequence[Trigger], *, now: datetime
) -> DreamReport | None:
    """Note the family's new conversations, then dream it once if any change landed
    (or the newest conversation's reconciliation changed something)."""
    newest_changed = False
    for trigger in triggers:
        if trigger.session_id is not None:
            conversation = read_conversation(deps.store, family_id, trigger.session_id)
            if conversation is None:
                continue
            deps.ledger.note_conversation(family_id, conversation.session_id, conversation.started_at)
            state = deps.ledger.get(family_id)
            if state is not None and state.last_session_id == conversation.session_id:
                newest_changed = newest_changed or _reconciled_with_changes(deps.store, family_id, trigger.session_id)
    changes = [t.change_id for t in triggers if t.change_id is not None]
    if not changes and not newest_changed:
        return None
    return dream_family(deps, family_id, now=now, changes=changes)
