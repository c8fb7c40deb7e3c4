"""The command line: ingest, replay and the memory card."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from family_memory.adapters.local.embedded_index import EmbeddedIndex
from family_memory.app.cli import main
from family_memory.formation.extraction import ExtractionUnavailableError
from family_memory.formation.offline import OfflineExtractor
from family_memory.retrieval.search_index import IndexUnavailableError
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
    from family_memory.app.settings import load_settings
    from family_memory.formation.service import extract_session, receive_session

    data = session_json([("user", "lucia", "We love Thai food.")])
    runtime = build_local(load_settings({}, home=str(tmp_path / "home"), backend="local"))
    receive_session(runtime.formation.deps, data)
    extract_session(runtime.formation.deps, "fam-rivera", "sess-1", enqueue=False)  # then the process "stopped"
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


def test_a_later_speaker_joins_the_family_and_the_family_commands_manage_it(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    cli("ingest", write(tmp_path, "s1.json", session_json([("user", "lucia", "We love Thai food.")])))
    later = session_json([("user", "ben", "Never book red-eyes.")], session_id="sess-2")
    code, out, _ = cli("ingest", write(tmp_path, "s2.json", later))
    assert code == 0
    red_eyes = next(
        line.split()[0]
        for line in cli("memories", "list", "--family", "fam-rivera")[1].splitlines()
        if "red-eyes" in line
    )
    code, out, err = cli("memories", "forget", "--family", "fam-rivera", red_eyes, "--member", "ben")
    assert code == 0 and "forgotten" in out, err  # was: "member 'ben' is not in family fam-rivera"

    code, out, _ = cli("family", "show", "--family", "fam-rivera")
    assert code == 0 and "time zone: America/Los_Angeles" in out
    assert re.search(r"lucia\s+lucia \(adult\)", out) and re.search(r"ben\s+ben \(adult\)", out)
    code, out, _ = cli(
        "family", "set-member", "--family", "fam-rivera", "ben", "--name", "Ben Okafor", "--address-as", "Benny"
    )
    assert code == 0 and "Ben Okafor (adult, addressed as Benny)" in out
    code, out, _ = cli(
        "family", "add-member", "--family", "fam-rivera", "maya", "--name", "Maya Rivera", "--role", "child"
    )
    assert code == 0 and "Maya Rivera (child)" in out
    code, _, err = cli("family", "add-member", "--family", "fam-rivera", "maya", "--name", "Maya")
    assert code == 2 and "already in family" in err
    code, _, err = cli("family", "add-member", "--family", "fam-rivera", "../x", "--name", "X")
    assert code == 2 and "member id" in err
    code, _, err = cli("family", "set-member", "--family", "fam-rivera", "zed", "--role", "child")
    assert code == 2 and "member 'zed' is not in family" in err
    code, _, err = cli("family", "set-zone", "--family", "fam-rivera", "Mars/Olympus")
    assert code == 2 and "time_zone" in err and "not an IANA time zone" in err
    code, out, _ = cli("family", "set-zone", "--family", "fam-rivera", "Europe/Madrid")
    assert code == 0 and "time zone Europe/Madrid" in out
    code, out, _ = cli("family", "show", "--family", "fam-rivera")
    assert "time zone: Europe/Madrid" in out and "Ben Okafor" in out and "Maya Rivera (child)" in out
    code, _, err = cli("family", "show", "--family", "fam-nobody")
    assert code == 2 and "does not exist" in err


def test_show_and_lineage_say_a_hard_constraint_is_possibly_replaced(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    cli("ingest", write(tmp_path, "s1.json", session_json([("user", "lucia", "Our dog Pepper needs his pills at 8.")])))
    later = session_json([("user", "lucia", "Pepper needs his pills at 9.")], session_id="sess-2")
    cli("ingest", write(tmp_path, "s2.json", later))
    listing = cli("memories", "list", "--family", "fam-rivera")[1].splitlines()
    old = next(line.split()[0] for line in listing if line.endswith("Pepper needs his pills at 8."))
    new = next(line.split()[0] for line in listing if "at 9" in line)
    code, out, _ = cli("memories", "show", "--family", "fam-rivera", old)
    assert code == 0 and f"possibly replaced by {new}: Pepper needs his pills at 9." in out
    assert "ask the family which holds" in out
    code, out, _ = cli("memories", "lineage", "--family", "fam-rivera", new)
    assert f"possibly replaces {old}: Pepper needs his pills at 8." in out
    code, out, _ = cli("memories", "evidence", "--family", "fam-rivera", old)
    assert "CONFLICTS" in out and f"possibly replaced by memory {new}" in out


def test_more_than_200_supplied_candidates_are_refused_and_nothing_is_stored(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    transcript = write(tmp_path, "s1.json", session_json([("user", "lucia", "We love Thai food.")]))
    many = {"producer": "batch", "candidates": [candidate() for _ in range(201)]}
    code, _, err = cli("ingest", transcript, "--candidates", write(tmp_path, "c.json", json.dumps(many)))
    assert code == 2 and "candidates: 201 supplied for one session; at most 200 are accepted" in err
    assert not list(tmp_path.glob("home/families/fam-rivera/**/*.json"))
    enough = {"producer": "batch", "candidates": [candidate() for _ in range(200)]}
    code, out, _ = cli("ingest", transcript, "--candidates", write(tmp_path, "c2.json", json.dumps(enough)))
    assert code == 0 and "REJECTED" in out


def test_an_edit_can_clear_an_end_date(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    cli("ingest", write(tmp_path, "s1.json", session_json([("user", "lucia", "We love Thai food.")])))
    base = ("memories", "add", "--family", "fam-rivera", "--member", "lucia", "--type", "fact", "--about", "Plumber")
    code, out, _ = cli(*base, "--summary", "The plumber comes soon.", "--valid-until", "2099-01-01")
    memory_id = ids(out.removeprefix("added "))[0]
    code, out, _ = cli(
        "memories", "edit", "--family", "fam-rivera", memory_id, "--member", "lucia", "--clear-valid-until"
    )
    assert code == 0 and "until 2099-01-01" in out.splitlines()[0] and "until" not in out.splitlines()[1]


def test_an_edit_can_unpin_a_memory(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    cli("ingest", write(tmp_path, "s1.json", session_json([("user", "lucia", "We love Thai food.")])))
    base = ("memories", "add", "--family", "fam-rivera", "--member", "lucia", "--type", "fact", "--about", "Plumber")
    code, out, _ = cli(*base, "--summary", "The plumber is Ana.", "--pin")
    pinned = ids(out.removeprefix("added "))[0]
    code, out, _ = cli("memories", "edit", "--family", "fam-rivera", pinned, "--member", "lucia", "--unpin")
    assert code == 0
    found = re.search(r"^by\s+(\S+)", out, flags=re.M)
    assert found is not None
    code, out, _ = cli("memories", "show", "--family", "fam-rivera", found.group(1))
    assert code == 0 and "pin: false" in out
    code, out, _ = cli("memories", "show", "--family", "fam-rivera", pinned)
    assert "pin: true" in out


def test_a_command_whose_formation_fails_says_so_and_exits_2(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unreachable(self: object, transcript: object, family: object) -> object:
        raise ExtractionUnavailableError("Bedrock could not be reached: timeout")

    monkeypatch.setattr(OfflineExtractor, "_extract", unreachable)
    code, out, err = cli("ingest", write(tmp_path, "s1.json", session_json([("user", "lucia", "We love Thai food.")])))
    assert code == 2 and "Bedrock could not be reached" in out + err
    assert "run in AWS" not in out  # a one-shot command never reports local work as started elsewhere


def test_a_card_change_whose_indexing_fails_says_so_and_exits_2(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli("ingest", write(tmp_path, "s1.json", session_json([("user", "lucia", "We love Thai food.")])))

    def down(*_: object, **__: object) -> None:
        raise IndexUnavailableError("the index is down")

    monkeypatch.setattr(EmbeddedIndex, "upsert", down)
    base = ("memories", "add", "--family", "fam-rivera", "--member", "lucia", "--type", "fact", "--about", "Plumber")
    code, out, err = cli(*base, "--summary", "The plumber is Ana.")
    assert code == 2 and "the index is down" in out + err
    code, out, _ = cli("memories", "list", "--family", "fam-rivera")
    assert code == 0 and "The plumber is Ana." in out  # the change itself is on file


def test_listings_show_control_and_format_characters_escaped(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # A summary may hold a bidirectional override (it is one line of text); printed raw, it would
    # make the terminal show the line reversed. Listings write it as a literal instead.
    cli("ingest", write(tmp_path, "s1.json", session_json([("user", "lucia", "We love Thai food.")])))
    tricky = "Tea \u202etxet desrever\u202c and \u200bhidden"
    code, out, err = cli(
        "memories", "add", "--family", "fam-rivera", "--member", "lucia", "--type", "preference",
        "--about", "tea", "--summary", tricky,
    )  # fmt: skip
    assert code == 0, err
    assert "\u202e" not in out and '"Tea \\u202etxet desrever\\u202c and \\u200bhidden"' in out
    memory = ids(out.replace("added ", ""))[0]
    for args in (
        ("memories", "list", "--family", "fam-rivera"),
        ("memories", "evidence", "--family", "fam-rivera", memory),
        ("memories", "lineage", "--family", "fam-rivera", memory),
        ("memories", "forget-group", "--family", "fam-rivera", "--member", "lucia", "--topic", "Tea"),
    ):
        code, out, _ = cli(*args)
        assert code == 0 and "\\u202etxet" in out, args
        assert not any(c in out for c in "\u202e\u202c\u200b"), args
    code, out, _ = cli("memories", "list", "--family", "fam-rivera")
    assert "  The family loves Thai food.\n" in out  # plain text stays as it is

    code, out, _ = cli(
        "family", "add-member", "--family", "fam-rivera", "ana", "--name", "Ana \u202eZ", "--address-as", "A\u2066"
    )
    assert code == 0 and '"Ana \\u202eZ"' in out and '"A\\u2066"' in out
    code, out, _ = cli("family", "show", "--family", "fam-rivera")
    assert '"Ana \\u202eZ"' in out and not any(c in out for c in "\u202e\u2066")


def test_replay_failed_only_extracts_every_familys_waiting_sessions(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from family_memory.app.bootstrap import build_local
    from family_memory.app.settings import load_settings
    from family_memory.formation.service import receive_session

    # A session stored while the model could not be called: no candidates were recorded.
    runtime = build_local(load_settings({}, home=str(tmp_path / "home"), backend="local"))
    receive_session(runtime.formation.deps, session_json([("user", "lucia", "We love Thai food.")]))
    code, out, _ = cli("replay", "--failed-only", "--all")
    assert code == 0, out
    assert "fam-rivera: 1 sessions extracted again (sess-1): added 1" in out
    code, out, _ = cli("replay", "--failed-only", "--family", "fam-rivera")
    assert code == 0 and "no session waits for extraction" in out
    code, _, err = cli("replay", "--all")
    assert code != 0 and "--failed-only" in err
