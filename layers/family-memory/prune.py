"""Remove distributions from a ``pip install --target`` folder, by the files their RECORD lists.

Usage: ``python prune.py TARGET EXCLUDE_FILE`` (one distribution name a line, ``#`` comments).
A name that is not installed is fine (it may not be needed on every platform); a RECORD
that names a path outside TARGET is refused.
"""

from __future__ import annotations

import csv
import re
import shutil
import sys
from pathlib import Path


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def names(exclude_file: Path) -> set[str]:
    lines = (line.split("#", 1)[0].strip() for line in exclude_file.read_text(encoding="utf-8").splitlines())
    return {normalise(line) for line in lines if line}


def prune(target: Path, excluded: set[str]) -> list[str]:
    """Delete each excluded distribution's files and its dist-info; the names removed."""
    target = target.resolve()
    removed = []
    for info in sorted(target.glob("*.dist-info")):
        name = normalise(info.name[: -len(".dist-info")].rsplit("-", 1)[0])
        if name not in excluded:
            continue
        record = info / "RECORD"
        paths = [row[0] for row in csv.reader(record.read_text(encoding="utf-8").splitlines()) if row]
        for relative in paths:
            path = (target / relative).resolve()
            if target not in path.parents:
                raise SystemExit(f"prune: {info.name} lists {relative}, outside {target}")
            if path.is_file():
                path.unlink()
        folders = {parent for p in paths for parent in (target / p).resolve().parents if target in parent.parents}
        for folder in sorted(folders, key=lambda p: -len(p.parts)):  # deepest first
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
        shutil.rmtree(info, ignore_errors=True)
        removed.append(name)
    return removed


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    removed = prune(Path(argv[1]), names(Path(argv[2])))
    print(f"layer: left out {', '.join(removed) or 'nothing'} (layers/family-memory/EXCLUDE)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
