"""The IAM audit's evaluator (``tests/iam_policy.py``) on its own: it must refuse what
IAM refuses, or the audit proves nothing."""

from __future__ import annotations

from typing import Any

import pytest

from iam_policy import (
    LEADING_KEYS,
    Request,
    Stack,
    Statement,
    UnmappedCallError,
    UnsupportedPolicyError,
    grants,
    missing_key_request,
    request,
    requests_for,
)

BUCKET = "arn:aws:s3:::bucket"
TABLE = "arn:aws:dynamodb:us-east-1:123456789012:table/t"
HASH_KEYS = {"t": "pk"}


def statement(**raw: Any) -> Statement:
    return Statement.parse({"Effect": "Allow", **raw}, "test")


def allowed(st: Statement | list[Statement], req: Request) -> bool:
    return bool(grants(st if isinstance(st, list) else [st], req))


def test_object_wildcards_cross_slashes_and_actions_ignore_case() -> None:
    st = statement(Action="S3:getobject", Resource=f"{BUCKET}/families/*/entities/*")
    assert allowed(st, request("s3:GetObject", f"{BUCKET}/families/fam-a/entities/e1.md"))
    assert allowed(st, request("s3:GetObject", f"{BUCKET}/families/fam-a/entities/sub/e1.md"))
    assert not allowed(st, request("s3:GetObject", f"{BUCKET}/families/fam-a/suppressions/r1.json"))
    assert not allowed(st, request("s3:PutObject", f"{BUCKET}/families/fam-a/entities/e1.md"))
    one = statement(Action="s3:GetObject", Resource=f"{BUCKET}/families/fam-?/family.json")
    assert allowed(one, request("s3:GetObject", f"{BUCKET}/families/fam-a/family.json"))
    assert not allowed(one, request("s3:GetObject", f"{BUCKET}/families/fam-ab/family.json"))


def test_a_prefix_condition_needs_the_prefix_and_a_missing_key_read_carries_none() -> None:
    listing = statement(Action="s3:ListBucket", Resource=BUCKET, Condition={"StringLike": {"s3:prefix": "families/*"}})
    assert allowed(listing, request("s3:ListBucket", BUCKET, {"s3:prefix": "families/fam-a/suppressions/"}))
    assert not allowed(listing, request("s3:ListBucket", BUCKET, {"s3:prefix": ""}))
    # So only an unconditioned ListBucket turns a missing key's 403 into a 404.
    missing = missing_key_request({"Bucket": "bucket", "Key": "families/fam-a/brief.json"})
    assert not allowed(listing, missing)
    assert allowed(statement(Action="s3:ListBucket", Resource=BUCKET), missing)


def test_leading_keys_for_all_values_confines_every_partition_but_not_a_request_without_keys() -> None:
    st = statement(
        Action=["dynamodb:BatchGetItem", "dynamodb:Scan"],
        Resource=TABLE,
        Condition={"ForAllValues:StringLike": {LEADING_KEYS: ["EMB#*"]}},
    )
    assert allowed(st, request("dynamodb:BatchGetItem", TABLE, {LEADING_KEYS: ["EMB#fam-a", "EMB#fam-b"]}))
    assert not allowed(st, request("dynamodb:BatchGetItem", TABLE, {LEADING_KEYS: ["EMB#fam-a", "FAM#fam-a"]}))
    # IAM's own semantics: ForAllValues over an absent key holds, so a Scan is not confined.
    assert allowed(st, request("dynamodb:Scan", TABLE))
    equals = statement(Action="dynamodb:Query", Resource=TABLE, Condition={"StringEquals": {LEADING_KEYS: "DREAMS"}})
    assert not allowed(equals, request("dynamodb:Query", TABLE))


def test_a_deny_wins_over_any_allow() -> None:
    allow = statement(Action="s3:*", Resource=f"{BUCKET}/*")
    deny = Statement.parse({"Effect": "Deny", "Action": "s3:PutObject", "Resource": f"{BUCKET}/x"}, "deny")
    assert not allowed([allow, deny], request("s3:PutObject", f"{BUCKET}/x"))
    assert allowed([allow, deny], request("s3:PutObject", f"{BUCKET}/y"))


@pytest.mark.parametrize(
    "raw",
    [
        {"Action": "s3:GetObject", "NotResource": "*"},
        {"NotAction": "s3:GetObject", "Resource": "*"},
        {"Action": "s3:GetObject", "Resource": "*", "Condition": {"Bool": {"aws:SecureTransport": "true"}}},
        {"Action": "s3:GetObject", "Resource": "*", "Condition": {"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}},
    ],
)
def test_a_policy_feature_the_evaluator_does_not_model_is_refused_not_guessed(raw: dict[str, Any]) -> None:
    with pytest.raises(UnsupportedPolicyError):
        Statement.parse({"Effect": "Allow", **raw}, "x")


def test_a_transaction_needs_each_items_own_action_in_its_partition() -> None:
    params = {
        "TransactItems": [
            {"ConditionCheck": {"TableName": "t", "Key": {"pk": {"S": "FAM#a"}, "sk": {"S": "LEASE"}}}},
            {"Put": {"TableName": "t", "Item": {"pk": {"S": "FAM#a"}, "sk": {"S": "MEM#1"}}}},
            {"Delete": {"TableName": "t", "Key": {"pk": {"S": "FAM#a"}, "sk": {"S": "MEM#2"}}}},
        ]
    }
    assert [
        (r.action, r.context[LEADING_KEYS]) for r in requests_for("dynamodb", "TransactWriteItems", params, HASH_KEYS)
    ] == [
        ("dynamodb:ConditionCheckItem", ("FAM#a",)),
        ("dynamodb:PutItem", ("FAM#a",)),
        ("dynamodb:DeleteItem", ("FAM#a",)),
    ]


def test_a_query_is_authorised_on_its_index_in_the_partition_its_key_condition_names() -> None:
    params = {
        "TableName": "t",
        "IndexName": "by_formed",
        "KeyConditionExpression": "#p = :pk AND begins_with(sk, :mem)",
        "ExpressionAttributeNames": {"#p": "pk"},
        "ExpressionAttributeValues": {":pk": {"S": "FAM#a"}, ":mem": {"S": "MEM#"}},
    }
    (req,) = requests_for("dynamodb", "Query", params, HASH_KEYS)
    assert req.resource == f"{TABLE}/index/by_formed" and req.context[LEADING_KEYS] == ("FAM#a",)


def test_a_model_reached_through_an_inference_profile_needs_the_profile_and_the_routed_model() -> None:
    direct = requests_for("bedrock-runtime", "Converse", {"modelId": "anthropic.claude-x"}, HASH_KEYS)
    assert [r.resource for r in direct] == ["arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-x"]
    profile, *routed = requests_for("bedrock-runtime", "Converse", {"modelId": "us.anthropic.claude-x"}, HASH_KEYS)
    assert profile.resource == "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-x"
    # The model in each destination Region of the US profile, each through the profile.
    assert [r.resource.split(":")[3] for r in routed] == ["us-east-1", "us-east-2", "us-west-2"]
    for one in routed:
        assert one.resource.endswith("::foundation-model/anthropic.claude-x")
        assert one.context["bedrock:InferenceProfileArn"] == (profile.resource,)


def test_the_template_drops_a_statement_whose_condition_is_false_and_evaluates_split_and_select() -> None:
    through_profile = {s.sid for s in Stack({}).statements("ExtractFunction")}
    direct = Stack({}, {"BedrockModelId": "anthropic.claude-haiku-4-5-20251001-v1:0"})
    assert "TheProfilesModelInEachOfItsRegions" in through_profile
    assert "TheProfilesModelInEachOfItsRegions" not in {s.sid for s in direct.statements("ExtractFunction")}
    (routed,) = [s for s in Stack({}).statements("ExtractFunction") if s.sid == "TheProfilesModelInEachOfItsRegions"]
    assert routed.resources == ("arn:aws:bedrock:*::foundation-model/anthropic.claude-haiku-4-5-20251001-v1:0",)


def test_a_call_the_audit_cannot_map_is_an_error_not_a_pass() -> None:
    with pytest.raises(UnmappedCallError):
        requests_for("s3", "DeleteObject", {"Bucket": "b", "Key": "k"}, HASH_KEYS)
    with pytest.raises(UnmappedCallError):
        requests_for("sts", "GetCallerIdentity", {}, HASH_KEYS)


def test_the_template_resolves_per_parameters_and_conditions() -> None:
    own = Stack({"SearchCollection": "abc", "ReconcileQueue": "https://sqs.us-east-1.amazonaws.com/1/q.fifo"})
    assert own.environment("IndexerFunction")["OPENSEARCH_ENDPOINT"] == "https://abc.us-east-1.aoss.amazonaws.com"
    assert own.environment("ExtractFunction")["RECONCILE_QUEUE_URL"] == "https://sqs.us-east-1.amazonaws.com/1/q.fifo"
    assert {rule.source.split("/")[-1] for rule in own.data_access_rules()} == {"indexer", "reconcile", "api"}
    existing = Stack({}, {"OpenSearchEndpoint": "https://existing.example"})
    assert existing.environment("ReconcileFunction")["OPENSEARCH_ENDPOINT"] == "https://existing.example"
    assert existing.data_access_rules() == []  # the stack creates no policy for a collection it does not own
    with pytest.raises(UnsupportedPolicyError):
        Stack({}, {"NoSuchParameter": "x"})
