"""The index on OpenSearch Serverless (a NextGen VECTORSEARCH collection).

NextGen only: document ids are chosen here, and a Classic serverless collection
refuses client-supplied ids ("Document ID is not supported ..."); that refusal
fails the write with an IndexUnavailableError that names the likely cause.

opensearch-py over HTTPS, every request signed with SigV4 for service
``aoss``. One index holds every family's documents; the family filter is added
here, inside the adapter, to every query (as a ``term`` filter inside the k-NN
clause and inside the keyword query's ``bool``), and document ids are
``{family_id}.{memory_id}`` (family ids cannot contain a dot), so no request
can read or overwrite another family's document.

Revisions use external versioning (``version_type: external_gte``), so an
indexer that read an older file and arrives late cannot replace a newer
document. ``innerproduct`` on unit vectors is cosine similarity; scores are
converted back to cosine before they leave the adapter.

The bodies are built by pure functions (``index_body``, ``semantic_query``,
``keyword_query``) so tests can check them without an engine; the contract
suite runs against a real collection when ``OPENSEARCH_ENDPOINT`` is set.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from family_memory.domain.ids import check_family_id, check_memory_id
from family_memory.retrieval.documents import IndexDocument
from family_memory.retrieval.embedding import Vector
from family_memory.retrieval.index import (
    Hit,
    IndexUnavailableError,
    MemoryIndex,
    SearchFilter,
    check_documents,
    check_k,
)

DEFAULT_INDEX = "family-memories"
#: What a Classic serverless collection answers to a client-supplied document id.
_CLIENT_IDS_REFUSED = "document id is not supported"
CLASSIC_COLLECTION_HINT = (
    "the collection refuses client document ids, so it is probably a Classic VECTORSEARCH collection; "
    "family-memory needs an OpenSearch Serverless NextGen collection (one in a collection group), "
    "which accepts them (docs/retrieval.md)"
)


def _reason(exc: Exception) -> str:
    """The ``reason`` OpenSearch gave in an error response (opensearch-py keeps it out of ``str``)."""
    info = getattr(exc, "info", None)
    error = info.get("error") if isinstance(info, dict) else None
    reason = error.get("reason") if isinstance(error, dict) else error if isinstance(error, str) else None
    return f": {str(reason)[:500]}" if reason else ""


def explain(message: str) -> str:
    """OpenSearch's message, with the likely cause added when it is one we know."""
    if _CLIENT_IDS_REFUSED in message.casefold():
        return f"{message}; {CLASSIC_COLLECTION_HINT}"
    return message


KEYWORD_FIELDS = ("family_id", "memory_id", "status", "type", "applies_to", "sensitivity", "strength", "authority")
TEXT_FIELDS = ("about", "summary", "when_to_use", "body")
TEXT_BOOSTS = ("about^3", "summary^2", "when_to_use", "body")
_SOURCE_EXCLUDES = ["embedding"]


def doc_id(family_id: str, memory_id: str) -> str:
    return f"{check_family_id(family_id)}.{check_memory_id(memory_id)}"


def index_body(dimension: int) -> dict[str, Any]:
    """Settings and mapping of the memory index."""
    properties: dict[str, Any] = {name: {"type": "keyword"} for name in KEYWORD_FIELDS}
    properties.update({name: {"type": "text", "analyzer": "english"} for name in TEXT_FIELDS})
    properties.update(
        {
            "valid_until": {"type": "date", "format": "strict_date"},
            "formed_at": {"type": "date", "format": "strict_date_time_no_millis"},
            "revision": {"type": "integer"},
            "embedding_model": {"type": "keyword"},
            "text_hash": {"type": "keyword"},
            "embedding": {
                "type": "knn_vector",
                "dimension": dimension,
                "method": {
                    "name": "hnsw",
                    "engine": "faiss",
                    "space_type": "innerproduct",
                    "parameters": {"m": 16, "ef_construction": 128},
                },
            },
        }
    )
    return {"settings": {"index": {"knn": True}}, "mappings": {"dynamic": "strict", "properties": properties}}


def filter_clauses(family_id: str, search_filter: SearchFilter) -> list[dict[str, Any]]:
    """The family term first, always; then the eligibility rules."""
    clauses: list[dict[str, Any]] = [{"term": {"family_id": check_family_id(family_id)}}]
    if search_filter.statuses is not None:
        clauses.append({"terms": {"status": sorted(s.value for s in search_filter.statuses)}})
    if search_filter.valid_on is not None:
        clauses.append(
            {
                "bool": {
                    "should": [
                        {"bool": {"must_not": {"exists": {"field": "valid_until"}}}},
                        {"range": {"valid_until": {"gt": search_filter.valid_on.isoformat()}}},
                    ],
                    "minimum_should_match": 1,
                }
            }
        )
    if search_filter.types is not None:
        clauses.append({"terms": {"type": sorted(t.value for t in search_filter.types)}})
    if search_filter.sensitivities is not None:
        clauses.append({"terms": {"sensitivity": sorted(s.value for s in search_filter.sensitivities)}})
    if search_filter.applies_to is not None:
        clauses.append({"terms": {"applies_to": sorted(search_filter.applies_to)}})
    return clauses


def semantic_query(family_id: str, vector: Vector, search_filter: SearchFilter, k: int) -> dict[str, Any]:
    """k-NN with the filters inside the k-NN clause (efficient filtering: k eligible hits, not k then filter)."""
    return {
        "size": k,
        "_source": {"excludes": _SOURCE_EXCLUDES},
        "query": {
            "knn": {
                "embedding": {
                    "vector": list(vector),
                    "k": k,
                    "filter": {"bool": {"filter": filter_clauses(family_id, search_filter)}},
                }
            }
        },
    }


def keyword_query(family_id: str, text: str, search_filter: SearchFilter, k: int) -> dict[str, Any]:
    return {
        "size": k,
        "_source": {"excludes": _SOURCE_EXCLUDES},
        "query": {
            "bool": {
                "must": [
                    {
                        "multi_match": {
                            "query": text,
                            "fields": list(TEXT_BOOSTS),
                            "type": "best_fields",
                            "operator": "or",
                            "fuzziness": "AUTO",
                        }
                    }
                ],
                "filter": filter_clauses(family_id, search_filter),
            }
        },
    }


def cosine_from_score(score: float) -> float:
    """Invert faiss' innerproduct scoring (ip + 1 when ip >= 0, else 1 / (1 - ip))."""
    return score - 1.0 if score >= 1.0 else 1.0 - 1.0 / score if score > 0 else -1.0


def _document(source: dict[str, Any]) -> IndexDocument:
    return IndexDocument.model_validate({k: v for k, v in source.items() if k != "embedding"})


class OpenSearchIndex(MemoryIndex):
    def __init__(self, client: Any, dimension: int, index_name: str = DEFAULT_INDEX) -> None:
        self._client = client
        self.dimension = dimension
        self.index_name = index_name
        self._ready = False

    def _call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        from opensearchpy.exceptions import ConnectionError as OSConnectionError
        from opensearchpy.exceptions import TransportError

        try:
            return fn(*args, **kwargs)
        except (OSConnectionError, TransportError) as exc:
            raise IndexUnavailableError(explain(f"OpenSearch {what} failed: {exc}{_reason(exc)}")) from exc

    def ensure_index(self) -> None:
        """Create the index with its mapping if it does not exist yet."""
        if self._ready:
            return
        from opensearchpy.exceptions import RequestError

        if not self._call("index check", self._client.indices.exists, index=self.index_name):
            try:
                self._client.indices.create(index=self.index_name, body=index_body(self.dimension))
            except RequestError as exc:
                if "resource_already_exists" not in str(exc):
                    raise IndexUnavailableError(f"creating index {self.index_name} failed: {exc}") from exc
        self._ready = True

    def _readable(self) -> bool:
        """Whether the index exists, asked by a read. A read never creates the index: the
        functions that only search (reconcile's similar-memory finder) may describe and read
        it but not create it, and until the indexer writes a first document there is
        nothing to find."""
        if not self._ready and self._call("index check", self._client.indices.exists, index=self.index_name):
            self._ready = True
        return self._ready

    # --- writes -------------------------------------------------------------------

    def upsert(self, family_id: str, documents: Sequence[IndexDocument], *, force: bool = False) -> None:
        check_documents(family_id, documents, self.dimension)
        if not documents:
            return
        self.ensure_index()
        operations: list[dict[str, Any]] = []
        for document in documents:
            _id = doc_id(family_id, document.memory_id)
            if force:
                # Files are the truth: drop whatever revision the index holds, then write.
                operations.append({"delete": {"_index": self.index_name, "_id": _id}})
            operations.append(
                {
                    "index": {
                        "_index": self.index_name,
                        "_id": _id,
                        "version": document.revision,
                        "version_type": "external_gte",
                    }
                }
            )
            operations.append(document.model_dump(mode="json"))
        self._bulk(operations, tolerated={404, 409})

    def delete(self, family_id: str, memory_ids: Iterable[str]) -> None:
        operations = [{"delete": {"_index": self.index_name, "_id": doc_id(family_id, i)}} for i in memory_ids]
        if operations:
            self.ensure_index()
            self._bulk(operations, tolerated={404})

    def _bulk(self, operations: list[dict[str, Any]], tolerated: set[int]) -> None:
        response = self._call("bulk", self._client.bulk, body=operations)
        if not response.get("errors"):
            return
        failures = []
        for item in response.get("items", []):
            for action, result in item.items():
                status = int(result.get("status", 200))
                # 409 on index: the index already holds a newer revision (a late event); 404 on delete: gone already.
                if status >= 300 and status not in tolerated:
                    failures.append(f"{action} {result.get('_id')}: {status} {result.get('error')}")
        if failures:
            raise IndexUnavailableError(
                explain(f"OpenSearch refused {len(failures)} operations: {'; '.join(failures[:3])}")
            )

    # --- reads --------------------------------------------------------------------

    def get(self, family_id: str, memory_ids: Iterable[str]) -> dict[str, IndexDocument]:
        ids = sorted({doc_id(family_id, i) for i in memory_ids})
        if not ids or not self._readable():
            return {}
        response = self._call(
            "mget", self._client.mget, index=self.index_name, body={"ids": ids}, _source_excludes=_SOURCE_EXCLUDES
        )
        found: dict[str, IndexDocument] = {}
        for item in response.get("docs", []):
            if item.get("found") and item.get("_source", {}).get("family_id") == family_id:
                document = _document(item["_source"])
                found[document.memory_id] = document
        return found

    def documents(self, family_id: str) -> Iterator[IndexDocument]:
        if not self._readable():
            return
        after: list[Any] | None = None
        while True:
            body: dict[str, Any] = {
                "size": 500,
                "_source": {"excludes": _SOURCE_EXCLUDES},
                "query": {"bool": {"filter": filter_clauses(family_id, SearchFilter.any_status())}},
                "sort": [{"memory_id": "asc"}],
            }
            if after is not None:
                body["search_after"] = after
            hits = self._call("search", self._client.search, index=self.index_name, body=body)["hits"]["hits"]
            for hit in hits:
                yield _document(hit["_source"])
            if len(hits) < 500:
                return
            after = hits[-1]["sort"]

    def semantic(self, family_id: str, vector: Vector, search_filter: SearchFilter, k: int) -> list[Hit]:
        check_k(k)
        if not self._readable():
            return []
        body = semantic_query(family_id, vector, search_filter, k)
        response = self._call("k-NN search", self._client.search, index=self.index_name, body=body)
        return self._hits(family_id, response, cosine=True)

    def keyword(self, family_id: str, text: str, search_filter: SearchFilter, k: int) -> list[Hit]:
        check_k(k)
        if not text.strip() or not self._readable():
            return []
        body = keyword_query(family_id, text[:2000], search_filter, k)
        response = self._call("keyword search", self._client.search, index=self.index_name, body=body)
        return self._hits(family_id, response, cosine=False)

    @staticmethod
    def _hits(family_id: str, response: dict[str, Any], *, cosine: bool) -> list[Hit]:
        hits = []
        for hit in response.get("hits", {}).get("hits", []):
            source = hit.get("_source", {})
            if source.get("family_id") != family_id:  # the filter makes this impossible; checked anyway
                continue
            score = float(hit.get("_score") or 0.0)
            hits.append(
                Hit(source["memory_id"], cosine_from_score(score) if cosine else score, int(source["revision"]))
            )
        return hits

    def wait_until_searchable(self, family_id: str, memory_ids: Iterable[str], timeout: float = 60.0) -> None:
        """Serverless collections refresh on their own schedule; tests against a real endpoint wait here."""
        wanted = set(memory_ids)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if wanted <= {d.memory_id for d in self.documents(family_id)}:
                return
            time.sleep(1.0)
        raise IndexUnavailableError(f"documents {sorted(wanted)[:3]} did not become searchable in {timeout:.0f}s")


def opensearch_client(endpoint: str, region: str, session: Any = None) -> Any:
    """An opensearch-py client for a collection endpoint, signing with SigV4 for ``aoss``."""
    import boto3
    from opensearchpy import AWSV4SignerAuth, OpenSearch, RequestsHttpConnection

    session = session or boto3.session.Session(region_name=region)
    credentials = session.get_credentials()
    host = endpoint.removeprefix("https://").rstrip("/")
    return OpenSearch(
        hosts=[{"host": host, "port": 443}],
        http_auth=AWSV4SignerAuth(credentials, region, "aoss"),
        use_ssl=True,
        verify_certs=True,
        connection_class=RequestsHttpConnection,
        timeout=10,
        max_retries=3,
        retry_on_timeout=True,
        pool_maxsize=10,
    )
