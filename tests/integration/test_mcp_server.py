"""``family-memory mcp`` driven by the official MCP SDK's own client.

Over stdio (the command started as a subprocess, the initialize handshake) and over
streamable HTTP on 127.0.0.1: initialise, list the tools, resources and prompts, call each
read tool, read the brief resource, render the brief prompt. On the household surface no
tool is offered and a call is refused; no tool writes (DESIGN invariant 7). Against the
HTTP API (``ApiSource``, here ``family-memory serve``) the same server answers the same.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

import family_memory
from api_helpers import running_server
from family_memory.app.mcp_server import NO_TOOLS_HERE, PROMPT_NAME, ApiSource, LocalSource, build_server
from family_memory.app.sessions import end_session
from family_memory.client import FamilyMemoryClient
from family_memory.domain.clock import FixedClock
from family_memory.domain.family import Surface
from family_memory.retrieval.tools import TOOL_NAMES
from formation_helpers import FAMILY, FRIDAY_MORNING, session_json
from retrieval_helpers import local_runtime

TURNS = [("user", "lucia", "We love Thai food. Never book red-eyes."), ("assistant", None, "Noted!")]
#: The subprocess runs the code this test imported (a scratch copy under tests/invariants/mutations.py too).
ENV = {
    "FAMILY_MEMORY_BACKEND": "local",
    "FAMILY_MEMORY_EMBEDDER": "hashed",
    "PYTHONPATH": str(Path(family_memory.__file__).resolve().parents[1]),
}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A local home where fam-rivera has two memories (from one session) and a compiled brief."""
    home = tmp_path / "home"
    runtime = local_runtime(home, FixedClock(FRIDAY_MORNING + timedelta(hours=1)), embedder="hashed")
    end_session(runtime, session_json(TURNS))
    return home


def command(home: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "family_memory.app.cli", "--home", str(home), "mcp", "--family", FAMILY, *args]


def stdio(home: Path, *args: str) -> StdioServerParameters:
    full = command(home, *args)
    return StdioServerParameters(command=full[0], args=full[1:], env={**ENV, "PATH": os.environ.get("PATH", "")})


def run(session: Callable[[], Awaitable[None]]) -> None:
    anyio.run(session)


async def exercise_chat_surface(client: Client) -> None:
    """Everything a chat-surface server offers, checked through the SDK client."""
    assert client.server_info is not None and client.server_info.name == "family-memory"
    assert client.instructions is not None and "read-only" in client.instructions

    tools = (await client.list_tools()).tools
    assert [t.name for t in tools] == list(TOOL_NAMES)  # the read tools and nothing else
    for tool in tools:
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
        assert tool.annotations.destructive_hint is False and tool.input_schema["type"] == "object"

    found = await client.call_tool("search_memory", {"query": "Thai food"})
    assert not found.is_error and "Thai food" in found.content[0].text  # type: ignore[union-attr]
    ref = re.search(r"memory://fam-rivera/[0-9A-Z]{26}", found.content[0].text)  # type: ignore[union-attr]
    assert ref is not None
    opened = await client.call_tool("read_memory", {"ref": ref.group()})
    assert not opened.is_error and '<memory_file ref="' in opened.content[0].text  # type: ignore[union-attr]
    conv = re.search(r"conv://fam-rivera/sess-1#turn=\d+(-\d+)?", opened.content[0].text)  # type: ignore[union-attr]
    assert conv is not None
    excerpt = await client.call_tool("read_conversation_excerpt", {"ref": conv.group()})
    assert not excerpt.is_error and "We love Thai food" in excerpt.content[0].text  # type: ignore[union-attr]

    # A refusal is a result for the model, not a protocol error.
    foreign = await client.call_tool("read_memory", {"ref": "memory://fam-okafor/01M8EZ65M0W3HDWVDNSGP7ZJES"})
    assert foreign.is_error and "can only read its own" in foreign.content[0].text  # type: ignore[union-attr]
    writer = await client.call_tool("forget_memory", {"ref": ref.group()})
    assert writer.is_error and "there is no tool named 'forget_memory'" in writer.content[0].text  # type: ignore[union-attr]

    (resource,) = (await client.list_resources()).resources
    assert str(resource.uri) == "brief://fam-rivera/chat"
    brief = (await client.read_resource(resource.uri)).contents[0]
    assert brief.text.startswith("<family_brief>") and "Never book red-eyes." in brief.text  # type: ignore[union-attr]

    (prompt,) = (await client.list_prompts()).prompts
    assert prompt.name == PROMPT_NAME
    rendered = (await client.get_prompt(PROMPT_NAME)).messages[0].content.text  # type: ignore[union-attr]
    assert rendered.startswith("Between the <family_brief> tags is what this family's memory holds")
    assert rendered.endswith(brief.text) and "## Last conversation" in rendered  # type: ignore[union-attr]


def test_the_mcp_command_answers_the_sdk_client_over_stdio(home: Path) -> None:
    async def session() -> None:
        # mode="legacy": the initialize handshake, as agent frameworks open a stdio server today.
        async with Client(stdio(home), mode="legacy", read_timeout_seconds=60) as client:
            await exercise_chat_surface(client)

    run(session)


def test_on_the_household_surface_no_tool_is_offered_and_a_call_is_refused(home: Path) -> None:
    async def session() -> None:
        async with Client(stdio(home, "--surface", "household"), mode="legacy", read_timeout_seconds=60) as client:
            assert (await client.list_tools()).tools == []
            refused = await client.call_tool("search_memory", {"query": "Thai"})
            assert refused.is_error and refused.content[0].text == NO_TOOLS_HERE  # type: ignore[union-attr]
            (resource,) = (await client.list_resources()).resources
            assert str(resource.uri) == "brief://fam-rivera/household"
            rendered = (await client.get_prompt(PROMPT_NAME)).messages[0].content.text  # type: ignore[union-attr]
            assert "shared household thread" in rendered and "## Last conversation" not in rendered

    run(session)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def http_server(home: Path, tmp_path: Path) -> Iterator[str]:
    port = free_port()
    log = tmp_path / "mcp.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            command(home, "--transport", "http", "--port", str(port)),
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, **ENV},
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"family-memory mcp did not start:\n{log.read_text()[-2000:]}") from None
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.terminate()
        server.wait(timeout=20)


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_the_mcp_command_answers_the_sdk_client_over_streamable_http_on_loopback(http_server: str) -> None:
    async def session() -> None:
        async with Client(http_server, read_timeout_seconds=60) as client:
            await exercise_chat_surface(client)

    run(session)


def test_the_http_transport_refuses_an_address_other_than_loopback(home: Path) -> None:
    done = subprocess.run(
        command(home, "--transport", "http", "--host", "0.0.0.0"),  # noqa: S104
        capture_output=True,
        text=True,
        env={**os.environ, **ENV},
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and "serve it on 127.0.0.1 or ::1 only" in done.stderr


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_through_the_http_api_the_server_answers_the_same(tmp_path: Path) -> None:
    runtime = local_runtime(tmp_path / "home", FixedClock(FRIDAY_MORNING + timedelta(hours=1)), embedder="hashed")
    end_session(runtime, session_json(TURNS))
    with running_server(runtime) as url:
        api = FamilyMemoryClient(url)
        server = build_server(ApiSource(api, FAMILY, Surface.CHAT))

        async def session() -> None:
            async with Client(server) as client:
                await exercise_chat_surface(client)
                await client.get_prompt(PROMPT_NAME)

        run(session)
    assert api.brief_fetches["not_modified"] >= 1  # the prompt and the resource reuse the kept brief


def test_no_tool_reaches_the_writer(tmp_path: Path) -> None:
    """DESIGN invariant 7: every call the MCP server can make leaves the family's files as they were."""
    runtime = local_runtime(tmp_path / "home", FixedClock(FRIDAY_MORNING + timedelta(hours=1)), embedder="hashed")
    end_session(runtime, session_json(TURNS))
    before = {p: runtime.store.read(FAMILY, p).data for p in runtime.store.list(FAMILY, "")}
    assert any(p.startswith("memories/") for p in before) and "brief.json" in before
    writes: list[Any] = []
    runtime.writer.listeners.append(writes.append)
    server = build_server(LocalSource(runtime, FAMILY, Surface.CHAT))

    async def session() -> None:
        async with Client(server) as client:
            for tool in (await client.list_tools()).tools:
                await client.call_tool(tool.name, {"query": "Thai", "ref": "memory://fam-rivera/x"})
                await client.call_tool(tool.name, {"query": "Thai"})
            await client.read_resource("brief://fam-rivera/chat")
            await client.get_prompt(PROMPT_NAME)

    run(session)
    assert writes == []
    assert {p: runtime.store.read(FAMILY, p).data for p in runtime.store.list(FAMILY, "")} == before
