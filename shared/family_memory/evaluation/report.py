"""The harness's output: one table per mode, the evidence-recall table, the JSON
report, and the ratchet (the committed list of targets already met, which CI
enforces so a met target can never silently regress)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from family_memory.domain.errors import InvalidInputError
from family_memory.evaluation.metrics import FamilyScore, Figure, Target

#: Issue 11's bar: the hybrid search beats the better baseline by this much.
RECALL_MARGIN = 0.10
RECALL_CUTS = ("R@10", "R@20", "R@2000tok")
BASELINES = ("bm25_turns", "vector_summaries")


@dataclass
class ModeReport:
    mode: str
    extractor: str
    figures: list[Figure]
    scores: list[FamilyScore]
    recall: dict[str, dict[str, float]] = field(default_factory=dict)
    seconds: float = 0.0

    def recall_figures(self) -> list[Figure]:
        """The hybrid's margin over the better baseline at each cut (issue 11's targets)."""
        if not self.recall:
            return []
        out = []
        for cut in RECALL_CUTS:
            best = max(self.recall[b][cut] for b in BASELINES)
            margin = self.recall["hybrid"][cut] - best
            out.append(
                Figure(
                    f"recall_margin_{cut}",
                    f"hybrid {cut} minus the better baseline",
                    round(margin, 4),
                    0,
                    Target(">=", RECALL_MARGIN),
                    "ratio",
                )
            )
        return out

    def all_figures(self) -> list[Figure]:
        return [*self.figures, *self.recall_figures()]


def render(report: ModeReport) -> str:
    lines = [f"== {report.mode} mode: {report.extractor} ({report.seconds:.0f} s)"]
    width = max(len(f.label) for f in report.all_figures())
    lines.append(f"  {'metric':<{width}}  {'measured':<22} {'target':<9} status")
    for f in report.all_figures():
        status = ("n/a" if f.target is not None else "") if f.met is None else ("met" if f.met else "MISS")
        lines.append(f"  {f.label:<{width}}  {f.shown():<22} {f.target or ''!s:<9} {status}")
    if report.recall:
        lines.append("")
        cuts = list(next(iter(report.recall.values())))
        cuts = [c for c in cuts if c != "questions"]
        questions = int(report.recall["hybrid"]["questions"])
        lines.append(f"  evidence recall over {questions} labelled questions")
        lines.append("  " + f"{'method':<18}" + "".join(f"{c:>10}" for c in cuts))
        for method, means in report.recall.items():
            lines.append("  " + f"{method:<18}" + "".join(f"{means[c]:>10.3f}" for c in cuts))
    return "\n".join(lines)


def details(report: ModeReport, limit: int = 40) -> str:
    """The memories to review and the misses, family by family (capped per family)."""
    out = [f"-- {report.mode}: what to review"]
    for score in report.scores:
        if not score.reviews and not score.misses:
            continue
        out.append(f"  {score.family_id}")
        for review in score.reviews[:limit]:
            out.append(
                f"    memory {review.memory_id} [{review.label}] {review.summary!r}: {'; '.join(review.reasons)}"
            )
        for miss in score.misses[:limit]:
            out.append(f"    {miss}")
    return "\n".join(out)


def to_json(reports: list[ModeReport], meta: dict[str, Any]) -> dict[str, Any]:
    return {
        **meta,
        "modes": {
            r.mode: {
                "extractor": r.extractor,
                "seconds": round(r.seconds, 1),
                "figures": [
                    {
                        "key": f.key,
                        "label": f.label,
                        "value": f.value,
                        "num": f.num,
                        "den": f.den,
                        "target": str(f.target) if f.target else None,
                        "met": f.met,
                    }
                    for f in r.all_figures()
                ],
                "recall": r.recall,
                "families": [asdict(s) for s in r.scores],
            }
            for r in reports
        },
    }


# --- the ratchet ----------------------------------------------------------------------


def read_ratchet(path: Path) -> dict[str, list[str]]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise InvalidInputError(f"{path}: not JSON: {exc}") from exc
    enforced = data.get("enforced") if isinstance(data, dict) else None
    if not isinstance(enforced, dict) or not all(
        isinstance(v, list) and all(isinstance(x, str) for x in v) for v in enforced.values()
    ):
        raise InvalidInputError(f'{path}: expected {{"enforced": {{mode: [metric keys]}}}}')
    return {str(k): list(v) for k, v in enforced.items()}


def check_ratchet(reports: list[ModeReport], enforced: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    """(regressions: enforced targets now missed or unknown, newly met targets not yet enforced)."""
    regressions: list[str] = []
    newly: list[str] = []
    for report in reports:
        keys = set(enforced.get(report.mode, []))
        by_key = {f.key: f for f in report.all_figures()}
        for key in sorted(keys):
            figure = by_key.get(key)
            if figure is None:
                regressions.append(f"{report.mode}: {key} is enforced but was not measured")
            elif not figure.met:
                regressions.append(f"{report.mode}: {figure.label}: {figure.shown()} (target {figure.target})")
        newly += [f"{report.mode}: {f.key}" for f in report.all_figures() if f.met and f.key not in keys]
    return regressions, newly


def write_ratchet(path: Path, reports: list[ModeReport], enforced: dict[str, list[str]]) -> dict[str, list[str]]:
    """Add every target met now to the enforced list (nothing is ever removed here)."""
    merged = {mode: set(keys) for mode, keys in enforced.items()}
    for report in reports:
        merged.setdefault(report.mode, set()).update(f.key for f in report.all_figures() if f.met)
    data = {
        "about": "Targets of `family-memory eval` already met; CI fails when one of them is missed "
        "(docs/evaluation.md). Add with --write-ratchet; remove only with a reason in the commit.",
        "enforced": {mode: sorted(keys) for mode, keys in sorted(merged.items())},
    }
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return data["enforced"]  # type: ignore[return-value]
