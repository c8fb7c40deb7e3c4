"""The session summary (the brief's "last conversation", shown in every member's chat) leaks nothing:
it names only the shareable claims that were accepted, never what anyone wrote."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import Adapters, local_adapters
from family_memory.card.operations import GroupSelector, forget_group, preview_group
from family_memory.domain.clock import FixedClock
from family_memory.formation.document import CandidatesDocument
from family_memory.formation.extraction import SuppliedCandidates
from family_memory.formation.service import FormationDeps, extract_session, receive_session, reconcile_session
from formation_helpers import FAMILY, candidate, deps, save_family, session_json

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
    assert document.summary == "Lucía talked about: Thai food (the family)."
    assert "pregnan" not in document.summary.lower() and "news" not in document.summary.lower()


def test_health_and_children_stay_out_and_plain_plans_stay_in(d: FormationDeps) -> None:
    document = summary_of(d, "My daughter Maya is allergic to peanuts. Pizza night is tonight.")
    assert document.summary == "Lucía talked about: Pizza night."


def test_a_forgotten_topic_stays_out_of_the_summary(d: FormationDeps) -> None:
    summary_of(d, "We love Thai food.")
    reconcile_session(d, FAMILY, "sess-1")
    group = GroupSelector(topic="Thai food")
    forget_group(d.writer, FAMILY, group, "lucia", expected_count=preview_group(d.writer, FAMILY, group).count)
    document = summary_of(d, "We love Thai food. Never book flights before 7am.", session_id="sess-2")
    assert "thai" not in document.summary.lower()
    assert document.summary == "Lucía talked about: Never book flights before 7am."


def test_a_child_this_session_calls_a_daughter_stays_out_even_when_the_family_file_does_not_know_her(
    d: FormationDeps,
) -> None:
    text = "My daughter Maya is allergic to peanuts. Maya loves swimming. Pizza night is tonight."
    receive_session(d, session_json([("user", "lucia", text)], family_id="fam-new"))
    document = extract_session(d, "fam-new", "sess-1", enqueue=False).document
    assert "Maya loves swimming." in [c.summary for _, c in document.accepted()]
    assert document.summary == "lucia talked about: Pizza night."


def test_a_child_the_family_told_us_of_before_stays_out_of_later_summaries(d: FormationDeps) -> None:
    receive_session(d, session_json([("user", "lucia", "My daughter Maya is seven.")], family_id="fam-new"))
    extract_session(d, "fam-new", "sess-1", enqueue=False)
    reconcile_session(d, "fam-new", "sess-1")
    later = session_json(
        [("user", "lucia", "Maya loves soccer. Pizza night is tonight.")], session_id="sess-2", family_id="fam-new"
    )
    receive_session(d, later)
    assert extract_session(d, "fam-new", "sess-2", enqueue=False).document.summary == "lucia talked about: Pizza night."
