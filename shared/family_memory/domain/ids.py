"""Identifiers and the rules every id from outside must pass.

An id becomes part of an S3 key, a DynamoDB key or a file path, so it is
validated before it goes anywhere: a closed character set, a length limit,
no ``/``, no ``..``, no NUL. Memory and entity ids are ULIDs.

A family id is also lower case only: it names the family's folder and its index
file, and on a case-insensitive file system (macOS, Windows) ``fam-rivera`` and
``FAM-RIVERA`` would be one folder, one family's memories read as another's.

Every id that becomes a key has one length limit, ``MAX_ID_LENGTH`` (64
characters; a ULID is 26). It keeps the longest local path, ``{home}/families/
{family}/candidates/{session}.json``, well inside Windows' 260 characters.

An id that names a folder or a file (family, session and change ids) may not be
a Windows reserved device name (``con``, ``prn``, ``aux``, ``nul``, ``com0``-
``com9``, ``lpt0``-``lpt9``, in any case): on Windows ``sessions/con.json`` is the
console, not a file, whatever its extension.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, WithJsonSchema
from ulid import ULID

from family_memory.domain.errors import InvalidInputError

# Family, session, member and change ids: letters, digits, '_' and '-',
# starting with a letter or digit. Dots are excluded so '..' can never occur.
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
# Family ids: the same, lower case only (one family, one folder, whatever the file system).
_FAMILY_TOKEN = re.compile(r"[a-z0-9][a-z0-9_-]*")
# Crockford base32 as ULIDs use it: no I, L, O, U; the first char is 0-7.
_ULID = re.compile(r"[0-7][0-9A-HJKMNP-TV-Z]{25}")

#: The one length limit of every id that becomes a key or a path (docs/api.md, docs/format.md).
MAX_ID_LENGTH = 64
#: Names Windows keeps for devices, in every folder and with any extension (compared in lower case).
WINDOWS_RESERVED_NAMES = frozenset(
    ["con", "prn", "aux", "nul"] + [f"{port}{n}" for port in ("com", "lpt") for n in range(10)]
)


def _describe(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _check_token(kind: str, value: object, max_len: int) -> str:
    if not isinstance(value, str):
        raise InvalidInputError(f"{kind} must be a string, got {type(value).__name__}")
    if not value:
        raise InvalidInputError(f"{kind} is empty")
    if len(value) > max_len:
        raise InvalidInputError(f"{kind} is {len(value)} characters long; the limit is {max_len}")
    if "\x00" in value or "/" in value or ".." in value or not _TOKEN.fullmatch(value):
        raise InvalidInputError(
            f"{kind} {_describe(value)} is not allowed: use letters, digits, '_' and '-', "
            "starting with a letter or digit"
        )
    return value


def _check_path_token(kind: str, value: object) -> str:
    """A token that names a folder or a file: also not a Windows device name."""
    checked = _check_token(kind, value, MAX_ID_LENGTH)
    if checked.lower() in WINDOWS_RESERVED_NAMES:
        raise InvalidInputError(
            f"{kind} {_describe(checked)} is not allowed: it is a name Windows reserves for a device "
            "(con, prn, aux, nul, com0-com9, lpt0-lpt9)"
        )
    return checked


def check_family_id(value: object) -> str:
    checked = _check_token("family id", value, MAX_ID_LENGTH)
    if not _FAMILY_TOKEN.fullmatch(checked):
        raise InvalidInputError(
            f"family ids are lower case: {_describe(checked)} is not allowed; use a-z, 0-9, '_' and '-', "
            "starting with a letter or digit"
        )
    return _check_path_token("family id", checked)


def check_session_id(value: object) -> str:
    return _check_path_token("session id", value)


def check_member_id(value: object) -> str:
    return _check_token("member id", value, MAX_ID_LENGTH)


def check_change_id(value: object) -> str:
    return _check_path_token("change id", value)


def _check_ulid(kind: str, value: object) -> str:
    if not isinstance(value, str):
        raise InvalidInputError(f"{kind} must be a string, got {type(value).__name__}")
    if not _ULID.fullmatch(value):
        raise InvalidInputError(f"{kind} {_describe(value)} is not a ULID (26 characters of Crockford base32)")
    return value


def check_memory_id(value: object) -> str:
    return _check_ulid("memory id", value)


def check_entity_id(value: object) -> str:
    return _check_ulid("entity id", value)


def check_rule_id(value: object) -> str:
    return _check_ulid("suppression rule id", value)


def new_ulid() -> str:
    """A fresh ULID (time-ordered, 26 characters)."""
    return str(ULID())


#: JSON Schemas of the ids (the OpenAPI document shows them): the checks above stay the validation.
TOKEN_SCHEMA = {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_-]*$", "minLength": 1, "maxLength": MAX_ID_LENGTH}
FAMILY_SCHEMA = {**TOKEN_SCHEMA, "pattern": "^[a-z0-9][a-z0-9_-]*$"}
ULID_SCHEMA = {"type": "string", "pattern": "^[0-7][0-9A-HJKMNP-TV-Z]{25}$"}

FamilyId = Annotated[str, AfterValidator(check_family_id), WithJsonSchema(FAMILY_SCHEMA)]
SessionId = Annotated[str, AfterValidator(check_session_id), WithJsonSchema(TOKEN_SCHEMA)]
MemberId = Annotated[str, AfterValidator(check_member_id), WithJsonSchema(TOKEN_SCHEMA)]
ChangeId = Annotated[str, AfterValidator(check_change_id), WithJsonSchema(TOKEN_SCHEMA)]
MemoryId = Annotated[str, AfterValidator(check_memory_id), WithJsonSchema(ULID_SCHEMA)]
EntityId = Annotated[str, AfterValidator(check_entity_id), WithJsonSchema(ULID_SCHEMA)]
RuleId = Annotated[str, AfterValidator(check_rule_id), WithJsonSchema(ULID_SCHEMA)]
