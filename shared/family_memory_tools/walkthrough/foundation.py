"""Chapter 1: the files, the catalog and the write protocol."""

from __future__ import annotations

from datetime import timedelta

from family_memory.card.operations import MemoryDraft
from family_memory.domain.changes import Action, ChangeSet, MemoryWrite
from family_memory.domain.errors import StaleRevisionError
from family_memory.domain.ids import new_ulid
from family_memory.domain.layout import evidence_path, memory_path
from family_memory.domain.memory import Memory, MemoryType, Strength
from family_memory.families import save_family
from family_memory.writes.projections import check_catalog, rebuild_catalog
from family_memory.writes.protocol import FamilyWriter
from family_memory_tools.walkthrough.context import WalkContext, quiet_log, the_riveras


def _one_write(
    ctx: WalkContext, actor: str, reason: str, action: Action, memory: Memory, expected_revision: int
) -> ChangeSet:
    """A change set of one write to a memory already on file (it forms none: formation and the
    card do that), for showing what the write protocol does with it."""
    write = MemoryWrite(action=action, memory=memory, expected_revision=expected_revision)
    return ChangeSet(
        id=new_ulid(), family_id=ctx.family_id, actor=actor, reason=reason, created_at=ctx.clock.now(), memories=[write]
    )


def run(ctx: WalkContext) -> None:
    runtime, family_id, now = ctx.runtime, ctx.family_id, ctx.clock.now()
    ctx.chapter("1. Files are the truth: one claim per file, written under a lease")

    ctx.step("The Rivera family (invented) gets a settings file: time zone and members.")
    settings = the_riveras(family_id)
    save_family(runtime.store, settings)
    ctx.say(f"wrote {ctx.place('family.json')}")

    ctx.step("Lucía adds a standing rule on the memory card: one change set through the write protocol.")
    draft = MemoryDraft(
        type=MemoryType.DIRECTIVE,
        about="Soccer team group chat",
        summary="Ask before sending anything to the soccer team group chat.",
        when_to_use="Any request to message, post to, or reply in the soccer group chat",
        strength=Strength.HARD,
        body="Always show the draft and wait for a yes before anything goes to the soccer team group chat.",
    )
    directive = runtime.card.add(family_id, "lucia", draft)
    ctx.say(f"the claim:    {ctx.place(memory_path(directive.id))}")
    ctx.show(ctx.family_path(memory_path(directive.id)).read_text(), limit=0)
    ctx.say(f"its evidence: {ctx.place(evidence_path(directive.id))}")
    ctx.show(ctx.family_path(evidence_path(directive.id)).read_text())

    ctx.step("The same add sent again (a retried request, the same memory id) changes nothing.")
    tags = {p: runtime.store.read(family_id, p).tag for p in runtime.store.list(family_id)}
    runtime.card.add(family_id, "lucia", draft, memory_id=directive.id)
    untouched = tags == {p: runtime.store.read(family_id, p).tag for p in runtime.store.list(family_id)}
    ctx.say(f"already applied: {untouched}; files untouched")

    ctx.step("Every write checks the revision it read: a change decided on a stale read is refused.")
    # A reinforcement moves the memory to revision 2 (written here by hand: it forms nothing).
    reinforced = directive.evolve(revision=2, reinforcement_count=1, last_reinforced_at=now + timedelta(minutes=5))
    why = "walk-through: a reinforcement, to move the revision on"
    runtime.writer.apply(_one_write(ctx, "process:walkthrough", why, Action.REINFORCE, reinforced, 1))
    stale = directive.evolve(revision=2, summary="Never post to the soccer chat.")
    stale_edit = _one_write(ctx, "human:marco", "an edit made against revision 1", Action.UPDATE, stale, 1)
    try:
        runtime.writer.apply(stale_edit)
    except StaleRevisionError as exc:
        ctx.say(f"refused: {exc}")

    ctx.step("A writer dies half-way through a change set; the next writer completes it.")
    widened = reinforced.evolve(
        revision=3, when_to_use="Any request to message, post to, reply in or share to the soccer group chat"
    )
    crashed = _one_write(
        ctx, "process:walkthrough", "walk-through: a change set interrupted by a crash", Action.UPDATE, widened, 2
    )
    dying = FamilyWriter(runtime.store, runtime.catalog, ctx.clock, lease_ttl=timedelta(seconds=30))
    lease = runtime.catalog.acquire_lease(family_id, dying.holder, dying.lease_ttl)
    runtime.catalog.record_intent(family_id, crashed.id, crashed.model_dump_json(), lease=lease)
    ctx.detail("the dying writer recorded its intent, then stopped (the file not written, its lease still held)")
    ctx.clock.advance(timedelta(seconds=31))
    with quiet_log("family_memory.writes"), runtime.writer.open(family_id) as session:
        ctx.say(f"the next writer took the lease (token {session.lease.token} > {lease.token}) and completed it")
        revision = session.read_memory(directive.id)[0].revision
    ctx.say(f"now on disk at revision {revision}: {ctx.place(memory_path(directive.id))}")
    written = directive

    ctx.step("The catalog is a projection: list newest first, check it against the files, rebuild it.")
    for row in runtime.catalog.list_rows(family_id).rows:
        ctx.detail(f"  {row.formed_at:%Y-%m-%d %H:%M}  {row.status.value:<7} r{row.revision}  {row.summary}")
    report = check_catalog(runtime.store, runtime.catalog, family_id)
    ctx.say(f"catalog check: {' '.join(' '.join(report.lines()).split())}")
    lost = runtime.catalog.acquire_lease(family_id, "walkthrough-vandal", timedelta(seconds=5))
    runtime.catalog.delete_rows(family_id, [written.id], lease=lost)
    runtime.catalog.release_lease(lost)
    lost_row = check_catalog(runtime.store, runtime.catalog, family_id).lines()[1:]
    ctx.say(f"after losing a row: {' '.join(' '.join(lost_row).split())}")
    rebuilt = rebuild_catalog(runtime.writer, family_id).lines()[1:]
    ctx.say(f"after `family-memory catalog rebuild`: {' '.join(' '.join(rebuilt).split())}")
