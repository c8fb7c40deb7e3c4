"""The command line: ingest, replay and the memory card."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from family_memory.app.cli import main
from formation_helpers import candidate, session_json

Run = tuple[int, str, str]


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.delenv("FAMILY_MEMORY_BACKEND", raising=False)
    home = tmp_path / "home"

    def run(*args: str) -> Run:
        code = main(["--home", str(home), *args])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def write(tmp_path: Path, name: str, data: bytes | str) -> str:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return str(path)


def ids(out: str) -> list[str]:
    return re.findall(r"^([0-7][0-9A-HJKMNP-TV-Z]{25})\s", out, flags=re.M)


def test_ingest_forms_memories_and_shows_where_they_are(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    transcript = write(
        tmp_path, "s1.json", session_json([("user", "lucia", "We love Thai food. Never book red-eyes.")])
    )
    code, out, _ = cli("ingest", transcript)
    assert code == 0
    assert "stored session sess-1 of family fam-rivera" in out
    assert "offline rule-based extractor" in out
    assert out.count("-> added") == 2 and "/memories/" in out
    code, out, _ = cli("ingest", transcript)
    assert code == 0 and "already stored with the same content" in out and "-> added" in out


def test_ingest_with_supplied_candidates_shows_each_rejection(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    transcript = write(tmp_path, "s1.json", session_json([("user", "lucia", "We love Thai food.")]))
    batch = {"producer": "batch", "candidates": [candidate(), candidate(evidence=[{"turns": [4], "quote": "x"}])]}
    code, out, _ = cli("ingest", transcript, "--candidates", write(tmp_path, "c.json", json.dumps(batch)))
    assert code == 0 and "candidates supplied by the caller (batch)" in out
    assert "REJECTED" in out and "turns_exist: evidence 1 cites turn 4, but the session has 1 turns" in out


def test_a_malformed_transcript_is_refused_with_the_field_named(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = json.loads(session_json([("user", "lucia", "hi")]))
    bad["turns"][0].pop("member_id")
    code, _, err = cli("ingest", write(tmp_path, "bad.json", json.dumps(bad)))
    assert code == 2 and "without a member_id" in err
    assert not (tmp_path / "home" / "families" / "fam-rivera" / "sessions").exists()


def test_the_memory_card_round_trip(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    cli(
        "ingest",
        write(tmp_path, "s1.json", session_json([("user", "lucia", "We love Thai food. Maya loves swimming.")])),
    )
    code, out, _ = cli("memories", "list", "--family", "fam-rivera")
    assert code == 0 and len(ids(out)) == 2
    thai = next(line.split()[0] for line in out.splitlines() if "Thai" in line)

    code, out, _ = cli("memories", "evidence", "--family", "fam-rivera", thai)
    assert '"We love Thai food"' in out and "(lucia)" in out

    code, out, _ = cli(
        "memories", "edit", "--family", "fam-rivera", thai, "--member", "lucia", "--summary", "We love Lao food."
    )
    assert code == 0 and "superseded" in out
    found = re.search(r"^by\s+(\S+)", out, flags=re.M)
    assert found is not None
    new = found.group(1)
    code, out, _ = cli("memories", "lineage", "--family", "fam-rivera", new)
    assert thai in out and "verified by human:lucia" in out

    code, out, _ = cli("memories", "forget", "--family", "fam-rivera", new, "--member", "lucia")
    assert code == 0 and "suppression rule" in out

    code, out, _ = cli(
        "memories",
        "add",
        "--family",
        "fam-rivera",
        "--member",
        "lucia",
        "--type",
        "directive",
        "--about",
        "Flights",
        "--summary",
        "Never book red-eyes.",
        "--hard",
    )
    assert code == 0 and out.startswith("added ")

    code, out, _ = cli("memories", "forget-group", "--family", "fam-rivera", "--member", "lucia", "--entity", "Maya")
    assert "1 memories would be forgotten" in out and "--yes --expect 1" in out
    code, out, _ = cli(
        "memories",
        "forget-group",
        "--family",
        "fam-rivera",
        "--member",
        "lucia",
        "--entity",
        "Maya",
        "--yes",
        "--expect",
        "5",
    )
    assert code == 2
    code, out, _ = cli(
        "memories",
        "forget-group",
        "--family",
        "fam-rivera",
        "--member",
        "lucia",
        "--entity",
        "Maya",
        "--yes",
        "--expect",
        "1",
    )
    assert code == 0 and "forgot 1 memories" in out

    code, out, _ = cli("memories", "show", "--family", "fam-rivera", thai)
    assert "status: superseded" in out and out.splitlines()[0].endswith(f"{thai}.md")


def test_replay_reports_and_ends_with_the_familys_dream(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    cli("ingest", write(tmp_path, "s1.json", session_json([("user", "lucia", "We love Thai food.")])))
    code, out, _ = cli("replay", "--family", "fam-rivera")
    assert code == 0
    assert "memories added 0, reinforced 0" in out
    assert "then the family's dream:" in out
    assert "dream for" in out
    assert "No dream was run" not in out


def test_ingesting_again_finishes_a_run_that_stopped_before_reconciling(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from family_memory.app.bootstrap import build_local
    from family_memory.app.formation import formation
    from family_memory.app.settings import load_settings
    from family_memory.formation.service import extract_session, receive_session

    data = session_json([("user", "lucia", "We love Thai food.")])
    runtime = build_local(load_settings({}, home=str(tmp_path / "home"), backend="local"))
    receive_session(formation(runtime).deps, data)
    extract_session(formation(runtime).deps, "fam-rivera", "sess-1", enqueue=False)  # then the process "stopped"
    code, out, _ = cli("ingest", write(tmp_path, "s1.json", data))
    assert code == 0 and "already stored" in out and "-> added" in out


def test_the_card_refuses_bad_input_with_a_clear_error_and_writes_nothing(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    add = ("memories", "add", "--type", "fact", "--about", "Bedtime", "--summary", "Bed at 8.")
    code, _, err = cli(*add, "--family", "fam-zz", "--member", "nobody")
    assert code == 2 and "family fam-zz does not exist" in err
    assert not (tmp_path / "home" / "families" / "fam-zz").exists() and not list(tmp_path.glob("home/**/fam-zz"))
    cli("ingest", write(tmp_path, "s1.json", session_json([("user", "lucia", "We love Thai food.")])))
    code, _, err = cli(*add, "--family", "fam-rivera", "--member", "lucia", "--applies-to", "bad\x01name")
    assert code == 2 and "applies_to" in err and "control character" in err and "Traceback" not in err
    code, _, err = cli(*add, "--family", "fam-rivera", "--member", "lucia", "--valid-until", "2020-01-01")
    assert code == 2 and "valid_until 2020-01-01 is not after the family's date today" in err
