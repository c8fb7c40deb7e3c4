"""A role that may list the bucket only under ``families/`` (an ``s3:prefix`` condition)
may be answered 403, not 404, for a key that is missing. The store tells the two apart by
listing that one key, so a missing file is NotFoundError and a real denial stays one."""

from __future__ import annotations

import boto3
import pytest
from botocore.exceptions import ClientError
from botocore.stub import Stubber

from family_memory.adapters.aws.s3_store import S3Store
from family_memory.domain.errors import NotFoundError

BUCKET = "family-memory-bucket"
KEY = "families/fam-rivera/brief.json"


def _store() -> tuple[S3Store, Stubber]:
    client = boto3.client("s3", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y")
    return S3Store(client, BUCKET), Stubber(client)


def _denied(stubber: Stubber, **params: str) -> None:
    stubber.add_client_error(
        "get_object", "AccessDenied", "Access Denied", 403, expected_params={"Bucket": BUCKET, "Key": KEY, **params}
    )


def test_a_403_for_a_key_that_is_not_listed_is_not_found() -> None:
    store, stubber = _store()
    _denied(stubber)
    stubber.add_response("list_objects_v2", {"KeyCount": 0}, {"Bucket": BUCKET, "Prefix": KEY, "MaxKeys": 1})
    with stubber, pytest.raises(NotFoundError, match="brief.json does not exist"):
        store.read("fam-rivera", "brief.json")
    stubber.assert_no_pending_responses()


def test_a_403_for_a_key_that_exists_is_a_real_denial() -> None:
    store, stubber = _store()
    _denied(stubber)
    stubber.add_response(
        "list_objects_v2", {"KeyCount": 1, "Contents": [{"Key": KEY}]}, {"Bucket": BUCKET, "Prefix": KEY, "MaxKeys": 1}
    )
    with stubber, pytest.raises(ClientError, match="AccessDenied"):
        store.read("fam-rivera", "brief.json")


def test_a_longer_key_under_the_same_prefix_does_not_count_as_the_key() -> None:
    store, stubber = _store()
    _denied(stubber, IfNoneMatch='"etag"')
    stubber.add_response(
        "list_objects_v2",
        {"KeyCount": 1, "Contents": [{"Key": KEY + ".bak"}]},
        {"Bucket": BUCKET, "Prefix": KEY, "MaxKeys": 1},
    )
    with stubber, pytest.raises(NotFoundError):
        store.read_if_changed("fam-rivera", "brief.json", '"etag"')


def test_a_404_needs_no_listing() -> None:
    store, stubber = _store()
    stubber.add_client_error("get_object", "NoSuchKey", "gone", 404)
    with stubber, pytest.raises(NotFoundError):
        store.read("fam-rivera", "brief.json")
    stubber.assert_no_pending_responses()
