"""Turn-level retrieval on the local runtime: the embedded index, the offline
embedder, memories written through the write protocol, events delivered by
the in-process bus."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from factories import FAMILY, OTHER_FAMILY
from family_memory.adapters.local.embedded_index import stem
from family_memory.app.runtime import Runtime
from family_memory.brief.render import render_brief
from family_memory.domain.changes import Action
from family_memory.domain.clock import FixedClock
from family_memory.domain.family import Surface
from family_memory.domain.ids import new_ulid
from family_memory.domain.memory import Authority, MemoryType, Sensitivity, Status
from family_memory.domain.tokens import count_tokens
from family_memory.lifecycle.dream import compile_family
from family_memory.retrieval.embedding import Embedder, EmbeddingUnavailableError, Vector
from family_memory.retrieval.lookup import LOOKUP_CLOSE, LOOKUP_OPEN
from family_memory.retrieval.query_words import STOPWORDS, words
from family_memory.retrieval.search_index import SearchFilter
from retrieval_helpers import change, fact, local_runtime, remember, retrieval_of, set_zone

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.fixture
def runtime(tmp_path: Path) -> Runtime:
    return local_runtime(tmp_path, FixedClock(NOW))


def found(runtime: Runtime, message: str, family_id: str = FAMILY, **kw: object) -> list[str]:
    result = retrieval_of(runtime).lookup.lookup(family_id, message, **kw)  # type: ignore[arg-type]
    return [item.row.id for item in result.items]


# A family's memories, few of which a brief would carry: the answers live in the lookups.
HOUSEHOLD_FACTS = {
    "coach": ("Coach Alvarez runs Maya's Saturday soccer practice.", "Soccer coach"),
    "pharmacy": ("Prescriptions are picked up at the Walgreens on 5th Street.", "Pharmacy"),
    "camp": ("Last spring Maya went to Camp Kinnikinnick by the lake.", "Summer camp"),
    "ortho": ("Maya sees Dr. Patel, her orthodontist, every six weeks for her braces.", "Maya's orthodontist"),
    "allergy": ("Leo is allergic to peanuts; keep them out of his lunches.", "Leo's allergy"),
    "pizza": ("Friday is pizza night at home.", "Pizza night"),
    "piano": ("Leo has piano lessons with Ms. Okonkwo on Wednesdays.", "Piano lessons"),
    "car": ("The family car is a blue Subaru Outback due for service in March.", "Family car"),
    "grandma": ("Grandma Rosa lives in Tucson and visits every Thanksgiving.", "Grandma Rosa"),
    "bins": ("Recycling bins go out on Tuesday night.", "Recycling"),
}
QUESTIONS = {
    "what's the name of maya's soccer coach?": "coach",
    "which pharmacy do we use for prescriptions": "pharmacy",
    "where did Maya go to camp last spring?": "camp",
    "Book Maya a dentist appointment next week": "ortho",
    "can Leo have a peanut butter sandwich?": "allergy",
    "when are Leo's music lessons": "piano",
    "the car needs a check-up, what do we drive?": "car",
    "when is grandma coming to visit": "grandma",
    "what night do the recycling bins go out": "bins",
}


def seed_household(runtime: Runtime) -> dict[str, str]:
    # Facts mentioned in passing (not explicit statements or instructions): the brief
    # counts them under their topics and carries none of their lines.
    memories = {
        key: fact(summary, about, type=MemoryType.FACT, authority=Authority.USER_IMPLICIT)
        for key, (summary, about) in HOUSEHOLD_FACTS.items()
    }
    remember(runtime, *memories.values())
    return {key: m.id for key, m in memories.items()}


def compiled_brief(runtime: Runtime) -> str:
    lifecycle = runtime.lifecycle
    compile_family(lifecycle.deps, FAMILY, now=NOW)
    brief = runtime.brief.loader.load(FAMILY, now=NOW)
    assert brief is not None
    return render_brief(brief)


def test_answers_that_live_only_in_memories_are_found_for_each_question(runtime: Runtime) -> None:
    ids = seed_household(runtime)
    brief = compiled_brief(runtime)
    assert "Soccer coach (1 memory)" in brief  # the brief knows the topics...
    for question, key in QUESTIONS.items():
        assert f"memory://{FAMILY}/{ids[key]}" not in brief, key  # ...not the answers
        assert HOUSEHOLD_FACTS[key][0] not in brief, key
        assert ids[key] in found(runtime, question), question


def test_a_message_sharing_no_word_with_its_memory_is_found_by_meaning_alone(runtime: Runtime) -> None:
    ids = seed_household(runtime)
    message = "who fixes the kids teeth?"
    memory_words = {stem(w) for w in words(" ".join(HOUSEHOLD_FACTS["ortho"]))}
    assert not {stem(w) for w in words(message) if w not in STOPWORDS} & memory_words
    result = retrieval_of(runtime).lookup.lookup(FAMILY, message)
    assert result.items[0].row.id == ids["ortho"]
    assert result.items[0].via == "semantic"


def test_a_misspelled_query_still_finds_its_memory(runtime: Runtime) -> None:
    ids = seed_household(runtime)
    keyword = retrieval_of(runtime).index.keyword
    from family_memory.retrieval.search_index import SearchFilter

    hits = keyword(FAMILY, "Kinikinnick", SearchFilter.current(date(2026, 11, 30)), 5)
    assert [h.memory_id for h in hits] == [ids["camp"]]
    assert ids["camp"] in found(runtime, "what was the name of camp Kinikinnick?")
    assert ids["ortho"] in found(runtime, "is Dr Pattel an orthodontsit?")
    # Only the misspelling connects this message to the piano memory: the keyword
    # engine's tolerance found it.
    result = retrieval_of(runtime).lookup.lookup(FAMILY, "is pianno still on?")
    via = {item.row.id: item.via for item in result.items}
    assert via[ids["piano"]] in ("keyword", "both")


def test_an_unusual_word_finds_the_memory_that_uses_it(runtime: Runtime) -> None:
    ids = seed_household(runtime)
    assert found(runtime, "Okonkwo")[0] == ids["piano"]


@pytest.mark.parametrize(
    ("status", "action"),
    [
        (Status.EXPIRED, Action.EXPIRE),
        (Status.DORMANT, Action.DECAY),
        (Status.RETRACTED, Action.RETRACT),
        (Status.SUPERSEDED, Action.SUPERSEDE),
    ],
)
def test_memories_that_are_no_longer_current_never_come_back(runtime: Runtime, status: Status, action: Action) -> None:
    m = fact("Maya's orthodontist is Dr. Patel.", "Orthodontist")
    remember(runtime, m)
    assert found(runtime, "orthodontist") == [m.id]
    extra: dict[str, Any] = {"superseded_by": new_ulid()} if status is Status.SUPERSEDED else {}
    change(runtime, m, action, status=status, **extra)
    assert found(runtime, "orthodontist") == []
    assert found(runtime, "who is Maya's orthodontist, Dr. Patel?") == []


def test_expiry_follows_the_familys_local_date(tmp_path: Path) -> None:
    # Remembered on the 16th everywhere; no dream runs afterwards, so the catalog still
    # says active and only the lookup's own date check can drop the memory.
    clock = FixedClock(datetime(2026, 12, 16, 0, 0, tzinfo=UTC))
    m = fact("The school play rehearsal runs late until the 17th.", "School play", valid_until=date(2026, 12, 17))
    la = local_runtime(tmp_path / "la", clock)
    set_zone(la, "America/Los_Angeles")
    remember(la, m)
    nz = local_runtime(tmp_path / "nz", clock)
    set_zone(nz, "Pacific/Auckland")
    remember(nz, m)
    # 2026-12-17 06:00 UTC is still the 16th in Los Angeles, already the 17th in Auckland.
    clock.set(datetime(2026, 12, 17, 6, 0, tzinfo=UTC))
    assert la.catalog.get_rows(FAMILY, [m.id])[m.id].status is Status.ACTIVE
    assert nz.catalog.get_rows(FAMILY, [m.id])[m.id].status is Status.ACTIVE
    assert found(la, "school play rehearsal") == [m.id]
    assert found(nz, "school play rehearsal") == []


def test_another_familys_memories_never_come_back(runtime: Runtime) -> None:
    ours = fact("Our dentist is Dr. Chen on Main Street.", "Dentist")
    theirs = fact("The Okafor family dentist is Dr. Chen on Main Street.", "Dentist")
    remember(runtime, ours)
    remember(runtime, theirs, family_id=OTHER_FAMILY)
    assert found(runtime, "dentist Dr. Chen") == [ours.id]
    assert found(runtime, "Okafor family dentist", family_id=OTHER_FAMILY) == [theirs.id]
    similar = retrieval_of(runtime).similar.similar(FAMILY, "The Okafor family dentist is Dr. Chen")
    assert [row.id for row, _ in similar] == [ours.id]


def test_a_memory_forgotten_a_moment_ago_never_comes_back_while_the_index_still_holds_it(runtime: Runtime) -> None:
    m = fact("Maya's orthodontist is Dr. Patel.", "Orthodontist")
    remember(runtime, m)
    change(runtime, m, Action.RETRACT, drain=False, status=Status.RETRACTED)
    retrieval = retrieval_of(runtime)
    assert retrieval.index.get(FAMILY, [m.id])[m.id].status is Status.ACTIVE  # the index has not caught up
    result = retrieval.lookup.lookup(FAMILY, "Maya's orthodontist")
    assert result.items == [] and result.block == ""
    assert result.dropped == {m.id: "status is retracted"}
    runtime.drain()
    assert retrieval.index.get(FAMILY, [m.id])[m.id].status is Status.RETRACTED


def test_a_memory_edited_a_moment_ago_is_shown_as_the_catalog_has_it(runtime: Runtime) -> None:
    m = fact("Maya's orthodontist is Dr. Patel.", "Orthodontist")
    remember(runtime, m)
    change(runtime, m, drain=False, summary="Maya's orthodontist is Dr. Nguyen now.")
    result = retrieval_of(runtime).lookup.lookup(FAMILY, "Maya's orthodontist")
    assert [item.row.summary for item in result.items] == ["Maya's orthodontist is Dr. Nguyen now."]
    assert result.lagging == [m.id]


def test_the_block_is_capped_at_five_items_and_350_tokens(runtime: Runtime) -> None:
    # Short summaries: five lines (each a quoted summary, its age and date and a reference whose
    # random ULID takes 15 to 20 tokens) fit in 350 tokens whatever the ids.
    remember(runtime, *[fact(f"Soccer practice, note {n}.", "Soccer") for n in range(12)])
    result = retrieval_of(runtime).lookup.lookup(FAMILY, "soccer practice")
    assert len(result.items) == 5 and result.tokens <= 350
    assert result.tokens == count_tokens(result.block)
    tight = retrieval_of(runtime).lookup.lookup(FAMILY, "soccer practice", max_tokens=120)
    assert 0 < len(tight.items) < 5 and count_tokens(tight.block) <= 120
    assert len(retrieval_of(runtime).lookup.lookup(FAMILY, "soccer practice", max_items=2).items) == 2


def test_the_caps_are_configurable_through_settings(tmp_path: Path) -> None:
    runtime = local_runtime(tmp_path, FixedClock(NOW), lookup_max_items=3, lookup_max_tokens=1000)
    remember(runtime, *[fact(f"Soccer practice detail number {n}.", "Soccer") for n in range(8)])
    assert len(found(runtime, "soccer practice")) == 3


def test_each_line_gives_summary_age_in_words_and_reference_inside_a_candidates_block(runtime: Runtime) -> None:
    m = fact("Coach Alvarez runs <b>Saturday</b> practice.", "Coach", formed=NOW - timedelta(days=21))
    remember(runtime, m)
    result = retrieval_of(runtime).lookup.lookup(FAMILY, "who is the coach?")
    lines = result.block.split("\n")
    assert lines[0] == LOOKUP_OPEN and lines[-1] == LOOKUP_CLOSE
    assert "candidates to weigh, not facts to repeat" in lines[1]
    assert lines[2] == (
        '- "Coach Alvarez runs \\u003cb\\u003eSaturday\\u003c/b\\u003e practice." '
        f"(remembered 3 weeks ago, said 2026-11-09) memory://{FAMILY}/{m.id}"
    )


def test_nothing_is_placed_in_the_turn_when_nothing_is_relevant(runtime: Runtime) -> None:
    seed_household(runtime)
    result = retrieval_of(runtime).lookup.lookup(FAMILY, "xylophone quantum zeppelin")
    assert result.block == "" and result.items == []


def test_a_search_ranks_the_nearest_memories_below_the_floor_after_every_match(runtime: Runtime) -> None:
    ids = seed_household(runtime)
    lookup = retrieval_of(runtime).lookup
    message = "when are Leo's piano lessons"
    vector = lookup.embedder.embed_one(message)
    confirmed, _, _ = lookup.ranked(FAMILY, message, query_vector=vector)
    order = [row.id for row, _ in confirmed]
    matches = [item.row.id for item in lookup.lookup(FAMILY, message, max_items=20, max_tokens=2000).items]
    assert order[0] == ids["piano"] and matches[0] == ids["piano"]
    # The turn-level lookup shows the matches only; the search ranks them first, in the same order,
    # then the family's other memories nearest first, none of which either half matched.
    assert order[: len(matches)] == matches and len(order) == len(HOUSEHOLD_FACTS)
    floor = lookup.embedder.relevance_floor
    current = SearchFilter.current(NOW.date())
    cosine = {h.memory_id: h.score for h in retrieval_of(runtime).index.semantic(FAMILY, vector, current, 20)}
    keyword = {h.memory_id for h in retrieval_of(runtime).index.keyword(FAMILY, message, current, 20)}
    tail = order[len(matches) :]
    assert tail and all(cosine[m] < floor and m not in keyword for m in tail)
    assert [cosine[m] for m in tail] == sorted((cosine[m] for m in tail), reverse=True)
    assert all(via == "semantic" for _, via in confirmed[len(matches) :])
    # Nothing matched: nothing is ranked, so search_memory still says "(no memory matches)".
    assert lookup.ranked(FAMILY, "xylophone quantum zeppelin")[0] == []


def test_household_surface_gets_no_sensitive_memories(runtime: Runtime) -> None:
    allergy = fact("Leo is allergic to peanuts.", "Leo's allergy", sensitivity=Sensitivity.HEALTH)
    pizza = fact("Friday is pizza night; Leo's slice has no peanuts.", "Pizza night")
    remember(runtime, allergy, pizza)
    private = retrieval_of(runtime).lookup.lookup(FAMILY, "Leo peanuts")
    assert {i.row.id for i in private.items} == {allergy.id, pizza.id}
    assert "[sensitive: health; use only for this task]" in private.block
    shared = retrieval_of(runtime).lookup.lookup(FAMILY, "Leo peanuts", Surface.HOUSEHOLD)
    assert [i.row.id for i in shared.items] == [pizza.id]


def test_an_empty_message_looks_nothing_up(runtime: Runtime) -> None:
    seed_household(runtime)
    assert retrieval_of(runtime).lookup.lookup(FAMILY, "   ").block == ""


class ThrottledEmbedder(Embedder):
    model_id = "test/throttled"
    dimension = 384

    def _embed(self, texts: Sequence[str]) -> list[Vector]:
        raise EmbeddingUnavailableError("Bedrock embedding failed (ThrottlingException)")


def test_a_failing_embedder_costs_the_turn_its_semantic_half_not_its_lookup(runtime: Runtime) -> None:
    ids = seed_household(runtime)
    lookup = retrieval_of(runtime).lookup
    lookup.embedder = ThrottledEmbedder()
    assert [i.row.id for i in lookup.lookup(FAMILY, "Okonkwo").items] == [ids["piano"]]
