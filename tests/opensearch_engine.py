"""OpenSearch Serverless in memory, as much of it as ``OpenSearchIndex`` uses: one index
whose engine chooses every document id (a write that names one is refused, as a
VECTORSEARCH collection refuses it), searches that honour the filters, sort and
``search_after``, and writes that become visible to search only after a delay (NextGen
shows a write about 10 s later), each write after its own delay so that writes and
deletes can appear out of order. Time is the engine's own ``now``, moved by ``advance``.

The unit tests drive the adapter through it (``RecordingClient``, opensearch-py's surface)
and the IAM audit's stand-in collection keeps its documents in it. It is a model, not OpenSearch: word matching is a plain count of
query words found in the text fields (no analysis, no fuzziness)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from opensearchpy.exceptions import RequestError

ID_REFUSED = "Document ID is not supported in create/index operation request"
BOOSTS = {"about": 3.0, "summary": 2.0, "when_to_use": 1.0, "body": 1.0}


@dataclass
class Change:
    at: float  # when it was made
    visible_at: float  # when searches see it
    doc_id: str
    source: dict[str, Any] | None  # None: deleted


@dataclass
class Engine:
    #: The longest a write takes to reach search; each write draws its own delay up to it.
    visibility_delay: float = 0.0
    seed: int = 7
    exists: bool = False
    mapping: dict[str, Any] | None = None
    now: float = 0.0
    #: The documents as written (the truth, whatever search shows yet).
    stored: dict[str, dict[str, Any]] = field(default_factory=dict)
    changes: list[Change] = field(default_factory=list)
    #: Called with (action, memory_id or id); an error dict fails that bulk item.
    refuse: Callable[[str, str], dict[str, Any] | None] = lambda action, key: None

    def __post_init__(self) -> None:
        self._random = random.Random(self.seed)

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def settle(self) -> None:
        """Wait until every write is visible."""
        self.advance(self.visibility_delay + 1.0)

    def copies(self, memory_id: str) -> list[dict[str, Any]]:
        return [s for s in self.stored.values() if s["memory_id"] == memory_id]

    def _delay(self) -> float:
        return self._random.uniform(0.0, self.visibility_delay) if self.visibility_delay else 0.0

    def visible(self) -> dict[str, dict[str, Any]]:
        """What a search sees now: each document's last change that has become visible."""
        seen: dict[str, tuple[float, dict[str, Any] | None]] = {}
        for change in self.changes:
            if change.visible_at <= self.now and change.at >= seen.get(change.doc_id, (-1.0, None))[0]:
                seen[change.doc_id] = (change.at, change.source)
        return {doc_id: source for doc_id, (_, source) in seen.items() if source is not None}

    # --- the requests ------------------------------------------------------------------

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        if self.exists:
            raise RequestError(400, "resource_already_exists_exception", {"error": {"reason": "exists"}})
        self.exists, self.mapping = True, body["mappings"]
        return {"acknowledged": True}

    def get_mapping(self, index: str) -> dict[str, Any]:
        return {index: {"mappings": self.mapping or {}}}

    def bulk(self, body: list[dict[str, Any]]) -> dict[str, Any]:
        lines = iter(body)
        items = []
        for line in lines:
            ((action, meta),) = line.items()
            if action == "index":
                items.append({"index": self._index(meta, next(lines))})
            elif action == "delete":
                items.append({"delete": self._delete(meta["_id"])})
            else:
                items.append({action: {"status": 400, "error": {"type": "unsupported", "reason": action}}})
        return {"errors": any(next(iter(i.values()))["status"] >= 300 for i in items), "items": items}

    def _index(self, meta: dict[str, Any], source: dict[str, Any]) -> dict[str, Any]:
        if "_id" in meta or "version" in meta:
            return {"status": 400, "error": {"type": "illegal_argument_exception", "reason": ID_REFUSED}}
        error = self.refuse("index", source["memory_id"])
        if error is not None:
            return {"status": error.get("status", 400), "error": error}
        doc_id = "".join(self._random.choice("0123456789abcdef") for _ in range(20))
        self.stored[doc_id] = dict(source)
        self.changes.append(Change(self.now, self.now + self._delay(), doc_id, dict(source)))
        return {"_id": doc_id, "status": 201, "result": "created"}

    def _delete(self, doc_id: str) -> dict[str, Any]:
        error = self.refuse("delete", doc_id)
        if error is not None:
            return {"_id": doc_id, "status": error.get("status", 400), "error": error}
        if self.stored.pop(doc_id, None) is None:
            return {"_id": doc_id, "status": 404, "result": "not_found"}
        self.changes.append(Change(self.now, self.now + self._delay(), doc_id, None))
        return {"_id": doc_id, "status": 200, "result": "deleted"}

    def search(self, body: dict[str, Any]) -> dict[str, Any]:
        query = body["query"]
        scored: list[tuple[float, str, dict[str, Any]]] = []
        for doc_id, source in self.visible().items():
            if "knn" in query:
                knn = query["knn"]["embedding"]
                if not matches(source, knn["filter"]):
                    continue
                ip = sum(a * b for a, b in zip(knn["vector"], source["embedding"], strict=True))
                scored.append((ip + 1.0 if ip >= 0 else 1.0 / (1.0 - ip), doc_id, source))
            elif matches(source, {"bool": {"filter": query["bool"].get("filter", [])}}):
                score = sum(_word_score(source, clause["multi_match"]) for clause in query["bool"].get("must", []))
                if score > 0 or not query["bool"].get("must"):
                    scored.append((score or 1.0, doc_id, source))
        if "knn" in query:
            scored = sorted(scored, key=lambda s: -s[0])[: query["knn"]["embedding"]["k"]]
        sort = body.get("sort")
        if sort:
            keys = [next(iter(spec.items())) for spec in sort]
            scored.sort(key=lambda s: _sort_key(s[2], keys))
            after = body.get("search_after")
            if after is not None:
                scored = [
                    s
                    for s in scored
                    if _sort_key(s[2], keys) > _sort_key(dict(zip((k for k, _ in keys), after, strict=True)), keys)
                ]
        else:
            scored.sort(key=lambda s: -s[0])
        hits = []
        for score, doc_id, source in scored[: body.get("size", 10)]:
            hit: dict[str, Any] = {"_id": doc_id, "_score": score, "_source": _project(source, body.get("_source"))}
            if sort:
                hit["sort"] = [source[k] for k, _ in keys]
            hits.append(hit)
        return {"hits": {"hits": hits}}


class RecordingClient:
    """opensearch-py's surface as the adapter uses it, answered by an ``Engine`` and
    recording each request; ``failures`` queues an exception for a request by name."""

    def __init__(self, engine: Engine | None = None, failures: dict[str, list[Exception]] | None = None) -> None:
        self.engine = engine or Engine()
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.failures = failures or {}
        self.indices = self

    def _record(self, name: str, kwargs: dict[str, Any]) -> None:
        self.calls.append((name, kwargs))
        queued = self.failures.get(name)
        if queued:
            raise queued.pop(0)

    def exists(self, **kw: Any) -> bool:
        self._record("exists", kw)
        return self.engine.exists

    def create(self, **kw: Any) -> Any:
        self._record("create", kw)
        return self.engine.create(kw["body"])

    def get_mapping(self, **kw: Any) -> Any:
        self._record("get_mapping", kw)
        return self.engine.get_mapping(kw["index"])

    def bulk(self, **kw: Any) -> Any:
        self._record("bulk", kw)
        return self.engine.bulk(kw["body"])

    def search(self, **kw: Any) -> Any:
        self._record("search", kw)
        return self.engine.search(kw["body"])

    def names(self) -> list[str]:
        return [name for name, _ in self.calls]


def _sort_key(source: dict[str, Any], keys: list[tuple[str, str]]) -> tuple[Any, ...]:
    return tuple(-source[name] if order == "desc" else source[name] for name, order in keys)


def _project(source: dict[str, Any], spec: Any) -> dict[str, Any]:
    if isinstance(spec, list):
        return {k: v for k, v in source.items() if k in spec}
    if isinstance(spec, dict) and "excludes" in spec:
        return {k: v for k, v in source.items() if k not in spec["excludes"]}
    return dict(source)


def _word_score(source: dict[str, Any], multi: dict[str, Any]) -> float:
    words = multi["query"].casefold().split()
    return sum(
        boost for name, boost in BOOSTS.items() for word in words if word in str(source.get(name, "")).casefold()
    )


def _values(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [] if value is None else [value]


def matches(source: dict[str, Any], clause: dict[str, Any]) -> bool:
    """Whether a document passes a filter clause (term, terms, exists, range, bool)."""
    ((kind, spec),) = clause.items()
    if kind == "term":
        ((name, wanted),) = spec.items()
        return wanted in _values(source.get(name))
    if kind == "terms":
        ((name, wanted),) = spec.items()
        return any(v in wanted for v in _values(source.get(name)))
    if kind == "exists":
        return source.get(spec["field"]) is not None
    if kind == "range":
        ((name, bounds),) = spec.items()
        value = source.get(name)
        return value is not None and all(
            {"gt": value > b, "gte": value >= b, "lt": value < b, "lte": value <= b}[op] for op, b in bounds.items()
        )
    if kind == "bool":

        def each(key: str) -> list[dict[str, Any]]:
            return _values(spec.get(key))

        should = each("should")
        return (
            all(matches(source, c) for c in each("filter") + each("must"))
            and not any(matches(source, c) for c in each("must_not"))
            and (not should or sum(matches(source, c) for c in should) >= spec.get("minimum_should_match", 1))
        )
    raise AssertionError(f"the engine model has no {kind} query")
