"""CLI subcommands. Each module has ``register(subparsers)``; its handler gets
the parsed args and builds the runtime through ``runtime_for(args)``."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from family_memory.app.bootstrap import bootstrap
from family_memory.app.runtime import Runtime
from family_memory.app.settings import load_settings
from family_memory.domain.errors import InvalidInputError
from family_memory.domain.ids import check_family_id


def runtime_for(args: argparse.Namespace) -> Runtime:
    return bootstrap(load_settings(home=getattr(args, "home", None)))


#: A command of one family: given the runtime and the family ``--family`` names (checked), its exit status.
FamilyCommand = Callable[[Runtime, str, argparse.Namespace], int]


def on_family(run: FamilyCommand) -> Callable[[argparse.Namespace], int]:
    """``run`` as argparse calls it: with the runtime and ``--family`` checked."""

    def command(args: argparse.Namespace) -> int:
        runtime = runtime_for(args)
        return run(runtime, check_family_id(args.family), args)

    return command


def family_ids(runtime: Runtime, args: argparse.Namespace) -> list[str]:
    """The families a command should act on: ``--family`` or, with ``--all``, every one."""
    if getattr(args, "all", False):
        return list(runtime.store.families())
    if getattr(args, "family", None):
        return [check_family_id(args.family)]
    raise InvalidInputError("name a family with --family ID, or use --all")


def add_family_selector(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--family", help="one family id")
    group.add_argument("--all", action="store_true", help="every family")
