"""Chapter: the search index, turn-level lookups and the agent's read tools."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from family_memory.adapters.local.embedded_index import stem
from family_memory.domain.family import Surface
from family_memory.domain.memory import Authority, Memory, MemoryType, Sensitivity
from family_memory.formation.extraction import SuppliedCandidates
from family_memory.retrieval.lookup import LookupResult
from family_memory.retrieval.query_words import STOPWORDS, words
from family_memory.retrieval.service import Retrieval
from family_memory_tools.walkthrough.context import WalkContext
from family_memory_tools.walkthrough.pipeline import ingest, memory_of, session_bytes

SESSION = "sess-walkthrough-retrieval"
TURNS = [
    ("user", "lucia", "Maya got her braces on today. Dr. Patel wants to see her every six weeks."),
    ("assistant", None, "Got it. Is Dr. Patel the orthodontist on Elm Street?"),
    ("user", "lucia", "Yes, the orthodontist on Elm Street. Mornings work best for us."),
    ("user", "marco", "Leo has piano with Ms. Okonkwo on Wednesdays at 4."),
    ("user", "lucia", "Leo is allergic to peanuts, so no peanut snacks at his piano lesson please."),
    ("user", "marco", "The Thanksgiving potluck sign-up closes on the 25th."),
]
# (cited turns and their words, type, about, summary, extra fields): what a batch job
# proposed for the session.
MEMORIES: list[tuple[list[tuple[int, str]], MemoryType, str, str, dict[str, Any]]] = [
    (
        [(1, "wants to see her every six weeks"), (3, "the orthodontist on Elm Street")],
        MemoryType.FACT,
        "Maya's orthodontist",
        "Maya sees Dr. Patel, the orthodontist on Elm Street, every six weeks; mornings work best.",
        {},
    ),
    (
        [(4, "Leo has piano with Ms. Okonkwo on Wednesdays at 4")],
        MemoryType.FACT,
        "Leo's piano lessons",
        "Leo has piano with Ms. Okonkwo on Wednesdays at 4 pm.",
        {},
    ),
    (
        [(5, "Leo is allergic to peanuts")],
        MemoryType.CONSTRAINT,
        "Leo's allergy",
        "Leo is allergic to peanuts: no peanut snacks.",
        {"sensitivity": Sensitivity.HEALTH.value},
    ),
    (
        [(6, "The Thanksgiving potluck sign-up closes on the 25th")],
        MemoryType.FACT,
        "Potluck sign-up",
        "The Thanksgiving potluck sign-up closes on November 25.",
        {"valid_until": "2026-11-25"},
    ),
]


def _seed(ctx: WalkContext) -> dict[str, Memory]:
    """The session three weeks ago, through the pipeline, with the candidates a batch job supplied."""
    family_id, now = ctx.family_id, ctx.clock.now()
    candidates = [
        {
            "type": kind.value,
            "about": about,
            "summary": summary,
            "body": summary,
            "authority": Authority.USER_EXPLICIT.value,
            "confidence": 1.0,
            "evidence": [{"turns": [n], "quote": quote} for n, quote in cited],
            **extra,
        }
        for cited, kind, about, summary, extra in MEMORIES
    ]
    data = session_bytes(family_id, SESSION, now - timedelta(days=21), TURNS)
    document = ingest(ctx, data, SuppliedCandidates(candidates, producer="walkthrough-batch"), quiet=True)
    memories: dict[str, Memory] = {}
    with ctx.runtime.writer.open(family_id) as session:
        for _, _, about, summary, _ in MEMORIES:
            memories[about] = session.read_memory(memory_of(document, summary))[0]
    return memories


def _lookup(ctx: WalkContext, retrieval: Retrieval, message: str, surface: Surface = Surface.CHAT) -> LookupResult:
    result = retrieval.lookup.lookup(ctx.family_id, message, surface)
    ctx.say(f'user ({surface.value}): "{message}"')
    if ctx.verbose:
        ctx.show(result.block or "(nothing placed in the turn)")
        ctx.say(f"   {len(result.items)} items, {result.tokens} tokens (caps: 5 items, 300 tokens)")
        for item in result.items:
            ctx.say(f"   found by {item.via}: {item.row.about}")
    else:
        found = ", ".join(f"{item.row.about} ({item.via})" for item in result.items) or "nothing"
        ctx.say(f"   -> {found}")
    return result


def _why_found(ctx: WalkContext, retrieval: Retrieval, message: str, memory: Memory, label: str, why: str) -> None:
    """Look ``message`` up, then say which words it shares with ``memory`` and how it was found."""
    found = {item.row.id: item.via for item in _lookup(ctx, retrieval, message).items}
    shared = sorted(_shared_words(message, memory)) or "none"
    how = found.get(memory.id, "nothing")
    ctx.say(f"   words the message shares with the {label} memory: {shared}; it was found by {how}")
    ctx.detail(f"   {why}")


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

    ctx.step("A conversation from three weeks ago is ingested; four memories are formed from it.")
    memories = _seed(ctx)
    ctx.detail(
        "each memories/*.md write raised an Object Created event for the indexer, which re-read the file and "
        "embedded about + summary + when_to_use with the offline MiniLM model:"
    )
    ctx.show("\n".join(retrieval.indexer.check(family_id).lines()))

    ctx.step("Turn-level lookups: meaning and words searched together, interleaved, confirmed against the catalog.")
    ortho, piano = memories["Maya's orthodontist"], memories["Leo's piano lessons"]
    synonym = "who fixes the kids teeth?"
    _why_found(ctx, retrieval, synonym, ortho, "orthodontist", "the embedding puts teeth near an orthodontist.")
    misspelt = "is pianno still on?"
    why = "'pianno' is one edit from 'piano', which the keyword search tolerates."
    _why_found(ctx, retrieval, misspelt, piano, "piano", why)
    _lookup(ctx, retrieval, "did we sign up for the potluck?")
    ctx.say("   not the potluck: it was valid until November 25, which has passed in Los Angeles.")

    ctx.step("The household thread (read by everyone) gets no sensitive memories; private chat does, marked.")
    _lookup(ctx, retrieval, "Leo's piano lesson snacks", Surface.CHAT)
    _lookup(ctx, retrieval, "Leo's piano lesson snacks", Surface.HOUSEHOLD)

    ctx.step("A memory forgotten a moment ago never comes back, even before the index hears about it.")
    runtime.card.forget(family_id, piano.id, "marco", "forgotten from the memory card")
    held = retrieval.index.get(family_id, [piano.id])[piano.id].status.value
    result = retrieval.lookup.lookup(family_id, "when is Leo's piano lesson?")
    dropped = ", ".join(f"{memory_id}: {why}" for memory_id, why in result.dropped.items())
    ctx.say(f"the index still says {held!r}; the lookup asked the catalog: dropped ({dropped.split(': ')[-1]})")
    ctx.detail(f"   {dropped}")
    runtime.drain()
    now_held = retrieval.index.get(family_id, [piano.id])[piano.id].status.value
    ctx.say(f"after the event is delivered the index says {now_held!r}")

    ctx.step("The read tools (Bedrock Converse toolSpec form; none of them writes).")
    tools = retrieval.tools(family_id)
    ortho = memories["Maya's orthodontist"]
    ctx.say(f"read_memory memory://{family_id}/{ortho.id}")
    ctx.show(tools.run("read_memory", {"ref": f"memory://{family_id}/{ortho.id}"}).text, limit=0)
    ref = f"conv://{family_id}/{SESSION}#turn=1-3"
    ctx.say(f"read_conversation_excerpt {ref}")
    ctx.show(tools.run("read_conversation_excerpt", {"ref": ref}).text, limit=2)
    refused = tools.run("read_memory", {"ref": f"memory://fam-okafor/{ortho.id}"}).text
    ctx.say(
        f"a reference to another family gets an error and no data: {refused}"
        if ctx.verbose
        else f"another family's reference: {refused}"
    )

    if not ctx.step(
        "The index is a projection: lose it, rebuild it from the files, get the same documents.", verbose_only=True
    ):
        return
    before = list(retrieval.index.documents(family_id))
    retrieval.index.delete(family_id, [doc.memory_id for doc in before])
    ctx.say(f"every document deleted; the index now holds {len(retrieval.index.revisions(family_id))}")
    report = retrieval.indexer.rebuild(family_id)
    ctx.show("\n".join(report.lines()))
    ctx.say(
        f"embeddings computed during the rebuild: {report.embeddings_computed} (all came from the content-hash cache); "
        f"documents identical to before: {list(retrieval.index.documents(family_id)) == before}"
    )
