"""The calibration sets of the two checks that decide by meaning (issue 10):

- ``eval/calibration/support.yaml``: (cited turns, quote, summary, supported?) pairs. Each
  is run through the whole of validation (``validate_proposals``) as a one-candidate
  session, so what is measured is what formation would accept: the support check, and
  the quote, speaker and source rules beside it.
- ``eval/calibration/restatement.yaml``: (forgotten memory, later candidate, restates?)
  pairs, run through the family's forget rule as the card writes it.

Each reports both error rates with the items it got wrong, by kind.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import yaml

from family_memory.domain.entity import Entity, EntityKind
from family_memory.domain.errors import InvalidInputError
from family_memory.domain.family import FamilySettings, Member
from family_memory.domain.transcript import Transcript
from family_memory.formation.document import Limits
from family_memory.formation.validation import validate_proposals

ZONE = "America/New_York"
#: The session clock when an item gives none (a weekday noon; relative dates then mean little).
DEFAULT_AT = datetime(2026, 6, 10, 12, 0)


@dataclass
class Rates:
    """Accepted shares per class, and the items decided wrongly."""

    name: str
    positive: str  # what the "yes" class is called ("supported", "restated")
    verb: str = "accepted"  # what the check does to an item it says yes to
    yes_total: int = 0
    yes_accepted: int = 0
    no_total: int = 0
    no_accepted: int = 0
    wrong: list[tuple[str, str, str]] = field(default_factory=list)  # (id, kind, why)
    by_kind: Counter[str] = field(default_factory=Counter)
    kind_totals: Counter[str] = field(default_factory=Counter)

    def add(self, item_id: str, kind: str, label: bool, accepted: bool, why: str) -> None:
        self.kind_totals[kind] += 1
        if label:
            self.yes_total += 1
            self.yes_accepted += int(accepted)
        else:
            self.no_total += 1
            self.no_accepted += int(accepted)
        if accepted != label:
            self.wrong.append((item_id, kind, why))
            self.by_kind[kind] += 1

    @property
    def yes_rate(self) -> float:
        return self.yes_accepted / self.yes_total if self.yes_total else 0.0

    @property
    def no_rate(self) -> float:
        return self.no_accepted / self.no_total if self.no_total else 0.0

    def lines(self, details: bool = False) -> list[str]:
        out = [
            f"{self.name}: {self.yes_total + self.no_total} pairs",
            f"  {self.positive} {self.verb} {self.yes_accepted}/{self.yes_total} ({self.yes_rate:.1%})",
            f"  not {self.positive} {self.verb} {self.no_accepted}/{self.no_total} ({self.no_rate:.1%})",
        ]
        if self.by_kind:
            out.append(
                "  wrong by kind: "
                + ", ".join(f"{k} {n}/{self.kind_totals[k]}" for k, n in sorted(self.by_kind.items()))
            )
        if details:
            out += [f"    {i} [{k}] {why}" for i, k, why in self.wrong]
        return out


def _slug(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug or "member"


def load_pairs(path: Path) -> list[dict[str, Any]]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise InvalidInputError(f"{path}: not readable YAML: {exc}") from exc
    if not isinstance(data, list) or not all(isinstance(item, dict) and "id" in item for item in data):
        raise InvalidInputError(f"{path}: expected a list of items with ids")
    return data


def directory(items: list[dict[str, Any]]) -> list[str]:
    """Every person the pairs name (writers, about_member, applies_to): what a family's entity
    directory knows of its people, so a name in a turn is known to be a name."""
    names: set[str] = set()
    for item in items:
        names.update(t["member"] for t in [*item.get("earlier", []), *item["turns"]] if t.get("member"))
        names.update(n for n in [item.get("about_member"), *(item.get("applies_to") or [])] if n)
    return sorted(names)


def _support_case(
    item: dict[str, Any], people: list[str] | None = None
) -> tuple[Transcript, FamilySettings, dict[str, Any], list[Entity]]:
    """A one-candidate session holding the item's turns (after its ``earlier`` ones, said before
    and not cited), and the candidate as an extractor writes it, citing the item's turns."""
    at = datetime.strptime(item["at"], "%Y-%m-%d %H:%M") if item.get("at") else DEFAULT_AT
    start = at.replace(tzinfo=ZoneInfo(ZONE)).astimezone(UTC)
    earlier = item.get("earlier") or []
    said = [*earlier, *item["turns"]]
    writers = {t["member"] for t in said if t.get("member")}
    member_names = writers | ({item["about_member"]} if item.get("about_member") else set())
    members = [Member(id=_slug(name), name=name) for name in sorted(member_names)]
    family = FamilySettings(family_id="calibration", time_zone=ZONE, members=members)
    entities = [
        Entity(id=f"01K6N1R0A0B0C0D0E0F0{n:06d}"[:26], type=EntityKind.PERSON, name=name, created_at=start)
        for n, name in enumerate(people or [])
        if name not in member_names
    ]
    turns = []
    for n, t in enumerate(said, start=1):
        turn: dict[str, Any] = {
            "n": n,
            "role": t["role"],
            "text": t["text"],
            "at": (start + timedelta(seconds=n)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        if t["role"] == "user":
            turn["member_id"] = _slug(t["member"])
        turns.append(turn)
    transcript = Transcript.model_validate(
        {
            "family_id": "calibration",
            "session_id": item["id"],
            "started_at": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "time_zone": ZONE,
            "turns": turns,
        }
    )
    about_member = item.get("about_member")
    first = len(earlier) + 1
    candidate: dict[str, Any] = {
        "type": "fact",
        "about": item["summary"][:100],
        "summary": item["summary"],
        "authority": "user_explicit",
        "confidence": 0.9,
        "applies_to": [a for a in (item.get("applies_to") or []) if a][:20],
        "about_member": _slug(about_member) if about_member else None,
        "evidence": [{"turns": [first, len(turns)] if len(turns) > first else [first], "quote": item["quote"]}],
    }
    return transcript, family, candidate, entities


def support_rates(path: Path, name: str = "support check (eval/calibration/support.yaml)") -> Rates:
    """Both error rates of validation on the support pairs."""
    rates = Rates(name, "supported")
    items = load_pairs(path)
    people = directory(items)
    for item in items:
        transcript, family, candidate, entities = _support_case(item, people)
        [entry] = validate_proposals(transcript, family, [candidate], Limits(), entities)
        why = "; ".join(r.message for r in entry.reasons) if entry.reasons else "accepted"
        rates.add(item["id"], item["kind"], bool(item["supported"]), entry.accepted, f"{why} | {item['summary']}")
    return rates


def said_on(item: dict[str, Any]) -> date:
    at = datetime.strptime(item["at"], "%Y-%m-%d %H:%M") if item.get("at") else DEFAULT_AT
    return at.date()


Decider = Callable[[dict[str, Any]], bool]


def restatement_rates(path: Path, meaning: Any = None) -> Rates:
    """Both error rates of a family's forget rule on the restatement pairs: the forgotten
    memory is forgotten through the card's own rule-making (its fingerprints and people), and
    each later candidate is matched as formation matches it (``meaning``: a ClaimMeaning, or
    None to match by words only)."""
    from family_memory.domain.ids import new_ulid
    from family_memory.domain.suppression import Suppression, SuppressionScope
    from family_memory.forgotten import APPLIES_TO, CLAIMS_ONLY, SuppressionRules, fingerprints
    from family_memory.formation.candidate import Candidate

    rates = Rates("forget rules (eval/calibration/restatement.yaml)", "restated", "kept out")
    people: dict[str, str] = {}

    def entity(name: str) -> str:
        key = name.strip().lower()
        if key not in people:
            people[key] = new_ulid()
        return people[key]

    now = datetime(2026, 6, 1, tzinfo=UTC)
    for item in load_pairs(path):
        forgotten, later = item["forgotten"], item["candidate"]
        rule = Suppression.model_validate(
            {
                "id": new_ulid(),
                "scope": SuppressionScope.MEMORY,
                "fingerprints": fingerprints([forgotten["summary"], *forgotten.get("quotes", [])]),
                "created_at": now,
                "created_by": "human:calibration",
                CLAIMS_ONLY: True,
                APPLIES_TO: [entity(n) for n in forgotten.get("applies_to") or []],
            }
        )
        candidate = Candidate.model_validate(
            {
                "type": later["type"],
                "about": later["about"],
                "summary": later["summary"],
                "authority": "user_explicit",
                "confidence": 0.9,
                "applies_to": later.get("applies_to") or [],
                "evidence": [{"turns": [1], "quote": later["quote"]}],
            }
        )
        ids = [entity(n) for n in later.get("applies_to") or []]
        matched = SuppressionRules([rule], meaning).match(candidate, ids) is not None
        rates.add(item["id"], item["kind"], bool(item["restates"]), matched, later["summary"])
    return rates
