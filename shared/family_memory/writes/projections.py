"""The catalog as a projection of the files: rebuild it, or check it against them.

Files are the truth. ``check_catalog`` reports every difference between the
memory files and the catalog rows; ``rebuild_catalog`` makes the rows equal
to the files (same ids, same fields, same revisions) under the family's lease.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from family_memory.domain.errors import InvalidInputError
from family_memory.domain.layout import MEMORIES, memory_id_from_path, memory_path
from family_memory.domain.okf import parse_memory
from family_memory.ports.catalog import Catalog, CatalogRow
from family_memory.ports.store import Store
from family_memory.writes.protocol import FamilyWriter

Progress = Callable[[str], None]


@dataclass
class ProjectionReport:
    family_id: str
    files: int = 0
    rows: int = 0
    missing_rows: list[str] = field(default_factory=list)
    extra_rows: list[str] = field(default_factory=list)
    different: dict[str, list[str]] = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)

    @property
    def consistent(self) -> bool:
        return not (self.missing_rows or self.extra_rows or self.different or self.unreadable)

    def lines(self) -> list[str]:
        out = [f"family {self.family_id}: {self.files} memory files, {self.rows} catalog rows"]
        out += [f"  missing row   {i}" for i in self.missing_rows]
        out += [f"  extra row     {i} (no file)" for i in self.extra_rows]
        out += [f"  differs       {i}: {', '.join(fields)}" for i, fields in sorted(self.different.items())]
        out += [f"  unreadable    {p}: {why}" for p, why in sorted(self.unreadable.items())]
        if self.consistent:
            out.append("  consistent: the catalog matches the files")
        return out


def rows_from_files(store: Store, family_id: str, report: ProjectionReport) -> Iterator[CatalogRow]:
    for path in store.list(family_id, MEMORIES):
        if memory_id_from_path(path) is None:
            continue
        document = store.read(family_id, path)
        try:
            memory = parse_memory(document.data, path)
        except InvalidInputError as exc:
            report.unreadable[path] = str(exc)
            continue
        if memory_path(memory.id) != path:
            report.unreadable[path] = f"front matter id {memory.id} does not match the file name"
            continue
        report.files += 1
        yield CatalogRow.from_memory(memory, document.tag)


def check_catalog(store: Store, catalog: Catalog, family_id: str) -> ProjectionReport:
    report = ProjectionReport(family_id)
    from_files = {row.id: row for row in rows_from_files(store, family_id, report)}
    stored = {row.id: row for row in catalog.all_rows(family_id)}
    report.rows = len(stored)
    report.missing_rows = sorted(set(from_files) - set(stored))
    report.extra_rows = sorted(set(stored) - set(from_files))
    for memory_id in sorted(set(from_files) & set(stored)):
        want, have = from_files[memory_id].model_dump(), stored[memory_id].model_dump()
        fields = [name for name in want if want[name] != have[name]]
        if fields:
            report.different[memory_id] = fields
    return report


def rebuild_catalog(writer: FamilyWriter, family_id: str, progress: Progress | None = None) -> ProjectionReport:
    """Make the catalog equal to the files, then check it."""
    report = ProjectionReport(family_id)
    with writer.open(family_id) as session:
        rows = list(rows_from_files(writer.store, family_id, report))
        batch = 100
        for start in range(0, len(rows), batch):
            session.keep_lease()
            writer.catalog.put_rows(family_id, rows[start : start + batch], lease=session.lease, force=True)
            if progress:
                progress(f"family {family_id}: {min(start + batch, len(rows))}/{len(rows)} rows written")
        on_file = {row.id for row in rows}
        extra = [row.id for row in writer.catalog.all_rows(family_id) if row.id not in on_file]
        if extra:
            writer.catalog.delete_rows(family_id, extra, lease=session.lease)
    checked = check_catalog(writer.store, writer.catalog, family_id)
    checked.unreadable.update(report.unreadable)
    return checked
