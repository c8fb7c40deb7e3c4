"""CI and the Makefile run the same steps; mypy covers the handlers and the tests."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _commands(script: str) -> list[str]:
    return [line.strip() for line in script.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_ci_installs_a_fresh_venv_and_then_runs_make_ci() -> None:
    commands = _commands((ROOT / ".ci" / "run").read_text())
    makes = [c for c in commands if c.startswith("make ")]
    assert "rm -rf .venv" in commands
    assert [m.split()[1] for m in makes] == ["install", "ci"]
    assert commands.index("rm -rf .venv") < commands.index(makes[0])


def test_make_ci_runs_every_check_and_the_readme_test_command() -> None:
    makefile = (ROOT / "Makefile").read_text()
    steps = re.search(r"^CI_STEPS := (.+)$", makefile, re.MULTILINE)
    assert steps is not None
    assert steps.group(1).split() == ["lint", "typecheck", "template", "mutations-check", "test", "eval"]
    test_recipe = re.search(r"^test: .*\n\t(.+)$", makefile, re.MULTILINE)
    assert test_recipe is not None and test_recipe.group(1) == "$(BIN)/python -m pytest"
    assert re.search(r"^format: ", makefile, re.MULTILINE)


def test_mypy_checks_the_package_the_tools_the_handlers_and_the_tests() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["strict"] is True
    assert set(config["files"]) == {"shared/family_memory", "shared/family_memory_tools", "functions", "tests"}
