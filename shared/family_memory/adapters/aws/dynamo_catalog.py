"""The catalog, lease and change ledger in one DynamoDB table.

Single-table design, one partition per family (``pk = FAM#{family_id}``):

=====================  ==========================================================
``sk``                 item
=====================  ==========================================================
``MEM#{memory_id}``    catalog row: ``status``, ``revision``, ``formed_key``, ``doc``
``LEASE``              ``holder``, ``token`` (fencing), ``expires_at`` (epoch s), and
                       ``pending_id``/``pending``: a recorded change set not yet settled
``APPLIED#{change_id}`` the applied-change ledger (``outcome``)
=====================  ==========================================================

A local secondary index ``by_formed`` (``pk``, ``formed_key``) gives the
newest-first listing with strongly consistent reads. Every write that must be
fenced either conditions on the lease item itself (the intent slot) or is a
TransactWriteItems whose first element is a ConditionCheck on the lease item's
holder and token (catalog rows).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, cast

from botocore.exceptions import ClientError

from family_memory.domain.clock import Clock, SystemClock
from family_memory.domain.errors import (
    ConflictError,
    InvalidInputError,
    LeaseHeldError,
    LeaseLostError,
    StaleRevisionError,
)
from family_memory.domain.ids import check_change_id, check_family_id, check_memory_id
from family_memory.domain.memory import Status
from family_memory.ports.catalog import Catalog, CatalogRow, Lease, PendingIntent, check_lease_family

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

LSI_BY_FORMED = "by_formed"
_TRANSACT_LIMIT = 100
_MEM, _LEASE, _APPLIED = "MEM#", "LEASE", "APPLIED#"


def _pk(family_id: str) -> str:
    return f"FAM#{check_family_id(family_id)}"


def _s(value: str) -> dict[str, str]:
    return {"S": value}


def _n(value: float | int) -> dict[str, str]:
    return {"N": repr(value) if isinstance(value, float) else str(value)}


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def _old_item(exc: ClientError) -> dict[str, Any]:
    """The item as it was when a condition failed (ReturnValuesOnConditionCheckFailure=ALL_OLD)."""
    response: dict[str, Any] = dict(exc.response)
    item: dict[str, Any] = dict(response.get("Item") or {})
    return item


def table_definition(table_name: str) -> dict[str, Any]:
    """CreateTable arguments; template.yaml declares the same shape."""
    return {
        "TableName": table_name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
            {"AttributeName": "formed_key", "AttributeType": "S"},
        ],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "LocalSecondaryIndexes": [
            {
                "IndexName": LSI_BY_FORMED,
                "KeySchema": [
                    {"AttributeName": "pk", "KeyType": "HASH"},
                    {"AttributeName": "formed_key", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    }


class DynamoCatalog(Catalog):
    def __init__(self, client: DynamoDBClient, table_name: str, *, clock: Clock | None = None) -> None:
        self._ddb = client
        self.table = table_name
        self.clock = clock or SystemClock()

    # --- helpers --------------------------------------------------------------

    def _fence(self, lease: Lease) -> dict[str, Any]:
        return {
            "ConditionCheck": {
                "TableName": self.table,
                "Key": {"pk": _s(_pk(lease.family_id)), "sk": _s(_LEASE)},
                "ConditionExpression": "holder = :holder AND #token = :token",
                "ExpressionAttributeNames": {"#token": "token"},
                "ExpressionAttributeValues": {":holder": _s(lease.holder), ":token": _n(lease.token)},
            }
        }

    def _transact(self, lease: Lease, items: list[dict[str, Any]]) -> None:
        """Run ``items`` behind the lease's fence (the first item of the transaction)."""
        attempts = 0
        while True:
            try:
                self._ddb.transact_write_items(
                    TransactItems=cast("list[TransactWriteItemTypeDef]", [self._fence(lease), *items])
                )
                return
            except ClientError as exc:
                if _code(exc) != "TransactionCanceledException":
                    raise
                reasons = [r.get("Code", "None") for r in exc.response.get("CancellationReasons", [])]
                if reasons and reasons[0] == "ConditionalCheckFailed":
                    raise LeaseLostError(
                        f"the lease on family {lease.family_id} was taken over (token {lease.token} is stale)"
                    ) from exc
                if "TransactionConflict" in reasons and attempts < 5:
                    attempts += 1
                    time.sleep(0.05 * 2**attempts)
                    continue
                if "ConditionalCheckFailed" in reasons:
                    raise StaleRevisionError(
                        f"a catalog write for family {lease.family_id} lost a race: {reasons}"
                    ) from exc
                raise

    def _query(self, **kwargs: Any) -> Iterator[dict[str, Any]]:
        paginator = self._ddb.get_paginator("query")
        for page in paginator.paginate(TableName=self.table, ConsistentRead=True, **kwargs):
            yield from page.get("Items", [])

    def _update_lease(self, lease: Lease, update: str, values: dict[str, Any] | None = None) -> None:
        """Apply ``update`` to the lease item while ``lease`` holds it; LeaseLostError once taken over."""
        try:
            self._ddb.update_item(
                TableName=self.table,
                Key={"pk": _s(_pk(lease.family_id)), "sk": _s(_LEASE)},
                UpdateExpression=update,
                ConditionExpression="holder = :holder AND #token = :token",
                ExpressionAttributeNames={"#token": "token"},
                ExpressionAttributeValues={**(values or {}), ":holder": _s(lease.holder), ":token": _n(lease.token)},
            )
        except ClientError as exc:
            if _code(exc) == "ConditionalCheckFailedException":
                raise LeaseLostError(f"the lease on family {lease.family_id} was taken over") from exc
            raise

    # --- lease ----------------------------------------------------------------

    def acquire_lease(self, family_id: str, holder: str, ttl: timedelta) -> Lease:
        now = self.clock.now().timestamp()
        expires_at = now + ttl.total_seconds()
        try:
            response = self._ddb.update_item(
                TableName=self.table,
                Key={"pk": _s(_pk(family_id)), "sk": _s(_LEASE)},
                UpdateExpression=(
                    "SET holder = :holder, expires_at = :expires, #token = if_not_exists(#token, :zero) + :one"
                ),
                ConditionExpression="attribute_not_exists(holder) OR expires_at <= :now",
                ExpressionAttributeNames={"#token": "token"},
                ExpressionAttributeValues={
                    ":holder": _s(holder),
                    ":expires": _n(expires_at),
                    ":zero": _n(0),
                    ":one": _n(1),
                    ":now": _n(now),
                },
                ReturnValues="ALL_NEW",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as exc:
            if _code(exc) == "ConditionalCheckFailedException":
                item = _old_item(exc)
                who = item.get("holder", {}).get("S", "another writer")
                until = item.get("expires_at", {}).get("N")
                when = datetime.fromtimestamp(float(until), UTC).isoformat() if until else "unknown"
                raise LeaseHeldError(f"family {family_id} is being written by {who} until {when}") from exc
            raise
        token = int(response["Attributes"]["token"]["N"])
        return Lease(family_id, holder, token, datetime.fromtimestamp(expires_at, UTC))

    def renew_lease(self, lease: Lease, ttl: timedelta) -> Lease:
        expires_at = self.clock.now().timestamp() + ttl.total_seconds()
        self._update_lease(lease, "SET expires_at = :expires", {":expires": _n(expires_at)})
        return Lease(lease.family_id, lease.holder, lease.token, datetime.fromtimestamp(expires_at, UTC))

    def release_lease(self, lease: Lease) -> bool:
        try:
            self._update_lease(lease, "REMOVE holder SET expires_at = :zero", {":zero": _n(0)})
        except LeaseLostError:
            return False
        return True

    # --- rows -----------------------------------------------------------------

    def _row_item(self, family_id: str, row: CatalogRow) -> dict[str, Any]:
        return {
            "pk": _s(_pk(family_id)),
            "sk": _s(_MEM + row.id),
            "status": _s(row.status.value),
            "revision": _n(row.revision),
            "formed_key": _s(row.sort_key),
            "doc": _s(row.model_dump_json()),
        }

    def put_rows(self, family_id: str, rows: Sequence[CatalogRow], *, lease: Lease, force: bool = False) -> None:
        check_lease_family(lease, family_id)
        for start in range(0, len(rows), _TRANSACT_LIMIT - 1):
            items = []
            for row in rows[start : start + _TRANSACT_LIMIT - 1]:
                put: dict[str, Any] = {"TableName": self.table, "Item": self._row_item(family_id, row)}
                if not force:
                    put["ConditionExpression"] = "attribute_not_exists(sk) OR revision <= :revision"
                    put["ExpressionAttributeValues"] = {":revision": _n(row.revision)}
                items.append({"Put": put})
            self._transact(lease, items)

    def delete_rows(self, family_id: str, memory_ids: Iterable[str], *, lease: Lease) -> None:
        check_lease_family(lease, family_id)
        keys = [{"pk": _s(_pk(family_id)), "sk": _s(_MEM + check_memory_id(i))} for i in memory_ids]
        for start in range(0, len(keys), _TRANSACT_LIMIT - 1):
            items = [
                {"Delete": {"TableName": self.table, "Key": key}} for key in keys[start : start + _TRANSACT_LIMIT - 1]
            ]
            self._transact(lease, items)

    def get_rows(self, family_id: str, memory_ids: Iterable[str]) -> dict[str, CatalogRow]:
        pk = _pk(family_id)
        ids = sorted({check_memory_id(i) for i in memory_ids})
        found: dict[str, CatalogRow] = {}
        for start in range(0, len(ids), 100):
            request: dict[str, Any] = {
                self.table: {
                    "Keys": [{"pk": _s(pk), "sk": _s(_MEM + i)} for i in ids[start : start + 100]],
                    "ConsistentRead": True,
                    "ProjectionExpression": "doc",
                }
            }
            delay = 0.02
            while request:
                response = self._ddb.batch_get_item(RequestItems=request)
                for item in response.get("Responses", {}).get(self.table, []):
                    row = CatalogRow.model_validate_json(item["doc"]["S"])
                    found[row.id] = row
                request = response.get("UnprocessedKeys") or {}
                if request:
                    time.sleep(delay)
                    delay = min(delay * 2, 1.0)
        return found

    def _page(
        self, family_id: str, status: Status | None, limit: int, after: dict[str, str] | None
    ) -> tuple[list[CatalogRow], dict[str, str] | None]:
        pk = _pk(family_id)
        start_key: dict[str, Any] | None = None
        if after is not None:
            if "sk" not in after or "k" not in after:
                raise InvalidInputError("the page cursor belongs to a different listing")
            check_memory_id(after["sk"].removeprefix(_MEM))
            start_key = {"pk": _s(pk), "sk": _s(after["sk"]), "formed_key": _s(after["k"])}
        rows: list[CatalogRow] = []
        last_item: dict[str, Any] | None = None
        more = True
        while len(rows) < limit and more:
            kwargs: dict[str, Any] = {
                "TableName": self.table,
                "IndexName": LSI_BY_FORMED,
                "KeyConditionExpression": "pk = :pk",
                "ExpressionAttributeValues": {":pk": _s(pk)},
                "ScanIndexForward": False,
                "ConsistentRead": True,
                "Limit": limit - len(rows),
            }
            if status is not None:
                kwargs["FilterExpression"] = "#status = :status"
                kwargs["ExpressionAttributeNames"] = {"#status": "status"}
                kwargs["ExpressionAttributeValues"][":status"] = _s(status.value)
            if start_key is not None:
                kwargs["ExclusiveStartKey"] = start_key
            response = self._ddb.query(**kwargs)
            for item in response.get("Items", []):
                rows.append(CatalogRow.model_validate_json(item["doc"]["S"]))
                last_item = item
            start_key = cast("dict[str, Any] | None", response.get("LastEvaluatedKey"))
            more = start_key is not None
        if more and last_item is not None:
            return rows, {"sk": last_item["sk"]["S"], "k": last_item["formed_key"]["S"]}
        return rows, None

    def all_rows(self, family_id: str) -> Iterator[CatalogRow]:
        for item in self._query(
            KeyConditionExpression="pk = :pk AND begins_with(sk, :mem)",
            ExpressionAttributeValues={":pk": _s(_pk(family_id)), ":mem": _s(_MEM)},
        ):
            yield CatalogRow.model_validate_json(item["doc"]["S"])

    # --- change ledger --------------------------------------------------------

    def record_intent(self, family_id: str, change_id: str, payload: str, *, lease: Lease) -> None:
        # The intent lives on the lease item itself: one conditional UpdateItem is
        # both fenced and atomic, with no transaction. One writer holds the lease and
        # completes pending work before its own, so one slot is enough.
        check_lease_family(lease, family_id)
        try:
            self._ddb.update_item(
                TableName=self.table,
                Key={"pk": _s(_pk(family_id)), "sk": _s(_LEASE)},
                UpdateExpression="SET pending_id = :cid, pending = :payload",
                ConditionExpression=(
                    "holder = :holder AND #token = :token AND (attribute_not_exists(pending_id) OR pending_id = :cid)"
                ),
                ExpressionAttributeNames={"#token": "token"},
                ExpressionAttributeValues={
                    ":cid": _s(check_change_id(change_id)),
                    ":payload": _s(payload),
                    ":holder": _s(lease.holder),
                    ":token": _n(lease.token),
                },
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as exc:
            if _code(exc) != "ConditionalCheckFailedException":
                raise
            item = _old_item(exc)
            if item.get("holder", {}).get("S") != lease.holder or item.get("token", {}).get("N") != str(lease.token):
                raise LeaseLostError(
                    f"the lease on family {family_id} was taken over (token {lease.token} is stale)"
                ) from exc
            other = item.get("pending_id", {}).get("S")
            raise ConflictError(f"change set {other} is still pending in family {family_id}") from exc

    def pending_intents(self, family_id: str) -> list[PendingIntent]:
        response = self._ddb.get_item(
            TableName=self.table,
            Key={"pk": _s(_pk(family_id)), "sk": _s(_LEASE)},
            ConsistentRead=True,
            ProjectionExpression="pending_id, pending",
        )
        item = response.get("Item", {})
        if "pending_id" not in item:
            return []
        return [PendingIntent(item["pending_id"]["S"], item["pending"]["S"])]

    def settle(self, family_id: str, change_id: str, *, lease: Lease, outcome: str = "applied") -> None:
        check_lease_family(lease, family_id)
        pk = _s(_pk(family_id))
        check_change_id(change_id)
        # Ledger first, then clear the slot: a crash between the two leaves the intent
        # pending, and completing it again is idempotent.
        self._ddb.put_item(
            TableName=self.table, Item={"pk": pk, "sk": _s(_APPLIED + change_id), "outcome": _s(outcome)}
        )
        self._update_lease(lease, "REMOVE pending_id, pending")

    def is_applied(self, family_id: str, change_id: str) -> bool:
        response = self._ddb.get_item(
            TableName=self.table,
            Key={"pk": _s(_pk(family_id)), "sk": _s(_APPLIED + check_change_id(change_id))},
            ConsistentRead=True,
        )
        return "Item" in response
