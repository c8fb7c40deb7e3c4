"""Token counts are the budgets' unit (domain/tokens.py): the lookup remembers the counts of the
short lines it prices on every message, and a remembered count is the count."""

from __future__ import annotations

from family_memory.domain.tokens import _count, count_tokens


def test_a_remembered_count_is_the_count_and_a_long_text_is_counted_afresh() -> None:
    line = '- "Noor is allergic to sesame; no tahini or hummus." (standing rule) memory://fam-rivera/01K...'
    assert count_tokens(line) == _count(line) == count_tokens(line)
    long = "word " * 500  # beyond what is remembered
    assert count_tokens(long) == _count(long) > 400
    assert count_tokens("<|endoftext|>") > 0  # special text is counted, not refused
