"""The evaluation harness itself: the labelled-set checks, each figure on a hand-made
end state (so a broken metric fails here, not silently in the table), the ratchet,
the BM25 baseline, and one real run of a tiny family on the simulated clock."""

from __future__ import annotations

import json
import textwrap
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from family_memory.brief.model import Brief, BriefLine
from family_memory.domain.entity import Entity, EntityKind
from family_memory.domain.errors import InvalidInputError
from family_memory.domain.evidence import EvidenceRecord
from family_memory.domain.family import Surface
from family_memory.domain.ids import new_ulid
from family_memory.domain.memory import Attestation, Memory, MemoryType, Sensitivity, Status, Strength
from family_memory.evaluation.dataset import EvalFamily, Matcher, load_family, load_set
from family_memory.evaluation.metrics import FamilyScore, Target, figures, score_family
from family_memory.evaluation.recall import BM25, RecallTotals
from family_memory.evaluation.report import ModeReport, check_ratchet, read_ratchet, write_ratchet
from family_memory.evaluation.runner import FamilyRun, MemoryView, Mode, run_families

FIXTURE = Path(__file__).parent.parent / "fixtures" / "eval"
FID = "eval-tiny"


@pytest.fixture(scope="module")
def tiny() -> EvalFamily:
    return load_family(FIXTURE / "families" / "tiny.yaml")


def _raw() -> dict[str, Any]:
    raw: dict[str, Any] = yaml.safe_load((FIXTURE / "families" / "tiny.yaml").read_text(encoding="utf-8"))
    return raw


def _write(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "family.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


# --- the labelled set ------------------------------------------------------------------


def test_local_times_become_utc_in_the_family_zone(tiny: EvalFamily) -> None:
    # 18:30 in Asia/Kolkata (UTC+5:30) is 13:00 UTC; turns follow a minute apart.
    first = tiny.sessions[0]
    assert first.started_at == datetime(2026, 4, 1, 13, 0, tzinfo=UTC)
    assert [t.at.minute for t in first.turns] == [0, 1, 2, 3]
    transcript = first.transcript(FID, "Asia/Kolkata")
    assert transcript["turns"][0] == {
        "n": 1,
        "role": "user",
        "member_id": "asha",
        "text": "hi, veer is allergic to peanuts, really badly",
        "at": "2026-04-01T13:00:00Z",
    }
    assert "member_id" not in transcript["turns"][1]


def test_matcher_groups_are_word_prefixes_with_alternatives() -> None:
    m = Matcher(["veer|son", "allerg", "tree nut"], ["no longer"])
    assert m.score("Veer is allergic to tree nuts.") == 3
    assert m.score("My son has a tree-nut allergy") == 3
    assert m.score("Veer is no longer allergic to tree nuts") == 0
    assert m.score("Veer loves tree nuts") == 0
    # a prefix starts a word: "nut" is not found inside "peanut"
    assert Matcher(["nut"], []).score("peanut butter") == 0


def test_a_quote_not_in_its_turn_is_refused_with_its_place(tmp_path: Path) -> None:
    data = _raw()
    data["sessions"][0]["candidates"][0]["evidence"][0]["quote"] = "veer cannot eat peanuts"
    with pytest.raises(InvalidInputError, match=r"session t01 candidate 0: quote .* is not in turns \[1\]"):
        load_family(_write(tmp_path, data))


def test_a_fact_whose_text_fails_its_own_match_is_refused(tmp_path: Path) -> None:
    data = _raw()
    data["facts"][0]["match"] = ["veer", "shellfish"]
    with pytest.raises(InvalidInputError, match="does not satisfy its own match"):
        load_family(_write(tmp_path, data))


def test_two_facts_the_matcher_cannot_tell_apart_are_refused(tmp_path: Path) -> None:
    data = _raw()
    data["facts"][0]["match"] = ["veer"]
    data["facts"][3]["match"] = ["veer"]  # chess: "veer" alone claims the peanut fact's text as strongly
    with pytest.raises(InvalidInputError, match="claims this fact's text as strongly"):
        load_family(_write(tmp_path, data))


def test_a_candidate_stating_no_labelled_fact_is_refused(tmp_path: Path) -> None:
    data = _raw()
    data["sessions"][1]["candidates"][1]["summary"] = "Veer is learning the violin."
    data["sessions"][1]["candidates"][1]["about"] = "Veer's violin"
    with pytest.raises(InvalidInputError, match="none said at the turns it cites"):
        load_family(_write(tmp_path, data))


def test_a_query_may_only_need_current_facts(tmp_path: Path) -> None:
    data = _raw()
    data["queries"][0]["needs"] = ["veer-karate"]
    with pytest.raises(InvalidInputError, match="not current at the end"):
        load_family(_write(tmp_path, data))


def test_sessions_out_of_order_are_refused(tmp_path: Path) -> None:
    data = _raw()
    data["sessions"][1]["at"] = "2026-03-01 09:00"
    with pytest.raises(InvalidInputError, match="starts before the previous session ended"):
        load_family(_write(tmp_path, data))


def test_the_committed_set_has_the_issue_sizes() -> None:
    """Issue 9: at least 12 families, 80 sessions and 400 labelled facts, all loading cleanly."""
    families = load_set(Path(__file__).parents[2] / "eval")
    assert len(families) >= 12
    assert sum(len(f.sessions) for f in families) >= 80
    assert sum(len(f.spec.facts) for f in families) >= 400


def test_the_held_out_families_load_and_stay_out_of_the_committed_set() -> None:
    """eval/heldout/ (docs/evaluation.md, "Held-out families") loads and validates with
    `--data eval/heldout`; its figures are not enforced, and the default set never picks it up."""
    root = Path(__file__).parents[2] / "eval"
    held = load_set(root / "heldout")
    assert len(held) >= 2
    for family in held:
        assert len(family.sessions) >= 8
        assert len(family.spec.facts) >= 40
        assert any(s.spec.candidates for s in family.sessions)
    committed = {f.id for f in load_set(root)}
    assert not committed & {f.id for f in held}
    ratchet = (root / "ratchet.json").read_text(encoding="utf-8")
    assert not any(f.id in ratchet for f in held)


# --- figures on a hand-made end state ----------------------------------------------------

NOW = datetime(2026, 4, 20, 3, 30, tzinfo=UTC)


def _view(
    summary: str,
    *,
    about: str = "x",
    cites: str = "t01#turn=1",
    status: Status = Status.ACTIVE,
    strength: Strength = Strength.SOFT,
    valid_until: date | None = None,
    sensitivity: Sensitivity = Sensitivity.NORMAL,
    kind: MemoryType = MemoryType.FACT,
    entities: tuple[tuple[str, EntityKind], ...] = (),
    formed: bool = True,
) -> MemoryView:
    memory = Memory(
        id=new_ulid(),
        type=kind,
        about=about,
        summary=summary,
        authority="user_explicit",
        confidence=0.9,
        formed_at=NOW,
        last_reinforced_at=NOW,
        status=status,
        strength=strength,
        valid_until=valid_until,
        sensitivity=sensitivity,
        generated=Attestation(by="test/1", at=NOW) if formed else None,
        superseded_by=new_ulid() if status is Status.SUPERSEDED else None,
    )
    evidence = (EvidenceRecord.model_validate({"ref": f"conv://{FID}/{cites}", "quote": "q q", "recordedAt": NOW}),)
    ents = tuple(Entity(id=new_ulid(), type=k, name=n, created_at=NOW) for n, k in entities)
    return MemoryView(memory, evidence, ents)


def _run(tiny: EvalFamily, *views: MemoryView, brief: Brief | None = None, **fields: Any) -> FamilyRun:
    brief = brief or Brief(family_id=FID)
    run = FamilyRun(
        family=tiny,
        memories={v.id: v for v in views},
        briefs={s: brief for s in Surface},
        brief_texts={s: "" for s in Surface},
        brief_tokens=100,
        brief_stable=True,
        documents=[],
    )
    for name, value in fields.items():
        setattr(run, name, value)
    return run


def _counts(run: FamilyRun) -> dict[str, list[float]]:
    return score_family(run, in_scope=lambda fact: True).counts


PEANUT = "Veer is severely allergic to peanuts."


def test_a_cited_faithful_memory_is_correct_and_an_uncited_one_is_not(tiny: EvalFamily) -> None:
    good = _view(PEANUT, strength=Strength.HARD, sensitivity=Sensitivity.HEALTH)
    elsewhere = _view(PEANUT, cites="t02#turn=2", strength=Strength.HARD, sensitivity=Sensitivity.HEALTH)
    assert _counts(_run(tiny, good))["correct"] == [1, 1]
    assert _counts(_run(tiny, elsewhere))["correct"] == [0, 1]


@pytest.mark.parametrize(
    ("view", "reason"),
    [
        (_view("He is severely allergic to peanuts.", about="Veer"), "pronoun"),
        (_view(PEANUT, entities=(("Sounds", EntityKind.PERSON),)), "not a real person"),
        (_view("Veer sees Dr.", about="doctor"), "fragment"),
        (_view("Veer has karate every Tuesday.", cites="t01#turn=3", valid_until=date(2026, 4, 8)), "pinned"),
        (_view("Nani visits from April 10.", cites="t01#turn=4", valid_until=date(2026, 4, 11)), "valid_until"),
        (_view("Veer goes to chess club on Fridays.", cites="t02#turn=2", strength=Strength.HARD), "hard rule"),
        (_view("Try the new cafe.", cites="t01#turn=2"), "trap"),
    ],
)
def test_misleading_memories_are_counted(tiny: EvalFamily, view: MemoryView, reason: str) -> None:
    score = score_family(_run(tiny, view), in_scope=lambda fact: True)
    assert score.counts["misleading"] == [1, 1]
    assert any(reason in r for review in score.reviews for r in review.reasons)


def test_a_real_relative_is_not_a_fake_person(tiny: EvalFamily) -> None:
    view = _view(
        "Asha's mother visits from April 10 to 14.",
        cites="t01#turn=4",
        valid_until=date(2026, 4, 15),
        entities=(("Asha's mother", EntityKind.PERSON),),
        status=Status.EXPIRED,
    )
    assert _counts(_run(tiny, view))["misleading"] == [0, 1]


def test_reachability_needs_the_brief_or_the_probe(tiny: EvalFamily) -> None:
    peanut = _view(PEANUT, strength=Strength.HARD, sensitivity=Sensitivity.HEALTH)
    chess = _view("Veer goes to chess club on Fridays.", cites="t02#turn=2", sensitivity=Sensitivity.MINORS)
    unreached = _counts(_run(tiny, peanut, chess))
    assert unreached["reachable"] == [0, 2]
    assert unreached["hard_reachable"] == [0, 1]
    reached = _counts(_run(tiny, peanut, chess, probes={"veer-peanut": [peanut.id], "veer-chess": [chess.id]}))
    assert reached["reachable"] == [2, 2]
    assert reached["hard_reachable"] == [1, 1]
    soft = _view(PEANUT, sensitivity=Sensitivity.HEALTH)
    assert _counts(_run(tiny, soft, probes={"veer-peanut": [soft.id]}))["hard_reachable"] == [0, 1]


def test_two_active_memories_of_one_fact_are_a_duplicate_cluster(tiny: EvalFamily) -> None:
    a = _view(PEANUT)
    b = _view("Veer has a bad peanut allergy.")
    assert _counts(_run(tiny, a, b))["duplicates"] == [1, 2]
    assert _counts(_run(tiny, a))["duplicates"] == [0, 1]


def test_a_forgotten_fact_active_again_is_learned_back(tiny: EvalFamily) -> None:
    old = _view("Veer has karate every Tuesday.", cites="t01#turn=3", status=Status.RETRACTED)
    back = _view("Veer still does karate on Tuesdays.", cites="t02#turn=1")
    assert _counts(_run(tiny, old, forgot={"veer-karate": [old.id]}))["learned_back"] == [0, 1]
    assert _counts(_run(tiny, old, back, forgot={"veer-karate": [old.id]}))["learned_back"] == [1, 1]
    # A forget that found nothing to forget is not counted as a forget.
    assert "learned_back" not in _counts(_run(tiny, back, forgot={"veer-karate": []}))


def test_the_sensitive_brief_and_household_rows(tiny: EvalFamily) -> None:
    peanut = _view(PEANUT, sensitivity=Sensitivity.HEALTH)
    brief = Brief(family_id=FID, directives=(BriefLine(text=PEANUT, ref=f"memory://{FID}/{peanut.id}"),))
    assert _counts(_run(tiny, peanut, brief=brief))["sensitive_in_brief"][0] == 2  # the fact, and the tagged memory
    topic = Brief(family_id=FID, topics=(BriefLine(text="Veer's peanut allergy: 1 memory"),))
    assert _counts(_run(tiny, peanut, brief=topic))["sensitive_in_brief"][0] == 1
    assert _counts(_run(tiny, peanut, household_probes={"veer-peanut": [peanut.id]}))["sensitive_in_household"][0] == 1
    assert _counts(_run(tiny, peanut))["sensitive_in_household"][0] == 0


def test_a_task_query_needs_every_fact_in_its_lookup_or_the_brief(tiny: EvalFamily) -> None:
    peanut = _view(PEANUT)
    assert _counts(_run(tiny, peanut, queries={"snack": []}))["task_queries"] == [0, 1]
    assert _counts(_run(tiny, peanut, queries={"snack": [peanut.id]}))["task_queries"] == [1, 1]


def test_dated_facts_need_the_labelled_date_and_state(tiny: EvalFamily) -> None:
    def nani(valid_until: date, status: Status) -> MemoryView:
        return _view("Nani visits April 10 to 14.", cites="t01#turn=4", valid_until=valid_until, status=status)

    assert _counts(_run(tiny, nani(date(2026, 4, 15), Status.EXPIRED)))["dated"] == [1, 1]
    assert _counts(_run(tiny, nani(date(2026, 4, 15), Status.ACTIVE)))["dated"] == [0, 1]
    assert _counts(_run(tiny, nani(date(2026, 4, 11), Status.EXPIRED)))["dated"] == [0, 1]


def test_corrections_need_the_new_value_active_and_the_old_superseded(tmp_path: Path) -> None:
    data = _raw()
    data["facts"].append(
        {
            "id": "veer-peanut-mild",
            "kind": "constraint",
            "said": ["t02:2"],
            "text": "Veer's peanut allergy is now only mild.",
            "match": ["veer", "peanut", "mild"],
            "corrects": "veer-peanut",
            "hard": True,
            "sensitivity": "health",
        }
    )
    data["facts"][0]["final"] = "superseded"
    data["facts"][0]["exclude"] = ["mild"]
    data["queries"] = []
    data["sessions"][1]["candidates"] = []
    family = load_family(_write(tmp_path, data))
    new = _view("Veer's peanut allergy is now only mild.", cites="t02#turn=2")
    old_active = _view(PEANUT)
    old_superseded = _view(PEANUT, status=Status.SUPERSEDED)
    assert _counts(_run(family, new, old_active))["corrections"] == [0, 1]
    assert _counts(_run(family, new, old_superseded))["corrections"] == [1, 1]
    assert _counts(_run(family, old_superseded))["corrections"] == [0, 1]


def test_figures_sum_families_and_take_the_worst_family() -> None:
    a, b = FamilyScore("a"), FamilyScore("b")
    a.add("duplicates_worst_family", 0, 10)
    b.add("duplicates_worst_family", 1, 4)
    a.add("correct", 9, 10)
    b.add("correct", 10, 10)
    rows = {f.key: f for f in figures([a, b])}
    assert rows["correct"].value == pytest.approx(19 / 20)
    assert rows["correct"].met is True
    assert rows["duplicates_worst_family"].value == pytest.approx(0.25)
    assert rows["duplicates_worst_family"].met is False
    assert rows["tag_recall_finances"].met is None  # nothing labelled: not measured, not a miss


def test_targets_compare_as_written() -> None:
    assert Target(">=", 0.95).met(0.95) and not Target(">=", 0.95).met(0.9499)
    assert Target("<=", 0.01).met(0.01) and not Target("<=", 0.01).met(0.02)
    assert Target("==", 0).met(0) and not Target("==", 0).met(1)


# --- the ratchet ------------------------------------------------------------------------


def _report(**values: tuple[float, float]) -> ModeReport:
    scores = FamilyScore("f")
    for key, (num, den) in values.items():
        scores.add(key, num, den)
    return ModeReport("supplied", "test", figures([scores]), [scores])


def test_the_ratchet_fails_an_enforced_target_and_lists_new_ones(tmp_path: Path) -> None:
    path = tmp_path / "ratchet.json"
    path.write_text(json.dumps({"enforced": {"supplied": ["correct"]}}))
    enforced = read_ratchet(path)
    regressions, newly = check_ratchet([_report(correct=(90, 100), reachable=(95, 100))], enforced)
    assert regressions and "formed memories" in regressions[0]
    assert "supplied: reachable" in newly
    assert check_ratchet([_report(correct=(99, 100))], enforced)[0] == []


def test_writing_the_ratchet_never_removes_a_target(tmp_path: Path) -> None:
    path = tmp_path / "ratchet.json"
    path.write_text(json.dumps({"enforced": {"supplied": ["correct"], "offline": ["traps"]}}))
    written = write_ratchet(path, [_report(correct=(50, 100), reachable=(95, 100))], read_ratchet(path))
    assert "correct" in written["supplied"] and "reachable" in written["supplied"]
    assert written["offline"] == ["traps"]


def test_a_malformed_ratchet_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "ratchet.json"
    path.write_text('{"enforced": ["correct"]}')
    with pytest.raises(InvalidInputError, match="expected"):
        read_ratchet(path)


# --- evidence recall --------------------------------------------------------------------


def test_bm25_ranks_the_turn_with_the_rare_term_first() -> None:
    bm25 = BM25(["we love pizza on friday", "karate is every tuesday", "pizza pizza and more pizza"])
    assert bm25.rank("when is karate")[0] == 1
    assert bm25.rank("nothing matches this") == []


def test_recall_counts_gold_turns_covered_at_each_cut() -> None:
    totals = RecallTotals()
    gold = {("s1", 3), ("s2", 1)}
    totals.add([{("s9", 1)}, {("s1", 3)}, {("s2", 1)}], [100, 150, 100], gold)
    means = totals.means()
    assert means["R@1"] == 0.0
    assert means["R@5"] == 1.0
    assert means["R@300tok"] == 0.5  # the third line does not fit in 300 tokens


# --- one real run ---------------------------------------------------------------------


@pytest.mark.slow
def test_a_real_run_follows_the_timeline_on_the_clock_port(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FAMILY_MEMORY_EMBEDDER", "hashed")
    family = load_family(FIXTURE / "families" / "tiny.yaml")
    done = run_families([family], Mode.SUPPLIED, home=tmp_path, progress=lambda line: None)
    run = done.runs[0]
    by_summary = {v.memory.summary: v.memory for v in run.memories.values()}
    # The visit (valid until April 15) expired by the end (April 20 local): dreamed on simulated time.
    assert by_summary["Asha's mother (Nani) visits from April 10 to April 14, 2026."].status is Status.EXPIRED
    # The forgotten karate stays forgotten when restated; the chess club is learned.
    assert by_summary["Veer has karate every Tuesday at 5 pm."].status is Status.RETRACTED
    assert "Veer still does karate on Tuesdays at 5 pm." not in by_summary
    assert by_summary["Veer goes to chess club on Fridays."].status is Status.ACTIVE
    assert run.action_log == ["after t01: forget veer-karate: retracted 1"]
    assert run.brief_stable
    score = score_family(run, in_scope=lambda fact: True)
    rows = {f.key: f for f in figures([score])}
    assert rows["learned_back"].value == 0
    assert rows["dated"].value == 1.0
    assert textwrap.dedent(run.brief_texts[Surface.CHAT]).count("peanut") == 0  # health stays out of the brief


def test_a_missing_ratchet_file_is_an_error_not_a_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A ratchet that is not there would enforce nothing, and CI would pass whatever the figures.
    from family_memory.app.cli import main

    code = main(["--home", str(tmp_path / "home"), "eval", "--check-data", "--ratchet", str(tmp_path / "none.json")])
    assert code == 2
    assert "no such ratchet file" in capsys.readouterr().err


def test_a_fact_learned_after_a_forget_counts_in_its_labelled_end_state(tmp_path: Path) -> None:
    # A dated fact about the forgotten subject that has expired by the end was learned all the same.
    data = _raw()
    nani = next(f for f in data["facts"] if f["id"] == "nani-visit")
    nani["after_forget_of"] = "veer-karate"
    family = load_family(_write(tmp_path, data))
    visit = _view(
        "Nani visits April 10 to 14.", cites="t01#turn=4", status=Status.EXPIRED, valid_until=date(2026, 4, 15)
    )
    assert _counts(_run(family, visit))["after_forget_learned"] == [1, 2]  # nani (expired) yes, veer-chess absent
    active = _view("Nani visits April 10 to 14.", cites="t01#turn=4", valid_until=date(2026, 4, 15))
    assert _counts(_run(family, active))["after_forget_learned"] == [0, 2]  # labelled expired, still active
