"""The dream ledger in the catalog's DynamoDB table.

All families share one partition, ``pk = DREAMS``, ``sk = FAM#{family_id}``,
so the hourly fan-out reads every family's state with one paginated query
(about 150 bytes a family: 10,000 families are under 2 MB) instead of
opening 10,000 folders. Writes are single-attribute-set ``UpdateItem`` calls
with conditions that keep them monotonic, so concurrent dreams and
conversation notes need no lease. A failed condition means a newer value is
already there and is not an error.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from family_memory.domain.clock import format_utc, parse_utc
from family_memory.domain.ids import check_family_id, check_session_id
from family_memory.ports.lifecycle import DreamLedger, DreamState

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

DREAMS_PARTITION = "DREAMS"
_FAMILY = "FAM#"


def _key(family_id: str) -> dict[str, dict[str, str]]:
    return {"pk": {"S": DREAMS_PARTITION}, "sk": {"S": _FAMILY + check_family_id(family_id)}}


def _text(item: dict[str, Any], name: str) -> str | None:
    value = item.get(name, {}).get("S")
    return str(value) if value is not None else None


def _state(item: dict[str, Any]) -> DreamState:
    last_date = _text(item, "last_dream_date")
    next_at = _text(item, "next_dream_at")
    session_at = _text(item, "last_session_at")
    return DreamState(
        family_id=str(item["sk"]["S"])[len(_FAMILY) :],
        time_zone=_text(item, "time_zone"),
        last_dream_date=date.fromisoformat(last_date) if last_date else None,
        next_dream_at=parse_utc(next_at) if next_at else None,
        last_session_id=_text(item, "last_session_id"),
        last_session_started_at=parse_utc(session_at) if session_at else None,
    )


def _condition_failed(exc: ClientError) -> bool:
    return str(exc.response.get("Error", {}).get("Code", "")) == "ConditionalCheckFailedException"


class DynamoDreamLedger(DreamLedger):
    def __init__(self, client: DynamoDBClient, table_name: str) -> None:
        self._ddb = client
        self.table = table_name

    def get(self, family_id: str) -> DreamState | None:
        response = self._ddb.get_item(TableName=self.table, Key=_key(family_id), ConsistentRead=True)
        item = response.get("Item")
        return None if item is None else _state(item)

    def record_dream(self, family_id: str, *, time_zone: str, local_date: date, next_dream_at: datetime) -> None:
        try:
            self._ddb.update_item(
                TableName=self.table,
                Key=_key(family_id),
                UpdateExpression="SET time_zone = :tz, last_dream_date = :day, next_dream_at = :next",
                ConditionExpression="attribute_not_exists(last_dream_date) OR last_dream_date <= :day",
                ExpressionAttributeValues={
                    ":tz": {"S": time_zone},
                    ":day": {"S": local_date.isoformat()},
                    ":next": {"S": format_utc(next_dream_at)},
                },
            )
        except ClientError as exc:
            if not _condition_failed(exc):
                raise

    def note_conversation(self, family_id: str, session_id: str, started_at: datetime) -> bool:
        try:
            self._ddb.update_item(
                TableName=self.table,
                Key=_key(family_id),
                UpdateExpression="SET last_session_id = :sid, last_session_at = :at",
                ConditionExpression=(
                    "attribute_not_exists(last_session_at) OR last_session_at < :at "
                    "OR (last_session_at = :at AND last_session_id < :sid)"
                ),
                ExpressionAttributeValues={
                    ":sid": {"S": check_session_id(session_id)},
                    ":at": {"S": format_utc(started_at)},
                },
            )
        except ClientError as exc:
            if _condition_failed(exc):
                return False
            raise
        return True

    def states(self) -> Iterator[DreamState]:
        paginator = self._ddb.get_paginator("query")
        for page in paginator.paginate(
            TableName=self.table,
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": {"S": DREAMS_PARTITION}},
        ):
            for item in page.get("Items", []):
                yield _state(item)
