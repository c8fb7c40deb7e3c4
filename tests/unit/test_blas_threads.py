"""One BLAS thread for the service, wherever it runs (docs/benchmarks.md, the BLAS decision): the
command line (and so the local server and the MCP server it starts) and every Lambda function."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from family_memory.app.cli import main

ROOT = Path(__file__).resolve().parents[2]

#: The variables ``main`` sets for a command's process (undone after each test here).
MAIN_SETS = ("POWERTOOLS_METRICS_DISABLED", "POWERTOOLS_TRACE_DISABLED", "OPENBLAS_NUM_THREADS", "POWERTOOLS_LOG_LEVEL")


@pytest.fixture
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in MAIN_SETS:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_the_command_line_pins_one_blas_thread(clean_environment: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert main(["--home", str(tmp_path), "families"]) == 0
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"


def test_a_thread_count_already_set_is_left_as_it_is(clean_environment: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clean_environment.setenv("OPENBLAS_NUM_THREADS", "2")
    assert main(["--home", str(tmp_path), "families"]) == 0
    assert os.environ["OPENBLAS_NUM_THREADS"] == "2"


def test_numpy_is_not_loaded_before_the_command_line_sets_the_thread_count() -> None:
    # OpenBLAS reads the variable once, when numpy loads it: importing the entry must not load numpy.
    code = "import sys, family_memory.app.cli; sys.exit(3 if 'numpy' in sys.modules else 0)"
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "shared")}
    assert subprocess.run([sys.executable, "-c", code], env=environment, check=False).returncode == 0


class _CfnLoader(yaml.SafeLoader):
    """Reads CloudFormation short-form tags (!Ref, !GetAtt, !Sub) as plain values."""


_CfnLoader.add_multi_constructor("!", lambda loader, suffix, node: None)


def test_every_lambda_function_runs_one_blas_thread() -> None:
    loaded = yaml.load((ROOT / "template.yaml").read_text(), Loader=_CfnLoader)  # noqa: S506
    assert loaded["Globals"]["Function"]["Environment"]["Variables"]["OPENBLAS_NUM_THREADS"] == "1"
    for name, resource in loaded["Resources"].items():
        if resource["Type"] == "AWS::Serverless::Function":
            variables = resource.get("Properties", {}).get("Environment", {}).get("Variables", {})
            assert variables.get("OPENBLAS_NUM_THREADS", "1") == "1", name
