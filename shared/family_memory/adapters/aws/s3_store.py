"""The store on S3: ``s3://{bucket}/families/{family_id}/...``.

Creates use ``IfNoneMatch='*'`` and replaces ``IfMatch=<etag read>``, so S3
itself arbitrates races. The version tag is the object's ETag. Vendor errors
become the core's: 412 -> StaleRevisionError / AlreadyExistsError, 409 (a
concurrent conditional write in flight) -> StaleRevisionError, 404 ->
NotFoundError.

A read of a missing key is answered 404 only to a caller allowed to list the
bucket. The stack grants ``s3:ListBucket`` under ``families/`` only (an
``s3:prefix`` condition), and S3 does not document whether such a grant counts
for that answer. So a read answered 403 AccessDenied lists its own key (a
request that grant allows): absent, it is NotFoundError; present, the 403 was
a real denial and is raised as it came.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

from botocore.exceptions import ClientError

from family_memory.domain.errors import AlreadyExistsError, NotFoundError, StaleRevisionError
from family_memory.domain.ids import check_family_id
from family_memory.domain.layout import FAMILIES_PREFIX, check_relpath
from family_memory.ports.store import Document, Store, content_type_for

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_s3.type_defs import PutObjectRequestTypeDef


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def _status(exc: ClientError) -> int:
    return int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0))


class S3Store(Store):
    def __init__(self, client: S3Client, bucket: str) -> None:
        self._s3 = client
        self.bucket = bucket

    def key(self, family_id: str, path: str) -> str:
        return f"{FAMILIES_PREFIX}{check_family_id(family_id)}/{check_relpath(path)}"

    def _missing(self, exc: ClientError, key: str) -> bool:
        """Whether a failed read means the key is not there (see the module docstring)."""
        if _code(exc) in ("NoSuchKey", "404", "NotFound"):
            return True
        if _code(exc) != "AccessDenied" and _status(exc) != 403:
            return False
        listed = self._s3.list_objects_v2(Bucket=self.bucket, Prefix=key, MaxKeys=1)
        return not any(item.get("Key") == key for item in listed.get("Contents", []))

    def read(self, family_id: str, path: str) -> Document:
        key = self.key(family_id, path)
        try:
            response = self._s3.get_object(Bucket=self.bucket, Key=key)
        except ClientError as exc:
            if self._missing(exc, key):
                raise NotFoundError(f"{path} does not exist in family {family_id}") from exc
            raise
        return Document(response["Body"].read(), response["ETag"])

    def read_if_changed(self, family_id: str, path: str, tag: str) -> Document | None:
        key = self.key(family_id, path)
        try:
            response = self._s3.get_object(Bucket=self.bucket, Key=key, IfNoneMatch=tag)
        except ClientError as exc:
            if _status(exc) == 304 or _code(exc) in ("304", "NotModified"):
                return None
            if self._missing(exc, key):
                raise NotFoundError(f"{path} does not exist in family {family_id}") from exc
            raise
        return Document(response["Body"].read(), response["ETag"])

    def _put(
        self, family_id: str, path: str, data: bytes, *, if_none_match: str | None = None, if_match: str | None = None
    ) -> str:
        key = self.key(family_id, path)
        request = {"Bucket": self.bucket, "Key": key, "Body": data, "ContentType": content_type_for(path)}
        if if_none_match is not None:
            request["IfNoneMatch"] = if_none_match
        if if_match is not None:
            request["IfMatch"] = if_match
        response = self._s3.put_object(**cast("PutObjectRequestTypeDef", request))
        return str(response["ETag"])

    def create(self, family_id: str, path: str, data: bytes) -> str:
        try:
            return self._put(family_id, path, data, if_none_match="*")
        except ClientError as exc:
            if _code(exc) == "PreconditionFailed" or _status(exc) == 412:
                raise AlreadyExistsError(f"{path} already exists in family {family_id}") from exc
            if _code(exc) == "ConditionalRequestConflict" or _status(exc) == 409:
                raise StaleRevisionError(f"{path} in family {family_id} is being written concurrently") from exc
            raise

    def replace(self, family_id: str, path: str, data: bytes, *, expected_tag: str) -> str:
        try:
            return self._put(family_id, path, data, if_match=expected_tag)
        except ClientError as exc:
            if _code(exc) in ("PreconditionFailed", "ConditionalRequestConflict", "NoSuchKey") or _status(exc) in (
                404,
                409,
                412,
            ):
                raise StaleRevisionError(f"{path} in family {family_id} changed since it was read") from exc
            raise

    def put(self, family_id: str, path: str, data: bytes) -> str:
        return self._put(family_id, path, data)

    def list(self, family_id: str, prefix: str = "") -> Iterator[str]:
        if prefix:
            check_relpath(prefix)
        base = f"{FAMILIES_PREFIX}{check_family_id(family_id)}/"
        paginator = self._s3.get_paginator("list_objects_v2")
        for page in paginator.paginate(Bucket=self.bucket, Prefix=base + prefix):
            for item in page.get("Contents", []):
                yield item["Key"][len(base) :]

    def families(self) -> Iterator[str]:
        paginator = self._s3.get_paginator("list_objects_v2")
        for page in paginator.paginate(Bucket=self.bucket, Prefix=FAMILIES_PREFIX, Delimiter="/"):
            for common in page.get("CommonPrefixes", []):
                name = common["Prefix"][len(FAMILIES_PREFIX) :].rstrip("/")
                try:
                    yield check_family_id(name)
                except ValueError:
                    continue
