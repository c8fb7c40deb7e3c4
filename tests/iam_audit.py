"""The IAM audit's harness: run the real Lambda handlers under moto and check every AWS
call each one makes against that function's own statements in template.yaml.

moto enforces no IAM, so without this a grant missing from template.yaml (an
AccessDenied in Lambda) passes every other test. ``Cloud`` builds each function's
runtime as Lambda does, from the environment template.yaml gives that function, on a
boto3 session whose clients report every call to an ``Audit``. Each call becomes the
authorisation requests AWS would evaluate (``iam_policy.requests_for``). A denied call
fails at once with AccessDenied, as it would in Lambda, and is also recorded, so a
failure the code swallows (the brief patcher logs and carries on) still shows.

Two services have no moto here and get stand-ins at their edge: Bedrock answers from
a ``before-call`` hook (a recorded Converse tool call; Titan vectors made from the
text's hash), and OpenSearch is ``SearchCollection``, an in-memory collection whose
clients authorise each request as the service does (``aoss:APIAccessAll`` in IAM, then
the collection's data access policy for the function's role).
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import random
import uuid
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from hashlib import sha256
from typing import TYPE_CHECKING, Any

import boto3
import pytest
from botocore.awsrequest import AWSResponse
from botocore.compat import HTTPHeaders
from botocore.exceptions import ClientError
from botocore.response import StreamingBody
from opensearchpy.exceptions import AuthorizationException

from api_helpers import api_event, payload
from conftest import FIXTURES, TEST_BUCKET, TEST_TABLE, fake_credentials, serialise_moto_requests, with_bucket_and_table
from family_memory.adapters.aws.s3_store import S3Store
from family_memory.app.bootstrap import build_aws
from family_memory.app.runtime import Runtime
from family_memory.app.settings import load_settings
from family_memory.card.operations import forget_memory
from family_memory.domain.clock import FixedClock
from family_memory.writes.protocol import FamilyWriter
from iam_policy import (
    ACCOUNT,
    REGION,
    DataAccessRule,
    Grant,
    Request,
    Stack,
    Statement,
    UnmappedCallError,
    every_grant,
    grants,
    missing_key_request,
    queue_arn,
    requests_for,
)
from lambda_harness import LambdaContext, event, load_handler
from opensearch_engine import Engine

if TYPE_CHECKING:
    from mypy_boto3_sqs.literals import QueueAttributeNameType

#: The handlers under audit: functions/<name>/app.py and the template's logical id.
FUNCTIONS = {
    "extract": "ExtractFunction",
    "reconcile": "ReconcileFunction",
    "compile": "CompileFunction",
    "dream_worker": "DreamWorkerFunction",
    "dream_fanout": "DreamFanoutFunction",
    "indexer": "IndexerFunction",
    "api": "ApiFunction",
}
IDEMPOTENCY_TABLE = "family-memory-idempotency"
COLLECTION_ID = "a1b2c3d4e5f6g7h8i9j0"
HASH_KEYS = {TEST_TABLE: "pk", IDEMPOTENCY_TABLE: "id"}
FAMILY = "fam-audit"
LA = "America/Los_Angeles"
START = datetime(2026, 11, 30, 18, 0, tzinfo=UTC)  # 10:00 in Los Angeles
#: Only named in the events the compile function receives (EventBridge fills it, not code).
COMPILE_QUEUE_URL = f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/CompileQueue"


# --- the audit ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Denial:
    function: str
    request: Request
    why: str = ""

    def __str__(self) -> str:
        return f"{self.function}: {self.request.describe()}" + (f" ({self.why})" if self.why else "")


@dataclass
class Audit:
    """The calls each function made and what its statements granted or refused."""

    stack: Stack
    statements: dict[str, list[Statement]]
    used: dict[str, set[Grant]] = field(default_factory=lambda: defaultdict(set))
    denied: list[Denial] = field(default_factory=list)
    unmapped: list[str] = field(default_factory=list)
    calls: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    #: An error code Bedrock answers Converse with instead of a tool call (None: it answers).
    bedrock_refusal: str | None = None
    #: Reads of missing keys S3 answered 403 (the role may list only under families/).
    missing_answered_403: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    @classmethod
    def of(cls, stack: Stack, **overrides: list[Statement]) -> Audit:
        statements = {name: stack.statements(logical) for name, logical in FUNCTIONS.items()}
        return cls(stack, statements | overrides)

    def authorise(self, function: str, req: Request, why: str = "") -> bool:
        found = grants(self.statements[function], req)
        if not found:
            self.denied.append(Denial(function, req, why))
            return False
        self.used[function].update(found)
        return True

    def session(self, function: str) -> boto3.session.Session:
        """A boto3 session whose clients report every call to this audit, as ``function``."""
        session = boto3.session.Session(region_name=REGION)
        session.events.register("before-parameter-build", partial(self._before_call, function))
        for operation in ("GetObject", "HeadObject"):
            session.events.register(f"after-call.s3.{operation}", partial(self._after_read, function))
        session.events.register("before-call.bedrock-runtime", partial(answer_bedrock, self))  # type: ignore[arg-type]
        return session

    def _before_call(self, function: str, params: dict[str, Any], model: Any, context: Any, **_: Any) -> None:
        service, operation = model.service_model.service_name, model.name
        context["audit_params"] = copy.deepcopy(params)
        self.calls[function].append(f"{service}.{operation} {params.get('Key') or params.get('Prefix') or ''}")
        try:
            requests = requests_for(service, operation, params, HASH_KEYS)
        except UnmappedCallError as exc:
            self.unmapped.append(f"{function}: {exc}")
            raise
        for req in requests:
            if not self.authorise(function, req):
                raise ClientError(
                    {
                        "Error": {"Code": "AccessDenied", "Message": f"{function} may not {req.describe()}"},
                        "ResponseMetadata": {"HTTPStatusCode": 403},  # type: ignore[typeddict-item]
                    },
                    operation,
                )

    def _after_read(self, function: str, http_response: Any, parsed: dict[str, Any], context: Any, **_: Any) -> None:
        """S3 tells only a caller that may list the bucket that a key is missing (404);
        anyone else gets 403 AccessDenied. Not a denial of the call: the store then lists
        the key to tell a missing key from a refused one, and that request is audited."""
        if http_response.status_code != 404:
            return
        params = context["audit_params"]
        found = grants(self.statements[function], missing_key_request(params))
        if found:
            self.used[function].update(found)
            return
        self.missing_answered_403[function] += 1
        parsed["Error"] = {"Code": "AccessDenied", "Message": "Access Denied"}
        parsed.setdefault("ResponseMetadata", {})["HTTPStatusCode"] = 403

    def unused(self, unreached: Iterable[Grant] = ()) -> list[str]:
        """Every grant no call used, but those in ``unreached``, as ``function sid: action on resource``."""
        skipped = set(unreached)
        return [
            f"{function} {g.sid}: {g.action} on {g.resource}"
            for function, statements in self.statements.items()
            for g in sorted(every_grant(statements) - self.used[function] - skipped, key=str)
        ]


# --- Bedrock and OpenSearch stand-ins ----------------------------------------------------------


def answer_bedrock(audit: Audit, model: Any, context: Any, **_: Any) -> tuple[AWSResponse, dict[str, Any]]:
    """Bedrock's answers: a recorded Converse tool call (or ``audit.bedrock_refusal``),
    and a Titan embedding made from the text's hash (deterministic, unit length, 512 numbers)."""
    params = context["audit_params"]
    meta = {"ResponseMetadata": {"HTTPStatusCode": 200}}
    if model.name == "Converse" and audit.bedrock_refusal:
        refusal = {"Code": audit.bedrock_refusal, "Message": "You don't have access to the model."}
        return AWSResponse("https://bedrock", 403, HTTPHeaders(), None), {
            "Error": refusal,
            "ResponseMetadata": {"HTTPStatusCode": 403},
        }
    if model.name == "Converse":
        recorded = json.loads((FIXTURES / "bedrock" / "converse_record_memories.json").read_text())
        return AWSResponse("https://bedrock", 200, HTTPHeaders(), None), {**recorded, **meta}
    text = json.loads(params["body"])["inputText"]
    rng = random.Random(sha256(text.encode()).digest())
    vector = [rng.gauss(0.0, 1.0) for _ in range(512)]
    norm = sum(x * x for x in vector) ** 0.5
    body = json.dumps({"embedding": [x / norm for x in vector], "inputTextTokenCount": len(text.split())}).encode()
    return AWSResponse("https://bedrock", 200, HTTPHeaders(), None), {
        "body": StreamingBody(io.BytesIO(body), len(body)),
        "contentType": "application/json",
        **meta,
    }


@dataclass
class SearchCollection:
    """An OpenSearch Serverless collection in memory: enough of the engine for the
    indexer's writes and the reconciler's searches. Each function gets its own client,
    and every request is authorised twice, as the service does: ``aoss:APIAccessAll`` on
    the collection (IAM), then the data access policy for the function's role."""

    audit: Audit
    engine: Engine = field(default_factory=Engine)
    used_rules: set[tuple[str, str, str]] = field(default_factory=set)

    def __post_init__(self) -> None:
        stack = self.audit.stack
        self.arn = stack.attribute("SearchCollection", "Arn")
        self.name = stack.resolve(stack.resource("SearchCollection")["Properties"]["Name"])
        self.rules: list[DataAccessRule] = stack.data_access_rules()

    def client(self, function: str) -> SearchClient:
        return SearchClient(self, function)

    def authorise(self, function: str, permission: str, index: str) -> None:
        role = f"arn:aws:iam::{ACCOUNT}:role/{FUNCTIONS[function]}Role"
        resource = f"index/{self.name}/{index}"
        allowed = self.audit.authorise(function, Request("aoss:APIAccessAll", self.arn))
        matching = [rule for rule in self.rules if rule.allows(role, permission, resource)]
        for rule in matching:
            self.used_rules.add((rule.source, role, permission))
        if not matching:
            self.audit.denied.append(Denial(function, Request(permission, resource)))
        if not (allowed and matching):
            raise AuthorizationException(403, "security_exception", {"error": f"{function} may not {permission}"})

    def unused_rules(self) -> list[str]:
        return [
            f"{rule.source}: {principal} {permission}"
            for rule in self.rules
            for principal in rule.principals
            for permission in rule.permissions
            if (rule.source, principal, permission) not in self.used_rules
        ]


@dataclass
class SearchClient:
    """opensearch-py's surface as ``OpenSearchIndex`` uses it."""

    collection: SearchCollection
    function: str

    @property
    def indices(self) -> SearchClient:
        return self

    def exists(self, *, index: str) -> bool:
        self.collection.authorise(self.function, "aoss:DescribeIndex", index)
        return self.collection.engine.exists

    def get_mapping(self, *, index: str) -> dict[str, Any]:
        self.collection.authorise(self.function, "aoss:DescribeIndex", index)
        return self.collection.engine.get_mapping(index)

    def create(self, *, index: str, body: dict[str, Any]) -> dict[str, Any]:
        self.collection.authorise(self.function, "aoss:CreateIndex", index)
        return self.collection.engine.create(body)

    def bulk(self, *, body: list[dict[str, Any]]) -> dict[str, Any]:
        lines = iter(body)
        for line in lines:
            ((action, meta),) = line.items()
            self.collection.authorise(self.function, "aoss:WriteDocument", meta["_index"])
            if action == "index":
                next(lines)  # the document
        return self.collection.engine.bulk(body)

    def search(self, *, index: str, body: dict[str, Any]) -> dict[str, Any]:
        self.collection.authorise(self.function, "aoss:ReadDocument", index)
        return self.collection.engine.search(body)


# --- running the handlers ---------------------------------------------------------------------


def object_created(key: str) -> dict[str, Any]:
    """EventBridge's "Object Created" event for ``key`` in the memory bucket."""
    created = event("s3_session_object_created.json")
    created["id"] = str(uuid.uuid4())
    created["detail"]["object"]["key"] = key
    return created


def sqs_event(bodies: list[str], queue_url: str, *, fifo_group: str | None = None) -> dict[str, Any]:
    """The batch Lambda's SQS poller delivers for ``bodies``."""
    template = event("sqs_reconcile_batch.json")["Records"][0]
    records = []
    for n, body in enumerate(bodies, start=1):
        record = copy.deepcopy(template)
        record.update(messageId=str(uuid.uuid4()), body=body, eventSourceARN=queue_arn(queue_url))
        attributes = record["attributes"]
        if fifo_group is None:
            for name in ("SequenceNumber", "MessageGroupId", "MessageDeduplicationId"):
                attributes.pop(name)
        else:
            attributes.update(MessageGroupId=fifo_group, SequenceNumber=str(n), MessageDeduplicationId=str(n))
        records.append(record)
    return {"Records": records}


class Cloud:
    """moto with the stack's bucket, table and queues, the audit, and a way to invoke
    each function the way Lambda would (its template environment, a cold start)."""

    def __init__(self, admin: boto3.session.Session, parameters: dict[str, str], monkeypatch: pytest.MonkeyPatch):
        self.admin = admin
        sqs = admin.client("sqs")
        fifo: dict[QueueAttributeNameType, str] = {"FifoQueue": "true"}
        self.queues = {
            "ReconcileQueue": sqs.create_queue(QueueName="ReconcileQueue.fifo", Attributes=fifo)["QueueUrl"],
            "DreamQueue": sqs.create_queue(QueueName="DreamQueue")["QueueUrl"],
        }
        admin.client("dynamodb").create_table(
            TableName=IDEMPOTENCY_TABLE,
            KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        names = {"MemoryBucket": TEST_BUCKET, "MemoryTable": TEST_TABLE, "IdempotencyTable": IDEMPOTENCY_TABLE}
        names |= {"SearchCollection": COLLECTION_ID, **self.queues}
        self.stack = Stack(names, parameters)
        self.audit = Audit.of(self.stack)
        self.collection = SearchCollection(self.audit)
        self.clock = FixedClock(START)
        self.monkeypatch = monkeypatch
        self.results: dict[str, list[Any]] = defaultdict(list)
        self.environment_names = {name for logical in FUNCTIONS.values() for name in self.stack.environment(logical)}

    def runtime(self, function: str) -> Runtime:
        """The function's runtime, from the environment template.yaml gives it."""
        with self.monkeypatch.context() as env:
            for name in self.environment_names:
                env.delenv(name, raising=False)
            for name, value in self.stack.environment(FUNCTIONS[function]).items():
                env.setenv(name, value)
            return build_aws(
                load_settings(),
                self.clock,
                session=self.audit.session(function),
                search_client=self.collection.client(function),
            )

    def invoke(self, function: str, payload: dict[str, Any]) -> Any:
        rt = self.runtime(function)
        handler = load_handler(function)
        with self.monkeypatch.context() as patch:
            patch.setattr(handler, "runtime", lambda: rt)
            result = handler.handler(payload, LambdaContext(FUNCTIONS[function]))
        self.results[function].append(result)
        return result

    # --- the family's side of things (the test's own calls, not audited) ---------------------

    def admin_runtime(self) -> Runtime:
        settings = load_settings({}, backend="aws", bucket=TEST_BUCKET, table=TEST_TABLE, region=REGION)
        return build_aws(settings, self.clock, session=self.admin)

    def transcript(self, session_id: str, texts: list[str], *, also: tuple[str, str] | None = None) -> bytes:
        """A finished session: ``texts`` are Lucía's turns; ``also`` adds a turn (member, text) after them."""
        started = self.clock.now() - timedelta(minutes=20)
        turns = [{"n": n, "role": "user", "member_id": "lucia", "text": t} for n, t in enumerate(texts, 1)]
        if also is not None:
            turns.append({"n": len(turns) + 1, "role": "user", "member_id": also[0], "text": also[1]})
        body = {
            "family_id": FAMILY,
            "session_id": session_id,
            "surface": "chat",
            "started_at": started.isoformat().replace("+00:00", "Z"),
            "time_zone": LA,
            "turns": turns,
        }
        return json.dumps(body).encode()

    def put_session(self, session_id: str, texts: list[str]) -> str:
        key = f"families/{FAMILY}/sessions/{session_id}.json"
        self.admin.client("s3").put_object(Bucket=TEST_BUCKET, Key=key, Body=self.transcript(session_id, texts))
        return key

    def keys(self, prefix: str) -> list[str]:
        listed = self.admin.client("s3").list_objects_v2(Bucket=TEST_BUCKET, Prefix=f"families/{FAMILY}/{prefix}")
        return sorted(item["Key"] for item in listed.get("Contents", []))

    def receive(self, queue: str) -> list[str]:
        sqs = self.admin.client("sqs")
        bodies: list[str] = []
        while True:
            messages = sqs.receive_message(QueueUrl=self.queues[queue], MaxNumberOfMessages=10).get("Messages", [])
            if not messages:
                return bodies
            for message in messages:
                bodies.append(message["Body"])
                sqs.delete_message(QueueUrl=self.queues[queue], ReceiptHandle=message["ReceiptHandle"])

    # --- one step of the family's life per function ---------------------------------------------

    def extract(self, session_id: str, texts: list[str]) -> Any:
        return self.invoke("extract", object_created(self.put_session(session_id, texts)))

    def reconcile(self, bodies: list[str] | None = None) -> Any:
        bodies = self.receive("ReconcileQueue") if bodies is None else bodies
        return self.invoke("reconcile", sqs_event(bodies, self.queues["ReconcileQueue"], fifo_group=FAMILY))

    def compile(self, keys: list[str]) -> Any:
        bodies = [json.dumps(object_created(key)) for key in keys]
        return self.invoke("compile", sqs_event(bodies, COMPILE_QUEUE_URL))

    def index(self, keys: list[str]) -> list[Any]:
        return [self.invoke("indexer", object_created(key)) for key in keys]

    def api(self, method: str, path: str, body: Any = None, **kw: Any) -> Any:
        """One request to the HTTP API, as API Gateway delivers it; returns the JSON body
        (the response itself is in ``results["api"]``)."""
        response = self.invoke("api", api_event(method, path, body, **kw))
        assert response["statusCode"] < 300, f"{method} {path}: {response['statusCode']} {response['body']}"
        return payload(response)

    def end_session(self, session_id: str, texts: list[str], *, also: tuple[str, str] | None = None) -> Any:
        """Session end through the API; then extract, as the session's S3 event would start it."""
        data = self.transcript(session_id, texts, also=also)
        ended = self.api("POST", f"/families/{FAMILY}/sessions", raw_body=data)
        assert ended["stored"] and ended["formation"] == "started", ended
        return self.invoke("extract", object_created(f"families/{FAMILY}/sessions/{session_id}.json"))


@contextlib.contextmanager
def cloud(**parameters: str) -> Iterator[Cloud]:
    """moto, entered for a whole scenario (module-scoped fixtures cannot use ``aws``)."""
    from moto import mock_aws

    with pytest.MonkeyPatch.context() as monkeypatch:
        fake_credentials(monkeypatch, POWERTOOLS_TRACE_DISABLED="true")
        serialise_moto_requests()
        with mock_aws():
            admin = with_bucket_and_table()
            yield Cloud(admin, parameters, monkeypatch)


class Crash(BaseException):
    """The process dying mid-write (a BaseException, so nothing on the way swallows it)."""


class DyingS3Store(S3Store):
    """An S3 store whose process dies at its first write."""

    def _put(
        self, family_id: str, path: str, data: bytes, *, if_none_match: str | None = None, if_match: str | None = None
    ) -> str:
        raise Crash(f"died before writing {path}")


def forget(c: Cloud, words: str, *, crash: bool = False) -> str:
    """The family forgets, from the memory card (the API function), the memory whose summary
    holds ``words``. ``crash``: the card's process dies after recording its intent and before writing a
    file, so whichever function takes the family's lease next completes the forget."""
    rt = c.admin_runtime()
    row = next(r for r in rt.catalog.all_rows(FAMILY) if words in r.summary)
    if not crash:
        body = {"member_id": "lucia", "reason": "not true any more"}
        forgotten = c.api("POST", f"/families/{FAMILY}/memories/{row.id}/forget", body)
        assert forgotten["memory"]["status"] == "retracted", forgotten
        return row.id
    dying = FamilyWriter(DyingS3Store(c.admin.client("s3"), TEST_BUCKET), rt.catalog, c.clock)
    with contextlib.suppress(Crash):
        forget_memory(dying, FAMILY, row.id, "lucia", "not true any more")
    assert rt.catalog.pending_intents(FAMILY), "the crash left no intent to complete"
    return row.id
