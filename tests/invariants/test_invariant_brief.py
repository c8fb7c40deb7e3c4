"""Invariant 6: the 2,000-token cap holds on its own, not only through the section budgets.

The compiler fills each section to its budget (they sum to 1,900 tokens) and
then measures the whole block against the cap; the patcher does the same
after it edits lines in place. The final measurement is the backstop for a
brief whose sections, together with the framing, outgrow the cap. Here it is
given such a brief directly.
"""

from __future__ import annotations

from family_memory.brief.compile import enforce_cap
from family_memory.brief.model import BRIEF_TOKEN_CAP, SECTION_ORDER, Brief, BriefLine, MemberConversation, Section
from family_memory.brief.render import brief_tokens
from family_memory.domain.family import Surface


def stuffed(section: Section, count: int) -> tuple[BriefLine, ...]:
    return tuple(BriefLine(text=f"{section.value} line {n}: " + "word " * 30) for n in range(count))


def test_a_brief_over_the_cap_is_cut_back_from_the_last_conversation_and_topics_first() -> None:
    over = Brief(family_id="fam-rivera", **{s.value: stuffed(s, 40) for s in SECTION_ORDER})
    assert brief_tokens(over) > 2 * BRIEF_TOKEN_CAP
    capped = enforce_cap(over)
    assert brief_tokens(capped, Surface.CHAT) <= BRIEF_TOKEN_CAP
    assert brief_tokens(capped, Surface.HOUSEHOLD) <= BRIEF_TOKEN_CAP
    assert capped.last_conversation == () and capped.topics == ()
    # What is kept of a section is its first lines, in order (the heaviest, as compiled).
    assert capped.directives == over.directives[: len(capped.directives)] and capped.directives
    assert capped.identity == over.identity


def test_every_members_brief_stays_within_the_cap_and_carries_only_their_own_conversation() -> None:
    # Each member's last conversation is served only to them; the cap holds for every member's brief,
    # and the member whose brief is over it loses lines of their own last conversation first.
    talk = {
        "a": MemberConversation(session_id="s-a", lines=stuffed(Section.LAST_CONVERSATION, 80)),
        "b": MemberConversation(session_id="s-b", lines=(BriefLine(text="b's own line"), BriefLine(text="and more"))),
        "c": MemberConversation(session_id="s-c", lines=(BriefLine(text="c's own line"),)),
    }
    over = Brief(family_id="fam-rivera", conversations=talk, **{s.value: stuffed(s, 5) for s in SECTION_ORDER[:3]})
    assert brief_tokens(over) > BRIEF_TOKEN_CAP  # a's brief, the largest
    capped = enforce_cap(over)
    for member in ("a", "b", "c", None):
        served = capped.served(member)
        assert brief_tokens(served, Surface.CHAT) <= BRIEF_TOKEN_CAP
        others = [m for m in capped.conversations if m != member]
        assert all(line not in served.last_conversation for m in others for line in capped.conversations[m].lines)
        assert served.conversations == {}
    assert capped.conversations["a"].lines == talk["a"].lines[: len(capped.conversations["a"].lines)]
    assert len(capped.conversations["a"].lines) < 80
    assert capped.conversations["b"] == talk["b"] and capped.conversations["c"] == talk["c"]
    assert all(capped.lines(s) == over.lines(s) for s in SECTION_ORDER[:3])
    assert capped.served(None).last_conversation == ()
