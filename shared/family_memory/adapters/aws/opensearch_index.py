"""The index on OpenSearch Serverless (a VECTORSEARCH or SEARCH collection), an
OpenSearch Service domain, or a self-managed OpenSearch cluster.

opensearch-py; on AWS every request signed with SigV4 (service ``aoss`` or ``es``),
elsewhere with basic auth or none (``opensearch_client``). One index holds every
family's documents; the family filter is added here, inside the adapter, to
every query (as a ``term`` filter inside the k-NN clause and inside every other
query's ``bool``), so no request can read or change another family's documents.

**No client-chosen ids.** VECTORSEARCH collections generate every document id
themselves (a write that names one is refused), so documents are written with
``_bulk`` ``index`` actions without ``_id`` and found again by their fields:
each document carries ``family_id``, ``memory_id`` and ``revision``. There is
no external versioning, so the revision rule is applied here (``upsert``), and
the index may briefly hold more than one copy of a memory: a write made while
an older copy was not yet visible to search (NextGen shows a write to search
about 10 s later), or two indexers writing the same revision at once. Every
read therefore keeps one copy per memory, the highest revision (then the
smallest ``_id``), and asks for ``HEADROOM`` extra hits so dropped copies do
not starve the ``k``; the next event of the memory, or ``rebuild-index``,
deletes the extra copies (``duplicates`` reports them).

``innerproduct`` on unit vectors is cosine similarity; scores are converted
back to cosine before they leave the adapter. The bodies are built by pure
functions (``index_body``, ``semantic_query``, ``keyword_query``,
``copies_query``) so tests can check them without an engine; the contract
suite runs against a real collection when ``OPENSEARCH_ENDPOINT`` is set.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from family_memory.domain.errors import InvalidInputError
from family_memory.domain.ids import check_family_id, check_memory_id
from family_memory.retrieval.documents import IndexDocument
from family_memory.retrieval.embedding import Vector
from family_memory.retrieval.query_words import query_words
from family_memory.retrieval.search_index import (
    Hit,
    IndexMismatchError,
    IndexUnavailableError,
    MemoryIndex,
    SearchFilter,
    check_documents,
    check_k,
)

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

log = logging.getLogger(__name__)

DEFAULT_INDEX = "family-memories"
#: Hits every search asks for beyond ``k``: copies of one memory are dropped after ranking.
HEADROOM = 20
#: Hits per page when a family's documents (or a memory's copies) are listed.
PAGE = 500
#: Operations per ``_bulk`` request.
BULK_CHUNK = 500
#: Fuzzy terms each query word may expand to, per field. 24 words x 5 fields x 8 terms
#: = 960 clauses at most, under OpenSearch's default limit of 1,024 with the filters.
MAX_EXPANSIONS = 8
MAX_CLAUSES = 1024

KEYWORD_FIELDS = ("family_id", "memory_id", "status", "type", "applies_to", "sensitivity", "strength", "authority")
TEXT_FIELDS = ("about", "summary", "when_to_use", "body", "quotes")
TEXT_BOOSTS = ("about^3", "summary^2", "when_to_use", "body", "quotes")
SPACE_TYPE = "innerproduct"
_SOURCE_EXCLUDES = ["embedding"]
_IDENTITY = ["family_id", "memory_id", "revision"]
_ORDER = [{"memory_id": "asc"}, {"revision": "desc"}]


def _reason(exc: Exception) -> str:
    """The ``reason`` OpenSearch gave in an error response (opensearch-py keeps it out of ``str``)."""
    info = getattr(exc, "info", None)
    error = info.get("error") if isinstance(info, dict) else None
    reason = error.get("reason") if isinstance(error, dict) else error if isinstance(error, str) else None
    return f": {str(reason)[:500]}" if reason else ""


def index_body(dimension: int, embedding_model: str | None = None) -> dict[str, Any]:
    """Settings and mapping of the memory index; ``_meta`` names the embedding model."""
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
                    "space_type": SPACE_TYPE,
                    "parameters": {"m": 16, "ef_construction": 128},
                },
            },
        }
    )
    mappings: dict[str, Any] = {"dynamic": "strict", "properties": properties}
    if embedding_model is not None:
        mappings["_meta"] = {"embedding_model": embedding_model}
    return {"settings": {"index": {"knn": True}}, "mappings": mappings}


def missing_text_fields(mapping: dict[str, Any]) -> list[str]:
    """Text fields the adapter writes that an existing index's mapping lacks."""
    properties = mapping.get("properties", {})
    return [name for name in TEXT_FIELDS if name not in properties]


def mapping_problems(mapping: dict[str, Any], dimension: int, embedding_model: str | None) -> list[str]:
    """Why an existing index cannot take this embedder's vectors (empty: it can)."""
    vector = mapping.get("properties", {}).get("embedding", {})
    have_dimension = vector.get("dimension")
    have_space = vector.get("method", {}).get("space_type") or vector.get("space_type") or "l2"
    problems = []
    if have_dimension != dimension:
        problems.append(f"its vectors have {have_dimension} dimensions, the embedder's have {dimension}")
    if have_space != SPACE_TYPE:
        problems.append(f"its space type is {have_space}, the adapter needs {SPACE_TYPE}")
    missing = missing_text_fields(mapping)
    if missing and mapping.get("properties"):
        # An index made before a text field existed (``quotes``): its strict mapping refuses the documents.
        problems.append(f"its mapping has no {', '.join(missing)} field")
    have_model = (mapping.get("_meta") or {}).get("embedding_model")
    if embedding_model is not None and have_model is not None and have_model != embedding_model:
        problems.append(f"it was built with embedding model {have_model}, the embedder is {embedding_model}")
    return problems


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
    wanted = k + HEADROOM
    return {
        "size": wanted,
        "_source": {"excludes": _SOURCE_EXCLUDES},
        "query": {
            "knn": {
                "embedding": {
                    "vector": list(vector),
                    "k": wanted,
                    "filter": {"bool": {"filter": filter_clauses(family_id, search_filter)}},
                }
            }
        },
    }


def keyword_query(family_id: str, text: str, search_filter: SearchFilter, k: int) -> dict[str, Any] | None:
    """A fuzzy ``multi_match`` on the message's first distinct non-stop words (None: no such word)."""
    chosen = query_words(text)
    if not chosen:
        return None
    return {
        "size": k + HEADROOM,
        "_source": {"excludes": _SOURCE_EXCLUDES},
        "query": {
            "bool": {
                "must": [
                    {
                        "multi_match": {
                            "query": " ".join(chosen),
                            "fields": list(TEXT_BOOSTS),
                            "type": "best_fields",
                            "operator": "or",
                            "fuzziness": "AUTO",
                            "prefix_length": 1,
                            "max_expansions": MAX_EXPANSIONS,
                        }
                    }
                ],
                "filter": filter_clauses(family_id, search_filter),
            }
        },
    }


def copies_query(
    family_id: str, memory_ids: Iterable[str] | None, source: Any, after: list[Any] | None = None
) -> dict[str, Any]:
    """Documents of the family (of these memories, when given) in memory-id order, newest copy first."""
    clauses = filter_clauses(family_id, SearchFilter.any_status())
    if memory_ids is not None:
        clauses.append({"terms": {"memory_id": sorted({check_memory_id(i) for i in memory_ids})}})
    body: dict[str, Any] = {"size": PAGE, "_source": source, "query": {"bool": {"filter": clauses}}, "sort": _ORDER}
    if after is not None:
        body["search_after"] = after
    return body


def cosine_from_score(score: float) -> float:
    """Invert faiss' innerproduct scoring (ip + 1 when ip >= 0, else 1 / (1 - ip))."""
    return score - 1.0 if score >= 1.0 else 1.0 - 1.0 / score if score > 0 else -1.0


def _document(source: dict[str, Any]) -> IndexDocument:
    return IndexDocument.model_validate({k: v for k, v in source.items() if k != "embedding"})


@dataclass(frozen=True, slots=True)
class Copy:
    """One stored document of a memory: the engine's id and the revision it holds."""

    id: str
    revision: int

    @property
    def rank(self) -> tuple[int, str]:
        """Smaller is better: the highest revision, then the smallest id."""
        return (-self.revision, self.id)


def _copy(hit: dict[str, Any]) -> Copy:
    return Copy(str(hit["_id"]), int(hit["_source"]["revision"]))


def doomed_copies(existing: Sequence[Copy], revision: int, *, written: bool, force: bool) -> list[Copy]:
    """The copies of one memory an upsert deletes, given the copies its search saw.

    Order the copies by ``rank``: a higher revision is better, then a smaller id.

    - Forced (a rebuild from the files, which wrote its copy first): every copy seen.
    - Written without force: the copies seen with a revision at most the new one. That
      is every copy seen, all of them older: had one been as new, the upsert would
      have skipped the write.
    - Skipped (a copy seen is as new or newer): every copy seen but the best one.

    Why indexer events alone never delete every copy, whatever the interleaving and
    whatever each search missed: each unforced upsert deletes only copies strictly worse
    than another copy: the one it wrote (its deletes are sent only after that write
    succeeded, and all it deletes are older) or the best one it saw (which it keeps).
    The best copy ever written has no better copy, so no unforced upsert deletes it;
    it stays until the memory's file is gone (``delete``) or a rebuild replaces it.
    Two upserts racing on the same revision both write (each search missed the other's
    copy); the next event keeps the smaller id and deletes the rest, and two skippers
    that both see the pair pick the same copy to keep.

    A forced upsert writes before it deletes, so it never leaves a memory without its
    own copy. The one sequence that can lose every copy is a rebuild racing an event of
    the same memory inside the visibility window: the event's search shows a copy the
    rebuild is deleting and ranks it above the rebuild's copy, which it deletes.
    ``rebuild-index --check-only`` then names the memory missing and the next event or
    rebuild writes it again; turn-level lookups confirm every hit against the catalog.
    """
    if written:
        return [c for c in existing if force or c.revision <= revision]
    keep = min(existing, key=lambda c: c.rank)
    return [c for c in existing if c != keep]


def _best(hits: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """One hit per memory: its highest revision, then its smallest id (the copy a cleanup keeps)."""
    best: dict[str, dict[str, Any]] = {}
    for hit in hits:
        memory_id = hit["_source"]["memory_id"]
        held = best.get(memory_id)
        if held is None or _copy(hit).rank < _copy(held).rank:
            best[memory_id] = hit
    return best


class OpenSearchIndex(MemoryIndex):
    def __init__(
        self, client: OpenSearch, dimension: int, index_name: str = DEFAULT_INDEX, embedding_model: str | None = None
    ) -> None:
        self._client = client
        self.dimension = dimension
        self.index_name = index_name
        self.embedding_model = embedding_model
        self._ready = False

    def _call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        from opensearchpy.exceptions import ConnectionError as OSConnectionError
        from opensearchpy.exceptions import TransportError

        try:
            return fn(*args, **kwargs)
        except (OSConnectionError, TransportError) as exc:
            raise IndexUnavailableError(f"OpenSearch {what} failed: {exc}{_reason(exc)}") from exc

    def ensure_index(self) -> None:
        """Create the index with its mapping if it does not exist yet; check an existing one
        was built for this embedder (its mapping is read once per process)."""
        if self._ready:
            return
        from opensearchpy.exceptions import RequestError

        exists = self._call("index check", self._client.indices.exists, index=self.index_name)
        if not exists:
            try:
                self._client.indices.create(
                    index=self.index_name, body=index_body(self.dimension, self.embedding_model)
                )
            except RequestError as exc:
                if "resource_already_exists" not in str(exc):
                    raise IndexUnavailableError(f"creating index {self.index_name} failed: {exc}") from exc
                exists = True  # another indexer created it first: check it as any existing index
        if exists:
            self._check_mapping()
        self._ready = True

    def _check_mapping(self) -> None:
        response = self._call("mapping read", self._client.indices.get_mapping, index=self.index_name)
        entry: dict[str, Any] = response.get(self.index_name) or next(iter(response.values()), {})
        mapping = entry.get("mappings", {})
        problems = mapping_problems(mapping, self.dimension, self.embedding_model)
        if problems:
            raise IndexMismatchError(
                f"index {self.index_name} does not fit the embedder: {'; '.join(problems)}; "
                "run rebuild-index into a new OPENSEARCH_INDEX (docs/retrieval.md)"
            )
        if self.embedding_model is not None and "embedding_model" not in (mapping.get("_meta") or {}):
            log.warning(
                "index %s does not record its embedding model; assuming %s",
                self.index_name,
                self.embedding_model,
            )

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
        """One search finds the memories' copies; the documents newer than every copy (all of
        them when forced) are written, then the copies they replace are deleted by id
        (see ``doomed_copies``)."""
        check_documents(family_id, documents, self.dimension)
        if not documents:
            return
        self.ensure_index()
        chosen: dict[str, IndexDocument] = {}
        for document in documents:
            held = chosen.get(document.memory_id)
            if force or held is None or document.revision > held.revision:
                chosen[document.memory_id] = document
        existing = self._copies(family_id, list(chosen))
        written = {
            memory_id
            for memory_id, document in chosen.items()
            if force or all(c.revision < document.revision for c in existing.get(memory_id, []))
        }
        self._bulk(
            [
                (
                    f"index {memory_id}",
                    [{"index": {"_index": self.index_name}}, chosen[memory_id].model_dump(mode="json")],
                )
                for memory_id in sorted(written)
            ]
        )
        doomed = [
            copy
            for memory_id, copies in existing.items()
            for copy in doomed_copies(copies, chosen[memory_id].revision, written=memory_id in written, force=force)
        ]
        self._delete_copies(doomed)

    def delete(self, family_id: str, memory_ids: Iterable[str]) -> None:
        """Every copy the search finds; one written in the last seconds may not be visible yet."""
        check_family_id(family_id)
        wanted = [check_memory_id(i) for i in memory_ids]
        if not wanted or not self._readable():
            return
        self._delete_copies([c for copies in self._copies(family_id, wanted).values() for c in copies])

    def _delete_copies(self, copies: Sequence[Copy]) -> None:
        actions = [(f"delete {copy.id}", [{"delete": {"_index": self.index_name, "_id": copy.id}}]) for copy in copies]
        self._bulk(actions, gone_is_fine=True)

    def _bulk(self, actions: list[tuple[str, list[dict[str, Any]]]], *, gone_is_fine: bool = False) -> None:
        """Send the actions (a name, then the action's lines) in chunks. Any item that fails
        raises, naming it; only a delete of a document already gone (404) is fine."""
        failures: list[str] = []
        for start in range(0, len(actions), BULK_CHUNK):
            chunk = actions[start : start + BULK_CHUNK]
            body = [line for _, lines in chunk for line in lines]
            items = self._call("bulk", self._client.bulk, body=body).get("items", [])
            if len(items) != len(chunk):
                raise IndexUnavailableError(f"OpenSearch answered {len(items)} of {len(chunk)} bulk actions")
            for (name, _), item in zip(chunk, items, strict=True):
                ((_, result),) = item.items()
                status = int(result.get("status", 500))
                if status >= 300 and not (gone_is_fine and status == 404):
                    failures.append(f"{name}: {status} {result.get('error')}")
        if failures:
            raise IndexUnavailableError(f"OpenSearch refused {len(failures)} bulk actions: {'; '.join(failures[:5])}")

    # --- reads --------------------------------------------------------------------

    def _scan(self, family_id: str, memory_ids: Iterable[str] | None, source: Any) -> Iterator[dict[str, Any]]:
        """Every hit of ``copies_query``, a memory's copies never split between two pages."""
        check_family_id(family_id)
        if not self._readable():
            return
        wanted = None if memory_ids is None else set(memory_ids)
        after: list[Any] | None = None
        while True:
            body = copies_query(family_id, wanted, source, after)
            page = self._call("search", self._client.search, index=self.index_name, body=body)["hits"]["hits"]
            hits = page
            if len(page) == PAGE:
                # The last memory's copies may go on in the next page: read it again from its
                # first copy (unless one memory fills the page, a pathology: go on past it).
                last = page[-1]["_source"]["memory_id"]
                hits = [hit for hit in page if hit["_source"]["memory_id"] != last] or page
                after = hits[-1]["sort"]
            for hit in self._own(family_id, hits):
                if wanted is None or hit["_source"]["memory_id"] in wanted:
                    yield hit
            if len(page) < PAGE:
                return

    @staticmethod
    def _own(family_id: str, hits: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for hit in hits:
            source = hit.get("_source", {})
            if source.get("family_id") != family_id:  # the filter makes this impossible; checked anyway
                continue
            yield hit

    def _copies(self, family_id: str, memory_ids: Sequence[str]) -> dict[str, list[Copy]]:
        found: dict[str, list[Copy]] = {}
        for hit in self._scan(family_id, memory_ids, _IDENTITY):
            found.setdefault(hit["_source"]["memory_id"], []).append(_copy(hit))
        return found

    def get(self, family_id: str, memory_ids: Iterable[str]) -> dict[str, IndexDocument]:
        check_family_id(family_id)
        wanted = sorted({check_memory_id(i) for i in memory_ids})
        if not wanted:
            return {}
        hits = self._scan(family_id, wanted, {"excludes": _SOURCE_EXCLUDES})
        return {memory_id: _document(hit["_source"]) for memory_id, hit in sorted(_best(hits).items())}

    def documents(self, family_id: str) -> Iterator[IndexDocument]:
        group: list[dict[str, Any]] = []
        for hit in self._scan(family_id, None, {"excludes": _SOURCE_EXCLUDES}):
            if group and group[0]["_source"]["memory_id"] != hit["_source"]["memory_id"]:
                yield from (_document(h["_source"]) for h in _best(group).values())
                group = []
            group.append(hit)
        yield from (_document(h["_source"]) for h in _best(group).values())

    def duplicates(self, family_id: str) -> dict[str, int]:
        counts: dict[str, int] = {}
        for hit in self._scan(family_id, None, _IDENTITY):
            memory_id = hit["_source"]["memory_id"]
            counts[memory_id] = counts.get(memory_id, 0) + 1
        return {memory_id: n for memory_id, n in counts.items() if n > 1}

    def semantic(self, family_id: str, vector: Vector, search_filter: SearchFilter, k: int) -> list[Hit]:
        check_k(k)
        body = semantic_query(family_id, vector, search_filter, k)
        if not self._readable():
            return []
        response = self._call("k-NN search", self._client.search, index=self.index_name, body=body)
        return self._hits(family_id, response, k, cosine=True)

    def keyword(self, family_id: str, text: str, search_filter: SearchFilter, k: int) -> list[Hit]:
        check_k(k)
        check_family_id(family_id)  # first: a message with no searchable word must not skip the check
        body = keyword_query(family_id, text, search_filter, k)
        if body is None or not self._readable():
            return []
        response = self._call("keyword search", self._client.search, index=self.index_name, body=body)
        return self._hits(family_id, response, k, cosine=False)

    def _hits(self, family_id: str, response: dict[str, Any], k: int, *, cosine: bool) -> list[Hit]:
        """Best first, one per memory (its best copy, ranked by that copy's score)."""
        ranked = sorted(
            _best(self._own(family_id, response.get("hits", {}).get("hits", []))).values(),
            key=lambda hit: -float(hit.get("_score") or 0.0),
        )
        hits = []
        for hit in ranked[:k]:
            source, score = hit["_source"], float(hit.get("_score") or 0.0)
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


#: Hosts that take SigV4 and the service name each is signed for.
SIGNED_SERVICES = ((".aoss.amazonaws.com", "aoss"), (".es.amazonaws.com", "es"))


def opensearch_client(
    endpoint: str, region: str | None, session: Any = None, *, timeout: float = 10.0, max_retries: int = 3
) -> Any:
    """An opensearch-py client for ``endpoint``:

    - ``https://<id>.<region>.aoss.amazonaws.com`` (an OpenSearch Serverless collection) or
      ``https://<domain>.<region>.es.amazonaws.com`` (an OpenSearch Service domain): every
      request SigV4-signed (``aoss`` or ``es``) with the session's credentials, through
      opensearch-py's ``RequestsAWSV4SignerAuth`` (``AWSV4SignerAuth`` is its deprecated alias);
    - ``https://user:password@host[:port]`` or ``http://...``: a self-managed cluster, with
      HTTP basic auth when the URL carries credentials, and none otherwise (plain ``http``
      only for a cluster on a private network or this machine).

    ``timeout`` applies to each try; ``max_retries`` tries more on a timeout or a dropped
    connection (the api function gives 0 and its search deadline: a cold collection's
    answer is waited for by the caller's retry, not inside one request)."""
    from urllib.parse import unquote, urlsplit

    from opensearchpy import OpenSearch, RequestsAWSV4SignerAuth, RequestsHttpConnection

    parts = urlsplit(endpoint if "://" in endpoint else f"https://{endpoint}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidInputError(
            f"OPENSEARCH_ENDPOINT: {endpoint[:80]!r} is not an http(s) URL of an OpenSearch endpoint"
        )
    if parts.path.strip("/") or parts.query:
        raise InvalidInputError("OPENSEARCH_ENDPOINT: give the endpoint only (scheme, host, port), without a path")
    secure = parts.scheme == "https"
    host, port = parts.hostname, parts.port or (443 if secure else 80)
    service = next((name for suffix, name in SIGNED_SERVICES if host.endswith(suffix)), None)
    auth: Any = None
    if parts.username is not None:
        auth = (unquote(parts.username), unquote(parts.password or ""))
    elif service is not None:
        import boto3

        session = session or boto3.session.Session(region_name=region)
        credentials = session.get_credentials()
        if credentials is None:
            raise InvalidInputError(f"OPENSEARCH_ENDPOINT {host} needs SigV4, and no AWS credentials were found")
        auth = RequestsAWSV4SignerAuth(credentials, region or session.region_name, service)
    return OpenSearch(
        hosts=[{"host": host, "port": port, "scheme": parts.scheme}],
        http_auth=auth,
        use_ssl=secure,
        verify_certs=secure,
        connection_class=RequestsHttpConnection,
        timeout=timeout,
        max_retries=max_retries,
        retry_on_timeout=max_retries > 0,
        pool_maxsize=10,
    )
