"""``family-memory migrate`` and ``bundle check`` of a migrated family, on the local default."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from family_memory.app.cli import main
from family_memory.app.commands.migrate import format_of
from family_memory.domain.evidence import parse_ledger, serialise_ledger
from family_memory.formation.importers import SourceFormat
from formation_helpers import Turn, session_json
from migration_helpers import GOLDEN, OCTOBER

Run = tuple[int, str, str]


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.delenv("FAMILY_MEMORY_BACKEND", raising=False)
    monkeypatch.setenv("FAMILY_MEMORY_EMBEDDER", "hashed")
    home = tmp_path / "home"

    def run(*args: str) -> Run:
        code = main(["--home", str(home), *args])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def family_dir(tmp_path: Path, family_id: str = "fam-rivera") -> Path:
    return tmp_path / "home" / "families" / family_id


def with_session(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    turns: list[Turn] = [
        ("user", "lucia", "Call me Lu. We love Thai food."),
        ("user", "marco", "My favourite colour is green."),
    ]
    transcript = tmp_path / "s1.json"
    transcript.write_bytes(session_json(turns, session_id="sess-oct", started_at=OCTOBER))
    assert cli("ingest", str(transcript))[0] == 0
    for member, name in (("lucia", "Lucía Rivera"), ("marco", "Marco Rivera")):
        assert cli("family", "set-member", "--family", "fam-rivera", member, "--name", name)[0] == 0
    assert (
        cli("family", "add-member", "--family", "fam-rivera", "maya", "--name", "Maya Rivera", "--role", "child")[0]
        == 0
    )


def test_migrate_prints_the_report_writes_it_and_bundle_check_traces_it(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with_session(cli, tmp_path)
    explicit = str(GOLDEN / "explicit-memories.md")
    code, out, err = cli("migrate", "--family", "fam-rivera", "--explicit", explicit, "--as-of", "2026-11-01")
    assert code == 0, err
    assert "family fam-rivera: 17 entries from 1 file, oldest first" in out
    assert "then the family's dream:" in out
    assert "# Migration report for fam-rivera" in out and "## Entries that did not become an active memory" in out
    report = family_dir(tmp_path) / "archive" / "migration-report.md"
    assert f"report: {report.resolve()}" in out
    assert report.read_text().split("---\n", 2)[2].strip() in out  # what is printed is what is written
    assert "0 lost without a reason" in out
    code, out, _ = cli("bundle", "check", "--family", "fam-rivera")
    assert code == 0 and "0 problems" in out
    assert "memories from migrated entries, each checked against its archived line and its session" in out
    again = cli("migrate", "--family", "fam-rivera", "--explicit", explicit, "--as-of", "2026-11-01")
    assert again[0] == 0 and "every entry was migrated before (the ledger is complete): nothing to form" in again[1]
    assert "was archived before" in again[1]


def test_an_entry_lost_without_a_reason_makes_migrate_exit_1_and_bundle_check_fail(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with_session(cli, tmp_path)
    explicit = str(GOLDEN / "explicit-memories.md")
    assert cli("migrate", "--family", "fam-rivera", "--explicit", explicit, "--as-of", "2026-11-01")[0] == 0
    memories = family_dir(tmp_path) / "memories"
    ledger = next(p for p in memories.glob("*.evidence.jsonl") if "Never book flights" in p.read_text())
    records = parse_ledger(ledger.read_bytes())
    ledger.write_bytes(serialise_ledger([r for r in records if (r.model_extra or {}).get("source") != "migration"]))
    code, out, err = cli("migrate", "--family", "fam-rivera", "--explicit", explicit)
    assert code == 1 and "1 entry was lost without a reason" in err
    assert "Never book flights before 7am. - LOST" in out
    # An evidence record pointing at a line that does not hold its words fails bundle check.
    other = next(p for p in memories.glob("*.evidence.jsonl") if "Always check with me" in p.read_text())
    moved = [
        type(r).model_validate({**r.model_dump(mode="json", by_alias=True), "line": 1})
        if (r.model_extra or {}).get("source") == "migration"
        else r
        for r in parse_ledger(other.read_bytes())
    ]
    other.write_bytes(serialise_ledger(moved))
    code, out, _ = cli("bundle", "check", "--family", "fam-rivera")
    assert code == 1 and "migration: memory" in out and "line 1 does not hold the quote" in out


def test_migrate_all_walks_each_family_folder_and_goes_on_past_one_that_fails(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with_session(cli, tmp_path)
    source = tmp_path / "earlier"
    (source / "fam-rivera").mkdir(parents=True)
    (source / "fam-rivera" / "explicit-memories.md").write_bytes((GOLDEN / "explicit-memories.md").read_bytes())
    (source / "fam-rivera" / "remember.txt").write_bytes((GOLDEN / "remember.txt").read_bytes())
    (source / "fam-rivera" / "photo.jpg").write_bytes(b"\xff\xd8")
    (source / "fam-broken").mkdir()
    (source / "fam-broken" / "mem0.json").write_text('{"results": [')
    (source / "fam-new").mkdir()
    (source / "fam-new" / "explicit.txt").write_text("[2026-05-01] Always ask before ordering takeout\n")
    (source / "Not A Family").mkdir()
    code, out, err = cli(
        "migrate", "--all", "--from", str(source), "--member", "lucia", "--time-zone", "America/Los_Angeles"
    )
    assert code == 2  # fam-broken could not be migrated; the others were
    assert "family fam-broken: not migrated: mem0.json (a Mem0 get_all export): it is not valid JSON" in err
    assert "skipped folder" in err and "Not A Family" in err
    assert "photo.jpg: not a migration source by its name" in out
    assert "family fam-rivera: 23 entries from 2 files" in out and "family fam-new: 1 entry from 1 file" in out
    assert (family_dir(tmp_path, "fam-new") / "family.json").exists()
    assert not (family_dir(tmp_path, "fam-broken") / "archive").exists()
    settings = json.loads((family_dir(tmp_path, "fam-new") / "family.json").read_text())
    assert settings["time_zone"] == "America/Los_Angeles" and [m["id"] for m in settings["members"]] == ["lucia"]
    # Resumed: every family already done is left as it is.
    code, out, _ = cli("migrate", "--all", "--from", str(source), "--member", "lucia")
    assert code == 2 and out.count("nothing to form") == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--family", "fam-rivera"), "name what to migrate: --explicit FILE, --mem0 FILE, --list FILE or --from DIR"),
        (("--all",), "--all migrates the family folders under --from DIR: give --from"),
        (("--family", "fam-rivera", "--list", "x.txt", "--map", "alice"), "--map 'alice': write USER=MEMBER"),
        (("--family", "fam-rivera", "--list", "x.txt", "--as-of", "soon"), "--as-of 'soon': write YYYY-MM-DD"),
        (("--family", "fam-rivera", "--list", "missing.txt"), "cannot read missing.txt"),
    ],
)
def test_migrate_refuses_what_it_cannot_do_in_one_line(cli, args: tuple[str, ...], message: str) -> None:  # type: ignore[no-untyped-def]
    code, _, err = cli("migrate", *args)
    assert code == 2 and message in err


def test_a_files_name_says_its_format_in_a_from_folder() -> None:
    assert format_of("explicit-memories.md") is SourceFormat.EXPLICIT
    assert format_of("Explicit.TXT") is SourceFormat.EXPLICIT
    assert format_of("mem0-export.json") is SourceFormat.MEM0
    assert format_of("remember.txt") is SourceFormat.LIST and format_of("list-2026.md") is SourceFormat.LIST
    assert format_of("mem0.txt") is None and format_of("notes.md") is None and format_of("explicit.json") is None


def test_migrate_on_the_aws_backend_under_moto(  # type: ignore[no-untyped-def]
    aws, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from conftest import TEST_BUCKET, TEST_TABLE

    for name, value in {
        "FAMILY_MEMORY_BACKEND": "aws",
        "MEMORY_BUCKET": TEST_BUCKET,
        "MEMORY_TABLE": TEST_TABLE,
        "FAMILY_MEMORY_EMBEDDER": "hashed",
    }.items():
        monkeypatch.setenv(name, value)
    notes = tmp_path / "explicit.txt"
    notes.write_text("[2026-05-01] Always ask before ordering takeout\nWe love tacos\n[2026-13-01] broken date\n")
    args = ["migrate", "--family", "fam-cloud", "--explicit", str(notes), "--member", "ana"]
    code = main([*args, "--time-zone", "Europe/Madrid", "--as-of", "2026-06-01"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "2 became active memories, 0 did not" in out and "1 line could not be read" in out
    assert "report: s3://family-memory-test-bucket/families/fam-cloud/archive/migration-report.md" in out
    assert "then the family's dream:" in out
    s3 = aws.client("s3")
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket=TEST_BUCKET, Prefix="families/fam-cloud/archive/")["Contents"]]
    assert (
        any(k.endswith("/explicit.txt.orig") for k in keys) and "families/fam-cloud/archive/migration-report.md" in keys
    )
    index = s3.get_object(Bucket=TEST_BUCKET, Key="families/fam-cloud/index.md")["Body"].read().decode()
    assert "# Archive" in index
    assert main(["bundle", "check", "--family", "fam-cloud"]) == 0
    assert "2 evidence records of 2 memories from migrated entries" in capsys.readouterr().out
    assert main(args) == 0 and "nothing to form" in capsys.readouterr().out
