"""A configuration problem reaches a caller as a 500 with a fixed text, never as a 400."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from api_helpers import api_event, error_of
from family_memory.app.api import resolve_api_event
from family_memory.app.cli import main
from family_memory.app.runtime import Runtime
from family_memory.domain.clock import FixedClock
from family_memory.domain.errors import MISCONFIGURED, ConfigurationError
from formation_helpers import FAMILY, FRIDAY_MORNING
from retrieval_helpers import local_runtime


@pytest.fixture
def rt(tmp_path: Path) -> Runtime:
    return local_runtime(tmp_path / "home", FixedClock(FRIDAY_MORNING), embedder="hashed")


def test_a_configuration_error_in_a_request_is_a_500_with_a_fixed_text_and_is_logged(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def misconfigured(*_: Any, **__: Any) -> Any:
        raise ConfigurationError("configuration: OPENSEARCH_ENDPOINT: https://admin:hunter2@search is refused")

    monkeypatch.setattr("family_memory.app.routes.card.list_memories", misconfigured)
    with caplog.at_level(logging.ERROR):
        response = resolve_api_event(rt, api_event("GET", f"/families/{FAMILY}/memories"))
    assert error_of(response) == (500, "configuration_error", MISCONFIGURED)
    assert "hunter2" not in response["body"]
    assert any("OPENSEARCH_ENDPOINT" in str(getattr(r, "detail", "")) for r in caplog.records)


def test_a_bad_variable_stops_a_command_with_its_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LOOKUP_MAX_ITEMS", "many")
    assert main(["--home", str(tmp_path), "families"]) == 2
    assert "LOOKUP_MAX_ITEMS: Input should be a valid integer" in capsys.readouterr().err
