"""``family-memory memories ...``: the memory card on the command line.

list, show, add, edit, forget, forget-group (count first, then confirm the
count with --yes --expect N), evidence and lineage. Every change goes through
the write protocol under the family's lease, as the card's HTTP routes (app/routes/card.py) do.
Text from memories (summaries, quotes, notes) is written with ``for_terminal``: an escape
sequence or a line break in it is shown escaped, never acted on by the terminal.
"""

from __future__ import annotations

import argparse
from typing import Any

from family_memory.app.commands import FamilyCommand, on_family
from family_memory.app.commands.formation import location
from family_memory.app.runtime import Runtime
from family_memory.card.operations import (
    GroupSelector,
    MemoryDraft,
    MemoryEdit,
)
from family_memory.card.views import (
    corrected_constraint,
    evidence_view,
    lineage_view,
    list_memories,
    open_conflicts,
    read_memory,
    recent_corrections,
)
from family_memory.domain.ids import check_memory_id
from family_memory.domain.layout import memory_path
from family_memory.domain.literal import for_terminal
from family_memory.domain.memory import Memory, MemoryType, Status
from family_memory.domain.okf import serialise_memory, validate

_TYPES = [t.value for t in MemoryType]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("memories", help="the memory card: list, add, edit, forget, evidence, lineage")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")

    def command(name: str, help_text: str, run: FamilyCommand, *, memory: bool = False) -> argparse.ArgumentParser:
        sub: argparse.ArgumentParser = actions.add_parser(name, help=help_text)
        sub.add_argument("--family", required=True, help="the family id")
        if memory:
            sub.add_argument("memory_id", help="the memory's id")
        sub.set_defaults(run=on_family(run))
        return sub

    listing = command("list", "newest first, one page at a time", _list)
    listing.add_argument("--status", choices=[s.value for s in Status])
    listing.add_argument("--limit", type=int, default=20)
    listing.add_argument("--cursor", help="the cursor printed under the previous page")

    command("show", "the memory file as stored", _show, memory=True)
    command("evidence", "the words it came from, with dates", _evidence, memory=True)
    command("lineage", "every version of the claim, first to latest", _lineage, memory=True)
    command("corrections", "hard constraints a conversation replaced (recent changes to check)", _corrections)

    add = command("add", "add an explicit memory as a member", _add)
    add.add_argument("--member", required=True, help="the member adding it (recorded as verified by them)")
    add.add_argument("--type", required=True, choices=_TYPES)
    add.add_argument("--about", required=True)
    add.add_argument("--summary", required=True)
    add.add_argument("--body", default="")
    add.add_argument("--when", default="", help="when_to_use")
    add.add_argument("--applies-to", action="append", default=[], help="a person, pet or place (repeatable)")
    add.add_argument("--hard", action="store_true", help="a hard rule, not a soft leaning")
    add.add_argument("--pin", action="store_true", help="always in the brief")
    add.add_argument("--valid-until", help="YYYY-MM-DD: gone when that day begins in the family's time zone")

    edit = command("edit", "correct a memory: the new wording supersedes the old", _edit, memory=True)
    edit.add_argument("--member", required=True)
    edit.add_argument("--summary")
    edit.add_argument("--about")
    edit.add_argument("--body")
    edit.add_argument("--when")
    edit.add_argument("--valid-until", help="YYYY-MM-DD, after today (needed to correct an expired memory)")
    edit.add_argument("--clear-valid-until", action="store_true", help="the corrected memory has no end date (lasting)")
    pinning = edit.add_mutually_exclusive_group()
    pinning.add_argument("--pin", dest="pin", action="store_const", const=True, help="always in the brief")
    pinning.add_argument("--unpin", dest="pin", action="store_const", const=False, help="no longer always in the brief")

    forget = command("forget", "retract a memory and keep formation from learning it back", _forget, memory=True)
    forget.add_argument("--member", required=True)
    forget.add_argument("--reason", default="")

    group = command("forget-group", "forget everything about a person, a topic or a type (count first)", _group)
    group.add_argument("--member", required=True)
    which = group.add_mutually_exclusive_group(required=True)
    which.add_argument("--entity", help="a person, pet, place or group, by name")
    which.add_argument("--topic", help="words every memory of the group contains")
    which.add_argument("--type", choices=_TYPES)
    group.add_argument("--yes", action="store_true", help="forget now (needs --expect)")
    group.add_argument("--expect", type=int, help="the count you confirmed; refused if the group changed since")
    group.add_argument("--reason", default="")


def _line(memory: Memory) -> str:
    until = f" until {memory.valid_until}" if memory.valid_until else ""
    return f"{memory.id}  {memory.status.value:<10} {memory.type.value:<12} {for_terminal(memory.summary)}{until}"


def _drain(runtime: Runtime) -> None:
    """Index the change now. The change is on file; if indexing fails the command says so
    and exits 2 (``family-memory rebuild-index --family ID`` catches the index up)."""
    runtime.drain()


def _list(runtime: Runtime, family_id: str, args: argparse.Namespace) -> int:
    status = Status(args.status) if args.status else None
    page = list_memories(runtime.catalog, family_id, status=status, limit=args.limit, cursor=args.cursor)
    for row in page.rows:
        since = row.formed_at.strftime("%Y-%m-%d")
        print(f"{row.id}  {since}  {row.status.value:<10} {row.type.value:<12} {for_terminal(row.summary)}")
    if not page.rows:
        print("no memories")
    if page.cursor:
        print(f"more: --cursor {page.cursor}")
    return 0


def _show(runtime: Runtime, family_id: str, args: argparse.Namespace) -> int:
    memory_id = check_memory_id(args.memory_id)
    memory = read_memory(runtime.store, family_id, memory_id)
    print(location(runtime, family_id, memory_path(memory_id)))
    print(serialise_memory(memory).decode("utf-8"), end="")
    for conflict in open_conflicts(runtime.store, family_id, memory):
        print(for_terminal(conflict.describe()))
    corrected = corrected_constraint(memory)
    if corrected is not None:
        print(for_terminal(corrected.describe()))
    return 0


def _corrections(runtime: Runtime, family_id: str, args: argparse.Namespace) -> int:
    corrections = recent_corrections(runtime.store, runtime.catalog, family_id)
    for c in corrections:
        print(f"{c.memory.id}  {c.memory.formed_at:%Y-%m-%d}  {for_terminal(c.memory.summary)}")
        print(f"    {for_terminal(c.describe())}")
    if not corrections:
        print("no hard constraint was replaced by a conversation")
    return 0


def _evidence(runtime: Runtime, family_id: str, args: argparse.Namespace) -> int:
    view = evidence_view(runtime.store, family_id, check_memory_id(args.memory_id))
    print(_line(view.memory))
    for line in view.lines:
        who = f" ({for_terminal(line.speaker)})" if line.speaker else ""
        mark = line.stance.upper() if line.stance in ("contradicts", "conflicts") else line.source
        quote = for_terminal(line.quote)
        quoted = quote if quote != line.quote else f'"{quote}"'  # a literal brings its own quotes
        print(f"  {line.recorded_at:%Y-%m-%d}  {mark}{who}: {quoted}  [{line.ref}]")
        if line.note:
            print(f"        {for_terminal(line.note)}")
    if not view.lines:
        print("  no evidence on file")
    return 0


def _lineage(runtime: Runtime, family_id: str, args: argparse.Namespace) -> int:
    lineage = lineage_view(runtime.store, family_id, check_memory_id(args.memory_id))
    for step in lineage.steps:
        mark = "->" if step.memory.id == lineage.asked else "  "
        verified = f"  verified by {', '.join(step.verified_by)}" if step.verified_by else ""
        print(
            f"{mark} {step.memory.formed_at:%Y-%m-%d} {_line(step.memory)}  ({step.memory.authority.value}){verified}"
        )
        for conflict in open_conflicts(runtime.store, family_id, step.memory):
            print(f"     {for_terminal(conflict.describe())}")
    return 0


def _add(runtime: Runtime, family_id: str, args: argparse.Namespace) -> int:
    draft = validate(
        MemoryDraft,
        {
            "type": args.type,
            "about": args.about,
            "summary": args.summary,
            "body": args.body,
            "when_to_use": args.when,
            "applies_to": args.applies_to,
            "strength": "hard" if args.hard else "soft",
            "pin": args.pin,
            "valid_until": args.valid_until,
        },
        "memory",
    )
    memory = runtime.card.add(family_id, args.member, draft)
    print(f"added {_line(memory)}")
    print(f"  {location(runtime, family_id, memory_path(memory.id))}")
    _drain(runtime)
    return 0


def _edit(runtime: Runtime, family_id: str, args: argparse.Namespace) -> int:
    changes = {
        "summary": args.summary,
        "about": args.about,
        "body": args.body,
        "when_to_use": args.when,
        "valid_until": args.valid_until,
        "clear_valid_until": True if args.clear_valid_until else None,
        "pin": args.pin,
    }
    edit = validate(MemoryEdit, {k: v for k, v in changes.items() if v is not None}, "edit")
    old, new = runtime.card.edit(family_id, check_memory_id(args.memory_id), args.member, edit)
    print(f"superseded {_line(old)}")
    print(f"by         {_line(new)}")
    print(f"  {location(runtime, family_id, memory_path(new.id))}")
    _drain(runtime)
    return 0


def _forget(runtime: Runtime, family_id: str, args: argparse.Namespace) -> int:
    memory, rule = runtime.card.forget(family_id, check_memory_id(args.memory_id), args.member, args.reason)
    if rule is None:
        print(f"already forgotten: {_line(memory)}")
    else:
        print(f"forgotten {_line(memory)}")
        print(f"  suppression rule {rule.id}: formation will not learn it back")
    _drain(runtime)
    return 0


def _group(runtime: Runtime, family_id: str, args: argparse.Namespace) -> int:
    selector = validate(GroupSelector, {"entity": args.entity, "topic": args.topic, "memory_type": args.type}, "group")
    preview = runtime.card.preview_group(family_id, selector)
    if not args.yes:
        print(f"{for_terminal(selector.describe())}: {preview.count} memories would be forgotten")
        for row in preview.memories:
            print(f"  {row.id}  {row.status.value:<10} {for_terminal(row.summary)}")
        print(f"to forget them: repeat with --yes --expect {preview.count}")
        return 0
    if args.expect is None:
        print("--yes needs --expect N: the count you were shown")
        return 2
    result = runtime.card.forget_group(family_id, selector, args.member, expected_count=args.expect, reason=args.reason)
    rules = ", ".join(rule.id for rule in result.rules)
    if result.already_forgotten:
        print(
            f"already forgotten: {for_terminal(selector.describe())}; suppression rule {rules} stands, nothing written"
        )
        return 0
    print(f"forgot {result.preview.count} memories ({for_terminal(selector.describe())}); suppression rule {rules}")
    _drain(runtime)
    return 0
