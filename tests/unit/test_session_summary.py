"""The session summary (the brief's "last conversation" of each member who took part) says what
happened, what was asked, decided or planned, in a sentence built from the session's accepted
claims, and leaks nothing: only the shareable claims, never what anyone wrote, never a
sensitive or suppressed claim."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import Adapters, local_adapters
from family_memory.card.operations import GroupSelector, forget_group, preview_group
from family_memory.domain.clock import FixedClock
from family_memory.formation.candidate import Candidate
from family_memory.formation.document import CandidatesDocument
from family_memory.formation.extraction import SuppliedCandidates
from family_memory.formation.service import FormationDeps, extract_session, receive_session, reconcile_session
from family_memory.formation.summary import derive_summary
from formation_helpers import FAMILY, candidate, deps, family, save_family, session_json, transcript

SECRET = "I just found out I am pregnant and I have not told Marco yet."


@pytest.fixture
def d(tmp_path: Path, clock: FixedClock) -> FormationDeps:
    adapters: Adapters = local_adapters(tmp_path, clock)
    save_family(adapters.store)
    return deps(adapters)


def summary_of(d: FormationDeps, text: str, session_id: str = "sess-1", **kw: Any) -> CandidatesDocument:
    receipt = receive_session(d, session_json([("user", "lucia", text)], session_id=session_id), **kw)
    return receipt.document or extract_session(d, FAMILY, session_id, enqueue=False).document


def test_a_secret_with_nothing_to_remember_leaves_no_summary(d: FormationDeps) -> None:
    document = summary_of(d, SECRET)
    assert document.accepted() == [] and document.summary == ""


def test_a_sensitive_claim_never_reaches_the_summary_even_when_an_extractor_proposes_it(d: FormationDeps) -> None:
    pregnancy = candidate(
        type="fact",
        about="Lucía's news",
        summary="Lucía is pregnant and has not told Marco yet.",
        about_member="lucia",
        evidence=[{"turns": [1], "quote": "I am pregnant and I have not told Marco yet"}],
    )
    thai = candidate(evidence=[{"turns": [1], "quote": "We love Thai food"}])
    document = summary_of(d, f"{SECRET} We love Thai food.", supplied=SuppliedCandidates([pregnancy, thai]))
    assert len(document.accepted()) == 2
    assert document.summary == "Lucía mentioned: the family loves Thai food."
    assert "pregnan" not in document.summary.lower() and "news" not in document.summary.lower()


def test_health_and_children_stay_out_and_plain_plans_stay_in(d: FormationDeps) -> None:
    document = summary_of(d, "My daughter Maya is allergic to peanuts. Pizza night is tonight.")
    assert document.summary == "Lucía planned: Pizza night is tonight (Friday 2026-11-27)."


def test_a_forgotten_topic_stays_out_of_the_summary(d: FormationDeps) -> None:
    summary_of(d, "We love Thai food.")
    reconcile_session(d, FAMILY, "sess-1")
    group = GroupSelector(topic="Thai food")
    forget_group(d.writer, FAMILY, group, "lucia", expected_count=preview_group(d.writer, FAMILY, group).count)
    document = summary_of(d, "We love Thai food. Never book flights before 7am.", session_id="sess-2")
    assert "thai" not in document.summary.lower()
    assert document.summary == "Lucía asked: never book flights before 7am."


def test_a_child_this_session_calls_a_daughter_stays_out_even_when_the_family_file_does_not_know_her(
    d: FormationDeps,
) -> None:
    text = "My daughter Maya is allergic to peanuts. Maya loves swimming. Pizza night is tonight."
    receive_session(d, session_json([("user", "lucia", text)], family_id="fam-new"))
    document = extract_session(d, "fam-new", "sess-1", enqueue=False).document
    assert "Maya loves swimming." in [c.summary for _, c in document.accepted()]
    assert document.summary == "lucia planned: Pizza night is tonight (Friday 2026-11-27)."


def test_a_child_the_family_told_us_of_before_stays_out_of_later_summaries(d: FormationDeps) -> None:
    receive_session(d, session_json([("user", "lucia", "My daughter Maya is seven.")], family_id="fam-new"))
    extract_session(d, "fam-new", "sess-1", enqueue=False)
    reconcile_session(d, "fam-new", "sess-1")
    later = session_json(
        [("user", "lucia", "Maya loves soccer. Pizza night is tonight.")], session_id="sess-2", family_id="fam-new"
    )
    receive_session(d, later)
    summary = extract_session(d, "fam-new", "sess-2", enqueue=False).document.summary
    assert summary == "lucia planned: Pizza night is tonight (Friday 2026-11-27)."


# --- what happened, in one sentence (issue 11, section 4) -----------------------------------

TALK = transcript(
    [
        ("user", "lucia", "Never book flights before 7am. Marco is away for work until November 28."),
        ("user", "marco", "We love Thai food. I'm allergic to shellfish and we owe 2k on the card."),
        ("user", "lucia", "Maya starts swimming on Monday."),
    ]
)


def claim(**fields: Any) -> Candidate:
    return Candidate.model_validate(candidate(**fields))


ASK = claim(
    type="directive",
    about="Flight times",
    summary="Never book flights before 7am.",
    evidence=[{"turns": [1], "quote": "Never book flights before 7am"}],
)
PLAN = claim(
    type="fact",
    about="Marco's work trip",
    summary="Marco is away for work until November 28, 2026.",
    valid_until="2026-11-29",
    evidence=[{"turns": [1], "quote": "Marco is away for work until November 28"}],
)
LIKE = claim(evidence=[{"turns": [2], "quote": "We love Thai food"}])
ALLERGY = claim(
    type="constraint",
    about="Marco's shellfish allergy",
    summary="Marco is allergic to shellfish.",
    sensitivity="health",
    evidence=[{"turns": [2], "quote": "I'm allergic to shellfish"}],
)
DEBT = claim(
    about="Credit card",
    summary="The family owes $2,000 on the credit card.",
    sensitivity="finances",
    evidence=[{"turns": [2], "quote": "we owe 2k on the card"}],
)
SWIM = claim(
    about="Maya's swimming",
    summary="Maya starts swimming on Monday.",
    sensitivity="minors",
    evidence=[{"turns": [3], "quote": "Maya starts swimming on Monday"}],
)


def test_the_summary_says_what_was_asked_planned_and_mentioned_and_by_whom() -> None:
    summary = derive_summary(TALK, family(), [LIKE, PLAN, ASK])
    assert summary == (
        "Lucía asked: never book flights before 7am; planned: Marco is away for work until November 28, 2026; "
        "Marco mentioned: the family loves Thai food."
    )
    assert "talked about" not in summary


def test_the_summary_never_repeats_a_sensitive_or_kept_out_claim() -> None:
    summary = derive_summary(TALK, family(), [ALLERGY, DEBT, SWIM, LIKE, PLAN])
    assert "shellfish" not in summary and "2,000" not in summary and "swimming" not in summary
    assert (
        summary
        == "Lucía planned: Marco is away for work until November 28, 2026; Marco mentioned: the family loves Thai food."
    )
    kept_out = derive_summary(TALK, family(), [LIKE, PLAN], kept_out=lambda c: c.about == LIKE.about)
    assert kept_out == "Lucía planned: Marco is away for work until November 28, 2026."
    assert derive_summary(TALK, family(), [ALLERGY, DEBT, SWIM]) == ""


def test_the_summary_fits_its_line_counting_what_it_leaves_out() -> None:
    many = [
        claim(
            type="directive",
            about=f"Rule {n}",
            summary=f"Never book flights before 7am, rule number {n} of the family's long list.",
            evidence=[{"turns": [1], "quote": "Never book flights before 7am"}],
        )
        for n in range(6)
    ]
    summary = derive_summary(TALK, family(), many)
    assert len(summary) <= 200 and summary.endswith(" more).") and summary.startswith("Lucía asked: never book")
    shown = summary.count("asked:")  # whole summaries first, then an about where only that fits
    assert f"(+{6 - shown} more)" in summary and "rule number 1" in summary
    long = claim(about="Flight times", summary="Never book flights before 7am " + "really " * 40 + "ever.",
                 type="directive", evidence=[{"turns": [1], "quote": "Never book flights before 7am"}])  # fmt: skip
    assert derive_summary(TALK, family(), [long]) == "Lucía asked: Flight times."


def test_the_same_claim_said_twice_is_told_once() -> None:
    assert derive_summary(TALK, family(), [LIKE, LIKE]) == "Marco mentioned: the family loves Thai food."
