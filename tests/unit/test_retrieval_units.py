"""Pure parts of retrieval: fusion (reciprocal rank, interleaving), age in words, the filter rule,
the embedding cache in front of an embedder, and the offline embedders."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from factories import FAMILY, OTHER_FAMILY
from family_memory.adapters.local.embedding_cache import SQLiteEmbeddingCache
from family_memory.domain.errors import InvalidInputError
from family_memory.retrieval.age import age_in_words
from family_memory.retrieval.embedding import (
    CachedEmbeddings,
    Embedder,
    MemoryEmbeddingCache,
    Vector,
    content_hash,
)
from family_memory.retrieval.lookup import LookupSettings, interleave, reciprocal_rank_fusion
from family_memory.retrieval.query_words import MAX_QUERY_TEXT_CHARS, MAX_QUERY_WORDS, MAX_WORD_CHARS, query_words
from retrieval_helpers import hashed, minilm


def test_interleave_leads_with_top_semantic_then_keyword_then_the_rest() -> None:
    semantic = ["s1", "s2", "s3", "s4", "k2", "s5"]
    keyword = ["k1", "s2", "k2", "k3"]
    assert interleave(semantic, keyword, lead=3) == ["s1", "s2", "s3", "k1", "k2", "k3", "s4", "s5"]
    assert interleave([], keyword) == ["k1", "s2", "k2", "k3"]
    assert interleave(semantic[:2], []) == ["s1", "s2"]


def test_reciprocal_rank_fusion_puts_what_both_halves_found_first_then_goes_by_rank() -> None:
    semantic = ["s1", "both", "s3"]
    keyword = ["k1", "k2", "both"]
    # both: 1/62 + 1/63 beats any single list's top, 1/61; then the two tops, semantic first.
    assert reciprocal_rank_fusion(semantic, keyword) == ["both", "s1", "k1", "k2", "s3"]
    # A small k lets a single list's top beat a memory both halves rank lower down.
    assert reciprocal_rank_fusion(["s1", "s2", "s3", "x"], ["k1", "k2", "k3", "x"], k=1)[:2] == ["s1", "k1"]
    assert reciprocal_rank_fusion(["s1", "s2", "s3", "x"], ["k1", "k2", "k3", "x"], k=60)[0] == "x"


def test_reciprocal_rank_fusion_breaks_ties_by_first_appearance_taking_the_lists_in_turn() -> None:
    assert reciprocal_rank_fusion(["a", "b"], ["c", "d"]) == ["a", "c", "b", "d"]
    assert reciprocal_rank_fusion([], ["c", "d"]) == ["c", "d"]
    assert reciprocal_rank_fusion(["a"], []) == ["a"]
    assert reciprocal_rank_fusion([], []) == []
    # An id a list names twice counts once, at its first place.
    assert reciprocal_rank_fusion(["a", "a", "b"], ["b"]) == ["b", "a"]


def test_the_fusion_is_a_setting_and_an_unknown_one_is_refused() -> None:
    semantic, keyword = ["s1", "s2", "s3", "s4"], ["k1", "s4"]
    assert LookupSettings().fuse(semantic, keyword) == reciprocal_rank_fusion(semantic, keyword, 60)
    assert LookupSettings(fusion="interleave", semantic_lead=1).fuse(semantic, keyword) == [
        "s1",
        "k1",
        "s4",
        "s2",
        "s3",
    ]
    with pytest.raises(InvalidInputError, match="fusion must be one of"):
        LookupSettings(fusion="combsum")
    with pytest.raises(InvalidInputError, match="candidates_per_search"):
        LookupSettings(candidates_per_search=0)
    with pytest.raises(InvalidInputError, match="must not be negative"):
        LookupSettings(rrf_k=-1)


NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("formed", "words"),
    [
        (datetime(2026, 11, 30, 9, 0, tzinfo=UTC), "today"),
        (datetime(2026, 11, 29, 9, 0, tzinfo=UTC), "yesterday"),
        (datetime(2026, 11, 26, 9, 0, tzinfo=UTC), "4 days ago"),
        (datetime(2026, 11, 23, 9, 0, tzinfo=UTC), "a week ago"),
        (datetime(2026, 11, 9, 9, 0, tzinfo=UTC), "3 weeks ago"),
        (datetime(2026, 10, 25, 9, 0, tzinfo=UTC), "a month ago"),
        (datetime(2026, 5, 30, 9, 0, tzinfo=UTC), "6 months ago"),
        (datetime(2025, 11, 1, 9, 0, tzinfo=UTC), "a year ago"),
        (datetime(2023, 11, 1, 9, 0, tzinfo=UTC), "3 years ago"),
    ],
)
def test_age_is_said_in_words(formed: datetime, words: str) -> None:
    assert age_in_words(formed, NOW) == words


def test_age_counts_days_on_the_familys_calendar() -> None:
    # 05:00 UTC on the 30th is still the 29th in Los Angeles: formed "today" there, not yesterday.
    formed = datetime(2026, 11, 29, 23, 0, tzinfo=UTC)
    now = datetime(2026, 11, 30, 5, 0, tzinfo=UTC)
    assert age_in_words(formed, now, "UTC") == "yesterday"
    assert age_in_words(formed, now, "America/Los_Angeles") == "today"


class CountingEmbedder(Embedder):
    model_id = "test/counting"
    dimension = 2

    def __init__(self) -> None:
        self.seen: list[str] = []

    def _embed(self, texts: Sequence[str]) -> list[Vector]:
        self.seen.extend(texts)
        return [[1.0, 0.0] for _ in texts]


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_embeddings_are_paid_for_once_per_content_and_family(kind: str, tmp_path: Path) -> None:
    cache = MemoryEmbeddingCache() if kind == "memory" else SQLiteEmbeddingCache(tmp_path / "cache.sqlite3")
    embedder = CountingEmbedder()
    embeddings = CachedEmbeddings(embedder, cache)
    assert embeddings.vectors(FAMILY, ["a", "b", "a"]) == [[1.0, 0.0]] * 3
    assert embeddings.vectors(FAMILY, ["b", "a"]) == [[1.0, 0.0]] * 2
    assert embedder.seen == ["a", "b"] and embeddings.computed == 2
    embeddings.vectors(OTHER_FAMILY, ["a"])  # another family's cache is its own
    assert embedder.seen == ["a", "b", "a"]


def test_the_cache_key_depends_on_model_and_normalised_text() -> None:
    assert content_hash("m1", "a  b") == content_hash("m1", "a b")
    assert content_hash("m1", "a b") != content_hash("m2", "a b")


@pytest.mark.parametrize("embedder", [minilm, hashed], ids=["minilm", "hashed"])
def test_offline_embedders_give_deterministic_unit_vectors(embedder: object) -> None:
    e = embedder()  # type: ignore[operator]
    first, second = e.embed(["Maya's orthodontist is Dr. Patel.", "Friday is pizza night."])
    assert len(first) == e.dimension == 384
    assert math.isclose(sum(x * x for x in first), 1.0, rel_tol=1e-4)
    assert e.embed_one("Maya's orthodontist is Dr. Patel.") == pytest.approx(first, abs=1e-6)
    assert first != second


def test_minilm_knows_a_dentist_is_closer_to_an_orthodontist_than_to_pizza() -> None:
    e = minilm()
    query, ortho, pizza = e.embed(["a dentist appointment", "Maya sees her orthodontist for braces", "pizza night"])

    def cosine(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b, strict=True))

    assert cosine(query, ortho) > cosine(query, pizza) + 0.2


def test_the_minilm_model_loads_from_installed_packages_only() -> None:
    from family_memory.adapters.local.minilm_embedder import model_file, tokenizer_file

    assert model_file().is_file() and tokenizer_file().name == "tokenizer.json"


def test_a_model_or_tokenizer_file_other_than_the_measured_one_is_refused(tmp_path: Path) -> None:
    from family_memory.adapters.local.minilm_embedder import (
        MODEL_SHA256,
        TOKENIZER_SHA256,
        model_file,
        tokenizer_file,
        verified,
    )

    assert verified(model_file(), MODEL_SHA256) == model_file()
    assert verified(tokenizer_file(), TOKENIZER_SHA256) == tokenizer_file()
    changed = tmp_path / "tokenizer.json"
    changed.write_bytes(tokenizer_file().read_bytes().replace(b"[PAD]", b"[PAX]", 1))
    with pytest.raises(RuntimeError, match="not the file all-MiniLM-L6-v2-int8 was measured with"):
        verified(changed, TOKENIZER_SHA256)


def test_short_cjk_words_are_kept_whole_as_the_embedded_index_stores_them() -> None:
    assert query_words("Maya 帕特尔 医生, orthodontist") == ["maya", "帕特尔", "医生", "orthodontist"]


def test_a_long_cjk_run_costs_one_token_a_character_and_fills_the_query() -> None:
    run = "玛雅的正畸医生是帕特尔医生每六周去一次榆树街的诊所"
    assert query_words(f"{run} orthodontist") == [run[:MAX_QUERY_WORDS]]
    assert query_words(f"dentist {run} orthodontist") == ["dentist", run[: MAX_QUERY_WORDS - 1]]


def test_query_words_cap_each_word_and_the_characters_in_all() -> None:
    assert query_words("x" * 100 + " dentist") == ["x" * MAX_WORD_CHARS, "dentist"]
    long_words = [f"{chr(97 + n)}{'q' * 28}{n:02d}" for n in range(MAX_QUERY_WORDS)]
    chosen = query_words(" ".join(long_words))
    assert chosen == long_words[: len(chosen)] and len(chosen) < MAX_QUERY_WORDS
    assert sum(map(len, chosen)) <= MAX_QUERY_TEXT_CHARS < sum(map(len, chosen)) + len(long_words[len(chosen)])


def test_a_message_s_tasks_read_at_word_starts_are_those_a_search_finds() -> None:
    """``_tasks_of`` tries each task pattern only where a word starts; ``search`` tries every
    position. Same tasks on phrases of every pattern, run together, cased, inside words and beside
    characters that fold to ASCII letters under re.I (the Kelvin sign, the long s)."""
    import random

    from family_memory.retrieval.must_know import _TASKS, _tasks_of

    def searched(message: str) -> frozenset[str]:
        return frozenset(task for task, pattern in _TASKS.items() if pattern.search(message))

    rng = random.Random(3)
    phrases = [
        "eat", "pack for the train", "can sam have", "a&e", "what does dad take tonight", "who can watch rosie",
        "book us a table", "sleepover", "e-mail", "café", "pick the kids up", "screen time", "take her to",
        "allowed to eat", "check-up", "ice cream", "who could mind the twins", "group chat", "set it up",
    ]  # fmt: skip
    glue = ["", " ", "_", "9", "x", "-", "'", ".", "\u212a", "\u017f", "İ", "ı", "é", "\n", "?"]
    texts = [*phrases, "", " ", "Eat", "EAT", "heat", "eats_", "_eat", "\u212aids", "\u017fleepover"]
    for _ in range(4000):
        parts = [rng.choice(phrases + glue) for _ in range(rng.randint(1, 6))]
        text = "".join(rng.choice(glue) + (p.upper() if rng.random() < 0.2 else p) for p in parts)
        texts.append(text)
    assert sum(bool(searched(t)) for t in texts) > 1000  # most texts name a task
    for text in texts:
        assert _tasks_of.__wrapped__(text) == searched(text), text


def test_fusion_is_the_sum_of_reciprocal_ranks_in_turn_whatever_the_lists() -> None:
    """``reciprocal_rank_fusion`` against its definition written out plainly: random lists with
    repeats, shared ids and every k, the same order (so equal sums tie the same way too)."""
    import random

    def plainly(semantic: list[str], keyword: list[str], k: int) -> list[str]:
        score: dict[str, float] = {}
        for hits in (semantic, keyword):
            seen: set[str] = set()
            for rank, memory_id in enumerate(hits, start=1):
                if memory_id not in seen:
                    seen.add(memory_id)
                    score[memory_id] = score.get(memory_id, 0.0) + 1.0 / (k + rank)
        first: dict[str, int] = {}
        for place in range(max(len(semantic), len(keyword))):
            for hits in (semantic, keyword):
                if place < len(hits):
                    first.setdefault(hits[place], len(first))
        return sorted(score, key=lambda memory_id: (-score[memory_id], first[memory_id]))

    rng = random.Random(11)
    for _ in range(3000):
        pool = [f"m{n}" for n in range(rng.randint(1, 30))]
        semantic = [rng.choice(pool) for _ in range(rng.randint(0, 25))]
        keyword = [rng.choice(pool) for _ in range(rng.randint(0, 25))]
        k = rng.choice([0, 1, 2, 10, 60])
        assert reciprocal_rank_fusion(semantic, keyword, k) == plainly(semantic, keyword, k), (semantic, keyword, k)


def test_words_of_ascii_text_are_those_of_the_general_path() -> None:
    """``words`` and ``analyzer_tokens`` take a short cut for ASCII text: the same words as
    case-folding, NFKD and dropping combining marks give, on every ASCII character and beside
    text that is not ASCII."""
    import random
    import re
    import string
    import unicodedata

    from family_memory.retrieval.query_words import _ANALYZER_TOKEN, analyzer_tokens, words

    token = re.compile(r"[^\W_]+", re.UNICODE)

    def general(text: str) -> list[str]:
        decomposed = unicodedata.normalize("NFKD", text.casefold())
        return token.findall("".join(ch for ch in decomposed if not unicodedata.combining(ch)))

    rng = random.Random(5)
    texts = ["", "Maya's DENTIST", "x_y", "ÉCOLE", "ﬁsh", "Straße", "日本語 text", *(chr(n) * 3 for n in range(128))]
    texts += ["".join(rng.choice(string.printable) for _ in range(rng.randint(0, 40))) for _ in range(3000)]
    for text in texts:
        assert words(text) == general(text), text
        assert analyzer_tokens(text) == _ANALYZER_TOKEN.findall(text), text


def _sample(pattern: str, rng: Any) -> str:
    """A text the regex ``pattern`` may match, drawn at random from its parse (alternatives,
    classes, repeats of up to three); lookarounds and boundaries are left out, so some samples
    are near misses."""
    import importlib

    parser: Any = importlib.import_module("re._parser")  # the test's own generator; the code does not parse

    def draw(items: Any) -> str:
        out = ""
        for op, value in items:
            name = str(op)
            if name == "LITERAL":
                out += chr(value)
            elif name == "NOT_LITERAL":
                out += rng.choice("xy 1")
            elif name == "ANY":
                out += rng.choice("ab .")
            elif name == "IN" and str(value[0][0]) == "NEGATE":
                out += rng.choice("xy 1")
            elif name == "IN":
                choices = [chr(v) for o, v in value if str(o) == "LITERAL"]
                choices += [c for o, v in value if str(o) == "RANGE" for c in (chr(v[0]), chr(v[1]))]
                choices += [{"CATEGORY_DIGIT": "4", "CATEGORY_WORD": "q", "CATEGORY_SPACE": " "}.get(str(v), "z")
                            for o, v in value if str(o) == "CATEGORY"]  # fmt: skip
                out += rng.choice(choices or ["z"])
            elif name == "CATEGORY":
                out += {"CATEGORY_DIGIT": "7", "CATEGORY_WORD": "w", "CATEGORY_SPACE": " "}.get(str(value), "-")
            elif name == "BRANCH":
                out += draw(rng.choice(value[1]))
            elif name == "SUBPATTERN":
                out += draw(value[-1])
            elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                low, high, body = value
                out += "".join(draw(body) for _ in range(rng.randint(low, min(high, low + 3))))
        return out

    return draw(parser.parse(pattern))


def _pattern_texts(patterns: Sequence[Any], seed: int, count: int) -> list[str]:
    """Texts that hit the patterns' alternatives and their near misses: a sample of every
    alternative and the literal words of each pattern, run together, cased, cut inside words,
    beside digits, apostrophes and the characters that fold to ASCII letters under re.I."""
    import random
    import re

    from family_memory.retrieval.word_patterns import alternatives

    rng = random.Random(seed)
    words = sorted({w for p in patterns for w in re.findall(r"[a-z]+", p.pattern)})
    phrases = [
        "pick the kids up", "pickup", "can you have", "a&e", "what does dad take tonight", "who can watch the game",
        "café", "check-up", "checkup", "tree nuts", "allergic", "ALLERGY", "epipen", "٣ mg", "2.5ml", "hayfever",
        "wi-fi", "packing for the train", "packed", "i'm", "all of us", "groceries", "mind the kids", "minds",
    ]  # fmt: skip
    for pattern in patterns:
        for alternative in alternatives(pattern.pattern) or []:
            phrases += [_sample(alternative, rng) for _ in range(3)]
    glue = ["", " ", " ", "_", "9", "x", "-", "'", "’", ".", "\u212a", "\u017f", "İ", "ı", "é", "\n", "?", ", "]
    texts = [*phrases, *words, "", " ", "Eat", "EAT", "heat", "eats_", "_eat", "\u212aids", "\u017fleepover"]
    for _ in range(count):
        parts = [rng.choice(phrases) if rng.random() < 0.5 else rng.choice(words) for _ in range(rng.randint(1, 8))]
        text = ""
        for part in parts:
            if rng.random() < 0.15:
                part = part.upper() if rng.random() < 0.5 else part.title()
            if part and rng.random() < 0.1:
                part = part[rng.randrange(len(part)) :] if rng.random() < 0.5 else part[: rng.randrange(len(part) + 1)]
            text += rng.choice(glue) if rng.random() < 0.4 else " "
            text += part
        texts.append(text)
    return texts


def test_word_patterns_answer_as_search_does_on_every_must_know_pattern() -> None:
    """``PatternSet`` reads a pattern off the text's words and tries it only where a word may begin
    a longer alternative; ``search`` tries every position. The same answer for every pattern the
    must-know pass reads, and the same words where a match starts as ``match`` at each word."""
    import re

    from family_memory.retrieval import must_know as mk
    from family_memory.retrieval.word_patterns import PatternSet

    patterns = {
        **{f"task {name}": p for name, p in mk._TASKS.items()},
        **{f"topic {name}": p for name, p in mk._RULE_TOPICS.items()},
        "allows": mk._ALLOWANCE, "refuses": mk._REFUSES, "medicine": mk._MEDICINE, "kit": mk._ALLERGY_KIT,
        "caregiver": mk._CAREGIVER, "not food": mk._NOT_FOOD, "everyone": mk._EVERYONE, "first": mk._FIRST_PERSON,
    }  # fmt: skip
    fast = PatternSet(patterns)
    assert not [name for name in patterns if fast.general(name)]  # every one is read, none searched whole
    texts = _pattern_texts(list(patterns.values()), seed=7, count=6000)
    hits = dict.fromkeys(patterns, 0)
    for text in texts:
        words = fast.read(text)
        for name, pattern in patterns.items():
            searched = pattern.search(text) is not None
            assert fast.search(words, name) is searched, (name, text)
            hits[name] += searched
            starts = fast.matches_at(words, name)
            if starts is not None:
                at = [
                    (m.start(), m.group().lower()) for m in re.finditer(r"\w+", text) if pattern.match(text, m.start())
                ]
                assert starts == at, (name, text)
    assert min(hits.values()) > 50, hits  # every pattern matched often, and missed often
    assert max(hits.values()) < len(texts) - 50, hits


def test_a_pattern_of_another_shape_is_searched_as_it_is() -> None:
    import re

    from family_memory.retrieval.word_patterns import PatternSet, alternatives

    patterns = {
        "cased": re.compile(r"\b(?:eat|nuts?)\b"),  # no re.I: words compared in lower case would be wrong
        "bare": re.compile(r"eat|nuts?", re.I),
        "lookbehind": re.compile(r"\b(?:(?<!no )eat|nuts?)\b", re.I),
        "two groups": re.compile(r"\b(?:eat)\b|\b(?:nuts)\b", re.I),
    }
    assert alternatives(r"\b(?:eat)\b|\b(?:nuts)\b") is None
    assert alternatives(r"\b(?:a|b(?:c|d)|[|)]|\|)\b") == ["a", "b(?:c|d)", "[|)]", "\\|"]
    fast = PatternSet(patterns)
    assert fast.general("cased") and fast.general("bare") and fast.general("lookbehind")
    for text in ["Eat", "no eat", "NUTS and eat", "peanuts", "heat", "nut", ""]:
        for name, pattern in patterns.items():
            assert fast.search(fast.read(text), name) is (pattern.search(text) is not None), (name, text)


def test_the_characters_that_fold_to_ascii_letters_are_those_word_patterns_sends_to_search() -> None:
    """Outside ASCII, only these characters match an ASCII letter or digit under re.I or hold
    one in lower case; a text with one of them is searched as it is."""
    import re
    import string

    from family_memory.retrieval.word_patterns import FOLDS_TO_ASCII

    chars = "".join(chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c <= 0xDFFF)
    folding = {c for a in string.ascii_lowercase + string.digits + "_" for c in re.findall(re.escape(a), chars, re.I)}
    lowering = {c for c in chars if any(x.isascii() for x in c.lower())}
    assert folding | lowering == set(FOLDS_TO_ASCII)


def test_a_rule_s_reading_off_its_words_is_the_one_its_patterns_give() -> None:
    """``_read_rule`` reads topics and what a summary says off the words; the old reading ran
    every pattern over the text (the food words in full, for "allergic" alone or "allergic to
    penicillin"). Same reading on texts built from every pattern's words, and the content words
    are ``content_tokens``'."""
    from family_memory.formation.text_similarity import content_tokens
    from family_memory.retrieval import must_know as mk

    def searched(about: str, summary: str, when: str) -> tuple[object, ...]:
        text = " ".join((about, summary, when))
        food_words = {m.group(0) for m in mk._RULE_TOPICS["food"].finditer(text)}
        topics = {t for t, p in mk._RULE_TOPICS.items() if t != "food" and p.search(text)}
        if food_words and not (all(mk._ALLERGY_WORD.match(w) for w in food_words) and mk._NOT_FOOD.search(text)):
            topics.add("food")
        says = [bool(p.search(summary)) for p in (mk._ALLOWANCE, mk._REFUSES, mk._MEDICINE)]
        says += [bool(p.search(summary)) for p in (mk._ALLERGY_KIT, mk._CAREGIVER)]
        return (frozenset(topics), frozenset(content_tokens(text)), *says)

    patterns = [*mk._RULE_TOPICS.values(), mk._ALLOWANCE, mk._REFUSES, mk._MEDICINE, mk._CAREGIVER, mk._NOT_FOOD]
    texts = _pattern_texts(patterns, seed=9, count=4000)
    texts += ["allergic", "Allergic to penicillin", "anaphylaxis, bee stings", "epipen for wasps", "ALLERGY to cats"]
    texts += ["allergic to tree nuts and penicillin", "allergic to cats; no milk", "Allergic to ſesame and cats"]
    only_allergy = 0
    for n, summary in enumerate(texts):
        about, when = texts[(n * 7) % len(texts)][:30], texts[(n * 13) % len(texts)][:20]
        reading = mk._read_rule.__wrapped__(about, summary, when)
        old = searched(about, summary, when)
        got = (reading.topics, reading.words, reading.allows, reading.refuses, reading.medicine)
        assert (*got, reading.allergy_kit, reading.caregiver) == old, (about, summary, when)
        only_allergy += "medical" in reading.topics and "food" not in reading.topics
    assert only_allergy > 5  # the allergy-alone branch ran both ways


def test_content_words_are_the_set_of_content_tokens() -> None:
    import random

    from family_memory.formation.text_similarity import content_tokens, content_words

    rng = random.Random(4)
    vocabulary = ["Maya's", "parties", "running", "booked", "class", "is", "THE", "Noor’s", "ﬁsh", "Straße", "x_y"]
    for _ in range(2000):
        text = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(0, 12)))
        assert content_words(text) == frozenset(content_tokens(text)), text


def test_a_joined_reading_is_the_reading_of_the_joined_text() -> None:
    """``PatternSet.join`` builds a rule's reading from its parts' readings: the same words,
    codes and answers as reading the joined text, a part that must be searched makes the whole
    searched, and a separator with a word character in it is refused."""
    from family_memory.retrieval import must_know as mk
    from family_memory.retrieval.word_patterns import PatternSet

    fast = PatternSet(mk._RULE_TOPICS)
    texts = _pattern_texts(list(mk._RULE_TOPICS.values()), seed=2, count=1500)
    for n, text in enumerate(texts):
        parts = [text, texts[(n * 7) % len(texts)], texts[(n * 11) % len(texts)]]
        joined, whole = fast.join([fast.read(part) for part in parts]), fast.read(" ".join(parts))
        assert joined.text == whole.text
        assert (joined.words, joined.codes, joined.matched, joined.maybe) == (
            whole.words, whole.codes, whole.matched, whole.maybe
        ), parts  # fmt: skip
        for name in fast.names:
            assert fast.search(joined, name) is (mk._RULE_TOPICS[name].search(whole.text) is not None)
    assert fast.join([fast.read("nuts"), fast.read("\u017fesame")]).words is None
    with pytest.raises(ValueError):
        fast.join([fast.read("nut"), fast.read("s")], separator="_")


def test_a_new_word_is_classified_for_every_pattern_as_each_pattern_classifies_it() -> None:
    """``PatternSet`` classifies a word for all its patterns from one table; each pattern's own
    reading (``_Alternation.code``) gives the same: a match starts there, may, or cannot."""
    import re

    from family_memory.retrieval import must_know as mk
    from family_memory.retrieval.word_patterns import PatternSet, _Alternation

    patterns = {**mk._TASKS, **{f"rule {k}": p for k, p in mk._RULE_TOPICS.items()}, "medicine": mk._MEDICINE}
    fast = PatternSet(patterns)
    each = [_Alternation.read(p) for p in patterns.values()]
    words = {w.lower() for p in patterns.values() for w in re.findall(r"\w+", p.pattern)}
    words |= {w + tail for w in list(words) for tail in ("s", "ing", "x")} | {w[:-1] for w in words if len(w) > 1}
    words |= {"9am", "٣", "é", "_x", "allergies", "babysitter", "pickup"}
    for word in sorted(words):
        matched, maybe = fast._code(word)
        codes = [a.code(word) for a in each]
        assert [(matched >> i & 1) * 2 + (maybe >> i & 1) for i in range(len(each))] == codes, word


def test_a_day_question_s_activity_words_leave_out_each_name_s_first_word_as_before() -> None:
    """``activity_words`` reads each name's first content word once per name (``_first_word``);
    the same words as reading every name's tokens on every call, for names with no content word
    ("the", "a"), possessives and accents."""
    import random

    from family_memory.formation.dates import WEEKDAY_FORMS
    from family_memory.formation.text_similarity import content_tokens
    from family_memory.retrieval.schedule import _NOT_AN_ACTIVITY, activity_words

    def before(message: str, names: dict[str, frozenset[str]]) -> set[str]:
        name_words = {tokens[0] for name in names if (tokens := content_tokens(name))}
        return {
            w
            for w in content_tokens(message)
            if w not in name_words and w not in _NOT_AN_ACTIVITY and w not in WEEKDAY_FORMS and len(w) > 2
        }

    rng = random.Random(8)
    vocabulary = ["piano", "sori", "academy", "the", "a", "do-hyun", "park", "idris's", "zoë", "swimming", "tuesday"]
    for _ in range(1500):
        names = {
            " ".join(rng.sample(vocabulary, rng.randint(1, 3))): frozenset({"e"}) for _ in range(rng.randint(0, 5))
        }
        message = "is there " + " ".join(rng.choice(vocabulary) for _ in range(rng.randint(0, 6))) + " that day?"
        assert activity_words(message, names) == before(message, names), (message, names)
