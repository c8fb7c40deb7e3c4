"""Always current between compiles: the loader drops expired lines, forget and edit patch the brief at once."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from conftest import Adapters, local_adapters
from factories import FAMILY, change_set, memory, update
from family_memory.brief.compile import LastConversation, compile_brief
from family_memory.brief.load import BriefLoader, drop_expired
from family_memory.brief.model import SECTION_BUDGETS, Brief, Section, parse_brief, serialise_brief
from family_memory.brief.patch import BriefPatcher
from family_memory.brief.render import render_brief, section_tokens
from family_memory.brief.sources import read_suppressions
from family_memory.card.operations import GroupSelector, forget_group, forget_memory
from family_memory.domain.changes import Action, EntityWrite, MemoryWrite
from family_memory.domain.clock import FixedClock
from family_memory.domain.entity import Entity, EntityKind
from family_memory.domain.family import FamilySettings, Member
from family_memory.domain.ids import new_ulid
from family_memory.domain.layout import BRIEF, candidates_path
from family_memory.domain.memory import Authority, Memory, MemoryType, Sensitivity, Status, Strength
from family_memory.domain.suppression import Suppression, SuppressionScope
from family_memory.families import save_family
from family_memory.writes.protocol import FamilyWriter

LA = FamilySettings(family_id=FAMILY, time_zone="America/Los_Angeles")


def candidates_file(talk: LastConversation) -> bytes:
    """A candidates file holding ``talk``'s summary (and nothing else)."""
    doc = {"session_id": talk.session_id, "started_at": talk.started_at.strftime("%Y-%m-%dT%H:%M:%SZ")}
    return json.dumps({**doc, "summary": talk.summary, "candidates": []}).encode()


def directive(**kw: object) -> Memory:
    values: dict[str, object] = {"type": MemoryType.DIRECTIVE, "authority": Authority.USER_EXPLICIT}
    values.update(kw)
    return memory(**values)


class World:
    """A family on the local adapters with the patcher listening, and a compiled brief."""

    def __init__(
        self,
        root: Path,
        clock: FixedClock,
        memories: list[Memory],
        entities: list[Entity] = (),  # type: ignore[assignment]
        talk: LastConversation | None = None,
        settings: FamilySettings = LA,
        adapters: Adapters | None = None,
    ) -> None:
        adapters = adapters or local_adapters(root, clock)
        self.store, self.clock, self.catalog = adapters.store, clock, adapters.catalog
        if settings is not LA:
            save_family(self.store, settings)
        self.patcher = BriefPatcher(self.store, adapters.catalog, skip_actors={"process:dream"})
        self.writer = FamilyWriter(adapters.store, adapters.catalog, clock, listeners=[self.patcher])
        if memories or entities:
            self.writer.apply(
                change_set(
                    *(MemoryWrite(action=Action.ADD, memory=m) for m in memories),
                    entities=[EntityWrite(entity=e) for e in entities],
                )
            )
        self.settings, self.entities, self.talk = settings, list(entities), talk
        if talk is not None:  # the member's session, as formation left it, for the patcher to read again
            self.store.put(FAMILY, candidates_path(talk.session_id), candidates_file(talk))
        self.store.put(FAMILY, BRIEF, serialise_brief(self.compiled()))

    def compiled(self) -> Brief:
        """What a recompile would write now."""
        rows = list(self.catalog.all_rows(FAMILY))
        talks = [self.talk] if self.talk else []
        return compile_brief(rows, self.settings, self.entities, talks, read_suppressions(self.store, FAMILY))

    def conversation(self, member_id: str = "lucia") -> list[str]:
        """The last-conversation lines ``member_id`` is served."""
        return [line.text for line in self.brief().served(member_id).last_conversation]

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
    patcher = BriefPatcher(adapters.store, adapters.catalog)
    writer = FamilyWriter(adapters.store, adapters.catalog, clock, listeners=[patcher])
    m = directive(id=new_ulid())
    writer.apply(change_set(MemoryWrite(action=Action.ADD, memory=m)))
    writer.apply(change_set(update(m, Action.RETRACT, status=Status.RETRACTED)))
    assert not adapters.store.exists(FAMILY, BRIEF) and patcher.failures == 0


# --- forgetting reaches every line at once: topics, people, the last conversation ----------

RIVERAS = FamilySettings(
    family_id=FAMILY, time_zone="America/Los_Angeles", members=[Member(id="lucia", name="Lucía Rivera")]
)
NOW = datetime(2026, 11, 20, tzinfo=UTC)


def person(name: str, relationship: str | None = None, *aliases: str) -> Entity:
    return Entity(
        id=new_ulid(),
        type=EntityKind.PERSON,
        name=name,
        relationship=relationship,
        aliases=list(aliases),
        created_at=NOW,
    )


def topics(world: World) -> list[str]:
    return world.texts(Section.TOPICS)


def test_forget_drops_the_memorys_topic_count_at_once(tmp_path: Path, clock: FixedClock) -> None:
    soccer = [memory(about="Soccer", summary=f"Soccer fact {i}.") for i in range(2)]
    piano = memory(about="Piano", summary="Leo has piano on Tuesdays.")
    world = World(tmp_path, clock, [*soccer, piano], settings=RIVERAS)
    assert topics(world) == ["Soccer (2 memories)", "Piano (1 memory)"]
    forget_memory(world.writer, FAMILY, soccer[0].id, "lucia")
    assert topics(world) == ["Piano (1 memory)", "Soccer (1 memory)"]  # equal counts: by name
    forget_memory(world.writer, FAMILY, piano.id, "lucia")
    assert topics(world) == ["Soccer (1 memory)"]
    assert world.brief() == world.compiled()  # the patch is what a recompile would write


def test_forgetting_everything_about_a_person_removes_their_lines_at_once(tmp_path: Path, clock: FixedClock) -> None:
    maya = person("Maya", "daughter", "my daughter", "Sofia")
    about_maya = [
        memory(about="Maya", summary="Maya is our daughter; she is my daughter Sofia to Lu.", applies_to=[maya.id]),
        memory(about="Maya's soccer", summary="Maya plays soccer.", applies_to=[maya.id]),
    ]
    world = World(tmp_path, clock, [*about_maya, memory(about="Pizza night")], [maya], settings=RIVERAS)
    assert "Maya (daughter); also called my daughter, Sofia" in world.texts(Section.IDENTITY)
    assert "Maya (daughter): likes and dislikes, soccer (2 memories)" in topics(world)
    forget_group(world.writer, FAMILY, GroupSelector(entity="Maya"), "lucia", expected_count=2)
    text = render_brief(world.brief())
    assert "Maya" not in text and "daughter" not in text and "Sofia" not in text
    assert topics(world) == ["Pizza night (1 memory)"]
    assert world.brief() == world.compiled()


def test_forgetting_the_memory_that_stated_a_relationship_hides_it_at_once(tmp_path: Path, clock: FixedClock) -> None:
    rosa = person("Rosa", "grandmother", "Abuela")
    stated = memory(
        about="Rosa", summary="Rosa is Lucía's grandmother; the kids call her Abuela.", applies_to=[rosa.id]
    )
    visits = memory(about="Sunday visits", summary="Rosa visits on Sundays.", applies_to=[rosa.id])
    world = World(tmp_path, clock, [stated, visits], [rosa], settings=RIVERAS)
    assert "Rosa (grandmother); also called Abuela" in world.texts(Section.IDENTITY)
    forget_memory(world.writer, FAMILY, stated.id, "lucia")
    assert "Rosa (person)" in world.texts(Section.IDENTITY) and "Rosa: Sunday visits (1 memory)" in topics(world)
    assert "grandmother" not in render_brief(world.brief()) and "Abuela" not in render_brief(world.brief())


def test_forgetting_the_memory_that_said_an_entitys_line_brings_the_line_back_at_once(
    tmp_path: Path, clock: FixedClock
) -> None:
    rosa = person("Rosa", "grandmother")
    said = memory(
        type=MemoryType.RELATIONSHIP, about="Rosa", summary="Rosa is the kids' grandmother.", applies_to=[rosa.id]
    )
    visits = memory(about="Sunday visits", summary="Rosa, their grandmother, visits on Sundays.", applies_to=[rosa.id])
    world = World(tmp_path, clock, [said, visits], [rosa], settings=RIVERAS)
    assert world.texts(Section.IDENTITY) == ["Lucía Rivera (adult)", "Rosa is the kids' grandmother."]
    assert topics(world) == ["Rosa (grandmother): relationships, Sunday visits (2 memories)"]
    forget_memory(world.writer, FAMILY, said.id, "lucia")
    assert world.texts(Section.IDENTITY) == ["Lucía Rivera (adult)", "Rosa (grandmother)"]
    assert world.brief() == world.compiled()


def test_a_supersede_by_formation_keeps_the_topic_count_and_replaces_the_line(
    tmp_path: Path, clock: FixedClock
) -> None:
    old = directive(about="Team chat", summary="Ask before posting to the team chat.")
    world = World(tmp_path, clock, [old])
    new = directive(about="Team chat", summary="Ask Lu before posting to the team chat.", supersedes=old.id)
    world.writer.apply(
        change_set(
            update(old, Action.SUPERSEDE, status=Status.SUPERSEDED, superseded_by=new.id),
            MemoryWrite(action=Action.ADD, memory=new),
            actor="process:reconcile",
        )
    )
    assert world.texts() == [new.summary] and topics(world) == ["Team chat (1 memory)"]


def test_forget_drops_a_last_conversation_that_names_it_at_once(tmp_path: Path, clock: FixedClock) -> None:
    piano = memory(about="Leo's piano lessons", summary="Leo has piano on Tuesdays.")
    pizza = memory(about="Pizza night")
    talk = LastConversation("sess-9", NOW, "Moved Leo's piano lessons to Thursday.", members=("lucia",))
    world = World(tmp_path, clock, [piano, pizza], talk=talk, settings=RIVERAS)
    assert world.conversation() == [talk.summary]
    forget_memory(world.writer, FAMILY, pizza.id, "lucia")
    assert world.conversation() == [talk.summary]  # it does not name pizza night
    forget_memory(world.writer, FAMILY, piano.id, "lucia")
    assert world.conversation() == []
    assert world.brief() == world.compiled()  # and a recompile keeps it out


def test_a_forget_rule_for_a_person_drops_a_last_conversation_naming_them(tmp_path: Path, clock: FixedClock) -> None:
    maya = person("Maya", None, "Mayita")
    talk = LastConversation("sess-9", NOW, "Mayita has a cold; Lu will call school.", members=("lucia",))
    world = World(tmp_path, clock, [memory(about="Pizza night")], [maya], talk=talk, settings=RIVERAS)
    assert world.conversation() == [talk.summary]
    rule = Suppression(
        id=new_ulid(), scope=SuppressionScope.ENTITY, entity_id=maya.id, created_at=NOW, created_by="human:lucia"
    )
    world.writer.apply(change_set(suppressions=[rule], actor="human:lucia"))  # a group with no memory left
    assert world.conversation() == []
    assert world.brief() == world.compiled()


def test_a_formation_supersede_and_a_forget_patch_the_brief_on_both_adapter_sets(
    tmp_path: Path, adapters: Adapters
) -> None:
    rosa = person("Rosa", "grandmother")
    stated = memory(about="Rosa", summary="Rosa is Lucía's grandmother.", applies_to=[rosa.id])
    old = directive(about="Team chat", summary="Ask before posting to the team chat.", applies_to=[rosa.id])
    world = World(tmp_path, adapters.clock, [stated, old], [rosa], settings=RIVERAS, adapters=adapters)
    new = directive(about="Team chat", summary="Ask Lu before posting to the team chat.", supersedes=old.id)
    world.writer.apply(
        change_set(
            update(old, Action.SUPERSEDE, status=Status.SUPERSEDED, superseded_by=new.id),
            MemoryWrite(action=Action.ADD, memory=new),
            actor="process:reconcile",
        )
    )
    assert new.summary in world.texts() and old.summary not in world.texts()
    forget_memory(world.writer, FAMILY, stated.id, "lucia")
    assert "Rosa" not in render_brief(world.brief())  # no briefable memory applies to her any more
    assert world.patcher.failures == 0 and world.brief() == world.compiled()
