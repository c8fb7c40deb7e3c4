"""The card as one part of the runtime: its writes bound to the family writer.

``Card`` is what the card's callers (the HTTP routes, the card's web page, the command
line) hold: each method is the operation of ``card.operations`` of the same name, on the
runtime's writer, so no caller passes the writer around. Reads (``card.views``) take the
store or catalog they read.
"""

from __future__ import annotations

from dataclasses import dataclass

from family_memory.card.operations import (
    GroupPreview,
    GroupResult,
    GroupSelector,
    MemoryDraft,
    MemoryEdit,
    add_memory,
    edit_memory,
    forget_group,
    forget_memory,
    preview_group,
)
from family_memory.domain.memory import Memory
from family_memory.domain.suppression import Suppression
from family_memory.writes.protocol import FamilyWriter


@dataclass(frozen=True)
class Card:
    writer: FamilyWriter

    def add(self, family_id: str, member_id: str, draft: MemoryDraft, *, memory_id: str | None = None) -> Memory:
        return add_memory(self.writer, family_id, member_id, draft, memory_id=memory_id)

    def edit(self, family_id: str, memory_id: str, member_id: str, edit: MemoryEdit) -> tuple[Memory, Memory]:
        return edit_memory(self.writer, family_id, memory_id, member_id, edit)

    def forget(
        self, family_id: str, memory_id: str, member_id: str, reason: str = ""
    ) -> tuple[Memory, Suppression | None]:
        return forget_memory(self.writer, family_id, memory_id, member_id, reason)

    def preview_group(self, family_id: str, selector: GroupSelector) -> GroupPreview:
        return preview_group(self.writer, family_id, selector)

    def forget_group(
        self,
        family_id: str,
        selector: GroupSelector,
        member_id: str,
        *,
        expected_count: int,
        expected_token: str | None = None,
        reason: str = "",
    ) -> GroupResult:
        return forget_group(
            self.writer,
            family_id,
            selector,
            member_id,
            expected_count=expected_count,
            expected_token=expected_token,
            reason=reason,
        )
