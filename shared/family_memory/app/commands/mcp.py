"""``family-memory mcp``: the read tools, the brief resource and the brief prompt over MCP,
for one family and surface (``app/mcp_server.py``)."""

from __future__ import annotations

import argparse
from typing import Any
from urllib.parse import urlsplit

from family_memory.domain.errors import InvalidInputError
from family_memory.domain.family import Surface
from family_memory.domain.ids import check_family_id


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "mcp", help="serve one family's read tools, brief resource and brief prompt over MCP (stdio or HTTP)"
    )
    parser.add_argument("--family", required=True, help="the family this server reads (never the model's choice)")
    parser.add_argument("--surface", choices=[s.value for s in Surface], default=Surface.CHAT.value)
    parser.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default="stdio",
        help="stdio (default), or streamable HTTP on loopback",
    )
    parser.add_argument("--host", default="127.0.0.1", help="http: a loopback address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8788, help="http: port (default 8788); the endpoint is /mcp")
    parser.add_argument(
        "--api-url",
        help="read through a deployed stack's HTTP API (its ApiUrl; requests signed with SigV4 from the AWS "
        "credentials) or a `family-memory serve` URL on this machine, instead of the local files",
    )
    parser.set_defaults(run=_mcp)


def _source(args: argparse.Namespace, family_id: str, surface: Surface) -> Any:
    from family_memory.app.mcp_server import ApiSource, LocalSource
    from family_memory.client import FamilyMemoryClient

    if args.api_url:
        host = urlsplit(args.api_url).hostname or ""
        local = host in ("127.0.0.1", "localhost", "::1")
        client = FamilyMemoryClient(args.api_url) if local else FamilyMemoryClient.for_aws(args.api_url)
        return ApiSource(client, family_id, surface)
    from family_memory.app.commands import runtime_for

    runtime = runtime_for(args)
    if runtime.bus is None:
        raise InvalidInputError(
            "against AWS, give --api-url (the stack's ApiUrl): the MCP server reads through the API"
        )
    return LocalSource(runtime, family_id, surface)


def _mcp(args: argparse.Namespace) -> int:
    try:
        import anyio

        from family_memory.app.mcp_server import build_server, serve_http, serve_stdio
    except ImportError as exc:  # pragma: no cover - the mcp extra is not installed
        raise InvalidInputError(
            f"the MCP server needs the mcp package: pip install 'family-memory[mcp]' ({exc})"
        ) from exc
    family_id = check_family_id(args.family)
    server = build_server(_source(args, family_id, Surface(args.surface)))
    if args.transport == "stdio":
        anyio.run(serve_stdio, server)
        return 0
    try:
        serve_http(server, args.host, args.port)
    except ValueError as exc:
        raise InvalidInputError(str(exc)) from exc
    return 0
