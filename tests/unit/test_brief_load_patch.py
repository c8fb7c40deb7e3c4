"""Always current between compiles: the loader drops expired lines, forget and edit patch the brief at once."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from conftest import local_adapters
from factories import FAMILY, change_set, memory, update
from family_memory.brief.compile import compile_brief
from family_memory.brief.load import BriefLoader, drop_expired
from family_memory.brief.model import SECTION_BUDGETS, Brief, Section, parse_brief, serialise_brief
from family_memory.brief.patch import BriefPatcher
from family_memory.brief.render import section_tokens
from family_memory.domain.changes import Action, MemoryWrite
from family_memory.domain.clock import FixedClock
from family_memory.domain.family import FamilySettings
from family_memory.domain.ids import new_ulid
from family_memory.domain.layout import BRIEF
from family_memory.domain.memory import Authority, Memory, MemoryType, Sensitivity, Status, Strength
from family_memory.writes.protocol import FamilyWriter

LA = FamilySettings(family_id=FAMILY, time_zone="America/Los_Angeles")


def directive(**kw: object) -> Memory:
    values: dict[str, object] = {"type": MemoryType.DIRECTIVE, "authority": Authority.USER_EXPLICIT}
    values.update(kw)
    return memory(**values)


class World:
    """A family on the local adapters with the patcher listening, and a compiled brief."""

    def __init__(self, root: Path, clock: FixedClock, memories: list[Memory]) -> None:
        adapters = local_adapters(root, clock)
        self.store, self.clock = adapters.store, clock
        self.patcher = BriefPatcher(self.store, skip_actors={"process:dream"})
        self.writer = FamilyWriter(adapters.store, adapters.catalog, clock, listeners=[self.patcher])
        if memories:
            self.writer.apply(change_set(*(MemoryWrite(action=Action.ADD, memory=m) for m in memories)))
        self.store.put(FAMILY, BRIEF, serialise_brief(compile_brief(memories, LA)))

    def brief(self) -> Brief:
        return parse_brief(self.store.read(FAMILY, BRIEF).data)

    def texts(self, section: Section = Section.DIRECTIVES) -> list[str]:
        return [line.text for line in self.brief().lines(section)]


# --- loading -------------------------------------------------------------------


def test_loading_drops_a_line_the_moment_its_date_begins_in_the_familys_zone(tmp_path: Path, clock: FixedClock) -> None:
    world = World(tmp_path, clock, [directive(summary="Pizza night is tonight.", valid_until=date(2026, 11, 17))])
    loader = BriefLoader(world.store, clock)
    assert [line.text for line in loader.load(FAMILY, now=datetime(2026, 11, 17, 7, 59, tzinfo=UTC)).directives] == [  # type: ignore[union-attr]
        "Pizza night is tonight."
    ]
    assert loader.load(FAMILY, now=datetime(2026, 11, 17, 8, 0, tzinfo=UTC)).directives == ()  # type: ignore[union-attr]
    assert world.texts() == ["Pizza night is tonight."]  # the file itself waits for the dream


def test_loading_fetches_only_when_the_brief_changed(tmp_path: Path, clock: FixedClock) -> None:
    world = World(tmp_path, clock, [directive(summary="Call first.")])
    loader = BriefLoader(world.store, clock)
    assert loader.load("fam-never-compiled") is None
    loader.load(FAMILY)
    loader.load(FAMILY)
    assert loader.downloads == 1
    world.store.put(FAMILY, BRIEF, serialise_brief(compile_brief([directive(summary="Text first.")], LA)))
    assert [line.text for line in loader.load(FAMILY).directives] == ["Text first."]  # type: ignore[union-attr]
    assert loader.downloads == 2


def test_prompt_for_a_family_without_a_brief_is_the_stable_instructions_and_an_empty_brief(
    tmp_path: Path, clock: FixedClock
) -> None:
    block = BriefLoader(local_adapters(tmp_path, clock).store, clock).prompt("fam-new")
    assert "- (none)" in block.brief and block.instructions


def test_drop_expired_keeps_undated_and_future_lines() -> None:
    brief = compile_brief([directive(summary="a"), directive(summary="b", valid_until=date(2026, 1, 2))], LA)
    assert [line.text for line in drop_expired(brief, date(2026, 1, 1)).directives] == ["a", "b"]
    assert [line.text for line in drop_expired(brief, date(2026, 1, 2)).directives] == ["a"]


# --- patching ---------------------------------------------------------------------


def test_forget_removes_the_line_before_any_recompile(tmp_path: Path, clock: FixedClock) -> None:
    keep, forget = directive(summary="Call before booking."), directive(summary="Ask before the team chat.")
    world = World(tmp_path, clock, [keep, forget])
    world.writer.apply(change_set(update(forget, Action.RETRACT, status=Status.RETRACTED), actor="human:lucia"))
    assert world.texts() == ["Call before booking."]
    assert world.patcher.patched == 1


def test_edit_replaces_the_old_line_with_the_new_one_in_place(tmp_path: Path, clock: FixedClock) -> None:
    first, old, last = (directive(summary=s) for s in ("First rule.", "Call before booking.", "Last rule."))
    # Same weight for all three: their order is by id, so the edited line sits between the others.
    first, old, last = sorted((first, old, last), key=lambda m: m.id)
    world = World(tmp_path, clock, [first, old, last])
    new = directive(summary="Text Lu before booking.", supersedes=old.id)
    world.writer.apply(
        change_set(
            update(old, Action.SUPERSEDE, status=Status.SUPERSEDED, superseded_by=new.id),
            MemoryWrite(action=Action.ADD, memory=new),
            actor="human:lucia",
        )
    )
    assert world.texts() == [first.summary, "Text Lu before booking.", last.summary]
    assert new.id in world.brief().memory_ids() and old.id not in world.brief().memory_ids()


def test_edit_into_a_sensitive_memory_only_removes_the_line(tmp_path: Path, clock: FixedClock) -> None:
    old = directive(summary="No peanuts at home.")
    world = World(tmp_path, clock, [old])
    new = directive(summary="Maya is allergic to peanuts.", supersedes=old.id, sensitivity=Sensitivity.HEALTH)
    world.writer.apply(
        change_set(
            update(old, Action.SUPERSEDE, status=Status.SUPERSEDED, superseded_by=new.id),
            MemoryWrite(action=Action.ADD, memory=new),
        )
    )
    assert world.texts() == []


def test_update_rewrites_the_line_or_removes_it_when_the_memory_became_sensitive(
    tmp_path: Path, clock: FixedClock
) -> None:
    a, b = directive(summary="Call before booking."), directive(summary="Dentist is Dr. Ortiz.")
    world = World(tmp_path, clock, [a, b])
    world.writer.apply(change_set(update(a, summary="Call Lu before booking.")))
    assert "Call Lu before booking." in world.texts()
    world.writer.apply(change_set(update(b, sensitivity=Sensitivity.HEALTH)))
    assert "Dentist is Dr. Ortiz." not in world.texts()


@pytest.mark.parametrize(("action", "status"), [(Action.EXPIRE, Status.EXPIRED), (Action.DECAY, Status.DORMANT)])
def test_expiry_or_decay_by_another_writer_removes_the_line(
    tmp_path: Path, clock: FixedClock, action: Action, status: Status
) -> None:
    gone = directive(summary="Gone soon.")
    world = World(tmp_path, clock, [gone, directive(summary="Stays.")])
    world.writer.apply(change_set(update(gone, action, status=status), actor="process:migration"))
    assert world.texts() == ["Stays."]


def test_new_memories_are_left_to_the_recompile(tmp_path: Path, clock: FixedClock) -> None:
    world = World(tmp_path, clock, [directive(summary="Stays.")])
    before = world.store.read(FAMILY, BRIEF).data
    world.writer.apply(change_set(MemoryWrite(action=Action.ADD, memory=directive(summary="New rule."))))
    assert world.store.read(FAMILY, BRIEF).data == before


def test_the_dreams_own_changes_are_not_patched(tmp_path: Path, clock: FixedClock) -> None:
    gone = directive(summary="Expires tonight.")
    world = World(tmp_path, clock, [gone])
    world.writer.apply(change_set(update(gone, Action.EXPIRE, status=Status.EXPIRED), actor="process:dream"))
    assert world.texts() == ["Expires tonight."]  # the dream recompiles right after its own change


def test_a_patched_section_stays_within_its_budget(tmp_path: Path, clock: FixedClock) -> None:
    rules = [directive(summary=f"Rule {i}.", strength=Strength.HARD) for i in range(40)]
    world = World(tmp_path, clock, rules)
    present = [line.memory_id for line in world.brief().directives]
    victim = next(m for m in rules if m.id == present[0])
    longer = directive(
        summary="A much longer replacement rule " + "with many more words " * 8,
        supersedes=victim.id,
        strength=Strength.HARD,
    )
    world.writer.apply(
        change_set(
            update(victim, Action.SUPERSEDE, status=Status.SUPERSEDED, superseded_by=longer.id),
            MemoryWrite(action=Action.ADD, memory=longer),
        )
    )
    brief = world.brief()
    assert brief.directives[0].memory_id == longer.id
    assert section_tokens(brief, Section.DIRECTIVES) <= SECTION_BUDGETS[Section.DIRECTIVES]


def test_a_failed_patch_does_not_fail_the_settled_change(tmp_path: Path, clock: FixedClock) -> None:
    gone = directive(summary="Forget me.")
    world = World(tmp_path, clock, [gone])
    world.store.put(FAMILY, BRIEF, b"{not json")
    result = world.writer.apply(change_set(update(gone, Action.RETRACT, status=Status.RETRACTED)))
    assert result.applied and world.patcher.failures == 1


def test_a_family_without_a_brief_is_left_alone(tmp_path: Path, clock: FixedClock) -> None:
    adapters = local_adapters(tmp_path, clock)
    patcher = BriefPatcher(adapters.store)
    writer = FamilyWriter(adapters.store, adapters.catalog, clock, listeners=[patcher])
    m = directive(id=new_ulid())
    writer.apply(change_set(MemoryWrite(action=Action.ADD, memory=m)))
    writer.apply(change_set(update(m, Action.RETRACT, status=Status.RETRACTED)))
    assert not adapters.store.exists(FAMILY, BRIEF) and patcher.failures == 0
