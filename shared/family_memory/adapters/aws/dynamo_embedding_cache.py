"""The embedding cache in the catalog's DynamoDB table.

Items live in their own partition per family (``pk = EMB#{family_id}``,
``sk = {content hash}``, ``v`` = the float32 vector as binary, 2 KB at 512
dimensions), apart from the catalog rows so they stay out of the newest-first
index. DynamoDB rather than S3 because a rebuild reads vectors 100 at a time
with BatchGetItem (50 calls for 5,000 memories, against 5,000 S3 GETs), and
writes there do not fire the bucket's EventBridge notifications or appear in
the family's OKF bundle.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from family_memory.domain.ids import check_family_id
from family_memory.retrieval.embedding import EmbeddingCache, Vector

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient


def _pk(family_id: str) -> str:
    return f"EMB#{check_family_id(family_id)}"


class DynamoEmbeddingCache(EmbeddingCache):
    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._ddb = client
        self.table = table

    def get_many(self, family_id: str, hashes: Iterable[str]) -> dict[str, Vector]:
        pk = _pk(family_id)
        keys = sorted(set(hashes))
        found: dict[str, Vector] = {}
        for start in range(0, len(keys), 100):
            request: dict[str, Any] = {
                self.table: {"Keys": [{"pk": {"S": pk}, "sk": {"S": k}} for k in keys[start : start + 100]]}
            }
            delay = 0.02
            while request:
                response = self._ddb.batch_get_item(RequestItems=request)
                for item in response.get("Responses", {}).get(self.table, []):
                    blob = item["v"]["B"]
                    found[item["sk"]["S"]] = list(struct.unpack(f"<{len(blob) // 4}f", blob))
                request = response.get("UnprocessedKeys") or {}
                if request:
                    time.sleep(delay)
                    delay = min(delay * 2, 1.0)
        return found

    def put_many(self, family_id: str, vectors: Mapping[str, Vector]) -> None:
        pk = _pk(family_id)
        items = list(vectors.items())
        for start in range(0, len(items), 25):
            requests: list[dict[str, Any]] = [
                {
                    "PutRequest": {
                        "Item": {
                            "pk": {"S": pk},
                            "sk": {"S": key},
                            "v": {"B": struct.pack(f"<{len(vector)}f", *vector)},
                        }
                    }
                }
                for key, vector in items[start : start + 25]
            ]
            pending: dict[str, Any] = {self.table: requests}
            delay = 0.02
            while pending:
                response = self._ddb.batch_write_item(RequestItems=pending)
                pending = response.get("UnprocessedItems") or {}
                if pending:
                    time.sleep(delay)
                    delay = min(delay * 2, 1.0)
