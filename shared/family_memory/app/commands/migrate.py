"""``family-memory migrate``: a family's earlier explicit memories, and what other memory stores
hold, through formation, with a report that nothing was lost (docs/migration.md).

Exit status: 0 when every entry became a memory or says why it did not; 1 when an entry
was lost without a reason; 2 when a family could not be migrated at all (its error is
printed, nothing was stored for the source it names, and ``--all`` goes on with the
next family).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from family_memory.app.commands import runtime_for
from family_memory.app.commands.formation import NO_DREAM, location
from family_memory.app.runtime import Runtime
from family_memory.domain.clock import parse_utc
from family_memory.domain.errors import FamilyMemoryError, InvalidInputError
from family_memory.domain.ids import check_family_id
from family_memory.domain.layout import FAMILY_SETTINGS, MIGRATION_REPORT
from family_memory.families import load_family
from family_memory.formation.importers import SourceFormat
from family_memory.formation.migration import MigrationOptions, MigrationSource, migrate_family
from family_memory.formation.migration_report import count

#: In a family's folder under ``--from DIR``, how a file's name says its format.
NAME_PREFIXES = {
    SourceFormat.EXPLICIT: ("explicit",),
    SourceFormat.MEM0: ("mem0",),
    SourceFormat.LIST: ("list", "remember"),
}
TEXT_SUFFIXES = (".md", ".markdown", ".txt")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "migrate",
        help="bring a family's earlier explicit memories (and Mem0 or list exports) in through formation, "
        "with a report that nothing was lost",
    )
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--family", help="the family id")
    who.add_argument("--all", action="store_true", help="every family folder under --from DIR, one at a time")
    parser.add_argument(
        "--explicit", type=Path, action="append", default=[], metavar="FILE", help="the earlier explicit-memories file"
    )
    parser.add_argument("--mem0", type=Path, action="append", default=[], metavar="FILE", help="a Mem0 get_all export")
    parser.add_argument(
        "--list", type=Path, action="append", default=[], metavar="FILE", help="a 'things to remember about us' list"
    )
    parser.add_argument(
        "--from",
        dest="source_dir",
        type=Path,
        metavar="DIR",
        help="a folder per family (DIR/{family_id}/explicit*.md|txt, mem0*.json, list*.txt or remember*.txt)",
    )
    parser.add_argument("--member", help="the member who asked for the entries that name none")
    parser.add_argument(
        "--map", action="append", default=[], metavar="USER=MEMBER", help="a Mem0 user_id and the member it is"
    )
    parser.add_argument("--time-zone", help="a family seen for the first time: its IANA time zone")
    parser.add_argument(
        "--as-of", help="undated entries were written then (YYYY-MM-DD or an ISO instant; default: the file's date)"
    )
    parser.add_argument("--restart", action="store_true", help="ignore the ledger of a stopped migration")
    parser.set_defaults(run=_migrate)


def format_of(name: str) -> SourceFormat | None:
    """The format a file in a ``--from`` folder is in, by its name; None for any other file."""
    lower = name.lower()
    for fmt, prefixes in NAME_PREFIXES.items():
        if not lower.startswith(prefixes):
            continue
        if fmt is SourceFormat.MEM0 and lower.endswith(".json"):
            return fmt
        if fmt is not SourceFormat.MEM0 and lower.endswith(TEXT_SUFFIXES):
            return fmt
    return None


def _source(fmt: SourceFormat, path: Path) -> MigrationSource:
    try:
        data = path.read_bytes()
        written = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc}") from exc
    return MigrationSource(fmt, path.name, data, written)


def _folder_sources(folder: Path) -> tuple[list[MigrationSource], list[str]]:
    sources, ignored = [], []
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or not path.is_file():
            continue
        fmt = format_of(path.name)
        if fmt is None:
            ignored.append(path.name)
        else:
            sources.append(_source(fmt, path))
    return sources, ignored


def _options(args: argparse.Namespace) -> MigrationOptions:
    user_map = {}
    for pair in args.map:
        user, sep, member = pair.partition("=")
        if not sep or not user or not member:
            raise InvalidInputError(f"--map {pair!r}: write USER=MEMBER (a Mem0 user_id and a member id)")
        user_map[user] = member
    as_of: datetime | date | None = None
    if args.as_of:
        try:
            as_of = date.fromisoformat(args.as_of) if len(args.as_of) == 10 else parse_utc(args.as_of)
        except ValueError as exc:
            raise InvalidInputError(f"--as-of {args.as_of!r}: write YYYY-MM-DD or an ISO instant") from exc
    return MigrationOptions(
        member=args.member, time_zone=args.time_zone, as_of=as_of, user_map=user_map, restart=args.restart
    )


def _one(runtime: Runtime, family_id: str, sources: list[MigrationSource], options: MigrationOptions) -> int:
    run = migrate_family(
        runtime.formation.deps,
        family_id,
        sources,
        dream=runtime.dream,
        options=options,
        progress=lambda line: print(f"  {line}"),
    )
    print("\n".join(run.lines()))
    if not run.dream_ran:
        print(NO_DREAM.replace("after the replay", "after the migration"))
    runtime.drain()
    if run.report is not None:
        print()
        print("\n".join(run.report.lines()))
        print()
        print(f"report: {location(runtime, family_id, MIGRATION_REPORT)}")
    if run.lost:
        lost = count(run.lost, "entry was", "entries were")
        print(f"family {family_id}: {lost} lost without a reason (see the report)", file=sys.stderr)
        return 1
    return 0


def _for_family(runtime: Runtime, family_id: str, options: MigrationOptions) -> MigrationOptions:
    """With ``--all``, ``--time-zone`` is for the families seen for the first time, and ``--member``
    the default only in the families it is a member of (or new ones)."""
    if not runtime.store.exists(family_id, FAMILY_SETTINGS):
        return options
    family = load_family(runtime.store, family_id)
    member = options.member if options.member and family.member(options.member) is not None else None
    return replace(options, member=member, time_zone=None)


def _explicit_sources(args: argparse.Namespace) -> list[MigrationSource]:
    given = [
        *(_source(SourceFormat.EXPLICIT, p) for p in args.explicit),
        *(_source(SourceFormat.MEM0, p) for p in args.mem0),
        *(_source(SourceFormat.LIST, p) for p in args.list),
    ]
    return given


def _migrate(args: argparse.Namespace) -> int:
    options = _options(args)
    runtime = runtime_for(args)
    if not args.all:
        family_id = check_family_id(args.family)
        sources = _explicit_sources(args)
        if args.source_dir is not None:
            folder = args.source_dir / family_id
            if not folder.is_dir():
                raise InvalidInputError(f"--from {args.source_dir}: there is no folder {folder}")
            found, ignored = _folder_sources(folder)
            for name in ignored:
                print(f"  skipped {folder / name}: not a migration source by its name (see --from)")
            sources += found
        if not sources:
            raise InvalidInputError("name what to migrate: --explicit FILE, --mem0 FILE, --list FILE or --from DIR")
        return _one(runtime, family_id, sources, options)
    if args.source_dir is None:
        raise InvalidInputError("--all migrates the family folders under --from DIR: give --from")
    if args.explicit or args.mem0 or args.list:
        raise InvalidInputError(
            "--all takes its files from --from DIR; --explicit, --mem0 and --list name one family's"
        )
    if not args.source_dir.is_dir():
        raise InvalidInputError(f"--from {args.source_dir}: not a folder")
    worst = 0
    for folder in sorted(p for p in args.source_dir.iterdir() if p.is_dir() and not p.name.startswith(".")):
        try:
            family_id = check_family_id(folder.name)
        except InvalidInputError as exc:
            print(f"skipped folder {folder}: {exc}", file=sys.stderr)
            continue
        sources, ignored = _folder_sources(folder)
        for name in ignored:
            print(f"  skipped {folder / name}: not a migration source by its name (see --from)")
        if not sources:
            print(f"family {family_id}: nothing to migrate in {folder}")
            continue
        try:
            worst = max(worst, _one(runtime, family_id, sources, _for_family(runtime, family_id, options)))
        except FamilyMemoryError as exc:
            print(f"family {family_id}: not migrated: {exc}", file=sys.stderr)
            worst = 2
    return worst
