"""Names become entity ids; aliases let two memories about one person share an id."""

from __future__ import annotations

from factories import FORMED
from family_memory.domain.entity import Entity, EntityKind
from family_memory.formation.candidate import EntityHint
from family_memory.formation.entities import EntityDirectory
from formation_helpers import family


def directory(*entities: Entity) -> EntityDirectory:
    return EntityDirectory(list(entities), family(), FORMED)


def test_a_member_resolves_to_one_person_entity_with_their_member_id() -> None:
    d = directory()
    first = d.resolve(["lucia"], [])
    d.apply(first)
    [entity] = first.changes.values()
    assert entity.member_id == "lucia" and entity.name == "Lucía Rivera"
    assert {"Lu", "Lucía", "lucia"} <= set(entity.aliases)
    # By first name, by how she likes to be addressed, by id: the same entity, nothing new to write.
    for name in ("Lucía", "Lu", "LUCIA"):
        again = d.resolve([name], [])
        assert again.entity_ids == first.entity_ids and again.changes == {}


def test_my_daughter_and_maya_are_one_entity() -> None:
    d = directory()
    hint = EntityHint(name="Maya", aliases=["my daughter"], relationship="daughter", member_id="maya")
    maya = d.resolve(["Maya"], [hint])
    d.apply(maya)
    later = d.resolve(["my daughter"], [EntityHint(name="Marco's daughter", aliases=["my daughter"])])
    assert later.entity_ids == maya.entity_ids
    [entity] = maya.changes.values()
    assert entity.member_id == "maya" and entity.relationship == "daughter" and "my daughter" in entity.aliases


def test_an_alias_learned_later_is_added_to_the_existing_entity() -> None:
    pepper = Entity(id="01K6N1R0A0B0C0D0E0F0ENT002", type=EntityKind.PET, name="Pepper", created_at=FORMED)
    d = directory(pepper)
    resolution = d.resolve(["Pepper"], [EntityHint(name="Pepper", kind=EntityKind.PET, aliases=["our dog"])])
    assert resolution.entity_ids == [pepper.id]
    assert resolution.changes[pepper.id].aliases == ["our dog"]
    d.apply(resolution)
    [write] = d.pending_writes()
    assert write.expected_revision == 1 and write.entity.revision == 2
    d.mark_saved()
    assert d.pending_writes() == []
    assert d.resolve(["our dog"], []).entity_ids == [pepper.id]


def test_an_unknown_name_creates_an_entity_of_the_hinted_kind() -> None:
    d = directory()
    resolution = d.resolve(["Thai Palace"], [EntityHint(name="Thai Palace", kind=EntityKind.ORGANISATION)])
    [entity] = resolution.changes.values()
    assert entity.type is EntityKind.ORGANISATION and entity.name == "Thai Palace"
    d.apply(resolution)
    [write] = d.pending_writes()
    assert write.expected_revision is None and write.entity.revision == 1


def test_resolving_plans_without_changing_anything() -> None:
    d = directory()
    d.resolve(["Grandma Rose"], [])
    assert d.pending_writes() == [] and d.entities == {}


def test_several_names_give_ids_in_order_without_repeats() -> None:
    d = directory()
    resolution = d.resolve(["maya", "Maya", "marco"], [])
    assert len(resolution.entity_ids) == 2


def maya_then_sofia() -> tuple[EntityDirectory, str, str]:
    d = directory()
    maya = d.resolve(["Maya"], [EntityHint(name="Maya", aliases=["my daughter"], relationship="daughter")])
    d.apply(maya)
    sofia = d.resolve(["Sofia"], [EntityHint(name="Sofia", aliases=["my daughter"], relationship="daughter")])
    d.apply(sofia)
    return d, maya.entity_ids[0], sofia.entity_ids[0]


def test_a_second_daughter_by_name_is_never_merged_into_the_first() -> None:
    d, maya, sofia = maya_then_sofia()
    assert sofia != maya
    assert "sofia" not in d.entities[maya].names() and d.entities[maya].member_id == "maya"
    assert d.entities[sofia].name == "Sofia" and d.entities[sofia].relationship == "daughter"


def test_a_bare_relation_is_ambiguous_with_two_daughters_and_goes_to_neither() -> None:
    d, maya, sofia = maya_then_sofia()
    hint = EntityHint(name="Marco's daughter", aliases=["my daughter"], relationship="daughter")
    first = d.resolve(["my daughter"], [hint])
    assert first.entity_ids[0] not in (maya, sofia)
    assert d.matches("my daughter") and len(d.matches("my daughter")) == 2
    d.apply(first)
    # Said again, it finds that same unnamed daughter, still not Maya or Sofia.
    assert d.resolve(["my daughter"], [hint]).entity_ids == first.entity_ids


def test_a_bare_relation_resolves_when_exactly_one_entity_holds_it() -> None:
    d = directory()
    maya = d.resolve(["Maya"], [EntityHint(name="Maya", relationship="daughter")])
    d.apply(maya)
    # Maya was never called "my daughter", but she is the family's only daughter.
    later = d.resolve(
        ["my daughter"], [EntityHint(name="Lucía's daughter", aliases=["my daughter"], relationship="daughter")]
    )
    assert later.entity_ids == maya.entity_ids
