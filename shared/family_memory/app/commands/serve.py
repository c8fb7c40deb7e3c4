"""``family-memory serve``: the HTTP API on this machine (docs/api.md);
``family-memory openapi``: its OpenAPI document, generated from the routes (docs/openapi.json)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from family_memory.app.commands import runtime_for
from family_memory.app.local_server import DEFAULT_HOST, DEFAULT_PORT, serve


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("serve", help="serve the HTTP API locally (the routes Lambda serves)")
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST})")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any)")
    parser.set_defaults(run=_serve)

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


def _serve(args: argparse.Namespace) -> int:
    server = serve(runtime_for(args), args.host, args.port)
    url = server.url
    print(f"family-memory API on {url} (no authentication: keep it on this machine; docs/api.md)")
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
