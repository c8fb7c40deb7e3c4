"""``family-memory family ...``: a family's settings (``family.json``).

show, set-zone, add-member, set-member. Every change is a conditional replace
of ``family.json`` (``families.py``), validated: an unknown time zone, a bad
member id or an empty name is refused with the field named, and nothing is
written. Names are shown with ``for_terminal``: a control or format character in one is
shown escaped, never acted on by the terminal.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from family_memory.app.commands import FamilyCommand, on_family
from family_memory.app.runtime import Runtime
from family_memory.domain.family import FamilySettings, MemberRole
from family_memory.domain.literal import for_terminal
from family_memory.families import add_member, set_member, set_time_zone, show_family
from family_memory.ports.store import Store

_ROLES = [r.value for r in MemberRole]
#: What a command does to the family's settings, and what it prints of them afterwards.
_Action = Callable[[Store, str, argparse.Namespace], FamilySettings]
_Show = Callable[[FamilySettings], list[str]]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("family", help="a family's settings: time zone and members")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")

    def command(name: str, help_text: str, act: _Action, show: _Show = lines) -> argparse.ArgumentParser:
        sub: argparse.ArgumentParser = actions.add_parser(name, help=help_text)
        sub.add_argument("--family", required=True, help="the family id")
        sub.set_defaults(run=on_family(_showing(act, show)))
        return sub

    command("show", "time zone, members and surfaces", lambda store, family_id, args: show_family(store, family_id))

    zone = command(
        "set-zone",
        "the family's IANA time zone (dates and expiry follow it)",
        lambda store, family_id, args: set_time_zone(store, family_id, args.time_zone),
        lambda settings: [f"family {settings.family_id}: time zone {settings.time_zone}"],
    )
    zone.add_argument("time_zone", help="for example America/Los_Angeles")

    add = command("add-member", "add a member", _add_member)
    add.add_argument("member_id", help="the id their turns carry (letters, digits, - and _)")
    add.add_argument("--name", required=True, help="full name")
    add.add_argument("--address-as", help="how the assistant addresses them")
    add.add_argument("--role", choices=_ROLES, default=MemberRole.ADULT.value)

    change = command("set-member", "change a member's name, address-as or role", _set_member)
    change.add_argument("member_id")
    change.add_argument("--name")
    change.add_argument("--address-as")
    change.add_argument("--role", choices=_ROLES, help="child: everything about them is tagged minors")


def lines(settings: FamilySettings) -> list[str]:
    out = [
        f"family {settings.family_id}",
        f"  time zone: {settings.time_zone}",
        f"  surfaces:  {', '.join(s.value for s in settings.surfaces)}",
        f"  members ({len(settings.members)}):",
    ]
    for member in settings.members:
        address = f", addressed as {for_terminal(member.address_as)}" if member.address_as else ""
        out.append(f"    {member.id:<16} {for_terminal(member.name)} ({member.role.value}{address})")
    return out


def _showing(act: _Action, show: _Show) -> FamilyCommand:
    """A command that does ``act`` to the family and prints ``show`` of its settings afterwards."""

    def run(runtime: Runtime, family_id: str, args: argparse.Namespace) -> int:
        print("\n".join(show(act(runtime.store, family_id, args))))
        return 0

    return run


def _add_member(store: Store, family_id: str, args: argparse.Namespace) -> FamilySettings:
    role = MemberRole(args.role)
    return add_member(store, family_id, args.member_id, args.name, address_as=args.address_as, role=role)


def _set_member(store: Store, family_id: str, args: argparse.Namespace) -> FamilySettings:
    role = MemberRole(args.role) if args.role else None
    return set_member(store, family_id, args.member_id, name=args.name, address_as=args.address_as, role=role)
