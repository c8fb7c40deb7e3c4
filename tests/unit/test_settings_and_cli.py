"""Settings validation, the composition roots and the foundation's commands."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import TEST_BUCKET, TEST_TABLE
from factories import FAMILY, add, change_set, evidence, memory
from family_memory.adapters.aws.dynamo_catalog import DynamoCatalog
from family_memory.adapters.aws.s3_store import S3Store
from family_memory.app.bootstrap import build_aws, build_local
from family_memory.app.cli import main
from family_memory.app.settings import Settings, load_settings
from family_memory.domain.errors import ConfigurationError, InvalidInputError


def test_local_is_the_default_backend() -> None:
    settings = load_settings({})
    assert settings.backend == "local"
    assert settings.home == Path(".family-memory")


def test_aws_backend_requires_bucket_and_table() -> None:
    with pytest.raises(ConfigurationError, match="MEMORY_BUCKET and MEMORY_TABLE, which are not set"):
        load_settings({"FAMILY_MEMORY_BACKEND": "aws"})
    with pytest.raises(ConfigurationError, match="needs MEMORY_TABLE, which is not set"):
        load_settings({"FAMILY_MEMORY_BACKEND": "aws", "MEMORY_BUCKET": "b"})


def test_bad_settings_name_the_variable_and_the_problem_never_the_value() -> None:
    with pytest.raises(ConfigurationError, match="FAMILY_MEMORY_BACKEND: Input should be 'local' or 'aws'"):
        load_settings({"FAMILY_MEMORY_BACKEND": "gcp"})
    with pytest.raises(ConfigurationError, match="LEASE_TTL_SECONDS: Input should be greater than 0") as bad:
        load_settings({"LEASE_TTL_SECONDS": "-1", "OPENSEARCH_INDEX": "Secret:Pa55"})
    assert "OPENSEARCH_INDEX: String should match pattern" in str(bad.value) and "Pa55" not in str(bad.value)
    # A configuration problem is never the caller's input (the API would answer it 400).
    assert not isinstance(bad.value, InvalidInputError)


def test_every_variable_of_the_readme_table_is_a_settings_alias_with_its_default() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    table = readme[readme.index("| variable | default | meaning |") :].split("\n\n", 1)[0]
    rows = [line.split("|")[1:3] for line in table.splitlines()[2:]]
    documented = {name.strip().strip("`"): default.strip() for name, default in rows}
    aliases = {Settings.variable(field): field for field in Settings.model_fields}
    assert set(documented) == set(aliases)
    defaults = load_settings({})
    for name, field in aliases.items():
        value = getattr(defaults, field)
        if value is not None and name != "FAMILY_MEMORY_HOME":
            shown = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
            assert documented[name].startswith(f"`{shown}`"), (name, documented[name])


def test_an_empty_variable_means_not_set_and_overrides_win_over_the_environment() -> None:
    assert load_settings({"LEASE_TTL_SECONDS": ""}).lease_ttl_seconds == 30
    assert load_settings({"LEASE_WAIT_SECONDS": "9"}, lease_wait_seconds=5).lease_wait_seconds == 5
    assert load_settings({"DREAM_PROMOTE_AFTER": "4"}).dream_promote_after == 4
    with pytest.raises(ConfigurationError, match="nope: Extra inputs are not permitted"):
        load_settings({}, nope=1)


def test_the_process_environment_is_read_when_no_mapping_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOOKUP_MAX_ITEMS", "7")
    assert load_settings().lookup_max_items == 7
    assert load_settings({}).lookup_max_items == 5


def test_a_function_names_each_variable_it_needs_that_is_not_set() -> None:
    settings = load_settings({})
    with pytest.raises(ConfigurationError, match="the indexer function needs OPENSEARCH_ENDPOINT, which is not set"):
        settings.require("the indexer function", ("opensearch_endpoint",))
    settings.require("the compile function", ())


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
    runtime = build_local(load_settings({}, home=str(tmp_path)))
    runtime.writer.apply(change_set(add(memory(), evidence(session="sess-1"))))
    runtime.store.put(FAMILY, "sessions/sess-1.json", b"{}")  # the cited session is stored
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
