"""The card as one part of the runtime: its writes bound to the family writer.

``Card`` is what the card's callers (the HTTP routes, the card's web page, the command
line) hold: each method is the operation of ``card.operations`` of the same name, on the
runtime's writer, so no caller passes the writer around. Reads (``card.views``) take the
store or catalog they read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from family_memory.card import operations
from family_memory.card.operations import GroupPreview, GroupResult, GroupSelector, MemoryDraft, MemoryEdit
from family_memory.domain.memory import Memory
from family_memory.domain.suppression import Suppression
from family_memory.writes.protocol import FamilyWriter


@dataclass(frozen=True)
class Card:
    writer: FamilyWriter

    def add(self, family_id: str, member_id: str, draft: MemoryDraft, *, memory_id: str | None = None) -> Memory:
        return operations.add_memory(self.writer, family_id, member_id, draft, memory_id=memory_id)

    def edit(self, family_id: str, memory_id: str, member_id: str, edit: MemoryEdit) -> tuple[Memory, Memory]:
        return operations.edit_memory(self.writer, family_id, memory_id, member_id, edit)

    def forget(
        self, family_id: str, memory_id: str, member_id: str, reason: str = ""
    ) -> tuple[Memory, Suppression | None]:
        return operations.forget_memory(self.writer, family_id, memory_id, member_id, reason)

    def preview_group(self, family_id: str, selector: GroupSelector) -> GroupPreview:
        return operations.preview_group(self.writer, family_id, selector)

    def forget_group(self, family_id: str, selector: GroupSelector, member_id: str, **confirmed: Any) -> GroupResult:
        """``confirmed``: ``operations.forget_group``'s keywords (``expected_count``, the preview's
        ``expected_token``, ``reason``)."""
        return operations.forget_group(self.writer, family_id, selector, member_id, **confirmed)
