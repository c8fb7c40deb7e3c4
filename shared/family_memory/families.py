"""A family's settings file (``family.json``): read and write through the store."""

from __future__ import annotations

from family_memory.domain.family import FamilySettings
from family_memory.domain.layout import FAMILY_SETTINGS
from family_memory.domain.okf import parse_json, serialise_json
from family_memory.ports.store import Store


def load_family(store: Store, family_id: str) -> FamilySettings:
    """The family's settings; a family that has none yet gets the defaults (UTC, no members)."""
    document = store.read_optional(family_id, FAMILY_SETTINGS)
    if document is None:
        return FamilySettings(family_id=family_id)
    return parse_json(FamilySettings, document.data, f"{family_id}/{FAMILY_SETTINGS}")


def save_family(store: Store, settings: FamilySettings) -> None:
    store.put(settings.family_id, FAMILY_SETTINGS, serialise_json(settings))
