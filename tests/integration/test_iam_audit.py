"""The IAM audit of one family's life: every AWS call each function makes is allowed by
that function's own statements in template.yaml, and no statement grants what no
function uses (``iam_audit.py`` is the harness; ``iam_policy.py`` the evaluator).

The scenario walks the realistic paths, each through the function that does it in AWS:

1. a first session is extracted and reconciled; compile; the indexer creates the index
   and indexes the memory files; through the API function the agent's backend reads the
   brief, a turn's lookup and each read tool, and the family lists the card, opens a
   memory's evidence and adds a memory about someone new;
2. the family forgets a memory from the card (the API function); a second forget crashes
   after recording its intent (the next function to take the lease completes it);
3. the next day a second session ends through the API (a new speaker joins family.json)
   and is extracted (it reads the entities and the forget
   rules: the grants the extract role lacked; one rule was written by an earlier release,
   without ``claims_only``, so extract reads its memory file to set the subject aside) and reconciled (it completes the crashed
   forget, searches the index, supersedes a memory and patches the brief at once); the
   same reconcile message is delivered again; compile (a fact about last night expires);
4. after the family's local midnight two days later the hourly fan-out enqueues it and
   the dream worker expires a fact;
5. a reconcile request whose candidates are missing fails (its idempotency record is
   removed so a retry can run); the indexer is told of a memory file that is not there.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError

import family_memory.app.observability  # noqa: F401 - X-Ray's recorder opens a socket at import: before sockets are off
from conftest import TEST_BUCKET
from family_memory.adapters.aws.opensearch_index import OpenSearchIndex
from family_memory.domain.ids import new_ulid
from family_memory.domain.memory import Status
from family_memory.forgotten import CLAIMS_ONLY
from family_memory.formation.similar import FallingBackTo, IndexWithRecentCatalog
from family_memory.retrieval.similar import IndexSimilarMemories
from iam_audit import FAMILY, FUNCTIONS, Cloud, cloud, forget, sqs_event
from iam_policy import ACCOUNT, Grant, Stack, every_grant
from lambda_harness import event

FIRST_SESSION = [
    "Our dog Pepper hates baths.",
    "Marco is away for work until December 2.",
    "We love Thai food.",
    "Never book flights before 7am.",
    "Pizza night is tonight.",
]
SECOND_SESSION = ["Pepper loves baths now.", "Maya loves swimming."]


def live(c: Cloud) -> None:
    """One family's days, each step through the function that does it in AWS."""
    c.extract("s1", FIRST_SESSION)
    c.reconcile()
    c.compile([*c.keys("changes/"), f"families/{FAMILY}/candidates/s1.json"])
    c.index(c.keys("memories/"))
    through_the_api(c)
    thai = forget(c, "Thai")
    forget(c, "flights", crash=True)
    as_written_before_claims_only(c, thai)

    c.clock.set(datetime(2026, 12, 1, 17, 0, tzinfo=UTC))  # 09:00 the next day in Los Angeles
    changes, memories = set(c.keys("changes/")), set(c.keys("memories/"))
    c.end_session("s2", SECOND_SESSION, also=("marco", "Thank you."))
    request = c.receive("ReconcileQueue")
    c.reconcile(request)
    c.reconcile(request)  # SQS delivers at least once
    c.compile([*sorted(set(c.keys("changes/")) - changes), f"families/{FAMILY}/candidates/s2.json"])
    c.index(sorted(set(c.keys("memories/")) - memories))

    c.clock.set(datetime(2026, 12, 3, 17, 0, tzinfo=UTC))  # 09:00 on December 3rd in Los Angeles
    c.invoke("dream_fanout", event("dream_schedule.json"))
    c.invoke("dream_worker", sqs_event(c.receive("DreamQueue"), c.queues["DreamQueue"]))

    # A request whose candidates are gone: the record fails (Powertools removes its
    # idempotency record so a retry can run) and, being the whole batch, fails the invocation.
    missing = {"family_id": FAMILY, "session_id": "s-never-extracted", "content_hash": "0" * 64}
    with pytest.raises(BatchProcessingError):
        c.reconcile([json.dumps(missing)])
    c.index([f"families/{FAMILY}/memories/{new_ulid()}.md"])


def through_the_api(c: Cloud) -> None:
    """The agent's backend: the brief, a turn's lookup, each read tool, and the family's
    card (its list, a memory's evidence, a memory added about someone new)."""
    family = f"/families/{FAMILY}"
    assert c.api("GET", f"{family}/brief")["compiled"] is True
    found = c.api("POST", f"{family}/context", {"message": "Does Pepper like baths?"})["items"]
    pepper = next(item for item in found if "Pepper" in item["summary"])
    search = c.api("POST", f"{family}/tools/search_memory", {"query": "Pepper baths"})
    read = c.api("POST", f"{family}/tools/read_memory", {"ref": pepper["ref"]})
    excerpt = c.api("POST", f"{family}/tools/read_conversation_excerpt", {"ref": f"conv://{FAMILY}/s1#turn=1"})
    assert [r["status"] for r in (search, read, excerpt)] == ["success"] * 3, (search, read, excerpt)
    assert c.api("GET", f"{family}/memories")["memories"]
    assert c.api("GET", f"{family}/memories/{pepper['memory_id']}/evidence")["evidence"]
    added = {
        "member_id": "lucia",
        "type": "preference",
        "about": "Grandma Rosa's visits",
        "summary": "Grandma Rosa sleeps in the guest room.",
        "applies_to": ["Grandma Rosa"],
    }
    assert c.api("POST", f"{family}/memories", added)["memory"]["applies_to"]


def as_written_before_claims_only(c: Cloud, memory_id: str) -> None:
    """Rewrite the rule that forgot ``memory_id`` as a release before ``claims_only`` wrote it."""
    s3 = c.admin.client("s3")
    for key in c.keys("suppressions/"):
        rule = json.loads(s3.get_object(Bucket=TEST_BUCKET, Key=key)["Body"].read())
        if memory_id in rule.get("memory_ids", []):
            assert rule.pop(CLAIMS_ONLY) is True
            s3.put_object(Bucket=TEST_BUCKET, Key=key, Body=json.dumps(rule).encode())
            return
    raise AssertionError(f"no forget rule names {memory_id}")


@pytest.fixture(scope="module")
def lived() -> Iterator[Cloud]:
    with cloud(ExtractorKind="offline") as c:
        try:
            live(c)
        except Exception as exc:
            denied = "\n".join(str(denial) for denial in c.audit.denied) or "(none)"
            raise AssertionError(f"the scenario stopped; calls denied so far:\n{denied}") from exc
        yield c


def unreached(c: Cloud) -> dict[Grant, str]:
    """Grants this scenario cannot use, each with the reason (every other one must be used)."""
    out = {
        grant: "the offline extractor calls no model; test_iam_audit_extract.py audits these"
        for grant in every_grant(c.audit.statements["extract"])
        if grant.action == "bedrock:InvokeModel"
    }
    idempotency = c.stack.attribute("IdempotencyTable", "Arn")
    out[Grant("IdempotencyRecords", "dynamodb:GetItem", idempotency)] = (
        "Powertools reads a record with GetItem only when a failed conditional put returns no old "
        "item (DynamoDB returns it, ReturnValuesOnConditionCheckFailure); its documented IAM needs it"
    )
    return out


# --- the verdicts ------------------------------------------------------------------------------


def test_every_call_each_function_makes_is_allowed_by_its_own_statements(lived: Cloud) -> None:
    assert lived.audit.unmapped == []
    assert [str(denial) for denial in lived.audit.denied] == []


def test_no_statement_grants_an_action_or_resource_no_function_uses(lived: Cloud) -> None:
    idle = lived.audit.unused(unreached(lived))
    assert not idle, "granted, and used by no call:\n" + "\n".join(idle)


def test_the_search_collection_grants_each_role_only_what_it_uses(lived: Cloud) -> None:
    assert lived.collection.unused_rules() == []
    used = {(role.rsplit("/", 1)[-1], permission) for _, role, permission in lived.collection.used_rules}
    assert used == {
        ("IndexerFunctionRole", "aoss:DescribeIndex"),
        ("IndexerFunctionRole", "aoss:CreateIndex"),
        ("IndexerFunctionRole", "aoss:ReadDocument"),
        ("IndexerFunctionRole", "aoss:WriteDocument"),
        ("ReconcileFunctionRole", "aoss:DescribeIndex"),
        ("ReconcileFunctionRole", "aoss:ReadDocument"),
        ("ApiFunctionRole", "aoss:DescribeIndex"),
        ("ApiFunctionRole", "aoss:ReadDocument"),
    }


def test_the_optional_index_admin_may_do_what_the_indexer_does_and_is_absent_by_default(lived: Cloud) -> None:
    # rebuild-index runs the indexer's index calls (exists, mapping, create, search, bulk), so the
    # operator's rule grants what the audit saw the indexer's role use, on the same index.
    admin = f"arn:aws:iam::{ACCOUNT}:role/family-memory-operator"
    assert not [rule for rule in lived.collection.rules if admin in rule.principals]
    granted = Stack(lived.stack.names, {**lived.stack.parameters, "IndexAdminPrincipalArn": admin})
    (rule,) = [rule for rule in granted.data_access_rules() if admin in rule.principals]
    (indexer,) = [rule for rule in lived.collection.rules if rule.source.endswith("/indexer")]
    used = {p for _, role, p in lived.collection.used_rules if role.endswith("/IndexerFunctionRole")}
    assert set(rule.permissions) == used and rule.resources == indexer.resources


def test_the_scenario_walks_every_path_it_claims_to_audit(lived: Cloud) -> None:
    # If a step quietly did less, the verdicts above would prove less: check each happened.
    results, calls = lived.results, lived.audit.calls
    assert [r["status"] for r in results["extract"]] == ["extracted", "extracted"]
    assert any("/entities/" in call for call in calls["extract"])
    assert any("/suppressions/" in call for call in calls["extract"])
    assert [r["batchItemFailures"] for r in results["reconcile"]] == [[], [], []]
    statuses = {row.status for row in lived.admin_runtime().catalog.all_rows(FAMILY)}
    assert {Status.SUPERSEDED, Status.RETRACTED, Status.EXPIRED} <= statuses
    assert lived.admin_runtime().catalog.pending_intents(FAMILY) == []  # the crashed forget was completed
    assert any(call.startswith("s3.PutObject") and "/suppressions/" in call for call in calls["reconcile"])
    assert any(call.startswith("s3.PutObject") and call.endswith("/brief.json") for call in calls["reconcile"])
    assert any(call.startswith("bedrock-runtime.InvokeModel") for call in calls["reconcile"])
    assert [r["batchItemFailures"] for r in results["compile"]] == [[], []]
    assert any(call.startswith("dynamodb.TransactWriteItems") for call in calls["compile"])
    assert results["dream_fanout"] == [{"families": 1, "due": 1, "enqueued": 1}]
    assert results["dream_worker"] == [{"batchItemFailures": []}]
    # Evidence sidecars are indexed too (their quotes are in the document), so nothing under memories/ is ignored.
    assert {r["outcome"] for r in results["indexer"]} == {"indexed", "removed"}
    assert [r["statusCode"] for r in results["api"]] == [200] * 7 + [201, 200, 201]
    assert any(call.startswith("s3.PutObject") and "/sessions/s2.json" in call for call in calls["api"])
    assert any(call.startswith("s3.PutObject") and call.endswith("/family.json") for call in calls["api"])
    assert any(call.startswith("s3.PutObject") and call.endswith("/brief.json") for call in calls["api"])
    assert any(call.startswith("bedrock-runtime.InvokeModel") for call in calls["api"])


def test_reconcile_finds_similar_memories_through_the_index_the_indexer_writes(lived: Cloud) -> None:
    reconcile, indexer = (lived.stack.environment(FUNCTIONS[f]) for f in ("reconcile", "indexer"))
    for name in ("OPENSEARCH_ENDPOINT", "OPENSEARCH_INDEX", "FAMILY_MEMORY_EMBEDDER"):
        assert reconcile[name] == indexer[name], name
    finder = lived.runtime("reconcile").formation.deps.finder
    assert isinstance(finder, IndexWithRecentCatalog) and isinstance(finder.index, FallingBackTo)
    assert isinstance(finder.index.primary, IndexSimilarMemories)
    index = finder.index.primary.index
    assert isinstance(index, OpenSearchIndex) and index.index_name == reconcile["OPENSEARCH_INDEX"]


def test_the_lifecycle_functions_wait_briefly_for_a_lease_within_their_timeout(lived: Cloud) -> None:
    for function in ("compile", "dream_worker"):
        resource = lived.stack.resource(FUNCTIONS[function])["Properties"]
        wait = float(lived.stack.environment(FUNCTIONS[function])["LEASE_WAIT_SECONDS"])
        batch = next(iter(resource["Events"].values()))["Properties"]["BatchSize"]
        # A batch of families that are all busy must still end (reporting each as a failure)
        # with time left for the families that are not.
        assert 0 < wait <= 5 and batch * wait <= resource["Timeout"] * 2 / 3, function


def test_every_function_in_the_template_is_audited(lived: Cloud) -> None:
    resources = lived.stack.template["Resources"]
    functions = {name for name, r in resources.items() if r["Type"] == "AWS::Serverless::Function"}
    assert functions == set(FUNCTIONS.values())
    assert set(lived.audit.calls) == set(FUNCTIONS)  # and each of them ran
