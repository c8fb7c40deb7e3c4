"""A Python client for the family-memory HTTP API (docs/api.md, docs/openapi.json).

    memory = FamilyMemoryClient("http://127.0.0.1:8787")                # family-memory serve
    memory = FamilyMemoryClient.for_aws("https://abc.execute-api.eu-west-1.amazonaws.com")  # SigV4

One typed method per route; each answer is parsed into the same pydantic model the
server answers with (``app/routes/schema.py``), so the client cannot drift from the API.

- **SigV4** for a deployed stack: each request is signed for ``execute-api`` with
  botocore's signer, from the credentials of a boto3 session (refreshed as they rotate).
  ``family-memory serve`` takes plain HTTP.
- **The brief is a conditional fetch**: the client keeps each (family, surface) brief
  with its ``ETag`` and sends ``If-None-Match``; a ``304`` returns the copy it holds,
  so the brief is downloaded only when it changed (a forget or an edit changes it at once).
- **Retries**: a ``503`` (the family busy, search down) is retried after its
  ``Retry-After`` (capped by ``max_retry_wait``), up to ``retries`` times. Every route is
  safe to retry (docs/api.md); ``add_memory`` sends a ULID it chose, so a retried add
  adds one memory.
- **Bedrock Converse**: ``tool_config`` is the ``toolConfig`` for a request (None on the
  household surface, where no tool is offered), and ``tool_results`` runs the model's
  ``toolUse`` blocks and gives back the ``toolResult`` blocks for the next message.

Any answer that is not a success raises ``ApiError`` with the status, the API's error
code and its message.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

import requests
from pydantic import BaseModel

from family_memory.app.routes.schema import (
    BriefResponse,
    ContextResponse,
    EvidenceResponse,
    GroupForgotten,
    GroupPreview,
    LineageResponse,
    MemoryAdded,
    MemoryEdited,
    MemoryForgotten,
    MemoryPage,
    MemoryShown,
    SessionEnded,
    ToolResponse,
    ToolSpecsResponse,
)
from family_memory.domain.ids import new_ulid

ModelT = TypeVar("ModelT", bound=BaseModel)

__all__ = ["ApiError", "FamilyMemoryClient", "SigV4Signer"]


class ApiError(Exception):
    """An answer that is not a success: its status, the API's error code and message."""

    def __init__(self, status: int, code: str, message: str, retry_after: float | None = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after


class SigV4Signer:
    """Signs a request for API Gateway (``execute-api``) with botocore's SigV4 signer, from a
    boto3 session's credentials (read for each request, so rotated credentials are used)."""

    def __init__(self, region: str | None = None, *, session: Any = None, service: str = "execute-api") -> None:
        import boto3  # only a deployed stack needs it

        self.session = session or boto3.session.Session()
        self.region = region or self.session.region_name
        if not self.region:
            raise ValueError("SigV4 needs a region: pass region= or set AWS_REGION")
        self.service = service

    def sign(self, method: str, url: str, headers: Mapping[str, str], body: bytes | None) -> dict[str, str]:
        """``headers`` with ``Authorization``, ``X-Amz-Date`` (and the session token) added."""
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest

        credentials = self.session.get_credentials()
        if credentials is None:
            raise ValueError("SigV4 needs AWS credentials (none found in the environment or profile)")
        request = AWSRequest(method=method, url=url, data=body or b"", headers=dict(headers))
        SigV4Auth(credentials.get_frozen_credentials(), self.service, self.region).add_auth(request)
        return dict(request.headers.items())


class FamilyMemoryClient:
    """The family-memory HTTP API at ``base_url``; ``signer`` signs each request (None: plain HTTP)."""

    def __init__(
        self,
        base_url: str,
        *,
        signer: SigV4Signer | None = None,
        session: requests.Session | None = None,
        timeout: float = 30.0,
        retries: int = 3,
        max_retry_wait: float = 10.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.signer = signer
        self.http = session or requests.Session()
        self.timeout = timeout
        self.retries = retries
        self.max_retry_wait = max_retry_wait
        self.sleep = sleep
        #: (family, surface) -> (ETag, the brief it tags)
        self._briefs: dict[tuple[str, str], tuple[str, BriefResponse]] = {}
        #: How each brief request ended: "downloaded" (200) or "not_modified" (304, the kept copy).
        self.brief_fetches: dict[str, int] = {"downloaded": 0, "not_modified": 0}
        self._tool_specs: dict[str, list[dict[str, Any]]] = {}

    @classmethod
    def for_aws(
        cls, base_url: str, *, region: str | None = None, session: Any = None, **options: Any
    ) -> FamilyMemoryClient:
        """A client for a deployed stack (its ``ApiUrl``), signing with the boto3 session's credentials."""
        return cls(base_url, signer=SigV4Signer(region, session=session), **options)

    # --- HTTP ---------------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> requests.Response:
        """One request, signed when a signer is set, retried on 503 after its Retry-After.
        Returns the response for a 2xx or 304; raises ApiError for anything else."""
        query = {k: v for k, v in (params or {}).items() if v is not None}
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode("utf-8"))
        sent = {"Accept": "application/json", **(headers or {})}
        if data is not None:
            sent["Content-Type"] = "application/json"
        for attempt in range(self.retries + 1):
            prepared = requests.Request(method, self.base_url + path, params=query, data=data, headers=sent).prepare()
            if self.signer is not None:
                assert prepared.url is not None
                prepared.headers.update(self.signer.sign(method, prepared.url, prepared.headers, data))
            response = self.http.send(prepared, timeout=self.timeout)
            if response.status_code < 400 or response.status_code == 304:
                return response
            error = _error_of(response)
            if response.status_code != 503 or attempt == self.retries:
                raise error
            self.sleep(min(self.max_retry_wait, error.retry_after if error.retry_after is not None else 1.0))
        raise AssertionError("unreachable")  # pragma: no cover

    def _get(self, model: type[ModelT], path: str, **params: Any) -> ModelT:
        return model.model_validate_json(self.request("GET", path, params=params).content)

    def _post(self, model: type[ModelT], method: str, path: str, body: Any, **params: Any) -> ModelT:
        return model.model_validate_json(self.request(method, path, body, params=params).content)

    # --- agent: brief, context, tools ---------------------------------------------------------

    def brief(self, family_id: str, surface: str = "chat") -> BriefResponse:
        """The prompt block (instructions and brief), downloaded only when it changed."""
        key = (family_id, surface)
        kept = self._briefs.get(key)
        headers = {"If-None-Match": kept[0]} if kept else None
        response = self.request("GET", f"/families/{family_id}/brief", params={"surface": surface}, headers=headers)
        if response.status_code == 304 and kept is not None:
            self.brief_fetches["not_modified"] += 1
            return kept[1]
        brief = BriefResponse.model_validate_json(response.content)
        tag = response.headers.get("ETag")
        if tag:
            self._briefs[key] = (tag, brief)
        self.brief_fetches["downloaded"] += 1
        return brief

    def brief_tag(self, family_id: str, surface: str = "chat") -> str | None:
        """The ETag of the brief this client holds for (family, surface), if any."""
        kept = self._briefs.get((family_id, surface))
        return kept[0] if kept else None

    def context(
        self,
        family_id: str,
        message: str,
        *,
        surface: str = "chat",
        max_items: int | None = None,
        max_tokens: int | None = None,
    ) -> ContextResponse:
        """The turn-level lookup for one user message."""
        body: dict[str, Any] = {"message": message, "surface": surface}
        if max_items is not None:
            body["max_items"] = max_items
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        return self._post(ContextResponse, "POST", f"/families/{family_id}/context", body)

    def tool_specs(self, surface: str = "chat") -> list[dict[str, Any]]:
        """The read tools as Converse toolSpecs (asked once per surface); none on the household surface."""
        if surface not in self._tool_specs:
            self._tool_specs[surface] = self._get(ToolSpecsResponse, "/tool-specs", surface=surface).tools
        return self._tool_specs[surface]

    def tool_config(self, surface: str = "chat") -> dict[str, Any] | None:
        """The Bedrock Converse ``toolConfig`` for a request; None where no tool is offered."""
        specs = self.tool_specs(surface)
        return {"tools": specs} if specs else None

    def call_tool(
        self, family_id: str, name: str, tool_input: Mapping[str, Any], *, surface: str = "chat"
    ) -> ToolResponse:
        """One tool call from the model. A refusal is a result (``status: error``), not an ApiError."""
        return self._post(
            ToolResponse, "POST", f"/families/{family_id}/tools/{name}", dict(tool_input), surface=surface
        )

    def tool_results(
        self, family_id: str, content: list[Mapping[str, Any]], *, surface: str = "chat"
    ) -> list[dict[str, Any]]:
        """The Converse ``toolResult`` blocks for the ``toolUse`` blocks of an assistant message."""
        results = []
        for block in content:
            use = block.get("toolUse")
            if not use:
                continue
            result = self.call_tool(family_id, use["name"], use.get("input") or {}, surface=surface)
            results.append(
                {
                    "toolResult": {
                        "toolUseId": use["toolUseId"],
                        "content": [{"text": result.text}],
                        "status": result.status,
                    }
                }
            )
        return results

    # --- the memory card ----------------------------------------------------------------------

    def memories(
        self, family_id: str, *, status: str | None = None, limit: int = 20, cursor: str | None = None
    ) -> MemoryPage:
        """One page of the card's list, newest first."""
        return self._get(MemoryPage, f"/families/{family_id}/memories", status=status, limit=limit, cursor=cursor)

    def all_memories(self, family_id: str, *, status: str | None = None, page_size: int = 100) -> Iterator[Any]:
        """Every row of the card's list, newest first, page after page."""
        cursor = None
        while True:
            page = self.memories(family_id, status=status, limit=page_size, cursor=cursor)
            yield from page.memories
            if page.cursor is None:
                return
            cursor = page.cursor

    def memory(self, family_id: str, memory_id: str) -> MemoryShown:
        return self._get(MemoryShown, f"/families/{family_id}/memories/{memory_id}")

    def evidence(self, family_id: str, memory_id: str) -> EvidenceResponse:
        return self._get(EvidenceResponse, f"/families/{family_id}/memories/{memory_id}/evidence")

    def lineage(self, family_id: str, memory_id: str) -> LineageResponse:
        return self._get(LineageResponse, f"/families/{family_id}/memories/{memory_id}/lineage")

    def add_memory(
        self,
        family_id: str,
        member_id: str,
        *,
        type: str,
        about: str,
        summary: str,
        memory_id: str | None = None,
        **fields: Any,
    ) -> MemoryAdded:
        """An explicit memory from a member. The client chooses its id (a ULID) unless given one,
        so a retried add (after a timeout, say) adds one memory."""
        body = {"member_id": member_id, "id": memory_id or new_ulid(), "type": type, "about": about, "summary": summary}
        return self._post(MemoryAdded, "POST", f"/families/{family_id}/memories", {**body, **fields})

    def edit_memory(self, family_id: str, memory_id: str, member_id: str, **changes: Any) -> MemoryEdited:
        """A correction (``summary=``, ``pin=False``, ``clear_valid_until=True``, ...)."""
        body = {"member_id": member_id, **changes}
        return self._post(MemoryEdited, "PATCH", f"/families/{family_id}/memories/{memory_id}", body)

    def forget(self, family_id: str, memory_id: str, member_id: str, reason: str = "") -> MemoryForgotten:
        body = {"member_id": member_id, "reason": reason}
        return self._post(MemoryForgotten, "POST", f"/families/{family_id}/memories/{memory_id}/forget", body)

    def preview_group(
        self,
        family_id: str,
        member_id: str,
        *,
        entity: str | None = None,
        topic: str | None = None,
        type: str | None = None,
    ) -> GroupPreview:
        """What forgetting everything about a person, a topic or a type would retract."""
        body = _group(member_id, entity, topic, type)
        return self._post(GroupPreview, "POST", f"/families/{family_id}/forget-group", body)

    def forget_group(
        self,
        family_id: str,
        member_id: str,
        *,
        expected_count: int,
        entity: str | None = None,
        topic: str | None = None,
        type: str | None = None,
        reason: str = "",
    ) -> GroupForgotten:
        """Forget the group the preview counted; 409 (ApiError) if its count changed since."""
        body = {**_group(member_id, entity, topic, type), "confirm": True, "expected_count": expected_count}
        if reason:
            body["reason"] = reason
        return self._post(GroupForgotten, "POST", f"/families/{family_id}/forget-group", body)

    # --- sessions -----------------------------------------------------------------------------

    def end_session(
        self, transcript: Mapping[str, Any] | bytes, *, family_id: str | None = None, candidates: Any = None
    ) -> SessionEnded:
        """Session end: the finished transcript (a dict, or its JSON bytes as stored), optionally
        with candidates produced elsewhere (a list, or ``{"candidates": [...], "producer": ...}``)."""
        parsed = json.loads(transcript) if isinstance(transcript, bytes) else dict(transcript)
        family = family_id or str(parsed.get("family_id", ""))
        if candidates is not None:
            body: Any = {"transcript": parsed, "candidates": candidates}
        else:
            body = transcript if isinstance(transcript, bytes) else parsed
        return self._post(SessionEnded, "POST", f"/families/{family}/sessions", body)


def _group(member_id: str, entity: str | None, topic: str | None, type: str | None) -> dict[str, Any]:
    chosen = {k: v for k, v in (("entity", entity), ("topic", topic), ("type", type)) if v is not None}
    return {"member_id": member_id, **chosen}


def _error_of(response: requests.Response) -> ApiError:
    retry_after: float | None = None
    with contextlib.suppress(KeyError, ValueError):
        retry_after = float(response.headers["Retry-After"])
    try:
        error = response.json()["error"]
        return ApiError(response.status_code, str(error["code"]), str(error["message"]), retry_after)
    except (ValueError, KeyError, TypeError):
        return ApiError(response.status_code, "http_error", response.text[:500], retry_after)
