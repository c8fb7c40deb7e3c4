"""Settings validation, the composition roots and the foundation's commands."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import TEST_BUCKET, TEST_TABLE
from factories import FAMILY, add, change_set, memory
from family_memory.adapters.aws.dynamo_catalog import DynamoCatalog
from family_memory.adapters.aws.s3_store import S3Store
from family_memory.app.bootstrap import build_aws, build_local
from family_memory.app.cli import main
from family_memory.app.settings import load_settings
from family_memory.domain.errors import InvalidInputError


def test_local_is_the_default_backend() -> None:
    settings = load_settings({})
    assert settings.backend == "local"
    assert settings.home == Path(".family-memory")


def test_aws_backend_requires_bucket_and_table() -> None:
    with pytest.raises(InvalidInputError, match="MEMORY_BUCKET and MEMORY_TABLE"):
        load_settings({"FAMILY_MEMORY_BACKEND": "aws"})


def test_bad_settings_name_the_variable_and_the_problem() -> None:
    with pytest.raises(InvalidInputError, match="backend"):
        load_settings({"FAMILY_MEMORY_BACKEND": "gcp"})
    with pytest.raises(InvalidInputError, match="lease_ttl_seconds"):
        load_settings({"LEASE_TTL_SECONDS": "-1"})


def test_build_aws_wires_s3_and_dynamodb(aws: object) -> None:
    settings = load_settings({"FAMILY_MEMORY_BACKEND": "aws", "MEMORY_BUCKET": TEST_BUCKET, "MEMORY_TABLE": TEST_TABLE})
    runtime = build_aws(settings, session=aws)
    assert isinstance(runtime.store, S3Store)
    assert isinstance(runtime.catalog, DynamoCatalog)
    result = runtime.writer.apply(change_set(add(memory())))
    assert result.applied


def _seed(home: Path) -> str:
    runtime = build_local(load_settings({}, home=str(home)))
    m = memory()
    runtime.writer.apply(change_set(add(m)))
    return m.id


def test_catalog_check_exits_zero_when_consistent_and_one_when_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    memory_id = _seed(tmp_path)
    assert main(["--home", str(tmp_path), "catalog", "check", "--family", FAMILY]) == 0
    assert "consistent" in capsys.readouterr().out
    (tmp_path / "catalog.sqlite3").unlink()
    for suffix in ("-wal", "-shm"):
        (tmp_path / f"catalog.sqlite3{suffix}").unlink(missing_ok=True)
    assert main(["--home", str(tmp_path), "catalog", "check", "--all"]) == 1
    assert f"missing row   {memory_id}" in capsys.readouterr().out
    assert main(["--home", str(tmp_path), "catalog", "rebuild", "--all"]) == 0
    assert main(["--home", str(tmp_path), "catalog", "check", "--family", FAMILY]) == 0


def test_bundle_check_reports_conformance(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _seed(tmp_path)
    assert main(["--home", str(tmp_path), "bundle", "check", "--family", FAMILY]) == 0
    assert "0 problems" in capsys.readouterr().out
    (tmp_path / "families" / FAMILY / "memories" / "broken.md").write_text("no front matter here")
    assert main(["--home", str(tmp_path), "bundle", "check", "--family", FAMILY]) == 1
    assert "memories/broken.md: no front matter" in capsys.readouterr().out


def test_bad_ids_on_the_command_line_get_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--home", str(tmp_path), "catalog", "check", "--family", "../etc"]) == 2
    assert "family id '../etc' is not allowed" in capsys.readouterr().err


def test_families_lists_every_family(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _seed(tmp_path)
    assert main(["--home", str(tmp_path), "families"]) == 0
    assert capsys.readouterr().out.split() == [FAMILY]
