"""What starts a dream when memory changes: object-created events on a family's
``changes/`` and ``candidates/`` keys.

- ``changes/{change_id}.json``: a change set was applied. The family is
  dreamed (sweep, recompile, log) once per batch of events, however many of
  its changes the batch holds: that is how a burst coalesces. A session that
  changed nothing writes no change record, so it starts no dream.
- ``candidates/{session_id}.json``: formation's output for a finished session.
  It only moves the family's last-conversation pointer in the dream ledger;
  the next dream picks the summary up. It starts no dream by itself.

The AWS compile function and the local in-process bus both call ``handle``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from family_memory.brief.sources import read_conversation
from family_memory.domain.layout import FAMILIES_PREFIX, split_key
from family_memory.lifecycle.dream import DreamDeps, DreamReport, dream_family

log = logging.getLogger(__name__)

#: Object keys whose creation starts the compile (regular expressions on the full key).
CHANGES_KEY = rf"{FAMILIES_PREFIX}[^/]+/changes/[^/]+\.json"
CANDIDATES_KEY = rf"{FAMILIES_PREFIX}[^/]+/candidates/[^/]+\.json"
_CHANGE = re.compile(r"changes/([^/]+)\.json")
_CANDIDATES = re.compile(r"candidates/([^/]+)\.json")


@dataclass(frozen=True, slots=True)
class Trigger:
    family_id: str
    change_id: str | None = None
    session_id: str | None = None


def trigger_for_key(key: str) -> Trigger | None:
    """The trigger an object key stands for; None for keys the compile ignores.
    InvalidInputError when the key is not a valid family path at all."""
    family_id, path = split_key(key)
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


def handle(deps: DreamDeps, family_id: str, triggers: Sequence[Trigger], *, now: datetime) -> DreamReport | None:
    """Note the family's new conversations, then dream it once if any change landed."""
    for trigger in triggers:
        if trigger.session_id is not None:
            conversation = read_conversation(deps.store, family_id, trigger.session_id)
            if conversation is not None:
                deps.ledger.note_conversation(family_id, conversation.session_id, conversation.started_at)
    changes = [t.change_id for t in triggers if t.change_id is not None]
    if not changes:
        return None
    return dream_family(deps, family_id, now=now, changes=changes)
