"""``family-memory brief show|compile``: the brief as the agent receives it, or a recompile."""

from __future__ import annotations

import argparse
import json
from typing import Any

from family_memory.app.commands import add_family_selector, family_ids, runtime_for
from family_memory.app.commands.dream import require_family
from family_memory.brief.model import BRIEF_TOKEN_CAP, Brief
from family_memory.brief.render import prompt_block, section_usage
from family_memory.domain.clock import parse_utc
from family_memory.domain.family import Surface
from family_memory.domain.ids import check_family_id, check_member_id
from family_memory.lifecycle.dream import compile_family


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("brief", help="show a family's brief as the agent receives it, or recompile it")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    show = actions.add_parser("show", help="print the prompt block: stable instructions, then the brief")
    show.add_argument("--family", required=True, help="family id")
    show.add_argument(
        "--member", help="the member whose own chat it is: their own last conversation (without it, none)"
    )
    show.add_argument("--household", action="store_true", help="the household variant (no last conversation)")
    show.add_argument("--json", action="store_true", help="print the brief as served, as JSON, instead")
    show.add_argument("--at", help="load as of this UTC instant (expired lines are dropped)")
    show.set_defaults(run=_show)
    compile_ = actions.add_parser("compile", help="recompile brief.json and index.md from the active memories")
    add_family_selector(compile_)
    compile_.set_defaults(run=_compile)


def budget_lines(brief: Brief, surface: Surface = Surface.CHAT) -> list[str]:
    """``identity 88/400 tokens, 3 lines`` per section, and the total against the cap."""
    block = prompt_block(brief, surface)
    out = [f"brief: {block.brief_tokens} of {BRIEF_TOKEN_CAP} tokens ({surface.value})"]
    for usage in section_usage(brief, surface):
        out.append(f"  {usage.section.value:<18} {usage.tokens:>4}/{usage.budget} tokens, {usage.lines} lines")
    return out


def _show(args: argparse.Namespace) -> int:
    runtime = runtime_for(args)
    family_id = check_family_id(args.family)
    now = parse_utc(args.at) if args.at else runtime.clock.now()
    surface = Surface.HOUSEHOLD if args.household else Surface.CHAT
    member_id = check_member_id(args.member) if args.member else None
    brief = runtime.brief.loader.load(family_id, member_id=member_id, surface=surface, now=now)
    if brief is None:
        print(f"family {family_id} has no brief yet (run `family-memory brief compile --family {family_id}`)")
        return 1
    if args.json:
        print(json.dumps(brief.model_dump(mode="json", by_alias=True), ensure_ascii=False, indent=2))
        return 0
    print(prompt_block(brief, surface).text)
    print("\n".join(budget_lines(brief, surface)))
    return 0


def _compile(args: argparse.Namespace) -> int:
    runtime = runtime_for(args)
    lifecycle = runtime.lifecycle
    for family_id in family_ids(runtime, args):
        require_family(runtime, family_id)
        print("\n".join(compile_family(lifecycle.deps, family_id, now=runtime.clock.now()).lines()))
    return 0
