"""layers/family-memory/prune.py removes a distribution's files by its RECORD, and nothing else."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

PRUNE = Path(__file__).resolve().parents[2] / "layers" / "family-memory" / "prune.py"


def _prune() -> object:
    spec = importlib.util.spec_from_file_location("prune", PRUNE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _dist(target: Path, name: str, version: str, files: list[str]) -> None:
    info = target / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    for relative in files:
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        (target / relative).write_text("x")
    record = [*files, f"{info.name}/RECORD"]
    (info / "RECORD").write_text("".join(f"{r},,\n" for r in record))


def test_an_excluded_distribution_is_removed_with_its_empty_folders(tmp_path: Path) -> None:
    prune = _prune()
    _dist(tmp_path, "protobuf", "7.36.2", ["google/protobuf/__init__.py", "google/protobuf/internal/x.py"])
    _dist(tmp_path, "grpcio", "1.85.3", ["grpc/__init__.py", "grpc/_cython/cygrpc.so"])
    _dist(tmp_path, "boto3", "1.44.8", ["boto3/__init__.py"])
    removed = prune.prune(tmp_path, {"protobuf", "grpcio", "not-installed"})  # type: ignore[attr-defined]
    assert sorted(removed) == ["grpcio", "protobuf"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["boto3", "boto3-1.44.8.dist-info"]


def test_a_record_pointing_outside_the_folder_is_refused(tmp_path: Path) -> None:
    prune = _prune()
    _dist(tmp_path / "layer", "evil", "1.0", ["evil/__init__.py"])
    record = tmp_path / "layer" / "evil-1.0.dist-info" / "RECORD"
    record.write_text(record.read_text() + "../outside.txt,,\n")
    (tmp_path / "outside.txt").write_text("keep")
    with pytest.raises(SystemExit, match="outside"):
        prune.prune(tmp_path / "layer", {"evil"})  # type: ignore[attr-defined]
    assert (tmp_path / "outside.txt").read_text() == "keep"


def test_names_are_normalised_and_comments_ignored(tmp_path: Path) -> None:
    prune = _prune()
    exclude = tmp_path / "EXCLUDE"
    exclude.write_text("# why\nOpenSearch_Protobufs  # a comment\n\ngrpcio\n")
    assert prune.names(exclude) == {"opensearch-protobufs", "grpcio"}  # type: ignore[attr-defined]
