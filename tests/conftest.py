"""Shared fixtures: the two adapter sets (local, and AWS under moto) and a test clock."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import boto3
import pytest

import family_memory.app.observability  # noqa: F401 - X-Ray's recorder opens a UDP socket at import
from family_memory.domain.clock import FixedClock
from family_memory.ports.catalog import Catalog
from family_memory.ports.store import Store

FIXTURES = Path(__file__).parent / "fixtures"
TEST_REGION = "us-east-1"
TEST_BUCKET = "family-memory-test-bucket"
TEST_TABLE = "family-memory-test-table"


#: What the command line's ``main`` sets for its own process (app/cli.py). A test that calls it
#: must not leave them to the tests after it: metrics disabled hid the metric the extractor's
#: alarm test reads whenever a unit test that ran the command line came first.
_COMMAND_LINE_ENVIRONMENT = (
    "POWERTOOLS_METRICS_DISABLED",
    "POWERTOOLS_TRACE_DISABLED",
    "OPENBLAS_NUM_THREADS",
    "POWERTOOLS_LOG_LEVEL",
)


@pytest.fixture(autouse=True)
def _command_line_environment_undone() -> Iterator[None]:
    before = {name: os.environ.get(name) for name in _COMMAND_LINE_ENVIRONMENT}
    yield
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(datetime(2026, 11, 30, 12, 0, tzinfo=UTC))


_moto_lock = threading.Lock()
_moto_patched = False


def serialise_moto_requests() -> None:
    """moto applies a conditional write as check-then-set in Python, so two
    threads can both pass the check. Real S3 and DynamoDB apply each request
    atomically; processing one mocked request at a time restores that, which
    the concurrency tests rely on."""
    global _moto_patched
    if _moto_patched:
        return
    from moto.core import botocore_stubber

    original = botocore_stubber.BotocoreStubber.process_request

    def process_request(self, request):  # type: ignore[no-untyped-def]
        with _moto_lock:
            return original(self, request)

    botocore_stubber.BotocoreStubber.process_request = process_request  # type: ignore[method-assign]
    _moto_patched = True


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """moto's in-process AWS with the project's bucket and table created."""
    from moto import mock_aws

    fake_credentials(monkeypatch)
    serialise_moto_requests()
    with mock_aws():
        yield with_bucket_and_table()


def fake_credentials(monkeypatch: pytest.MonkeyPatch, **more: str) -> None:
    """Credentials and region for moto (never real ones), plus any ``more`` variables."""
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": TEST_REGION,
        "AWS_REGION": TEST_REGION,
        **more,
    }.items():
        monkeypatch.setenv(name, value)


def with_bucket_and_table() -> boto3.session.Session:
    """A boto3 session on moto with the project's bucket and table created (inside ``mock_aws``)."""
    from family_memory.adapters.aws.dynamo_catalog import table_definition

    session = boto3.session.Session(region_name=TEST_REGION)
    session.client("s3").create_bucket(Bucket=TEST_BUCKET)
    session.client("dynamodb").create_table(**table_definition(TEST_TABLE))
    return session


@dataclass
class Adapters:
    kind: str
    store: Store
    catalog: Catalog
    clock: FixedClock


def local_adapters(root: Path, clock: FixedClock) -> Adapters:
    from family_memory.adapters.local.directory_store import DirectoryStore
    from family_memory.adapters.local.sqlite_catalog import SQLiteCatalog

    return Adapters(
        "local", DirectoryStore(root / "bundle"), SQLiteCatalog(root / "catalog.sqlite3", clock=clock), clock
    )


def aws_adapters(session: object, clock: FixedClock) -> Adapters:
    from family_memory.adapters.aws.dynamo_catalog import DynamoCatalog
    from family_memory.adapters.aws.s3_store import S3Store

    return Adapters(
        "aws",
        S3Store(session.client("s3"), TEST_BUCKET),  # type: ignore[attr-defined]
        DynamoCatalog(session.client("dynamodb"), TEST_TABLE, clock=clock),  # type: ignore[attr-defined]
        clock,
    )


@pytest.fixture(params=["local", "aws"])
def adapters(request: pytest.FixtureRequest, tmp_path: Path, clock: FixedClock) -> Adapters:
    if request.param == "local":
        return local_adapters(tmp_path, clock)
    return aws_adapters(request.getfixturevalue("aws"), clock)
