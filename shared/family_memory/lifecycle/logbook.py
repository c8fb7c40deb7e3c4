"""``log.md``: the family's dated change log (OKF v0.2, newest date first).

Every applied change set gets one line per memory it touched, linking the
memory file and the change record (``/changes/{id}.json``). The link is also
how a change is recognised as already logged, so a change event delivered
twice, or a dream re-run for the same date, adds nothing. The log is
append-only: entries are inserted under their date, older entries stay.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date

from family_memory.brief.compile import clip
from family_memory.domain.changes import Action, ChangeRecord
from family_memory.domain.okf import LogEntry, render_log

LOG_TITLE = "Memory log"
_HEADING = re.compile(r"^## (\d{4}-\d{2}-\d{2})")

VERBS: dict[Action, str] = {
    Action.ADD: "added",
    Action.REINFORCE: "reinforced",
    Action.SUPERSEDE: "superseded",
    Action.CONTRADICTION: "recorded a contradiction with",
    Action.RETRACT: "forgot",
    Action.EXPIRE: "expired",
    Action.PROMOTE: "made lasting",
    Action.DECAY: "set dormant",
    Action.UPDATE: "updated",
}


def change_link(change_id: str) -> str:
    return f"/changes/{change_id}.json"


def is_logged(log_text: str, change_id: str) -> bool:
    return f"]({change_link(change_id)})" in log_text


def _link_text(text: str) -> str:
    return clip(text, 80).replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def change_lines(record: ChangeRecord, notes: Mapping[str, str] | None = None) -> list[str]:
    """Log lines for one change record; ``notes`` adds a why per memory id (the dream's reasons)."""
    notes = notes or {}
    source = f"{record.actor}; [change]({change_link(record.id)})"
    reason = clip(record.reason, 100)
    lines = []
    for change in record.memories:
        verb = VERBS.get(change.action, change.action.value)
        why = notes.get(change.memory_id) or reason
        line = (
            f"**{change.action.value.title()}**: {verb} [{_link_text(change.summary)}](/memories/{change.memory_id}.md)"
        )
        if why:
            line += f": {why}"
        if not change.applied:
            line += " (skipped: the file had changed)"
        lines.append(f"{line} ({source})")
    if record.entities or record.suppressions:
        parts = []
        if record.entities:
            parts.append(f"{len(record.entities)} {'entity' if len(record.entities) == 1 else 'entities'} written")
        if record.suppressions:
            parts.append(f"{len(record.suppressions)} forget {'rule' if len(record.suppressions) == 1 else 'rules'}")
        lines.append(f"**Change**: {', '.join(parts)}{': ' + reason if reason else ''} ({source})")
    if not lines:
        lines.append(f"**Change**: nothing written ({source})")
    return lines


def insert_entry(existing: bytes | None, day: date, lines: Sequence[str], title: str = LOG_TITLE) -> bytes:
    """``existing`` with ``lines`` added under the heading for ``day`` (created in date
    order when missing); the new lines go first under their heading."""
    if not lines:
        return existing or b""
    if not existing or not existing.strip():
        return render_log(title, [LogEntry(day, tuple(lines))])
    text_lines = existing.decode("utf-8").rstrip("\n").split("\n")
    new = [f"* {line}" for line in lines]
    for i, line in enumerate(text_lines):
        match = _HEADING.match(line)
        if match is None:
            continue
        heading_day = date.fromisoformat(match.group(1))
        if heading_day == day:
            text_lines[i + 1 : i + 1] = new
            break
        if heading_day < day:
            text_lines[i:i] = [f"## {day.isoformat()}", *new, ""]
            break
    else:
        text_lines += ["", f"## {day.isoformat()}", *new]
    return ("\n".join(text_lines).rstrip("\n") + "\n").encode("utf-8")
