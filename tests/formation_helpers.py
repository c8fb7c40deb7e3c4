"""Builders for formation tests: transcripts, families, candidates, and wired dependencies."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from conftest import Adapters
from family_memory.domain.clock import FixedClock
from family_memory.domain.family import FamilySettings, Member, MemberRole
from family_memory.domain.transcript import Transcript, parse_transcript
from family_memory.formation.document import Limits
from family_memory.formation.extraction import Extractor
from family_memory.formation.offline import OfflineExtractor
from family_memory.formation.service import FormationDeps
from family_memory.formation.similar import CatalogSimilarMemories
from family_memory.ports.store import Store
from family_memory.writes.protocol import FamilyWriter

FAMILY = "fam-rivera"
TZ = "America/Los_Angeles"
#: Friday 2026-11-27, 09:00 in Los Angeles.
FRIDAY_MORNING = datetime(2026, 11, 27, 17, 0, tzinfo=UTC)

Turn = tuple[str, str | None, str]


def session_json(
    turns: list[Turn],
    *,
    session_id: str = "sess-1",
    family_id: str = FAMILY,
    started_at: datetime = FRIDAY_MORNING,
    time_zone: str = TZ,
    surface: str = "chat",
) -> bytes:
    return json.dumps(
        {
            "family_id": family_id,
            "session_id": session_id,
            "surface": surface,
            "started_at": started_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "time_zone": time_zone,
            "turns": [
                {"n": n, "role": role, **({"member_id": member} if member else {}), "text": text}
                for n, (role, member, text) in enumerate(turns, start=1)
            ],
        },
        ensure_ascii=False,
    ).encode()


def transcript(turns: list[Turn], **kw: Any) -> Transcript:
    return parse_transcript(session_json(turns, **kw))


def family(family_id: str = FAMILY) -> FamilySettings:
    return FamilySettings(
        family_id=family_id,
        time_zone=TZ,
        members=[
            Member(id="lucia", name="Lucía Rivera", address_as="Lu"),
            Member(id="marco", name="Marco Rivera"),
            Member(id="maya", name="Maya Rivera", role=MemberRole.CHILD),
        ],
    )


def candidate(**overrides: Any) -> dict[str, Any]:
    """A valid candidate dict for a transcript whose turn 1 (by lucia) says ``We love Thai food.``"""
    values: dict[str, Any] = {
        "type": "preference",
        "about": "Thai food (the family)",
        "summary": "The family loves Thai food.",
        "authority": "user_implicit",
        "confidence": 0.8,
        "evidence": [{"turns": [1], "quote": "We love Thai food"}],
    }
    values.update(overrides)
    return values


def deps(adapters: Adapters, *, extractor: Extractor | None = None, queue: Any = None, **kw: Any) -> FormationDeps:
    writer = FamilyWriter(adapters.store, adapters.catalog, adapters.clock, **kw)
    return FormationDeps(
        store=adapters.store,
        writer=writer,
        clock=adapters.clock,
        extractor=extractor or OfflineExtractor(),
        finder=CatalogSimilarMemories(adapters.catalog),
        queue=queue,
        limits=Limits(),
    )


def save_family(store: Store, settings: FamilySettings | None = None) -> None:
    from family_memory.families import save_family as save

    save(store, settings or family())


def at(clock: FixedClock, when: datetime) -> None:
    clock.set(when)
