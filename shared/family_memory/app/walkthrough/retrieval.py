"""Chapter: the search index, turn-level lookups and the agent's read tools."""

from __future__ import annotations

import json
from datetime import date, timedelta
from typing import Any

from family_memory.adapters.local.embedded_index import stem
from family_memory.app.walkthrough.context import WalkContext
from family_memory.domain.changes import Action, ChangeSet, MemoryWrite
from family_memory.domain.evidence import EvidenceRecord
from family_memory.domain.family import Surface
from family_memory.domain.ids import new_ulid
from family_memory.domain.layout import session_path
from family_memory.domain.memory import Authority, Memory, MemoryType, Sensitivity, Status
from family_memory.retrieval.lookup import LookupResult
from family_memory.retrieval.query_words import STOPWORDS, words
from family_memory.retrieval.service import Retrieval

SESSION = "sess-walkthrough-retrieval"
TURNS = [
    ("user", "lucia", "Maya got her braces on today. Dr. Patel wants to see her every six weeks."),
    ("assistant", None, "Got it. Is Dr. Patel the orthodontist on Elm Street?"),
    ("user", "lucia", "Yes, the orthodontist on Elm Street. Mornings work best for us."),
    ("user", "marco", "Leo has piano with Ms. Okonkwo on Wednesdays at 4."),
    ("user", "lucia", "Leo is allergic to peanuts, so no peanut snacks at his piano lesson please."),
    ("user", "marco", "The Thanksgiving potluck sign-up closes on the 25th."),
]
# (turns cited, type, about, summary, days ago, extra fields)
MEMORIES: list[tuple[str, MemoryType, str, str, int, dict[str, Any]]] = [
    (
        "1-3",
        MemoryType.FACT,
        "Maya's orthodontist",
        "Maya sees Dr. Patel, the orthodontist on Elm Street, every six weeks; mornings work best.",
        21,
        {},
    ),
    ("4", MemoryType.FACT, "Leo's piano lessons", "Leo has piano with Ms. Okonkwo on Wednesdays at 4 pm.", 9, {}),
    (
        "5",
        MemoryType.CONSTRAINT,
        "Leo's allergy",
        "Leo is allergic to peanuts: no peanut snacks.",
        9,
        {"sensitivity": Sensitivity.HEALTH},
    ),
    (
        "6",
        MemoryType.FACT,
        "Potluck sign-up",
        "The Thanksgiving potluck sign-up closes on November 25.",
        30,
        {"valid_until": date(2026, 11, 25)},
    ),
]


def _seed(ctx: WalkContext) -> dict[str, Memory]:
    family_id, now = ctx.family_id, ctx.clock.now()
    started = now - timedelta(days=21)
    transcript = {
        "family_id": family_id,
        "session_id": SESSION,
        "surface": "chat",
        "started_at": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "time_zone": "America/Los_Angeles",
        "turns": [
            {"n": n, "role": role, **({"member_id": member} if member else {}), "text": text}
            for n, (role, member, text) in enumerate(TURNS, start=1)
        ],
    }
    ctx.runtime.store.put(family_id, session_path(SESSION), json.dumps(transcript, indent=2).encode())
    memories: dict[str, Memory] = {}
    writes = []
    for turns, kind, about, summary, days, extra in MEMORIES:
        formed = now - timedelta(days=days)
        memory = Memory(
            id=new_ulid(),
            type=kind,
            about=about,
            summary=summary,
            authority=Authority.USER_EXPLICIT,
            confidence=1.0,
            formed_at=formed,
            last_reinforced_at=formed,
            body=summary,
            **extra,
        )
        first = int(turns.split("-")[0])
        quote = TURNS[first - 1][2].split(".")[0]
        evidence = EvidenceRecord.model_validate(
            {"ref": f"conv://{family_id}/{SESSION}#turn={turns}", "quote": quote, "recordedAt": formed}
        )
        memories[about] = memory
        writes.append(MemoryWrite(action=Action.ADD, memory=memory, evidence=[evidence]))
    ctx.runtime.writer.apply(
        ChangeSet(
            id=new_ulid(),
            family_id=family_id,
            actor="process:walkthrough",
            reason="walk-through: retrieval",
            created_at=now,
            memories=writes,
        )
    )
    return memories


def _lookup(ctx: WalkContext, retrieval: Retrieval, message: str, surface: Surface = Surface.CHAT) -> LookupResult:
    result = retrieval.lookup.lookup(ctx.family_id, message, surface)
    ctx.say(f'user ({surface.value}): "{message}"')
    ctx.show(result.block or "(nothing placed in the turn)")
    ctx.say(f"   {len(result.items)} items, {result.tokens} tokens (caps: 5 items, 300 tokens)")
    for item in result.items:
        ctx.say(f"   found by {item.via}: {item.row.about}")
    return result


def _shared_words(message: str, memory: Memory) -> set[str]:
    """The message's words that the memory also holds, compared as the keyword search
    compares them (case-folded, stemmed, stop words left out)."""
    text = " ".join((memory.about, memory.summary, memory.when_to_use, memory.body))
    held = {stem(w) for w in words(text)}
    return {w for w in words(message) if w not in STOPWORDS and stem(w) in held}


def run(ctx: WalkContext) -> None:
    runtime, family_id = ctx.runtime, ctx.family_id
    retrieval = runtime.retrieval
    assert retrieval is not None, "local mode always wires retrieval"
    ctx.chapter("3. Carry little, find the rest: the search index, turn-level lookups and the read tools")

    ctx.step("Four memories arrive through the write protocol, citing a conversation from three weeks ago.")
    memories = _seed(ctx)
    delivered = runtime.drain()
    ctx.say(f"each memories/*.md write raised an Object Created event; the indexer handled {delivered} of them,")
    ctx.say("re-reading each file and embedding about + summary + when_to_use with the offline MiniLM model.")
    ctx.show("\n".join(retrieval.indexer.check(family_id).lines()))

    ctx.step("Turn-level lookups: meaning and words searched together, interleaved, confirmed against the catalog.")
    ortho, piano = memories["Maya's orthodontist"], memories["Leo's piano lessons"]
    synonym = "who fixes the kids teeth?"
    found = {item.row.id: item.via for item in _lookup(ctx, retrieval, synonym).items}
    ctx.say(
        f"   words the message shares with the orthodontist memory: {sorted(_shared_words(synonym, ortho)) or 'none'};"
        f" it was found by {found.get(ortho.id, 'nothing')}: the embedding puts teeth near an orthodontist."
    )
    misspelt = "is pianno still on?"
    found = {item.row.id: item.via for item in _lookup(ctx, retrieval, misspelt).items}
    ctx.say(
        f"   words the message shares with the piano memory: {sorted(_shared_words(misspelt, piano)) or 'none'};"
        f" it was found by {found.get(piano.id, 'nothing')}: 'pianno' is one edit from 'piano', which the keyword"
        " search tolerates."
    )
    _lookup(ctx, retrieval, "did we sign up for the potluck?")
    ctx.say("   the potluck memory was valid until November 25, which has passed in Los Angeles: not eligible.")

    ctx.step("The household thread (read by everyone) gets no sensitive memories; private chat does, marked.")
    _lookup(ctx, retrieval, "Leo's piano lesson snacks", Surface.CHAT)
    _lookup(ctx, retrieval, "Leo's piano lesson snacks", Surface.HOUSEHOLD)

    ctx.step("A memory forgotten a moment ago never comes back, even before the index hears about it.")
    forget = ChangeSet(
        id=new_ulid(),
        family_id=family_id,
        actor="human:marco",
        reason="forget from the card",
        created_at=ctx.clock.now(),
        memories=[
            MemoryWrite(
                action=Action.RETRACT, memory=piano.evolve(revision=2, status=Status.RETRACTED), expected_revision=1
            )
        ],
    )
    runtime.writer.apply(forget)
    held = retrieval.index.get(family_id, [piano.id])[piano.id].status.value
    result = retrieval.lookup.lookup(family_id, "when is Leo's piano lesson?")
    ctx.say(f"the index still says {held!r}; the lookup asked the catalog and dropped it: {result.dropped}")
    runtime.drain()
    now_held = retrieval.index.get(family_id, [piano.id])[piano.id].status.value
    ctx.say(f"after the event is delivered the index says {now_held!r}")

    ctx.step("The read tools (Bedrock Converse toolSpec form; none of them writes).")
    tools = retrieval.tools(family_id)
    ortho = memories["Maya's orthodontist"]
    ctx.say(f"read_memory memory://{family_id}/{ortho.id}")
    ctx.show(tools.run("read_memory", {"ref": f"memory://{family_id}/{ortho.id}"}).text)
    ref = f"conv://{family_id}/{SESSION}#turn=1-3"
    ctx.say(f"read_conversation_excerpt {ref}  (the evidence behind it: 'why do you think that?')")
    ctx.show(tools.run("read_conversation_excerpt", {"ref": ref}).text)
    ctx.say("a reference to another family gets an error and no data:")
    ctx.show(tools.run("read_memory", {"ref": f"memory://fam-okafor/{ortho.id}"}).text)

    ctx.step("The index is a projection: lose it, rebuild it from the files, get the same documents.")
    before = list(retrieval.index.documents(family_id))
    retrieval.index.delete(family_id, [doc.memory_id for doc in before])
    ctx.say(f"every document deleted; the index now holds {len(retrieval.index.revisions(family_id))}")
    report = retrieval.indexer.rebuild(family_id)
    ctx.show("\n".join(report.lines()))
    ctx.say(
        f"embeddings computed during the rebuild: {report.embeddings_computed} (all came from the content-hash cache); "
        f"documents identical to before: {list(retrieval.index.documents(family_id)) == before}"
    )
