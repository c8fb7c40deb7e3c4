"""Loading the brief for a request: a conditional fetch, then today's expired lines dropped.

The agent reads ``brief.json`` on every request. ``BriefLoader`` keeps the
last copy and its version tag per family and asks the store only whether it
changed (``If-None-Match`` on S3), so a request pays for a download only when
the brief was recompiled or patched. Lines whose ``valid_until`` has begun in
the family's time zone are dropped on every load, so a fact valid until the
17th is gone from the brief the moment the 17th begins there, even if the
nightly dream has not run yet.

What a request gets is served for the member asking and the surface
(``Brief.served``): the member's own last conversation in their chat, none on
the household surface or for a request that names no member.
"""

from __future__ import annotations

import threading
from datetime import date, datetime

from family_memory.brief.model import SECTION_ORDER, Brief, parse_brief
from family_memory.brief.render import PromptBlock, prompt_block
from family_memory.domain.clock import Clock, local_date
from family_memory.domain.errors import NotFoundError
from family_memory.domain.family import Surface
from family_memory.domain.ids import check_family_id
from family_memory.domain.layout import BRIEF
from family_memory.ports.store import Store


def drop_expired(brief: Brief, today: date) -> Brief:
    """The brief without the lines whose expiry date is on or before ``today``."""
    for section in SECTION_ORDER:
        lines = brief.lines(section)
        kept = tuple(line for line in lines if line.valid_until is None or line.valid_until > today)
        if len(kept) != len(lines):
            brief = brief.with_lines(section, kept)
    for member_id, held in sorted(brief.conversations.items()):
        kept = tuple(line for line in held.lines if line.valid_until is None or line.valid_until > today)
        if len(kept) != len(held.lines):
            brief = brief.with_conversation(member_id, kept)
    return brief


class BriefLoader:
    """Per-process cache of each family's brief, refreshed by conditional fetches."""

    def __init__(self, store: Store, clock: Clock) -> None:
        self.store = store
        self.clock = clock
        self._cache: dict[str, tuple[str, Brief]] = {}
        self._lock = threading.Lock()
        self.downloads = 0

    def load(
        self,
        family_id: str,
        *,
        member_id: str | None = None,
        surface: Surface = Surface.CHAT,
        now: datetime | None = None,
    ) -> Brief | None:
        """The family's current brief as served to ``member_id`` on ``surface`` (their own
        last conversation in their chat; none on the household surface or without a
        member), expired lines dropped; None when it was never compiled."""
        compiled = self.load_compiled(family_id, now=now)
        return None if compiled is None else compiled.served(member_id, surface)

    def load_compiled(self, family_id: str, *, now: datetime | None = None) -> Brief | None:
        """The compiled brief (every member's last conversation) with expired lines dropped:
        for tools and reports, never for a prompt."""
        check_family_id(family_id)
        with self._lock:
            cached = self._cache.get(family_id)
        try:
            if cached is not None:
                document = self.store.read_if_changed(family_id, BRIEF, cached[0])
            else:
                document = self.store.read(family_id, BRIEF)
        except NotFoundError:
            with self._lock:
                self._cache.pop(family_id, None)
            return None
        if document is None:
            assert cached is not None
            brief = cached[1]
        else:
            brief = parse_brief(document.data, f"{family_id}/{BRIEF}")
            self.downloads += 1
            with self._lock:
                self._cache[family_id] = (document.tag, brief)
        return drop_expired(brief, local_date(now or self.clock.now(), brief.time_zone))

    def prompt(
        self,
        family_id: str,
        surface: Surface = Surface.CHAT,
        *,
        member_id: str | None = None,
        now: datetime | None = None,
    ) -> PromptBlock:
        """The instruction block and the current brief for ``member_id`` on ``surface``; an
        empty brief when the family has none yet, so a new family still gets stable instructions."""
        brief = self.load(family_id, member_id=member_id, surface=surface, now=now) or Brief(family_id=family_id)
        return prompt_block(brief, surface)
