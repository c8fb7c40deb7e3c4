"""``family-memory rebuild-index | lookup | search | read | tool-specs``: the
search index and the agent's side of retrieval on the command line."""

from __future__ import annotations

import argparse
import json
from typing import Any

from family_memory.app.commands import add_family_selector, family_ids, runtime_for
from family_memory.app.commands.dream import require_family
from family_memory.app.runtime import retrieval_for
from family_memory.domain.family import Surface
from family_memory.domain.ids import check_family_id
from family_memory.retrieval.tools import TOOL_SPECS


def register(subparsers: Any) -> None:
    rebuild = subparsers.add_parser(
        "rebuild-index", help="rebuild the search index from the memory files and report equivalence"
    )
    add_family_selector(rebuild)
    rebuild.add_argument("--check-only", action="store_true", help="only compare the index with the files")
    rebuild.set_defaults(run=_rebuild)

    lookup = subparsers.add_parser("lookup", help="the turn-level lookup for a message, as the agent receives it")
    lookup.add_argument("--family", required=True, help="family id")
    lookup.add_argument("--surface", choices=[s.value for s in Surface], default=Surface.CHAT.value)
    lookup.add_argument("--max-items", type=int, help="items cap (default 5)")
    lookup.add_argument("--max-tokens", type=int, help="token cap (default 300)")
    lookup.add_argument("--explain", action="store_true", help="also show how each hit was found and what was dropped")
    lookup.add_argument("message", help="the user's message")
    lookup.set_defaults(run=_lookup)

    search = subparsers.add_parser("search", help="the search_memory tool on a query")
    search.add_argument("--family", required=True, help="family id")
    search.add_argument("--limit", type=int, default=5)
    search.add_argument("query")
    search.set_defaults(run=_search)

    read = subparsers.add_parser("read", help="read_memory (memory://...) or read_conversation_excerpt (conv://...)")
    read.add_argument("--family", required=True, help="the conversation's family id")
    read.add_argument("ref", help="memory://{family}/{id} or conv://{family}/{session}#turn=N-M")
    read.set_defaults(run=_read)

    specs = subparsers.add_parser("tool-specs", help="print the read tools' Bedrock Converse toolSpec definitions")
    specs.set_defaults(run=_specs)


def _rebuild(args: argparse.Namespace) -> int:
    runtime = runtime_for(args)
    indexer = retrieval_for(runtime).indexer
    families = family_ids(runtime, args)
    ok = True
    for family_id in families:
        require_family(runtime, family_id)  # a mistyped id is an error, not an empty, "equivalent" index
    for n, family_id in enumerate(families, start=1):
        if args.check_only:
            report = indexer.check(family_id)
        else:
            print(f"[{n}/{len(families)}] rebuilding the index of {family_id}")
            report = indexer.rebuild(family_id, progress=lambda line: print(f"  {line}"))
            print(f"  embeddings computed: {report.embeddings_computed} (the rest came from the content-hash cache)")
        print("\n".join(report.lines()))
        ok = ok and report.consistent
    return 0 if ok else 1


def _lookup(args: argparse.Namespace) -> int:
    lookup = retrieval_for(runtime_for(args)).lookup
    result = lookup.lookup(
        check_family_id(args.family),
        args.message,
        Surface(args.surface),
        max_items=args.max_items,
        max_tokens=args.max_tokens,
    )
    print(result.block or "(nothing to place in this turn)")
    if args.explain:
        print(f"\n{len(result.items)} items, {result.tokens} tokens, {result.hits} hits before confirmation")
        for item in result.items:
            print(f"  {item.row.id} found by {item.via}")
        for memory_id, reason in result.dropped.items():
            print(f"  {memory_id} dropped: {reason}")
    return 0


def _search(args: argparse.Namespace) -> int:
    tools = retrieval_for(runtime_for(args)).tools(check_family_id(args.family))
    result = tools.run("search_memory", {"query": args.query, "limit": args.limit})
    print(result.text)
    return 0 if result.status == "success" else 2


def _read(args: argparse.Namespace) -> int:
    tools = retrieval_for(runtime_for(args)).tools(check_family_id(args.family))
    name = "read_conversation_excerpt" if str(args.ref).startswith("conv://") else "read_memory"
    result = tools.run(name, {"ref": args.ref})
    print(result.text)
    return 0 if result.status == "success" else 2


def _specs(args: argparse.Namespace) -> int:
    print(json.dumps({"tools": TOOL_SPECS}, indent=2))
    return 0
