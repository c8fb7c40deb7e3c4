"""What pyproject.toml declares must cover what the code calls."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def _requirement(extra: str, name: str) -> Requirement:
    declared = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["optional-dependencies"][extra]
    (found,) = [r for r in map(Requirement, declared) if r.name == name]
    return found


def test_the_declared_numpy_minimum_has_bitwise_count() -> None:
    # The embedded index calls np.bitwise_count (adapters/local/embedded_index.py), which
    # NumPy added in 2.0: with 1.x every query holding an unknown word raises AttributeError.
    numpy = _requirement("local", "numpy")
    minimums = [Version(s.version) for s in numpy.specifier if s.operator in (">=", "==", "~=", ">")]
    assert minimums, f"numpy has no lower bound: {numpy}"
    assert max(minimums).major >= 2, f"{numpy} allows NumPy 1.x, which has no np.bitwise_count"
    assert not numpy.specifier.contains("1.26.4")


def test_the_constraints_pin_a_numpy_the_declared_range_allows() -> None:
    constraints = (PYPROJECT.parent / "requirements" / "constraints.txt").read_text(encoding="utf-8")
    (pin,) = [Requirement(line) for line in constraints.splitlines() if line.startswith("numpy==")]
    (version,) = [s.version for s in pin.specifier]
    assert _requirement("local", "numpy").specifier.contains(version)
