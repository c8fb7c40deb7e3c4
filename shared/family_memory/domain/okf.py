"""Reading and writing OKF v0.2 files: memory and entity concepts, index.md, log.md.

Serialisation is deterministic: the same model always gives the same bytes.
Keys are written in a fixed order (the product post's, then OKF's trust
fields, then unknown keys sorted). Any string with a line break, a tab or a
non-printable character is written double-quoted on one line, so no front
matter line can ever read as a ``---`` delimiter. YAML is only ever loaded
with the safe loader: ``!!python/object`` and friends are refused.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, TypeVar

import yaml
from frontmatter.default_handlers import YAMLHandler
from pydantic import BaseModel, ValidationError

from family_memory.domain.clock import format_utc
from family_memory.domain.entity import ENTITY_FIELDS, Entity
from family_memory.domain.errors import InvalidInputError
from family_memory.domain.memory import OKF_FIELDS, SEED_FIELDS, Memory

OKF_VERSION = "0.2"
MAX_FILE_BYTES = 64 * 1024

ModelT = TypeVar("ModelT", bound=BaseModel)


# --- YAML -----------------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    """Safe dumper; sequences indented under their key as in the product post."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    style = '"' if (not data.isprintable()) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


def _represent_datetime(dumper: yaml.SafeDumper, data: datetime) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:timestamp", format_utc(data))


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(datetime, _represent_datetime)


def dump_yaml(data: Mapping[str, Any]) -> str:
    return yaml.dump(
        dict(data),
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        width=1_000_000,
        default_flow_style=False,
    )


#: libyaml's safe loader when PyYAML was built with it (about ten times faster than the
#: pure-Python one, and the same safe constructor: no tags that build objects).
_SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _SafeHandler(YAMLHandler):
    def load(self, fm: str, **kwargs: object) -> Any:
        return yaml.load(fm, Loader=_SAFE_LOADER)  # noqa: S506 - a safe loader


_HANDLER = _SafeHandler()
_OPENING = re.compile(r"\A---[ \t]*\n")


def split_front_matter(text: str, where: str) -> tuple[dict[str, Any], str]:
    """Front matter (a mapping) and body of a concept file, or InvalidInputError.

    python-frontmatter's YAML handler finds the delimiters; the safe loader parses.
    """
    if not _OPENING.match(text):
        raise InvalidInputError(f"{where}: no front matter (the file must start with a '---' line)")
    try:
        raw, body = _HANDLER.split(text)
    except ValueError as exc:
        raise InvalidInputError(f"{where}: front matter has no closing '---' line") from exc
    try:
        metadata = _HANDLER.load(raw)
    except yaml.YAMLError as exc:
        raise InvalidInputError(f"{where}: front matter is not valid YAML: {exc}") from exc
    if not isinstance(metadata, dict):
        raise InvalidInputError(f"{where}: front matter must be a YAML mapping of keys to values")
    return metadata, body.strip()


def _decode(data: bytes | str, where: str) -> str:
    if isinstance(data, str):
        return data
    if len(data) > MAX_FILE_BYTES:
        raise InvalidInputError(f"{where}: file is {len(data)} bytes; the limit is {MAX_FILE_BYTES}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"{where}: not UTF-8 text") from exc


def validation_message(exc: ValidationError) -> str:
    """pydantic's errors as one readable line: ``field: problem; field: problem``."""
    parts = []
    for error in exc.errors():
        location = ".".join(str(p) for p in error["loc"]) or "value"
        message = str(error["msg"]).removeprefix("Value error, ")
        parts.append(f"{location}: {message}")
    return "; ".join(parts)


def validate(model: type[ModelT], data: Any, where: str) -> ModelT:
    """``model.model_validate(data)`` with pydantic's errors turned into InvalidInputError."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InvalidInputError(f"{where}: {validation_message(exc)}") from exc


# --- concept files ----------------------------------------------------------


def _front_matter(model: BaseModel, known: tuple[str, ...], optional: tuple[str, ...]) -> dict[str, Any]:
    dumped = model.model_dump(mode="python", exclude={"body"})
    ordered: dict[str, Any] = {}
    for key in known:
        ordered[key] = _plain(dumped.pop(key))
    for key in optional:
        value = dumped.pop(key, None)
        if value is not None:
            ordered[key] = _plain(value)
    for key in sorted(dumped):
        ordered[key] = _plain(dumped[key])
    return ordered


def _plain(value: Any) -> Any:
    """Enums to their values, recursively; datetimes and dates stay for the representers."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return str(value)  # StrEnum -> plain str
    return value


def _concept_text(front: Mapping[str, Any], body: str) -> bytes:
    text = "---\n" + dump_yaml(front) + "---\n"
    if body:
        text += "\n" + body + "\n"
    return text.encode("utf-8")


def serialise_memory(memory: Memory) -> bytes:
    return _concept_text(_front_matter(memory, SEED_FIELDS, OKF_FIELDS), memory.body)


def parse_memory(data: bytes | str, where: str = "memory file") -> Memory:
    return parse_memory_file(data, where)[0]


def parse_memory_file(data: bytes | str, where: str = "memory file") -> tuple[Memory, dict[str, Any], str]:
    """The memory, with its front matter and body as they stand in the file (field order,
    unknown ``x_`` fields kept): for a reader that shows the file itself."""
    metadata, body = split_front_matter(_decode(data, where), where)
    return validate(Memory, {**metadata, "body": body}, where), metadata, body


def serialise_entity(entity: Entity) -> bytes:
    return _concept_text(_front_matter(entity, ENTITY_FIELDS, ("generated",)), entity.body)


def parse_entity(data: bytes | str, where: str = "entity file") -> Entity:
    metadata, body = split_front_matter(_decode(data, where), where)
    metadata["body"] = body
    return validate(Entity, metadata, where)


def serialise_json(model: BaseModel) -> bytes:
    """Deterministic JSON for the JSON documents of a bundle (family.json, changes/, ...)."""
    return (
        json.dumps(model.model_dump(mode="json", by_alias=True), ensure_ascii=False, sort_keys=True, indent=2) + "\n"
    ).encode("utf-8")


def parse_json(model: type[ModelT], data: bytes, where: str) -> ModelT:
    try:
        loaded = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInputError(f"{where}: not valid JSON: {exc}") from exc
    return validate(model, loaded, where)


# --- index.md and log.md ----------------------------------------------------

_LOG_HEADING = re.compile(r"^## (\d{4}-\d{2}-\d{2})(?::? .*)?$")
_INDEX_ENTRY = re.compile(r"^\* \[(?:[^\]\\\n]|\\.)+\]\([^)\s]+\)(?: - .*)?$")


def _escape_link_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


@dataclass(frozen=True, slots=True)
class IndexEntry:
    title: str
    target: str
    description: str = ""


def render_index(sections: Mapping[str, Iterable[IndexEntry]], *, root: bool = False) -> bytes:
    """An OKF index.md: ``# Section`` headings with ``* [Title](target) - description`` entries.
    Only the bundle root carries front matter (``okf_version``)."""
    lines: list[str] = []
    if root:
        lines += ["---", f'okf_version: "{OKF_VERSION}"', "---", ""]
    for heading, entries in sections.items():
        lines.append(f"# {heading}")
        lines.append("")
        for entry in entries:
            line = f"* [{_escape_link_text(entry.title)}]({entry.target})"
            if entry.description:
                line += f" - {entry.description}"
            lines.append(line)
        lines.append("")
    return ("\n".join(lines).rstrip("\n") + "\n").encode("utf-8")


@dataclass(frozen=True, slots=True)
class LogEntry:
    day: date
    lines: tuple[str, ...]


def render_log(title: str, entries: Iterable[LogEntry]) -> bytes:
    """An OKF log.md, newest date first; entries of the same date share a heading."""
    by_day: dict[date, list[str]] = {}
    for entry in entries:
        by_day.setdefault(entry.day, []).extend(entry.lines)
    out = [f"# {title}", ""]
    for day in sorted(by_day, reverse=True):
        out.append(f"## {day.isoformat()}")
        out.extend(f"* {line}" for line in by_day[day])
        out.append("")
    return ("\n".join(out).rstrip("\n") + "\n").encode("utf-8")


def prepend_log(existing: bytes | None, title: str, entry: LogEntry) -> bytes:
    """Add ``entry`` to a log.md, keeping the old entries below it (the log is append-only)."""
    if not existing:
        return render_log(title, [entry])
    text = existing.decode("utf-8")
    heading = f"## {entry.day.isoformat()}"
    new_lines = [f"* {line}" for line in entry.lines]
    lines = text.rstrip("\n").split("\n")
    for i, line in enumerate(lines):
        if line.startswith("## "):
            if line.split(":")[0] == heading:
                # Same day: newest lines go first under the existing heading.
                lines[i + 1 : i + 1] = new_lines
            else:
                lines[i:i] = [heading, *new_lines, ""]
            break
    else:
        lines += ["", heading, *new_lines]
    return ("\n".join(lines).rstrip("\n") + "\n").encode("utf-8")


def check_log(text: str) -> list[str]:
    """Problems with a log.md's structure (empty list when conformant)."""
    problems = []
    days = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("## "):
            match = _LOG_HEADING.match(line)
            if match is None:
                problems.append(f"line {number}: a log heading must be '## YYYY-MM-DD'")
                continue
            try:
                days.append(date.fromisoformat(match.group(1)))
            except ValueError:
                problems.append(f"line {number}: {match.group(1)} is not a calendar date")
    if days != sorted(days, reverse=True):
        problems.append("log entries are not newest first")
    return problems


def check_index(text: str, *, root: bool) -> list[str]:
    """Problems with an index.md's structure (empty list when conformant)."""
    problems = []
    body = text
    if text.startswith("---"):
        if not root:
            problems.append("only the bundle-root index.md may carry front matter")
        try:
            metadata, body = split_front_matter(text, "index.md")
        except InvalidInputError as exc:
            return [str(exc)]
        unknown = set(metadata) - {"okf_version"}
        if unknown:
            problems.append(f"index.md front matter may only hold okf_version, found {sorted(unknown)}")
    for number, line in enumerate(body.splitlines(), start=1):
        if line.startswith("* ") and not _INDEX_ENTRY.match(line):
            problems.append(f"line {number}: an index entry must be '* [Title](target) - description'")
    return problems


def check_concept(text: str, where: str) -> list[str]:
    """Problems with a concept file: parseable front matter with a non-empty ``type``."""
    try:
        metadata, _ = split_front_matter(text, where)
    except InvalidInputError as exc:
        return [str(exc)]
    kind = metadata.get("type")
    if not isinstance(kind, str) or not kind.strip():
        return [f"{where}: front matter has no non-empty 'type'"]
    return []


def check_bundle(files: Mapping[str, bytes]) -> list[str]:
    """OKF v0.2 conformance of a family bundle, given its ``.md`` files by relative path."""
    problems: list[str] = []
    for path in sorted(files):
        if not path.endswith(".md"):
            continue
        try:
            text = files[path].decode("utf-8")
        except UnicodeDecodeError:
            problems.append(f"{path}: not UTF-8")
            continue
        name = path.rsplit("/", 1)[-1]
        if name == "index.md":
            problems += [f"{path}: {p}" for p in check_index(text, root=path == "index.md")]
        elif name == "log.md":
            problems += [f"{path}: {p}" for p in check_log(text)]
        else:
            problems += check_concept(text, path)
    return problems
