"""``family-memory serve``: the HTTP API and the memory card's pages on this machine (docs/api.md,
docs/card.md); ``family-memory card``: the same server, opening one family's card in the browser;
``family-memory openapi``: the API's OpenAPI document, generated from the routes (docs/openapi.json)."""

from __future__ import annotations

import argparse
import sys
import webbrowser
from pathlib import Path
from typing import Any

from family_memory.app.commands import runtime_for
from family_memory.app.local_server import DEFAULT_HOST, DEFAULT_PORT, LocalApiServer, serve
from family_memory.domain.ids import check_family_id
from family_memory.domain.layout import FAMILY_SETTINGS

#: Families whose card URL ``serve`` prints at most.
CARD_URLS_SHOWN = 5


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("serve", help="serve the HTTP API locally (the routes Lambda serves)")
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST})")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any)")
    parser.set_defaults(run=_serve)

    opened = subparsers.add_parser("card", help="serve locally and open a family's memory card in the browser")
    opened.add_argument("--family", required=True, help="the family whose card to open")
    opened.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any)")
    opened.add_argument("--no-browser", action="store_true", help="print the card's address, open nothing")
    opened.set_defaults(run=_card, host=DEFAULT_HOST)

    document = subparsers.add_parser("openapi", help="the API's OpenAPI 3.1 document, generated from the routes")
    document.add_argument("--write", type=Path, metavar="FILE", help="write it to FILE (docs/openapi.json) instead")
    document.add_argument("--check", type=Path, metavar="FILE", help="exit 1 if FILE differs from the code's document")
    document.set_defaults(run=_openapi)


def _openapi(args: argparse.Namespace) -> int:
    from family_memory.app.api import openapi_json  # the resolver and its models, only for this command

    text = openapi_json()
    if args.check is not None:
        if not args.check.exists() or args.check.read_text(encoding="utf-8") != text:
            print(
                f"{args.check} differs from the API's routes; regenerate it: family-memory openapi --write {args.check}"
            )
            return 1
        print(f"{args.check} matches the API's routes")
        return 0
    if args.write is not None:
        args.write.write_text(text, encoding="utf-8")
        print(f"wrote {args.write} ({len(text):,} bytes)")
        return 0
    sys.stdout.write(text)
    return 0


def card_url(server: LocalApiServer, family_id: str) -> str:
    """The address of a family's card on ``server`` (a loopback name: the card answers this machine only)."""
    host, port = server.server_address[:2]
    shown = "127.0.0.1" if str(host) in ("0.0.0.0", "::", "") else str(host)  # noqa: S104 (a name, not a bind)
    shown = f"[{shown}]" if ":" in shown else shown
    return f"http://{shown}:{port}/families/{family_id}/card"


def _card(args: argparse.Namespace) -> int:
    family_id = check_family_id(args.family)
    runtime = runtime_for(args)
    if not runtime.store.exists(family_id, FAMILY_SETTINGS):
        known = ", ".join(list(runtime.store.families())[:10]) or "none yet"
        print(f"there is no family {family_id} on this machine (families: {known})", file=sys.stderr)
        return 1
    server = serve(runtime, args.host, args.port)
    url = card_url(server, family_id)
    print(f"the memory card of {family_id}: {url}")
    print("Ctrl-C stops it.", flush=True)
    if not args.no_browser:
        webbrowser.open(url)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


def _serve(args: argparse.Namespace) -> int:
    runtime = runtime_for(args)
    server = serve(runtime, args.host, args.port)
    url = server.url
    print(f"family-memory API on {url} (no authentication: keep it on this machine; docs/api.md)")
    families = [f for f in runtime.store.families() if runtime.store.exists(f, FAMILY_SETTINGS)]
    for family_id in families[:CARD_URLS_SHOWN]:
        print(f"the memory card of {family_id}: {card_url(server, family_id)}")
    if len(families) > CARD_URLS_SHOWN:
        print(f"  ... and {len(families) - CARD_URLS_SHOWN} more: /families/<id>/card")
    print("try:")
    print(f"  curl -s {url}/tool-specs")
    print(f"  curl -s '{url}/families/fam-rivera/memories?limit=5'")
    print(
        f"  curl -s -X POST {url}/families/fam-rivera/context -H 'content-type: application/json' "
        '-d \'{"message": "what should we cook tonight?"}\''
    )
    print("Ctrl-C stops it.", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0
