"""``family-memory serve``: the HTTP API on this machine (docs/api.md)."""

from __future__ import annotations

import argparse
from typing import Any

from family_memory.app.commands import runtime_for
from family_memory.app.local_server import DEFAULT_HOST, DEFAULT_PORT, serve


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("serve", help="serve the HTTP API locally (the routes Lambda serves)")
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST})")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any)")
    parser.set_defaults(run=_serve)


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
